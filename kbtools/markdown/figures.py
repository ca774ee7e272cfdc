"""A picture and its caption written together as HTML, as Typora writers and GitHub READMEs
put them: ``<center><img src="pump.png"><br>图 1 液压泵外观</center>``, ``<p align="center"><img
…><br/>Figure 2 …</p>``, ``<figure><img …><figcaption>图 3 …</figcaption></figure>``, and
Typora's much-copied caption style (``<center><img style=…><br><div style="color:#999">图片
描述</div></center>``).

`figure_parts` reads such an HTML block as its pictures (their `<img>` tags) and the caption's
text, or None when it holds anything else (a script, a table, a link, a comment): the page
shows that block as escaped source. `wrapped_words` reads a block of words in such wrappers
and no picture (`<center>第一章 安装</center>`) the same way; `inline_block` one of words,
links and inline formatting in such wrappers (`<p align="center"><a href="x.md">链接</a></p>`)
as its text and inline tags, for the page to show as a paragraph. `tags_hidden` is a line of HTML as chunk text reads it. Only words come out of the caption: its tags (`<b>`,
`<font color=…>`, `<span style=…>`) and their attributes are dropped, its character
references decoded, its blanks collapsed, so the page escapes what an untrusted author wrote
as text.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from kbtools.markdown.html_tags import TAG_BODY, written_plainly
from kbtools.markdown.parser import img_attributes

# an HTML tag or end tag and its name; linear: the attributes stop at the tag's first `<`
# or `>`, and a `<` no name follows is text (`温度<40`)
_TAG = re.compile(rf"<(/?)([A-Za-z][A-Za-z0-9]*)\b{TAG_BODY}>")
# tags around a picture or its caption, shown as neither (centring is read from them)
_MARKUP = re.compile(r"<[!?/A-Za-z]")  # markup left in the text between those tags
# (`<picture>` and its `<source srcset>`: the screen sizes of the `<img>` it holds)
WRAPPERS = frozenset({"center", "p", "div", "figure", "figcaption", "span", "font", "b",
                      "strong", "em", "i", "u", "small", "big", "sub", "sup", "picture",
                      "source"})


@dataclass(frozen=True)
class FigureParts:
    """An HTML block read as a figure: its `<img>` tags (with `src`), its wrapper tags, and
    its caption's text (the words before its first picture, then those after it); `above`:
    all of them stand before the first picture."""

    pictures: tuple[str, ...]
    wrappers: tuple[str, ...]
    caption: str
    above: bool


def figure_parts(block: str, page: bool = False) -> FigureParts | None:
    """`block` (an HTML block's source) as pictures and caption, or None when it holds no
    picture or no caption, or a tag that is no picture, line break or wrapper (`WRAPPERS`);
    `page`: its caption's blanks collapsed as a browser collapses them (`collapse_blanks`),
    else every blank (a no-break space too) one space, as chunk text reads them."""
    parts = _parts(block, page)
    return parts if parts is not None and parts.pictures else None


def wrapped_words(block: str) -> FigureParts | None:
    """`block` as words in wrapper tags and no picture (Typora's centred title
    `<center>第一章 安装</center>`, a warning in `<font color="red">注意：高压</font>` on a
    line of its own): its `caption` the words; None when it holds a picture or no words, or
    a tag that is no line break or wrapper (a table, a link, a script); its blanks collapsed
    as a browser collapses them (`collapse_blanks`: the page shows it)."""
    parts = _parts(block, True)
    return parts if parts is not None and not parts.pictures and parts.wrappers else None


def _parts(block: str, page: bool) -> FigureParts | None:
    """`block` as pictures, wrappers and words; None when it holds no words, or a tag that is
    no picture, line break or wrapper, or markup between its tags. Its tags are read as a
    browser reads them (`written_plainly`: `<img alt="压力<5" src=a.png>` is one tag)."""
    block = written_plainly(block)
    pictures: list[str] = []
    wrappers: list[str] = []
    text: list[list[str]] = [[], []]  # the words before the first picture, after it
    pos = 0
    for m in _TAG.finditer(block):
        text[bool(pictures)].append(block[pos:m.start()])
        pos = m.end()
        name = m.group(2).lower()
        if name == "img" and not m.group(1) and img_attributes(m.group()):
            pictures.append(m.group())
        elif name == "br":
            text[bool(pictures)].append(" ")
        elif name in WRAPPERS:
            wrappers.append(m.group())
        else:
            return None
    text[bool(pictures)].append(block[pos:])
    before, after = (_words("".join(t), page) for t in text)
    if before is None or after is None or not (before or after):
        return None
    return FigureParts(tuple(pictures), tuple(wrappers), " ".join(filter(None, (before, after))),
                       above=not after)


def _words(text: str, page: bool) -> str | None:
    """The text between a block's tags as a reader reads it (`page`: as a browser shows it,
    a no-break space kept); None when it holds markup no tag above read (a comment
    `<!-- -->`, a `<!DOCTYPE>`, a processing instruction)."""
    if _MARKUP.search(text):
        return None
    text = html.unescape(text)
    return collapse_blanks(text).strip(_BLANKS) if page else " ".join(text.split())


# the blanks a browser collapses between words: ASCII ones; a no-break space (`&nbsp;`, which
# authors write to keep a gap or hold two words together) and an ideographic space are words'
_BLANKS = " \t\n\r\f"
_BLANK_TO_SPACE = str.maketrans("\t\n\r\f", "    ")


def collapse_blanks(text: str) -> str:
    """`text` with each run of ASCII blanks one space, as a browser shows it (a leading or
    trailing run kept as one space): a no-break space (`&nbsp;` decoded) stays itself."""
    parts = text.translate(_BLANK_TO_SPACE).split(" ")
    words = " ".join(part for part in parts if part)
    return (" " if len(parts) > 1 and not parts[0] else "") + words \
        + (" " if len(parts) > 1 and not parts[-1] and words else "")


# the tags a paragraph shows inline (`SafeRenderer.html_inline`), and the wrappers around
# them on lines of their own, shown as the paragraph itself
INLINE_TAGS = frozenset({"a", "br", "img", "u", "ins", "s", "del", "strike", "sup", "sub", "kbd",
                         "mark", "b", "strong", "i", "em", "small", "font", "span"})
BLOCK_WRAPPERS = frozenset({"center", "p", "div", "figure"})


def inline_block(block: str) -> tuple[list[tuple[bool, str]], tuple[str, ...]] | None:
    """`block` (an HTML block's source) as wrapper tags (`BLOCK_WRAPPERS`) around words and
    inline tags (`INLINE_TAGS`): its pieces in order, each an inline tag (True) or the text
    between two tags (False; character references decoded, blanks collapsed to one space),
    and its wrappers (a no-break space kept); None when it holds another tag, other markup or nothing to show."""
    pieces: list[tuple[bool, str]] = []
    wrappers: list[str] = []
    pos = 0
    for m in _TAG.finditer(block):
        pieces.append((False, block[pos:m.start()]))
        pos = m.end()
        name = m.group(2).lower()
        if name in BLOCK_WRAPPERS:
            wrappers.append(m.group())
            pieces.append((False, " "))
        elif name in INLINE_TAGS:
            pieces.append((True, m.group()))
        else:
            return None
    pieces.append((False, block[pos:]))
    if any(_MARKUP.search(text) for tag, text in pieces if not tag):
        return None
    merged: list[tuple[bool, str]] = []
    for tag, text in pieces:
        if not tag and merged and not merged[-1][0]:
            merged[-1] = (False, merged[-1][1] + text)
        else:
            merged.append((tag, text))
    out: list[tuple[bool, str]] = []
    for tag, text in merged:
        if not tag:  # blanks collapsed as a browser does: `&nbsp;&nbsp;|&nbsp;` kept
            text = collapse_blanks(html.unescape(text))
        if text:
            out.append((tag, text))
    if out and not out[0][0]:
        out[0] = (False, out[0][1].lstrip(_BLANKS))
    if out and not out[-1][0]:
        out[-1] = (False, out[-1][1].rstrip(_BLANKS))
    out = [(tag, text) for tag, text in out if text]
    return (out, tuple(wrappers)) if out else None


def pictured_words(block: str) -> bool:
    """Whether `block` (an HTML block's source) is pictures and their words (a lone
    picture is not: it takes the words around it): a figure
    (`figure_parts`), or words, links and pictures in wrappers (`inline_block`: GitHub's
    `<p align="center"><a href="a.png"><img …></a><br>图 1 …</p>`, a picture linked to its
    full size), as the page shows it."""
    if figure_parts(block) is not None:
        return True
    found = inline_block(written_plainly(block))
    return found is not None and any(tag and text[1:4].lower() == "img" for tag, text in found[0]) \
        and any(not tag and text.strip() for tag, text in found[0])  # (a caption: some words)


def tags_hidden(line: str) -> str:
    """`line` as chunk text reads it: its HTML tags left out but pictures (`<br>` a space),
    character references decoded (`kbtools.markdown.hidden`)."""
    if "<" not in line and "&" not in line:
        return line
    return html.unescape(_TAG.sub(_shown_tag, line))


def _shown_tag(m: re.Match[str]) -> str:
    name = m.group(2).lower()
    return m.group() if name == "img" else " " if name == "br" else ""
