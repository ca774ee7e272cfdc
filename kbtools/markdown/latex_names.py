"""The names of LaTeX's math commands as data: what the formula check allows, grouped
(`COMMAND_GROUPS`, whose union `kbtools.render.latex_allow.COMMANDS` is), and the math
command each character an input method types stands for (`MATH_CHARS`).

Data only, free of the renderer: the renderer checks and typesets with it
(`kbtools.render.latex_allow`, `kbtools.render.latex_source`), and a formula is read as
words with it (`kbtools.markdown.formula_words`: its picture's alt text, a heading made of
it).
"""

from __future__ import annotations

# The text symbols (`latex_allow.COMMAND_GROUPS`): in math mode set as text (`tex_source`).
TEXT_SYMBOL_NAMES = """textdegree textcelsius textmu textperthousand textpm texttimes
        textdiv textbackslash textasciitilde textasciicircum textunderscore textbar
        textless textgreater textbullet textregistered texttrademark textcopyright
        textsection textperiodcentered textohm i j ss SS o O ae AE oe OE aa AA l L"""

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
    "text symbols": TEXT_SYMBOL_NAMES,
    # accents of LaTeX's text mode (OT1 encoding) written as a letter: in text only, but
    # `\\b` (bar under) and `\\d` (dot under), which LaTeX sets in a box in math too
    "text accents": "u v H c d b r t",
}
