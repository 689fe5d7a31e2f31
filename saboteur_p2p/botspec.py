"""What a bot spec says besides the bot: its ``:key=value`` parameters, checked against the
bot's class; and the modules beside a bot file that it imports (a bot is its file and them).
``botapi`` loads bots with these and gives them out under its own name."""
from __future__ import annotations

import ast
import importlib.util
import inspect
import posixpath
import re
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any


class BotLoadError(ValueError):
    """A bot spec names nothing that can be loaded; the message says what was tried."""


def imported_tops(path: Path) -> set[str]:
    """The top-level names of the absolute imports in the Python file ``path`` (none if it
    cannot be read or parsed)."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError, MemoryError, RecursionError):  # a nest too deep for the parser (an attack)
        return set()
    tops: set[str] = set()
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
        tops.update(name.partition(".")[0] for name in names)
    return tops


def imported_beside(path: Path) -> list[Path]:
    """The modules beside the bot file ``path`` that it imports, and those they import in
    turn (``import helper``, ``from helper import x``: a ``helper.py`` in its folder, or
    every module of a package ``helper/`` there), found by reading the files: an edit to one
    changes the bot as much as one to its file.  Modules elsewhere are not followed, nor is
    the engine's package (a bot at a checkout's root imports ``saboteur_p2p`` beside it)."""
    folder = path.resolve().parent
    found: list[Path] = []
    waiting = [path.resolve()]
    while waiting:
        for top in sorted(imported_tops(waiting.pop())):
            package = folder / top
            if (package / "__init__.py").is_file() and top != "saboteur_p2p":
                files = sorted(package.rglob("*.py"))
            else:
                files = [folder / f"{top}.py"]
            for file in files:
                if file.is_file() and file != path.resolve() and file not in found:
                    found.append(file)
                    waiting.append(file)
    return sorted(found)


def own_modules_found(file: Path, spec: str) -> None:
    """Refuse a bot file whose own modules (beside it, ``imported_beside``) Python would not
    load from beside it: one of that name is loaded already, or comes first on ``sys.path``
    (found by a bot author: ``v2/bot.py`` and ``v1/bot.py`` both importing their own
    ``common.py`` played v2 with v1's, silently).  Python keeps one module per name."""
    folder = file.resolve().parent
    names = {beside.relative_to(folder).parts[0].removesuffix(".py") for beside in imported_beside(file)}
    for name in sorted(names):
        try:
            found = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue  # it fails as the bot imports it, and says so there
        origin = Path(found.origin).resolve() if found is not None and found.origin else None
        if origin is not None and folder not in origin.parents:
            raise BotLoadError(
                f"cannot load bot {spec!r}: it imports its module {name!r} from {folder}, but Python would give it "
                f"{origin} (a module of that name is loaded or found first): two bots' own modules of one name "
                "cannot play in one process; rename one"
            )


def split_spec(spec: str) -> tuple[str, dict[str, int | float | bool | str]]:
    """A bot spec's bot part and its parameters: the trailing ``:key=value`` items.

    ``ismcts:playouts=200:cutoff=8`` is the bot ``ismcts`` with two parameters;
    ``module:Class:depth=3`` and ``path/bot.py:Class:depth=3`` work the same way.  Only items
    with ``=`` after the last item without one are parameters, so ``module:Class`` and
    ``path/file.py:Class`` keep their meaning.  A value reads as an int, a float, a bool
    (``true``/``false``, any case) or else as text (a parameter that takes text gets the
    text as typed: ``typed_parameters``).
    """
    target, texts = spec_texts(spec)
    return target, {key: _parameter_value(text) for key, text in texts.items()}


def spec_texts(spec: str) -> tuple[str, dict[str, str]]:
    """``split_spec`` with each parameter's value as typed."""
    parts = spec.strip().split(":")
    params: dict[str, str] = {}
    while len(parts) > 1 and "=" in parts[-1]:
        key, _, text = parts.pop().partition("=")
        key = key.strip()
        if not key.isidentifier():
            raise BotLoadError(f"bad parameter {key!r} in bot spec {spec!r}: a name is letters, digits and _")
        if key in params:
            raise BotLoadError(f"parameter {key!r} is given twice in bot spec {spec!r}")
        params[key] = text.strip()
    return ":".join(parts).strip(), dict(reversed(params.items()))


def tidy_spec(spec: str) -> str:
    """``spec`` with the path of a bot file written one way (``./bots/../mine.py:Bot`` is
    ``mine.py:Bot``), so that one bot typed two ways is one bot in a lineup, a report and a
    results file (a bot author's ``./mine.py`` and ``mine.py`` were two bots).  Anything else
    is left as typed."""
    text = spec.strip()
    head, colon, rest = text.partition(":")
    if colon and len(head) > 1 and (head.endswith(".py") or "/" in head):  # not C:\x.py
        return posixpath.normpath(head) + colon + rest
    return text


def _parameter_value(text: str) -> int | float | bool | str:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def typed_parameters(factory: Callable[..., Any], texts: dict[str, str], spec: str) -> dict[str, Any]:
    """The keyword arguments for the bot's class or factory from the parameters as typed
    (``spec_texts``): text for a parameter that takes text (a ``str`` default or annotation:
    "2024" and "true" stay text, found by a bot author), else as ``split_spec`` reads them;
    a BotLoadError names a parameter it does not take, or a value of the wrong kind."""
    params = {key: _parameter_value(text) for key, text in texts.items()}
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):
        return params  # nothing to check against: the call itself will tell
    accepted = signature.parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        return params
    names = [name for name, p in accepted.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key, value in params.items():
        if key not in names:
            known = ", ".join(names) if names else "none"
            raise BotLoadError(f"bot {spec!r} has no parameter {key!r} (its parameters: {known})")
        default, annotation = accepted[key].default, accepted[key].annotation
        if isinstance(default, str) or _takes_text(annotation):
            params[key] = texts[key]
            continue
        floats = _takes_float(annotation)  # the annotation over the default's type (a bool default of a float)
        wanted = _PARAMETER_KINDS.get(float if floats else type(default))
        boolean = isinstance(default, bool) and not floats
        if wanted is not None and (not isinstance(value, wanted[0]) or isinstance(value, bool) != boolean):
            raise BotLoadError(f"bot {spec!r}: parameter {key!r} takes {wanted[1]}, not {texts[key]!r}")
        if (isinstance(default, float) or floats) and type(value) is int:
            params[key] = float(value)  # rate=3 for a rate of 0.5: the number the bot expects
    return params


#: a string annotation that takes text: ``str`` alone or among the members of a union
_TEXT_ANNOTATION = re.compile(
    r"(?:typing\.)?(?:Optional\[\s*str\s*\]|Union\[(?:[\w.]+\s*,\s*)*str(?:\s*,\s*[\w.]+)*\s*\])"
    r"|(?:[\w.]+\s*\|\s*)*str(?:\s*\|\s*[\w.]+)*"
)


def _takes_text(annotation: object) -> bool:
    """Whether a parameter's annotation says it takes text: ``str``, or a union with ``str``
    in it (``str | None``, ``Optional[str]``), given as a type or as a string (a module with
    ``from __future__ import annotations``)."""
    if annotation is str:
        return True
    if isinstance(annotation, str):
        # the text of the annotation as a whole: str, str | None, Optional[str], Union[str, int]
        # (not list[str] nor Callable[[str], int], which take no text: found by review)
        return _TEXT_ANNOTATION.fullmatch(annotation.strip()) is not None
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and str in typing.get_args(annotation)


def _takes_float(annotation: object) -> bool:
    """Whether a parameter's annotation says it takes a float: ``float``, alone or in a union
    with ``int`` and ``None`` only (``float | None``, ``int | float``, ``Optional[float]``,
    ``Union[float, None]``), as a type or as a string (a module with ``from __future__ import
    annotations``).  A review: an annotated float with a whole-number default refused 0.5,
    and without a default took 3 as the int 3."""
    if isinstance(annotation, str):
        text = re.sub(r"\s+|typing\.", "", annotation)
        wrapped = re.fullmatch(r"(?:Optional|Union)\[(.*)\]", text)
        members = set((wrapped.group(1) if wrapped else text).replace(",", "|").split("|"))
        if wrapped and text.startswith("Optional"):
            members.add("None")
        return "float" in members and members <= {"float", "int", "None"}
    if annotation is float:
        return True
    args = set(typing.get_args(annotation))
    return (typing.get_origin(annotation) in (typing.Union, types.UnionType) and float in args
            and args <= {float, int, type(None)})


#: the type of a parameter's default -> the values it takes, and their name (a parameter
#: with no default, or a default of another type, takes any value)
_PARAMETER_KINDS: dict[type, tuple[type | tuple[type, ...], str]] = {
    bool: (bool, "true or false"),
    int: (int, "a whole number"),
    float: ((int, float), "a number"),
}
