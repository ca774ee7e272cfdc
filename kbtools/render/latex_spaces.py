"""A formula's spaces as TeX reads them: the form its SVG is named and drawn from.

In math mode TeX skips spaces, so `$a+b$`, `$a + b$` and `$a +b$` are one formula and one
picture. `normalize_latex` keeps a space only where it changes what TeX reads:

- in text (the argument of `\\text` and the other text commands, `$…$` inside `\\boxed`:
  `latex_source.pieces`) and in a `\\tag{…}` label, which is drawn as text: `\\text{if }x`;
- between two ASCII letters: after a control word it ends the word (`\\alphab` is another
  command than `\\alpha b`), and in a dimension it parts a unit (`1p t` is no `1pt`);
- before `[` or `*` and inside `[…]`, which may be an optional argument or a star, read
  as written (amsmath's `\\\\ [2pt]` is no row spacing but a row break and the text `[2pt]`,
  `\\begin{aligned} [t]` no placement);
- after a prime (`x' ^2` is a double superscript, `x'^2` one) and between two `^` (`^^` is
  TeX's character-code notation);
- a control space `\\ ` is a command of its own, never touched.

Every other run of blanks goes, so the name is the same for each spacing an author writes,
and the bytes of a release the same whichever spelling a build met first (the SVG is drawn
from, and its `<title>` holds, this form). Linear in the formula's length.
"""

from __future__ import annotations

import bisect
import re

from kbtools.render.latex_source import pieces

# a control word, a control symbol (`\\ ` and `\\\\` included), a blank, any other character
_TOKEN = re.compile(r"\\(?:[A-Za-z]+|.)|[ ]|[^ ]", re.S)
_TAG = re.compile(r"\\tag(?![A-Za-z])")


def normalize_latex(latex: str) -> str:
    """The form that is hashed and drawn: blanks collapsed to one space, then only the spaces
    TeX reads kept (see the module's doc)."""
    text = " ".join(latex.split())
    if " " not in text:
        return text
    read = list(pieces(text + "{"))  # the sentinel `{`: the mode at the formula's end
    starts = [p.start for p in read]
    labels = _tag_labels(text)
    out: list[str] = []
    brackets = 0  # `[` not yet closed by `]`: an optional argument, read as written
    for m in _TOKEN.finditer(text):
        tok = m.group()
        if tok != " ":
            brackets = max(0, brackets + (tok == "[") - (tok == "]"))
            out.append(tok)
            continue
        after = text[m.end()]  # the formula is stripped: a blank is never last
        prev = out[-1] if out else ""
        mode = read[bisect.bisect_left(starts, m.end())]  # the next piece's mode is the gap's
        letters = prev[-1:].isascii() and prev[-1:].isalpha()  # (a control word's too)
        if (mode.in_text or brackets or _within(m.start(), labels)
                or (letters and after.isascii() and after.isalpha())
                or after in "[*" or prev == "'" or (prev == "^" and after == "^")):
            out.append(tok)
    return "".join(out)


def _tag_labels(text: str) -> list[tuple[int, int]]:
    """Spans of the braces of each `\\tag{…}` / `\\tag*{…}` (its label, drawn as text)."""
    spans: list[tuple[int, int]] = []
    for m in _TAG.finditer(text):
        i = m.end()
        while i < len(text) and text[i] in " *":
            i += 1
        if i >= len(text) or text[i] != "{" or (spans and i < spans[-1][1]):
            continue
        depth, j = 0, i
        while j < len(text):
            ch = text[j]
            if ch == "\\":
                j += 2
                continue
            depth += (ch == "{") - (ch == "}")
            j += 1
            if depth == 0:
                break
        spans.append((i, j))
    return spans


def _within(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether `pos` is inside one of `spans` (sorted, disjoint)."""
    i = bisect.bisect_right(spans, (pos, len(spans) and spans[-1][1] + 1)) - 1
    return i >= 0 and spans[i][0] <= pos < spans[i][1]
