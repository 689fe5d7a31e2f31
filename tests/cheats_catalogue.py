"""Tampers with an honest record's body that any seat can make, at any point that owes such
a record: shared by the cheat tests and the chaos test (test_chaos.py).

Each takes the game and the body and changes the body in place (or returns a new one).
"""
from __future__ import annotations

from typing import Any

from protocol_helpers import other_point, seeded_bytes

from saboteur_p2p.crypto.group import IDENTITY, G, add, sadd, scalar_from_int
from saboteur_p2p.protocol.local import LocalGame

P = 2**255 - 19


def _off_curve() -> bytes:
    """The encoding of a y for which no x is on the curve."""
    d = -121665 * pow(121666, -1, P) % P
    for y in range(2, 100):
        x2 = (y * y - 1) * pow(d * y * y + 1, -1, P) % P
        if pow(x2, (P - 1) // 2, P) == P - 1:
            return y.to_bytes(32, "little")
    raise AssertionError("no y off the curve below 100")


#: encodings that are no valid point of the group
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
BAD_POINTS = {
    "identity": IDENTITY,
    "order-2": (P - 1).to_bytes(32, "little"),
    "order-4": bytes(32),
    "order-8": ORDER_8,
    "off-curve": _off_curve(),
    "mixed-order": add(G, ORDER_8),
    "non-canonical": (P + 1).to_bytes(32, "little"),
}


# -- decryption shares: each changes a body of shares (a shares record's, or the shares a move carries)


def public_share_of_another_point(game: LocalGame, body: dict[str, Any]) -> None:
    body["public"][0][1] = other_point(1)


def sealed_share_shifted(game: LocalGame, body: dict[str, Any]) -> None:
    body["sealed"][0][4] = add(body["sealed"][0][4], G)


def sealed_share_with_another_share_s_proof(game: LocalGame, body: dict[str, Any]) -> None:
    body["sealed"][0][5:] = body["sealed"][1][5:]


# -- shuffle proofs: each changes the proof of the body's first deck, a map of
# commitments, chain, challenge, responses, chain_responses, permuted_responses (§6.5)


def _proof(body: dict[str, Any]) -> dict[str, Any]:
    proof: dict[str, Any] = body["decks"][0][2]
    return proof


def response_changed(game: LocalGame, body: dict[str, Any]) -> None:
    responses = _proof(body)["responses"]
    responses[0] = sadd(responses[0], scalar_from_int(1))


def challenge_changed(game: LocalGame, body: dict[str, Any]) -> None:
    proof = _proof(body)
    proof["challenge"] = sadd(proof["challenge"], scalar_from_int(1))


def permuted_response_changed(game: LocalGame, body: dict[str, Any]) -> None:
    responses = _proof(body)["permuted_responses"]
    responses[-1] = sadd(responses[-1], scalar_from_int(1))


def commitment_replaced(game: LocalGame, body: dict[str, Any]) -> None:
    """A permutation commitment replaced by another valid point (the generator's double)."""
    _proof(body)["commitments"][0] = add(G, G)


def chain_entry_replaced(game: LocalGame, body: dict[str, Any]) -> None:
    _proof(body)["chain"][0] = other_point(5)


def a_proof_entry_missing(game: LocalGame, body: dict[str, Any]) -> None:
    """Malformed, not false: refused when the record is read, by every seat."""
    _proof(body)["chain_responses"].pop()


#: tampers that make a well-formed but false proof
FALSE_PROOFS = [response_changed, challenge_changed, permuted_response_changed, commitment_replaced, chain_entry_replaced]


# -- key shares


def random_proof(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    return {"X": body["X"], "pok": [seeded_bytes(15)(32), seeded_bytes(16)(32)]}


def unreduced_proof(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    e, s = body["pok"]
    L = 2**252 + 27742317777372353535851937790883648493
    return {"X": body["X"], "pok": [e, (int.from_bytes(s, "little") + L).to_bytes(32, "little")]}
