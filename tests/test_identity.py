"""Identity files, fingerprints and signatures."""
from __future__ import annotations

import hashlib
import os
import random
import stat
from pathlib import Path

import msgpack
import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, NoEncryption, PrivateFormat

from saboteur_p2p.crypto.group import L
from saboteur_p2p.crypto.identity import (
    Identity,
    IdentityError,
    PublicIdentity,
    default_identity_path,
    load_or_create,
    valid_dh_key,
    valid_sign_key,
    verify_link_key,
    verify_signature,
)


def seeded(seed: int) -> Identity:
    return Identity.generate(random.Random(seed).randbytes)


def test_created_with_private_modes_and_reloaded_equal(tmp_path: Path) -> None:
    path = tmp_path / "config" / "saboteur-p2p" / "identity"
    created = load_or_create(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert Identity.load(path) == created
    assert load_or_create(path) == created
    assert [p.name for p in path.parent.iterdir()] == ["identity"]  # no temporary file left


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    identity = seeded(1)
    identity.save(tmp_path / "id")
    loaded = Identity.load(tmp_path / "id")
    assert loaded == identity and loaded.public == identity.public
    assert loaded.sign(b"x") == identity.sign(b"x")
    assert seeded(2) != identity


def test_save_without_overwrite_keeps_the_existing_file(tmp_path: Path) -> None:
    path = tmp_path / "id"
    seeded(1).save(path)
    with pytest.raises(IdentityError, match="already exists"):
        seeded(2).save(path, overwrite=False)
    assert Identity.load(path) == seeded(1)


def valid_file() -> bytes:
    return seeded(7).to_file_bytes()


def flipped(data: bytes, index: int) -> bytes:
    return data[:index] + bytes([data[index] ^ 0x01]) + data[index + 1 :]


BAD_CONTENTS = {
    "empty": b"",
    "truncated": valid_file()[:-5],
    "garbage": bytes(range(256)) * 3,
    "text": b"-----BEGIN PRIVATE KEY-----\nnot this\n",
    "trailing": valid_file() + b"\x00",
    "too large": valid_file() + bytes(5000),
    "wrong version": msgpack.packb({**msgpack.unpackb(valid_file()), "version": 2}),
    "short key": msgpack.packb({**msgpack.unpackb(valid_file()), "x25519-private": b"short"}),
    # Flip a bit inside the Ed25519 private key: a valid key, but not the stored public key.
    "flipped private key": flipped(valid_file(), valid_file().index(seeded(7)._private_bytes()[0]) + 3),
}


@pytest.mark.parametrize("name", sorted(BAD_CONTENTS))
def test_corrupt_file_is_reported_and_never_replaced(tmp_path: Path, name: str) -> None:
    path = tmp_path / "identity"
    path.write_bytes(BAD_CONTENTS[name])
    for attempt in (Identity.load, load_or_create):
        with pytest.raises(IdentityError) as info:
            attempt(path)
        assert str(path) in str(info.value)
    assert path.read_bytes() == BAD_CONTENTS[name]
    assert [p.name for p in tmp_path.iterdir()] == ["identity"]


def test_a_file_nested_too_deep_says_so(tmp_path: Path) -> None:
    """msgpack's error for a nest too deep has no words: "(truncated or corrupt: )" (an attack)."""
    path = tmp_path / "identity"
    path.write_bytes(b"\x91" * 4000 + b"\x00")
    path.chmod(0o600)
    with pytest.raises(IdentityError, match=r": not a readable identity record \(corrupt: nested too deep\)$"):
        Identity.load(path)


def test_every_single_bit_flip_is_detected(tmp_path: Path) -> None:
    data = valid_file()
    for index in range(len(data)):
        for bit in range(8):
            bad = data[:index] + bytes([data[index] ^ (1 << bit)]) + data[index + 1 :]
            with pytest.raises(IdentityError):
                Identity.from_file_bytes(bad, "f")


def test_unreadable_file_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "identity"
    path.write_bytes(valid_file())
    real_open = os.open

    def refusing_open(file: object, *args: object, **kwargs: object) -> object:
        if os.fspath(file) == os.fspath(path):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(file, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refusing_open)
    with pytest.raises(IdentityError, match="cannot be read: Permission denied") as info:
        load_or_create(path)
    assert str(path) in str(info.value)
    monkeypatch.undo()
    assert path.read_bytes() == valid_file()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root reads files whatever their mode")
def test_file_without_read_permission_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    path.write_bytes(valid_file())
    path.chmod(0)
    with pytest.raises(IdentityError, match=str(path)):
        load_or_create(path)


def test_directory_in_place_of_the_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    path.mkdir()
    with pytest.raises(IdentityError, match="is not a regular file \\(a folder, pipe or device\\)"):
        load_or_create(path)
    assert path.is_dir()


def test_a_file_in_place_of_the_folder_is_reported_with_the_identity_path(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    path = blocker / "identity"
    with pytest.raises(IdentityError, match=f"identity file {path}: cannot be written: Not a directory"):
        load_or_create(path)


def test_load_of_missing_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(IdentityError, match="does not exist"):
        Identity.load(tmp_path / "nothing")


def test_default_path_follows_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_identity_path() == tmp_path / "saboteur-p2p" / "identity"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_identity_path() == tmp_path / "home" / ".config" / "saboteur-p2p" / "identity"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # invalid per the XDG spec: ignored
    assert default_identity_path() == tmp_path / "home" / ".config" / "saboteur-p2p" / "identity"


def test_fingerprint_is_stable_and_distinct() -> None:
    a, b = seeded(1).public, seeded(2).public
    assert a.fingerprint() == seeded(1).public.fingerprint()
    assert a.fingerprint() != b.fingerprint()
    groups = a.fingerprint().split("-")
    assert [len(g) for g in groups] == [4, 4, 4, 4]
    assert set("".join(groups)) <= set("abcdefghijklmnopqrstuvwxyz234567")
    # Both keys count: the same signing key with another DH key has another fingerprint.
    assert PublicIdentity(a.sign_key, b.dh_key).fingerprint() != a.fingerprint()


def test_public_identity_bytes_round_trip_and_checks_lengths() -> None:
    public = seeded(3).public
    assert PublicIdentity.from_bytes(public.to_bytes()) == public
    with pytest.raises(ValueError):
        PublicIdentity(b"short", public.dh_key)
    with pytest.raises(ValueError):
        PublicIdentity.from_bytes(public.to_bytes()[:-1])


def test_signature_verifies_and_fails_on_any_bit_flip() -> None:
    identity = seeded(4)
    data = b"play path 12 at 3,4"
    signature = identity.sign(data)
    assert len(signature) == 64
    assert identity.public.verify(data, signature)
    for index in range(len(signature)):
        for bit in range(8):
            bad = bytearray(signature)
            bad[index] ^= 1 << bit
            assert not identity.public.verify(data, bytes(bad))
    for index in range(len(data)):
        for bit in range(8):
            bad = bytearray(data)
            bad[index] ^= 1 << bit
            assert not identity.public.verify(bytes(bad), signature)
    assert not seeded(5).public.verify(data, signature)


@pytest.mark.parametrize(
    "data, signature",
    [
        (None, bytes(64)),
        ("text", bytes(64)),
        (b"x", None),
        (b"x", "s" * 64),
        (b"x", bytes(63)),
        (b"x", bytes(65)),
        (b"x", bytes(64)),
        (b"x", b"\xff" * 64),
        (12, 34),
    ],
)
def test_verify_never_raises_on_bad_input(data: object, signature: object) -> None:
    assert seeded(6).public.verify(data, signature) is False


def _openssl_verdict(identity: Identity, data: bytes, signature: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(identity.public.sign_key).verify(signature, data)
    except InvalidSignature:
        return False
    return True


def _secret_scalar(identity: Identity) -> int:
    """The signing scalar a of RFC 8032 (A = a·B), from the key's seed."""
    seed = identity._sign.private_bytes(Encoding.Raw, PrivateFormat.Raw, NoEncryption())
    head = bytearray(hashlib.sha512(seed).digest()[:32])
    head[0] &= 248
    head[31] = (head[31] & 127) | 64
    return int.from_bytes(head, "little")


def _sign_with_r(identity: Identity, data: bytes, r_point: bytes) -> bytes:
    """A "signature" with the given R: S = h·a, which passes only when R is the identity."""
    h = int.from_bytes(hashlib.sha512(r_point + identity.public.sign_key + data).digest(), "little") % L
    return r_point + (h * _secret_scalar(identity) % L).to_bytes(32, "little")


def test_signatures_are_accepted_exactly_as_openssl_accepts_them() -> None:
    """libsodium checks signatures (verify_signature); it must accept what OpenSSL accepts
    (protocol.md §3), no more, no less: honest signatures, S + L, every small-order R (the
    identity's passes with S = h·a, a signature only the key's holder can make), R written
    non-canonically, and bits flipped anywhere."""
    rng = random.Random(9)
    small_order_r = [
        bytes([1]) + bytes(31), (2**255 - 20).to_bytes(32, "little"), bytes(32), bytes(31) + b"\x80",
        bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),
        bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    ]
    for case in range(40):
        identity = seeded(100 + case)
        data = rng.randbytes(rng.randrange(0, 300))
        signature = identity.sign(data)
        r, s = signature[:32], int.from_bytes(signature[32:], "little")
        candidates = [signature, signature[:32] + (s + L).to_bytes(32, "little")]
        candidates += [_sign_with_r(identity, data, r_point) for r_point in small_order_r]
        # R's y written as y + p (when that fits in 255 bits): the same point, another encoding
        y = int.from_bytes(r, "little") & (2**255 - 1)
        if y + 2**255 - 19 < 2**255:
            candidates.append(((y + 2**255 - 19) | (r[31] >> 7) << 255).to_bytes(32, "little") + signature[32:])
        flipped = bytearray(signature)
        flipped[rng.randrange(64)] ^= 1 << rng.randrange(8)
        candidates.append(bytes(flipped))
        for candidate in candidates:
            expected = _openssl_verdict(identity, data, candidate)
            assert verify_signature(identity.public.sign_key, data, candidate) is expected, candidate.hex()
        assert verify_signature(identity.public.sign_key, data, signature)
        assert _openssl_verdict(identity, data, candidates[2])  # R the identity, S = h·a


def test_a_signature_is_read_as_its_bytes_whatever_its_class_says() -> None:
    identity = seeded(7)
    good = identity.sign(b"m")

    class Lying(bytes):
        def __add__(self, other: bytes) -> bytes:  # type: ignore[override]
            return good + other

        def __getitem__(self, index):  # type: ignore[no-untyped-def]
            return good[index]

    assert not verify_signature(identity.public.sign_key, b"m", Lying(bytes(64)))
    assert verify_signature(identity.public.sign_key, b"m", Lying(good))


def test_invalid_or_small_order_public_keys_are_never_identities() -> None:
    identity = seeded(6)
    signature = identity.sign(b"x")
    # not a point, a non-canonical encoding, the identity point (order 1, whose "signatures"
    # verify on anything), a point of order 2
    order_2 = (2**255 - 20).to_bytes(32, "little")
    for bad_key in (b"\xff" * 32, bytes(32), bytes([1]) + bytes(31), order_2):
        assert verify_signature(bad_key, b"x", signature) is False
        assert not valid_sign_key(bad_key)
        with pytest.raises(ValueError, match="sign_key"):
            PublicIdentity(bad_key, identity.public.dh_key)
    assert verify_signature(identity.public.sign_key, b"x", signature)
    # X25519: zero, one and the other small-order u-coordinates, and a non-canonical u >= p
    for bad_dh in (bytes(32), (1).to_bytes(32, "little"), (2**255 - 19).to_bytes(32, "little"),
                   (2**255 - 1).to_bytes(32, "little")):
        assert not valid_dh_key(bad_dh)
        with pytest.raises(ValueError, match="dh_key"):
            PublicIdentity(identity.public.sign_key, bad_dh)


def test_key_agreement_is_symmetric() -> None:
    a, b = seeded(8), seeded(9)
    assert a.exchange(b.public.dh_key) == b.exchange(a.public.dh_key)
    assert len(a.exchange(b.public.dh_key)) == 32


def test_a_link_key_proof_holds_for_its_key_signing_key_and_nonce_only() -> None:
    ann, bob = seeded(10), seeded(11)
    nonce = bytes(range(32))
    proof = ann.prove_link_key(nonce)
    assert len(proof) == 96
    assert verify_link_key(ann.public.dh_key, ann.public.sign_key, nonce, proof)
    assert ann.prove_link_key(nonce) != proof  # a fresh nonce in every proof
    # another key, another signer (a copied proof), another nonce (a proof from an earlier lobby)
    assert not verify_link_key(bob.public.dh_key, ann.public.sign_key, nonce, proof)
    assert not verify_link_key(ann.public.dh_key, bob.public.sign_key, nonce, proof)
    assert not verify_link_key(ann.public.dh_key, ann.public.sign_key, bytes(32), proof)
    # bob's own proof, given for ann's key: his twin maps to his key, not hers
    assert not verify_link_key(ann.public.dh_key, bob.public.sign_key, nonce, bob.prove_link_key(nonce))
    for index in range(len(proof)):
        for bit in range(8):
            bad = bytearray(proof)
            bad[index] ^= 1 << bit
            assert not verify_link_key(ann.public.dh_key, ann.public.sign_key, nonce, bytes(bad))


def test_a_link_key_proof_needs_the_private_key_not_only_the_twin() -> None:
    """Anyone can work out the twin point of a public link key; the proof of its logarithm is
    what they cannot make."""
    ann = seeded(12)
    nonce = bytes(32)
    twin = ann.prove_link_key(nonce)[:32]
    rng = random.Random(1)
    for _ in range(20):
        forged = twin + rng.randbytes(31) + bytes(1) + rng.randbytes(31) + bytes(1)
        assert not verify_link_key(ann.public.dh_key, ann.public.sign_key, nonce, forged)


@pytest.mark.parametrize("proof", [
    None, "x" * 96, bytes(95), bytes(97), bytes(96), b"\xff" * 96,
    bytes([1]) + bytes(95),  # the identity point as the twin
    (2**255 - 20).to_bytes(32, "little") + bytes(64),  # a point of order 2
    [bytes(32)] * 3,
])
def test_verify_link_key_never_raises_on_bad_input(proof: object) -> None:
    ann = seeded(13)
    assert verify_link_key(ann.public.dh_key, ann.public.sign_key, bytes(32), proof) is False


def test_an_identity_file_open_to_other_users_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "identity"
    load_or_create(path)
    path.chmod(0o644)
    with pytest.raises(IdentityError, match=r"mode is 644, open to other users; make it private \(chmod 600"):
        load_or_create(path)
    path.chmod(0o600)
    assert load_or_create(path) == Identity.load(path)
