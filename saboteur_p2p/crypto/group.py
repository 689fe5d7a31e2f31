"""The prime-order subgroup of edwards25519, through libsodium (PyNaCl).

Points are 32-byte compressed encodings, scalars 32-byte little-endian integers reduced
modulo the group order L.  Every point that arrives from outside goes through
``check_point``: on the curve, in the prime-order subgroup, not of small order (so never
the identity).  Hashes are SHA-512 with a domain-separation tag and length-prefixed parts.
"""
from __future__ import annotations

import hashlib
import secrets
import struct
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import ClassVar

from nacl.bindings import (
    crypto_core_ed25519_add,
    crypto_core_ed25519_from_uniform,
    crypto_core_ed25519_is_valid_point,
    crypto_core_ed25519_scalar_add,
    crypto_core_ed25519_scalar_invert,
    crypto_core_ed25519_scalar_mul,
    crypto_core_ed25519_scalar_negate,
    crypto_core_ed25519_scalar_reduce,
    crypto_core_ed25519_scalar_sub,
    crypto_core_ed25519_sub,
    crypto_scalarmult_ed25519_base_noclamp,
    crypto_scalarmult_ed25519_noclamp,
)
from nacl.exceptions import RuntimeError as NaclRuntimeError

Point = bytes
Scalar = bytes

#: The order of the prime-order subgroup.
L = 2**252 + 27742317777372353535851937790883648493
POINT_BYTES = 32
SCALAR_BYTES = 32
#: Encoding of the neutral element (x=0, y=1); only ever produced locally.
IDENTITY: Point = bytes([1]) + bytes(31)
#: The standard base point.
G: Point = crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))

#: A source of random bytes; ``secrets.token_bytes`` unless a test injects a seeded one.
RandomBytes = Callable[[int], bytes]


class InvalidPoint(ValueError):
    """Bytes that are not a valid point of the prime-order subgroup."""


class InvalidScalar(ValueError):
    """Bytes that are not a canonical scalar below the group order."""


class Passed:
    """Digests of checks this process has passed, the oldest forgotten first.  A check here
    depends on its bytes alone (a point's encoding, a proof with its whole statement), so seats
    that share one process (tests, ``play_local_game``, ``verify`` of several copies of a log)
    make each check once, not once per seat; a failed check is never kept, so it is made again.
    A benchmark that times each seat's own work turns them all off (``remember_checks``)."""

    every: ClassVar[list[Passed]] = []
    enabled: ClassVar[bool] = True

    def __init__(self, kept: int) -> None:
        self.kept = kept
        self.digests: OrderedDict[bytes, None] = OrderedDict()
        Passed.every.append(self)

    def __contains__(self, digest: bytes) -> bool:
        # checked here too: a verifier thread may add a digest just after remember_checks(False)
        return Passed.enabled and digest in self.digests

    def add(self, digest: bytes) -> None:
        if Passed.enabled:
            self.digests[digest] = None
            if len(self.digests) > self.kept:
                self.digests.popitem(last=False)


def remember_checks(enabled: bool) -> None:
    """Whether the checks of points and proofs skip what this process has already passed."""
    Passed.enabled = enabled
    for passed in Passed.every:
        passed.digests.clear()


#: Encodings that passed ``check_point``: the subgroup check costs about a scalar multiplication.
_valid = Passed(1 << 15)


def check_point(data: object, what: str = "point") -> Point:
    """Accept only a 32-byte encoding of a prime-order-subgroup point that is not small-order."""
    if not isinstance(data, bytes) or len(data) != POINT_BYTES:
        length = len(data) if isinstance(data, (bytes, str, list)) else "?"
        raise InvalidPoint(f"{what}: expected {POINT_BYTES} bytes, got {type(data).__name__} of length {length}")
    if data in _valid:
        return data
    if not crypto_core_ed25519_is_valid_point(data):
        raise InvalidPoint(f"{what}: not a valid point of the prime-order subgroup (or of small order)")
    _valid.add(bytes(data))
    return data


def check_scalar(data: object, what: str = "scalar") -> Scalar:
    """Accept only a canonical 32-byte scalar in [0, L)."""
    if not isinstance(data, bytes) or len(data) != SCALAR_BYTES:
        raise InvalidScalar(f"{what}: expected {SCALAR_BYTES} bytes")
    if int.from_bytes(data, "little") >= L:
        raise InvalidScalar(f"{what}: not reduced modulo the group order")
    return data


def random_scalar(rand: RandomBytes = secrets.token_bytes) -> Scalar:
    """A uniformly random non-zero scalar."""
    while True:
        s = crypto_core_ed25519_scalar_reduce(rand(64))
        if s != bytes(32):
            return s


def scalar_from_int(n: int) -> Scalar:
    return (n % L).to_bytes(32, "little")


def scalar_to_int(s: Scalar) -> int:
    return int.from_bytes(s, "little")


def mul(s: Scalar, p: Point) -> Point:
    """s * p; raises InvalidPoint if the result is the identity (s = 0 mod L)."""
    try:
        return crypto_scalarmult_ed25519_noclamp(s, p)
    except NaclRuntimeError:
        raise InvalidPoint("scalar multiplication gave the identity") from None


def base_mul(s: Scalar) -> Point:
    """s * G."""
    try:
        return crypto_scalarmult_ed25519_base_noclamp(s)
    except NaclRuntimeError:
        raise InvalidPoint("scalar multiplication gave the identity") from None


def add(p: Point, q: Point) -> Point:
    """p + q; raises InvalidPoint if either is not on the curve."""
    try:
        return crypto_core_ed25519_add(p, q)
    except NaclRuntimeError:
        raise InvalidPoint("point addition with a point not on the curve") from None


def sub(p: Point, q: Point) -> Point:
    """p - q; raises InvalidPoint if either is not on the curve."""
    try:
        return crypto_core_ed25519_sub(p, q)
    except NaclRuntimeError:
        raise InvalidPoint("point subtraction with a point not on the curve") from None


def sadd(a: Scalar, b: Scalar) -> Scalar:
    return crypto_core_ed25519_scalar_add(a, b)


def ssub(a: Scalar, b: Scalar) -> Scalar:
    return crypto_core_ed25519_scalar_sub(a, b)


def smul(a: Scalar, b: Scalar) -> Scalar:
    return crypto_core_ed25519_scalar_mul(a, b)


def sneg(a: Scalar) -> Scalar:
    return crypto_core_ed25519_scalar_negate(a)


def sinv(a: Scalar) -> Scalar:
    return crypto_core_ed25519_scalar_invert(a)


Part = bytes | str | int


def encode_parts(parts: Iterable[Part]) -> bytes:
    """Typed, length-prefixed parts (what every hash of the protocol hashes, §2.3)."""
    out = bytearray()
    for part in parts:
        if isinstance(part, str):
            data = b"s" + part.encode("utf-8")
        elif isinstance(part, int):
            data = b"i" + str(part).encode("ascii")
        else:
            data = b"b" + bytes(part)
        out += struct.pack(">I", len(data)) + data
    return bytes(out)


def hash_bytes(tag: str, *parts: Part, size: int = 64) -> bytes:
    """SHA-512 of a domain tag and length-prefixed typed parts."""
    return hashlib.sha512(encode_parts((f"saboteur-p2p/{tag}", *parts))).digest()[:size]


def hash_to_scalar(tag: str, *parts: Part) -> Scalar:
    return crypto_core_ed25519_scalar_reduce(hash_bytes(tag, *parts))


def hash_to_point(tag: str, *parts: Part) -> Point:
    """A point nobody knows the discrete logarithm of (Elligator 2 via from_uniform)."""
    return crypto_core_ed25519_from_uniform(hash_bytes(tag, *parts, size=32))
