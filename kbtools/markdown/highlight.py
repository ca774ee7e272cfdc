"""`==highlighted text==`, as Obsidian and Typora write it: `mark_open`/`mark_close` tokens.

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
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline.state_inline import Delimiter, StateInline

MARKER = "="


def _tokenize(state: StateInline, silent: bool, span_key: str) -> bool:
    """Each `==` of a run of `=` as a text token and a delimiter (an odd run's first `=` is
    text only); each `==` notes where it is written in its `meta[span_key]`."""
    if silent or state.src[state.pos] != MARKER:
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    # `numpy==1.21, pandas==1.3`: no `==` between a Latin letter or digit and another (those
    # are version pins and comparisons); next to CJK text (`这是==重点==内容`) they mark
    after = state.pos + length
    can_open = scanned.can_open and not _latin(state.src, state.pos - 1)
    can_close = scanned.can_close and not _latin(state.src, after)
    at = state.pos
    if length % 2:
        state.push("text", "", 0).content = MARKER
        length -= 1
        at += 1
    for _ in range(length // 2):
        tok = state.push("text", "", 0)
        tok.content, tok.meta[span_key] = MARKER * 2, (at, at + 2)
        at += 2
        state.delimiters.append(Delimiter(marker=ord(MARKER), length=0,
                                          token=len(state.tokens) - 1, end=-1,
                                          open=can_open, close=can_close))
    state.pos += scanned.length
    return True


def _latin(src: str, at: int) -> bool:
    """Whether `src[at]` is an ASCII letter or digit (False outside the text)."""
    return 0 <= at < len(src) and src[at].isascii() and src[at].isalnum()


def _pair(state: StateInline, delimiters: list[Delimiter]) -> None:
    """The delimiters `balance_pairs` matched as `mark_open`/`mark_close`; a lone `=` left
    before a closer moves after the closers, as in markdown-it's strikethrough."""
    lone: list[int] = []
    for start in delimiters:
        if start.marker != ord(MARKER) or start.end == -1:
            continue
        end = delimiters[start.end]
        opener, closer = state.tokens[start.token], state.tokens[end.token]
        opener.type, opener.nesting = "mark_open", 1
        closer.type, closer.nesting = "mark_close", -1
        for tok in (opener, closer):
            tok.tag, tok.markup, tok.content = "mark", MARKER * 2, ""
        before = state.tokens[end.token - 1]
        if before.type == "text" and before.content == MARKER:
            lone.append(end.token - 1)
    while lone:
        i = lone.pop()
        j = i + 1
        while j < len(state.tokens) and state.tokens[j].type == "mark_close":
            j += 1
        j -= 1
        if i != j:
            state.tokens[i], state.tokens[j] = state.tokens[j], state.tokens[i]


def _post_process(state: StateInline) -> None:
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def highlight_plugin(md: MarkdownIt, span_key: str) -> None:
    """Read `==text==` as a highlight (before emphasis, as strikethrough is); each `==`
    notes its span in its token's `meta[span_key]` (`kbtools.markdown.parser.token_span`)."""
    md.inline.ruler.before("emphasis", "mark",
                           lambda state, silent: _tokenize(state, silent, span_key))
    md.inline.ruler2.before("emphasis", "mark", _post_process)
