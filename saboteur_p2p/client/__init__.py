"""The full-screen terminal client (prompt_toolkit) for a human seat.

Layers, from pure to thin:

* ``model``: immutable snapshots of what the seat knows (``Snapshot``, ``Decision``,
  ``LogLine``) and the UI's own state (``UIState``);
* ``maze``: path cards and the maze as box-drawing text;
* ``render``: the other panels (status, hand, log) as styled text fragments; ``players``:
  the players panel, its columns fitted to the width; ``styles``: the colours;
* ``words``: moves as a person reads and types them (hand slots, player names) and back;
* ``tracker``: each seat's last move and each round's end (its final maze, roles, gold);
* ``screens``: the lobby, the round-end screen and the final ranking; ``guide``: the help page with
  its legend, and the rules (docs/rules.md, shipped as ``client/rules.md``);
* ``controller`` (keys) and ``commands`` (typed lines) -> action texts, checked with the engine;
* ``agent``: ``ClientAgent``, the thread-safe bridge to the blocking network session;
* ``app``: the prompt_toolkit Application; ``runner``: ``run_client``, which runs it beside
  the session thread;
* ``local``: an in-process table (trusted dealer and bots) that feeds the agent as the
  network session does, for tests and offline play;
* ``plain``: the line prompt (``--plain``) in the same words;
* ``replay``: ``saboteur-p2p replay LOG`` as a full-screen viewer, step by step.

Only ``app``, ``runner`` and ``replay`` import prompt_toolkit; everything else is testable as data.
"""
from __future__ import annotations

from .agent import ClientAgent

__all__ = ["ClientAgent"]
