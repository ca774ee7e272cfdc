"""Knowledge Markdown as HTML for the web app, through the project's one markdown-it parser.

`render_markdown(text, ctx)` parses with `kbtools.markdown.parser.parse_tokens` (so the page
shows the blocks the build indexed) and renders with `SafeRenderer`, which differs from
markdown-it's own renderer in what author content may do:

- raw HTML is never passed through: HTML comments (annotations) are dropped, HTML that is
  nothing but `<img>` tags (Typora's resized pictures), or those in a wrapper centring them
  (`<center>`, `<p align="center">`, `<div>`), is shown as the page's own images (their
  `src`, `alt`, `title` and the size given only, Typora's `style="zoom:50%"` too; centred by the page's class `centred`),
  and with a caption written in that wrapper (`<br>图 1 …`, `<figcaption>`) a `<figure>`
  whose `<figcaption>` is the caption's words (`kbtools.markdown.figures`),
  an inline `<a href="…">…</a>` in text is a link as `[…](…)` is (its `href` only: `kb
  check` checks it, the build ships the PDF it names) and an inline `<a id="…"></a>` the anchor `#…` links reach (its id only),
  a block of `<video>`/`<audio>` players the page's own players of the files the release
  ships (`kbtools.serve.media`), every other HTML block or inline tag is shown as escaped
  text;
- an author's ``==highlight==`` is ``<mark class="hl">``;
- text is escaped first, then the question's matched terms are wrapped in ``<mark>``; a
  term of one CJK character (用, 药) only inside the cited lines (anywhere else it marks
  the characters of other words: 使用, 农药);
- formulas become ``<img>`` of the release's sanitised SVG (`formula_relpath`), said to a
  screen reader as "公式：n/N × 100%" (`formula_words`; the LaTeX is its ``title``), or the
  LaTeX as code when the release has no SVG for it;
- images resolve against the document's path and are shown only when the release ships
  them (`kbtools.render.images`); links to other documents point at their page, links to a
  file the release ships (a picture, a PDF manual) at the file, links to a file it does not
  ship (a spreadsheet, a drawing, a video) say so (`RenderContext.missing_file`) instead of
  leading nowhere, links with a scheme other than http(s)/mailto are dropped
  (`kbtools.serve.doclinks`);
- a link to a heading of the same document (``#anchor``) stays in the page on the
  document's page and points at the document's page elsewhere (a passage in search results);
- headings carry their anchor (`slugify` of the title, as `kb check` validates ``#anchor``
  links) and one for each ``{#custom-id}`` they name;
- an inline footnote (``滴^[依据 GB 4285]``) is its note in place, small, between
  parentheses, as chunk text reads it (`kbtools.markdown.parser.NOTE_MARKS`);
- a task list item's box (``- [ ]``, ``- [x]``) is the page's own disabled checkbox, an
  Obsidian callout (``> [!warning] 标题``) a titled box, Typora's ``[TOC]`` a list of links
  to the headings (`kbtools.serve.editors`); Obsidian's ``![[pump.png|300]]`` a picture
  and ``[[note#heading|text]]`` (``![[note]]`` too) a link to the note's page
  (`kbtools.serve.wikilinks`);
- block tokens carry ``data-lines`` (file line numbers); those inside the cited range get
  the class ``cited`` and the first one the id ``cited`` (the page scrolls there);
- a passage may leave table rows out (`RenderContext.line_map` gives the file line of each
  line it kept): a row ``<tr class="omitted">`` with the page's note stands where they were;
- cross references the build resolved ("见 4.3 节", chunk ``links``) become links.

The last three are passes over the parsed tokens, in `kbtools.serve.passes` with the
`RenderContext` they read.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from typing import Any

from markdown_it.common.utils import escapeHtml
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from kbtools.markdown.figures import FigureParts, figure_parts, inline_block, wrapped_words
from kbtools.markdown.formula_words import formula_words
from kbtools.markdown.html_tags import TAG_BODY, tag_attributes, written_plainly
from kbtools.markdown.parser import (
    BR,
    img_attributes,
    inline_text,
    is_math_fence,
    markdown,
    parse_tokens,
)
from kbtools.render.formula import formula_relpath, normalize_latex
from kbtools.render.images import image_path
from kbtools.serve.doclinks import link_opener, link_target, missing_file, printed_href
from kbtools.serve.editors import (
    block_ids,
    callouts,
    custom_anchors,
    footnotes,
    table_of_contents,
    task_boxes,
)
from kbtools.serve.headings import anchor_headings, passage_headings
from kbtools.serve.marks import highlight, lone_character, terms_pattern
from kbtools.serve.media import OpenPlayer, media_block, media_tag, unclosed
from kbtools.serve.passes import (
    RenderContext,
    block_langs,
    cite_lines,
    line_numbers,
    link_xrefs,
    note_omissions,
)
from kbtools.serve.picsize import NOT_GIVEN, GivenSize, given_size, size_attributes
from kbtools.serve.scriptruns import script_runs
from kbtools.serve.wikilinks import wikilink_tokens

# raw HTML that is nothing but pictures (and line breaks): shown as the page's own images
_IMG_ONLY = re.compile(rf"\s*(?:<img\b{TAG_BODY}>\s*(?:<br\s*/?>\s*)*)+", re.I)
# a wrapper Typora and GitHub writers put around pictures to centre them (`<center>`,
# `<p align="center">`, `<div style="text-align:center">`) and its end tag; linear: the
# attributes stop at the tag's first `<` or `>`
_WRAPPER = re.compile(rf"</?(?:center|p|div|figure|picture|source)\b{TAG_BODY}>", re.I)
# a `<picture>` and its `<source srcset>`s: the `<img>` inside is shown (the others shipped)
_PICTURE = re.compile(rf"</?(?:picture|source)\b{TAG_BODY}>", re.I)
# an inline link written as HTML (`<a href="manual.pdf">`), and its end tag
_A_OPEN = re.compile(rf"<a\s{TAG_BODY}>", re.I)
_A_CLOSE = re.compile(r"</a\s*>", re.I)
# a disclosure box's tags (`<details>`, `<details open>`, `<summary>` and their end tags)
_DISCLOSURE_TAG = re.compile(r"<(/?)(details|summary)(?:\s+open)?\s*>", re.I)
_ANY_TAG = re.compile(r"<[A-Za-z/!?]")
# inline formatting written as HTML (Typora's `<u>`, `m<sup>2</sup>`, `<kbd>Ctrl</kbd>`,
# `<mark>`, an ==highlight==): the page's own tag, its attributes dropped; `<font>`, `<span>`
# (a colour, a size): their text alone
_FORMAT_TAG = re.compile(r"<(/?)(u|ins|s|del|strike|sup|sub|kbd|mark|b|strong|i|em|small|"
                         rf"font|span)(?:\s{TAG_BODY})?>", re.I)
_FORMAT_SHOWN = {"strike": "s", "font": "", "span": "", "mark": 'mark class="hl"'}


@functools.lru_cache(maxsize=4096)
def formula_parts(latex: str) -> tuple[str, str]:
    """A formula's SVG (`formula_relpath` of its normalised LaTeX, as the build names it) and
    its words read aloud (`formula_words`): what each view of a page computed again for
    every formula (a third of a 300-formula page's render), kept across views and pages."""
    return formula_relpath(normalize_latex(latex)), formula_words(latex)

class SafeRenderer(RendererHTML):
    """markdown-it's HTML renderer with the rules of the module docstring."""

    def __init__(self, ctx: RenderContext):
        super().__init__()
        self.ctx = ctx
        self.details = 0  # the `<details>` boxes opened and not closed yet
        self.html_links: list[str] = []  # the closing markup of each open HTML `<a>`
        self.players: list[OpenPlayer] = []  # the inline `<video>` shown, their end tags to come
        self.pattern = terms_pattern(ctx.terms)
        self.outside = terms_pattern(t for t in ctx.terms if not lone_character(t))

    def renderInline(self, tokens: Sequence[Token], options: OptionsDict,  # noqa: N802
                     env: Any) -> str:
        """As markdown-it's; an HTML `<a>` its text leaves open is closed where it ends, and
        a player it leaves open naming no file is said there (`media.unclosed`)."""
        out = super().renderInline(tokens, options, env)
        closing, self.html_links = "".join(reversed(self.html_links)), []
        return out + closing + unclosed(self.ctx, self.players)

    def cited_anchor(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Any) -> str:
        return '<span id="cited" class="anchor"></span>'

    def heading_anchor(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                       env: Any) -> str:
        return f'<span id="{escapeHtml(str(tokens[idx].meta["id"]))}" class="anchor"></span>'

    def omitted_rows(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                     env: Any) -> str:
        tok = tokens[idx]
        return (f'<tr class="omitted"><td colspan="{tok.meta["cols"]}"{_ui_lang(self.ctx)}>'
                f"{escapeHtml(tok.content)}</td></tr>\n")

    # --- text -------------------------------------------------------------------------
    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        tok = tokens[idx]
        return highlight(tok.content, self.pattern if tok.meta.get("cited") else self.outside)

    def lang_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Any) -> str:  # a run of the other script (`scriptruns`)
        return f'<span lang="{escapeHtml(str(tokens[idx].attrGet("lang")))}">'

    def lang_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        return "</span>"

    def inline_note_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                         env: Any) -> str:
        return '<small class="footnote-inline">('

    def inline_note_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                          env: Any) -> str:
        return ")</small>"

    def task_box(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                 env: Any) -> str:
        checked = " checked" if tokens[idx].meta.get("checked") else ""
        return f'<input type="checkbox" class="task-box" disabled{checked}>'

    def callout_title_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                           env: Any) -> str:
        return '<span class="callout-title">'

    def callout_title_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                            env: Any) -> str:
        return "</span>"

    def mark_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Any) -> str:
        return '<mark class="hl">'  # the author's ==highlight== (a question's terms: <mark>)

    def mark_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        return "</mark>"

    def table_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        """A wide table scrolls in a box of its own, not with the text around it (a box
        holding no link is one a keyboard can scroll: Chromium makes it focusable)."""
        return '<div class="table-wrap">' + self.renderToken(tokens, idx, options, env)

    def table_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Any) -> str:
        return self.renderToken(tokens, idx, options, env) + "</div>\n"

    def html_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        content = written_plainly(tokens[idx].content)  # `alt="a<b"` read as a browser reads it
        if _is_comment(content):
            return ""
        if _IMG_ONLY.fullmatch(content):  # Typora's resized picture: shown, attributes dropped
            return f'<p{_block_attrs(tokens[idx])}>{self._img_tags(content)}</p>\n'
        if _IMG_ONLY.fullmatch(_WRAPPER.sub("", content)):  # the same in a centring wrapper
            centred = "centred" if _centres(_WRAPPER.findall(content)) else ""
            return f'<p{_block_attrs(tokens[idx], centred)}>{self._img_tags(content)}</p>\n'
        if (players := media_block(content, self.ctx)) is not None:  # `<video controls …>`
            centred = "centred" if _centres(_WRAPPER.findall(content)) else ""
            return f'<p{_block_attrs(tokens[idx], centred)}>{"<br>".join(players)}</p>\n'
        figure = figure_parts(content, page=True)  # pictures and their caption (Typora, GitHub)
        if figure is not None:
            return self._figure(tokens[idx], figure)
        if (words := wrapped_words(content)) is not None:  # `<center>第一章 安装</center>`
            pattern = self.pattern if tokens[idx].meta.get("cited") else self.outside
            cls = "centred" if _centres(list(words.wrappers)) else ""
            return f"<p{_block_attrs(tokens[idx], cls)}>{highlight(words.caption, pattern)}</p>\n"
        if (inline := inline_block(content)) is not None:  # `<p align="center"><a …>链接</a></p>`
            return self._inline_block(tokens[idx], *inline, options, env)
        box = self._disclosure(tokens[idx])
        source = tokens[idx].content
        return box if box is not None else f'<pre class="raw-html">{escapeHtml(source)}</pre>\n'

    def _inline_block(self, tok: Token, pieces: list[tuple[bool, str]], wrappers: tuple[str, ...],
                      options: OptionsDict, env: Any) -> str:
        """Words, links and inline formatting in wrapper tags on lines of their own as a
        paragraph, each tag shown as the same tag inline in a paragraph is (`html_inline`),
        centred as its wrapper centres it."""
        pattern = self.pattern if tok.meta.get("cited") else self.outside
        opened = len(self.html_links)
        inner = "".join(self.html_inline([Token("html_inline", "", 0, content=text)], 0, options,
                                         env) if tag else highlight(text, pattern)
                        for tag, text in pieces)
        inner += "".join(reversed(self.html_links[opened:]))  # an `<a>` the block left open
        del self.html_links[opened:]
        cls = "centred" if _centres(list(wrappers)) else ""
        return f"<p{_block_attrs(tok, cls)}>{inner}</p>\n"

    def _figure(self, tok: Token, parts: FigureParts) -> str:
        """Pictures written in HTML with their caption as a `<figure>` of the page's own
        images (`_img_tags`) and a `<figcaption>` of the caption's words, escaped, the
        question's terms marked; centred as its wrapper centres it."""
        pattern = self.pattern if tok.meta.get("cited") else self.outside
        caption = f"<figcaption>{highlight(parts.caption, pattern)}</figcaption>"
        pictures = self._img_tags("".join(parts.pictures))
        cls = "centred" if _centres(list(parts.wrappers)) else ""
        inner = caption + pictures if parts.above else pictures + caption
        return f"<figure{_block_attrs(tok, cls)}>{inner}</figure>\n"

    def _disclosure(self, tok: Token) -> str | None:
        """An HTML block of `<details>`/`<summary>` tags and text (Typora's and GitHub's
        folded box) as the page's own `<details open>`: open, so that no cited line or
        matched term is folded away; the tags' attributes are dropped, an end tag with no
        box open is left out (`render` closes those left open). None when the block holds
        another tag."""
        pieces = _DISCLOSURE_TAG.split(tok.content)  # text, slash, name, text, …
        if len(pieces) == 1 or any(_ANY_TAG.search(t) for t in pieces[::3]):
            return None
        pattern = self.pattern if tok.meta.get("cited") else self.outside
        out = [highlight(html.unescape(pieces[0]), pattern)]
        summary = False
        for i in range(1, len(pieces), 3):
            closing, name = pieces[i] == "/", pieces[i + 1].lower()
            if name == "details" and not closing:
                out.append(f"<details open{_block_attrs(tok) if self.details == 0 else ''}>")
                self.details += 1
            elif name == "details" and self.details:
                out.append("</summary></details>" if summary else "</details>")
                summary, self.details = False, self.details - 1
            elif name == "summary" and self.details and closing == summary:
                out.append("</summary>" if summary else "<summary>")
                summary = not summary
            out.append(highlight(html.unescape(pieces[i + 2]), pattern))
        return "".join(out) + ("</summary>" if summary else "") + "\n"

    def render(self, tokens: Sequence[Token], options: OptionsDict, env: Any) -> str:
        """As markdown-it's; a `<details>` box the text leaves open is closed at its end."""
        out = super().render(tokens, options, env)
        closing, self.details = "</details>\n" * self.details, 0
        return out + closing

    def html_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Any) -> str:
        content = written_plainly(tokens[idx].content)
        if content.startswith("<!--"):
            return ""
        if BR.fullmatch(content):
            return "<br>"
        if _IMG_ONLY.fullmatch(content):
            return self._img_tags(content)
        if (player := media_tag(content, self.ctx, self.players)) is not None:  # `文 <video src=…>`
            return player
        if _PICTURE.fullmatch(content) and (content[1] != "s" and content[1] != "S"
                                            or "srcset" in tag_attributes(content)):
            return ""  # (a video's `<source src>` stays as written)
        if _A_OPEN.fullmatch(content):
            attrs = tag_attributes(content)
            if "href" not in attrs and (anchor := attrs.get("id") or attrs.get("name")):
                self.html_links.append("</span>")  # `<a id="x"></a>`: what `#x` links reach
                return f'<span id="{escapeHtml(anchor)}" class="anchor">'
            opened, closing = self._open_link(attrs.get("href", ""))
            self.html_links.append(closing)
            return opened
        if _A_CLOSE.fullmatch(content) and self.html_links:
            return self.html_links.pop()
        if m := _FORMAT_TAG.fullmatch(content):
            name = _FORMAT_SHOWN.get(m.group(2).lower(), m.group(2).lower())
            return (f"</{name.split()[0]}>" if m.group(1) else f"<{name}>") if name else ""
        return escapeHtml(tokens[idx].content)

    def _img_tags(self, html: str) -> str:
        """HTML `<img>` tags (Typora writes one to resize a picture) as the page's own
        images: `src`, `alt`, `title` and the size given (`picsize`: `width="300"`, what `kb
        check --fix` writes for Obsidian's `![[a.png|300]]`, `width="50%"`, Typora's
        `style="zoom:50%;"`) are read, every other attribute is dropped."""
        return "".join(self._image(a["src"], a.get("alt", ""), a.get("title", ""),
                                   given_size(a))
                       for a in img_attributes(html))

    # --- formulas ---------------------------------------------------------------------
    def _formula(self, latex: str, display: bool) -> str:
        rel, words = formula_parts(latex)
        cls = "formula display" if display else "formula"
        if latex.strip() and self.ctx.has_formula(rel):
            said = self.ctx.formula_word + words  # not the LaTeX aloud
            img = (f'<img class="{cls}" src="{escapeHtml(self.ctx.url("formula", rel))}"'
                   f'{self._size(rel)} alt="{escapeHtml(said)}" '
                   f'title="{escapeHtml(latex.strip())}">')
            return f'<div class="formula-block">{img}</div>\n' if display else img
        return f'<code class="{cls}">{escapeHtml(latex)}</code>'

    def math_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                    env: Any) -> str:
        return self._formula(tokens[idx].content, False)

    math_inline_double = math_inline

    def math_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        return self._wrap(tokens[idx], self._formula(tokens[idx].content, True))

    math_block_label = math_block

    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        tok = tokens[idx]
        if is_math_fence(tok):
            return self._wrap(tok, self._formula(tok.content, True))
        lang = escapeHtml(tok.info.split()[0]) if tok.info.strip() else ""
        attrs = _block_attrs(tok)
        cls = f' class="language-{lang}"' if lang else ""
        return f"<pre{attrs}><code{cls}>{escapeHtml(tok.content)}</code></pre>\n"

    def code_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        tok = tokens[idx]
        return f"<pre{_block_attrs(tok)}><code>{escapeHtml(tok.content)}</code></pre>\n"

    def _wrap(self, tok: Token, inner: str) -> str:
        return f"<div{_block_attrs(tok)}>{inner}</div>\n"

    # --- images and links -------------------------------------------------------------
    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        tok = tokens[idx]
        given = GivenSize(int(tok.meta.get("width") or 0), int(tok.meta.get("height") or 0))
        return self._image(str(tok.attrGet("src") or ""), inline_text(tok.children or []),
                           str(tok.attrGet("title") or ""), given)

    def _image(self, src: str, alt: str, title: str, given: GivenSize) -> str:
        """A picture; `given`: the size its author gave it."""
        rel = image_path(self.ctx.doc, src)
        if rel is None or not self.ctx.has_asset(rel):
            return f'<span class="missing-image">[{escapeHtml(alt)}]</span>'
        title_attr = f' title="{escapeHtml(title)}"' if title else ""
        return (f'<img class="photo" src="{escapeHtml(self.ctx.url("asset", rel))}"'
                f'{self._size(f"source/{rel}", given)} alt="{escapeHtml(alt)}"'
                f'{title_attr}>')

    def _size(self, data_rel: str, given: GivenSize = NOT_GIVEN) -> str:
        """The ``width``/``height`` of a picture the release holds as ``data/<data_rel>``
        (`picsize.size_attributes`: its declared size, or the one its author gave; the style
        sheet scales it down keeping its proportions): the browser keeps its place while it
        loads, the text does not jump under the reader."""
        return size_attributes(given, self.ctx.size_of(data_rel))

    def link_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Any) -> str:
        return self._open_link(str(tokens[idx].attrGet("href") or ""))[0]

    def link_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        opener = link_opener(tokens, idx)
        return self._open_link(str(opener.attrGet("href") or ""))[1] if opener is not None \
            else "</a>"

    def _open_link(self, raw: str) -> tuple[str, str]:
        """The markup that opens a link to `raw` (as written in the document) and the
        markup that closes it."""
        href = link_target(self.ctx, raw)
        if href is None:
            if missing_file(self.ctx, raw):
                return (f'<span class="missing-file" title="{escapeHtml(self.ctx.missing_file)}">',
                        f'</span> <span class="missing-note"{_ui_lang(self.ctx)}>'
                        f'({escapeHtml(self.ctx.missing_file)})</span>')
            return '<span class="dropped-link">', "</span>"
        external = href.startswith(("http://", "https://"))
        rel = ' rel="noopener noreferrer nofollow" class="external"' if external else ""
        return f'<a href="{escapeHtml(href)}"{rel}{printed_href(href)}>', "</a>"


def _centres(tags: list[str]) -> bool:
    """Whether wrapper tags around pictures centre them: a `<center>`, or an `align` or a
    `style` whose `text-align` says `center` (the page keeps that as its own class and drops
    every attribute)."""
    for tag in tags:
        if tag[1:7].lower() == "center":
            return True
        attrs = tag_attributes(tag)
        style = attrs.get("style", "").lower().replace(" ", "")
        if attrs.get("align", "").lower() == "center" or "text-align:center" in style:
            return True
    return False


def _ui_lang(ctx: RenderContext) -> str:
    """The `lang` attribute of the interface's words said inside knowledge text (a note of
    rows left out, of a file not on this device): read in the interface's voice, not the
    text's."""
    return f' lang="{escapeHtml(ctx.ui_lang)}"' if ctx.ui_lang else ""


def _is_comment(html: str) -> bool:
    """An HTML block that is one comment (an annotation such as ``<!-- decision: … -->``)."""
    text = html.strip()
    return text.startswith("<!--") and text.endswith("-->") and "-->" not in text[4:-3]


def _block_attrs(tok: Token, cls: str = "") -> str:
    """The attributes the passes gave a block's token (`data-lines`, `cited`), as HTML;
    `cls` is one more class, joined to the token's own (one `class` attribute)."""
    attrs = dict(tok.attrs)
    if cls:
        attrs["class"] = f"{cls} {attrs['class']}" if attrs.get("class") else cls
    return "".join(f' {k}="{escapeHtml(str(v))}"' for k, v in attrs.items())


class _XrefRenderer(SafeRenderer):
    """Cross-reference links were made by us with an app URL: render them as they are."""

    def link_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                  env: Any) -> str:
        tok = tokens[idx]
        if tok.meta.get("xref"):
            href = str(tok.attrGet("href"))
            return f'<a class="xref" href="{escapeHtml(href)}"{printed_href(href)}>'
        return super().link_open(tokens, idx, options, env)

    def link_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict,
                   env: Any) -> str:
        opener = link_opener(tokens, idx)
        if opener is not None and opener.meta.get("xref"):
            return "</a>"
        return super().link_close(tokens, idx, options, env)


def render_markdown(text: str, ctx: RenderContext) -> str:
    """`text` (a document body or a passage of one) as safe HTML; see the module docstring."""
    return render_prepared(prepare_markdown(text, ctx), ctx)


def prepare_markdown(text: str, ctx: RenderContext,
                     tokens: list[Token] | None = None) -> list[Token]:
    """The tokens of `text` after every pass that is the same on each view of it (the
    editors' boxes, headings' anchors, line numbers, cross references): all but the cited
    lines and the question's terms, which `render_prepared` applies to a view without
    changing them. A document's page keeps them per release (`pagecache.Prepared`): the
    next view of the document, another cited range or question, is not parsed again.
    `tokens`: `parse_tokens(text)` made already (`docparts`), changed by the passes."""
    tokens = parse_tokens(text) if tokens is None else tokens
    task_boxes(tokens)
    callouts(tokens)
    block_ids(tokens)
    custom_anchors(tokens)
    footnotes(tokens)
    anchor_headings(tokens)
    tokens = table_of_contents(tokens)
    if not ctx.on_doc_page:
        passage_headings(tokens)
    wikilink_tokens(tokens, ctx)
    link_xrefs(tokens, ctx)
    block_langs(tokens, ctx)
    script_runs(tokens, ctx.text_lang)
    return line_numbers(tokens, ctx)


def render_prepared(tokens: list[Token], ctx: RenderContext) -> str:
    """`prepare_markdown`'s tokens as the HTML of one view: its cited lines (`ctx.cited`),
    rows left out (`ctx.omitted`) and the question's terms (`ctx.terms`) marked; `tokens`
    are left unchanged (`cite_lines` copies the few it marks)."""
    tokens = note_omissions(cite_lines(tokens, ctx), ctx)
    return _XrefRenderer(ctx).render(tokens, markdown().options, {})
