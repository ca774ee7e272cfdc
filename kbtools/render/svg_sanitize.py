"""SVG sanitiser: what a formula SVG may contain, enforced on every file before it is written.

`sanitize_svg(data) -> SvgCheck` parses with expat (no DTD: a DOCTYPE, an entity declaration
or an external entity rejects the whole input; UTF-8 only) and keeps only an allowlist:

- elements `svg g defs symbol use path rect line polyline polygon circle ellipse title desc`
  (anything else, e.g. `script`, `style`, `image`, `foreignObject`, `a`, `animate`, `set`,
  `text`, is dropped with everything inside it; so are processing instructions, comments
  and prefixed elements);
- attributes from a fixed list of geometry and paint names (no `on*` handler, no `style`,
  no `class`); `href`/`xlink:href` only as an internal reference `#id`; no value with
  `url(...)` other than `url(#id)`, and only plain characters in values (no `:`, so no
  `javascript:`, `data:`, `file:` or `http:`);
- namespace declarations only on the root: the SVG namespace and `xmlns:xlink`.

The result is re-serialised deterministically in dvisvgm's own layout (single-quoted
attributes in their original order, empty elements self-closed, text as it was), so a clean
SVG from the renderer comes back byte for byte unchanged, and the same input always gives
the same bytes. `SvgCheck.removed` says what was dropped; the formula renderer refuses any
SVG that needed a removal.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import dataclass, field

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
MAX_SVG_BYTES = 8 * 1024 * 1024
MAX_DEPTH = 64
XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8'?>\n"

ELEMENTS = frozenset("""svg g defs symbol use path rect line polyline polygon circle ellipse
    title desc""".split())
TEXT_ONLY = frozenset({"title", "desc"})  # may hold text, no elements
ATTRIBUTES = frozenset("""id x y width height viewBox d transform points x1 y1 x2 y2 cx cy r
    rx ry fill stroke stroke-width fill-rule clip-rule stroke-linecap stroke-linejoin
    stroke-miterlimit stroke-dasharray stroke-dashoffset fill-opacity stroke-opacity opacity
    version role preserveAspectRatio href xlink:href""".split())
_REF = re.compile(r"#[A-Za-z_][A-Za-z0-9_.-]*")
_VALUE = re.compile(r"[A-Za-z0-9_.,+\-#%() \t\n\r]*")
_URL = re.compile(r"url\s*\(", re.I)
_URL_REF = re.compile(r"url\(#[A-Za-z_][A-Za-z0-9_.-]*\)")


@dataclass(frozen=True)
class SvgCheck:
    """The outcome of `sanitize_svg`: safe bytes, or why there are none."""

    svg: bytes = b""  # the sanitised document ("" when rejected)
    removed: tuple[str, ...] = ()  # what was dropped, e.g. "element <script>"
    rejected: str | None = None  # why nothing could be kept (not XML, DOCTYPE, ...)

    @property
    def clean(self) -> bool:
        """True when nothing had to be removed (the output is the input, re-serialised)."""
        return self.rejected is None and not self.removed


@dataclass
class _Element:
    tag: str
    attrs: list[tuple[str, str]]
    children: list[_Element | str] = field(default_factory=list)


class _Rejected(Exception):
    pass


def sanitize_svg(data: bytes | str) -> SvgCheck:
    """Parse `data` and keep only the allowlisted SVG; never raises."""
    if len(data) > MAX_SVG_BYTES:
        return SvgCheck(rejected=f"SVG is larger than {MAX_SVG_BYTES:,} bytes")
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            return SvgCheck(rejected="SVG is not UTF-8")
    removed: list[str] = []
    try:
        root = _parse(data, removed)
        root = _clean_root(root, removed)
    except _Rejected as exc:
        return SvgCheck(rejected=str(exc))
    out = XML_DECLARATION + _serialize(root)
    return SvgCheck(svg=out.encode("utf-8"), removed=tuple(removed))


def _parse(text: str, removed: list[str]) -> _Element:
    """The element tree, with comments and processing instructions dropped (and noted)."""
    parser = xml.parsers.expat.ParserCreate()
    parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.ordered_attributes = True
    parser.buffer_text = True
    stack: list[_Element] = []
    roots: list[_Element] = []

    def refuse(*_: object) -> None:
        raise _Rejected("SVG has a DOCTYPE or entity declaration (not allowed)")

    def refuse_external(*_: object) -> int:
        raise _Rejected("SVG refers to an external entity (not allowed)")

    def start(tag: str, flat: list[str]) -> None:
        if len(stack) >= MAX_DEPTH:
            raise _Rejected(f"SVG nests deeper than {MAX_DEPTH} elements")
        el = _Element(tag, list(zip(flat[::2], flat[1::2], strict=True)))
        (stack[-1].children if stack else roots).append(el)
        stack.append(el)

    def end(_tag: str) -> None:
        stack.pop()

    def chars(text: str) -> None:
        if stack:
            stack[-1].children.append(text)

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.NotationDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse_external
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    parser.CommentHandler = lambda _text: removed.append("comment")
    parser.ProcessingInstructionHandler = \
        lambda target, _data: removed.append(f"processing instruction <?{target}?>")
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as exc:
        reason = xml.parsers.expat.ErrorString(exc.code) if exc.code else "error"
        raise _Rejected(f"SVG is not well-formed XML ({reason})") from None
    except UnicodeEncodeError:
        raise _Rejected("SVG is not UTF-8") from None
    if len(roots) != 1:
        raise _Rejected("SVG has no root element")
    return roots[0]


def _clean_root(root: _Element, removed: list[str]) -> _Element:
    if root.tag != "svg":
        raise _Rejected(f"root element is <{_shown(root.tag)}>, not <svg>")
    attrs: list[tuple[str, str]] = []
    xlink = False
    for name, value in root.attrs:
        if name == "xmlns" and value == SVG_NS:
            attrs.append((name, value))
        elif name == "xmlns:xlink" and value == XLINK_NS:
            attrs.append((name, value))
            xlink = True
        elif name.startswith("xmlns"):
            removed.append(f"namespace declaration {_shown(name)} on <svg>")
        else:
            attrs.append((name, value))
    if ("xmlns", SVG_NS) not in attrs:
        raise _Rejected("root <svg> is not in the SVG namespace")
    root.attrs = attrs
    return _clean(root, removed, xlink)


def _clean(el: _Element, removed: list[str], xlink: bool) -> _Element:
    kept: list[tuple[str, str]] = []
    for name, value in el.attrs:
        problem = _attribute_problem(name, value, xlink)
        if problem:
            removed.append(f"{problem} on <{el.tag}>")
        else:
            kept.append((name, value))
    children: list[_Element | str] = []
    for child in el.children:
        if isinstance(child, str):
            children.append(child)
        elif el.tag in TEXT_ONLY or child.tag not in ELEMENTS:
            removed.append(f"element <{_shown(child.tag)}>")
        else:
            children.append(_clean(child, removed, xlink))
    return _Element(el.tag, kept, children)


def _attribute_problem(name: str, value: str, xlink: bool) -> str | None:
    """Why an attribute is dropped, or None to keep it."""
    if name in ("xmlns", "xmlns:xlink"):
        return None if (name, value) in (("xmlns", SVG_NS), ("xmlns:xlink", XLINK_NS)) \
            and value else f"attribute {name}"
    if name not in ATTRIBUTES or (name.startswith("xlink:") and not xlink):
        return f"attribute {_shown(name)}"
    if name in ("href", "xlink:href"):
        return None if _REF.fullmatch(value) else f"reference {_shown(value)!r}"
    if not _VALUE.fullmatch(value):
        return f"attribute {name}={_shown(value)!r}"
    if any(not _URL_REF.match(value, m.start()) for m in _URL.finditer(value)):
        return f"attribute {name}={_shown(value)!r}"
    return None


def _serialize(el: _Element) -> str:
    attrs = "".join(f" {name}='{_escape_attr(value)}'" for name, value in el.attrs)
    if not el.children:
        return f"<{el.tag}{attrs}/>"
    inner = "".join(_escape_text(c) if isinstance(c, str) else _serialize(c)
                    for c in el.children)
    return f"<{el.tag}{attrs}>{inner}</{el.tag}>"


def _escape_text(text: str) -> str:
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace("\r", "&#13;"))


def _escape_attr(value: str) -> str:
    return (value.replace("&", "&amp;").replace("<", "&lt;").replace("'", "&apos;")
            .replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;"))


def _shown(text: str) -> str:
    """At most 60 printable characters of author-controlled text, for a message."""
    text = text[:60]
    return "".join(ch if ch.isprintable() else f"\\x{ord(ch):02x}" for ch in text)
