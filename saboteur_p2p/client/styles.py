"""The client's colours: a style class for every panel's parts, and a monochrome set for NO_COLOR.

Plain data: ``app`` and ``replay`` hand them to prompt_toolkit's ``Style.from_dict``.
"""
from __future__ import annotations

COLOUR_STYLE = {
    "status": "bg:#303030 #ffffff", "status.mine": "bg:#005f00 #ffffff bold", "status.keys": "bg:#303030 #a8a8a8",
    "status.warn": "bg:#af0000 #ffffff bold",
    "title": "bg:#262626 #ffd75f bold", "rule": "#4e4e4e",
    "maze.coord": "#6c6c6c", "maze.tunnel": "#d7af87", "maze.start": "#ffd700 bold", "maze.goal": "#5f87af",
    "maze.mapped": "#87d7ff bold", "maze.treasure": "#ffd700 bold", "maze.stone": "#8a8a8a",
    "maze.legal": "#5fd75f bold", "maze.legal-turned": "#5f875f", "maze.target": "bg:#5f0000",
    "maze.preview-ok": "#5fff5f bold", "maze.preview-bad": "#ff5f5f bold", "maze.cursor": "reverse",
    "hand.label": "bold", "hand.selected": "bg:#3a3a3a", "hand.active": "reverse", "hand.legal": "#5fd75f",
    "hand.note": "#a8a8a8",
    "players.turn": "#ffd75f bold", "players.target": "reverse", "players.broken": "#ff5f5f bold",
    "players.away": "#ff8700 bold", "players.back": "#5fd75f", "players.saboteur": "#ff5f5f", "players.role": "#87afd7",
    "players.bot": "#af87d7",
    "info.role": "#87afd7 bold", "info.role.saboteur": "#ff5f5f bold", "info.maps": "#87d7ff", "info.result": "#ffd75f",
    "info.warn": "#ff8700 bold",
    "log.chat": "#5fd7ff", "log.pinned": "italic", "log.notice": "#d7af5f", "log.private": "#87d7ff bold", "log.error": "#ff5f5f",
    "log.more": "#6c6c6c", "log.latest": "bold", "maze.last": "underline", "maze.latest": "bg:#3a3a00",
    "maze.who": "#ffd75f bold", "players.latest": "underline", "players.last": "#8a8a8a",
    "message.ok": "#5fd75f", "message.error": "#ff5f5f bold", "message.hint": "#8a8a8a",
    "overlay": "bg:#1c1c1c #ffffff", "frame.border": "#5f87af",
    # Saboteur 2: doors in their team's colour, ladders, crystals, what lies before a player, roles
    "maze.ladder": "#ffd700 bold", "maze.door-blue": "bg:#005faf #ffffff bold", "maze.door-green": "bg:#008700 #ffffff bold",
    "maze.crystal": "#d787ff bold", "hand.ladder": "#ffd700 bold", "hand.door-blue": "bg:#005faf #ffffff bold",
    "hand.door-green": "bg:#008700 #ffffff bold", "hand.crystal": "#d787ff bold", "hand.marked": "bg:#5f0000",
    "players.trapped": "#ff8700 bold", "players.theft": "#d7af00 bold", "players.blue": "#5f87ff bold",
    "players.green": "#5fd75f bold", "players.boss": "#ffd75f bold", "players.profiteer": "#d787ff",
    "players.geologist": "#87d7d7", "info.role.blue": "#5f87ff bold", "info.role.green": "#5fd75f bold",
    "info.role.boss": "#ffd75f bold", "info.role.profiteer": "#d787ff bold", "info.role.geologist": "#87d7d7 bold",
}
#: NO_COLOR: attributes only, so the cursor, highlights and turn still show
MONO_STYLE = {
    "status": "reverse", "status.mine": "reverse bold", "status.keys": "reverse", "title": "bold underline",
    "status.warn": "reverse bold underline",
    "maze.start": "bold", "maze.mapped": "bold", "maze.treasure": "bold", "maze.legal": "bold",
    "maze.target": "underline", "maze.preview-ok": "bold", "maze.preview-bad": "underline", "maze.cursor": "reverse",
    "hand.label": "bold", "hand.selected": "underline", "hand.active": "reverse",
    "players.turn": "bold", "players.target": "reverse", "players.broken": "bold", "players.away": "bold underline",
    "players.bot": "italic",
    "info.role.saboteur": "bold", "info.warn": "bold", "log.private": "bold", "log.error": "bold", "log.latest": "bold",
    "maze.last": "underline", "maze.latest": "bold underline", "maze.who": "bold", "players.latest": "underline",
    "message.ok": "bold", "message.error": "bold reverse",
    # the door letters B and G tell the doors apart; the styles only make the marks stand out
    "maze.ladder": "bold", "maze.door-blue": "bold", "maze.door-green": "bold underline", "maze.crystal": "bold",
    "hand.door-blue": "bold", "hand.door-green": "bold underline", "hand.marked": "underline",
    "players.trapped": "bold", "players.theft": "underline", "players.blue": "bold", "players.green": "bold underline",
}
