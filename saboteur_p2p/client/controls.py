"""A prompt_toolkit control drawn by a function of the exact size its window gives it."""
from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.formatted_text.utils import split_lines
from prompt_toolkit.layout.controls import UIContent, UIControl

from .render import Fragments


class SizedControl(UIControl):
    """A UIControl whose fragments are rendered for the exact size the window gives it."""

    def __init__(
        self, render: Callable[[int, int], Fragments], focusable: bool = False, drawn: Callable[[int], None] | None = None,
    ) -> None:
        self.render = render
        self.focusable = focusable
        #: told the rows it is drawn in, each frame it is (not when its window is only measured)
        self.drawn = drawn

    def create_content(self, width: int, height: int) -> UIContent:
        if self.drawn is not None:
            self.drawn(height)
        lines = self._lines(width, height)
        return UIContent(get_line=lambda i: lines[i], line_count=len(lines), show_cursor=False)

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool, get_line_prefix: object) -> int | None:
        return len(self._lines(width, max_available_height))

    def _lines(self, width: int, height: int) -> list[StyleAndTextTuples]:
        lines = list(split_lines(list(self.render(width, height))))
        if len(lines) > 1 and not any(text for _, text, *_ in lines[-1]):
            lines.pop()  # the empty line after a final newline
        return lines

    def is_focusable(self) -> bool:
        return self.focusable
