"""Obsidian's `[[wikilinks]]` and `![[embeds]]` on a page, as Obsidian shows them.

Standard Markdown reads them as text, so a page showed `![[pump.png|300]]` and
`[[泵站检修#停机 步骤|停机步骤]]` as written (a vault read with `kb build --lenient` keeps
them; `kb check` asks for standard links). `wikilink_tokens` turns each one in a run of text
into what the page's renderer shows for its standard twin (`kbtools.check.wikilinks`
`standard_link` writes the same): an embedded picture an image (at the width its `|300`
gives; the missing-picture mark when the release lacks it), a note, embedded or linked, a
link to its page at the heading it names (no page shows another note inside it), its label
or `note > heading` the link's text; a target the release holds no file for is its text.
Targets resolve as `kb check` resolves them (`relative_names`, `matching`), among the
files the release ships (`RenderContext.files_named`).
"""

from __future__ import annotations

import posixpath
from urllib.parse import quote

from markdown_it.token import Token

from kbtools.check.aliases import alias_key
from kbtools.check.wikilinks import (
    Wikilink,
    heading_slug,
    image_alt,
    image_size,
    matching,
    parse_wikilink,
    relative_names,
)
from kbtools.markdown.wikitext import (
    MARKS,
    RUN,
    run_length,
    wikilink_text,
    wikilinks_in,
    written_run,
)
from kbtools.serve.passes import RenderContext


def wikilink_tokens(tokens: list[Token], ctx: RenderContext) -> None:
    """Each wikilink in the text of `tokens`' inline runs (not inside a link) as a link or
    an image, in place. A run of text is read whole, through the emphasis marks markdown-it
    found in it (`written_run`), as Obsidian reads a wikilink before them: `[[设备*手册*]]`,
    `[[a|*别名*]]` and `**[[a]] 与 [[b**c]]` are links, and a mark whose partner a wikilink
    took is its text (`**`), as Obsidian shows it."""
    for tok in tokens:
        if tok.type == "inline" and "[[" in tok.content and tok.children:
            tok.children = _read_children(tok.children, ctx)


def _read_children(children: list[Token], ctx: RenderContext) -> list[Token]:
    partner = _mark_pairs(children)
    taken: set[int] = set()  # marks a wikilink holds
    out: list[Token] = []
    depth = at = 0  # inside a link's text: a wikilink there is its text
    while at < len(children):
        child = children[at]
        depth += (child.type == "link_open") - (child.type == "link_close")
        if child.type not in RUN or depth:
            out.append(child)
            at += 1
            continue
        end = at
        while end < len(children) and (children[end].type in RUN or children[end].type
                                       in MARKS or children[end].type == "html_inline"):
            end += 1
        end = at + run_length(children[at:end])
        out.extend(_read_run(children, at, end, taken, ctx))
        at = end
    for n in taken:  # its partner, outside the wikilink, is the text written
        other = children[partner[n]] if n in partner else None
        if other is not None and partner[n] not in taken:
            other.type, other.tag, other.nesting, other.content = "text", "", 0, other.markup
    return out


def _mark_pairs(children: list[Token]) -> dict[int, int]:
    """Each emphasis mark's partner (markdown-it nests them), both ways."""
    pairs: dict[int, int] = {}
    opened: list[int] = []
    for n, tok in enumerate(children):
        if tok.type in MARKS and tok.nesting == 1:
            opened.append(n)
        elif tok.type in MARKS and opened:
            pairs[n] = opened.pop()
            pairs[pairs[n]] = n
    return pairs


def _read_run(children: list[Token], start: int, end: int, taken: set[int],
              ctx: RenderContext) -> list[Token]:
    run = children[start:end]
    written, masked = written_run(run)
    source = "".join(written)
    spans = [m for m in wikilinks_in(masked, source) if m.group(1).strip()]
    if not spans:
        return run
    out: list[Token] = []
    offset = 0
    for n, (tok, text) in enumerate(zip(run, written, strict=True)):
        low, high = offset, offset + len(text)
        offset = high
        if tok.type != "text":  # a mark, escape or HTML: kept unless a wikilink holds it
            if any(m.start() <= low and high <= m.end() for m in spans):
                taken.add(start + n)
            else:
                out.append(tok)
            continue
        cur = low
        for m in spans:  # a wikilink starts and ends in text (`[[`, `]]`)
            if m.start() >= high or m.end() <= low:
                continue
            if m.start() > cur:
                out.append(_text(source[cur:m.start()]))
            if m.start() >= low:
                raw = source[m.start():m.end()]
                link = parse_wikilink(raw)
                out.extend(_image(link, ctx) if link.image else _link(link, raw, ctx))
            cur = max(cur, m.end())
        if cur < high:
            out.append(_text(source[cur:high]))
    return [t for t in out if t.type != "text" or t.content]


def target_file(link: Wikilink, ctx: RenderContext) -> str | None:
    """The file of the release `link` names from `ctx.doc` (None: none, or several)."""
    if not link.target:
        return ctx.doc
    relative = relative_names(link, ctx.doc)
    if relative is not None:
        return next((name for name in relative if ctx.has_asset(name)), None)
    found = matching(link, ctx.doc, (), ctx.files_named)
    if not found and not link.image:  # `[[泵手册]]`, `![[泵手册]]`: a note's alias
        # (`check.aliases`)
        found = sorted(set(ctx.aliased(alias_key(link.target))))
    if len(found) > 1:  # Obsidian's own folder first
        found = [f for f in found if posixpath.dirname(f) == posixpath.dirname(ctx.doc)]
    return found[0] if len(found) == 1 else None


def _text(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


def _image(link: Wikilink, ctx: RenderContext) -> list[Token]:
    file = target_file(link, ctx)
    alt = image_alt(link.label) or posixpath.splitext(posixpath.basename(link.target))[0]
    src = quote(posixpath.relpath(file, posixpath.dirname(ctx.doc) or ".") if file
                else link.target)
    tok = Token("image", "img", 0, attrs={"src": src, "alt": ""}, children=[_text(alt)])
    tok.content = alt
    width, height = image_size(link.label)
    tok.meta.update(width=int(width or 0), height=int(height or 0), wikilink=True)
    return [tok]


def _link(link: Wikilink, raw: str, ctx: RenderContext) -> list[Token]:
    shown = (wikilink_text(raw) or link.label  # what the index holds of it
             or " > ".join(p for p in (link.target, *link.heading.split("#")) if p))
    file = target_file(link, ctx)
    if file is None:
        return [_text(shown)]
    slug = heading_slug(link, file)
    if link.block and slug:  # the block's anchor on its page (`editors.block_ids`)
        slug = link.heading.rsplit("#", 1)[-1].strip()
    path = "" if file == ctx.doc and slug else quote(posixpath.relpath(
        file, posixpath.dirname(ctx.doc) or "."))
    opener = Token("link_open", "a", 1,
                   attrs={"href": path + (f"#{quote(slug)}" if slug else "")})
    opener.meta["wikilink"] = True
    return [opener, _text(shown), Token("link_close", "a", -1)]
