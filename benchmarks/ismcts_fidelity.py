"""How well ``ismcts``'s playouts predict a round: the model's fidelity, apart from search.

Plays seeded 5-player base games, ``ismcts`` in seat ``seed mod 5`` and the heuristic
elsewhere.  At each of its searches the probe plays the heuristic's move (so the games are
all-heuristic games) and predicts its side's chance of winning the round from ``--worlds``
playouts of that move (the bot's own playout, its forks of the heuristic players) in six
kinds of world:

- ``belief``: roles drawn from the bot's role belief (from play alone), every unseen card
  dealt at random (``determinize``): what ``ismcts:hands=false`` searches;
- ``belief+model``: the same roles, the other hands dealt by the hand model (``HandModel``:
  a card its player would have played by now is less likely still held);
- ``model+roles``: the hand model's hands and its tilt of the role belief by the cards kept:
  what ``ismcts`` searches;
- ``roles``: the true roles, unseen cards at random;
- ``roles+hands``: the true roles and the other players' true hands, the draw pile's order
  and the unseen goals at random;
- ``truth``: the real hidden state.

It prints, by the seat's role and the draw pile's size, the mean prediction of each kind
against the share of those rounds the seat's side won, and the Brier score (lower is
better).  A prediction far from the outcome on average is a bias of the model that search
cannot remove.  Usage:
    python benchmarks/ismcts_fidelity.py [--games 30] [--worlds 20] [--seed 300]
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from saboteur_bots.heuristic import HeuristicBot
from saboteur_bots.ismcts import IsmctsBot

from saboteur_p2p.rules import AnyAction, Deck, Game, GameConfig, HandWeights, PlayerView, Role, State, TrustedDealer, determinize

KINDS = ("belief", "belief+model", "model+roles", "roles", "roles+hands", "truth")
SIDE = {Role.GOLD_DIGGER: "gold-diggers", Role.SABOTEUR: "saboteurs"}


def with_true_hands(world: State, real: State, seat: int) -> State:
    """``world`` with each other seat's hand holding its real faces: a face is swapped in from
    the rest of its own hand, the draw pile, the face-down discards or a hand not yet made
    true, where the sample put it."""
    others = [s for s in range(real.players) if s != seat]
    for i, s in enumerate(others):
        # a face comes from where the sample put it: never from a hand already made true
        sources = [*world.draw_pile, *world.hidden_discards, *(g for t in others[i + 1:] for g in world.hands[t])]
        hand = world.hands[s]
        for j, want in enumerate([real.faces[g] for g in real.hands[s]]):
            h, have = hand[j], world.faces[hand[j]]
            if have != want:
                source = next(g for g in (*hand[j + 1:], *sources) if world.faces[g] == want)
                world.faces[h], world.faces[source] = want, have
    world.dealer.decks[Deck.DRAW] = [world.faces[h] for h in range(len(world.faces))]  # type: ignore[attr-defined]
    return world


class Probe(IsmctsBot):
    """``ismcts`` that plays the heuristic's move and records its predictions for it."""

    def __init__(self, worlds: int) -> None:
        super().__init__()
        self.worlds = worlds
        self.real: State | None = None
        self.predictions: list[tuple[int, Role, int, dict[str, float]]] = []

    def _search(
        self, view: PlayerView, chosen: list[AnyAction], weights: list[dict[Role, float]], hands: HandWeights | None,
    ) -> AnyAction:
        real = self.real
        assert real is not None and view.role is not None
        truth = [{role: 1.0} for role in map(real.role_of, range(real.players)) if role is not None]
        assert len(truth) == real.players, "every seat of a base game has a role"
        makers = {
            "belief": lambda: determinize(view, self.rng, self.belief.role_weights()),
            "belief+model": lambda: determinize(view, self.rng, self.belief.role_weights(), self.hand_model.weights),
            "model+roles": lambda: determinize(view, self.rng, weights, self.hand_model.weights),
            "roles": lambda: determinize(view, self.rng, truth),
            "roles+hands": lambda: with_true_hands(determinize(view, self.rng, truth), real, self.seat),
            "truth": real.clone,
        }
        found = {}
        for kind in KINDS:
            total = 0.0
            for _ in range(self.worlds):
                world = makers[kind]()
                total += self._playout(world, chosen[0], self._forks(self.rng.getrandbits(32)))
            found[kind] = total / self.worlds
        self.predictions.append((view.round, view.role, view.draw_pile_size, found))
        return chosen[0]


def play(seed: int, worlds: int) -> tuple[list[tuple[int, Role, int, dict[str, float]]], list[str]]:
    """One game; the probe's predictions and each round's winners."""
    config = GameConfig(5, "base")
    probe_seat = seed % 5
    bots: list[HeuristicBot | Probe] = [HeuristicBot() for _ in range(5)]
    probe = bots[probe_seat] = Probe(worlds)
    for s, bot in enumerate(bots):
        bot.start(s, config, seed * 7 + s)
    state = Game(config, TrustedDealer(seed)).new_state()
    probe.real = state
    told = 0
    while not state.is_terminal():
        for event in state.events[told:]:
            for bot in bots:
                bot.on_event(event)
        told = len(state.events)
        p = state.current
        state.push(bots[p].act(state.view_for(p), state.legal_actions()))
    return probe.predictions, [r.winners.value for r in state.results]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=20, help="playouts per prediction")
    parser.add_argument("--seed", type=int, default=300)
    args = parser.parse_args()
    #: (role, pile part) -> [searches, rounds won, sum of predictions, sum of squared errors]
    table: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * (2 + 2 * len(KINDS)))
    for seed in range(args.seed, args.seed + args.games):
        predictions, winners = play(seed, args.worlds)
        for round_, role, pile, found in predictions:
            won = 1.0 if winners[round_ - 1] == SIDE.get(role) else 0.0
            for key in ((role.value, "all"), (role.value, "pile >= 20" if pile >= 20 else "pile < 20")):
                row = table[key]
                row[0] += 1
                row[1] += won
                for i, kind in enumerate(KINDS):
                    row[2 + 2 * i] += found[kind]
                    row[3 + 2 * i] += (found[kind] - won) ** 2
    print(f"{args.games} games, {args.worlds} playouts a prediction; mean prediction (Brier score) of each kind of world")
    print(f"{'role':12s} {'draw pile':10s} {'searches':>8s} {'won':>6s}  " + "  ".join(f"{k:>15s}" for k in KINDS))
    for (name, part), row in sorted(table.items()):
        n = row[0]
        cells = "  ".join(f"{row[2 + 2 * i] / n:6.3f} ({row[3 + 2 * i] / n:.3f})" for i in range(len(KINDS)))
        print(f"{name:12s} {part:10s} {int(n):8d} {row[1] / n:6.3f}  {cells}")


if __name__ == "__main__":
    main()
