"""Links and images written with a space in their path (`![泵](../../assets/images/泵 外观.png)`):
Typora shows them, while CommonMark, GitHub, Obsidian and kbtools read text (a destination
holds no space unless written `<…>` or percent-encoded), so the picture is never checked or
shipped and the link never followed. `spaced_links` finds them in an inline run's text, for
`kb check`'s warning `link-space` (`kbtools.check.content`)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Sequence

from markdown_it.token import Token

# `[text](dest)` or `![alt](dest)` left as text (linear: neither part holds its closer or
# the next opener, so no attempt reads past the next `[` or `(`)
_SPACED = re.compile(r"(!?)\[[^\[\]\n]*\]\((?P<dest>[^()<>\n]*)\)")
# what a document links or shows: a note, a picture, a PDF (a space in prose is no path)
LINKED = frozenset({".md", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".avif", ".svg", ".pdf",
                    ".bmp", ".tif", ".tiff", ".heic"})


def spaced_links(children: Sequence[Token], locate: Callable[[str], tuple[int, int]]
                 ) -> list[tuple[int, int, str, str]]:
    """(line, col, as written, path) of each link or image in the text tokens of `children`
    outside a link, whose path holds a space; `locate(text)` gives where `text` is written,
    after what it located before (a code span is passed over: the same text shown in one,
    `` `![a](b c.png)` ``, is no finding, and `--fix` must not rewrite it)."""
    out = []
    depth = 0
    for child in children:
        depth += (child.type == "link_open") - (child.type == "link_close")
        if child.type == "code_inline" and "](" in child.content:
            locate(child.content)
        if child.type != "text" or depth or "](" not in child.content:
            continue
        for m in _SPACED.finditer(child.content):
            dest = m.group("dest")
            path = _without_title(dest).strip()
            if (" " in path or "\t" in path) \
                    and posixpath.splitext(path.split("#")[0])[1].lower() in LINKED:
                line, col = locate(m.group(0))
                out.append((line, col, m.group(0), path))
    return out


def _without_title(dest: str) -> str:
    """`dest` less a title written after its path (`x.png "外观"`, `x.png '外观'`)."""
    text = dest.rstrip()
    if len(text) > 1 and text[-1] in "\"'":
        at = text.rfind(text[-1], 0, len(text) - 1)
        if at > 0 and text[at - 1] in " \t":
            return text[:at]
    return dest
