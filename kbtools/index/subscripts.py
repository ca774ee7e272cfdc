"""A LaTeX subscript's plain spellings, for the tokenizer (`kbtools.index.tokenize`) and the
words a result is shown to hold (`kbtools.query.unknown.held_as`): ``$p_{max}$`` is what a
user types as ``p_max``, ``pmax`` or ``p max``, ``\\sigma_{y}`` as ``sigma_y``; the text's own
tokens (``p``, ``max``) stay. Pure.
"""

from __future__ import annotations

import re

# A LaTeX subscript, in $…$, $$…$$ or typed so: a symbol (one letter, not inside a word, or a
# command's name, \sigma) then _ and one letter or digit, a command (\max) or a braced
# group (p_{max}, x_{a,b}, T_{\mathrm{in}}: one level of braces inside). Its plain spellings
# are tokens too (`subscript_spellings`).
SUBSCRIPT = re.compile(r"(?:(?<![a-z0-9_\\])([a-z])|\\([a-z]+))_"
                       r"(?:\{([^{}]{1,40}|[^{}]{0,20}\{[^{}]{1,30}\}[^{}]{0,20})\}"
                       r"|\\([a-z]+)|([a-z0-9])(?![a-z0-9_{]))")
# inside a braced subscript: a style command around its letters (\mathrm{max}: max) and
# the backslash of a command's name (\max: max)
_STYLE = re.compile(r"\\(?:mathrm|mathit|mathsf|mathbf|mathtt|text|textrm|textit|"
                    r"textsf|operatorname|rm|it)\b")
_PARTS = re.compile(r"[a-z0-9]+(?:,[a-z0-9]+)*")
_BRACES = str.maketrans("", "", "\\{} ")  # what is left of a braced subscript's markup


def subscript_spellings(m: re.Match[str]) -> tuple[str, ...]:
    """The plain spellings a user types of the subscripted symbol `m` (`SUBSCRIPT`):
    p_{max} as p_max, pmax and p max; \\sigma_{y} as sigma_y, sigmay and sigma y; x_{a,b}
    as x_ab, xab and x a b. None of a subscript that is no name (i=1, n+1, \\mathrm alone)."""
    base = m.group(1) or m.group(2)
    sub = m.group(3)
    if sub is None:
        sub = m.group(5) or m.group(4)
        if _STYLE.fullmatch("\\" + sub):
            return ()
    else:
        sub = _STYLE.sub("", sub).translate(_BRACES)
        if not _PARTS.fullmatch(sub):
            return ()
    parts = sub.split(",")
    joined = "".join(parts)
    return f"{base}_{joined}", f"{base}{joined}", " ".join((base, *parts))


def subscripts(text: str) -> list[str]:
    """The LaTeX subscripted symbols `text` writes (`SUBSCRIPT`), as written (p_{max},
    \\sigma_{y}): runs whose tokens hold their plain spellings (p_max, pmax), which no
    Latin run of the text holds whole."""
    if "_" not in text:
        return []
    lower = text.lower()
    if len(lower) != len(text):  # (a character whose lower case is longer: none of a symbol)
        return [m.group(0) for m in SUBSCRIPT.finditer(lower)]
    return [text[m.start():m.end()] for m in SUBSCRIPT.finditer(lower)]
