"""When two players' names read as one: the lobby refuses a name that reads as a seated one.

Names are folded as the players read them: compatibility forms (fullwidth, circled letters)
and accents dropped, one case, the characters drawn as nothing left out, and each letter that
looks like an ASCII letter or digit read as it.  The look-alikes are Unicode's confusables
data, kept by ``confusable_homoglyphs`` (a Cyrillic a, U+0430, is an "a"): a joiner named
"alice" with a Cyrillic a beside "alice" read as the same player (found by an attack).
"""
from __future__ import annotations

import functools
import unicodedata

from ..protocol.messages import invisible


def same_name(a: str, b: str) -> bool:
    """Whether two names read the same to the players: 'ann', 'ANN', 'ann' with a zero-width
    joiner, 'ánn' and 'ann' with a Cyrillic a are one name."""
    return reads_as(a) == reads_as(b)


def reads_as(name: str) -> str:
    """A name as the players read it (``same_name``).  An accent is left out only on a letter
    that reads as an ASCII one: elsewhere a mark may make another letter (Japanese シ and ジ,
    Russian и and й), and names that differ so are two names (found by review)."""
    read: list[str] = []
    for c in unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", name)):
        if invisible(c):
            continue
        if unicodedata.category(c) == "Mn" and read and read[-1].isascii():
            continue
        read.append(_plain(c))
    return "".join(read)


@functools.cache
def _plain(character: str) -> str:
    """The ASCII letters or digits ``character`` looks like, in one case, else itself folded.
    A capital is looked up before it is folded: a Cyrillic or Greek capital may look like a
    Latin one while its small letter looks like none ("Tom" with a Cyrillic capital te;
    found by review)."""
    if character.isascii():
        return character.casefold()
    from confusable_homoglyphs import confusables  # its data, 20 ms to load, only for names not in ASCII

    for entry in confusables.is_confusable(character, greedy=True, preferred_aliases=[]) or ():
        for glyph in entry["homoglyphs"]:
            if glyph["c"].isascii() and glyph["c"].isalnum():
                return str(glyph["c"]).casefold()
    folded = character.casefold()
    return folded if folded == character else "".join(_plain(c) for c in folded)
