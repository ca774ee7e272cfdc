"""Synonym groups: the words experts and field users use for the same thing.

The knowledge repository may hold ``knowledge/_synonyms.txt`` (``SOURCE_NAME`` in the
knowledge folder), one group per line, terms separated by ``=``; ``#`` starts a comment::

    # disease names farmers use
    赤霉病 = 麦穗枯 = 烂穗病
    hydraulic oil = hydraulic fluid

`parse` reads it into `Synonyms` plus problems (line, code, message) that `kb check` reports:
a line that is not a group (fewer than two terms), an empty term, a term longer than
MAX_TERM_CHARS, a term in two groups (each term belongs to one group: otherwise expansion
would chain unrelated words), a term repeated inside its group. Only valid groups are kept.
The build ships the groups as ``data/synonyms.txt`` (`layout.ReleaseLayout.synonyms`, hashed
in the manifest, written in the same format by `dump`) so a device expands questions as the
build did, and adds their Chinese terms to the tokenizer dictionary so each is one token.

Matching is on the question text, NFKC-normalised and casefolded: a CJK term anywhere in it,
a Latin term as whole words. Pure; no I/O.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field

SOURCE_NAME = "_synonyms.txt"  # in the knowledge folder
MAX_TERM_CHARS = 64
# (1-based line, finding code, message) of a problem in a synonyms file
Problem = tuple[int, str, str]


def normalize(term: str) -> str:
    """How terms are compared: NFKC, casefolded, inner whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", term).casefold().split())


@dataclass(frozen=True)
class Synonyms:
    """Groups of terms that mean the same; the first term of a group is its preferred one."""

    groups: tuple[tuple[str, ...], ...] = ()
    _group_of: dict[str, int] = field(default_factory=dict, repr=False, compare=False)
    # normalised term → the term as its group writes it (the first of that spelling)
    _written: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    # a term's first character → the lengths of the terms starting with it, longest first
    _starts: dict[str, tuple[int, ...]] = field(default_factory=dict, repr=False,
                                                compare=False)

    def __post_init__(self) -> None:
        group_of = {normalize(t): n for n, g in enumerate(self.groups) for t in g}
        written: dict[str, str] = {}
        for g in self.groups:
            for t in g:
                written.setdefault(normalize(t), t)
        object.__setattr__(self, "_group_of", group_of)
        object.__setattr__(self, "_written", written)
        starts: dict[str, set[int]] = {}
        for t in group_of:
            starts.setdefault(t[0], set()).add(len(t))
        object.__setattr__(self, "_starts", {c: tuple(sorted(lengths, reverse=True))
                                             for c, lengths in starts.items()})

    def __bool__(self) -> bool:
        return bool(self.groups)

    def terms(self) -> list[str]:
        """Every term of every group, as written."""
        return [t for g in self.groups for t in g]

    def others(self, term: str) -> list[str]:
        """The other terms of `term`'s group (none when it is in no group)."""
        n = self._group_of.get(normalize(term))
        return [] if n is None else [t for t in self.groups[n] if normalize(t) != normalize(term)]

    def found_in(self, text: str) -> list[str]:
        """The terms of any group that occur in `text` (longest match first, no overlaps),
        in order of appearance, each once, as written in the groups.

        A scan of the normalised text that looks a position up only by the lengths of the
        terms starting with its character: no regular expression of every term (a file of
        4,000 groups made one of 16,000 alternatives, compiled in seconds by every process
        that read the release)."""
        if not self._group_of:
            return []
        norm = normalize(text)
        starts = self._starts
        out: dict[str, None] = {}
        i = 0  # where the text not yet matched begins
        # only the places where a term may start are looked at: some term starts with the
        # character there, and a Latin one begins a word (`_stands_alone`; most of a
        # question's characters start no term of the built-in groups)
        for at in [at for at, c in enumerate(norm) if c in starts and not (
                at and norm[at - 1] in WORD_CHARS and _latin(c))]:
            if at < i:
                continue  # inside the term matched last
            for length in starts[norm[at]]:
                term = norm[at:at + length]
                if len(term) == length and term in self._group_of \
                        and _stands_alone(norm, at, at + length):
                    out.setdefault(self._written[term])
                    i = at + length
                    break
        return list(out)

    def mapping(self) -> dict[str, list[str]]:
        """Term → the other terms of its group, for every term (as written)."""
        return {t: [o for o in g if o != t] for g in self.groups for t in g}


WORD_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz_")  # of normalised text


def _latin(c: str) -> bool:
    return c.isascii() and c.isalnum()


def _stands_alone(text: str, start: int, end: int) -> bool:
    """`text[start:end]` (a normalised term) is not part of a longer Latin word: a term's
    Latin edge must be a word edge (``oil`` is not in ``boil``); a CJK edge matches anywhere
    (Chinese has no spaces between words)."""
    if _latin(text[start]) and start > 0 and text[start - 1] in WORD_CHARS:
        return False
    return not (_latin(text[end - 1]) and end < len(text) and text[end] in WORD_CHARS)


def parse(text: str) -> tuple[Synonyms, list[Problem]]:
    """Groups and problems of a synonyms file's text (see the module doc)."""
    groups: list[tuple[str, ...]] = []
    problems: list[Problem] = []
    seen: dict[str, int] = {}  # normalised term → line of its group
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    for n, raw in enumerate(text.split("\n"), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = [" ".join(p.split()) for p in line.split("=")]
        if len(parts) < 2:
            problems.append((n, "synonyms-not-a-group",
                             f"{_short(line)!r} is not a group: write terms separated by '=' "
                             "(赤霉病 = 麦穗枯)"))
            continue
        bad = False
        if any(not p for p in parts):
            problems.append((n, "synonyms-empty-term", "an empty term (two '=' in a row, or '=' "
                             "at the start or end of the line)"))
            bad = True
        for p in parts:
            if len(p) > MAX_TERM_CHARS:
                problems.append((n, "synonyms-term-too-long",
                                 f"term {_short(p)!r} is longer than {MAX_TERM_CHARS} characters"))
                bad = True
        terms: list[str] = []
        for p in (p for p in parts if p):
            key = normalize(p)
            if any(normalize(t) == key for t in terms):
                problems.append((n, "synonyms-repeated", f"term {p!r} appears twice in this group"))
            elif key in seen:
                problems.append((n, "synonyms-duplicate",
                                 f"term {p!r} is already in the group on line {seen[key]} "
                                 "(a term belongs to one group: merge the two lines)"))
                bad = True
            else:
                terms.append(p)
        if bad or len(terms) < 2:
            if not bad:
                problems.append((n, "synonyms-not-a-group", "a group needs two different terms"))
            continue
        for t in terms:
            seen[normalize(t)] = n
        groups.append(tuple(terms))
    return Synonyms(tuple(groups)), problems


def dump(synonyms: Synonyms) -> str:
    """The groups in the file format, one per line (what the build ships)."""
    return "".join(" = ".join(g) + "\n" for g in synonyms.groups)


def _short(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "…"
