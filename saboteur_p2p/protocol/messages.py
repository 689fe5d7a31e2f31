"""The game-session messages: one frozen dataclass per kind, and their strict decoding.

| kind     | sender                     | body fields |
|----------|----------------------------|-------------|
| genesis  | seat 0                     | config, seats, names |
| key      | every seat, in seat order  | X (point), pok [e, s] |
| commit   | every seat, in seat order  | commitments [bytes32, ...] |
| reveal   | every seat, in seat order  | values [[value, nonce], ...] |
| shuffle  | each shuffler in turn      | decks [[deck, cards, proof]] |
| shares   | each seat that owes shares | public [[card, D, A, B, s]], sealed [[card, audience, ...]], opened (§6.8) |
| action   | the seat whose move it is  | action (text) |

Bodies are msgpack maps with string keys.  Every field is type- and size-checked here;
points and scalars are checked again by the maths that uses them.  protocol.md is the
full specification.
"""
from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from ..rules.dealer import Deck

MAX_PLAYERS = 12
#: bytes of a table's salt (the lobby's, crypto/table_code.py), named in the genesis record
TABLE_SALT_BYTES = 16
MAX_DECK = 128
MAX_SHARES = 4096
#: a player's display name: what every seat shows of it, so what anyone may choose is bounded
MAX_NAME = 40
#: the longest a table may wait for a seat gone silent (``--wait``, an hour), in milliseconds
MAX_WAIT_MS = 3_600_000
NAME_RULE = f"a name is 1 to {MAX_NAME} letters, digits, marks, symbols or spaces, not beginning or ending with a space"
#: the Unicode categories no name holds: controls, format characters (bidi overrides,
#: invisible ones), surrogates, private use, and every separator but the plain space
_NOT_IN_NAMES = frozenset(("Cc", "Cf", "Cs", "Co", "Zl", "Zp", "Zs"))
#: format characters some scripts spell names with: the zero-width non-joiner (Persian) and
#: joiner (Indic scripts, emoji sequences)
_JOINERS = frozenset("\u200c\u200d")


#: Unicode's default-ignorable code points (DerivedCoreProperties.txt, Unicode 15): drawn as
#: nothing, so two names that differ only by them read the same, and a name of them alone
#: is blank; and U+2800, the blank braille pattern, which is drawn as a space
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x2800, 0x2800),
    (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)


def invisible(char: str) -> bool:
    """Whether ``char`` is drawn as nothing (or as a blank) on a screen."""
    code = ord(char)
    return any(low <= code <= high for low, high in _INVISIBLE_RANGES)


def _shown(char: str) -> bool:
    """Whether a character of what a peer says may reach a screen: nothing that could act on a
    terminal or hide in it (a control, a line break, a bidi override, an invisible or odd space)."""
    return char == " " or char in _JOINERS or unicodedata.category(char) not in _NOT_IN_NAMES


def valid_name(name: object) -> bool:
    """Whether ``name`` may be a player's name (``NAME_RULE``; protocol.md §6.1): only characters
    fit to be shown, as every seat's screen shows it; nothing blank (at least one character
    that is neither a space nor ``invisible``)."""
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME or name.strip(" ") != name:
        return False
    return all(_shown(char) for char in name) and any(char != " " and not invisible(char) for char in name)


class MalformedMessage(ValueError):
    """A message body that does not have the shape its kind requires."""


def _map(body: Any, kind: str, fields: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise MalformedMessage(f"{kind}: body must be a map")
    missing = [f for f in fields if f not in body]
    extra = [f for f in body if f not in fields]
    if missing or extra:
        raise MalformedMessage(f"{kind}: missing fields {missing}, unknown fields {extra}")
    return body


def _bytes(value: Any, size: int, what: str) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise MalformedMessage(f"{what}: expected {size} bytes")
    return value


def _int(value: Any, low: int, high: int, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise MalformedMessage(f"{what}: expected an integer in [{low}, {high}]")
    return value


def _list(value: Any, what: str, max_len: int) -> list[Any]:
    if not isinstance(value, (list, tuple)) or len(value) > max_len:
        raise MalformedMessage(f"{what}: expected a list of at most {max_len} items")
    return list(value)


def _pair(value: Any, what: str) -> list[Any]:
    pair = _list(value, what, 2)
    if len(pair) != 2:
        raise MalformedMessage(f"{what}: expected a pair")
    return pair


def _deck(value: Any, what: str) -> Deck:
    try:
        return Deck(value)
    except ValueError:
        raise MalformedMessage(f"{what}: unknown deck {value!r}") from None


def _cards(value: Any, what: str) -> list[tuple[bytes, bytes]]:
    cards = _list(value, what, MAX_DECK)
    out = []
    for i, card in enumerate(cards):
        pair = _list(card, f"{what}[{i}]", 2)
        if len(pair) != 2:
            raise MalformedMessage(f"{what}[{i}]: expected a pair of points")
        out.append((_bytes(pair[0], 32, f"{what}[{i}].C1"), _bytes(pair[1], 32, f"{what}[{i}].C2")))
    return out


#: A card named in a message: [batch, deck, position].
def _card_key(value: Any, what: str) -> tuple[int, Deck, int]:
    parts = _list(value, what, 3)
    if len(parts) != 3:
        raise MalformedMessage(f"{what}: expected [batch, deck, position]")
    batch = _int(parts[0], 0, 10_000, f"{what}.batch")
    return batch, _deck(parts[1], f"{what}.deck"), _int(parts[2], 0, MAX_DECK, f"{what}.position")


def card_key_data(card: tuple[int, Deck, int]) -> list[Any]:
    return [card[0], card[1].value, card[2]]


@dataclass(frozen=True)
class Genesis:
    config: dict[str, Any]
    seats: tuple[tuple[bytes, bytes], ...]
    names: tuple[str, ...]
    #: the salt of the table the lobby seated everyone at (empty: no lobby, a local game)
    table: bytes = b""
    #: the table's wait for a seat gone silent, in milliseconds (its host's ``--wait``; None:
    #: a local game): one signed value, so every seat that takes it on waits alike (§12.4)
    wait_ms: int | None = None

    @classmethod
    def decode(cls, body: Any) -> Genesis:
        optional = tuple(f for f in ("table", "wait_ms") if isinstance(body, dict) and f in body)
        b = _map(body, "genesis", ("config", "seats", "names", *optional))
        if not isinstance(b["config"], dict):
            raise MalformedMessage("genesis: config must be a map")
        seats = tuple(
            (_bytes(_pair(s, "seat")[0], 32, "seat sign key"), _bytes(_pair(s, "seat")[1], 32, "seat dh key"))
            for s in _list(b["seats"], "genesis.seats", MAX_PLAYERS)
        )
        names = tuple(
            n if valid_name(n) else _bad(f"genesis.names: {NAME_RULE}")
            for n in _list(b["names"], "genesis.names", MAX_PLAYERS)
        )
        table = _bytes(b["table"], TABLE_SALT_BYTES, "genesis.table") if "table" in b else b""
        wait_ms = _int(b["wait_ms"], 0, MAX_WAIT_MS, "genesis.wait_ms") if "wait_ms" in b else None
        return cls(b["config"], seats, names, table, wait_ms)

    def encode(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "config": self.config,
            "seats": [list(s) for s in self.seats],
            "names": list(self.names),
        }
        if self.table:
            body["table"] = self.table
        if self.wait_ms is not None:
            body["wait_ms"] = self.wait_ms
        return body


def printable(text: object) -> str:
    """What a peer (or a file) says, fit to print: the characters a name may hold only, so it
    can write no escape sequence or line of its own into a player's terminal."""
    text = str(text)
    if text.isascii() and text.isprintable():
        return text  # every character from space to tilde is shown: the common case, at once
    return "".join(c for c in text if _shown(c))


def _bad(message: str) -> Any:
    raise MalformedMessage(message)


@dataclass(frozen=True)
class KeyShare:
    X: bytes
    pok: tuple[bytes, bytes]

    @classmethod
    def decode(cls, body: Any) -> KeyShare:
        b = _map(body, "key", ("X", "pok"))
        pok = _list(b["pok"], "key.pok", 2)
        if len(pok) != 2:
            raise MalformedMessage("key.pok: expected [e, s]")
        return cls(_bytes(b["X"], 32, "key.X"), (_bytes(pok[0], 32, "key.pok.e"), _bytes(pok[1], 32, "key.pok.s")))

    def encode(self) -> dict[str, Any]:
        return {"X": self.X, "pok": list(self.pok)}


@dataclass(frozen=True)
class Commit:
    commitments: tuple[bytes, ...]

    @classmethod
    def decode(cls, body: Any) -> Commit:
        b = _map(body, "commit", ("commitments",))
        return cls(tuple(_bytes(c, 32, "commitment") for c in _list(b["commitments"], "commit.commitments", MAX_PLAYERS)))

    def encode(self) -> dict[str, Any]:
        return {"commitments": list(self.commitments)}


@dataclass(frozen=True)
class Reveal:
    values: tuple[tuple[bytes, bytes], ...]

    @classmethod
    def decode(cls, body: Any) -> Reveal:
        b = _map(body, "reveal", ("values",))
        values = []
        for item in _list(b["values"], "reveal.values", MAX_PLAYERS):
            pair = _list(item, "reveal value", 2)
            if len(pair) != 2:
                raise MalformedMessage("reveal: expected [value, nonce] pairs")
            values.append((_bytes(pair[0], 32, "reveal value"), _bytes(pair[1], 32, "reveal nonce")))
        return cls(tuple(values))

    def encode(self) -> dict[str, Any]:
        return {"values": [list(v) for v in self.values]}


@dataclass(frozen=True)
class Shuffle:
    """A shuffler's output decks, each with its proof of a shuffle (checked by the maths:
    ``ShuffleProof.from_data`` and ``verify_shuffle_proof``)."""

    decks: tuple[tuple[Deck, list[tuple[bytes, bytes]], dict[str, Any]], ...]

    @classmethod
    def decode(cls, body: Any) -> Shuffle:
        b = _map(body, "shuffle", ("decks",))
        decks = []
        for item in _list(b["decks"], "shuffle.decks", 8):
            triple = _list(item, "shuffle.decks item", 3)
            if len(triple) != 3 or not isinstance(triple[2], dict):
                raise MalformedMessage("shuffle.decks item: expected [deck, cards, proof map]")
            decks.append((_deck(triple[0], "shuffle deck"), _cards(triple[1], "shuffle deck cards"), triple[2]))
        return cls(tuple(decks))

    def encode(self) -> dict[str, Any]:
        return {"decks": [[d.value, [list(c) for c in cards], proof] for d, cards, proof in self.decks]}


@dataclass(frozen=True)
class PublicShare:
    card: tuple[int, Deck, int]
    share: bytes
    #: the DLEQ proof (A, B, s) of §7.2
    proof: tuple[bytes, bytes, bytes]


@dataclass(frozen=True)
class SealedShare:
    """A seat's share of a card, sealed to one seat of the card's audience (protocol.md §7.3)."""

    card: tuple[int, Deck, int]
    audience: tuple[int, ...]
    recipient: int
    E1: bytes
    E2: bytes
    proof: tuple[bytes, bytes, bytes]


@dataclass(frozen=True)
class OpenedShare:
    """Another seat's share of a card, opened by the seat it was sealed to, with the opener's
    proof that it is the decryption of that sealed share under its own key (protocol.md §7.3.1)."""

    card: tuple[int, Deck, int]
    ower: int
    share: bytes
    #: the DLEQ proof (A, B, s) of §7.2
    proof: tuple[bytes, bytes, bytes]


@dataclass(frozen=True)
class Shares:
    public: tuple[PublicShare, ...]
    sealed: tuple[SealedShare, ...]
    #: the other seats' shares of the cards the sender holds and shows to all, opened by it
    opened: tuple[OpenedShare, ...] = ()

    @classmethod
    def decode(cls, body: Any) -> Shares:
        fields = ("public", "sealed", "opened") if isinstance(body, dict) and "opened" in body else ("public", "sealed")
        b = _map(body, "shares", fields)
        public = []
        for item in _list(b["public"], "shares.public", MAX_SHARES):
            p = _list(item, "public share", 5)
            if len(p) != 5:
                raise MalformedMessage("public share: expected [card, D, A, B, s]")
            proof = (_bytes(p[2], 32, "A"), _bytes(p[3], 32, "B"), _bytes(p[4], 32, "s"))
            public.append(PublicShare(_card_key(p[0], "public share card"), _bytes(p[1], 32, "share"), proof))
        sealed = []
        for item in _list(b["sealed"], "shares.sealed", MAX_SHARES):
            s = _list(item, "sealed share", 8)
            if len(s) != 8:
                raise MalformedMessage("sealed share: expected [card, audience, recipient, E1, E2, e, s1, s2]")
            audience = tuple(_int(a, 0, MAX_PLAYERS - 1, "audience seat") for a in _list(s[1], "audience", MAX_PLAYERS))
            if list(audience) != sorted(set(audience)):
                raise MalformedMessage("sealed share: the audience must list its seats once each, in ascending order")
            sealed.append(SealedShare(
                _card_key(s[0], "sealed share card"), audience, _int(s[2], 0, MAX_PLAYERS - 1, "recipient"),
                _bytes(s[3], 32, "E1"), _bytes(s[4], 32, "E2"),
                (_bytes(s[5], 32, "e"), _bytes(s[6], 32, "s1"), _bytes(s[7], 32, "s2")),
            ))
        if b.get("opened", None) == []:
            raise MalformedMessage("shares.opened: left out when empty, never an empty list")
        opened = []
        for item in _list(b.get("opened", []), "shares.opened", MAX_SHARES):
            o = _list(item, "opened share", 6)
            if len(o) != 6:
                raise MalformedMessage("opened share: expected [card, ower, D, A, B, s]")
            opened.append(OpenedShare(
                _card_key(o[0], "opened share card"), _int(o[1], 0, MAX_PLAYERS - 1, "ower"), _bytes(o[2], 32, "share"),
                (_bytes(o[3], 32, "A"), _bytes(o[4], 32, "B"), _bytes(o[5], 32, "s")),
            ))
        return cls(tuple(public), tuple(sealed), tuple(opened))

    def encode(self) -> dict[str, Any]:
        body: dict[str, Any] = {
            "public": [[card_key_data(p.card), p.share, *p.proof] for p in self.public],
            "sealed": [[card_key_data(s.card), list(s.audience), s.recipient, s.E1, s.E2, *s.proof]
                       for s in self.sealed],
        }
        if self.opened:
            body["opened"] = [[card_key_data(o.card), o.ower, o.share, *o.proof] for o in self.opened]
        return body


@dataclass(frozen=True)
class ActionMsg:
    """A move, and optionally the shares its mover owes once the move blocks on a reveal."""

    action: str
    shares: Shares | None = None

    @classmethod
    def decode(cls, body: Any) -> ActionMsg:
        fields = ("action", "shares") if isinstance(body, dict) and "shares" in body else ("action",)
        b = _map(body, "action", fields)
        if not isinstance(b["action"], str) or len(b["action"]) > 400:
            raise MalformedMessage("action: expected text of at most 400 characters")
        return cls(b["action"], Shares.decode(b["shares"]) if "shares" in b else None)

    def encode(self) -> dict[str, Any]:
        if self.shares is None:
            return {"action": self.action}
        return {"action": self.action, "shares": self.shares.encode()}


MESSAGE_TYPES: dict[str, type] = {
    "genesis": Genesis,
    "key": KeyShare,
    "commit": Commit,
    "reveal": Reveal,
    "shuffle": Shuffle,
    "shares": Shares,
    "action": ActionMsg,
}
