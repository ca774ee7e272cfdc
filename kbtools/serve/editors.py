"""What Obsidian and Typora write that a document page shows as those editors do.

Token passes over a parsed document (`kbtools.markdown.parser.parse_tokens`), run by
`kbtools.serve.docview.render_markdown` before rendering; `SafeRenderer` renders the tokens
they make with fixed markup of its own (nothing of the author's text becomes a tag):

- a task list item's box (``- [ ]``, ``- [x]``): the task-list plugin writes it as an HTML
  ``<input>`` tag, which would be escaped like an author's; it becomes a ``task_box`` token;
- an Obsidian callout (``> [!warning] 断电挂牌``, foldable ``> [!note]-``): the quote gets the
  classes ``callout callout-<type>`` (a type Obsidian knows, else ``callout`` alone) and its
  first line, without the ``[!type]`` marker, is the callout's title between
  ``callout_title_open`` and ``callout_title_close`` tokens (the type's name when the line
  has no title); a foldable one is shown open, as a device should show everything;
- an Obsidian block id (``… 5 滴。 ^leak-rule`` ending a paragraph or list item, or ``^id``
  on a line of its own after a table or list) is left out, as Obsidian shows the page;
- a footnote (``滴[^1]``, ``[^1]: 依据 GB 4285。`` with its paragraphs indented four spaces):
  the reference is a superscript of its label, the definition a ``footnote`` box whose first
  paragraph opens with that superscript (where it was written: pages show it in place);
- a heading's ``{#custom-id}`` (``## 阈值 {#limits}``) is left out of its text, as Pandoc and
  Typora show it; the heading gets a ``heading_anchor`` token for each id it names, so
  ``#limits`` and its title's ``#阈值`` both reach it, as `kb check` accepts both;
- Typora's ``[TOC]`` (a paragraph of its own): a list of links to the headings of what is
  rendered, instead of the text ``[TOC]``.
"""

from __future__ import annotations

from markdown_it.token import Token

from kbtools.markdown.parser import (
    CALLOUT,
    TRAILING_ID,
    block_id_at,
    custom_ids,
    escaped_id,
    heading_text,
    inline_text,
    is_toc_marker,
)

# Obsidian's callout types and their aliases, by the type whose look they share
CALLOUT_TYPES = {
    "note": "note", "abstract": "abstract", "summary": "abstract", "tldr": "abstract",
    "info": "info", "todo": "todo", "tip": "tip", "hint": "tip", "important": "tip",
    "success": "success", "check": "success", "done": "success", "question": "question",
    "help": "question", "faq": "question", "warning": "warning", "caution": "warning",
    "attention": "warning", "failure": "failure", "fail": "failure", "missing": "failure",
    "danger": "danger", "error": "danger", "bug": "bug", "example": "example",
    "quote": "quote", "cite": "quote",
}


def task_boxes(tokens: list[Token]) -> None:
    """The task-list plugin's box of each task item (an ``html_inline`` `<input>` opening
    the item's first paragraph) as a ``task_box`` token, checked or not."""
    for i, tok in enumerate(tokens[:-2]):
        if tok.type != "list_item_open" or "task-list-item" not in str(tok.attrGet("class")):
            continue
        children = tokens[i + 2].children or []
        if children and children[0].type == "html_inline":
            box = Token("task_box", "input", 0)
            box.meta["checked"] = 'checked="checked"' in children[0].content
            children[0] = box


def callouts(tokens: list[Token]) -> None:
    """Each quote opening with `[!type]` as a callout (see the module docstring)."""
    for i, tok in enumerate(tokens[:-2]):
        if tok.type != "blockquote_open" or tokens[i + 1].type != "paragraph_open":
            continue
        children = tokens[i + 2].children
        if not children or children[0].type != "text":
            continue
        m = CALLOUT.match(children[0].content)
        if m is None:
            continue
        kind = CALLOUT_TYPES.get(m.group(1).lower())
        tok.attrSet("class", f"callout callout-{kind}" if kind else "callout")
        first = children[0]
        first.content = first.content[m.end():]
        end = next((j for j, c in enumerate(children) if c.type in ("softbreak", "hardbreak")),
                   len(children))
        if not any(c.content.strip() or c.type != "text" for c in children[:end]):
            first.content = m.group(1).capitalize()
        children.insert(end, Token("callout_title_close", "span", -1))
        children.insert(0, Token("callout_title_open", "span", 1))


def table_of_contents(tokens: list[Token]) -> list[Token]:
    """Each `[TOC]` paragraph as a list of links to the headings (run after the headings got
    their anchors as ``id``: a heading without one is left out)."""
    heads = [(tok.tag, inline_text(tokens[i + 1].children or [], said=True),
              str(tok.attrGet("id")))
             for i, tok in enumerate(tokens[:-1])
             if tok.type == "heading_open" and tok.attrGet("id")]
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if (tok.type == "paragraph_open" and i + 2 < len(tokens)
                and is_toc_marker(tokens[i + 1].content)):
            out += _toc_list(heads, tok.map, tok.level)
            i += 3
            continue
        out.append(tok)
        i += 1
    return out


def _toc_list(heads: list[tuple[str, str, str]], span: list[int] | None,
              level: int) -> list[Token]:
    if not heads:
        return []
    ul = Token("bullet_list_open", "ul", 1, map=span, level=level, block=True)
    ul.attrSet("class", "toc")
    out = [ul]
    for tag, text, anchor in heads:
        item = Token("list_item_open", "li", 1, level=level + 1, block=True)
        item.attrSet("class", f"toc-{tag}")
        link = Token("link_open", "a", 1, attrs={"href": f"#{anchor}"})
        out += [item, Token("paragraph_open", "p", 1, hidden=True),
                Token("inline", "", 0, children=[link, Token("text", "", 0, content=text),
                                                 Token("link_close", "a", -1)]),
                Token("paragraph_close", "p", -1, hidden=True),
                Token("list_item_close", "li", -1, block=True)]
    return [*out, Token("bullet_list_close", "ul", -1, block=True)]


def block_ids(tokens: list[Token]) -> None:
    """The Obsidian block id ending each paragraph or heading (`` ^id``, or `^id` on the
    paragraph's last line of its own: written right below a callout, list or paragraph)
    left out (so a heading's anchor is its title's, as `kb check` reads it), the block's
    anchor `^id` instead (what a block reference `[[note#^id]]` links to on the page: a
    ``heading_anchor`` at the start of its text, or the `id` of the list, table or callout a
    paragraph of the id alone stands below); a paragraph that is one is not shown. Table
    cells keep theirs (`| 2 ^3 |` is a cell's text)."""
    for i, tok in enumerate(tokens[1:-1], 1):
        children = tok.children if tok.type == "inline" else None
        opener = tokens[i - 1].type
        if not children or children[-1].type != "text" or \
                opener not in ("paragraph_open", "heading_open"):
            continue
        last = children[-1]
        at = block_id_at(last.content)
        ident = last.content.rstrip()[at:] if at >= 0 else ""
        below = at == 0 and len(children) > 1 and children[-2].type == "softbreak"
        if below and opener == "paragraph_open":  # `…\n^id`: the block's line below it
            del children[-2:]
            children.insert(0, _anchor(ident))
            continue
        if at == 0 and (len(children) > 1 or opener == "heading_open"):
            at = -1  # `**x**^id` is no block id: it needs a space before it
        if at > 0:
            last.content = last.content[:at].rstrip()
            children.insert(0, _anchor(ident))
        elif at == 0:
            last.content = ""
            tokens[i - 1].hidden = tokens[i + 1].hidden = True
            above = _opener_above(tokens, i - 1)
            if above is not None and not above.attrGet("id"):
                above.attrSet("id", ident)


def _anchor(ident: str) -> Token:
    mark = Token("heading_anchor", "", 0)
    mark.meta["id"] = ident
    return mark


def _opener_above(tokens: list[Token], at: int) -> Token | None:
    """The opening token of the block that ends right before `tokens[at]` (a sibling)."""
    if at == 0 or tokens[at - 1].nesting != -1:
        return None
    close = tokens[at - 1]
    for tok in reversed(tokens[:at - 1]):
        if tok.level == close.level and tok.nesting == 1:
            return tok if tok.type == close.type.replace("_close", "_open") else None
    return None


def custom_anchors(tokens: list[Token]) -> None:
    """A heading's trailing ``{#custom-id}`` left out of its text (run after `block_ids`: the
    title `kb check` slugs is what remains), each id it names a ``heading_anchor`` token."""
    for i, tok in enumerate(tokens[1:-1], 1):
        children = tok.children if tok.type == "inline" else None
        if not children or tokens[i - 1].type != "heading_open":
            continue
        ids = custom_ids(heading_text(tok.content, inline_text(children)))
        last = children[-1]
        if last.type == "text" and not escaped_id(tok.content) and \
                (m := TRAILING_ID.search(last.content)):
            last.content = last.content[:m.start()].rstrip()
        for anchor in ids:
            mark = Token("heading_anchor", "", 0)
            mark.meta["id"] = anchor
            children.append(mark)


def footnotes(tokens: list[Token]) -> None:
    """Footnote references as superscripts of their label, definitions as `footnote` boxes
    opening with it (the tokens become plain tags, which `SafeRenderer` writes escaped)."""
    label = ""
    for i, tok in enumerate(tokens):
        if tok.type in ("footnote_reference_open", "footnote_reference_close"):
            tok.tag, tok.block = "div", True
            if tok.nesting == 1:
                tok.attrSet("class", "footnote")
                label = str(tok.meta.get("label", ""))
        elif tok.type == "inline" and tok.children:
            tok.children = [new for child in tok.children for new in (
                _superscript(str(child.meta.get("label", ""))) if child.type == "footnote_ref"
                else [child])]
            if label and i and tokens[i - 1].type == "paragraph_open":
                tok.children[:0] = [*_superscript(label), Token("text", "", 0, content=" ")]
            label = ""


def _superscript(label: str) -> list[Token]:
    sup = Token("footnote_mark_open", "sup", 1)
    sup.attrSet("class", "footnote-ref")
    return [sup, Token("text", "", 0, content=label), Token("footnote_mark_close", "sup", -1)]
