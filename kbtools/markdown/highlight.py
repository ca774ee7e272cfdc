"""`==highlighted text==` and `~~struck text~~`, as Obsidian and Typora write them:
`mark_open`/`mark_close` and `s_open`/`s_close` tokens.

Without this rule the markers were text: a heading, a table cell, a CSV file and a decision
table's output held them (`处置===继续运行==`). The rule is markdown-it's own strikethrough
rule with `=` for `~` (the markdown-it-mark plugin's rule, which mdit-py-plugins lacks): each
run of `=` is split into `==` delimiters that open or close by the flanking rules of emphasis,
paired by markdown-it's `balance_pairs`; a code span, math or a link destination is never
searched for them, and `a == b` (spaces on both sides) neither opens nor closes; nor does a
`==` with a Latin letter or digit on the outside (`numpy==1.21`).
Each `==` notes where it is written (`token_span`), so the marks of a highlight are left out
of chunk text and search tokens as the page leaves them (`kbtools.markdown.hidden`), its
words kept on their lines.

`~~struck~~` (GitHub's, Typora's and Obsidian's strikethrough; CommonMark has none, and
markdown-it's own rule notes no span) is read by the same rule with `~` for `=`: a heading,
a cell or a CSV file held `~~旧方法~~`, the page showed the tildes. A `~~` between Latin
letters or digits strikes as GitHub's does (no version pins are written with `~~`).
"""

from __future__ import annotations

from functools import partial

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import Delimiter, StateInline

MARKER = "="
STRIKE = "~"
_TOKENS = {MARKER: ("mark", "mark"), STRIKE: ("s", "s")}  # marker: (token type's stem, tag)


def _tokenize(state: StateInline, silent: bool, span_key: str, marker: str = MARKER) -> bool:
    """Each `==` (`~~`) of a run of `marker` as a text token and a delimiter (an odd run's
    first one is text only); each notes where it is written in its `meta[span_key]`."""
    if silent or state.src[state.pos] != marker:
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    # `numpy==1.21, pandas==1.3`: no `==` between a Latin letter or digit and another (those
    # are version pins and comparisons); next to CJK text (`这是==重点==内容`) they mark
    after = state.pos + length
    pin = marker == MARKER  # `numpy==1.21`
    can_open = scanned.can_open and not (pin and _latin(state.src, state.pos - 1))
    can_close = scanned.can_close and not (pin and _latin(state.src, after))
    at = state.pos
    if length % 2:
        state.push("text", "", 0).content = marker
        length -= 1
        at += 1
    for _ in range(length // 2):
        tok = state.push("text", "", 0)
        tok.content, tok.meta[span_key] = marker * 2, (at, at + 2)
        at += 2
        state.delimiters.append(Delimiter(marker=ord(marker), length=0,
                                          token=len(state.tokens) - 1, end=-1,
                                          open=can_open, close=can_close))
    state.pos += scanned.length
    return True


def _latin(src: str, at: int) -> bool:
    """Whether `src[at]` is an ASCII letter or digit (False outside the text)."""
    return 0 <= at < len(src) and src[at].isascii() and src[at].isalnum()


def _pair(state: StateInline, delimiters: list[Delimiter], marker: str) -> None:
    """The delimiters `balance_pairs` matched as `mark_open`/`mark_close` (`s_open`/`s_close`);
    a lone `=` left before a closer moves after the closers, as in markdown-it's
    strikethrough."""
    stem, tag = _TOKENS[marker]
    lone: list[int] = []
    for start in delimiters:
        if start.marker != ord(marker) or start.end == -1:
            continue
        end = delimiters[start.end]
        opener, closer = state.tokens[start.token], state.tokens[end.token]
        opener.type, opener.nesting = f"{stem}_open", 1
        closer.type, closer.nesting = f"{stem}_close", -1
        for tok in (opener, closer):
            tok.tag, tok.markup, tok.content = tag, marker * 2, ""
        before = state.tokens[end.token - 1]
        if before.type == "text" and before.content == marker:
            lone.append(end.token - 1)
    while lone:
        i = lone.pop()
        j = i + 1
        while j < len(state.tokens) and state.tokens[j].type == f"{stem}_close":
            j += 1
        j -= 1
        if i != j:
            state.tokens[i], state.tokens[j] = state.tokens[j], state.tokens[i]


def _post_process(state: StateInline, marker: str) -> None:
    _pair(state, state.delimiters, marker)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"], marker)


def highlight_plugin(md: MarkdownIt, span_key: str) -> None:
    """Read `==text==` as a highlight and `~~text~~` as struck (before emphasis, as
    markdown-it's strikethrough is); each `==` and `~~` notes its span in its token's
    `meta[span_key]` (`kbtools.markdown.parser.token_span`)."""
    for marker, name in ((MARKER, "mark"), (STRIKE, "strike_noted")):
        md.inline.ruler.before("emphasis", name, partial(_tokenize, span_key=span_key,
                                                         marker=marker))
        md.inline.ruler2.before("emphasis", name, partial(_post_process, marker=marker))
