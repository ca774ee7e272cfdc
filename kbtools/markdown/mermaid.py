r"""Mermaid diagrams read as text: node labels and labelled edges, for search.

`mermaid_graph(source)` pulls the node labels and (from, to, label) edges out of a
flowchart, sequence or state diagram with a handful of regular expressions (no Mermaid
parser, never raises); `mermaid_text(source)` renders them as "A → B" lines plus a node
list, which `kbtools.build.chunk` indexes for a fenced ```mermaid block (a `kbtools.markdown.doctree.Code`
with language "mermaid").

The patterns take linear time on any line: none that is searched starts with \s*, no lazy
group is followed by \s* unless it ends on a non-space, and an edge label written inline
is at most `MAX_LABEL` characters.
"""

from __future__ import annotations

import re

from kbtools.markdown.mermaid_kinds import READERS
from kbtools.markdown.parser import BR

MAX_LABEL = 200  # `A -- label --> B`: longer text between the dashes is not read as a label
_M_NODE = re.compile(
    r"([A-Za-z0-9_\u4e00-\u9fff][\w\u4e00-\u9fff.-]*)\s*"
    r"(\(\(.*?\)\)|\(\[.*?\]\)|\[\[.*?\]\]|\[\(.*?\)\]|\{\{.*?\}\}|\[/.*?/\]|\[\\.*?\\\]"
    r"|\[.*?\]|\(.*?\)|\{.*?\}|>.*?\])?")
_M_ARROW = re.compile(r"(<?-->?|<?==>?|<?-\.->?|---|===|-\.-|--[ox]|<-->)\s*(?:\|([^|]*)\|)?\s*")
_M_TEXT_ARROW = re.compile(rf"--\s+([^->|\s](?:[^>]{{0,{MAX_LABEL}}}?[^\s>])??)\s+-->\s*")
# (?=[^:]*:) first: without a `:` every arrow-like `-)` would be tried against the whole rest.
_M_SEQ = re.compile(r"^(?=[^:]*:)\s*([^\s:>-](?:[^:>]*?[^\s:>])??)\s*(-{1,2}>>?|-{1,2}[x)]|<<-{1,2}>>)"
                    r"\s*[+-]?([^:]*?[^\s:])\s*:(.*)$")
_M_STATE = re.compile(r"^\s*(\[\*\]|[\w\u4e00-\u9fff]+)\s*-->\s*(\[\*\]|[\w\u4e00-\u9fff]+)\s*(?::\s*(.*))?$")
_M_SKIP = re.compile(r"^\s*(%%|classDef|class\s|style\s|linkStyle|click\s|subgraph|end\s*$|direction\s"
                     r"|section\s|dateFormat\s|axisFormat\s|accTitle\s*:|accDescr\b"
                     r"|graph\b|flowchart\b|sequenceDiagram|stateDiagram|participant\s|actor\s|note\s"
                     r"|title\s|autonumber|loop\b|alt\b|else\b|opt\b|par\b|and\b)", re.I)


# the words a diagram's first line declares its type with (`mindmap`, `pie title 故障占比`):
# that line holds no node (a later line starting with one of them is read as any other)
DIAGRAM_TYPES = frozenset({
    "graph", "flowchart", "sequenceDiagram", "stateDiagram", "stateDiagram-v2", "classDiagram",
    "classDiagram-v2", "erDiagram", "gantt", "pie", "journey", "gitGraph", "mindmap", "timeline",
    "quadrantChart", "requirementDiagram", "C4Context", "C4Container", "C4Component",
    "C4Dynamic", "C4Deployment", "sankey-beta", "xychart-beta", "block-beta", "packet-beta",
    "kanban", "architecture-beta", "zenuml"})


def _declared(source: str) -> tuple[str, str, list[str]]:
    """A diagram's type (case folded; "" when no line declares one), its title (`title:` in
    the settings block, a `title …` line, `pie title …`) and its other lines, stripped, the
    type's line, settings and blank lines left out."""
    kind, title, rest = "", "", []
    declared = False  # the line naming the diagram's type has been read
    settings = False  # inside the `---` block of settings (`title:`) before it
    for raw in source.split("\n"):
        line = raw.strip().rstrip(";")
        if not line:
            continue
        if not declared:
            if line == "---" or settings:
                settings = settings != (line == "---")
                key, colon, value = line.partition(":")
                if settings and colon and key.strip() == "title" and not title:
                    title = value.strip().strip("\"'").strip()
                continue
            if line.startswith("%%"):
                continue
            declared = True
            first, _, after = line.replace("\t", " ").partition(" ")
            if first in DIAGRAM_TYPES:
                kind = first.casefold()
                word, _, named = after.strip().partition(" ")
                if word == "title" and not title:  # `pie title 故障占比`
                    title = named.strip().strip('"').strip()
                continue
        if not title and kind != "mindmap" and line[:6].casefold() in ("title ", "title\t"):
            title = line[6:].strip().strip('"').strip()
        rest.append(line)
    return kind, title, rest


def mermaid_kind(source: str) -> str:
    """A diagram's declared type, case folded (`erdiagram`), or ""."""
    return _declared(source)[0]


def mermaid_title(source: str) -> str:
    """A diagram's title, or ""."""
    return _declared(source)[1]


def mermaid_graph(source: str) -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """Node labels and (from, to, label) edges of a diagram: a flowchart, sequence or state
    diagram read here, a timeline, ER diagram, journey, Gantt chart or mind map by its reader
    (`kbtools.markdown.mermaid_kinds`)."""
    kind, _title, lines = _declared(source)
    reader = READERS.get(kind)
    if reader is not None:
        kept, skip = [], False
        for line in lines:  # comments and accessibility text are no nodes
            if skip or line.startswith("%%") or line.startswith(("accTitle", "accDescr")):
                skip = (skip or line.startswith("accDescr") and line.endswith("{")) \
                    and not line.endswith("}")
                continue
            kept.append(line)
        found, found_edges = reader(kept)
        return _shown(found, found_edges)
    labels: dict[str, str] = {}
    order: list[str] = []
    edges: list[tuple[str, str, str]] = []

    def node(token: str) -> str | None:
        m = _M_NODE.match(token.strip())
        if not m:
            return None
        ident, shape = m.group(1), m.group(2)
        if shape:
            label = shape.strip("()[]{}/\\>").strip().strip('"').strip()
            labels[ident] = label or ident
        if ident not in order:
            order.append(ident)
        return ident

    for line in lines:
        seq = _M_SEQ.match(line)
        if seq and seq.group(2) not in ("-->", "->"):
            a, b = seq.group(1).strip(), seq.group(3).strip()
            for n in (a, b):
                labels.setdefault(n, n)
                if n not in order:
                    order.append(n)
            edges.append((a, b, seq.group(4).strip()))
            continue
        st = _M_STATE.match(line)
        if st and not re.search(r"[\[\](){}]", line.replace("[*]", "")):
            a, b = st.group(1), st.group(2)
            for n in (a, b):
                labels.setdefault(n, "开始/结束" if n == "[*]" else n)
                if n not in order:
                    order.append(n)
            edges.append((a, b, (st.group(3) or "").strip()))
            continue
        if _M_SKIP.match(line):
            continue
        line = _M_TEXT_ARROW.sub(lambda m: f" -->|{m.group(1)}| ", line)
        parts = _M_ARROW.split(line)
        # parts: node, arrow, label, node, arrow, label, node ...
        prev: list[str] = []
        for i in range(0, len(parts), 3):
            group = [n for n in (node(tok) for tok in parts[i].split("&")) if n]
            if i and prev:
                label = (parts[i - 1] or "").strip().strip('"')
                edges.extend((a, b, label) for a in prev for b in group)
            prev = group
    nodes = [labels.get(n, n) for n in order]
    return _shown(nodes, [(labels.get(a, a), labels.get(b, b), lab) for a, b, lab in edges])


def _label(text: str) -> str:
    """A label as the diagram shows it: a `<br>` a space, a Markdown string's backticks
    and emphasis marks (`"`**化学**防治`"`) left out."""
    if "<" in text:
        text = BR.sub(" ", text)
    if text.startswith("`") and text.endswith("`") and len(text) > 1:
        text = text[1:-1].replace("**", "").replace("__", "")
    return " ".join(text.split())


def _shown(nodes: list[str], edges: list[tuple[str, str, str]]
           ) -> tuple[tuple[str, ...], tuple[tuple[str, str, str], ...]]:
    """Nodes (each once) and edges with their labels as the diagram shows them (`_label`)."""
    shown = tuple(dict.fromkeys(s for s in map(_label, nodes) if s))
    return shown, tuple((_label(a), _label(b), _label(lab)) for a, b, lab in edges)


def mermaid_text(source: str) -> str:
    """The title, "A → B" lines (with edge labels) and the node list, for search."""
    nodes, edges = mermaid_graph(source)
    title = mermaid_title(source)
    lines = [title] if title else []
    lines += [f"{a} → {b}" + (f"（{lab}）" if lab else "") for a, b, lab in edges]
    if nodes:
        lines.append("节点 nodes: " + "、".join(nodes))
    return "\n".join(lines)
