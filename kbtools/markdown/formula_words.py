"""A formula as a screen reader can say it: the `alt` text of a formula's picture.

The LaTeX source read aloud is noise (`backslash frac left brace n right brace …`), so the
picture's text is the formula written out with the characters it shows: `\\frac{n}{N}` as
`n/N`, `\\times` as `×`, `\\alpha` as `α`, `x^2` as `x²`, `\\text{药液量}` as `药液量`; a
screen reader says those. Any LaTeX the allowlist takes gives some text (an unknown command:
its name), in linear time; the source stays the picture's `title`. A heading made of a
formula is named so too (`kbtools.markdown.parser.inline_text` with `said`).
"""

from __future__ import annotations

import re

from kbtools.markdown.latex_names import COMMAND_GROUPS, MATH_CHARS

_PIECE = re.compile(r"\\(?:[A-Za-z]+\*?|.)|[{}^_&~\[\]]|[^\\{}^_&~\[\]]+", re.S)
# the command each character of an input method stands for, read back as that character
_CHAR_OF = {v[1:]: k for k, v in MATH_CHARS.items() if re.fullmatch(r"\\[A-Za-z]+", v)}
_CHAR_OF.update({"le": "≤", "ge": "≥", "ne": "≠", "to": "→", "gets": "←", "lnot": "¬",
                 "land": "∧", "lor": "∨", "implies": "⟹", "iff": "⟺", "dots": "…",
                 "ldots": "…", "cdots": "⋯", "textdegree": "°", "textcelsius": "℃",
                 "textmu": "µ", "textpm": "±", "texttimes": "×", "textdiv": "÷",
                 "textperthousand": "‰", "textohm": "Ω", "percent": "%", "lbrace": "{",
                 "rbrace": "}", "langle": "⟨", "rangle": "⟩", "vert": "|", "Vert": "‖",
                 "mid": "|", "prime": "′", "degree": "°", "backslash": "\\",
                 "varepsilon": "ε", "epsilon": "ϵ", "phi": "ϕ", "varphi": "φ"})
_FRACTIONS = frozenset("frac dfrac tfrac cfrac".split())
_BINOMIALS = frozenset("binom dbinom tbinom".split())
# commands that show their argument (a font, an accent, a box, text)
_SHOWS_ARGUMENT = frozenset(
    COMMAND_GROUPS["styles and fonts"].split() + COMMAND_GROUPS["accents"].split()
    + "operatorname mathop mathbin mathrel mathord mathpunct mathopen mathclose mathinner "
      "overline underline overbrace underbrace boxed overrightarrow overleftarrow "
      "overleftrightarrow underrightarrow underleftarrow underleftrightarrow".split())
# commands whose argument is no part of what is said (a width, a phantom)
_DROPS_ARGUMENT = frozenset("hspace mspace mkern phantom hphantom vphantom begin end".split())
_SAID_AS_NAME = frozenset(COMMAND_GROUPS["functions"].split())
_SILENT = frozenset((COMMAND_GROUPS["delimiters and sizes"] + " displaystyle textstyle "
                     "scriptstyle scriptscriptstyle limits nolimits smash hline").split())
_SPACES = frozenset("quad qquad enspace thinspace medspace thickspace negthinspace "
                    "negmedspace negthickspace , : ; ! space".split() + [" "])
_SUPER = dict(zip("0123456789+-=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", strict=True))
_SUB = dict(zip("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎", strict=True))
MAX_DEPTH = 40  # groups and arguments read inside each other; deeper pieces are said as written
MAX_SAID = 300  # characters of alt text: past that a screen reader's listener is lost


def formula_words(latex: str) -> str:
    """`latex` written out for a screen reader (see the module's docstring)."""
    said = _Reader(_PIECE.findall(latex)).group_text(top=True)
    said = re.sub(r"\s+", " ", said).strip()
    return said if len(said) <= MAX_SAID else said[:MAX_SAID - 1].rstrip() + "…"


class _Reader:
    """Reads the pieces once, front to back (each piece is consumed once: linear)."""

    def __init__(self, pieces: list[str]):
        self.pieces, self.at, self.depth = pieces, 0, 0

    def next(self) -> str | None:
        if self.at >= len(self.pieces):
            return None
        self.at += 1
        return self.pieces[self.at - 1]

    def group_text(self, *, top: bool = False) -> str:
        """Pieces up to the `}` closing this group (or the end)."""
        out: list[str] = []
        while (piece := self.next()) is not None:
            if piece == "}" and not top:
                break
            out.append(self.piece(piece))
        return "".join(out)

    def argument(self) -> str:
        """The next argument: a `{…}` group, else one piece (`\\frac12`: `1`, then `2`)."""
        while self.at < len(self.pieces) and self.pieces[self.at].isspace():
            self.at += 1
        piece = self.next()
        if piece is None:
            return ""
        if piece == "{":
            return self.group_text()
        if not piece.startswith("\\") and len(piece) > 1:  # a run of plain text: its first
            self.at -= 1  # character is the argument, the rest is read next
            self.pieces[self.at] = piece[1:]
            return piece[0]
        return self.piece(piece)

    def optional(self) -> str:
        """A `[…]` argument when one follows (`\\sqrt[3]{x}`), else ""."""
        if self.at < len(self.pieces) and self.pieces[self.at] == "[":
            self.at += 1
            out: list[str] = []
            while (piece := self.next()) not in (None, "]"):
                out.append(self.piece(piece or ""))
            return "".join(out)
        return ""

    def tag(self, *, starred: bool) -> str:
        """`\\tag{1}` as ` (1)`, `\\tag*{A}` (or `\\tag *{A}`) as ` A`."""
        if self.at < len(self.pieces) and self.pieces[self.at].strip() == "*":
            self.at, starred = self.at + 1, True
        label = self.argument().strip()
        return f" {label}" if starred else f" ({label})"

    def piece(self, piece: str) -> str:
        if self.depth >= MAX_DEPTH:  # no deeper: what is left is said piece by piece
            return "" if piece in "{}^_&~" else piece.lstrip("\\")
        self.depth += 1
        try:
            return self.meaning(piece)
        finally:
            self.depth -= 1

    def meaning(self, piece: str) -> str:
        if piece == "{":
            return self.group_text()
        if piece in ("^", "_"):
            return _script(self.argument(), _SUPER if piece == "^" else _SUB, piece)
        if piece in ("&", "~"):
            return " "
        if not piece.startswith("\\"):  # a `$` sets math in text (`\\text{if $x>0$}`): silent
            return piece.replace("$", "")
        name = piece[1:]
        if name == "\\":
            return "; "
        if name in _FRACTIONS or name in _BINOMIALS:
            a, b = _wrapped(self.argument()), _wrapped(self.argument())
            return f"{a}/{b}" if name in _FRACTIONS else f"C({a}, {b})"
        if name == "sqrt":
            degree = self.optional()
            return f"{_script(degree, _SUPER, '^')}√{_wrapped(self.argument())}"
        if name in ("tag", "tag*"):  # the equation's number, shown at its right
            return self.tag(starred=name == "tag*")
        if name in _SHOWS_ARGUMENT:
            return self.argument()
        if name in _DROPS_ARGUMENT:
            self.argument()
            return ""
        if name in _CHAR_OF:
            return _CHAR_OF[name]
        if name in _SPACES:
            return " "
        if name in _SILENT:
            return ""
        if name in _SAID_AS_NAME:
            return f" {name} "
        return name  # `\%`, `\{`: the character; an unknown command: its name


def _wrapped(text: str) -> str:
    """A fraction's part in parentheses unless it is one number or one name."""
    text = text.strip()
    return text if re.fullmatch(r"[\w.′°%]*", text) else f"({text})"


def _script(text: str, table: dict[str, str], mark: str) -> str:
    """A superscript or subscript: as the characters that show it when it has them (`x²`,
    `x₁`; `^\\circ`: `°`), else written with its mark (`e^(-x/2)`)."""
    text = text.strip()
    if text in ("∘", "°", ""):  # `^\circ`: a degree sign
        return "°" if text else ""
    if all(c in table for c in text):
        return "".join(table[c] for c in text)
    return f"{mark}{_wrapped(text)}" if mark == "^" else f"_{_wrapped(text)}"

