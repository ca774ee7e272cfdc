"""Regular expressions on author content run in linear time (issue 12 §4).

Every regular expression in kbtools is listed here, either as one that sees author input
(documents, front matter, table cells and headers, links, formulas, questions, MCP
arguments, commit messages) with how it is applied, or with the reason it does not; a new
one fails `test_every_regex_is_audited` until it is added. The author-facing ones are then
driven with pathological inputs — long runs of the characters their patterns name (unclosed
brackets, comment openers, whitespace before a failing suffix, …), found by hypothesis and
pinned below — and each application must finish in a fraction of a second, where a
quadratic pattern takes seconds at these sizes. End to end, `kb check` reads a decision
table whose header (or a heading) is 300,000 characters, its CPU growing linearly from
30,000 (a quadratic scan: minutes).
"""

from __future__ import annotations

import ast
import functools
import importlib
import pkgutil
import re
import re._parser as sre  # type: ignore[import-not-found]
import time
from pathlib import Path

import pytest
from hostile import kb, make_repo
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from regex_audit import AUTHOR, OTHER

import kbtools
from kbtools.check.engine import check_paths
from kbtools.config import Config, load_config

N = 20_000  # characters per pathological input: quadratic here costs seconds
LIMIT = 0.5  # CPU seconds of this thread for one application (linear: milliseconds); CPU,
# not wall time: a shared machine's wait for a core is no cost of the pattern
TAILS = ["", "x", "\x00", ">", ")", "]", "\n"]  # what follows a pathological run


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(kbtools.__path__, "kbtools.")
                  if not m.name.endswith("__main__"))


def _is_re_call(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
            and node.func.attr != "escape" and bool(node.args))


@functools.cache
def inventory() -> dict[str, re.Pattern[str] | None]:
    """Every regex in kbtools: module-level compiled patterns by name, literal patterns in
    other `re.*(...)` calls by their text, any other as `module:<dynamic>` (pattern None)."""
    found: dict[str, re.Pattern[str] | None] = {}
    for name in _modules():
        module = importlib.import_module(name)
        tree = ast.parse(Path(module.__file__ or "").read_text(encoding="utf-8"))
        top: set[int] = set()
        for stmt in tree.body:
            target = (stmt.targets[0] if isinstance(stmt, ast.Assign) else
                      stmt.target if isinstance(stmt, ast.AnnAssign) else None)
            value = getattr(stmt, "value", None)
            if isinstance(target, ast.Name) and value is not None and _is_re_call(value):
                top.add(id(value))
                pattern = getattr(module, target.id)
                found[f"{name}.{target.id}"] = pattern if isinstance(pattern, re.Pattern) else None
        for node in ast.walk(tree):
            if not _is_re_call(node) or id(node) in top:
                continue
            arg = node.args[0]  # type: ignore[attr-defined]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.setdefault(f"{name}:{arg.value}", re.compile(arg.value))
            else:
                found.setdefault(f"{name}:<dynamic>", None)
    return found


def _other(name: str) -> bool:
    module = name.split(":")[0] if ":" in name else name.rsplit(".", 1)[0]
    return name in OTHER or f"{module}:<any>" in OTHER


def test_every_regex_is_audited():
    found = inventory()
    unaudited = sorted(n for n in found if n not in AUTHOR and not _other(n))
    assert not unaudited, f"regexes not audited (add them to AUTHOR or OTHER in tests/regex_audit.py): {unaudited}"
    stale = sorted(n for n in AUTHOR if n not in found)
    assert not stale, f"AUTHOR lists regexes that no longer exist: {stale}"


def _pattern(name: str) -> re.Pattern[str]:
    pattern = inventory()[name]
    assert pattern is not None
    return pattern


def linear_reference(chars: int) -> float:
    """CPU seconds this thread takes, right now, for linear work on `chars` characters of text
    (the YAML reader on a plain scalar): what the 300,000-character bounds scale with when
    the machine is busy. A quadratic scan at that size takes minutes, far beyond any multiple."""
    from kbtools.corpus import load_yaml

    start = time.thread_time()
    load_yaml("title: " + "x" * chars + "\n", 2)
    return time.thread_time() - start


def apply(pattern: re.Pattern[str], how: str, text: str) -> float:
    """Seconds one application took; over LIMIT, the better of two (a quadratic pattern is
    slow both times, a process the scheduler left waiting on a busy machine once)."""
    took = _apply(pattern, how, text)
    return took if took < LIMIT else min(took, _apply(pattern, how, text))


def _apply(pattern: re.Pattern[str], how: str, text: str) -> float:
    start = time.thread_time()
    if how == "sub":
        pattern.sub("", text)
    elif how == "split":
        pattern.split(text)
    elif how in ("finditer", "findall"):
        for _ in pattern.finditer(text):
            pass
    else:
        getattr(pattern, how)(text)
    return time.thread_time() - start


def literal_chars(pattern: re.Pattern[str]) -> list[str]:
    """The characters a pattern names (literals, class members and range ends), plus space,
    a letter, a digit, a newline and a CJK character."""
    out = {" ", "a", "1", "\n", "中", "\t"}

    def walk(items: object) -> None:
        for op, av in items:  # type: ignore[attr-defined]
            if op is sre.LITERAL:
                out.add(chr(av))
            elif op is sre.IN:
                for o, a in av:
                    if o is sre.LITERAL:
                        out.add(chr(a))
                    elif o is sre.RANGE:
                        out.update((chr(a[0]), chr(a[1])))
            elif op is sre.SUBPATTERN:
                walk(av[-1])
            elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT):
                walk(av[2])
            elif op is sre.BRANCH:
                for branch in av[1]:
                    walk(branch)
            elif op in (sre.ASSERT, sre.ASSERT_NOT):
                walk(av[1])
            elif op is sre.ATOMIC_GROUP:
                walk(av)

    walk(sre.parse(pattern.pattern, pattern.flags))
    return sorted(out)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_author_regexes_are_linear_on_pathological_input(data):
    name = data.draw(st.sampled_from(sorted(AUTHOR)), label="regex")
    pattern = _pattern(name)
    chars = literal_chars(pattern)
    unit = "".join(data.draw(st.lists(st.sampled_from(chars), min_size=1, max_size=4),
                             label="unit"))
    tail = data.draw(st.sampled_from(TAILS), label="tail")
    text = unit * (N // len(unit)) + tail
    assert apply(pattern, AUTHOR[name], text) < LIMIT, (name, unit, tail)


# Inputs that were quadratic (found by the search above on the patterns as they were).
WORST = [
    ("kbtools.markdown.parser.CUSTOM_ID", "{#" * (N // 2)),
    ("kbtools.markdown.parser.TRAILING_ID", "{#" * (5 * N // 2) + "x"),  # cheap steps: more
    # a quoted value may hold `>` (`alt="压力>5MPa"`): one left open stops at the next `<`
    ("kbtools.serve.docview._IMG_ONLY", '<img alt="' * (N // 10)),
    ("kbtools.build.chunk_fine.IMAGE_MARKUP", "<img alt='>" * (N // 11)),
    ("kbtools.serve.docview._PICTURE", '<source srcset="' * (N // 16)),
    ("kbtools.serve.docview._A_OPEN", "<a title='>" * (N // 11)),
    ("kbtools.markdown.figures._TAG", '<div x="a>' + ' "' * (N // 2)),
    ("kbtools.serve.docview._FORMAT_TAG", '<span s="' * (N // 9)),
    ("kbtools.markdown.doctree.ANNOTATION", "a:" + "x " + " " * N + "y"),
    ("kbtools.markdown.mermaid._M_ARROW", " " * N + "x"),
    ("kbtools.markdown.mermaid._M_TEXT_ARROW", "-- a " * (N // 5)),
    ("kbtools.markdown.mermaid._M_SEQ", ")-" * (N // 2)),
    ("kbtools.markdown.mermaid._M_SEQ", "a" + " " * N + "->>b"),
    ("kbtools.build.chunk_text.SENTENCE_END", "." * N + "x"),
    ("kbtools.build.chunk_text.SENTENCE_END", "\n" * N),
    ("kbtools.build.chunk_text.PROTECTED_INLINE", "[" * N),
    ("kbtools.build.chunk_text.PROTECTED_INLINE", "[](" * (N // 3)),
    ("kbtools.build.chunk_text.QUOTED", "“" + "a" * N),
    ("kbtools.build.chunk_text.QUOTED", "“a「" * (N // 3)),
    ("kbtools.build.chunk_fine.IMAGE_MARKUP", "![" * (5 * N // 2)),
    ("kbtools.build.xref._MD_LINK", "[" * N),
    ("kbtools.build.xref._MD_LINK", "[](" * (N // 3)),
    ("kbtools.build.xref._MD_LINK", "[](<" * (N // 4)),
    ("kbtools.build.xref._MD_LINK", "[](<" + "a" * N),
    ("kbtools.build.xref._REF_LINK", "[" * N),
    ("kbtools.build.xref._REF_LINK", "[a][" * (N // 4)),
    ("kbtools.build.xref._REF_LINK", "[a][b" + "x" * N),
    ("kbtools.query.anchors.WHOLE_LINK", "[a][" * (N // 4)),
    ("kbtools.query.neighbours.MD_LINK", "[" * N),
    ("kbtools.query.neighbours.MD_LINK", "[a](" + "x" * N),
    ("kbtools.query.anchors.WHOLE_LINK", "[" * N),
    ("kbtools.query.anchors.WHOLE_LINK", "[a](" * (N // 4)),
    ("kbtools.query.anchors.WHOLE_LINK", "[a](" + "x" * N),
    ("kbtools.markdown.heading_paths._SEPARATOR", " >" * N + "x"),
    ("kbtools.markdown.heading_paths._SEPARATOR", " " * N + "＞x"),
    ("kbtools.markdown.heading_paths._SECTION_REF", "section" + " " * N + "1" + ".1" * (N // 2) + "x"),
    ("kbtools.query.filter_text._WHERE", "k=a" + " " * N + "b\n"),
    ("kbtools.query.filter_text._WHERE", "a " * (N // 2) + "x"),  # a key of words, no operator
    ("kbtools.query.filter_text._WHERE", "a" + " " * N + "b" + " " * N),
    ("kbtools.query.filter_text._WHERE", '"' + "a" * N + "'" * N),
    ("kbtools.query.filter_text._KEY", "ab " * (N // 3) + "("),
    ("kbtools.review.verification.TRAILER", "Reviewed-by: a" + " " * N + "b"),
    ("kbtools.review.verification.CO_AUTHOR", "Co-authored-by: a" + " " * N + "b"),
    ("kbtools.review.verification.TRAILER", "Reviewed-by" + " " * N + "b"),
    ("kbtools.review.verification.TRAILER", "Reviewed-by: <" + " " * N + "b"),
    ("kbtools.review.verification.TRAILER", "Reviewed-by: <a" + " " * N + "b"),
    ("kbtools.review.verification.TRAILER", "Reviewed-by: " + "<a " * (N // 3)),
    ("kbtools.provenance:^([^<]*)<([^>]*)>", "a" + " " * N + "b"),
    # found in a CI run by the search above (a tab run before no brace), then by the sweep below
    ("kbtools.render.latex_source.TAG_ARG", "\t" * N),
    # a formula's spaces (session 37): runs of tags, of backslashes, of blanks
    ("kbtools.render.latex_spaces._TAG", "\\tag" * (N // 4)),
    ("kbtools.render.latex_spaces._TOKEN", "\\" * N + " " * N),
    ("kbtools.decision.numerals._MAGNIFIED", "1" * N),
    ("kbtools.decision.column_units._RE_UNIT_TAIL", " " * N + ">"),
    # Obsidian's inline tags (session 34): runs of #, of tags, a tag as long as the input
    ("kbtools.markdown.inline_tags.INLINE_TAG", "#" * N),
    ("kbtools.markdown.inline_tags.INLINE_TAG", " #a" * (N // 3)),
    ("kbtools.markdown.inline_tags.INLINE_TAG", "#" + "病/" * (N // 2) + "#"),
    ("kbtools.markdown.inline_tags.INLINE_TAG", " " * N + "#"),
    ("kbtools.markdown.inline_tags.INLINE_TAG", "\0#a" * (N // 3)),
    # pictures' centring wrappers on a document's page (session 35): unclosed tags, openers
    ("kbtools.serve.docview._WRAPPER", "<div " * (N // 5)),
    ("kbtools.markdown.figures._TAG", "<div " * (N // 5)),
    ("kbtools.markdown.figures._TAG", "<center" + " a=b" * (N // 4)),
    ("kbtools.markdown.figures._TAG", "<a" * (N // 2)),
    ("kbtools.serve.callout_frame._BOX_TAG", "<details " * (N // 9)),
    ("kbtools.serve.callout_frame._BOX_TAG", "</summary" + " a=b" * (N // 4)),
    ("kbtools.serve.passes._BOX_TAG", "<details " * (N // 9)),
    ("kbtools.serve.passes._BOX_TAG", "</details" + " a=b" * (N // 4)),
    ("kbtools.serve.docview._WRAPPER", "<center" + " a=b" * (N // 4)),
    ("kbtools.serve.docview._WRAPPER", "</p" * (N // 3)),
    # dashes in codes and the other national spelling of a word (session 35): runs of what
    # each pattern looks behind and ahead for, before an ending that fails
    ("kbtools.index.spellings._CODE_DASH", "a\u2013" * (N // 2)),
    ("kbtools.index.spellings._CODE_DASH", "1\u2014" * (N // 2) + "\u2014"),
    ("kbtools.query.english._OUR", "our" * (N // 3)),
    ("kbtools.query.english._OR", "or" * (N // 2)),
    ("kbtools.query.english._RE_END", "tre" * (N // 3) + "x"),
    ("kbtools.query.english._ER_END", "ter" * (N // 3) + "x"),
    ("kbtools.query.english._ISE", "ise" * (N // 3) + "x"),
    ("kbtools.query.english._IZE", "yzation" * (N // 7) + "x"),
    ("kbtools.query.english._AE_OE", "oe" * (N // 2) + "s"),
]


@pytest.mark.parametrize("name", sorted(AUTHOR))
def test_author_regexes_are_linear_on_runs_of_each_character(name):
    """Every run of one character a pattern names, before each tail: the search above draws a
    few of these per pattern at random, and a draw it missed once failed a later CI run."""
    pattern = _pattern(name)
    slow = [(unit, tail) for unit in literal_chars(pattern) for tail in TAILS
            if apply(pattern, AUTHOR[name], unit * N + tail) >= LIMIT]
    assert not slow, slow


@pytest.mark.parametrize(("name", "text"), WORST, ids=[f"{n.rsplit('.', 1)[-1]}-{i}"
                                                       for i, (n, _) in enumerate(WORST)])
def test_formerly_quadratic_inputs(name, text):
    assert apply(_pattern(name), AUTHOR[name], text) < LIMIT


def test_header_unit_is_found_by_scans_as_the_pattern_did():
    from kbtools.decision.headers import column_key, header_unit_start

    old = re.compile(r"\s*(\([^)]*\)|\[[^\]]*\]|/.*)\s*$")
    for text in ["温度(℃)", "温度 (℃)", "湿度[%]", "流量/L·h", "a(b(c)", "a(b)c", "a)(b)",
                 "(x)", "[x]", "a[b(c)]", "a/(b)", "", "  ", "a ( b ) ", "a(b]", "a[b)"]:
        assert text[:header_unit_start(text)].strip() == old.sub("", text).strip(), text
    assert column_key("温度(℃)") == "温度" and column_key("(℃)") == "(°c)"  # NFKC
    start = time.thread_time()
    for run in ("(", "[", "/", " ", "(a", "[a"):
        column_key("温度" + run * 300_000 + "(℃)")
    took = time.thread_time() - start
    reference = 6 * linear_reference(300_000)
    assert took < 2 or took < 40 * reference, (took, reference)


def _header_or_heading_doc(where: str, run: str, chars: int) -> str:
    text = f"温度{run * (chars // len(run))}x"  # no unit at the end: every search fails
    header, title = (text, "T") if where == "header" else ("温度", text)
    return ("---\ntitle: T\ncategory: engineering\nproject: demo\nsource: s\n"
            "author: a@example.org\ntimestamp: \"2026-03-14T09:30:00+08:00\"\nverified: false\n"
            f"---\n\n# {title}\n\n<!-- decision: inputs=温度; outputs=措施 -->\n"
            f"| {header} | 措施 |\n|---|---|\n| <15 | a |\n| 15-20 | b |\n")


def check_cpu(path: Path, cfg: Config) -> float:
    """CPU seconds of this thread checking the one document `path` (in this process, no
    cache): what waiting for a busy machine's cores does not count."""
    start = time.thread_time()
    check_paths([path], cfg)
    return time.thread_time() - start


GROWTH = 30  # CPU of a check at 10x the characters: linear ~5-10x, quadratic ~100x


@pytest.mark.parametrize(("where", "run"), [("header", "("), ("header", "(a "),
                                           ("header", "温("), ("header", "<"),
                                           ("heading", "{#"), ("heading", "<")])
def test_kb_check_reads_300k_characters_of_header_or_heading(tmp_path, where, run):
    """A decision-table header (or a heading) of 300,000 characters is checked by `kb
    check`, the real CLI (its long text cut in what it says), and the check's CPU grows
    linearly with the text: 300,000 characters cost under GROWTH times 30,000 (a quadratic
    scan: ~100 times, minutes at this size). CPU of the checking thread, not seconds on the
    clock, which a loaded machine stretched past the bound this test had."""
    repo = make_repo(tmp_path / "repo", commit=False, docs={
        "knowledge/t.md": _header_or_heading_doc(where, run, 300_000),
        "knowledge/small.md": _header_or_heading_doc(where, run, 30_000)})
    cfg = load_config(repo)
    small = min(check_cpu(repo / "knowledge/small.md", cfg) for _ in range(2))
    big = check_cpu(repo / "knowledge/t.md", cfg)
    if big > GROWTH * small:  # a stall of this run's own, or quadratic: then both runs are
        big = min(big, check_cpu(repo / "knowledge/t.md", cfg))
    assert big < GROWTH * small, f"300k: {big:.2f}s CPU, 30k: {small:.3f}s CPU"
    # (its timeout a guard against a hang, far beyond seconds at any load)
    res = kb(repo, "check", "--no-cache", "knowledge/t.md", home=tmp_path / "home", timeout=300)
    assert b"Traceback" not in res.stderr and res.returncode in (0, 1), res.stderr
    assert all(len(line) <= 1200 for line in res.stdout.splitlines())  # long text is cut


def test_front_matter_value_of_300k_characters():
    """The YAML side of the front matter: PyYAML's resolvers are anchored and linear; its
    base-60 integers (``1:1:1…``) were quadratic arithmetic and are now refused."""
    from kbtools.corpus import load_yaml

    reference = linear_reference(300_000)
    for unit in ("1:1", "1", "1_", "1:", "-1:", "a", "[", "&a *a ", "1e"):
        start = time.thread_time()
        _, _, errors = load_yaml("title: " + unit * (300_000 // len(unit)) + "\n", 2)
        took = time.thread_time() - start
        assert took < 1.0 or took < 40 * reference, (unit, took, reference)
    _, _, errors = load_yaml("title: " + "1:1" * 100_000 + "\n", 2)
    assert errors and "base-60 number of 300,000 characters" in errors[0].message
    assert load_yaml("t: 1:30:00\n", 2)[0] == {"t": 5400}
