"""The arguments TeX reads as numbers, dimensions and column letters, read as TeX reads them.

`latex_structure` calls these where a formula hands TeX a dimension (`\\hspace{…}`,
`\\mspace{…}`, `\\mkern…`, `\\\\[…]`, an array's `p{…}`), a number (`*{n}`, `\\multicolumn{n}`,
`\\cline{i-j}`, `{alignedat}{n}`) or an array's column letters. Each scanner returns where
reading ends, or a `Slip` naming what LaTeX stops at; numbers, dimensions and glue are
scanned by TeX's own rules in `latex_numbers`. Column letters are those of LaTeX's own
`array` (the renderer loads no array package): `l c r |`, `p{width}`, `@{…}`, `*{n}{…}`;
`opening` reads an environment's (`{array}[t]{cc}`, `{alignedat}{2}`). Every scanner reads each character a bounded number
of times: linear, no recursion.
"""

from __future__ import annotations

import re

from kbtools.render.latex_numbers import (
    MISSING_NUMBER,
    Slip,
    scan_dimen,
    scan_glue,
    scan_int,
)

DIMENSION_ARGUMENT = {"hspace": False, "mspace": True}  # command: in mu (math glue)?
MAX_SHOWN = 60  # characters of the formula a message quotes


def argument(text: str, at: int, end: int | None = None) -> tuple[int, int, int] | None:
    """The undelimited argument TeX takes at `text[at:end]` (blanks first): a braced group or
    one token, as (where its content starts, where it ends, where the argument ends); None
    at the end or at a `}`."""
    end = len(text) if end is None else end
    while at < end and text[at].isspace():
        at += 1
    if at >= end or text[at] == "}":
        return None
    if text[at] == "\\":
        m = _CONTROL.match(text, at)
        stop = m.end() if m else at + 1
        return at, stop, stop
    if text[at] != "{":
        return at, at + 1, at + 1
    depth, j = 0, at
    while j < end:
        ch = text[j]
        if ch == "\\":
            j += 2
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if not depth:
            return at + 1, j, j + 1
        j += 1
    return None


_CONTROL = re.compile(r"\\(?:[A-Za-z]++|.?)", re.S)
ILLEGAL_LETTER = "Illegal character in array arg"


def spec_columns(text: str, start: int, end: int) -> int | Slip:
    """How many columns the column letters `text[start:end]` make (`*{n}{…}` counted n
    times), or what LaTeX stops at. A count of 0 or less ends the letters there, as LaTeX's
    `\\@xexpast` drops the rest."""
    counts, times = [0], [1]  # per open group: its columns, how many times it counts
    at = start
    while True:
        if at >= end:
            return counts[0]
        ch = text[at]
        if ch.isspace() or ch == "|":
            at += 1
        elif ch in "lcr":
            counts[-1] += 1
            at += 1
        elif ch == "{":  # a group (LaTeX reads its letters) or the letters `*` repeats
            counts.append(0)
            times.append(1)
            at += 1
        elif ch == "}":  # the letters are balanced (the allowlist pairs every brace)
            n = counts.pop() * times.pop()
            counts[-1] += n
            at += 1
        elif ch in "p@":
            arg = argument(text, at + 1, end)
            if arg is None:
                return Slip(f"Missing {'p-arg' if ch == 'p' else '@-exp'} in array arg")
            if ch == "p":
                width = scan_dimen(text[arg[0]:arg[1]], 0)
                if isinstance(width, Slip):
                    return width
                counts[-1] += 1
            at = arg[2]
        elif ch == "*":
            count = argument(text, at + 1, end)
            if count is None:
                return MISSING_NUMBER
            inside = text[count[0]:count[1]]
            read = scan_int(inside, 0)
            if isinstance(read, Slip):
                return read
            if inside[read[1]:].strip():
                return Slip(ILLEGAL_LETTER, inside[read[1]:].strip()[0])
            if read[0] <= 0:
                return sum(counts)
            at = count[2]
            while at < end and text[at].isspace():
                at += 1
            if text[at:at + 1] == "{":
                counts.append(0)
                times.append(read[0])
                at += 1
                continue
            what = argument(text, at, end)
            if what is None:
                return MISSING_NUMBER
            if text[what[0]] in "lcr|":
                counts[-1] += read[0] * (text[what[0]] != "|")
                at = what[2]
            else:
                return Slip(ILLEGAL_LETTER, text[what[0]:what[1]])
        else:
            m = _CONTROL.match(text, at)
            return Slip(ILLEGAL_LETTER, m.group(0) if m else ch)


def number(text: str) -> int | Slip:
    read = scan_int(text, 0)
    return read if isinstance(read, Slip) else read[0]


def spec_problem(slip: Slip, spec: str, usage: str) -> str:
    if slip.latex == "Illegal character in array arg":
        return (f"column letters '{shown(spec)}': '{slip.near}' is none of l c r | p{{width}} "
                "@{…} *{n}{…} (the renderer loads no array package: no >{…}, <{…}, m{…}, "
                f"b{{…}}, !{{…}}; LaTeX: \"Illegal character in array arg\"): write {usage}")
    if slip.latex.startswith("Missing p-arg"):
        return (f"column letters '{shown(spec)}': p needs its width (LaTeX: \"{slip.latex}\"): "
                "write p{2cm}")
    if slip.latex.startswith("Missing @-exp"):
        return (f"column letters '{shown(spec)}': @ needs what goes between the columns "
                f"(LaTeX: \"{slip.latex}\"): write @{{}} or @{{\\,}}")
    return (f"column letters '{shown(spec)}': {SLIP_HINT.get(slip.latex, '')} (LaTeX: "
            f"\"{slip.latex}\"): write p{{2cm}} for a column's width, *{{3}}{{c}} for three")


SLIP_HINT = {
    "Missing number, treated as zero": "a number is missing",
    "Illegal unit of measure (pt inserted)": "a dimension needs a unit after its number (pt, "
    "mm, cm, in, em, ex, bp, pc, dd, cc, sp)",
    "Illegal unit of measure (mu inserted)": "a math space is measured in mu (18mu = 1em)",
    "Dimension too large": "a dimension must stay under 16384pt (5.7m)",
    "Number too big": "a number must stay under 2147483648",
    "Illegal unit of measure (replaced by filll)": "fil, fill or filll, no more l",
}
DIMENSION_USAGE = {"hspace": "\\hspace{1em} or \\hspace{3pt}", "mspace": "\\mspace{3mu}",
                    "mkern": "\\mkern3mu", "": "\\\\[4pt]"}


def dimension(word: str, tex: str, at: int, font_units: bool = True) -> int | str:
    """Where the dimension given to `\\word` at `tex[at:]` ends (`\\mkern` reads it from the
    formula, `\\hspace` and `\\mspace` from their argument, `\\hspace*` too), or why LaTeX
    refuses it. A braced argument is read only as far as its dimension goes (a dimension holds
    no brace), so arguments inside arguments are read once each: linear."""
    if word == "mkern":
        read = scan_dimen(tex, at, mu=True)
        written = (tex[at:at + 12].split("\\")[0].split() or [""])[0]
        return read if not isinstance(read, Slip) else dimension_problem(
            f"\\mkern{' ' * written[:1].isalpha()}{written}", read, word)
    start = past_blanks(tex, at)
    if word == "hspace" and tex[start:start + 1] == "*":
        start = past_blanks(tex, start + 1)
    mu = DIMENSION_ARGUMENT[word]
    if tex[start:start + 1] == "{":
        read = scan_glue(tex, start + 1, mu=mu, font_units=font_units)
        written = f"\\{word}{{{tex[start + 1:start + 1 + MAX_SHOWN].split('}')[0]}}}"
    else:  # one token: `\\hspace 1pt` is `\\hspace{1}pt`
        arg = argument(tex, start)
        token = tex[arg[0]:arg[1]] if arg else ""
        read = scan_glue(token, 0, mu=mu, font_units=font_units) if token else MISSING_NUMBER
        written = f"\\{word} {token}".rstrip()
    return dimension_problem(written, read, word) if isinstance(read, Slip) else read


def past_blanks(text: str, at: int) -> int:
    while at < len(text) and text[at].isspace():
        at += 1
    return at


def dimension_problem(written: str, slip: Slip, word: str) -> str:
    hint = SLIP_HINT.get(slip.latex, "")
    if slip is MISSING_NUMBER:
        hint = "a dimension needs a number and a unit" + (" (mu)" if word in ("mkern",
                                                                          "mspace") else "")
    unbraced = ", its argument in braces" if word in DIMENSION_ARGUMENT and \
        written.startswith(f"\\{word} ") else ""
    return (f"'{shown(written)}': {hint}{unbraced} (LaTeX: \"{slip.latex}\"): write "
            f"{DIMENSION_USAGE[word]}")


def shown(text: str) -> str:
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN - 1] + "…"


# Environments whose rows have columns (`&`), with the most `&` a row takes (None: any;
# a matrix has at most amsmath's MaxMatrixCols, 10, columns; {array} and {subarray} as
# many as their column letters, `spec_columns`). Any other environment
# ({gathered}) has none.
COLUMNS: dict[str, int | None] = {
    **dict.fromkeys("matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix".split(), 9),
    **dict.fromkeys("aligned alignedat".split()),
    "cases": 1,
}


def opening(env: str, tex: str, at: int) -> tuple[int | None, int, bool] | str:
    """The most `&` a row of the environment `env` takes, where reading goes on and whether
    column letters in braces start there (an {array}'s: `latex_structure` reads them), its
    arguments (`{array}[t]{cc}`, `{alignedat}{2}`) read from `at`; or why LaTeX refuses them."""
    if problem := placement_problem(env, tex, at):
        return problem
    if env == "array":
        at = past_blanks(tex, at)
        if tex[at:at + 1] == "[":  # `{array}[t]`: where it sits on the line
            place = placement(env, tex, at)
            if place is None:
                return ("\\begin{array}[ without its ] (LaTeX: \"Runaway argument\"): "
                        "write \\begin{array}[t]{cc}")
            at = place[2] + 1
        spec = argument(tex, at)
        if spec is None:
            return ("\\begin{array} without its column letters (LaTeX: \"Missing # inserted "
                    "in alignment preamble\"): write \\begin{array}{cc} a & b \\end{array}")
        columns = spec_columns(tex, spec[0], spec[1])
        if isinstance(columns, Slip):
            return spec_problem(columns, tex[spec[0]:spec[1]], "\\begin{array}{cc}")
        if columns < 1:
            return ("{array} with no column (only rules or @{…} in its letters; LaTeX: "
                    "\"Missing # inserted in alignment preamble\"): write a letter l, c, r "
                    "or p{width} for each column, as \\begin{array}{c|c}")
        braced = spec[2] != spec[1]
        return columns - 1, spec[0] if braced else spec[2], braced
    if env in ("subarray", "alignedat"):
        arg = argument(tex, at)
        if arg is None:
            return 0 if env == "subarray" else None, at, False
        if env == "alignedat" and isinstance(read := number(tex[arg[0]:arg[1]]), Slip):
            return (f"{{alignedat}}{{{shown(tex[arg[0]:arg[1]])}}}: its argument is the number "
                    f"of column pairs (LaTeX: \"{read.latex}\"): write "
                    "\\begin{alignedat}{2} a &= b & c &= d \\end{alignedat}")
        return (0 if env == "subarray" else None), arg[2], False
    return COLUMNS.get(env, 0), at, False


# Environments made with LaTeX's \array, where `\multicolumn` spans columns and `\\[…]`'s
# spacing is a plain dimension (`\ifdim`); {array}'s own `\\` looks for its `[` past
# blanks, as `\\` outside any environment does (amsmath's do not: `\\ [0,1]` is a row).
ARRAY_BASED = frozenset("array matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix "
                        "cases".split())


def row_end(env: str, in_text: bool, tex: str, at: int) -> int | str:
    """Where a row's `\\\\` at `tex[at:]` ends, in the environment `env` ("": none) or in
    text: its `*` and its `[spacing]` read (after blanks in {array}, in text and outside
    environments, right after it elsewhere)."""
    blanks = env in ("array", "") or in_text  # `\\ [x]` is spacing
    start = at = at + (tex[at:at + 1] == "*")  # `\\*`: no page break (in a formula, none)
    while blanks and at < len(tex) and tex[at].isspace():
        at += 1
    if tex[at:at + 1] != "[":
        return start
    at += 1
    start -= 2 + (tex[start - 1:start] == "*")
    close, depth = at, 0
    while close < len(tex) and (depth or tex[close] != "]"):
        depth += {"{": 1, "}": -1}.get(tex[close], 0)
        close += 2 if tex[close] == "\\" else 1
    inside = tex[at:close]
    strict = env in ARRAY_BASED and not in_text
    read: int | Slip = scan_dimen(inside, 0) if strict else scan_glue(inside, 0)
    if not isinstance(read, Slip) and strict and inside[read:].strip():
        read = Slip("Missing = inserted for \\ifdim")
    if close >= len(tex) or isinstance(read, Slip):
        slip = read if isinstance(read, Slip) else Slip("Runaway argument")
        hint = SLIP_HINT.get(slip.latex, "only a dimension") if slip is not MISSING_NUMBER \
            else "a dimension needs a number and a unit"
        return (f"'{shown(tex[start:close + 1])}': the [ … ] after \\\\ is the space "
                f"below the row, {hint} (LaTeX: \"{slip.latex}\"): write \\\\[4pt], or "
                "\\\\ {[}0,1] for a bracket starting the next row")
    return close + 1


# An environment's placement `[…]` (`{array}[t]`, `{aligned}[b]`) is read before its rows:
# LaTeX's {array} compares it with `\\if` (`\\@array`), amsmath's {aligned}, {alignedat} and
# {gathered} expand its first token (`\\ams@start@box`; a placement other than t, b or c is
# set as math at the start of the first cell). TeX expands a command there, and these stop it
# (their meaning in the renderer's LaTeX; tests/test_latex_options.py sweeps every
# allowlisted token): after `[` they are read as no math argument can read them.
PLACEMENT_STOPS: dict[str, frozenset[str]] = {
    "array": frozenset("""Biggl Biggm Biggr Bigl Bigm Bigr H Pr acute arccos arcsin arctan arg
        b bar bigcap bigcup biggl biggm biggr bigl bigm bigodot bigoplus bigotimes bigr
        bigsqcup biguplus bigvee bigwedge binom boldsymbol breve c cdots cfrac check cline
        coprod cos cosh cot coth csc d dbinom ddot deg det dfrac dim dot dotsb dotsc dotsm exp
        gcd grave hat hom hphantom hspace inf injlim int ker lg lim liminf limsup ln log
        mathring max min multicolumn oint overbrace overset phantom prod projlim r sec sideset
        sin sinh stackrel substack sum sup t tan tanh tbinom tfrac thickspace tilde u
        underbrace underset v vec vphantom""".split()) | frozenset("\"'.;=^`~"),
    **dict.fromkeys(("aligned", "alignedat", "gathered"), frozenset({"widehat", "widetilde"})),
}


PLACEMENT_SECOND_STOPS = frozenset({"cline", "multicolumn"})  # {array}'s, after a character
_PLACEMENT_ENVS = frozenset({"array", "aligned", "alignedat", "gathered"})


def placement(env: str, tex: str, at: int) -> tuple[int, int, int] | None:
    """The placement `[…]` at `tex[at:]` (blanks first) of `env`, as LaTeX's optional argument
    takes it: (where what it holds starts and ends, one pair of braces around all of it
    stripped as TeX strips them; where the `]` is), or None when there is none."""
    at = past_blanks(tex, at)
    if env not in _PLACEMENT_ENVS or tex[at:at + 1] != "[":
        return None
    close, depth, j = -1, 0, at + 1
    while j < len(tex) and close < 0:
        depth += {"{": 1, "}": -1}.get(tex[j], 0)
        close = j if tex[j] == "]" and not depth else -1
        j += 2 if tex[j] == "\\" else 1
    if close < 0:
        return None
    group = argument(tex, at + 1, close) if tex[at + 1:at + 2] == "{" else None
    if group and group[2] == close:  # `[{t}]` is `[t]`
        return group[0], group[1], close
    return at + 1, close, close


def placement_problem(env: str, tex: str, at: int) -> str | None:
    """Why LaTeX stops at the placement `[…]` at `tex[at:]` (blanks first) of `env`, or None:
    its first token is one of `PLACEMENT_STOPS` (amsmath's environments expand none after a
    blank, which `\\romannumeral` takes), or {array}'s second token, after a character, is
    one of `PLACEMENT_SECOND_STOPS`, after a command `\\if` finds alike with it one of
    `IF_SECOND_STOPS` (`\\if` expands it too)."""
    place = placement(env, tex, at)
    if place is None or place[0] == place[1]:
        return None
    start, end = place[0], place[1]
    blank = tex[start].isspace()
    m = _CONTROL.match(tex, past_blanks(tex, start), end)
    first = m.group(0) if m else tex[past_blanks(tex, start)]
    alike = alike_second(tex[start:end]) if env == "array" else None
    if alike and alike[1][1:] in IF_SECOND_STOPS:  # `[\\alpha\\widehat]`: `\\if` expands it
        first = alike[1]
    elif env != "array" and blank or not (first[1:] in PLACEMENT_STOPS[env] or env == "array"
                                          and (blank or len(first) == 1)):
        return None
    elif first[1:] not in PLACEMENT_STOPS[env] or blank:  # {array}: its second token
        second = _CONTROL.match(tex, past_blanks(tex, start) if blank else start + 1, end)
        if not second or second.group(0)[1:] not in PLACEMENT_SECOND_STOPS:
            return None
        first = second.group(0)
    return (f"'\\begin{{{env}}}[{shown(tex[start:end])}': the placement [ … ] of {{{env}}} is "
            f"t, b or c; LaTeX expands the command {first} there, and stops: write [t], [b] "
            "or [c], or leave it out")


_TEXT_SYMBOLS = frozenset("""textasciicircum textasciitilde textbackslash textbar textbullet
    textcelsius textcopyright textdegree textdiv textgreater textless textmu textohm
    textperiodcentered textperthousand textpm textregistered textsection texttimes
    texttrademark textunderscore""".split())
# {array}'s `\\if` takes two control sequences it cannot expand as alike; not these, first in
# a placement (their expansion gives `\\if` a character, or two tokens of its own) or second
# (a character, or math that draws), every other is (tests/test_latex_options.py sweeps each
# allowlisted command first and second against the renderer's LaTeX).
IF_NOT_ALIKE_FIRST = frozenset("""AA AE Big Bigg Downarrow L O OE SS Uparrow Updownarrow Vert
    aa ae backslash big bigg checkmark copyright dag dashleftarrow dashrightarrow ddag ddddot
    dddot downarrow frac hline i j l lVert langle lbrace lbrack lceil lfloor llcorner
    lrcorner lvert mathbf mathfrak mathit mathsf mathtt o oe qquad quad rVert rangle rbrace
    rbrack rceil rfloor rvert ss surd text ulcorner uparrow updownarrow urcorner varinjlim
    varliminf varlimsup varprojlim vert \\ { | }""".split()) | _TEXT_SYMBOLS
IF_NOT_ALIKE_SECOND = frozenset("""AA AE L O OE SS aa ae i j l lbrack mspace o oe
    rbrack ss \\""".split()) | _TEXT_SYMBOLS
# Commands whose own expansion gives `\\if` two alike, first: set as math with all that follows
# (`[\\sqrt x\\frac]`: `\\sqrt x\\frac t\\vtop`), as `~`; `IF_SECOND_STOPS`: stop LaTeX second.
IF_SELF_ALIKE = frozenset("""! $ * , - : > Longleftarrow Longleftrightarrow Longrightarrow P S
    _ bmod bowtie boxed choose colon cong ddots doteq dots dotsi dotso emph enspace
    hookleftarrow hookrightarrow idotsint iff iiiint iiint iint impliedby implies ldots
    longleftarrow longleftrightarrow longmapsto longrightarrow mapsto mathbb mathcal
    mathnormal mathrm mbox medspace mod models ne negmedspace negthickspace negthinspace neq
    notin operatorname over overleftarrow overleftrightarrow overline overrightarrow pmb pmod
    pod pounds smash sqrt textbf textit textnormal textrm textsf textsl texttt textup
    thinspace underleftarrow underleftrightarrow underline underrightarrow vdots widehat
    widetilde xleftarrow xrightarrow""".split())
IF_SECOND_STOPS = frozenset("varinjlim varliminf varlimsup varprojlim widehat widetilde".split())
IF_CONSUMED = frozenset("""limits nolimits middle mkern mathop mathbin mathrel mathord
    mathpunct mathopen mathclose mathinner""".split())  # primitives `\\if` takes, not set
_NOT_PRIMITIVE = IF_NOT_ALIKE_FIRST | IF_SELF_ALIKE | PLACEMENT_STOPS["array"]


def array_placement_math(tex: str, at: int) -> tuple[str, str] | None:
    """What LaTeX sets as math before the box of an {array} whose placement is at `tex[at:]`,
    and why, or None: `\\@array` compares its first two tokens with `\\if`; alike (`[tt…]`,
    `[\\alpha\\beta…]`), it sets the rest and a `t` as math (`[tt\\frac]`: `\\frac t\\vtop`)."""
    place = placement("array", tex, at)
    held = tex[place[0]:place[1]] if place else ""
    if len(held) > 1 and held[0] == held[1] and held[0] not in "\\{} \t\n":
        return held[2:] + " t", "two letters alike"
    first = _CONTROL.match(held) or re.match("~", held)
    if first and (first.group(0) == "~" or first.group(0)[1:] in IF_SELF_ALIKE):
        return held + " t", f"{first.group(0)}, which LaTeX expands to two tokens \\if finds alike"
    second = alike_second(held)
    if second is None or second[1][1:] in IF_SECOND_STOPS:  # `placement_problem` names it
        return None
    skip = len(second[1]) * (second[1][1:] in IF_CONSUMED)  # a primitive `\\if` takes whole
    return held[second[0] + skip:] + " t", "two commands \\if finds alike"


def alike_second(held: str) -> tuple[int, str] | None:
    """Where the second token of an {array}'s placement `held` starts, and the token, when
    `\\if` finds it alike with the first (two control sequences it cannot expand), else None.
    A blank after a control word is no token; after `\\,` it is one."""
    first = _CONTROL.match(held)
    if not first or first.group(0)[1:] in _NOT_PRIMITIVE:
        return None
    at = past_blanks(held, first.end()) if first.group(0)[1:].isalpha() else first.end()
    second = _CONTROL.match(held, at) or re.match("~", held[at:])
    if not second or second.group(0)[1:] in IF_NOT_ALIKE_SECOND:
        return None
    return at, second.group(0)


def row_in_placement(held: str) -> str | None:
    """Why LaTeX stops at the math `held` an {array}'s placement sets before its box
    (`array_placement_math`) when it holds a row's `\\\\`, braced or not, or None."""
    if not any(m.group(0) == "\\\\" for m in _CONTROL.finditer(held)):
        return None
    return ("'\\\\' in what LaTeX sets as math before the {array} (LaTeX: \"Missing \\endgroup "
            "inserted\"): write [t], [b] or [c]")
