"""States as plain msgpack/JSON-compatible data, to save, resume, and build test scenarios.

The format is documented in docs/rules-engine.md.  Dict keys are strings and card faces
are their codes (``path:N+S``, ``break:lantern``, ``gold:2``, ``role:saboteur``, ...).
A state with a trusted dealer carries the dealer's decks and generator state, so a saved
game resumes exactly where it stopped.
"""
from __future__ import annotations

from typing import Any

from .actions import parse_action
from .board import Board, Tile
from .cards import GoldCard, PathCard, Role, Tool, face_from_code
from .config import GameConfig
from .dealer import Dealer, TrustedDealer
from .events import (
    CardPlayed,
    Event,
    GameEnded,
    GoalRevealed,
    GoldReceived,
    PiecesWon,
    RoundEnded,
    RoundStarted,
    Stolen,
)
from .phases import Phase, RoundResult, Winners
from .state import State

FORMAT = "saboteur-p2p/state/1"


def state_to_data(state: State) -> dict[str, Any]:
    dealer = state.dealer
    data = {
        "format": FORMAT,
        "config": state.config.to_data(),
        "dealer": dealer.to_data() if isinstance(dealer, TrustedDealer) else None,
        "round": state.round,
        "phase": state.phase.value,
        "current": state.current,
        "first_player": state.first_player,
        "board": [
            [x, y, state.placed.get((x, y)), None if t.card is None else t.card.code, t.turned, t.goal_slot]
            for (x, y), t in state.board.tiles.items()
        ],
        "draw_pile": list(state.draw_pile),
        "hands": [list(h) for h in state.hands],
        "faces": [[h, face.code] for h, face in state.faces.items()],
        "roles": list(state.roles),
        "role_faces": [[h, role.value] for h, role in state.role_faces.items()],
        "set_aside_roles": list(state.set_aside_roles),
        "goal_faces": [[slot, face.code] for slot, face in state.goal_faces.items()],
        "broken": [[[tool.value, h] for tool, h in b.items()] for b in state.broken],
        "discards": list(state.discards),
        "hidden_discards": list(state.hidden_discards),
        "peeks": [sorted(p) for p in state.peeks],
        "gold_pile": list(state.gold_pile),
        "gold_pile_seen": state.gold_pile_seen,
        "gold_faces": [[g, face.nuggets] for g, face in state.gold_faces.items()],
        "gold_of": [list(g) for g in state.gold_of],
        "offered": list(state.offered),
        "keep_order": list(state.keep_order),
        "take_queue": [[seat, amount] for seat, amount in state.take_queue],
        "pending_stones": list(state.pending_stones),
        "treasure_reached": state.treasure_reached,
        "orienter": state.orienter,
        "last_path_player": state.last_path_player,
        "last_player": state.last_player,
        "round_gold": list(state.round_gold),
        "round_winners": state.round_winners.value,
        "revealed_roles": None if state.revealed_roles is None else [r.value for r in state.revealed_roles],
        "results": [
            {
                "round": r.round, "winners": r.winners.value, "roles": [x.value for x in r.roles],
                "gold_cards": list(r.gold_cards), "gold_pieces": list(r.gold_pieces), "trapped": list(r.trapped),
            }
            for r in state.results
        ],
        "scores": None if state.scores is None else list(state.scores),
        "events": [event.to_data() for event in state.events],
    }
    extra = state.edition_to_data()
    if extra is not None:
        data[state.config.edition] = extra  # the edition's own fields, under its name
    return data


def state_from_data(data: dict[str, Any], dealer: Dealer | None = None) -> State:
    """Rebuild a state; ``dealer`` replaces the saved one (required if none was saved)."""
    if data.get("format") != FORMAT:
        raise ValueError(f"not a saved state of format {FORMAT!r}: {data.get('format')!r}")
    config = GameConfig.from_data(data["config"])
    if dealer is None:
        if data.get("dealer") is None:
            raise ValueError("the saved state has no trusted dealer; pass the dealer to resume with")
        dealer = TrustedDealer.from_data(data["dealer"])
    state = config.edition_rules.state_class(config, dealer)
    state.round = int(data["round"])
    state.phase = Phase(data["phase"])
    state.current = int(data["current"])
    state.first_player = int(data["first_player"])
    board = Board()
    state.placed = {}
    for x, y, handle, code, turned, slot in data["board"]:
        card = None if code is None else face_from_code(code)
        if card is not None and not isinstance(card, PathCard):
            raise ValueError(f"board cell {x},{y} holds {code!r}, not a path card")
        segments = () if card is None else card.turned_segments(bool(turned))
        board.tiles[(int(x), int(y))] = Tile(card, bool(turned), segments, slot)
        if handle is not None:
            state.placed[(int(x), int(y))] = int(handle)
    board.rebuild()
    state.board = board
    state.draw_pile = [int(h) for h in data["draw_pile"]]
    state.hands = [[int(h) for h in hand] for hand in data["hands"]]
    state.faces = {int(h): face_from_code(code) for h, code in data["faces"]}
    state.roles = [int(h) for h in data["roles"]]
    state.role_faces = {int(h): Role(value) for h, value in data["role_faces"]}
    state.set_aside_roles = [int(h) for h in data["set_aside_roles"]]
    state.goal_faces = {int(slot): _path(code) for slot, code in data["goal_faces"]}
    state.broken = [{Tool(tool): int(h) for tool, h in b} for b in data["broken"]]
    state.discards = [int(h) for h in data["discards"]]
    state.hidden_discards = [int(h) for h in data["hidden_discards"]]
    state.peeks = [{int(s) for s in p} for p in data["peeks"]]
    state.gold_pile = [int(g) for g in data["gold_pile"]]
    state.gold_pile_seen = bool(data.get("gold_pile_seen", False))
    state.gold_faces = {int(g): GoldCard(int(n)) for g, n in data["gold_faces"]}
    state.gold_of = [[int(g) for g in golds] for golds in data["gold_of"]]
    state.offered = [int(g) for g in data["offered"]]
    state.keep_order = [int(s) for s in data["keep_order"]]
    state.take_queue = [(int(s), int(a)) for s, a in data["take_queue"]]
    state.pending_stones = [int(s) for s in data["pending_stones"]]
    state.treasure_reached = bool(data.get("treasure_reached", False))
    state.orienter = int(data["orienter"])
    state.last_path_player = None if data["last_path_player"] is None else int(data["last_path_player"])
    state.last_player = int(data["last_player"])
    state.round_gold = [int(g) for g in data["round_gold"]]
    state.round_winners = Winners(data["round_winners"])
    roles = data["revealed_roles"]
    state.revealed_roles = None if roles is None else tuple(Role(r) for r in roles)
    state.results = [
        RoundResult(
            int(r["round"]), Winners(r["winners"]), tuple(Role(x) for x in r["roles"]),
            tuple(int(g) for g in r["gold_cards"]), tuple(int(g) for g in r.get("gold_pieces", ())),
            tuple(int(s) for s in r.get("trapped", ())),
        )
        for r in data["results"]
    ]
    state.scores = None if data["scores"] is None else tuple(int(s) for s in data["scores"])
    state.events = [event_from_data(e) for e in data["events"]]
    state.edition_from_data(data.get(config.edition))
    return state


def _path(code: str) -> PathCard:
    face = face_from_code(code)
    if not isinstance(face, PathCard):
        raise ValueError(f"{code!r} is not a path card")
    return face


def event_from_data(data: dict[str, Any]) -> Event:
    kind = data["event"]
    if kind == "round-started":
        return RoundStarted(int(data["round"]), int(data["first_player"]))
    if kind == "card-played":
        card = None if data["card"] is None else face_from_code(data["card"])
        return CardPlayed(int(data["player"]), parse_action(data["action"]), card)
    if kind == "goal-revealed":
        return GoalRevealed(int(data["slot"]), _path(data["card"]), bool(data["turned"]), int(data["reached_by"]))
    if kind == "round-ended":
        roles = tuple(Role(r) for r in data["roles"])
        return RoundEnded(int(data["round"]), str(data["winners"]), roles, int(data["last_player"]))
    if kind == "gold-received":
        return GoldReceived(int(data["player"]), int(data["cards"]))
    if kind == "pieces-won":
        return PiecesWon(int(data["player"]), int(data["pieces"]))
    if kind == "stolen":
        return Stolen(int(data["thief"]), None if data["victim"] is None else int(data["victim"]))
    if kind == "game-ended":
        return GameEnded(tuple(int(s) for s in data["scores"]), tuple(int(w) for w in data["winners"]))
    raise ValueError(f"unknown event {kind!r}")


__all__ = ["FORMAT", "event_from_data", "state_from_data", "state_to_data"]
