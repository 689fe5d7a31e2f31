"""The score of a game stopped at the final reveal of the gold by a seat that withholds it.

At the end of a base game every gold card is shown to all, each by the seat that holds it
(its own share and the shares the others sealed to it, opened: protocol.md §5.5).  A seat
that then sends nothing holds up only its own gold: every other holder's is shown by its
own record.  When the game ends for that seat, the others' gold is known to everyone and
checked like the engine would check it, so the game has a score: the seat that withheld its
gold forfeits it (0), as does any seat whose gold is not all shown or whose take of gold, now
checkable, was worth more than it was owed or held a stone (§9.3).  Every peer, and
``verify``, computes the same from the log.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..rules import Deck, IllegalActionError, InvalidActionError, State
from ..rules.cards import GoldCard
from .dealer import Blocked, RevealNeed
from .node import Node


@dataclass(frozen=True)
class Forfeit:
    scores: tuple[int, ...]
    #: the seats that forfeit their gold: the one that withheld it first
    forfeits: tuple[int, ...]
    #: seats whose take of gold, shown now, broke the rule (they forfeit too)
    overtakers: tuple[int, ...]

    def describe(self, names: tuple[str, ...] | list[str]) -> str:
        lost = ", ".join(names[s] for s in self.forfeits)
        scores = ", ".join(f"{names[s]} {v}" + (" (forfeit)" if s in self.forfeits else "") for s, v in enumerate(self.scores))
        over = "".join(f"; {names[s]} took more gold than it was owed" for s in self.overtakers)
        return f"at the final reveal of the gold: {lost} forfeit(s) its gold{over}; nuggets: {scores}"


def forfeit_scores(node: Node, staller: int) -> Forfeit | None:
    """The score when ``staller`` withholds the final reveal of the gold (None if the game did
    not stop there, or in an edition whose gold is a public count)."""
    state = node.state
    if state is None or node.setup.config.edition_rules.public_gold or not node.expect:
        return None
    needs = [n for e in node.expect[0] for n in e.topic] if all(e.kind == "shares" for e in node.expect[0]) else []
    if not needs or any(n.audience is not None or n.card[1] is not Deck.GOLD for n in needs):
        return None
    if not any(e.speaker == staller for e in node.outstanding):
        return None
    state = state_at_block(node)
    if state is None:
        return None
    dealer = node.dealer
    faces: dict[int, GoldCard] = {}
    for handle, card in dealer.gold_cards.items():
        face = dealer.public_faces.get(card) or dealer.public_face(RevealNeed(card, None))
        if isinstance(face, GoldCard):
            faces[handle] = face
    shown = [s != staller and all(g in faces for g in state.gold_of[s]) for s in range(node.players)]
    over = []
    for taker, golds, amount in state.unchecked_takes:
        if shown[taker]:
            values = [faces[g].nuggets for g in golds]
            if sum(values) > amount or 0 in values:
                over.append(taker)
    keeps = [shown[s] and s not in over for s in range(node.players)]
    scores = tuple(sum(faces[g].nuggets for g in state.gold_of[s]) if keeps[s] else 0 for s in range(node.players))
    forfeits = (staller, *(s for s in range(node.players) if not keeps[s] and s != staller))
    return Forfeit(scores, forfeits, tuple(dict.fromkeys(over)))


def state_at_block(node: Node, refused: bool = False) -> State | None:
    """The engine's state where the last move blocks on the reveal (the gold of the last hand-out
    given, its takes recorded), run again on a copy as the node does after every step; with
    ``refused``, also where it stops on a move found illegal there (a take of too much gold,
    found when the gold is shown at the game's end: the rounds before it were played)."""
    if node.state is None or node.work is None:
        return None
    node.dealer.begin_attempt()
    trial = node.state.clone()
    try:
        node.play_work(trial)  # judged as when it came: a seat shown the gold pile holds a take unchecked
    except Blocked:
        return trial
    except (IllegalActionError, InvalidActionError):
        return trial if refused else None
    return None


__all__ = ["Forfeit", "forfeit_scores", "state_at_block"]
