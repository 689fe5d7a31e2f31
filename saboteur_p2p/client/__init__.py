"""The full-screen terminal client (prompt_toolkit) for a human seat.

Layers, from pure to thin:

* ``model``: immutable snapshots of what the seat knows (``Snapshot``, ``Decision``,
  ``LogLine``) and the UI's own state (``UIState``);
* ``maze``: path cards and the maze as box-drawing text;
* ``render``: the other panels (status, players, hand, log) as styled text fragments;
* ``controller``: keys and typed commands -> action texts, checked with the engine;
* ``agent``: ``ClientAgent``, the thread-safe bridge to the blocking network session;
* ``app``: the prompt_toolkit Application, and ``run_client`` that runs it beside the
  session thread;
* ``local``: an in-process table (trusted dealer and bots) that feeds the agent as the
  network session does, for tests and offline play.

Only ``app`` imports prompt_toolkit; everything else is testable as data.
"""
from __future__ import annotations

from .agent import ClientAgent

__all__ = ["ClientAgent"]
