"""The static formula check: LaTeX tokenised as TeX reads it, and only allowlisted tokens pass.

`latex_problem(source) -> str | None` is what ``kb check`` runs on every formula (no LaTeX
run) and what the renderer runs again before LaTeX sees anything. It is an allowlist, not a
blocklist: a formula passes only if every control word is a math command listed here, every
control symbol is an escape or spacing symbol listed here, every environment is a listed
math environment named literally (`\\begin{pmatrix}`), and no character has a meaning that
changes how TeX reads the rest (`%` comments, `#` parameters, `$` outside text, `^^`
character codes, control characters); in text `$…$` is math again (`dollar_problem`). Nothing allowed defines, redefines or constructs a command name, changes
a category code, reads or writes a file, or issues a special, so TeX reads the formula exactly
as this tokeniser does: `\\csname`, `\\@nameuse`, `\\scantokens`, `\\catcode`, `^^5c`,
`\\expandafter`, `\\input`, `\\special`, `\\def` … are unknown tokens, refused by name.

The allowed commands are data (`COMMANDS`, grouped as docs/formulas.md lists them); adding
one is safe when it only typesets (takes arguments that are themselves formulas or plain
text/dimensions) and is defined by the renderer's preamble (amsmath, amssymb, CJKutf8).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import NamedTuple

from kbtools.render.glyphs import (
    BSMI_PACKAGE,
    SUBSCRIPTS,
    SUPERSCRIPTS,
    bsmi_installed,
    drawn_in_text,
    needs_bsmi,
    text_glyph,
)
from kbtools.render.latex_structure import structure_problem
from kbtools.render.latex_text import OWN_MATH

MAX_FORMULA_CHARS = 20_000

# Control words by group (the groups are for the documentation; the check uses their union).
COMMAND_GROUPS: dict[str, str] = {
    "Greek letters": """alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta
        iota kappa varkappa lambda mu nu xi pi varpi rho varrho sigma varsigma tau upsilon
        phi varphi chi psi omega digamma Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi
        Psi Omega varGamma varDelta varTheta varLambda varXi varPi varSigma varUpsilon
        varPhi varPsi varOmega""",
    "structure": """frac dfrac tfrac cfrac binom dbinom tbinom sqrt over choose substack
        sideset overset underset stackrel overline underline overbrace underbrace
        overrightarrow overleftarrow overleftrightarrow underrightarrow underleftarrow
        underleftrightarrow xrightarrow xleftarrow boxed not operatorname mathop mathbin
        mathrel mathord mathpunct mathopen mathclose mathinner begin end hline cline
        multicolumn""",
    "delimiters and sizes": """left right middle big Big bigg Bigg bigl bigr Bigl Bigr
        biggl biggr Biggl Biggr bigm Bigm biggm Biggm langle rangle lceil rceil lfloor
        rfloor lbrace rbrace lbrack rbrack vert Vert lvert rvert lVert rVert ulcorner
        urcorner llcorner lrcorner backslash""",
    "styles and fonts": """displaystyle textstyle scriptstyle scriptscriptstyle limits
        nolimits mathrm mathbf mathit mathsf mathtt mathcal mathbb mathfrak mathnormal
        boldsymbol pmb text mbox textrm textbf textit textsf texttt textnormal textup
        textsl emph""",
    "accents": """hat widehat check tilde widetilde acute grave dot ddot dddot ddddot breve
        bar vec mathring""",
    "spacing": """quad qquad enspace thinspace medspace thickspace negthinspace
        negmedspace negthickspace hspace mkern mspace phantom hphantom vphantom smash""",
    "functions": """sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh coth log ln
        lg exp lim liminf limsup sup inf max min arg det dim gcd hom ker Pr deg mod bmod
        pmod pod injlim projlim varliminf varlimsup varinjlim varprojlim""",
    "large operators": """sum prod coprod int iint iiint iiiint idotsint oint bigcup
        bigcap bigoplus bigotimes bigodot biguplus bigsqcup bigvee bigwedge""",
    "binary operators": """times cdot div pm mp ast star circ bullet oplus ominus otimes
        oslash odot cap cup setminus smallsetminus wedge vee land lor sqcap sqcup uplus
        amalg dagger ddagger wr diamond triangleleft triangleright bigtriangleup
        bigtriangledown dotplus ltimes rtimes centerdot boxplus boxminus boxtimes boxdot
        divideontimes intercal""",
    "relations": """le leq ge geq leqq geqq leqslant geqslant ne neq approx approxeq equiv
        sim simeq cong propto ll gg lll ggg subset subseteq supset supseteq subsetneq
        supsetneq sqsubset sqsupset sqsubseteq sqsupseteq in ni notin mid nmid parallel
        nparallel perp prec succ preceq succeq asymp doteq models vdash dashv vDash Vdash
        bowtie smile frown lesssim gtrsim lessapprox gtrapprox nless ngtr nleq ngeq
        thickapprox thicksim triangleq eqsim backsim fallingdotseq risingdotseq because
        therefore""",
    "arrows": """to gets rightarrow leftarrow leftrightarrow Rightarrow Leftarrow
        Leftrightarrow longrightarrow longleftarrow longleftrightarrow Longrightarrow
        Longleftarrow Longleftrightarrow mapsto longmapsto uparrow downarrow updownarrow
        Uparrow Downarrow Updownarrow nearrow searrow swarrow nwarrow implies impliedby
        iff hookrightarrow hookleftarrow rightharpoonup rightharpoondown leftharpoonup
        leftharpoondown rightleftharpoons leftrightharpoons leadsto rightsquigarrow
        twoheadrightarrow twoheadleftarrow dashrightarrow dashleftarrow circlearrowleft
        circlearrowright curvearrowleft curvearrowright""",
    "symbols": """infty partial nabla forall exists nexists emptyset varnothing angle
        measuredangle triangle prime backprime ell hbar hslash imath jmath Re Im aleph beth
        wp top bot ldots cdots vdots ddots dots dotsc dotsb dotsm dotsi dotso checkmark
        square blacksquare lozenge blacklozenge surd flat sharp natural clubsuit
        diamondsuit heartsuit spadesuit complement mho eth Bbbk circledS diagup diagdown
        colon neg lnot S P dag ddag copyright pounds""",
    "text symbols": """textdegree textcelsius textmu textperthousand textpm texttimes
        textdiv textbackslash textasciitilde textasciicircum textunderscore textbar
        textless textgreater textbullet textregistered texttrademark textcopyright
        textsection textperiodcentered textohm i j""",
    # accents of LaTeX's text mode (OT1 encoding) written as a letter: in text only, but
    # `\\b` (bar under) and `\\d` (dot under), which LaTeX sets in a box in math too
    "text accents": "u v H c d b r t",
}
COMMANDS = frozenset(w for group in COMMAND_GROUPS.values() for w in group.split())
# Commands of packages the renderer does not load, which Typora's and Obsidian's MathJax
# draw: refused with what to write instead (the package, then the way to write it).
UNSUPPORTED: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("ce", "pu"), ("mhchem chemistry",
                                   "write it in math: \\mathrm{H_2O}, \\mathrm{CO_2}, "
                                   "A \\rightarrow B")),
    **dict.fromkeys(("SI", "si", "qty", "unit", "num", "ang", "SIrange", "qtyrange",
                     "numrange"), ("siunitx units",
                                   "write the value and unit: 5\\,\\mathrm{kg}, "
                                   "2\\,\\mathrm{m/s}")),
    "degree": ("gensymb", "write ^\\circ"), "celsius": ("gensymb", "write ^\\circ\\mathrm{C}"),
    "ohm": ("gensymb", "write \\Omega"), "micro": ("gensymb", "write \\mu"),
    "k": ("the ogonek, not in the renderer's OT1 font encoding: \"Command \\k unavailable\"",
          "write the letter with it: ą, ę"),
}
# Control symbols: escaped specials, spacing, line break, text accents, italic correction,
# discretionary hyphen and times.
SYMBOLS = frozenset("\\{}%_&#$,:;! |>'`\"^~=./-*")
# Environments that work inside the renderer's `$\displaystyle …$`.
ENVIRONMENTS = frozenset("""matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases
    aligned alignedat gathered array subarray""".split())
DISPLAY_ENVIRONMENTS = frozenset("""align align* gather gather* equation equation* multline
    multline* flalign flalign* alignat alignat* split eqnarray eqnarray*""".split())

# Commands whose braced argument is text, where CJKutf8 typesets any character it has a glyph
# for; everywhere else a formula is in math mode, whose fonts hold no Chinese, Greek or other
# non-ASCII character (TeX drops such a character, or a text symbol, from the page).
TEXT_ARGUMENT = frozenset("text mbox textrm textbf textit textsf texttt textnormal textup "
                          "textsl emph b d".split())  # `\\b`, `\\d`: in text in math too
TEXT_SYMBOLS = frozenset(COMMAND_GROUPS["text symbols"].split())
# Characters an input method types in math mode, as the math commands Typora's and
# Obsidian's MathJax draw them with (spacing of relations and operators kept); any other
# non-ASCII character in math mode is set as text (`tex_source`).
MATH_CHARS: dict[str, str] = {
    **dict(zip("αβγδεζηθικλμνξπρσςτυφχψωϑϕϵϖϱ", r"""\alpha \beta \gamma \delta \varepsilon
        \zeta \eta \theta \iota \kappa \lambda \mu \nu \xi \pi \rho \sigma \varsigma \tau
        \upsilon \varphi \chi \psi \omega \vartheta \phi \epsilon \varpi \varrho""".split(),
                strict=True)),
    **dict(zip("ΓΔΘΛΞΠΣΥΦΨΩµ", r"""\Gamma \Delta \Theta \Lambda \Xi \Pi \Sigma \Upsilon
        \Phi \Psi \Omega \mu""".split(), strict=True)),
    **dict(zip("×÷±∓·⋅∘∗≤≥≦≧⩽⩾≠≈≡∼≃≅∝≪≫∈∉∋⊂⊃⊆⊇∪∩∧∨¬∀∃∄∅∞∂∇∑∏∫∬∮√→←↔⇒⇐⇔↦↑↓⊥∥∠…⋯−′″",
               r"""\times \div \pm \mp \cdot \cdot \circ \ast \leq \geq \leqq \geqq
        \leqslant \geqslant \neq \approx \equiv \sim \simeq \cong \propto \ll \gg \in
        \notin \ni \subset \supset \subseteq \supseteq \cup \cap \wedge \vee \neg
        \forall \exists \nexists \emptyset \infty \partial \nabla \sum \prod \int \iint
        \oint \surd \to \gets \leftrightarrow \Rightarrow \Leftarrow \Leftrightarrow
        \mapsto \uparrow \downarrow \perp \parallel \angle \ldots \cdots - ' ''""".split(),
               strict=True)),
    **dict(zip("ℓ∆", r"\ell \Delta".split(), strict=True)),  # ∆ (U+2206) is no Δ (U+0394)
    **dict(zip("⊕⊗⊙∵∴△≜ℝℕℤℚℂ⌈⌉⌊⌋⟨⟩♠♣♥♦◊", r"""\oplus \otimes \odot \because \therefore
        \triangle \triangleq {\mathbb{R}} {\mathbb{N}} {\mathbb{Z}} {\mathbb{Q}} {\mathbb{C}}
        \lceil \rceil \lfloor \rfloor \langle \rangle \spadesuit \clubsuit \heartsuit
        \diamondsuit \lozenge""".split(), strict=True)),
    # units an input method offers as one character (㎡ in 面积 100㎡)
    **dict(zip("℉㎡㎏㎜㎝㎞㏄", r"""{{}^\circ\mathrm{F}} {\mathrm{m}^2} {\mathrm{kg}} {\mathrm{mm}}
        {\mathrm{cm}} {\mathrm{km}} {\mathrm{cc}}""".split(), strict=True)),
}
_TEX_PIECE = re.compile(r"\\(?:[A-Za-z]+|.)|[{}$]|[^\x00-\x7f]", re.S)
_TOKEN = re.compile(r"\\([A-Za-z]+|.?)|[{}%#$]|[\x00-\x1f\x7f-\x9f\ud800-\udfff]", re.S)
_ENV_NAME = re.compile(r"\s*\{([A-Za-z]+\*?)\}")
# `\tag{X}` / `\tag*{X}` (Typora's and Obsidian's equation number): the formula's label,
# drawn at its right (`tex_source`); checked on its own, it is not in `COMMANDS`.
TAG = "tag"
_TAG_ARG = re.compile(r"\s*+(\*?)\s*+\{")  # possessive: no backtracking over blanks


class Token(NamedTuple):
    kind: str  # "word" (\name), "symbol" (\x), "char" (a special character)
    value: str  # the name without "\\", or the character(s)
    end: int  # index just after the token in the formula


def tokens(text: str) -> Iterator[Token]:
    """The tokens of `text` that matter to the check, in order (letters, digits and other
    plain characters are skipped: they only typeset themselves)."""
    for m in _TOKEN.finditer(text):
        if m.group(1) is None:
            yield Token("char", m.group(0), m.end())
        elif len(m.group(1)) > 1 or m.group(1).isalpha():
            yield Token("word", m.group(1), m.end())
        else:
            yield Token("symbol", m.group(1), m.end())


def latex_problem(source: str) -> str | None:
    """None when the formula may be rendered, else one line saying what is not allowed.

    Static and linear in the formula's length (no LaTeX run), so ``kb check`` stays fast.
    """
    text = " ".join(source.split())
    if not text:
        return "empty formula"
    if all(c == " " or unicodedata.category(c) == "Cf" for c in text):
        return "empty formula (only invisible characters such as a zero-width space)"
    if len(text) > MAX_FORMULA_CHARS:
        return f"formula is {len(text):,} characters long; the limit is {MAX_FORMULA_CHARS:,}"
    if "^^" in text:  # TeX turns ^^xx into a character before it tokenises: refuse outright
        return "'^^' (TeX's character-code notation) is not allowed in formulas"
    if ("$" in text or "\\(" in text or "\\)" in text) and (problem := dollar_problem(text)):
        return problem
    depth = 0
    lefts = rights = 0
    stack: list[str] = []
    skip_to = 0  # end of an environment name already checked
    tags = 0
    in_tag = False  # inside the braces of the label of a `\tag`
    for tok in tokens(text):
        if tok.end <= skip_to:
            continue
        if tok.kind == "word" and tok.value == TAG:
            problem = _tag_problem(text, tok, tags, in_tag, bool(depth or stack or lefts != rights))
            if problem:
                return problem
            tags, in_tag = tags + 1, True
            continue
        # `dollar_problem` read them
        dollar = tok.value == "$" or (tok.kind == "symbol" and tok.value in ("(", ")"))
        problem = None if dollar else _token_problem(tok)
        if problem:
            return problem
        if tok.kind == "char":
            depth += {"{": 1, "}": -1}.get(tok.value, 0)
            if depth < 0:
                return "unbalanced braces: '}' without '{'"
            in_tag = in_tag and depth > 0
        elif tok.value in ("begin", "end"):
            m = _ENV_NAME.match(text, tok.end)
            if not m:
                return f"\\{tok.value} must be followed by an environment name in braces"
            problem = _environment_problem(m.group(1))
            if problem:
                return problem
            skip_to = m.end()
            if tok.value == "begin":
                stack.append(m.group(1))
            elif not stack or stack.pop() != m.group(1):
                return f"\\end{{{m.group(1)}}} does not match its \\begin"
        elif tok.value == "left":
            lefts += 1
        elif tok.value == "right":
            rights += 1
    if depth:
        return f"unbalanced braces: {depth} '{{' not closed"
    if stack:
        return f"\\begin{{{stack[-1]}}} is never ended"
    if lefts != rights:
        return f"\\left and \\right do not pair ({lefts} vs {rights})"
    return structure_problem(tex_source(text), text) or glyph_problem(text)


def dollar_problem(formula: str) -> str | None:
    """Why a `$`, `\\(` or `\\)` of `formula` stops LaTeX, or None. In text (the argument of
    `\\text` and the other `TEXT_ARGUMENT` commands) `$…$` and `\\(…\\)` are math again, as
    LaTeX draws them (`\\text{if $x>0$}`), closed before the text ends; in `\\boxed`'s
    argument (and the other `OWN_MATH` commands') `$…$` is text (`\\boxed{$x$}`), and at the
    formula's top level, where a `$` ends the renderer's `$\\displaystyle …$` (`x $y$ z`,
    `\\pmod{$n$}`: `\\pmod`'s argument is set there), if it does not end the formula with a
    `$` (LaTeX reads `$$`, display math); anywhere else math is already on. A top-level
    `$…$` around no text (`y $$ z`, `$ $`) is refused though LaTeX draws it: it sets
    nothing, and is a formula's end written inside it (`$$ y $$ z $$` on one line)."""
    tagged = _tag_at_end(formula)
    top = None  # the top-level `$` opening text not closed yet
    for p in pieces(tagged):
        if p.owner == "top" and p.switch == "close" and tagged[p.end:p.end + 1] in ("$", ""):
            return ("'$' inside a formula ends text right before another '$' or the formula's "
                    "end (LaTeX reads '$$', display math: \"Display math should end with $$\"): "
                    "write x \\text{ y}")
        if p.owner == "top" and p.switch == "close" and top is not None \
                and not tagged[top.end:p.start].strip():
            return ("'$$' inside a formula, around no text: a formula's end written inside it "
                    "(two formulas on one line, as $$ a $$ b $$?): end the formula there and "
                    "start the next on a line of its own, or write \\$\\$ for dollar signs")
        top = p if p.owner == "top" and p.switch == "open" else None if p.owner == "top" \
            else top
        if p.switch == "bad" and p.text == "$":
            return ("'$' inside a formula (math is already on): write \\$ for a dollar sign; "
                    "only in \\text{…}, \\boxed{…} and at the formula's top level does $…$ "
                    "switch between math and text, as \\text{if $x>0$}")
        if p.switch == "bad":
            what = "closes no math opened" if p.text == "\\)" else "opens math where it is on"
            return (f"command {p.text} {what} (LaTeX: \"Bad math environment delimiter\"): a formula "
                    "is math already; only in \\text{…} does \\( … \\) set math again, as "
                    "\\text{if \\(x>0\\)}")
        if p.switch == "unclosed$boxed":
            return (f"'$' inside \\{p.owner}{{…}} sets text that it does not end before the '}}' "
                    f"(LaTeX: \"Missing $ inserted\"): close it, as \\{p.owner}{{$x$}}, or leave "
                    f"the $ out for math, as \\{p.owner}{{x}}")
        if p.switch == "unclosed$top":
            return ("'$' inside \\pmod{…} or \\pod{…} sets text that it does not end before the "
                    "'}': close it, as \\pmod{$n$}, or leave the $ out for math, as \\pmod{n}")
        if p.switch == "unclosed$":
            return ("'$' or '\\(' inside \\text{…} opens math that the text does not close "
                    "(LaTeX: \"Missing $ inserted\"): close it before the text's '}', as "
                    "\\text{if $x>0$} or \\text{if \\(x>0\\)}")
    if top is not None:
        return ("'$' inside a formula, at its top level, opens text that it does not close "
                "(LaTeX: \"Display math should end with $$\"): close it, as x $y$ z, or write "
                "\\$ for a dollar sign")
    return None


def inline_problem(source: str) -> str | None:
    """Why a formula `latex_problem` accepts cannot be inline math (`$…$`), or None.

    LaTeX (and KaTeX) number display math only: `\\tag` in `$…$` stops LaTeX ("\\tag not
    allowed here"), so ``kb check`` and ``kb build`` refuse it there (the renderer typesets
    every formula the same way and would draw it)."""
    if any(tok.kind == "word" and tok.value == TAG for tok in tokens(source)):
        return ("\\tag in inline math ($…$): LaTeX numbers display formulas only; "
                "write the formula as a $$ … $$ block, or leave the \\tag out")
    return None


def _tag_problem(text: str, tok: Token, seen: int, in_tag: bool, nested: bool) -> str | None:
    """Why a `\\tag` is refused, or None: one per formula, at its top level, with its
    label in braces (the label's own tokens are checked as the rest of the formula)."""
    if in_tag:
        return "\\tag inside the label of another \\tag is not allowed"
    if seen:
        return "more than one \\tag in a formula (LaTeX: \"Multiple \\tag\"); keep one"
    if nested:
        return ("\\tag must stand at the formula's top level "
                "(not inside braces, \\left…\\right or an environment)")
    arg = _TAG_ARG.match(text, tok.end)
    if not arg:
        return "\\tag must be followed by its label in braces: \\tag{1} or \\tag*{A}"
    return _label_problem(_braced(text, arg.end()), bool(arg.group(1)))


def _braced(text: str, start: int) -> str:
    """The text from `start` (just after a `{`) to its closing brace; to the end when it has
    none (the check of the whole formula says so)."""
    depth = 1
    for m in _TOKEN.finditer(text, start):
        depth += {"{": 1, "}": -1}.get(m.group(0), 0)
        if not depth:
            return text[start:m.start()]
    return text[start:]


def _label_problem(label: str, starred: bool) -> str | None:
    """Why a `\\tag`'s label is refused, or None: it is read as the renderer sets it, in text
    (`\\text{(label)}`, `\\tag*`: `\\text{label}`, `_tag_at_end`), token by token as TeX reads
    it, so `\\^`, `\\_`, `\\&` and `$\\alpha$` pass and a math command, `^`, `_` or `&` is
    refused before `kb build` stops at it. (A command not allowed anywhere, or a `\\tag` in
    the label, is left to the check of the whole formula to name.)"""
    if any(tok.value == TAG or (tok.value not in "$()" and _token_problem(tok))
           for tok in tokens(label)):
        return None
    problem = structure_problem(tex_source("\\text{" + (label if starred else f"({label})")
                                           + "}"))
    return f"a \\tag's label is set as text: {problem}" if problem else None


def _token_problem(tok: Token) -> str | None:
    """Why one token is refused, or None."""
    if tok.kind == "word":
        if tok.value in COMMANDS:
            return None
        if tok.value in UNSUPPORTED:
            what, instead = UNSUPPORTED[tok.value]
            return f"command \\{tok.value} ({what}) is not supported in formulas; {instead}"
        return f"command \\{tok.value} is not allowed in formulas (see docs/formulas.md)"
    if tok.kind == "symbol":
        if tok.value == "":
            return "a formula cannot end with '\\'"
        if tok.value in SYMBOLS:
            return None
        return f"command \\{_shown(tok.value)} is not allowed in formulas (see docs/formulas.md)"
    if tok.value in "{}":
        return None
    if tok.value == "$":
        return "'$' inside a formula (math is already on)"
    if tok.value == "%":
        return "'%' starts a TeX comment; write \\% for a percent sign"
    if tok.value == "#":
        return "'#' is TeX's parameter character; write \\# for a number sign"
    return f"control character {_shown(tok.value)} is not allowed in formulas"


def _environment_problem(name: str) -> str | None:
    if name in ENVIRONMENTS:
        return None
    if name in DISPLAY_ENVIRONMENTS:
        inner = "aligned" if name.startswith(("align", "eqnarray", "split", "flalign")) \
            else "gathered"
        return (f"environment {{{name}}} cannot be used inside a formula; "
                f"use {{{inner}}} instead")
    return (f"unknown environment {{{name}}}: formulas allow matrix, pmatrix, bmatrix, "
            "cases, aligned, array and the others listed in docs/formulas.md")


def _shown(ch: str) -> str:
    """A character as it can be shown in a one-line message."""
    if len(ch) == 1 and (ch.isprintable() and not unicodedata.category(ch).startswith("C")):
        return ch
    return "".join(f"U+{ord(c):04X}" for c in ch)


class Piece(NamedTuple):
    start: int
    end: int
    text: str  # a control word or symbol, a brace, or one non-ASCII character
    in_text: bool  # inside the argument of a `TEXT_ARGUMENT` command (else math mode)
    # what a `$`, `\\(`, `\\)` or `}` does to the mode: "open" (math in text, or text in
    # `\\boxed`'s math), "close", "bad" (LaTeX stops), "unclosed" (a `}` ending a `$` left
    # open: "unclosed$" for math in text, "unclosed$boxed" for text in `\\boxed`), else ""
    switch: str = ""
    owner: str = ""  # for "unclosed$boxed": the `OWN_MATH` command whose argument it is in


# `\\boxed{…}` sets its argument as `\\fbox{$\\displaystyle …$}`, and the other `OWN_MATH`
# commands theirs in a `$…$` of their own: math, where a `$` sets text again (`\\boxed{$x$}`
# is x in text)
_OPENS = {("text", "$"): "$", ("text", "\\("): "$", ("boxed", "$"): "$boxed",
          ("", "$"): "$top", ("$top", "\\("): "$", ("$boxed", "\\("): "$"}  # `$top`: at
# the formula's top level (`dollar_problem`)
_CLOSES = frozenset({("$", "$"), ("$", "\\)"), ("$boxed", "$"), ("$top", "$")})


def pieces(formula: str) -> Iterator[Piece]:
    """The pieces of `formula` that `tex_source` may rewrite, each with its mode: how the
    renderer, the glyph check (`glyph_problem`) and `dollar_problem` read a formula. In text
    `$…$` and `\\(…\\)` are math again, in `\\boxed`'s argument (and the other `OWN_MATH`
    commands') `$…$` is text."""
    # one entry per open brace, `$` or `\\(`: "text", "math", "boxed" (an `OWN_MATH` command's
    # argument), "$" (math in text) or "$boxed" (text in that math, up to its `$`)
    modes: list[str] = []
    owners: list[tuple[str, int]] = []  # per "boxed" entry: its command, arguments after it
    text_arg_at = -1  # where a TEXT_ARGUMENT or `OWN_MATH` command (or its argument) ended
    boxed: tuple[str, int] | None = None  # that command was `OWN_MATH`: it, arguments left
    pmod_at = -1  # where a `\\pmod` or `\\pod` ended
    for m in _TEX_PIECE.finditer(formula):
        piece = m.group(0)
        top = modes[-1] if modes else ""
        in_text = top in ("text", "$boxed", "$top")
        switch = owner = ""
        then: tuple[str, int] | None = None  # the `OWN_MATH` argument this `}` ends: the next
        if piece == "{":
            arg = text_arg_at >= 0 and not formula[text_arg_at:m.start()].strip()
            if arg and boxed:
                modes.append("boxed")
                owners.append(boxed)
            elif pmod_at >= 0 and not formula[pmod_at:m.start()].strip():
                modes.append(top)  # `\\pmod{…}`: its braces are no group (a macro's argument)
            else:
                modes.append("text" if in_text or arg else "math")
        elif piece == "}":
            left = ""
            while modes and (left := modes.pop()) in ("$", "$boxed", "$top"):  # left open
                switch = "unclosed" + left
                owner = owners[-1][0] if owners else ""
            if left == "boxed" and (ended := owners.pop())[1]:  # `\\sideset{a}{…}`
                then = (ended[0], ended[1] - 1)
        elif piece in ("$", "\\(", "\\)"):
            opens = _OPENS.get((top, piece))
            closes = (top, piece) in _CLOSES
            switch = "open" if opens else "close" if closes else "bad"
            if opens:
                modes.append(opens)
            elif closes:
                modes.pop()
            owner = "top" if "$top" in (opens, top) and not switch == "bad" else owner
        command = piece[1:] if piece[0] == "\\" else ""
        text_arg_at = m.end() if command in TEXT_ARGUMENT or command in OWN_MATH or then else -1
        boxed = then or ((command, OWN_MATH[command]) if command in OWN_MATH else None)
        pmod_at = m.end() if command in ("pmod", "pod") else -1
        yield Piece(m.start(), m.end(), piece, in_text, switch, owner)


def tex_source(formula: str) -> str:
    """The formula as LaTeX is given it: in math mode (outside the arguments of `\\text` and
    the other `TEXT_ARGUMENT` commands) a non-ASCII character becomes its math command
    (`MATH_CHARS`: α → `\\alpha`, ≤ → `\\leq`), a superscript or subscript character a
    script (`m⁻¹` → `m^{-1}`, neighbours grouped: `glyphs.SUPERSCRIPTS`) or, with any other
    (温, ℃, °), is set as text (`{\\text{温}}`), and a text symbol (`\\textcelsius`) is set as
    text too, as MathJax draws them; TeX's math fonts have none of them. A character only the
    bsmi font has (traditional Chinese: 體) is set in that font wherever it is text
    (`glyphs.text_glyph`: `{\\CJKfamily{bsmi}體}`). Each becomes one token or one group, so `x^α` and `\\frac 温度` keep their meaning (`x^²` becomes
    `x^{{}^{2}}`). Invisible format characters (zero-width space, BOM, soft hyphen) are left
    out. Only ever adds allowlisted commands (and the renderer's own `\\CJKfamily{bsmi}`)
    and balanced braces; linear in the formula's length.

    A `\\tag{X}` is taken out and its label drawn at the formula's end, in text as amsmath
    sets it: `\\qquad\\text{(X)}` (`\\tag*{X}`: `\\qquad\\text{X}`), since the formula is
    typeset inline, where LaTeX has no equation number."""
    formula = _tag_at_end(formula)
    out: list[str] = []
    pos = 0
    last = ""  # the last non-blank character given to LaTeX
    script: tuple[str, int, str, bool] | None = None  # the ^{…}/_{…} run being read:
    # its kind, its index in `out`, its text, and whether it follows a `^`/`_` of its own
    for p in pieces(formula):
        gap = formula[pos:p.start]
        out.append(gap)
        last = gap.rstrip()[-1:] or last
        pos = p.end
        piece = p.text
        word = piece[1:] if piece[0] == "\\" else ""
        kind = "" if p.in_text else "^" if piece in SUPERSCRIPTS else \
            "_" if piece in SUBSCRIPTS else ""
        if kind:
            value = (SUPERSCRIPTS if kind == "^" else SUBSCRIPTS)[piece]
            if script is not None and script[0] == kind and not gap:  # `⁻¹` → `^{-1}`
                script = (kind, script[1], script[2] + value, script[3])
            else:  # after `^` or `_`, a script of its own: `x^²` → `x^{{}^{2}}`
                script = (kind, len(out), value, last in ("^", "_"))
                out.append("")
            group = f"{kind}{{{script[2]}}}"
            out[script[1]] = "{{}" + group + "}" if script[3] else group
            last = "}"
            continue
        script = None
        if not word and unicodedata.category(piece) == "Cf":
            continue  # invisible (a zero-width space copied from a web page): no glyph to draw
        if p.in_text or (word and word not in TEXT_SYMBOLS) or piece in "{}$":
            out.append(text_glyph(piece) if p.in_text else piece)
        elif piece in MATH_CHARS:  # a control word ends at the space: `αx` → `\\alpha x`
            out.append(MATH_CHARS[piece] + " " * MATH_CHARS[piece][-1].isalpha())
        else:  # a non-ASCII character, or a text symbol, in math mode
            out.append("{\\text{" + text_glyph(piece) + "}}")
        last = out[-1].rstrip()[-1:] or last
    out.append(formula[pos:])
    return "".join(out)


def glyph_problem(formula: str) -> str | None:
    """Why the renderer could not draw a character of `formula` (LaTeX would stop with "no
    glyph"), or None: read as `tex_source` reads it, a non-ASCII character in math must have
    a math command (`MATH_CHARS`), be a sub/superscript or have a text glyph
    (`glyphs.drawn_in_text`); in `\\text{}` (and a `\\tag`'s label) it needs a text glyph."""
    for p in pieces(_tag_at_end(formula)):
        ch = p.text
        if len(ch) != 1 or ch.isascii() or unicodedata.category(ch) == "Cf" \
                or drawn_in_text(ch):
            continue
        if not p.in_text and (ch in MATH_CHARS or ch in SUPERSCRIPTS or ch in SUBSCRIPTS):
            continue
        return f"{_char_named(ch)} {_glyph_hint(ch, p.in_text)}"
    return None


def _char_named(ch: str) -> str:
    name = unicodedata.name(ch, "")
    return f"character {_shown(ch)} (U+{ord(ch):04X}{' ' + name if name else ''})"


def _glyph_hint(ch: str, in_text: bool) -> str:
    """What to write instead of a character the renderer has no glyph for."""
    where = "in \\text{}" if in_text else "in math"
    head = f"has no glyph in the formula renderer's fonts {where} (kb build would fail); "
    math = MATH_CHARS.get(ch) or (f"^{{{SUPERSCRIPTS[ch]}}}" if ch in SUPERSCRIPTS else
                                  f"_{{{SUBSCRIPTS[ch]}}}" if ch in SUBSCRIPTS else "")
    if in_text and math:
        return head + f"write it in math, outside \\text{{}}: {math}"
    plain = unicodedata.normalize("NFKC", ch)
    if plain != ch and all(drawn_in_text(c) for c in plain):
        return head + f"write {plain}"
    if needs_bsmi(ch):  # traditional Chinese, and the bsmi font is not installed
        return head + (f"traditional Chinese needs the bsmi font: run `apt-get install "
                       f"{BSMI_PACKAGE}` (docs/formulas.md), or write it in simplified Chinese")
    big5 = ", Big5 (traditional Chinese)" if bsmi_installed() else ""
    return head + (f"it draws GB2312 (simplified Chinese, Greek, common symbols){big5} and "
                   "accented Latin letters; write it with a LaTeX command (docs/formulas.md) "
                   "or leave it out")


def _tag_at_end(formula: str) -> str:
    """`formula` with its top-level `\\tag{X}` moved to its end as `\\qquad\\text{(X)}`
    (`\\tag*{X}`: `\\qquad\\text{X}`); unchanged when it has none (or an unclosed one)."""
    depth = 0
    tag: re.Match[str] | None = None
    for m in _TEX_PIECE.finditer(formula):
        piece = m.group(0)
        if tag is None and depth == 0 and piece == "\\" + TAG:
            tag = _TAG_ARG.match(formula, m.end())
            if tag is None:
                return formula
            start = m.start()
            depth = -1  # the label's `{` (already read by `tag`) brings it back to 0
        elif piece == "{":
            depth += 1
        elif piece == "}":
            depth -= 1
            if tag is not None and depth == -1:
                label = formula[tag.end():m.start()]
                label = label if tag.group(1) else f"({label})"
                # a space where the tag was: `\\alpha\\tag{1}x` must not become `\\alphax`,
                # nor `^\\tag{1}^` TeX's `^^`
                body = (formula[:start] + " " + formula[m.end():]).rstrip()
                return body + f" \\qquad\\text{{{label}}}"
    return formula
