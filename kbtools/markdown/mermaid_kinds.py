"""Mermaid diagrams that are no flowchart, read for the words a reader searches.

A timeline, an entity-relationship diagram, a user journey, a Gantt chart and a mind map
each write their words their own way; read as a flowchart, their settings (`dateFormat`,
`excludes weekends`), cardinalities (`||--o{`), attribute types (`string`), scores and task
ids came out as nodes and their names were cut at the first space (`Make tea` → `Make`).
`READERS` maps a diagram's type to the reader of its lines (the lines after the type's,
stripped, comments left out), each returning node names and (from, to, label) edges as
`kbtools.markdown.mermaid.mermaid_graph` does:

- timeline: section names, periods and their events, an edge from a period to each event;
- erDiagram: entities (an alias's label), attribute names and comments, an edge per
  relationship with its label; never a type, a key (`PK`) or a cardinality;
- journey: section names, tasks and the actors taking part; never a score;
- gantt: section names and tasks; never a setting, a task id, a date or a tag (`done`);
- mindmap: each node's text without its shape's brackets; never an `::icon()` or class.

None raises, and each reads a line in linear time.
"""

from __future__ import annotations

import re
from collections.abc import Callable

Graph = tuple[list[str], list[tuple[str, str, str]]]

# an entity-relationship's cardinalities around its line: `||--o{`, `}|..|{`, `|o--o|`
_ER_SYMBOLS = re.compile(r"[|}][|o](?:--|\.\.)[|o][|{]")
_CARD = (r"(?:only one|zero or one|one or zero|one or more|one or many|many\(1\)|1\+"
         r"|zero or more|zero or many|many\(0\)|0\+|1)")
# the same in words: `CUSTOMER one or more to zero or more ORDER : places`
_ER_WORDS = re.compile(rf"(?i)\s{_CARD} (?:optionally )?to {_CARD}\s")
_GANTT_SETTINGS = frozenset({
    "title", "dateformat", "axisformat", "tickinterval", "excludes", "includes", "todaymarker",
    "weekday", "weekend", "inclusiveenddates", "topaxis", "displaymode", "click", "acctitle",
    "accdescr"})
# a mind map node's shape, outermost first: `((圆))`, `))爆炸((`, `{{六边形}}`, `[方]`, `(圆角)`, `)云(`
_SHAPES = (("((", "))"), ("))", "(("), ("{{", "}}"), ("[", "]"), ("(", ")"), (")", "("))


def _add(nodes: list[str], name: str) -> None:
    name = name.strip().strip('"').strip()
    if name and name not in nodes:
        nodes.append(name)


def _keyword(line: str) -> tuple[str, str]:
    """A line's first word, case folded, and the rest: `section 播种期` → ("section", "播种期")."""
    head, _, rest = line.partition(" ")
    return head.rstrip(":").casefold(), rest.strip()


def _colon_parts(line: str) -> list[str]:
    """A line's parts between colons that a space sets apart (`10月上旬 : 拌种 : 选种`); a
    colon inside a word (`10:30`, `http://`) is no separator."""
    parts: list[str] = []
    for piece in line.split(":"):
        if parts and parts[-1] and piece and not parts[-1][-1].isspace() and not piece[0].isspace():
            parts[-1] += ":" + piece
        else:
            parts.append(piece)
    return [p.strip() for p in parts]


def timeline(lines: list[str]) -> Graph:
    nodes: list[str] = []
    edges: list[tuple[str, str, str]] = []
    period = ""
    for line in lines:
        word, rest = _keyword(line)
        if word == "title":
            continue
        if word == "section":
            _add(nodes, rest)
            continue
        parts = _colon_parts(line)
        if parts[0]:
            period = parts[0]
            _add(nodes, period)
        for event in parts[1:]:
            if event:
                _add(nodes, event)
                if period:
                    edges.append((period, event, ""))
    return nodes, edges


def _entity(token: str) -> tuple[str, str]:
    """An entity as written (`p[Person]`, `"Line Item"`) → (its name, its label)."""
    token = token.strip()
    if token.endswith("]") and "[" in token:
        ident, _, label = token[:-1].partition("[")
        return ident.strip(), label.strip().strip('"').strip() or ident.strip()
    name = token.strip('"').strip()
    return name, name


def _attribute(line: str, nodes: list[str]) -> None:
    """`string name PK, FK "客户名称"`: the name and the comment, never the type or keys."""
    text, quote, comment = line.partition('"')
    words = text.replace(",", " ").split()
    if len(words) >= 2:
        _add(nodes, words[1])
    if quote:
        _add(nodes, comment.rsplit('"', 1)[0])


def er_diagram(lines: list[str]) -> Graph:
    nodes: list[str] = []
    edges: list[tuple[str, str, str]] = []
    labels: dict[str, str] = {}

    def entity(token: str) -> str:
        ident, label = _entity(token)
        labels.setdefault(ident, label)
        _add(nodes, labels[ident])
        return labels[ident]

    inside = False
    for line in lines:
        if inside:
            body, closed, _ = line.partition("}")
            if body.strip():
                _attribute(body, nodes)
            inside = not closed
            continue
        if line.casefold().startswith(("title ", "direction ", "style ", "classdef ", "class ")):
            continue
        left, colon, label = line.partition(":")
        rel = _ER_SYMBOLS.search(left) or _ER_WORDS.search(left)
        if rel and colon:
            a, b = left[:rel.start()], left[rel.end():]
            if a.strip() and b.strip():
                edges.append((entity(a), entity(b), label.strip().strip('"').strip()))
            continue
        head, brace, body = line.partition("{")
        if head.strip():
            entity(head)
        if brace:
            body, closed, _ = body.partition("}")
            if body.strip():
                _attribute(body, nodes)
            inside = not closed
    return nodes, edges


def journey(lines: list[str]) -> Graph:
    nodes: list[str] = []
    for line in lines:
        word, rest = _keyword(line)
        if word == "title":
            continue
        if word == "section":
            _add(nodes, rest)
            continue
        task, colon, more = line.partition(":")
        if not colon:
            continue
        _add(nodes, task)
        _score, colon, actors = more.partition(":")
        for actor in actors.split(",") if colon else ():
            _add(nodes, actor)
    return nodes, []


def gantt(lines: list[str]) -> Graph:
    nodes: list[str] = []
    for line in lines:
        word, rest = _keyword(line)
        if word in _GANTT_SETTINGS:
            continue
        if word == "section":
            _add(nodes, rest)
            continue
        task, colon, _meta = line.partition(":")
        if colon:
            _add(nodes, task)
    return nodes, []


def _shape_text(line: str) -> str:
    """A mind map node's text: `root((病害防治))` → `病害防治`, `id2)Cloud(` → `Cloud`."""
    for i, ch in enumerate(line):
        if ch in "([{)":
            rest = line[i:]
            for opener, closer in _SHAPES:
                if rest.startswith(opener) and rest.endswith(closer) \
                        and len(rest) >= len(opener) + len(closer):
                    inner = rest[len(opener):len(rest) - len(closer)].strip().strip('"').strip()
                    return inner or line[:i]
            break
    return line.strip('"').strip()


def mindmap(lines: list[str]) -> Graph:
    nodes: list[str] = []
    for line in lines:
        if line.startswith(("::icon(", ":::")):
            continue
        _add(nodes, _shape_text(line))
    return nodes, []


READERS: dict[str, Callable[[list[str]], Graph]] = {
    "timeline": timeline, "erdiagram": er_diagram, "journey": journey, "gantt": gantt,
    "mindmap": mindmap}
