"""CurveZMQ (RFC 26) for one connection, server side and client side: handshakes and boxes.

The seats' link endpoints speak ZMTP through our own listener (zmtp.py), and a seat dials
the others' through our own client (dialer.py), so that both bound whole messages as libzmq
does not; this is the encryption libzmq would have done there.  Each connection has its own
transient key pairs; the client proves its permanent key C (the seat's X25519 ``dh_key``) in
a vouch, and the listener may admit only the seats' keys.  Boxes are NaCl's crypto_box
(PyNaCl): a 16-byte tag, then the ciphertext.  Sans-I/O: bytes of commands in and out.
"""
from __future__ import annotations

import os
import struct
from collections.abc import Callable

from nacl.exceptions import CryptoError
from nacl.public import Box, PrivateKey, PublicKey

#: 8-byte short nonces count up from 1 in each direction; 16-byte prefixes name the box
HELLO_PREFIX, INITIATE_PREFIX = b"CurveZMQHELLO---", b"CurveZMQINITIATE"
READY_PREFIX, CLIENT_PREFIX, SERVER_PREFIX = b"CurveZMQREADY---", b"CurveZMQMESSAGEC", b"CurveZMQMESSAGES"
WELCOME_PREFIX, VOUCH_PREFIX = b"WELCOME-", b"VOUCH---"
#: sizes of the handshake commands, their names included (RFC 26 section 2.4)
HELLO_SIZE, INITIATE_MIN, MESSAGE_MIN = 200, 257, 33
WELCOME_SIZE, READY_MIN = 168, 30
COOKIE_SIZE = 96


class CurveError(ValueError):
    """A box that does not open, a replayed nonce, or a command of the wrong size."""


def _box(secret: PrivateKey, public: bytes | PublicKey) -> Box:
    """The box between our key and a peer's; a key of small order (libsodium refuses the
    all-zero shared key it gives, and PyNaCl raises its RuntimeError) is the peer's fault."""
    try:
        return Box(secret, public if isinstance(public, PublicKey) else PublicKey(public))
    except CryptoError:  # nacl's RuntimeError and ValueError are CryptoErrors too
        raise CurveError("a public key of small order") from None


def _open(box: Box, ciphertext: bytes, nonce: bytes) -> bytes:
    try:
        return box.decrypt(ciphertext, nonce)
    except CryptoError:
        raise CurveError("a box that does not open") from None


class _Boxes:
    """The MESSAGE boxes of a connection whose handshake is done, and the short nonces of both
    directions: ours count up from 1; the peer's must only go up."""

    #: the nonce prefixes of our MESSAGEs and of the peer's
    OURS: bytes
    THEIRS: bytes

    def __init__(self) -> None:
        #: the box between the two transient keys, once the handshake has made it
        self.box: Box | None = None
        self.nonce = 0  # ours: the last we used (a client's counts its HELLO and INITIATE too)
        self.peer_nonce = 0  # theirs: the last we took

    def _next_nonce(self) -> bytes:
        self.nonce += 1
        return struct.pack(">Q", self.nonce)

    def _peer_nonce(self, short: bytes) -> bytes:
        """A short nonce of the peer's: it must be above the last one taken (``_took``)."""
        if struct.unpack(">Q", short)[0] <= self.peer_nonce:
            raise CurveError("a nonce used before")
        return short

    def _took(self, short: bytes) -> None:
        """The box under the peer's nonce ``short`` opened: it is the last one taken now."""
        (self.peer_nonce,) = struct.unpack(">Q", short)

    def _done(self) -> bool:
        """The handshake is over: MESSAGEs may come."""
        raise NotImplementedError

    def open(self, body: bytes) -> tuple[int, bytes]:
        """A MESSAGE from the peer: its flags (1 more, 2 command) and payload."""
        if self.box is None or not self._done():
            raise CurveError("a MESSAGE before the handshake")
        if len(body) < MESSAGE_MIN or body[:8] != b"\x07MESSAGE":
            raise CurveError("not a MESSAGE")
        short = self._peer_nonce(body[8:16])
        plain = _open(self.box, body[16:], self.THEIRS + short)
        self._took(short)
        if not plain:
            raise CurveError("a MESSAGE without its flags")
        return plain[0], plain[1:]

    def seal(self, flags: int, payload: bytes) -> bytes:
        """A MESSAGE to the peer."""
        assert self.box is not None
        short = self._next_nonce()
        return b"\x07MESSAGE" + short + self.box.encrypt(bytes([flags]) + payload, self.OURS + short).ciphertext


class CurveServer(_Boxes):
    """One connection's CurveZMQ state on the server side."""

    OURS, THEIRS = SERVER_PREFIX, CLIENT_PREFIX

    def __init__(self, public: bytes, secret: bytes, rand: Callable[[int], bytes] = os.urandom) -> None:
        self.public = public
        self.secret = PrivateKey(secret)
        super().__init__()
        self.rand = rand
        self.transient = PrivateKey(rand(32))
        self.cookie = b""
        self.client_transient: PublicKey | None = None
        #: the client's permanent key, once it has vouched for its transient one
        self.client: bytes | None = None

    def _done(self) -> bool:
        return self.client is not None

    def hello(self, body: bytes) -> bytes:
        """Check a HELLO command (``body`` from its name on); the WELCOME to send back."""
        if len(body) != HELLO_SIZE or body[6:8] != b"\x01\x00":
            raise CurveError("a HELLO of the wrong size or version")
        if self.box is not None:
            raise CurveError("a second HELLO")
        client_transient = PublicKey(body[80:112])
        short = self._peer_nonce(body[112:120])
        permanent = _box(self.secret, client_transient)
        signature = _open(permanent, body[120:200], HELLO_PREFIX + short)
        self._took(short)
        if signature != bytes(64):
            raise CurveError("a HELLO whose signature box is not zeros")
        self.client_transient = client_transient
        self.box = _box(self.transient, client_transient)
        self.cookie = self.rand(COOKIE_SIZE)  # we keep the state: the cookie only has to come back
        long_nonce = self.rand(16)
        welcome = permanent.encrypt(
            bytes(self.transient.public_key) + self.cookie, WELCOME_PREFIX + long_nonce,
        ).ciphertext
        return b"\x07WELCOME" + long_nonce + welcome

    def initiate(self, body: bytes) -> tuple[bytes, bytes]:
        """Check an INITIATE command: the client's permanent key and its metadata (raw)."""
        if self.box is None or self.client is not None:
            raise CurveError("an INITIATE out of turn")
        if len(body) < INITIATE_MIN or body[9:9 + COOKIE_SIZE] != self.cookie:
            raise CurveError("an INITIATE of the wrong size, or with another cookie")
        short = self._peer_nonce(body[105:113])
        plain = _open(self.box, body[113:], INITIATE_PREFIX + short)
        self._took(short)
        if len(plain) < 128:
            raise CurveError("an INITIATE box too short for a vouch")
        client, vouch_nonce, vouch = plain[:32], plain[32:48], plain[48:128]
        vouched = _open(_box(self.transient, client), vouch, VOUCH_PREFIX + vouch_nonce)
        assert self.client_transient is not None
        if vouched != bytes(self.client_transient) + self.public:
            raise CurveError("a vouch for another key or server")
        self.client = client
        return client, plain[128:]

    def ready(self, metadata: bytes) -> bytes:
        """The READY command that ends the handshake."""
        assert self.box is not None
        short = self._next_nonce()
        return b"\x05READY" + short + self.box.encrypt(metadata, READY_PREFIX + short).ciphertext


class CurveClient(_Boxes):
    """One connection's CurveZMQ state on the client side: a DEALER's, knowing the server's
    permanent key and proving its own (``public``, ``secret``) in the vouch."""

    OURS, THEIRS = CLIENT_PREFIX, SERVER_PREFIX

    def __init__(self, server: bytes, public: bytes, secret: bytes, rand: Callable[[int], bytes] = os.urandom) -> None:
        super().__init__()
        self.server = PublicKey(server)
        self.public = public
        self.secret = PrivateKey(secret)
        self.rand = rand
        self.transient = PrivateKey(rand(32))
        #: the server's READY has come: the handshake is over
        self.done = False

    def _done(self) -> bool:
        return self.done

    def hello(self) -> bytes:
        """The HELLO command (its body, name included) that opens the handshake."""
        short = self._next_nonce()
        signature = _box(self.transient, self.server).encrypt(bytes(64), HELLO_PREFIX + short).ciphertext
        return b"\x05HELLO\x01\x00" + bytes(72) + bytes(self.transient.public_key) + short + signature

    def welcome(self, body: bytes, metadata: bytes) -> bytes:
        """Check the server's WELCOME; the INITIATE to send back, carrying ``metadata``."""
        if self.box is not None or len(body) != WELCOME_SIZE or body[:8] != b"\x07WELCOME":
            raise CurveError("a WELCOME out of turn, or of the wrong size")
        opened = _open(_box(self.transient, self.server), body[24:], WELCOME_PREFIX + body[8:24])
        server_transient, cookie = opened[:32], opened[32:]
        self.box = _box(self.transient, server_transient)
        vouch_nonce = self.rand(16)
        vouch = _box(self.secret, server_transient).encrypt(
            bytes(self.transient.public_key) + bytes(self.server), VOUCH_PREFIX + vouch_nonce,
        ).ciphertext
        short = self._next_nonce()
        plain = self.public + vouch_nonce + vouch + metadata
        return b"\x08INITIATE" + cookie + short + self.box.encrypt(plain, INITIATE_PREFIX + short).ciphertext

    def ready_from(self, body: bytes) -> bytes:
        """Check the server's READY, which ends the handshake: its metadata (raw)."""
        if self.box is None or self.done or len(body) < READY_MIN or body[:6] != b"\x05READY":
            raise CurveError("a READY out of turn, or of the wrong size")
        short = self._peer_nonce(body[6:14])
        metadata = _open(self.box, body[14:], READY_PREFIX + short)
        self._took(short)
        self.done = True
        return metadata
