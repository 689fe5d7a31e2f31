"""A peer's long-term identity: an Ed25519 signing key and an X25519 key-agreement key.

The identity file is one msgpack map holding both 32-byte private keys and, as a check, the
two public keys they derive::

    {"format": "saboteur-p2p identity", "version": 1,
     "ed25519-private": bin32, "x25519-private": bin32,
     "ed25519-public": bin32, "x25519-public": bin32}

Any 32 bytes are a valid private key, so without the public keys a flipped bit would load
as a different identity without complaint; with them, corruption anywhere in the file is
reported.  Files are written atomically (a temporary file in the same directory, fsynced,
then renamed) with mode 0600 in a directory created with mode 0700.  ``load_or_create``
creates the file only when none exists; a file that is there but cannot be used raises
``IdentityError`` naming the file and the problem, and is never replaced.

``PublicIdentity`` is what peers exchange: the two public keys and a short fingerprint for
people to compare aloud.  ``Identity.prove_link_key`` / ``verify_link_key`` show that the
signer of a lobby hello holds the X25519 key it gives (protocol.md 7.1, 12.2).
"""
from __future__ import annotations

import base64
import contextlib
import hmac
import os
import secrets
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import msgpack  # ships no type hints: what it returns is Any, so results are annotated where kept
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from nacl.bindings import (
    crypto_core_ed25519_is_valid_point,
    crypto_scalarmult,
    crypto_sign_ed25519_pk_to_curve25519,
    crypto_sign_open,
)
from nacl.exceptions import BadSignatureError

from ..files import NotAFile, open_regular
from .group import IDENTITY, InvalidPoint, L, RandomBytes, base_mul, check_point, hash_bytes, scalar_from_int
from .proofs import Context, prove_key, verify_key

KEY_BYTES = 32
SIGNATURE_BYTES = 64
FILE_FORMAT = "saboteur-p2p identity"
FILE_VERSION = 1
#: An identity file is about 200 bytes; anything far bigger is not one.
MAX_FILE_BYTES = 4096

_RAW = serialization.Encoding.Raw
_RAW_PUBLIC = serialization.PublicFormat.Raw
_RAW_PRIVATE = serialization.PrivateFormat.Raw
_NO_ENCRYPTION = serialization.NoEncryption()


class IdentityError(Exception):
    """An identity file cannot be read, parsed or written; the message names the file."""


class _AlreadyExists(IdentityError):
    """Raised by ``save(..., overwrite=False)`` when the file is already there."""


@dataclass(frozen=True)
class PublicIdentity:
    """The public half of an identity: what other peers know us by."""

    sign_key: bytes
    dh_key: bytes

    def __post_init__(self) -> None:
        for name in ("sign_key", "dh_key"):
            value = getattr(self, name)
            if not isinstance(value, bytes) or len(value) != KEY_BYTES:
                raise ValueError(f"PublicIdentity.{name}: expected {KEY_BYTES} bytes, got {value!r:.80}")
        if not valid_sign_key(self.sign_key):
            raise ValueError("PublicIdentity.sign_key: not a canonical Ed25519 key of prime order")
        if not valid_dh_key(self.dh_key):
            raise ValueError("PublicIdentity.dh_key: not a canonical X25519 key of large order")

    def to_bytes(self) -> bytes:
        """The 64-byte wire form: signing key then DH key."""
        return self.sign_key + self.dh_key

    @classmethod
    def from_bytes(cls, data: bytes) -> PublicIdentity:
        if not isinstance(data, bytes) or len(data) != 2 * KEY_BYTES:
            raise ValueError(f"a public identity is {2 * KEY_BYTES} bytes, got {data!r:.80}")
        return cls(data[:KEY_BYTES], data[KEY_BYTES:])

    def fingerprint(self) -> str:
        """80 bits of a hash of both keys as four groups of base32, e.g. 'k3f9-2mx8-aq7d-pz4c'.

        Lower-case RFC 4648 base32 has no 0/1/8/9, so O/0 and I/1 cannot be confused.
        """
        digest = hash_bytes("fingerprint", self.sign_key, self.dh_key, size=10)
        text = base64.b32encode(digest).decode("ascii").lower()
        return "-".join(text[i : i + 4] for i in range(0, len(text), 4))

    def verify(self, data: object, signature: object) -> bool:
        """Whether ``signature`` is this identity's Ed25519 signature of ``data``; never raises."""
        return verify_signature(self.sign_key, data, signature)


def valid_sign_key(key: bytes) -> bool:
    """Whether ``key`` is a canonical Ed25519 point in the prime-order subgroup.

    A small-order key (the identity point, say) has signatures that verify on anything, so a
    seat holding one could disown what it signed: such keys are never anyone's identity.
    """
    return isinstance(key, bytes) and len(key) == KEY_BYTES and _public_key(key) is not None


@lru_cache(maxsize=1024)
def _public_key(key: bytes) -> Ed25519PublicKey | None:
    """The loaded public key of a valid 32-byte ``key``, or None.  A table checks the
    signatures of a few keys thousands of times: each is checked for its subgroup and
    loaded once (the check costs about a scalar multiplication); a flood of other keys
    only cycles the cache."""
    if not crypto_core_ed25519_is_valid_point(key):
        return None
    try:
        return Ed25519PublicKey.from_public_bytes(key)
    except ValueError:
        return None


#: any scalar will do to test an X25519 key: a small-order key sends every scalar to zero
_PROBE_SCALAR = hash_bytes("x25519-key-check", size=32)
_X25519_P = 2**255 - 19


def valid_dh_key(key: bytes) -> bool:
    """Whether ``key`` is a canonical X25519 u-coordinate of large order."""
    if not isinstance(key, bytes) or len(key) != KEY_BYTES or int.from_bytes(key, "little") >= _X25519_P:
        return False
    try:
        crypto_scalarmult(_PROBE_SCALAR, key)  # libsodium refuses a key whose result is zero
    except Exception:  # PyNaCl raises its own RuntimeError for libsodium's refusal
        return False
    return True


LINK_KEY_PROOF_BYTES = 96


def _link_key_context(sign_key: bytes, nonce: bytes) -> Context:
    return Context(sign_key + nonce, "link-key", "", 0)


def verify_link_key(dh_key: bytes, sign_key: bytes, nonce: bytes, proof: object) -> bool:
    """Whether ``proof`` shows that the holder of ``sign_key`` knows the private half of the
    X25519 key ``dh_key``: the edwards25519 twin T = x*G of the clamped private scalar x
    (reduced modulo the group order) maps to ``dh_key`` under the birational map to
    Curve25519, with a Schnorr proof of knowledge of log_G T for ``sign_key`` and ``nonce``.
    Never raises."""
    if not isinstance(proof, bytes) or len(proof) != LINK_KEY_PROOF_BYTES:
        return False
    twin, e, s = proof[:32], proof[32:64], proof[64:]
    try:
        check_point(twin, "link key twin")
        if crypto_sign_ed25519_pk_to_curve25519(twin) != dh_key:
            return False
    except (InvalidPoint, ValueError, TypeError, RuntimeError):  # PyNaCl's own RuntimeError included
        return False
    return verify_key(twin, (e, s), _link_key_context(sign_key, nonce))


def verify_signature(sign_key: bytes, data: object, signature: object) -> bool:
    """Whether ``signature`` is a valid Ed25519 signature of ``data`` by a valid ``sign_key``.

    libsodium checks it (in about 40% of OpenSSL's time, and a table checks thousands), as
    RFC 8032 without the cofactor: S below the group order, and R the encoding of S·B - h·A.
    It also refuses an R of small order, which OpenSSL does not; of those R, only the identity
    can pass the check, with a "signature" only the key's holder can make, so that one goes to
    OpenSSL and every peer accepts exactly what protocol.md §3 says."""
    if not isinstance(sign_key, bytes) or len(sign_key) != KEY_BYTES:
        return False
    public_key = _public_key(sign_key)
    if public_key is None or not isinstance(data, (bytes, bytearray, memoryview)):
        return False
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        return False
    signature = bytes(signature)  # the bytes themselves: a subclass's own + or [] would not be read
    if signature[:32] == IDENTITY:
        try:
            public_key.verify(signature, bytes(data))
        except (InvalidSignature, ValueError, TypeError):
            return False
        return True
    try:
        crypto_sign_open(signature + bytes(data), sign_key)
    except (BadSignatureError, ValueError, TypeError):
        return False
    return True


class Identity:
    """Both private keys of a peer.  Compares equal to an identity with the same keys."""

    def __init__(self, sign_private: Ed25519PrivateKey, dh_private: X25519PrivateKey) -> None:
        self._sign = sign_private
        self._dh = dh_private
        self.public = PublicIdentity(
            sign_private.public_key().public_bytes(_RAW, _RAW_PUBLIC),
            dh_private.public_key().public_bytes(_RAW, _RAW_PUBLIC),
        )

    @classmethod
    def generate(cls, rand: RandomBytes = secrets.token_bytes) -> Identity:
        """A fresh identity; tests may pass a seeded ``rand`` for a reproducible one."""
        return cls.from_private_bytes(rand(KEY_BYTES), rand(KEY_BYTES))

    @classmethod
    def from_private_bytes(cls, sign_private: bytes, dh_private: bytes) -> Identity:
        """An identity from an Ed25519 seed and an X25519 scalar (clamped here, as X25519 would)."""
        return cls(
            Ed25519PrivateKey.from_private_bytes(sign_private),
            X25519PrivateKey.from_private_bytes(_clamp(dh_private)),
        )

    def _private_bytes(self) -> tuple[bytes, bytes]:
        return (
            self._sign.private_bytes(_RAW, _RAW_PRIVATE, _NO_ENCRYPTION),
            self._dh.private_bytes(_RAW, _RAW_PRIVATE, _NO_ENCRYPTION),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Identity):
            return NotImplemented
        mine, theirs = self._private_bytes(), other._private_bytes()
        return hmac.compare_digest(mine[0] + mine[1], theirs[0] + theirs[1])

    def __repr__(self) -> str:
        return f"Identity({self.public.fingerprint()})"

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        return self._sign.sign(bytes(data))

    def link_keys(self) -> tuple[bytes, bytes]:
        """The X25519 key pair (public, private) as CurveZMQ takes it, for encrypted links."""
        return self.public.dh_key, self._private_bytes()[1]

    def prove_link_key(self, nonce: bytes, rand: RandomBytes = secrets.token_bytes) -> bytes:
        """Proof (96 bytes) that this identity holds the private half of its X25519 key,
        bound to its signing key and ``nonce`` (``verify_link_key``; protocol.md 12.2)."""
        x = scalar_from_int(int.from_bytes(self._private_bytes()[1], "little") % L)
        twin = base_mul(x)
        e, s = prove_key(x, twin, _link_key_context(self.public.sign_key, nonce), rand)
        return twin + e + s

    def exchange(self, peer_dh_key: bytes) -> bytes:
        """The X25519 shared secret with a peer's DH key; ValueError if the result is all zeros."""
        return self._dh.exchange(X25519PublicKey.from_public_bytes(peer_dh_key))

    # -- the identity file ---------------------------------------------------------------

    def to_file_bytes(self) -> bytes:
        sign_private, dh_private = self._private_bytes()
        packed: bytes = msgpack.packb(
            {
                "format": FILE_FORMAT,
                "version": FILE_VERSION,
                "ed25519-private": sign_private,
                "x25519-private": dh_private,
                "ed25519-public": self.public.sign_key,
                "x25519-public": self.public.dh_key,
            },
            use_bin_type=True,
        )
        return packed

    @classmethod
    def from_file_bytes(cls, data: bytes, path: str | os.PathLike[str] = "<bytes>") -> Identity:
        """Parse an identity file's contents; IdentityError names ``path`` and the problem."""

        def fail(problem: str) -> IdentityError:
            return IdentityError(f"identity file {os.fspath(path)}: {problem}")

        if not data:
            raise fail("the file is empty")
        if len(data) > MAX_FILE_BYTES:
            raise fail(f"{len(data)} bytes is too large for an identity file (at most {MAX_FILE_BYTES})")
        try:
            fields: Any = msgpack.unpackb(data, raw=False, strict_map_key=True, max_map_len=32, max_array_len=32)
        except msgpack.ExtraData:
            raise fail("unexpected bytes after the identity record (corrupt?)") from None
        except msgpack.StackError:  # its error carries no words (found by an attack)
            raise fail("not a readable identity record (corrupt: nested too deep)") from None
        except ValueError as exc:  # msgpack reports truncated and malformed input as ValueError subclasses
            raise fail(f"not a readable identity record (truncated or corrupt: {exc})") from None
        if not isinstance(fields, dict) or fields.get("format") != FILE_FORMAT:
            raise fail(f"not a saboteur-p2p identity file (no format marker {FILE_FORMAT!r})")
        if fields.get("version") != FILE_VERSION:
            raise fail(f"unsupported identity file version {fields.get('version')!r} (this program reads {FILE_VERSION})")
        keys: dict[str, bytes] = {}
        for name in ("ed25519-private", "x25519-private", "ed25519-public", "x25519-public"):
            value = fields.get(name)
            if not isinstance(value, bytes) or len(value) != KEY_BYTES:
                raise fail(f"field {name!r} is missing or not {KEY_BYTES} bytes (corrupt?)")
            keys[name] = value
        if _clamp(keys["x25519-private"]) != keys["x25519-private"]:
            # X25519 ignores these bits, so a flip there would otherwise go unnoticed.
            raise fail("field 'x25519-private' is not a clamped X25519 key (corrupt?)")
        identity = cls.from_private_bytes(keys["ed25519-private"], keys["x25519-private"])
        if identity.public.to_bytes() != keys["ed25519-public"] + keys["x25519-public"]:
            raise fail("the private keys do not match the public keys stored with them (corrupt?)")
        return identity

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Identity:
        """Read an identity file; IdentityError if it is missing, unreadable, corrupt, or
        readable or writable by others (on POSIX: anyone who can read it can sign as us)."""
        try:
            with open_regular(path, "identity file") as f:
                mode = os.fstat(f.fileno()).st_mode
                if os.name == "posix" and mode & 0o077:
                    raise IdentityError(
                        f"identity file {os.fspath(path)}: its mode is {mode & 0o777:o}, open to other users; "
                        f"make it private (chmod 600 {os.fspath(path)}) and check nobody else has read it"
                    )
                data = f.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            raise IdentityError(f"identity file {os.fspath(path)}: does not exist") from None
        except NotAFile as exc:
            raise IdentityError(str(exc)) from None
        except OSError as exc:
            raise IdentityError(f"identity file {os.fspath(path)}: cannot be read: {exc.strerror or exc}") from None
        return cls.from_file_bytes(data, path)

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = True) -> None:
        """Write the identity file atomically, mode 0600, creating its directory with mode 0700.

        With ``overwrite=False`` an existing file is left alone and IdentityError is raised,
        even if another process creates it at the same moment.
        """
        _write_private_file(Path(path), self.to_file_bytes(), overwrite=overwrite)


def load_or_create(path: str | os.PathLike[str] | None = None) -> Identity:
    """The identity stored at ``path`` (default: ``default_identity_path()``), created on first run.

    A file that exists but cannot be read or parsed raises IdentityError; it is never replaced.
    """
    target = Path(path) if path is not None else default_identity_path()
    try:
        return Identity.load(target)
    except IdentityError:
        if os.path.lexists(target):
            raise
    identity = Identity.generate()
    try:
        identity.save(target, overwrite=False)
    except _AlreadyExists:
        # Another process created it between our read and our write: use theirs.
        return Identity.load(target)
    return identity


def default_identity_path() -> Path:
    """$XDG_CONFIG_HOME/saboteur-p2p/identity, or ~/.config/saboteur-p2p/identity."""
    config = os.environ.get("XDG_CONFIG_HOME")
    # The XDG spec says a relative value is invalid and must be ignored.
    base = Path(config) if config and os.path.isabs(config) else Path.home() / ".config"
    return base / "saboteur-p2p" / "identity"


def _clamp(scalar: bytes) -> bytes:
    """RFC 7748 clamping: clear the 3 low bits and the top bit, set bit 254."""
    if len(scalar) != KEY_BYTES:
        raise ValueError(f"an X25519 private key is {KEY_BYTES} bytes")
    return bytes([scalar[0] & 248]) + scalar[1:31] + bytes([(scalar[31] & 127) | 64])


def _write_private_file(path: Path, data: bytes, *, overwrite: bool) -> None:
    def fail(problem: str) -> IdentityError:
        return IdentityError(f"identity file {path}: {problem}")

    try:
        if not path.parent.exists():
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            path.parent.chmod(0o700)  # mkdir's mode passes through the umask, which may remove our own bits
    except OSError as exc:
        raise fail(f"cannot create directory {path.parent}: {exc.strerror or exc}") from None
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(6)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            if hasattr(os, "fchmod"):
                os.fchmod(fd, 0o600)  # a strict umask may have removed the owner's bits
            f.write(data)
            f.flush()
            os.fsync(fd)
        if overwrite:
            os.replace(tmp, path)
        else:
            _create_exclusively(tmp, path)
        _fsync_directory(path.parent)
    except _AlreadyExists:
        raise
    except OSError as exc:
        raise fail(f"cannot be written: {exc.strerror or exc}") from None
    finally:
        with contextlib.suppress(OSError):  # gone already, or never made: the error above tells why
            os.unlink(tmp)


def _create_exclusively(tmp: Path, path: Path) -> None:
    """Move ``tmp`` to ``path`` only if ``path`` does not exist."""
    try:
        os.link(tmp, path)  # atomic create-if-absent, unlike rename
        return
    except FileExistsError:
        raise _AlreadyExists(f"identity file {path}: already exists; not replaced") from None
    except OSError:
        pass  # no hard links on this file system: a check then a rename, racy only against ourselves
    if os.path.lexists(path):
        raise _AlreadyExists(f"identity file {path}: already exists; not replaced")
    os.replace(tmp, path)


def _fsync_directory(directory: Path) -> None:
    """Make the rename durable; not every platform can open a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
