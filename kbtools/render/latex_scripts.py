"""The message for a base with two superscripts or two subscripts (TeX's "Double
superscript"), quoting the formula as written and what to write instead: a power of a power
(`{x^2}^3`) or one script (`x^{23}`). `latex_structure` finds them."""

from __future__ import annotations

from kbtools.render.latex_args import shown


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
