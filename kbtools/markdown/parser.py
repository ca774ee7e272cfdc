"""The one configured Markdown parser, and the reading rules every consumer of it shares.

`kb check` (`kbtools.markdown.frontend.scan`) and `kb build` (`kbtools.markdown.doctree.parse`)
both parse with `markdown()` and read its tokens with the helpers here, so the gate checks
exactly what the build indexes: the same formulas, tables, links and headings, the same
heading text (`inline_text`) and the same anchors (`slugify`).

The parser: CommonMark + GFM tables + task lists + dollar math (`DOLLARMATH`) + Obsidian's
and Typora's `==highlights==` (`highlight.py`: the markers are no text), raw HTML allowed; ```` ```math ```` fences are formulas too (`MATH_FENCES`), as on GitHub and GitLab; a
```` ```latex ```` or ```` ```tex ```` fence is code (Typora, Obsidian and GitHub show LaTeX
source there: a template, a macro), never a formula for the allowlist to refuse.
Link destinations stay as written in the tokens (`normalize_href` gives the URL-encoded form
markdown-it would render); a reference link's token names its definition's label
(`meta["label"]`, the key of `env["references"]`, whose `map` holds the definition's lines).
Links markdown-it drops as unsafe (`javascript:`, `vbscript:`, `data:` other than images)
stay text; `file:` links are kept, so the check can report them. Inline HTML tags are
`html_inline` tokens, left out of a run's text; `<` and `>` in text and code spans are text.
Each inline run's Obsidian tags (`#病害/赤霉病` in its text) are read into its meta
(`kbtools.markdown.inline_tags.read_inline_tags`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, MutableMapping
from functools import lru_cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.normalize_url import normalizeLink, validateLink
from markdown_it.rules_block import StateBlock
from markdown_it.rules_block import reference as link_definition
from markdown_it.rules_core import StateCore, block, normalize
from markdown_it.rules_inline import StateInline, backtick, entity, html_inline
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.dollarmath.index import math_inline_dollar
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.footnote.index import footnote_ref
from mdit_py_plugins.tasklists import tasklists_plugin

from kbtools.errors import INVISIBLE
from kbtools.markdown.comments import COMMENT, comments_plugin
from kbtools.markdown.formula_words import formula_words
from kbtools.markdown.highlight import highlight_plugin
from kbtools.markdown.html_tags import IMG, picture_tag, start_tags
from kbtools.markdown.inline_tags import read_inline_tags
from kbtools.markdown.wikitext import SPAN

# `$5 and $6`, `$5,$6` and `costs $ 3` must not become math: no space right inside the
# dollars (write `$x + y$`, not `$ x + y $`) and no digit right outside them (`1$`, `$2`
# after a closing dollar); a `$$ ... $$` block holds no blank line.
DOLLARMATH: dict[str, bool] = {"allow_space": False, "allow_digits": False,
                               "double_inline": True, "allow_labels": True,
                               "allow_blank_lines": False}
MATH_FENCES = ("math",)  # fenced code in these languages is a display formula
INLINE_MATH = ("math_inline", "math_inline_double")
BLOCK_MATH = ("math_block", "math_block_label")
# Patterns over author text run in linear time: no group may scan past the opener of the
# next match attempt (`<`, `{`), so a run of unclosed openers is read once, not once per opener.
BR = re.compile(r"<br\s*/?>", re.I)
# the elements whose contents no reader sees, and their end tags
RAW_OPEN = re.compile(r"<(script|style)\b[^<>]*>", re.I)
RAW_CLOSE = {"script": re.compile(r"</script\s*>", re.I), "style": re.compile(r"</style\s*>", re.I)}
# `[!type]`, `[!type]-` or `[!type]+` opening a quote's first line (Obsidian's callouts)
CALLOUT = re.compile(r"\[!([A-Za-z][\w-]{0,30})\]([+-]?)[ \t]*")
TRAILING_ID = re.compile(r"\{#[^{}]*\}\s*$")  # `## Title {#custom-id}`
CUSTOM_ID = re.compile(r"\{#([^{}\s]+)\}")
# `## Leak limits ^limits`: an Obsidian block id, which Obsidian does not show
BLOCK_ID = re.compile(r"\s\^[A-Za-z0-9-]+\s*$")
NOT_IN_SLUG = re.compile(r"[^\w\- ]")
_TEXT_TOKENS = frozenset({"text", "text_special", "code_inline", "image", *INLINE_MATH})

Env = MutableMapping[str, Any]


class _Markdown(MarkdownIt):
    """markdown-it with our link policy: destinations as written, `file:` links kept."""

    def validateLink(self, url: str) -> bool:  # noqa: N802 - markdown-it's name
        return link_allowed(url)

    def normalizeLink(self, url: str) -> str:  # noqa: N802 - markdown-it's name
        return url


@lru_cache(maxsize=1)
def markdown() -> MarkdownIt:
    """The one parser instance (see the module docstring for its configuration)."""
    md = _Markdown("commonmark", {"html": True, "store_labels": True}).enable("table")
    md.use(dollarmath_plugin, **DOLLARMATH)
    md.inline.ruler.at("math_inline", _noting_span(_math_inline_outside_code(math_inline_dollar(
        allow_space=DOLLARMATH["allow_space"], allow_digits=DOLLARMATH["allow_digits"],
        allow_double=DOLLARMATH["double_inline"]))))
    # a `$$` block, like a code fence, may follow a line of text directly ("公式如下：" and
    # then `$$` on the next line, as Typora and Obsidian show it): a display formula
    md.block.ruler.at("math_block", _probe_quietly(next(r.fn for r in md.block.ruler.__rules__
                                                        if r.name == "math_block")),
                      {"alt": ["paragraph", "reference", "blockquote", "list"]})
    md.block.ruler.at("reference", _definition_unless_footnote)
    md.inline.ruler.at("backticks", _code_span_counting_lines)
    md.inline.ruler.at("html_inline", _noting_span(html_inline))
    md.inline.ruler.after("html_inline", "picture_tag", _noting_span(picture_tag))
    md.inline.ruler.at("entity", _noting_span(entity))
    md.core.ruler.before("text_join", "entity_spans", _entity_spans)
    md.use(tasklists_plugin)
    # footnotes as Typora, Obsidian and GitHub read them: `[^1]` is a `footnote_ref` token
    # (no text of a heading or cell), a definition `[^1]: …` (its continuation lines
    # indented four spaces included) is a `footnote_reference_open` … `_close` container
    # left where it was written (not moved to the end); an inline note `^[依据 GB 4285]` is
    # its text in place, between `inline_note_open` and `_close` tokens (`_inline_note`)
    md.use(footnote_plugin, inline=False, move_to_end=False)
    md.inline.ruler.at("footnote_ref", _noting_unresolved(_noting_span(next(
        r.fn for r in md.inline.ruler.__rules__ if r.name == "footnote_ref"))))
    md.inline.ruler.after("footnote_ref", "inline_note", _inline_note)
    md.use(highlight_plugin, SPAN)
    md.use(comments_plugin, _noting_span)  # Obsidian's `%% comments %%`: no text
    md.core.ruler.before("text_join", "obsidian_tags", read_inline_tags)  # `#病害` in text
    md.block.tokenize = _noting_skipped_depth(md.block.tokenize)  # type: ignore[method-assign,assignment]
    return md


MAX_NESTING = 20  # markdown-it's commonmark maxNesting: lists and quotes nest this deep
TOO_DEEP = "too_deep"  # env key: the 0-based body line of the first block nested deeper


def _noting_skipped_depth(tokenize: Callable[[StateBlock, int, int], None]
                          ) -> Callable[[StateBlock, int, int], None]:
    """markdown-it's block tokenizer; where it silently drops the lines of a list or quote
    nested deeper than its maxNesting, the first such line is noted in ``env[TOO_DEEP]``
    (for `kb check`), since no reader of the tokens would show them."""
    def run(state: StateBlock, start: int, end: int) -> None:
        if state.level >= state.md.options.maxNesting and TOO_DEEP not in state.env:
            line = state.skipEmptyLines(start)
            if line < end and state.sCount[line] >= state.blkIndent:
                state.env[TOO_DEEP] = line
        tokenize(state, start, end)
    return run


def _code_span_counting_lines(state: StateInline, silent: bool) -> bool:
    """markdown-it's code span rule; a code span written over several lines records how
    many line breaks it holds in `meta["newlines"]` (its content has them as spaces), so
    readers counting lines through an inline run stay on the line written; and where it
    is written (`token_span`: a `[[…]]` inside it is no wikilink, `wikitext`)."""
    start, count = state.pos, len(state.tokens)
    if state.src[start] != "`" or not backtick(state, silent):  # (the rule's own first test)
        return False
    if not silent and len(state.tokens) > count and state.tokens[-1].type == "code_inline":
        state.tokens[-1].meta["newlines"] = state.src.count("\n", start, state.pos)
        state.tokens[-1].meta[SPAN] = (start, state.pos)
    return True


def _noting_span(rule: Callable[[StateInline, bool], bool]) -> Callable[[StateInline, bool], bool]:
    """An inline rule whose token records where it was written in its run's content
    (`token_span`): what readers leave out of the source (`kbtools.markdown.hidden`)."""
    def run(state: StateInline, silent: bool) -> bool:
        start, count = state.pos, len(state.tokens)
        if not rule(state, silent):
            return False
        if not silent and len(state.tokens) > count:
            state.tokens[-1].meta[SPAN] = (start, state.pos)
        return True
    return run


# what a reader sees of an inline note's `^[` and `]`: the page shows the note in place,
# small, between parentheses (`kbtools.serve.editors.footnotes`)
NOTE_MARKS = {"inline_note_open": "(", "inline_note_close": ")"}


def _inline_note(state: StateInline, silent: bool) -> bool:
    """An inline footnote `^[note]` (Obsidian, Pandoc; `note` not empty) as
    ``inline_note_open``, the note's own inline tokens and ``inline_note_close``, the two
    marks with their `token_span` (`^[`, `]`): the note is read where it is written."""
    start = state.pos
    if not state.src.startswith("^[", start):
        return False
    end = state.md.helpers.parseLinkLabel(state, start + 1)
    if end <= start + 2:
        return False
    if not silent:
        state.push("inline_note_open", "small", 1).meta[SPAN] = (start, start + 2)
        limit = state.posMax
        state.pos, state.posMax = start + 2, end
        state.md.inline.tokenize(state)
        state.posMax = limit
        state.push("inline_note_close", "small", -1).meta[SPAN] = (end, end + 1)
    state.pos = end + 1
    return True


# env key: (label, start in the run's content) of each `[^label]` no definition `[^label]:`
# resolves: it stays text, as every viewer shows it
UNRESOLVED_NOTES = "unresolved_footnotes"


def _noting_unresolved(rule: Callable[[StateInline, bool], bool]
                       ) -> Callable[[StateInline, bool], bool]:
    """The footnote reference rule; where it leaves `[^label]` as text only because no
    definition has that label (the plugin's own reading with `always_match`), the label and
    where it starts are noted in ``env[UNRESOLVED_NOTES]`` (for `kb check`)."""
    def run(state: StateInline, silent: bool) -> bool:
        if rule(state, silent):
            return True
        start = state.pos
        if not silent and state.src.startswith("[^", start) \
                and footnote_ref(state, True, always_match=True):
            label = state.src[start + 2:state.pos - 1]
            state.pos = start
            noted = state.env.setdefault(UNRESOLVED_NOTES, [])
            if (label, start) not in noted[-1:]:
                noted.append((label, start))
        return False
    return run


ENTITIES = "entities"  # meta key of an inline run: ((start, end, character), ...) of its entities


def _entity_spans(state: StateCore) -> None:
    """Each inline run's HTML entities (`&nbsp;`, `&lt;`, `&#8482;`: what a reader sees is
    the character) as (start, end, character) in its content, in `meta[ENTITIES]`, read
    before `text_join` merges their tokens into the text around them."""
    for tok in state.tokens:
        if tok.type != "inline" or not tok.children:
            continue
        found = [(*span, child.content) for child in tok.children
                 if child.type == "text_special" and child.info == "entity"
                 and (span := token_span(child))]
        if found:
            tok.meta[ENTITIES] = tuple(found)


def entity_spans(tok: Token) -> tuple[tuple[int, int, str], ...]:
    """(start, end, character) of each HTML entity written in an inline run's text."""
    return tuple(tok.meta.get(ENTITIES, ())) if tok.meta else ()


def block_id_at(text: str) -> int:
    """Where a trailing Obsidian block id (`^` and letters, digits or `-`) starts in the text
    ending a paragraph or heading: after a space, or on a line of its own (the block's last
    line: `…\n^id`, as Obsidian reads an id written right below a callout, list or
    paragraph), or at 0 when it is all the text; -1 when the text ends otherwise."""
    stripped = text.rstrip()
    at = stripped.rfind("^")
    ident = stripped[at + 1:]
    if at < 0 or not ident or not all(c.isascii() and (c.isalnum() or c == "-") for c in ident):
        return -1
    return at if at == 0 or stripped[at - 1] in " \t\n" else -1


def token_span(tok: Token) -> tuple[int, int] | None:
    """(start, end) of an inline token in its run's content, when the parser noted it."""
    span = tok.meta.get(SPAN) if tok.meta else None
    return (int(span[0]), int(span[1])) if span else None


def token_newlines(tok: Token) -> int:
    """Line breaks written inside one inline token (a code span, inline math, an HTML tag,
    an image's alt text or title): the lines a reader moves on past it."""
    if tok.type == "code_inline":
        return int(tok.meta.get("newlines", 0)) if tok.meta else 0
    if tok.type in INLINE_MATH or tok.type in ("html_inline", COMMENT):
        return tok.content.count("\n")
    if tok.type == "image":
        breaks = sum(c.type in ("softbreak", "hardbreak") for c in tok.children or ())
        return breaks + str(tok.attrGet("title") or "").count("\n")
    return 0


def _probe_quietly(rule: Any) -> Any:
    """A block rule that pushes its token even when only asked whether it would match
    (`silent`, as a paragraph asks each line), made to leave the state as it found it."""

    def probe(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        at = state.bMarks[start] + state.tShift[start]
        if not state.src.startswith("$$", at, state.eMarks[start]):
            return False  # the rule's own first test, asked of every line of every paragraph
        if not silent:
            return bool(rule(state, start, end, silent))
        count, line = len(state.tokens), state.line
        found = bool(rule(state, start, end, silent))
        del state.tokens[count:]
        state.line = line
        return found

    return probe


def _definition_unless_footnote(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """A link reference definition, but never a footnote's (`[^1]: 见 GB 4285。`, as Typora,
    Obsidian and GitHub write them): that line stays text, and `[^1]` is no link to a file
    named after the footnote's text."""
    pos = state.bMarks[start] + state.tShift[start]
    if state.src.startswith("[^", pos):
        return False
    return bool(link_definition(state, start, end, silent))


def _math_inline_outside_code(rule: Any) -> Any:
    """The dollar-math inline rule, refusing a formula whose closing `$` lies inside a code
    span: in `costs $10; set `$HOME`` the code span wins (as CommonMark gives code spans
    precedence) and `$10` stays text. Refused: math holding an unescaped backtick run that a
    later run of the same length closes."""

    def math_inline(state: StateInline, silent: bool) -> bool:
        start = state.pos
        if state.src[start] != "$" or not rule(state, True):  # (the rule's own first test)
            return False
        end, state.pos = state.pos, start
        if _opens_code_span(state, start + 1, end - 1):
            return False
        return bool(rule(state, silent))

    return math_inline


def _opens_code_span(state: StateInline, start: int, end: int) -> bool:
    """Whether an unescaped backtick run in `state.src[start:end]` opens a code span (an
    equally long run follows it). Linear: the last run of each length is found once per
    inline source, as markdown-it's own backtick rule caches it."""
    src = state.src
    pos = src.find("`", start, end)
    while pos != -1:
        run_end = pos + 1
        while run_end < len(src) and src[run_end] == "`":
            run_end += 1
        slashes = pos - start - len(src[start:pos].rstrip("\\"))
        if slashes % 2 == 0 and _last_backtick_runs(state).get(run_end - pos, -1) >= run_end:
            return True
        pos = src.find("`", run_end, end)
    return False


def _last_backtick_runs(state: StateInline) -> dict[int, int]:
    """Length of each backtick run of the source -> where its last run starts: the cache
    markdown-it's backtick rule keeps on the state (`backticks`), filled the same way."""
    if not state.backticksScanned:
        runs, pos, src = {}, 0, state.src
        while (at := src.find("`", pos)) != -1:
            pos = at + 1
            while pos < len(src) and src[pos] == "`":
                pos += 1
            runs[pos - at] = at
        state.backticks, state.backticksScanned = runs, True
    return state.backticks


def link_allowed(url: str) -> bool:
    """markdown-it's filter of unsafe link schemes, except that `file:` links are kept."""
    return url.strip().lower().startswith("file:") or validateLink(url)


def normalize_href(url: str) -> str:
    """A destination as markdown-it renders it: percent-encoded, hosts in punycode."""
    return normalizeLink(url)


def source_text(body: str) -> str:
    """The text every parse reads: a `\\r` becomes a space, so the parser's line numbers
    are the lines of `body.split("\\n")` (CRLF and CR-only files alike)."""
    return body.replace("\r", " ") if "\r" in body else body


def parse_tokens(body: str, env: Env | None = None) -> list[Token]:
    """Every token of `body`: block tokens, inline tokens with their children."""
    return markdown().parse(source_text(body), {} if env is None else env)


def parse_blocks(body: str, env: Env) -> list[Token]:
    """The block tokens of `body`, as `parse_tokens` has them, but inline tokens come without
    children: inline parsing is the slow part, so a caller that needs few of them fills them
    with `parse_inline`. `env` collects the reference definitions."""
    md = markdown()
    state = StateCore(source_text(body), md, env)
    normalize(state)
    block(state)
    return state.tokens


def parse_inline(content: str, env: Env) -> list[Token]:
    """The inline tokens of one block's content. As in `parse_tokens`, except that escapes
    stay separate `text_special` tokens and task-list boxes are not marked."""
    md = markdown()
    out: list[Token] = []
    md.inline.parse(content, md, env, out)
    return out


def fence_language(info: str) -> str:
    """The language of a fence's info string: "```{Math} x" -> "math"."""
    info = info.strip()
    return info.split()[0].strip("{}.").lower() if info else ""


def is_math_fence(tok: Token) -> bool:
    return tok.type == "fence" and fence_language(tok.info) in MATH_FENCES


def token_text(tok: Token, *, anchor: bool = False, said: bool = False) -> str:
    """The text an inline token contributes to its run (image: its alt text as written; an
    `<img>` tag: its `alt`, except in the text an `anchor` is made of, `anchor_text`; a
    formula its LaTeX, or when `said` (a heading's text) the formula as it reads, `E=mc²`)."""
    if said and tok.type in INLINE_MATH:
        return formula_words(tok.content)
    if tok.type in _TEXT_TOKENS:
        return tok.content
    if tok.type in ("softbreak", "hardbreak"):
        return " "
    if tok.type in NOTE_MARKS:
        return NOTE_MARKS[tok.type]
    if tok.type == "html_inline" and BR.match(tok.content):
        return " "
    if tok.type == "html_inline" and not anchor and (imgs := img_attributes(tok.content)):
        return imgs[0].get("alt", "")  # Typora's resized picture: its alt, as an image's
    return ""


def img_attributes(html: str) -> list[dict[str, str]]:
    """The attributes of each `<img>` tag of `html` with a `src`, by lower-case name, their
    character references decoded (as `kb check` reads them: `alt="A &amp; B"` is `A & B`)."""
    return [attrs for _, attrs in img_tags(html)]


def img_tags(html: str) -> list[tuple[int, dict[str, str]]]:
    """`img_attributes` with the offset in `html` where each tag starts: an HTML block of
    several pictures (Typora's `<p align="center">` around one `<img>` a line) dates each
    picture to its own line, not all to the block's first."""
    if "<" not in html:
        return []
    return [(tag.start, tag.attrs) for tag in start_tags(html, IMG) if tag.attrs.get("src")]


def plain(text: str) -> str:
    """Whitespace collapsed and invisible characters (`INVISIBLE`) left out: the text of a
    run whose inline HTML `token_text` already left out.

    Never strips anything that looks like a tag: the text is decoded text and code (a cell's
    `气温<10℃或>30℃`, a code span's `Vec<T>`); markdown-it's `html_inline` tokens are the tags."""
    return " ".join(INVISIBLE.sub("", text).split())


def raw_element_end(tok: Token) -> re.Pattern[str] | None:
    """The end tag of the `<script>`/`<style>` element an inline tag opens (its contents,
    up to that tag, are no text of the run); None for every other token."""
    m = RAW_OPEN.fullmatch(tok.content) if tok.type == "html_inline" else None
    return RAW_CLOSE[m.group(1).lower()] if m else None


def callout_marker(content: str) -> tuple[int, str] | None:
    """Obsidian's callout marker (`[!warning]`, foldable `[!note]-`, and the spaces after it)
    opening the `content` of a quote's first paragraph: (where it ends, what a reader sees
    in its place: nothing when its line goes on with a title, else the type's name as
    written, `NOTE` of `[!NOTE]`, the title the page gives the box, `Note`, in the letters
    of the file, so cited lines hold what a chunk reads: `kbtools.serve.editors.callouts`);
    None when there is none."""
    m = CALLOUT.match(content)
    if m is None:
        return None
    titled = content[m.end():].split("\n", 1)[0].strip()
    return m.end(), "" if titled else m.group(1)


def is_toc_marker(content: str) -> bool:
    """Is a paragraph's `content` Typora's `[TOC]` (any case): a table of contents where it
    is shown, no text of the document."""
    return content.strip().upper() == "[TOC]"


def inline_text(children: Iterable[Token], *, anchor: bool = False, said: bool = False) -> str:
    """The plain text of an inline run: a heading's or a table cell's text (inline HTML tags
    and the contents of `<script>`/`<style>` elements left out, `<br>` a space, an `<img>`
    tag its `alt` unless `anchor`; `<` and `>` of text and code spans kept; a formula as it
    reads when `said`: a heading's text)."""
    out: list[str] = []
    closing: re.Pattern[str] | None = None  # the end tag of the element being left out
    for tok in children:
        if closing is not None:
            if tok.type == "html_inline" and closing.fullmatch(tok.content):
                closing = None
            continue
        if (closing := raw_element_end(tok)) is None:
            out.append(token_text(tok, anchor=anchor, said=said))
    return plain("".join(out))


def anchor_text(raw: str, children: list[Token]) -> str | None:
    """The text a heading's `#anchor` is made of, when it is not the heading's text (None):
    an `<img>` tag's `alt` is text of the heading (its heading path, what a chunk and a
    screen reader read, as a Markdown image's alt text is) but no part of its anchor, as
    GitHub makes an anchor of a heading's text without its HTML tags (Typora resizes a
    picture as an `<img>` tag: its anchor stays the one written before it was resized). A
    formula is its LaTeX in the anchor (`## $E=mc^2$` is `#emc2`, as before headings named
    formulas as they read). `raw` is the heading's run as written, `children` its inline
    tokens."""
    if "<" not in raw and "$" not in raw:
        return None
    text = inline_text(children, anchor=True)
    return None if text == inline_text(children, said=True) else heading_text(raw, text)


def _trailing_id(text: str) -> re.Match[str] | None:
    """The `{#…}` ending a heading's text, before any Obsidian block id."""
    m = BLOCK_ID.search(text)
    return TRAILING_ID.search(text, 0, m.start() if m else len(text))


def escaped_id(raw: str) -> bool:
    """Whether the `{#…}` ending a heading's source (`raw`, its inline run as written) is
    written escaped (`## 语法 \\{#x}`): text every reader shows, no custom id."""
    m = _trailing_id(raw)
    slashes = len(raw[:m.start()]) - len(raw[:m.start()].rstrip("\\")) if m else 0
    return slashes % 2 == 1


NOT_AN_ID = "\u2063"  # between `{` and `#`: an escaped `{#…}` (an invisible character: no text)


def heading_text(raw: str, text: str) -> str:
    """A heading's `text` (its run `raw` read by `inline_text`) as `heading_title` and
    `custom_ids` read it: a trailing `{#…}` written escaped (`\\{#x}`) is marked, so it stays
    text (its title shows `{#x}`) and names no anchor. Text never holds the mark otherwise:
    `plain` drops every invisible character."""
    if not escaped_id(raw) or not (m := _trailing_id(text)):
        return text
    return f"{text[:m.start() + 1]}{NOT_AN_ID}{text[m.start() + 1:]}"


def heading_title(text: str) -> str:
    """A heading's text without a trailing Obsidian block id (`^limits`) and `{#custom-id}`
    ("" when nothing else is left): the title its heading path and anchor are made of. A
    `{#…}` marked escaped by `heading_text` is text."""
    m = BLOCK_ID.search(text)
    text = text[:m.start()] if m else text
    m = TRAILING_ID.search(text)
    return (text[:m.start()] if m else text).replace(NOT_AN_ID, "").strip()


def custom_ids(text: str) -> list[str]:
    """The `{#custom-id}` anchors written in a heading's text."""
    return CUSTOM_ID.findall(text)


def slugify(text: str) -> str:
    """A heading's anchor: lower-case, punctuation and symbols dropped (letters of every
    script, digits, `_` and `-` kept; combining marks dropped), each space a '-'."""
    return NOT_IN_SLUG.sub("", text.strip().lower()).replace(" ", "-")


def github_slugs(headings: Iterable[str]) -> list[str]:
    """Slugs with GitHub's de-duplication (foo, foo-1, foo-2 ...)."""
    seen: dict[str, int] = {}
    out = []
    for text in headings:
        base = slug = slugify(text)
        while slug in seen:
            seen[base] += 1
            slug = f"{base}-{seen[base]}"
        seen[slug] = 0
        out.append(slug)
    return out
