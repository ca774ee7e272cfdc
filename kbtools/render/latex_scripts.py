"""The messages for scripts and limits LaTeX refuses, and for a command without its arguments:
a base with two superscripts or two subscripts (TeX's "Double superscript"), quoting the
formula as written and what to write instead, a power of a power (`{x^2}^3`) or one script
(`x^{23}`); the scripts `\\cfrac[l…]` puts on its numerator's last base; `\\limits` after what
is no operator (`OPERATORS`). `latex_structure` finds them."""

from __future__ import annotations

from kbtools.render.latex_args import (
    ARRAY_BASED,
    argument,
    number,
    shown,
    spec_columns,
    spec_problem,
)
from kbtools.render.latex_delims import SIZE_UNBRACED
from kbtools.render.latex_numbers import MISSING_NUMBER, Slip
from kbtools.render.latex_text import TEXT_ACCENTS, rule_problem, tab_problem


def double_script(base_at: int, first: tuple[int, bool], pieces: list[tuple[int, int, str]],
            at: int, tex: str, typed: bool) -> str:
    """The message for the second script `pieces[at]` on the base starting at `base_at`,
    whose first script of that kind is `first` (its piece, and whether it is a prime)."""
    start, end, piece = pieces[at]
    word = "superscript" if piece != "_" else "subscript"
    first_start = pieces[first[0]][0]
    first_end = pieces[first[0]][1] if first[1] else script_end(pieces, first[0])
    arg_end = end if piece == "'" else script_end(pieces, at)
    second = tex[start:arg_end].strip()
    wrapped = "{" + _brief(tex[base_at:start].strip()) + "}" + _brief(second)
    joined = ""
    if not first[1] and piece != "'" and not tex[first_end:start].strip():
        one, two = _inner(tex[first_start + 1:first_end]), _inner(tex[start + 1:arg_end])
        gap = " " if "\\" in one and one.rsplit("\\", 1)[1].isalpha() and two[:1].isalpha() \
            else ""
        joined = f" or {tex[base_at:first_start].strip()}{piece}{{{one}{gap}{two}}}"
    what = " (a prime ' is a superscript)" if first[1] or piece == "'" else ""
    read = ", as LaTeX reads it: a typed ² or ₁ is ^{2} or _{1}" if typed else ""
    return (f"double {word} in '{shown(tex[base_at:arg_end].strip())}'{read}{what}: a base "
            f"takes one (LaTeX: \"Double {word}\"); write {shown(wrapped)}{shown(joined)}")


def script_end(pieces: list[tuple[int, int, str]], at: int) -> int:
    """Where the script `pieces[at]` (`^` or `_`) and its argument end in the formula."""
    at += 1
    while at < len(pieces) and pieces[at][2].isspace():
        at += 1
    if at >= len(pieces):
        return pieces[-1][1]
    if pieces[at][2] != "{":
        return pieces[at][1]
    depth = 0
    for j in range(at, len(pieces)):
        depth += {"{": 1, "}": -1}.get(pieces[j][2], 0)
        if not depth:
            return pieces[j][1]
    return pieces[-1][1]


def _brief(script: str) -> str:
    """`x^{2}` as `x^2`: a script of one character written without its braces."""
    for mark in ("^{", "_{"):
        at = script.find(mark)
        while at != -1:
            if script[at + 3:at + 4] == "}" and script[at + 2:at + 3] not in "{}\\":
                script = script[:at + 1] + script[at + 2] + script[at + 4:]
            at = script.find(mark, at + 1)
    return script


def _inner(argument: str) -> str:
    argument = argument.strip()
    return argument[1:-1] if argument.startswith("{") and argument.endswith("}") else argument


USAGE = {"frac": "\\frac{a}{b}", "dfrac": "\\dfrac{a}{b}", "tfrac": "\\tfrac{a}{b}",
         "cfrac": "\\cfrac{a}{b}", "binom": "\\binom{n}{k}", "dbinom": "\\dbinom{n}{k}",
         "tbinom": "\\tbinom{n}{k}", "overset": "\\overset{a}{x}",
         "underset": "\\underset{a}{x}", "stackrel": "\\stackrel{a}{x}",
         "sqrt": "\\sqrt{x} or \\sqrt[3]{x}", "sideset": "\\sideset{_a}{^b}\\sum",
         "multicolumn": "\\multicolumn{2}{c}{x}"}


def missing_argument(command: str, n: int) -> str:
    """The message for `command` (or a `^`/`_`) without its `n` arguments."""
    if command in ("^", "_"):
        what = "superscript" if command == "^" else "subscript"
        escaped = "" if command == "^" else ", or \\_ for an underscore"
        return (f"'{command}' without a {what} after it (LaTeX: \"Missing {{ inserted\"): "
                f"write x{command}2 or x{command}{{ab}}{escaped}")
    usage = USAGE.get(command, f"\\{command}{{x}}")
    return (f"\\{command} takes {n} argument{'s' * (n > 1)} and has fewer (LaTeX: \"Missing "
            f"{{ inserted\"): write {usage}")


# Commands whose result is a math operator (TeX's Op atom), which `\\limits` and `\\nolimits`
# may follow (their scripts set too: `\\sum_a\\limits`): the large operators, the
# functions (`\\sin`, `\\lim`), `\\mathop{…}`, `\\operatorname{…}` and the braces over and under
OPERATORS = frozenset("""sum prod coprod int iint iiint iiiint idotsint oint bigcup bigcap
    bigoplus bigotimes bigodot biguplus bigsqcup bigvee bigwedge sin cos tan cot sec csc arcsin
    arccos arctan sinh cosh tanh coth log ln lg exp lim liminf limsup sup inf max min arg det dim
    gcd hom ker Pr deg injlim projlim varliminf varlimsup varinjlim varprojlim mathop
    operatorname overbrace underbrace""".split())


def limits_problem(word: str) -> str:
    """The message for `\\limits` or `\\nolimits` after what is no operator."""
    return (f"\\{word} after what is no math operator (LaTeX: \"Limit controls must follow a "
            f"math operator\"): it goes right after \\sum, \\int, \\lim or \\mathop{{…}}: "
            f"write \\mathop{{x}}\\{word}_a, or leave it out")


# amsmath's `\\pod{X}` is `(X)` and `\\pmod{X}` `(mod X)`: their argument is set in the math
# around them, not in a group of its own, so a token LaTeX refuses as another command's
# argument may be theirs, as the renderer's LaTeX draws it (tests/test_latex_modulo.py)
MODULO = frozenset({"pmod", "pod"})


def modulo_argument(command: str, piece: str, kind: str, name: str) -> int | str | None:
    """How `\\command` (`MODULO`) takes `piece` as its unbraced argument, in a frame of `kind`
    and `name` (`latex_structure._Frame`): 1 when it takes it (a `^` or `_`: `(mod ^)` raises
    the `)`), 0 when it takes it and the piece is read again as written (a `$` or an own-math
    argument's end where a math list ends: `\\pmod` at a formula's end takes the renderer's
    `$`; `\\right`), why LaTeX stops (`\\pmod\\limits`: after `(`), or None: read it as any
    command's argument."""
    if command not in MODULO:
        return None
    if piece in ("^", "_"):
        return 1
    top = kind in ("top", "inline") or name in ("top", "boxed")
    if piece in ("\\right", "\\middle") or top and piece == "$" or name == "boxed" and piece == "}":
        return 0
    if piece in ("\\limits", "\\nolimits"):
        return limits_problem(piece[1:])
    return None


def cfrac_scripts(kind: str, written: str) -> str:
    """The message for `\\cfrac[l…]` whose `…` begins with a script (`kind`: `^` or `_`)
    the numerator's last base has already: LaTeX sets it right after the numerator."""
    word = "superscript" if kind == "^" else "subscript"
    return (f"double {word} in '\\cfrac{shown(written)}': LaTeX sets what follows the l of "
            f"\\cfrac[l…] right after the numerator, whose last base has a {word} already "
            f"(LaTeX: \"Double {word}\"): write the {word} in the numerator, as "
            f"\\cfrac[l]{{a{kind}{{32}}}}{{b}}")


# Commands with arguments that TeX takes unbraced where it reads a math field (a script, the
# radicand of `\\sqrt`, the argument of a math class such as `\\mathop`: `SIZE_UNBRACED`). TeX
# expands them there, and they read their own arguments from what follows: `x^\\mathrm{T}`,
# `x_\\text{max}`, `x^\\frac12` are `x^{\\mathrm{T}}`, `x_{\\text{max}}`, `x^{\\frac12}`. Any
# other (`x^\\hat a`, `\\sqrt\\mbox{a}`, `x^\\c{c}`) needs braces ("Missing { inserted").
UNBRACED_IN_SCRIPT = frozenset("""frac dddot ddddot mathrm mathbf mathit mathsf mathtt mathcal
    mathbb mathfrak mathnormal text textrm textbf textit textsf texttt textnormal textup
    textsl emph""".split())
# Any other command (a macro: `\\frac`, `\\hat`, `\\text` …) takes the one token of such a
# command as its argument and sets it where the arguments it takes are not (`\\frac\\text{a}{b}`:
# "Missing } inserted"; `\\hat\\mathrm a`: "Argument of \\math@egroup has an extra }"), but
# for these pairs, which the renderer's LaTeX draws, the command's own arguments given by the
# macro and what follows set as math (tests/test_latex_nested.py sweeps every pair): amsmath's
# accents on an accent (`\\hat\\bar a`), the math fonts on a font and a few more, `\\pmod`
# and `\\pod` (whose own `)` is taken), and the arrows over and under (`\\overrightarrow\\hat a`:
# `ARROW_TAKES`).
_ACCENTS = frozenset("acute bar breve check ddot dot grave hat mathring tilde vec".split())
_FONTS = frozenset("mathbb mathbf mathcal mathfrak mathit mathnormal mathrm mathsf mathtt".split())
_MODULO = frozenset({"pmod", "pod"})
_IN_FONTS = _FONTS | _MODULO | frozenset("c mbox overline underline".split())
NESTED_UNBRACED: dict[str, frozenset[str]] = {
    **dict.fromkeys(_ACCENTS, _ACCENTS),
    # the symbol fonts' alphabets; the others (`\\mathbf` …) set up their font on first use,
    # which stops LaTeX inside `\\stackrel` (drawn only after another formula used it)
    **dict.fromkeys("mathrm mathcal mathbb mathnormal".split(), _IN_FONTS | {
        "overset", "underset", "stackrel"}),
    **dict.fromkeys("mathbf mathit mathsf mathtt mathfrak".split(), _IN_FONTS),
    **dict.fromkeys("frac dfrac tfrac binom dbinom tbinom boldsymbol boxed".split(), _MODULO),
    "cfrac": _MODULO, "substack": _MODULO | {"substack"},
}
ARROWS = frozenset("""overleftarrow overleftrightarrow overrightarrow underleftarrow
    underleftrightarrow underrightarrow""".split())
TEXT_COMMANDS = frozenset("""text mbox textrm textbf textit textsf texttt textnormal textup
    textsl emph b d""".split())  # their argument is text (`\\b`, `\\d`: a text accent's)
MACRO_ACCENTS = frozenset("bcd")  # OT1's macros among the text accents (the rest: `\\accent`)


def arrow_takes(outer: str, inner: str, takes: int) -> bool:
    """Whether LaTeX draws `\\inner` (taking `takes` arguments) unbraced after `\\outer`
    without its own arguments: `\\pmod`, `\\pod` give it their `)`, amsmath's arrows their
    `\\hfil` (one argument, not a math field's: `\\sqrt`, `\\mathop` … need a math list);
    neither gives one to an accent that is TeX's `\\accent` (`\\u`, `\\'`)."""
    if inner in TEXT_ACCENTS and inner not in MACRO_ACCENTS:
        return False
    return outer in _MODULO or outer in ARROWS and takes == 1 and inner not in SIZE_UNBRACED


def unbraced_argument(outer: str, inner: str, takes: int, later: bool) -> str | int:
    """What LaTeX makes of the command `\\inner`, which takes `takes` arguments of its own (a
    text accent, `\\c`, `\\'` …, one), written unbraced as an argument of `outer` (a `^`/`_`
    or a command's name; `later`: not its first argument, where LaTeX draws none): why it
    stops, or how many of `\\inner`'s arguments are read from what follows (a math field,
    `SIZE_UNBRACED`, leaves all to it; in the other pairs LaTeX draws, `NESTED_UNBRACED` and
    `arrow_takes`, the macro gives it its first, the rest follow: `\\mathrm\\overset{a}`)."""
    accent = inner in TEXT_ACCENTS
    field = outer in SIZE_UNBRACED
    if field and not accent and inner in UNBRACED_IN_SCRIPT:
        return takes
    if not field and not later and (inner in NESTED_UNBRACED.get(outer, ())
                                    or arrow_takes(outer, inner, takes)):
        return takes - 1  # the macro gives it one token (`\\pmod` its `)`, a font its end)
    inside = f"\\{inner}{{c}}" if accent and outer in TEXT_COMMANDS else \
        f"\\text{{\\{inner}{{c}}}}" if accent else f"\\{inner}{{…}}"
    if outer in ("^", "_"):
        written = f"x{outer}{{{inside}}}"
        what = f"as a {'superscript' if outer == '^' else 'subscript'}"
    else:
        written = f"\\{outer}{{{inside}}}"
        what = f"as the argument of \\{outer}"
    latex = "Missing { inserted" if field else \
        "Missing } inserted\" or \"Argument of … has an extra }"
    if accent:
        return (f"the text accent \\{inner} {what} needs braces around it and its letter "
                f"(LaTeX: \"{latex}\"): write {written}")
    return (f"\\{inner} {what} needs braces (LaTeX: \"{latex}\"): write {written}, as "
            "x^{\\hat a}, x_{\\sqrt{2}} or \\frac{\\text{a}}{b}")


def multicolumn_read(env: str | None, tabs: int, tabs_allowed: int | None, tex: str,
                     at: int) -> tuple[int, bool, int] | str:
    """Where reading `\\multicolumn`'s arguments at `tex[at:]` goes on (its number read; its
    column letters too unless they are braced, the bool: then `latex_structure` reads them; its
    cell's text is read as any argument) and the `&` its row has then, or why LaTeX refuses
    them. `env`: the environment whose cell it starts (None: it starts none); `tabs`: the `&`
    of its row so far, `tabs_allowed` the most the environment takes (None: any)."""
    if env is None:
        return rule_problem("multicolumn")
    if env not in ARRAY_BASED:
        return (f"\\multicolumn in {{{env}}} (LaTeX: \"Undefined control sequence\"): "
                "it spans columns of an {array}, a matrix or {cases} only; write the rows "
                "in {array}")
    count = argument(tex, at)
    spec = argument(tex, count[2]) if count else None
    n = number(tex[count[0]:count[1]]) if count else MISSING_NUMBER
    if count is None or spec is None:
        return missing_argument("multicolumn", 3)
    if isinstance(n, Slip):
        return (f"\\multicolumn{{{shown(tex[count[0]:count[1]])}}}: its first argument is the "
                f"number of columns it spans (LaTeX: \"{n.latex}\"): write "
                "\\multicolumn{2}{c}{x}")
    columns = spec_columns(tex, spec[0], spec[1])
    if isinstance(columns, Slip):
        return spec_problem(columns, tex[spec[0]:spec[1]], "\\multicolumn{2}{c}{x}")
    if columns > 1:
        return (f"\\multicolumn{{…}}{{{shown(tex[spec[0]:spec[1]])}}}: the column letters of "
                "a \\multicolumn make one column (LaTeX: \"Missing \\endgroup inserted\"): "
                "write \\multicolumn{2}{c}{x}")
    tabs += max(n, 1) - 1
    if tabs_allowed is not None and tabs > tabs_allowed:
        return tab_problem(env, tabs_allowed)
    braced = spec[2] != spec[1]
    return (spec[0] if braced else spec[2]), braced, tabs
