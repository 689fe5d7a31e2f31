"""The wire envelope: every ZeroMQ message between peers is one signed envelope.

An envelope is the msgpack array ``[kind, body, key, signature]``: ``key`` is the sender's
Ed25519 public key and ``signature`` signs the msgpack bytes of ``[WIRE_TAG, kind, body]``.
Game records travel inside ``record`` envelopes and carry their own signature too.

| kind      | direction            | body |
|-----------|----------------------|------|
| hello     | joiner -> any peer   | version, name, dh_key, endpoint, code_proof, nonce; edition (optional) |
| code      | host -> joiner       | salt (16 bytes), share (32: SPAKE2, protocol.md 12.2); say hello again with a code_proof |
| welcome   | host -> joiner       | seat, seats_total |
| leave     | joiner -> host       | table (the table's salt), nonce (of the hello that seated it): it leaves before the start |
| reject    | peer -> joiner       | reason |
| table     | host -> every joiner | seats [[name, sign_key, dh_key, endpoint]], seats_total |
| start     | peer -> joiner       | game_id, config, seats [...], nonces |
| link      | peer -> peer         | game_id, seat, endpoint (where the receiver reaches the sender), incarnation |
| record    | peer -> peer         | record (bytes) |
| ping      | peer -> peer         | game_id, seat, records, away [seats], t, done, heard [ms by seat]; echo, held (optional) |
| ahead     | peer -> one seat     | game_id, seat, shares (shares owed to that seat, sent before the record that logs them) |
| chat      | peer -> peer         | game_id, seat, text |
| abort     | peer -> peer         | game_id, culprit, reason, detail, evidence (the record that shows it), chain |
| standin   | peer -> peer         | game_id, seat, why ("left" or "timer": a bot on the seat's own node plays for its person) |
| busy      | peer -> peer         | game_id, seat, seconds (how long it will compute and not answer) |
| gone      | peer -> peer         | game_id, seat, absent (the seat waited for in vain), why |
| bye       | peer -> peer         | game_id, seat |
| watch     | spectator -> a seat  | version, records (how many it holds) |
| watching  | seat -> spectator    | game_id, records (how many the seat's log holds); then the records it lacks, as `record` |
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgpack

from ..crypto.identity import Identity, valid_sign_key, verify_signature
from ..crypto.log import TooManyContainers, counted_containers

WIRE_TAG = "saboteur-p2p/wire/1"
#: Largest ZeroMQ message accepted (a record may be up to 4 MiB).
MAX_WIRE_MESSAGE = 5 * 1024 * 1024
KINDS = (
    "hello", "challenge", "code", "welcome", "reject", "table", "start", "link", "record", "ping", "ahead", "chat",
    "abort", "gone", "busy",
    "standin", "bye", "watch", "watching", "stopped", "split", "leave", "lobby-chat",
)


class BadEnvelope(ValueError):
    """A message that is not a well-formed, correctly signed envelope."""


@dataclass(frozen=True)
class Envelope:
    kind: str
    body: dict[str, Any]
    key: bytes

    def field(self, name: str, kind: type | tuple[type, ...], max_len: int | None = None) -> Any:
        value = self.body.get(name)
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
            raise BadEnvelope(f"{self.kind}: field {name!r} must be {kind}")
        if max_len is not None and hasattr(value, "__len__") and len(value) > max_len:
            raise BadEnvelope(f"{self.kind}: field {name!r} is too long")
        return value


def _signed_bytes(kind: str, body: dict[str, Any]) -> bytes:
    return msgpack.packb([WIRE_TAG, kind, body], use_bin_type=True)


def seal(identity: Identity, kind: str, body: dict[str, Any]) -> bytes:
    if kind not in KINDS:
        raise ValueError(f"unknown envelope kind {kind!r}")
    signature = identity.sign(_signed_bytes(kind, body))
    return msgpack.packb([kind, body, identity.public.sign_key, signature], use_bin_type=True)


def _no_ext(code: int, data: bytes) -> Any:
    """No message has extension types: the first one refuses the envelope (a liar's records,
    one token each, held a million of them, and each took 1.5 s to decode: an attack)."""
    raise BadEnvelope(f"an extension type ({code}) where none is defined")


def peek_kind(data: bytes) -> str:
    """An envelope's kind, read from its first bytes without decoding it (an envelope is a
    msgpack array of four whose first item is its kind, a short string); "" if it does not
    start as one.  Only to choose what to drop unread: ``open_envelope`` checks it all."""
    if len(data) < 2 or data[0] != 0x94 or not 0xA0 <= data[1] <= 0xBF:
        return ""
    return data[2:2 + (data[1] & 0x1F)].decode("ascii", "replace")


#: the arrays and maps an envelope of each kind may hold in all (its body's own, the envelope's
#: array included): ``ahead`` carries a shares map (§6.8: three lists of at most 4,096 shares,
#: two containers each); a ``record`` its body map alone (its record is one bin, and it is
#: opened for one token whatever its size: 17 lists of small items took 1.5 s an envelope, an
#: attack); every other kind a few.  Each costs a Python call to count, so a
#: 100 KB body of empty arrays took 20 ms to decode within its sender's budget (an attack
#: made a 1.4 s game last 294 s); bounded by kind, such a body is refused after a few.
CONTAINERS_OF = {"ahead": 3 * 4096 * 2 + 16, "record": 4}
#: for every other kind
CONTAINERS_ELSE = 64


def open_envelope(
    data: bytes, admit: Callable[[str, bytes], bool] | None = None, proven: bytes | None = None,
) -> Envelope:
    """Decode and check an envelope's shape and signature.

    ``admit(kind, key)``, when given, says whether the sender may send this at all (a seat's
    key, say): it is asked before the signature is checked, so an outsider's flood costs a
    decode, not a signature check over megabytes.  ``proven`` is the Ed25519 key of the seat
    whose link key the connection proved in its CurveZMQ handshake: every box on that link is
    authenticated by the seat's X25519 key, so that seat's own envelopes there are not checked
    again (a record is then checked once, by its own signature: protocol.md §12.1).
    """
    if not isinstance(data, bytes) or len(data) > MAX_WIRE_MESSAGE:
        raise BadEnvelope("message too large or not bytes")
    # a bound on arrays and maps in all, by kind (a record's bytes are one bin here): 5 MiB of
    # empty maps would take 300 MiB, and each one counted costs a call
    hook = counted_containers(CONTAINERS_OF.get(peek_kind(data), CONTAINERS_ELSE))
    try:
        unpacker = msgpack.Unpacker(
            raw=False, max_buffer_size=MAX_WIRE_MESSAGE, max_bin_len=MAX_WIRE_MESSAGE, max_str_len=1 << 16,
            max_array_len=100_000, max_map_len=1_000, strict_map_key=True, list_hook=hook, object_hook=hook,
            ext_hook=_no_ext,
        )
        unpacker.feed(data)
        value = unpacker.unpack()
        try:
            unpacker.unpack()
        except msgpack.OutOfData:
            pass
        else:
            raise BadEnvelope("trailing bytes after the envelope")
    except BadEnvelope:
        raise
    except Exception as exc:  # msgpack raises many types on hostile input
        reason = str(exc) if isinstance(exc, TooManyContainers) else type(exc).__name__
        raise BadEnvelope(f"not msgpack: {reason}") from None
    if not isinstance(value, list) or len(value) != 4:
        raise BadEnvelope("an envelope is [kind, body, key, signature]")
    kind, body, key, signature = value
    if kind not in KINDS or not isinstance(body, dict):
        raise BadEnvelope(f"unknown kind {kind!r} or body not a map")
    if not isinstance(key, bytes) or len(key) != 32 or not isinstance(signature, bytes) or len(signature) != 64:
        raise BadEnvelope("bad key or signature field")
    if admit is not None and not admit(kind, key):
        raise BadEnvelope(f"{kind} from a key that may not send it")
    if proven is not None and key == proven:
        return Envelope(kind, body, key)  # the link vouches for it: its key is the seat's own
    if not valid_sign_key(key):
        raise BadEnvelope("bad key: not a canonical Ed25519 key of prime order")
    if not verify_signature(key, _signed_bytes(kind, body), signature):
        raise BadEnvelope(f"{kind}: bad signature")
    return Envelope(kind, body, key)
