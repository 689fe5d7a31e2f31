"""Errors the rules engine raises: both are ValueErrors whose message quotes the input."""
from __future__ import annotations


class InvalidActionError(ValueError):
    """The action cannot be read or names something that does not exist."""


class IllegalActionError(ValueError):
    """The action is well formed but the rules forbid it now; ``rule`` names the rule."""

    def __init__(self, action: object, rule: str, player: int | None = None) -> None:
        super().__init__(f"illegal action {str(action)!r}: {rule}")
        self.action = action
        self.rule = rule
        #: who broke the rule, when it is not simply the player who is acting now
        self.player = player
