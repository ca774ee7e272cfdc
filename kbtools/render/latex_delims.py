"""What LaTeX takes after `\\left`, `\\middle`, `\\right` and the sizes (`\\big`, `\\Bigl`, …),
and in the `[…]` of a command's optional argument: the data and messages `latex_structure`
uses.

A delimiter is what TeX's `scan_delimiter` takes (blanks skipped): a character with a
`\\delcode` (LaTeX gives one to `( ) [ ] < > / | .`) or a command defined as a
`\\delimiter` (`\\{`, `\\langle`, `\\lvert`, `\\uparrow` …). `DELIMITERS` lists those of the
allowlist, as the renderer's LaTeX was found to take each after `\\left`; anything else
stops it ("Missing delimiter (. inserted)"). A size takes the delimiter as a macro argument:
one token, or a group whose first token is the delimiter (`\\big{(}`), the rest math.

An optional argument `[…]` ends at the first `]` outside braces, as TeX reads a delimited
argument: `\\sqrt[\\sqrt[3]{x}]{y}` ends at the inner `]`, and LaTeX stops. What it holds is
math for `\\sqrt` (the root's index) and the arrows (`\\xrightarrow[below]{above}`); amsmath's
`\\smash[t]` makes a command name of it (a command there stops LaTeX: "Missing \\endcsname
inserted"), and `\\cfrac[l]` compares its first token with `l` and `r` (amsmath's
`\\ifx r#1\\hfill\\fi#2\\ifx l#1\\hfill\\fi` in the numerator): after any other first token
LaTeX skips what it holds, after an `l` or `r` the rest is math in the numerator, followed by
`\\hfill` (`cfrac_side`, `cfrac_problem`).
"""

from __future__ import annotations

import unicodedata

from kbtools.render.latex_args import shown

DELIMITERS = frozenset({*"()[]<>/|.", "\\{", "\\}", "\\|", *(
    "\\" + word for word in """langle rangle lceil rceil lfloor rfloor lbrace rbrace lbrack
    rbrack vert Vert lvert rvert lVert rVert ulcorner urcorner llcorner lrcorner backslash
    uparrow downarrow updownarrow Uparrow Downarrow Updownarrow""".split())})
SIZES = frozenset("""big Big bigg Bigg bigl bigr Bigl Bigr biggl biggr Biggl Biggr bigm Bigm
    biggm Biggm""".split())
# What takes a size with its delimiter unbraced (`x^\\big(`, `\\mathopen\\big(`: TeX's own
# scripts, radical and math classes read on past it, but not past the class of `\\bigl`,
# `\\bigr`, `\\bigm`: "Missing { inserted"); any other command's argument is the size alone
# (`\\frac\\big(`, `\\hat\\big(` stop LaTeX), but for `\\pod`, `\\pmod`, whose own `)` it takes
SIZE_UNBRACED = frozenset("""^ _ sqrt mathop mathbin mathrel mathord mathpunct mathopen
    mathclose mathinner""".split())
SIZE_ANY = frozenset({"pod", "pmod"})
PLAIN_SIZES = frozenset("big Big bigg Bigg".split())

_INSTEAD = {"{": "\\{", "}": "\\}", "\\parallel": "\\|", "\\mid": "|", "\\lt": "<",
            "\\gt": ">", "‖": "\\|", "∣": "|", "〈": "\\langle", "〉": "\\rangle"}
# Commands whose `[…]` comes before their arguments: what it holds (see the docstring)
OPTIONAL_MATH = frozenset({"sqrt", "xrightarrow", "xleftarrow"})
OPTIONAL = OPTIONAL_MATH | {"smash", "cfrac"}

# What cannot take `\\hfill` as its argument, when it ends the rest of a `\\cfrac[l…]`: TeX's
# scripts, math classes and radical (`\\sqrt`), and the commands that measure their argument
# in a box (the `\\fi` after `\\hfill` ends the `\\ifx` inside it); any other takes it and draws
CFRAC_NO_HFILL = frozenset("""^ _ sqrt overset underset sideset mathop mathbin mathrel mathord
    mathpunct mathopen mathclose mathinner""".split())

Pieces = list[tuple[int, int, str]]


def past_blank_pieces(pieces: Pieces, at: int) -> int:
    while at < len(pieces) and pieces[at][2].isspace():
        at += 1
    return at


def prime_refused(pieces: Pieces, at: int, command: str) -> bool:
    """Whether a prime `'` at `pieces[at]`, the argument of `command`, stops LaTeX: a math
    field (`SIZE_UNBRACED`) takes it as a superscript with nothing to raise (`x^'`, `\\sqrt'`,
    `\\mathop'`: "Missing { inserted"); a macro (`\\frac'2`, and `\\sqrt[3]'`, whose `[…]`
    makes it one) sets it as a prime."""
    before = pieces[at - 1 - pieces[at - 1][2].isspace()][2] if at > 1 else ""
    return command in SIZE_UNBRACED and before != "]"


def delimiter_end(pieces: Pieces, at: int, command: str) -> int | str:
    """Where reading goes on after the delimiter `\\command` takes at `pieces[at]` (blanks
    first), or why LaTeX refuses what is there."""
    at = past_blank_pieces(pieces, at)
    if at < len(pieces) and pieces[at][2] in DELIMITERS:
        return at + 1
    return delimiter_problem(command, pieces, at)


def size_argument(pieces: Pieces, at: int, command: str) -> tuple[int, int] | str:
    """Where reading goes on after the delimiter a size (`\\big`) takes at `pieces[at]`, and
    the piece of the `{` of its group (`\\big{(x}`: the rest is math, up to its `}`) or -1;
    or why LaTeX refuses what is there."""
    at = past_blank_pieces(pieces, at)
    brace = at if at < len(pieces) and pieces[at][2] == "{" else -1
    end = delimiter_end(pieces, at + (brace >= 0), command)
    return end if isinstance(end, str) else (end, brace)


def size_alone(size: str, command: str) -> str:
    """The message for the size `size` written unbraced as an argument of `command` (a `^`
    or `_`, or a command's name) that takes it without its delimiter."""
    latex = "Missing { inserted" if command in SIZE_UNBRACED else "Missing delimiter (. inserted)"
    written = command if command in ("^", "_") else "\\" + command
    return (f"{size} as the argument of {written} is taken without its delimiter (LaTeX: "
            f"\"{latex}\"): write {'x' * (command in ('^', '_'))}{written}{{{size}(}}, the "
            "size and its delimiter in braces")


def delimiter_problem(command: str, pieces: Pieces, at: int) -> str:
    written = pieces[at][2] if at < len(pieces) and pieces[at][2] != "}" else ""
    following = [p[2] for p in pieces[at:at + 4]]
    if following[:3] == ["{", "\\text", "{"] and len(following) == 4:
        written = following[3]  # a character `tex_source` set as text: `（` is `{\\text{（}}`
    plain = unicodedata.normalize("NFKC", written) if not written.startswith("\\") else ""
    instead = _INSTEAD.get(written) or _INSTEAD.get(plain) or \
        (plain if plain in DELIMITERS and plain.isascii() else "")
    what = f"not '{written}'" if written else "and has none"
    write = f"\\{command}{instead}" if instead else \
        (f"\\{command}(" if command in SIZES else "\\left( x \\right)") + \
        "; a delimiter is one of ( ) [ ] \\{ \\} | \\| / \\langle \\rangle \\lfloor \\rfloor " \
        "\\lceil \\rceil \\lvert \\rvert \\uparrow …, or . for none"
    return (f"\\{command} takes a delimiter after it, {what} (LaTeX: \"Missing delimiter (. "
            f"inserted)\"): write {write}")


def optional_ends(pieces: Pieces) -> dict[int, int]:
    """For each `[` among the pieces, the piece of the `]` that would end an optional argument
    opened there (its first `]` outside braces), or -1 when a `}` closes what holds it first;
    for each `{`, the piece of its `}`. One pass: each `[` waits at its brace depth until a
    `]` or `}` there settles it."""
    ends: dict[int, int] = {}
    waiting: list[list[int]] = [[]]  # per open brace depth: the `[` not yet settled
    braces: list[int] = []  # the `{` open
    for j, (_, _, piece) in enumerate(pieces):
        if piece == "[":
            waiting[-1].append(j)
        elif piece == "]":
            ends.update(dict.fromkeys(waiting[-1], j))
            waiting[-1] = []
        elif piece == "{":
            waiting.append([])
            braces.append(j)
        elif piece == "}" and len(waiting) > 1:
            ends.update(dict.fromkeys(waiting.pop(), -1))
            ends[braces.pop()] = j
    for left in waiting:
        ends.update(dict.fromkeys(left, -1))
    return ends


def smash_problem(pieces: Pieces, start: int, stop: int) -> str | None:
    """Why LaTeX refuses what `\\smash[…]` holds in `pieces[start:stop]`, or None."""
    command = next((p[2] for p in pieces[start:stop] if p[2].startswith("\\")), "")
    if not command:
        return None
    return (f"\\smash[…] holds '{command}', but takes t or b (which side to smash; LaTeX: "
            "\"Missing \\endcsname inserted\"): write \\smash[t]{x} or \\smash[b]{x}")


def cfrac_side(pieces: Pieces, at: int, stop: int, ends: dict[int, int]) -> tuple[int, int]:
    """The piece of the `l` or `r` a `\\cfrac[…]` holding `pieces[at:stop]` starts with (its
    first token, as TeX reads a delimited argument: one pair of braces around all of it
    stripped, a blank a token) and the piece of those braces' `{`, or -1; (-1, -1) when it
    starts with anything else. `ends`: `optional_ends`, where each `{` is closed."""
    brace = -1
    if pieces[at][2] == "{" and ends.get(at) == stop - 1:
        brace, at = at, at + 1
    if at < stop and pieces[at][2] in ("l", "r"):
        return at, brace
    return -1, -1


def bare_tab(pieces: Pieces, at: int, stop: int) -> bool:
    """Whether an `&` outside braces is among `pieces[at:stop]`."""
    depth = 0
    for _, _, piece in pieces[at:stop]:
        depth += {"{": 1, "}": -1}.get(piece, 0)
        if piece == "&" and not depth:
            return True
    return False


def optional_tab(command: str) -> str:
    """The message for an `&` outside braces in the `[…]` of `\\command` in a cell."""
    return (f"'&' in the [ … ] of \\{command} within a cell of an environment ends the cell "
            "there (LaTeX: \"Misplaced alignment tab character &\"): write \\& for an "
            f"ampersand, or put braces around it: \\{command}[{{&}}]")


def cfrac_problem(what: str, latex: str) -> str:
    """The message for `what` in the `[…]` of a `\\cfrac` after its `l` or `r`."""
    return (f"\\cfrac[…] holds {what} after its l or r, which LaTeX sets in the numerator "
            f"followed by \\hfill (LaTeX: \"{latex}\"): write \\cfrac[l]{{a}}{{b}}, "
            "\\cfrac[c]{a}{b} or \\cfrac[r]{a}{b}, the numerator in its first braces")


def optional_crossed(command: str, read: str) -> str:
    """The message for an optional argument of `\\command` whose `]` something it holds takes
    (a `\\right]`, another command's `[…]`): LaTeX reads `read` as the command and its `[…]`."""
    return (f"the [ … ] of \\{command} ends at its first ']' outside braces: LaTeX reads "
            f"'{shown(read)}' (\"Argument of … has an extra }}\" or \"Missing delimiter\"): "
            f"put braces around what it holds, as \\{command}[{{…}}]{{x}}")
