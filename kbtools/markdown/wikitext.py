"""Obsidian's `[[wikilinks]]` and `![[embeds]]` in a run of Markdown's inline tokens.

markdown-it knows no wikilinks: to it `[[note|label]]` is text, and the text of one may be
cut into several tokens (an emphasis inside, an escape, an inline HTML tag). Obsidian reads
a wikilink first; the check's scan (`kbtools.markdown.frontend`) reads a run of text tokens
whole, as written, and finds them there with the helpers below.
"""

from __future__ import annotations

import re

from markdown_it.token import Token

SPAN = "span"  # meta key: (start, end) of an inline token in its run's content

# Obsidian's `[[target#heading|label]]` and `![[embed|300]]`: one line, no brackets inside
WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")
RUN = ("text", "text_special")  # the tokens of a run of text (an escape or entity: special)
# emphasis, strikethrough and highlight delimiters: Obsidian reads `[[a*b*c]]` and
# `[[note|**label**]]` as one wikilink, markdown-it as text around an emphasis; a run of text
# read for wikilinks goes on through them, each written as its markup
MARKS = frozenset(f"{kind}_{end}" for kind in ("em", "strong", "s", "mark")
                  for end in ("open", "close"))


def written_run(run: list[Token]) -> tuple[list[str], str]:
    """Each token of a run of text as written, and the run's text with what opens or closes
    no wikilink masked: an escaped or entity character, an inline HTML tag's text."""
    written = [t.markup if (t.type == "text_special" and t.markup) or t.type in MARKS
               else t.content for t in run]
    masked = "".join("\0" * len(w) if t.type in ("text_special", "html_inline") else w
                     for t, w in zip(run, written, strict=True))
    return written, masked


def wikilinks_in(masked: str, source: str) -> list[re.Match[str]]:
    """The wikilinks of a run of text (`written_run`), in order. Obsidian reads a wikilink
    before Markdown's escapes and inline HTML (`![[p.png|<a>]]` is an embed); one ending in
    a backslash (`[[a|b\\]]`, whose `\\]` Markdown reads as an escaped `]`) is found in the
    text as written, for a finding that names it (`kbtools.check.wikilinks`)."""
    if "[[" not in masked:
        return []
    found = [m for m in WIKILINK.finditer(masked) if m.group(1).strip()]
    found += [m for m in WIKILINK.finditer(source) if m.group(1).endswith("\\")
              and not any(f.start() < m.end() and m.start() < f.end() for f in found)]
    return sorted(found, key=lambda m: m.start())


def run_length(run: list[Token]) -> int:
    """How many tokens of `run` (text, emphasis marks and inline HTML) are read as one run
    of text for wikilinks: up to the first inline HTML tag no wikilink holds, which is read
    as HTML (its links, its ids)."""
    if not any(t.type == "html_inline" for t in run):
        return len(run)
    written, masked = written_run(run)
    spans = [(m.start(), m.end()) for m in wikilinks_in(masked, "".join(written))]
    offset = 0
    for n, (tok, text) in enumerate(zip(run, written, strict=True)):
        if tok.type == "html_inline" and not any(a <= offset and offset + len(text) <= b
                                                 for a, b in spans):
            return n
        offset += len(text)
    return len(run)


# what Obsidian embeds as a picture (`kbtools.check.wikilinks.EMBED_IMAGES`): kept as written
# in chunk text, as `![alt](src)` is
PICTURES = (".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".webp", ".avif")
NOT_WIKILINKS = ("code_inline", "math_inline", "math_inline_double")


def wikilink_text(raw: str) -> str | None:
    """What a reader is told of a wikilink or note embed written `raw`: its label, else its
    note and heading (`![[泵站#检修|步骤]]` → `步骤`, `[[泵站#检修#注意]]` → `泵站 > 检修 >
    注意`, a block id left out); None for a picture's embed, which stays as written."""
    embed = raw.startswith("!")
    link, _, label = raw[3 if embed else 2:-2].replace("\\|", "|").partition("|")
    target, _, heading = link.partition("#")
    if embed and target.strip().lower().endswith(PICTURES):
        return None
    label = label.strip().strip("*_=~").strip()
    if label:
        return label
    parts = [p.strip() for p in (target, *heading.split("#"))
             if p.strip() and not p.strip().startswith("^")]
    return " > ".join(parts) or None


def read_wikilinks(text: str) -> str:
    """`text`, a run of text, with each wikilink and note embed read as its text."""
    if "[[" not in text:
        return text
    return WIKILINK.sub(lambda m: (wikilink_text(m.group()) if m.group(1).strip() else None)
                        or m.group(), text)


def wikilink_spans(content: str, children: list[Token]) -> list[tuple[int, int, str]]:
    """(start, end, text) in an inline run's source `content` of each wikilink and note
    embed read as its text (`wikilink_text`), but none written in a code span or formula
    (`` `[[code]]` ``: text, as the check's scan and a page read it; where the parser noted
    no span for one holding `[[`, none at all)."""
    if "[[" not in content:
        return []
    literal: list[tuple[int, int]] = []
    for c in children:
        if c.type in NOT_WIKILINKS and "[[" in c.content:
            span = c.meta.get(SPAN) if c.meta else None  # (`parser.token_span`)
            if span is None:
                return []
            literal.append((int(span[0]), int(span[1])))
    return [(m.start(), m.end(), shown) for m in WIKILINK.finditer(content)
            if m.group(1).strip() and (shown := wikilink_text(m.group())) is not None
            and not any(a < m.end() and m.start() < b for a, b in literal)]


def cell_escaped(text: str) -> str:
    """`text` as a table cell writes it: each `|` escaped."""
    return text.replace("|", "\\|")
