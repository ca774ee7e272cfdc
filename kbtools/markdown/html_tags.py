"""The tags of HTML an author writes, read as a browser reads them: one reader for `kb check`,
the build and the device's page.

`start_tags(html, names)` gives each start tag of `names` with its attributes (lower-case
names, a value quoted either way or not at all, `>` inside quotes kept, character references
such as `&amp;` and `&#x4E2D;` decoded, a bare attribute's value empty, the first of a
repeated one), where it starts and ends in `html` (a tag may be spread over lines), and
where its end tag ends (`</a>` after the link's text, tags inside it included). Python's
`html.parser` tokenizes; no pattern of ours reads an attribute.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from html.parser import HTMLParser

from markdown_it.rules_inline import StateInline

# What a tag's `<` and `>` enclose, for the patterns that find whole tags in a block: a quoted
# value may hold `>` (`alt="压力>5MPa"`) but no `<`, so each attempt stops at the next `<`
# (linear) and never gives characters back; a tag holding a `<` in a value or a quote in an
# unquoted one is read by `written_plainly` first.
TAG_BODY = r"""(?:[^<>"']++|"[^"<]*+"|'[^'<]*+')*+"""


IMG = frozenset({"img"})


@dataclass(frozen=True)
class HtmlTag:
    name: str  # lower case
    attrs: dict[str, str]
    start: int  # offset of its `<` in the HTML read
    end: int  # offset after its `>`
    close: int  # offset after its end tag (`</a>`), -1 when none follows


class _Reader(HTMLParser):
    def __init__(self, html: str, names: frozenset[str] | None):
        super().__init__(convert_charrefs=True)
        self.html, self.names = html, names
        self.line_starts = [0]
        at = html.find("\n")
        while at != -1:
            self.line_starts.append(at + 1)
            at = html.find("\n", at + 1)
        self.tags: list[HtmlTag] = []
        self.open: dict[str, int] = {}  # name -> index in `tags` of its last unclosed tag

    def _offset(self) -> int:
        line, col = self.getpos()
        return self.line_starts[line - 1] + col

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.names is not None and tag not in self.names:
            return
        start = self._offset()
        values: dict[str, str] = {}
        for key, value in attrs:
            values.setdefault(key, value or "")
        self.open[tag] = len(self.tags)
        self.tags.append(HtmlTag(tag, values, start,
                                 start + len(self.get_starttag_text() or ""), -1))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.open.pop(tag, None)

    def handle_endtag(self, tag: str) -> None:
        index = self.open.pop(tag, None)
        if index is None:
            return
        at = self.html.find(">", self._offset())
        tag_read = self.tags[index]
        self.tags[index] = HtmlTag(tag_read.name, tag_read.attrs, tag_read.start, tag_read.end,
                                   len(self.html) if at == -1 else at + 1)


def start_tags(html: str, names: frozenset[str] | None = None) -> list[HtmlTag]:
    """The start tags of `html` named one of `names` (lower case; None: any), in order."""
    reader = _Reader(html, names)
    try:
        reader.feed(html)
        reader.close()
    except Exception:  # html.parser is lenient; what it read before a fault is kept
        pass
    return reader.tags


# how much text a picture's tag no pattern reads may span (`picture_tag`, the chunker)
TAG_REACH = 4096


def picture_tag(state: StateInline, silent: bool) -> bool:
    """An inline rule after markdown-it's `html_inline`: an `<img>` tag with a `src` that a
    browser shows but CommonMark's pattern leaves as text (an unquoted value holding a quote
    or a `<`: `<img alt=it's src=a.png>`, `<img alt=压力<5 src=a.png>`), read by `start_tags`,
    as an `html_inline` token of its source, as the page shows it."""
    pos = state.pos
    if not state.md.options.get("html") or state.src[pos:pos + 4].lower() != "<img":
        return False
    tags = start_tags(state.src[pos:min(state.posMax, pos + TAG_REACH)], IMG)
    if not tags or tags[0].start != 0 or not tags[0].attrs.get("src"):
        return False
    if not silent:
        state.push("html_inline", "", 0).content = state.src[pos:pos + tags[0].end]
    state.pos += tags[0].end
    return True


def written_plainly(html: str) -> str:
    """`html` with each start tag whose source holds a `<` after its first character
    (`alt="a<b"`) or a quote (`alt=泵's`, `alt='x'`) written again as html.parser reads it:
    its lower-case name, each attribute double-quoted with `&`, `<`, `>` and quotes escaped
    (a `/>` kept), so that the patterns finding whole tags (`TAG_BODY`, linear because a
    value holds no `<`) read the tag a browser reads; the rest of `html` as it is."""
    if "<" not in html:
        return html
    out, pos = [], 0
    for tag in start_tags(html):
        source = html[tag.start:tag.end]
        if "<" not in source[1:] and "'" not in source:
            continue
        attrs = "".join(f' {key}="{escape(value)}"' for key, value in tag.attrs.items())
        out += [html[pos:tag.start], f"<{tag.name}{attrs}{'/>' if source.endswith('/>') else '>'}"]
        pos = tag.end
    return "".join(out) + html[pos:] if out else html


# the attribute naming the file an HTML element plays or shows in the page (a video, a
# sound, a page or PDF framed in it): a link's destination, checked and shipped as one
FILE_ATTRS = {"video": "src", "audio": "src", "source": "src", "track": "src",
              "iframe": "src", "embed": "src", "object": "data"}


class HtmlRefs(HTMLParser):
    """What `kb check` reads of an HTML fragment: the destinations its tags name, as
    (kind, URL, an image without `alt`, a file the page plays or frames), and its ids."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[str, str, bool, bool]] = []
        self.ids: list[str] = []
        self.in_picture = False  # inside `<picture>`: its `<source srcset>` are pictures

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v for k, v in attrs if v is not None}
        if tag == "img" and values.get("src") is not None:
            self.found.append(("image", values["src"], "alt" not in values, False))
        elif tag == "a" and values.get("href") is not None:
            self.found.append(("link", values["href"], False, False))
        elif tag in FILE_ATTRS and values.get(FILE_ATTRS[tag]) is not None:
            self.found.append(("link", values[FILE_ATTRS[tag]], False, True))
        if tag == "video" and values.get("poster") is not None:  # its cover: a picture
            self.found.append(("image", values["poster"], False, False))
        if tag in ("img", "source") and values.get("srcset"):  # a screen's other sizes
            kind = "image" if tag == "img" or self.in_picture else "link"
            self.found.extend((kind, url, False, kind == "link") for url in srcset_urls(values["srcset"]))
        if tag == "picture":
            self.in_picture = True
        for key in ("id", "name") if tag == "a" else ("id",):
            if values.get(key):
                self.ids.append(values[key])

    def handle_endtag(self, tag: str) -> None:
        if tag == "picture":
            self.in_picture = False

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag == "picture":
            self.in_picture = False


def html_refs(content: str) -> HtmlRefs:
    """`HtmlRefs` of `content`."""
    parser = HtmlRefs()
    try:
        parser.feed(content)
        parser.close()
    except Exception:  # HTMLParser is lenient; be safe on any input
        pass
    return parser


def tag_attributes(tag: str) -> dict[str, str]:
    """The attributes of the start tag `tag` (`<a href="x.md" target=_blank>`)."""
    tags = start_tags(tag)
    return tags[0].attrs if tags else {}


def srcset_urls(value: str) -> list[str]:
    """The files a `srcset` names (`a.png 1x, a@2x.png 2x`, `small.jpg 480w`), as a browser
    splits it: each candidate's URL is its run of non-blank characters (a comma inside it
    kept, trailing ones dropped), its width or density, up to the next comma, left out."""
    urls, pos, size = [], 0, len(value)
    while pos < size:
        while pos < size and (value[pos].isspace() or value[pos] == ","):
            pos += 1
        start = pos
        while pos < size and not value[pos].isspace():
            pos += 1
        url = value[start:pos]
        if url.endswith(","):
            url = url.rstrip(",")
        else:
            comma = value.find(",", pos)
            pos = size if comma == -1 else comma + 1
        if url:
            urls.append(url)
    return urls
