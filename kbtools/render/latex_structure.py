"""How a formula's pieces fit together, as TeX reads them: what LaTeX refuses that the
allowlist (`latex_allow`) cannot see token by token.

`structure_problem(tex, written)` reads the formula as the renderer hands it to LaTeX
(`latex_source.tex_source`: a typed `²` is `^{2}`, `′` is `'`) and returns one line naming
what LaTeX would stop at and what to write, or None:

- a base with two superscripts or two subscripts (`x^2^3`, `x²^3`, `x_1_2`, `x' ^2`: "Double
  superscript"): a prime is one, merged with a `^` right after it (`x'^2`); `{}`, a command,
  a letter or `\\,` starts a new base, a blank, `\\limits` and `\\nolimits` do not;
- a `^` or `_` with nothing to raise or lower (`x^`, `x^_2`, `{x_}`), and a command with
  fewer arguments than it takes (`\\frac{1}`, `\\sqrt`, `\\hat`, `\\mathrm` at the end of
  the formula or of a group: "Missing { inserted");
- `&` outside an environment with columns (`a & b`, `\\text{a & b}`, in `gathered`);
- `\\left`, `\\middle` and `\\right` that do not pair within one group or environment
  (`\\right) x \\left(`, `{\\left( } \\right)`, `\\left( \\begin{matrix} \\right)`), and an
  `\\end` inside a group or `\\left…\\right` opened after its `\\begin`; what follows each,
  and a size (`\\big`), that is no delimiter (`latex_delims`: "Missing delimiter");
- the math of a command's optional `[…]` (`\\sqrt[\\frac{1}]{x}`), and `$…$` in text;
- a text accent in math (`latex_text.accent_in_math`: "Please use \\mathaccent");
- a dimension that is none (`\\hspace{x}`, `\\mkern3pt`, `\\\\[x]`, `\\\\ [0,1]` in {array}),
  column letters LaTeX's own {array} has not (`{q}`, `>{…}`, `p{x}`, none), a row with more
  cells than its columns (`*{3}{c}`, `\\multicolumn{2}` counted), `\\hline`/`\\cline` not at
  the start of a row and `\\multicolumn` not at the start of a cell (`latex_args` reads them
  as TeX does; an `@{…}` among column letters is math, read as the rest of the formula);
- a math command, `^`, `_` or `\\|` inside `\\text{…}`, a row's `\\\\` inside braces in a cell;
- an unbraced command with arguments as another's argument (`latex_scripts.unbraced_argument`).

`latex_problem` runs it after the allowlist, so braces and environments pair by then. One pass
with an explicit stack: linear, no recursion (but for an {array}'s placement, `_placement`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kbtools.render.glyphs import SUBSCRIPTS, SUPERSCRIPTS
from kbtools.render.latex_args import (
    DIMENSION_ARGUMENT,
    argument,
    array_placement_math,
    dimension,
    opening,
    placement,
    row_end,
    row_in_placement,
)
from kbtools.render.latex_delims import (
    CFRAC_NO_HFILL,
    OPTIONAL,
    OPTIONAL_MATH,
    PLAIN_SIZES,
    SIZE_ANY,
    SIZE_UNBRACED,
    SIZES,
    bare_tab,
    cfrac_problem,
    cfrac_side,
    delimiter_end,
    optional_crossed,
    optional_ends,
    optional_tab,
    prime_refused,
    size_alone,
    size_argument,
    smash_problem,
)
from kbtools.render.latex_scripts import (
    MODULO,
    OPERATORS,
    cfrac_scripts,
    double_script,
    limits_problem,
    missing_argument,
    modulo_argument,
    multicolumn_read,
    unbraced_argument,
)
from kbtools.render.latex_text import (
    ACCENTS_IN_MATH,
    OWN_MATH,
    TEXT_ACCENTS,
    accent_in_math,
    accent_problem,
    cline_end,
    crossing,
    dollar_in_math,
    math_in_text,
    row_in_braces,
    rule_problem,
    tab_problem,
    unpaired,
)

# One piece: a control word (its name), a control symbol, a run of blanks, or one character.
# Linear time: alternatives start with different characters and never backtrack.
_PIECE = re.compile(r"\\(?:[A-Za-z]+|.?)|\s+|.", re.S)
_ENV_NAME = re.compile(r"\s*+\{([A-Za-z]++\*?)\}")  # possessive: no backtracking

# How many arguments each command takes (braced, or one token); the `OPTIONAL` ones may
# have a `[…]` first. Commands not listed take none.
ARGUMENTS: dict[str, int] = {
    **dict.fromkeys("""frac dfrac tfrac cfrac binom dbinom tbinom overset underset
        stackrel""".split(), 2),
    "sideset": 3,  # its scripts, then the operator they go on
    **dict.fromkeys("""sqrt overline underline overbrace underbrace overrightarrow
        overleftarrow overleftrightarrow underrightarrow underleftarrow underleftrightarrow
        xrightarrow xleftarrow boxed operatorname mathop mathbin mathrel mathord mathpunct
        mathopen mathclose mathinner substack hat widehat check tilde widetilde acute grave
        dot ddot dddot ddddot breve bar vec mathring mathrm mathbf mathit mathsf mathtt
        mathcal mathbb mathfrak mathnormal boldsymbol pmb text mbox textrm textbf textit
        textsf texttt textnormal textup textsl emph phantom hphantom vphantom smash hspace
        pmod pod cline b d""".split(), 1),
    "multicolumn": 3,
}
TEXT_ARGUMENT = frozenset("""text mbox textrm textbf textit textsf texttt textnormal textup
    textsl emph b d""".split())  # `\\b`, `\\d`: a text accent, in a box of its own in math
# What ends a formula's group or row, or needs a base of its own: no argument
NOT_ARGUMENT = frozenset({"}", "&", "^", "_", "\\\\", "\\right", "\\middle", "\\end", "$",
                          "\\)"})
FRACTIONS = frozenset({"over", "choose"})  # TeX's generalized fractions: one per group
KEEP_BASE = frozenset({"limits", "nolimits", "displaylimits"})  # scripts still follow the base


@dataclass
class _Frame:
    """A group, `\\left…\\right`, environment or command argument being read."""

    kind: str  # "top", "group", "left", "env", "text", "spec" (an array's column letters),
    # "opt" (a command's `[…]` read as math), "inline" (`$…$` in text)
    name: str = ""  # the environment's name (the command of an "opt")
    start: int = 0  # where it opened
    base: int = 0  # where the current base (nucleus) starts
    sup: tuple[int, bool] | None = None  # the base's superscript: (its piece, a prime?)
    sub: tuple[int, bool] | None = None
    need: int = 0  # arguments still to read: of `command` (or of `^`/`_`)
    command: str = ""  # the command (or "^"/"_") whose arguments are read
    optional: bool = False  # a `[…]` may come first
    tabs: int = 0  # `&` in the environment's current row
    fractions: int = 0  # `\\over`/`\\choose` read in this group (TeX takes one)
    tabs_allowed: int | None = 0  # the most `&` a row of the environment takes (None: any)
    row_start: bool = False  # nothing read yet in the environment's row (`\\hline` may come)
    cell_start: bool = False  # nothing read yet in the row's cell (`\\multicolumn` may come)
    nested: bool = False  # inside braces within an environment's cell: no row ends here
    stop: int = -1  # the piece ending the innermost "opt" this frame is in (its `]`)
    rows: bool = False  # `\\substack`'s argument: rows of its own, braces in it nested
    op: bool = False  # the current base is a math operator (`\\limits` may follow)
    # `\\cfrac[l…]`'s rest: the scripts it begins with (None: not read yet; its `[` is
    # `carry[2]`), which go on the numerator's last base; `carry`: on the numerator
    lead: tuple[bool, bool] | None = (False, False)
    carry: tuple[bool, bool, int] | None = None

    def new_base(self, at: int) -> None:
        if self.lead is None:
            self.lead = (self.sup is not None, self.sub is not None)
        self.base, self.sup, self.sub, self.op = at, None, None, False


def structure_problem(tex: str, written: str = "") -> str | None:
    """None when LaTeX reads `tex` (a formula as `tex_source` gives it) without the errors
    listed in the module's docstring, else one line saying what to write. `written`: the
    formula as its author wrote it (a message says when a typed script was read)."""
    typed = any(ch in SUPERSCRIPTS or ch in SUBSCRIPTS for ch in written)
    stack = [_Frame("top")]
    pieces = [(m.start(), m.end(), m.group(0)) for m in _PIECE.finditer(tex)]
    ends = optional_ends(pieces)  # where each `[` would end as an optional argument
    i = 0
    while i < len(pieces):
        start, end, piece = pieces[i]
        frame = stack[-1]
        if frame.stop >= 0 and i >= frame.stop:  # the `]` ending an optional argument
            if i > frame.stop or frame.kind != "opt":
                return _crossed(stack, pieces, tex)
            if frame.need and (frame.name != "cfrac" or frame.command in CFRAC_NO_HFILL):
                return _missing(frame.command) if frame.name != "cfrac" else cfrac_problem(
                    f"'{frame.command}' without its argument", "Missing { inserted")
            stack.pop()
            if frame.name == "cfrac":  # its scripts go on the numerator's last base
                frame.new_base(start)
                stack[-1].carry = (*(frame.lead or (False, False)), frame.start)
            i += 1
            continue
        i += 1
        if piece.isspace():
            continue
        word = piece[1:] if piece.startswith("\\") else ""
        if frame.kind == "text":  # text: its braces, `&`, rows, spacing and no math
            if frame.need:  # `\\boxed{…}` in text: its argument is math
                read = _argument(stack, pieces, i - 1, tex, ends)
                if isinstance(read, str):
                    return read
                i = read
                continue
            if word in ("hline", "cline", "multicolumn"):
                return rule_problem(word)
            if problem := math_in_text(piece):
                return problem
            if word in TEXT_ACCENTS:  # `\\^o`: the letter it is put on
                after = next((pieces[k][2] for k in range(i, len(pieces))
                              if not pieces[k][2].isspace()), "")
                if problem := accent_problem(word, after, after[1:] in ARGUMENTS):
                    return problem
            if piece == "\\\\" and frame.nested:
                return row_in_braces(_env_name(stack))
            if word in SIZES:  # `\\big(` in text: its delimiter
                read = _size(stack, pieces, i, word)
                if isinstance(read, str):
                    return read
                i = read
            elif piece == "$" and frame.name == "$":  # `\\boxed{$x$}`: its text ends
                stack.pop()
                stack[-1].new_base(end)  # a math list of its own: `x^2 $y$ ^3`, `\\over`
                stack[-1].fractions = 0
            elif piece in ("$", "\\("):  # `\\text{if $x>0$}`, `\\text{if \\(x>0\\)}`: math
                _push(stack, _Frame("inline", start=start, base=end))
            elif word == "boxed":
                frame.need, frame.command, frame.optional = 1, word, False
            elif piece == "\\\\" or word == "hspace":
                read = _row_end(stack, tex, end) if word == "\\" else \
                    dimension(word, tex, end, font_units=False)
                if isinstance(read, str):
                    return read
                i = _skip(pieces, i, read) if word == "\\" else i  # `\\hspace{`: a group
            elif piece == "{":
                _push(stack, _Frame("text", start=start))
            elif piece == "}":
                stack.pop()
            elif piece == "&":
                return tab_problem(None)
            continue
        if frame.kind == "spec":
            i = _letters(stack, pieces, i - 1, tex)
            continue
        if frame.need:
            read = _argument(stack, pieces, i - 1, tex, ends)
            if isinstance(read, str):
                return read
            i = read
            continue
        at_row, at_cell = frame.row_start, frame.cell_start
        frame.row_start = frame.cell_start = False
        if word in DIMENSION_ARGUMENT or word == "mkern":
            read = dimension(word, tex, end)
            if isinstance(read, str):
                return read
            if word == "mkern":
                i = _skip(pieces, i, read)
        if piece in ("^", "_") or piece == "'":
            if problem := _script(frame, pieces, i - 1, tex, typed):
                return problem
            while piece == "'" and i < len(pieces) and pieces[i][2] == "'":
                i += 1  # `x''`: one superscript, of primes written together
            if piece != "'":
                frame.need, frame.command, frame.optional = 1, piece, False
            elif i < len(pieces) and pieces[i][2] == "^":  # `x'^2`: one superscript
                i += 1
                frame.need, frame.command, frame.optional = 1, "^", False
            continue
        if piece == "{":
            frame.new_base(start)
            _push(stack, _Frame("group", start=start, base=end))
        elif piece == "}":
            if frame.kind != "group":
                return crossing("'}'", frame.kind, frame.name)
            if frame.carry and (frame.carry[0] and frame.sup or frame.carry[1] and frame.sub):
                return cfrac_scripts("^" if frame.carry[0] and frame.sup else "_",
                                     tex[frame.carry[2]:end])
            if frame.name == "cfrac":  # `\\cfrac[{l…}]`: its braces' scripts, the rest's
                frame.new_base(start)
                stack[-2].lead = frame.lead
            stack.pop()
        elif piece == "$" and (frame.name in ("boxed", "top") or frame.kind == "top"):  # `x $y$`,
            _push(stack, _Frame("text", "$", start))  # `\\boxed{$x$}`: text up to its `$`
        elif piece in ("$", "\\)"):  # `$…$` in text ends here (the allowlist pairs them)
            if frame.kind != "inline":
                return crossing(f"'{piece}'", frame.kind, frame.name) if frame.kind in \
                    ("left", "env", "opt") else dollar_in_math()
            stack.pop()
        elif piece == "&":
            limit = frame.tabs_allowed if frame.kind == "env" else 0
            if limit is not None and frame.tabs >= limit:
                return tab_problem(frame.name if frame.kind == "env" else None, limit)
            frame.tabs += 1
            frame.fractions = 0
            frame.cell_start = True
            frame.new_base(end)
        elif word in ("begin", "end"):
            m = _ENV_NAME.match(tex, end)
            name = m.group(1) if m else ""
            i = _skip(pieces, i, m.end() if m else end)
            if word == "begin":
                opened = opening(name, tex, m.end() if m else end)
                if isinstance(opened, str):
                    return opened
                i = _skip(pieces, i, opened[1])
                if problem := _placement(name, tex, m.end() if m else end, pieces, ends):
                    return problem
                frame.new_base(start)
                _push(stack, _Frame("env", name, start, base=end, tabs_allowed=opened[0],
                                    row_start=True, cell_start=True))
                if opened[2]:  # its column letters, read for the math of their `@{…}`
                    _push(stack, _Frame("spec", start=opened[1]))
            elif frame.kind != "env" or frame.name != name:
                return crossing(f"\\end{{{name}}}", frame.kind, frame.name)
            else:
                stack.pop()
        elif word in ("left", "middle", "right"):
            if word != "left" and frame.kind != "left":
                return unpaired(word, frame.kind)
            read = delimiter_end(pieces, i, word)
            if isinstance(read, str):
                return read
            i = read
            if word == "left":
                frame.new_base(start)
                _push(stack, _Frame("left", start=start, base=end))
            elif word == "right":
                stack.pop()
            else:
                frame.new_base(end)
        elif word and word in TEXT_ACCENTS and word not in ACCENTS_IN_MATH:
            read = accent_in_math(word, tex, end)  # `\\c{A}`, `\\r{A}` draw in math
            if isinstance(read, str):
                return read
            frame.new_base(start)
            i = _skip(pieces, i, read)
        elif word in KEEP_BASE:
            if frame.name == "cfrac" and not tex[frame.base:start].strip():
                return cfrac_problem(piece, "Limit controls must follow a math operator")
            if not frame.op:
                return limits_problem(word)
            continue
        elif word in FRACTIONS:
            if frame.name == "cfrac":
                return cfrac_problem(piece, "Missing } inserted")
            if frame.fractions:
                return ("two of \\over or \\choose in one group (LaTeX: \"Ambiguous\"): "
                        "write \\frac{a}{b} (or braces around each: {a \\over b})")
            frame.fractions = 1
            frame.new_base(end)
        elif piece == "\\\\":
            if frame.nested:
                return row_in_braces(_env_name(stack))
            read = _row_end(stack, tex, end)
            if isinstance(read, str):
                return read
            i = _skip(pieces, i, read)
            frame.tabs = frame.fractions = 0
            frame.row_start = frame.cell_start = True
            frame.new_base(end)
        elif word in ("hline", "cline"):
            if frame.kind != "env" or not at_row:
                return rule_problem(word)
            if word == "cline":
                read = cline_end(frame.name, frame.tabs_allowed, tex, end)
                if isinstance(read, str):
                    return read
                i = _skip(pieces, i, read)
            frame.row_start = frame.cell_start = True
        elif word == "multicolumn":
            spans = multicolumn_read(frame.name if frame.kind == "env" and at_cell else None,
                                     frame.tabs, frame.tabs_allowed, tex, end)
            if isinstance(spans, str):
                return spans
            frame.tabs = spans[2]
            i = _skip(pieces, i, spans[0])
            frame.new_base(start)
            frame.need, frame.command, frame.optional = 1, word, False
            if spans[1]:  # its column letters, read for the math of their `@{…}`
                _push(stack, _Frame("spec", start=spans[0]))
        elif word in SIZES:
            frame.new_base(start)
            read = _size(stack, pieces, i, word)
            if isinstance(read, str):
                return read
            i = read
        else:
            frame.new_base(start)
            frame.op = word in OPERATORS
            if word in ARGUMENTS:
                frame.need, frame.command = ARGUMENTS[word], word
                frame.optional = word in OPTIONAL
    frame = stack[-1]
    if frame.stop >= 0:  # its `]` was read as a delimiter or an argument's
        return _crossed(stack, pieces, tex)
    if frame.need and not (frame.command in MODULO and frame.kind == "top"):
        return _missing(frame.command)  # `\\pmod` at the end takes the renderer's `$`
    return None


def _script(frame: _Frame, pieces: list[tuple[int, int, str]], at: int, tex: str,
            typed: bool) -> str | None:
    """Record the `^`, `_` or `'` at `pieces[at]` on the frame's base, or say why LaTeX
    refuses it (the base has one already). Only the next piece is looked at, and a script's
    argument is read through once, when a message quotes it: linear in the formula."""
    piece = pieces[at][2]
    if piece != "'" and not _has_argument(pieces, at + 1):
        return _missing(piece)
    sup = piece != "_"
    first = frame.sup if sup else frame.sub
    if first is None:
        if sup:
            frame.sup = (at, piece == "'")
        else:
            frame.sub = (at, False)
        return None
    return double_script(frame.base, first, pieces, at, tex, typed)


def _argument(stack: list[_Frame], pieces: list[tuple[int, int, str]], at: int, tex: str,
              ends: dict[int, int]) -> str | int:
    """Read one argument of the frame's command starting at `pieces[at]` (not a blank):
    where reading goes on, or why LaTeX refuses what is there."""
    frame = stack[-1]
    start, end, piece = pieces[at]
    if frame.optional and piece == "[":
        frame.optional = False
        stop = ends[at]
        if stop < 0:
            return _missing(frame.command)
        if 0 <= frame.stop <= stop:  # `\\sqrt[\\sqrt[3]{x}]{y}`: the outer `[…]` ends first
            return _crossed(stack, pieces, tex)
        if frame.kind == "env" and bare_tab(pieces, at + 1, stop):  # it ends the cell
            return optional_tab(frame.command)
        if frame.command == "smash":
            return smash_problem(pieces, at + 1, stop) or stop + 1
        if frame.command not in OPTIONAL_MATH:  # `\\cfrac[l…]`: math after l or r only
            side, brace = cfrac_side(pieces, at + 1, stop, ends)
            if side < 0:  # LaTeX skips it
                return stop + 1
            lead = None if pieces[side][2] == "l" else (False, False)  # `l`: read its scripts
            _push(stack, _Frame("opt", "cfrac", start, base=pieces[side][1], stop=stop, lead=lead))
            if brace >= 0:  # `\\cfrac[{l…}]`: TeX strips the braces
                _push(stack, _Frame("group", "cfrac", pieces[brace][0], base=pieces[side][1],
                                    lead=lead))
            return side + 1
        _push(stack, _Frame("opt", frame.command, start, base=end, stop=stop))
        return at + 1
    frame.optional = False
    if (read := modulo_argument(frame.command, piece, frame.kind, frame.name)) is not None:
        frame.need -= not isinstance(read, str)  # `\\pmod^2`, `\\pmod` at the end: `$`
        return read if isinstance(read, str) else at + read
    if piece in NOT_ARGUMENT or piece in ("\\left", "\\begin") or \
            (piece == "'" and prime_refused(pieces, at, frame.command)):
        return _missing(frame.command)
    if frame.command in TEXT_ARGUMENT and (problem := math_in_text(piece)):
        return problem  # `\\text\\alpha`: one token of text
    if (inner := piece[1:]) in ARGUMENTS or inner in TEXT_ACCENTS:  # `x_\\text\\infty`
        read = unbraced_argument(frame.command, inner, ARGUMENTS.get(inner, 1),
                                 frame.need < ARGUMENTS.get(frame.command, 1))
        if isinstance(read, str):
            return read
        if read:  # it reads (the rest of) its own arguments from what follows
            frame.need, frame.command = read, inner
            return at + 1
    frame.need -= 1
    if piece[1:] in SIZES and frame.command not in SIZE_ANY:  # `x^\\big(`: its delimiter
        return _size(stack, pieces, at + 1, piece[1:]) if frame.command in SIZE_UNBRACED \
            and piece[1:] in PLAIN_SIZES else size_alone(piece, frame.command)
    if piece == "{":
        kind = "text" if frame.command in TEXT_ARGUMENT else "group"
        # `\\substack{a \\\\ b}` is a {subarray}: its rows end inside its braces
        name = "boxed" if frame.command in OWN_MATH else "top" if frame.command in MODULO and \
            (frame.kind in ("top", "inline") or frame.name in ("top", "boxed")) else ""  # `$`
        numerator = frame.command == "cfrac" and frame.need == 1
        _push(stack, _Frame(kind, name, start, base=end, carry=frame.carry if numerator
                            else None), rows=frame.command == "substack")
    return at + 1


def _placement(env: str, tex: str, at: int, pieces: list[tuple[int, int, str]],
               ends: dict[int, int]) -> str | None:
    """Read an environment's placement at `tex[at:]` as LaTeX does: the math {array} sets
    before its box (`array_placement_math`) checked, amsmath's `[{…}]` read as `[…]`."""
    held = array_placement_math(tex, at) if env == "array" else None
    if held and (problem := structure_problem(held[0]) or row_in_placement(held[0])):
        return (f"the placement [ … ] of {{array}} begins with {held[1]}, so LaTeX sets "
                f"the rest as math before it ({held[0]}): {problem}")
    place = placement(env, tex, at)
    if env != "array" and place and place[0] > tex.index("[", at) + 1:  # braces stripped
        k = _skip(pieces, 0, place[0] - 1)
        for j in (k, ends[k]):
            pieces[j] = (*pieces[j][:2], " ")
    return None


def _push(stack: list[_Frame], frame: _Frame, rows: bool = False) -> None:
    """Open `frame` above the stack's top: nested (a `\\\\` there ends no row) when braces
    inside an environment's cell hold it; an environment, or `rows`, has rows of its own."""
    below = stack[-1]
    frame.nested = frame.kind != "env" and not rows and \
        (below.kind == "env" or below.nested or below.rows)
    frame.rows = rows
    frame.stop = frame.stop if frame.kind == "opt" else below.stop
    stack.append(frame)


def _env_name(stack: list[_Frame]) -> str:
    """The environment whose cell the innermost frame is in (`\\substack`'s: {subarray})."""
    return next((f.name if f.kind == "env" else "subarray" for f in reversed(stack)
                 if f.kind == "env" or f.rows), "")


def _letters(stack: list[_Frame], pieces: list[tuple[int, int, str]], at: int,
             tex: str) -> int:
    """Read the column letters at `pieces[at]` (`latex_args.spec_columns` found them right):
    `{` and `}` open and close their groups, the braced argument of `@` is math, read as the
    rest of the formula is; `p`'s width and `*`'s number are skipped. Where reading goes on."""
    start, end, piece = pieces[at]
    if piece == "{":
        _push(stack, _Frame("spec", start=start))
    elif piece == "}":
        stack.pop()
    elif piece in ("p", "*"):
        arg = argument(tex, end)
        return _skip(pieces, at + 1, arg[2] if arg else end)
    elif piece == "@":
        at += 1
        while at < len(pieces) and pieces[at][2].isspace():
            at += 1
        if at < len(pieces) and pieces[at][2] == "{":
            _push(stack, _Frame("group", start=pieces[at][0], base=pieces[at][1]))
        return at + 1  # one token (`@\\,`): no argument of its own
    return at + 1


def _row_end(stack: list[_Frame], tex: str, at: int) -> int | str:
    env = next((f.name for f in reversed(stack) if f.kind == "env"), "")
    return row_end(env, stack[-1].kind == "text", tex, at)


def _skip(pieces: list[tuple[int, int, str]], i: int, to: int) -> int:
    """The first piece at or after `pieces[i]` that starts at `to` or later."""
    while i < len(pieces) and pieces[i][0] < to:
        i += 1
    return i


def _has_argument(pieces: list[tuple[int, int, str]], at: int) -> bool:
    """Whether an argument starts at `pieces[at]` (blanks skipped): not the end of the
    formula, nor a `}`, `^`, `_`, `&`, `\\\\`, `\\right` or prime."""
    while at < len(pieces) and pieces[at][2].isspace():
        at += 1
    return at < len(pieces) and pieces[at][2] not in NOT_ARGUMENT and pieces[at][2] != "'"


def _size(stack: list[_Frame], pieces: list[tuple[int, int, str]], at: int,
          word: str) -> int | str:
    """Read the delimiter a size (`\\big`) takes at `pieces[at]`: where reading goes on (in
    the group `\\big{(x}` opens, whose rest is math), or why LaTeX refuses what is there."""
    read = size_argument(pieces, at, word)
    if isinstance(read, str):
        return read
    if read[1] >= 0:
        _push(stack, _Frame("group", start=pieces[read[1]][0], base=pieces[read[1]][1]))
    return read[0]


def _crossed(stack: list[_Frame], pieces: list[tuple[int, int, str]], tex: str) -> str:
    """The message for the innermost optional argument, whose `]` something it holds read."""
    opt = next(f for f in reversed(stack) if f.kind == "opt")
    return optional_crossed(opt.name, f"\\{opt.name}{tex[opt.start:pieces[opt.stop][1]]}")


def _missing(command: str) -> str:
    return missing_argument(command, ARGUMENTS.get(command, 1))
