"""Proof of knowing a table's code that a captured lobby does not let anyone test guesses
against: SPAKE2 (RFC 9382's exchange, here one-sided) on the prime-order subgroup of
edwards25519 (protocol.md §12.2).

Both ends turn the code into the scalar ``w`` (through scrypt with the table's salt, so each
online guess costs the guesser that much too).  The host sends ``Y = y·G + w·N``, the
joiner answers ``X = x·G + w·M`` and a tag over ``K = x·(Y - w·N)``; the host, which finds
the same ``K = y·(X - w·M)`` only if both used the same ``w``, checks the tag.  ``M`` and
``N`` come from hash-to-group, so nobody knows their logarithms: someone who saw ``X``,
``Y`` and the tag would need a Diffie-Hellman value to test a guess of the code, and someone
who talks to the host (or poses as one) tests one guess per exchange.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from functools import lru_cache

from .group import (
    InvalidPoint,
    Point,
    RandomBytes,
    Scalar,
    add,
    base_mul,
    check_point,
    hash_bytes,
    hash_to_point,
    hash_to_scalar,
    mul,
    random_scalar,
    sub,
)

#: The joiner's proof: its share ``X`` and the tag.
CODE_PROOF_BYTES = 64
#: bytes of a table's random salt for its code
CODE_SALT_BYTES = 16
#: scrypt's cost (2^14: about 50 ms and 16 MiB a guess)
SCRYPT_N = 2**14


def table_key(code: str, salt: bytes) -> bytes:
    """The key a table code stands for: scrypt of the code with the table's random salt."""
    return hashlib.scrypt(code.encode(), salt=b"saboteur-p2p/table-code" + salt, n=SCRYPT_N, r=8, p=1, dklen=32)


@lru_cache(maxsize=1)
def _bases() -> tuple[Point, Point]:
    return hash_to_point("table-code-m"), hash_to_point("table-code-n")


class TableCode:
    """A code's secret scalar and the masks it puts on both shares."""

    def __init__(self, key: bytes) -> None:
        w = hash_to_scalar("table-code-w", key)
        m, n = _bases()
        self.w_m = mul(w, m)
        self.w_n = mul(w, n)


class CodeHost:
    """The host's side: a share for each hello (the same for the same joiner and nonce, so a
    hello said again needs nothing remembered) and the check of the joiner's proof."""

    def __init__(self, code: str, salt: bytes, rand: RandomBytes = secrets.token_bytes) -> None:
        self.salt = salt
        self.code = TableCode(table_key(code, salt))
        self._secret = rand(32)

    def _y(self, joiner: bytes, nonce: bytes) -> Scalar:
        return hash_to_scalar("table-code-y", self._secret, joiner, nonce)

    def share(self, joiner: bytes, nonce: bytes) -> Point:
        """``Y = y·G + w·N`` for the joiner's signing key and its hello's nonce."""
        return self._share(self._y(joiner, nonce))

    def _share(self, y: Scalar) -> Point:
        return add(base_mul(y), self.code.w_n)

    def check(self, proof: bytes, joiner: bytes, nonce: bytes) -> bool:
        """Whether ``proof`` shows the joiner used the table's code (constant-time on the tag)."""
        if not isinstance(proof, bytes) or len(proof) != CODE_PROOF_BYTES:
            return False
        x_share, tag = proof[:32], proof[32:]
        try:
            check_point(x_share, "the joiner's code share")
            y = self._y(joiner, nonce)
            secret = mul(y, sub(x_share, self.code.w_m))
        except InvalidPoint:
            return False
        expected = _tag(self.salt, joiner, nonce, x_share, self._share(y), secret)
        return hmac.compare_digest(tag, expected)


def prove_code(key: bytes, salt: bytes, joiner: bytes, nonce: bytes, host_share: object,
               rand: RandomBytes = secrets.token_bytes) -> bytes:
    """The joiner's proof (``X ‖ tag``) for the host's share; raises InvalidPoint when the
    share is not a point of the group or is the code's own mask (it would give no secret)."""
    y_share = check_point(host_share, "the table's code share")
    code = TableCode(key)
    x = random_scalar(rand)
    x_share = add(base_mul(x), code.w_m)
    secret = mul(x, sub(y_share, code.w_n))
    return x_share + _tag(salt, joiner, nonce, x_share, y_share, secret)


def _tag(salt: bytes, joiner: bytes, nonce: bytes, x_share: Point, y_share: Point, secret: Point) -> bytes:
    return hash_bytes("table-code", salt, joiner, nonce, x_share, y_share, secret, size=32)


__all__ = ["CODE_PROOF_BYTES", "CODE_SALT_BYTES", "SCRYPT_N", "CodeHost", "TableCode", "prove_code", "table_key"]
