"""A tournament report as text: per-bot table, roles, paired differences, teams, incidents."""
from __future__ import annotations

from ..rules import Role
from .stats import TournamentReport, role_order


def rate_words(games_per_second: float) -> str:
    """A rate of play as people read it: "12.3 games/s", or for slow games "25.0 s a game"
    (a search bot's "0.0 games/s" said nothing, found by a bot author)."""
    if games_per_second >= 1:
        return f"{games_per_second:.1f} games/s"
    return f"{1 / games_per_second:.1f} s a game" if games_per_second > 0 else "no game finished"


def format_report(report: TournamentReport) -> str:
    spec = report.spec
    deals = report.games // spec.deal_size
    kind = {
        "plain": "",
        "duplicate": f" ({deals} deals, each played in all {spec.players} rotations)",
        "candidate": f" ({deals} deals, each played with and without {spec.candidate})",
    }[spec.mode]
    lines = [
        f"{report.games} games{kind}, {spec.players} players, seed {spec.seed}"
        + (f", edition {spec.edition}" if spec.edition != "base" else "")
        + (f", variants {','.join(sorted(spec.variants))}" if spec.variants else ""),
    ]
    ranked = sorted((s for s in report.bots.values() if s.games), key=lambda s: -s.mean_gold())
    # a bot that misbehaved is marked where its results are read, not only in the incidents
    # far below (an illegal bot topped a table above random, found by a bot author)
    labels = {stats.name: stats.name + (" !" if report.incident_counts.get(stats.name) else "") for stats in ranked}
    # a bot's name and parameters in one column, as wide as the widest ("ismcts:playouts=200")
    width = max([16, *(len(label) for label in labels.values())])
    lines += [
        "",
        f"{'bot':<{width}} {'seats':>6} {'wins':>6} {'shared':>6} {'gold/seat':>16} {'miner win':>9} {'sab. win':>8}"
        f" {'rating':>14}",
    ]
    for stats in ranked:
        # from the counts, not from to_data's rates rounded to 4 places (59.649% read 59.7%: a bot author)
        miner = f"{stats.miner_wins / stats.miner_rounds:.1%}" if stats.miner_rounds else "-"
        sab = f"{stats.saboteur_wins / stats.saboteur_rounds:.1%}" if stats.saboteur_rounds else "-"
        half = stats.gold_ci95()
        gold = f"{stats.mean_gold():.2f} ± " + ("n/a" if half is None else f"{half:.2f}")
        rating = f"{stats.rating_mu:.1f} ± {stats.rating_sigma:.1f}"
        wins = f"{stats.games:>6} {stats.outright_wins:>6} {stats.shared_wins:>6}"
        lines.append(f"{labels[stats.name]:<{width}} {wins} {gold:>16} {miner:>9} {sab:>8} {rating:>14}")
    # what the columns count (a bot author read "games" as games, where a game of 5 counts 5 seats)
    # counted by seat, as the gold is: two seats of one bot that tie for the most gold are two
    # shared wins (the footnote said "the games it won", an attack read it so)
    lines.append("(seats: a game's seats each bot played; wins, shared: its seats with the most gold alone, and with others; "
                 "gold/seat: the gold of all its seats over their number; "
                 "miner win, sab. win: the rounds won as a digger, of either team in Saboteur 2, and as a saboteur)")
    if any(label.endswith(" !") for label in labels.values()):
        lines.append("(!: the bot misbehaved, and a safe move was played for it: see the bot incidents below)")
    if spec.edition != "base":
        lines.append("")
        lines.append("win rate by role (rounds played): a geologist is never a winner, the crystals pay it")
        for stats in ranked:
            parts = [
                f"{role.value} " + ("-" if role is Role.GEOLOGIST else f"{wins / rounds:.0%}") + f" ({rounds})"
                for role, (rounds, wins) in sorted(stats.roles.items(), key=role_order)
            ]
            lines.append(f"  {stats.name:<{width}} " + ", ".join(parts))
    if report.paired:
        lines += ["", _paired_heading(report)]
        where = "in the same seats" if spec.candidate is not None else "over the same deals"
        # a bot's seats in a deal may differ in number from deal to deal (3 seats, 2 bots): each
        # deal's gold a seat weighs alike here, so these means need not be the table's gold/seat
        # (they ranked two bots in opposite orders: a bot author)
        per_deal = " (each deal's gold a seat, the deals weighed alike: the table's gold/seat weighs each seat alike)"
        for pair in report.paired.values():
            ratio, ratio_ci = pair.ratio(), pair.ratio_ci95()
            ratio_text = "-" if ratio is None else f"{ratio:.3f}x" + ("" if ratio_ci is None else f" ± {ratio_ci:.3f}")
            mean, half = pair.mean_difference(), pair.difference_ci95()
            # the two means the difference is of: a candidate's mean gold in the bots' table is
            # over its seats alone, the baseline's over every seat (a bot author read 3.67
            # against 3.53 as a gain, where the baseline made 3.85 in the candidate's seats)
            interval = ("no interval from one deal" if half is None
                        else f"95% interval {mean - half:+.3f} to {mean + half:+.3f}; {pair.deals} deals")
            lines.append(
                f"  {pair.bot} vs {pair.versus}: {mean:+.3f} ± " + ("n/a" if half is None else f"{half:.3f}")
                + f" gold per game ({interval}), "
                f"gold ratio {ratio_text}; {pair.sum_a / pair.deals:.2f} against {pair.sum_b / pair.deals:.2f} "
                f"gold a game {where}" + ("" if spec.candidate is not None else per_deal)
            )
            if pair.seconds:
                lines.append(
                    f"    {pair.bot}'s games: {pair.seconds / pair.deals:.2f} s each on average, longest {pair.longest:.2f} s"
                )
    lines.append("")
    won = ", ".join(f"{team} {count / report.rounds:.1%}" for team, count in sorted(report.team_wins.items()) if count)
    lines.append(f"team win rates per round: {won}" if won else "team win rates per round: no round played yet")
    if report.incidents:
        kinds = "; ".join(f"{bot}: " + ", ".join(f"{kind} {n}" for kind, n in sorted(counts.items()))
                          for bot, counts in sorted(report.incident_counts.items()))
        lines.append(f"bot incidents: {report.incidents} ({kinds}); the first of each kind:")
        # one line each: a text's own line breaks (a bot's error, or a results file's lie) made
        # lines that read as the report's own (found by an attack)
        lines += [f"  {' '.join(text.split())}" for text in report.incident_firsts]
        lines += [f"  ({caveat})" for caveat in report.caveats()]
    if report.play_seconds:
        lines.append(
            f"playing time: {report.play_seconds:.1f} s summed over processes "
            f"({rate_words(report.games / report.play_seconds)} a process)"
        )
    return "\n".join(lines)


def _paired_heading(report: TournamentReport) -> str:
    if report.spec.candidate is not None:
        return ("paired difference, the candidate's gold minus the baseline's in the same seat of the same deal "
                "(mean, 95% interval):")
    return "paired difference of mean gold per game over the same deals (mean, 95% interval):"
