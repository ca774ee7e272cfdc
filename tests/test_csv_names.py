"""Derived table CSV names: one collision-free, deterministic map for the chunker and
`render_tables` (same-stem documents in different folders, case-only differences, names
that differ only in characters a file name cannot hold, a derived name an annotation
already took)."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

from hostile import GOOD_DOC, kb, make_repo
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.corpus import parse_source
from kbtools.markdown.doctree import parse
from kbtools.render.table_csv import CsvNames, derived_table_number, render_tables, unsafe_name


def table_doc(marker: str, annotation: str = "") -> str:
    ann = f"<!-- csv: {annotation} -->\n" if annotation else ""
    return (GOOD_DOC.replace("title: Pump maintenance", f"title: Table {marker}")
            + f"\n## Codes {marker}\n\n{ann}| code | meaning |\n|---|---|\n| {marker} | row of {marker} |\n")


def tables_of(rel: str, text: str):
    return [(rel, t) for t in parse(parse_source(text, Path("/tmp") / rel, rel)).tables()]


CLASHING = {
    "knowledge/a/index.md": "A1",
    "knowledge/b/index.md": "B1",
    "knowledge/B/Index.md": "B2",  # differs from b/index.md only in case
    "knowledge/what's-new.md": "W1",
    "knowledge/what_s-new.md": "W2",  # the same once the quote becomes _
    "knowledge/a.index.md": "D1",  # its plain name is a qualified name of another
    "knowledge/index.md": "R1",
}


def test_same_stem_documents_get_distinct_names(tmp_path):
    pairs = [p for rel, m in CLASHING.items() for p in tables_of(rel, table_doc(m))]
    pairs += tables_of("knowledge/c/other.md", table_doc("N1", "index-1.csv"))
    names = CsvNames(pairs)
    got = {rel: names.name(rel, t) for rel, t in pairs}
    assert len({n.casefold() for n in got.values()}) == len(pairs)
    assert all(unsafe_name(n) is None for n in got.values())
    assert got["knowledge/c/other.md"] == "index-1.csv"  # the author's annotation wins
    assert got["knowledge/a/index.md"].startswith("a.index-")  # qualified by its folder
    assert got["knowledge/a.index.md"] == "a.index-1.csv"  # unique: stays plain
    assert got["knowledge/what's-new.md"] != got["knowledge/what_s-new.md"]
    # a name depends on the set of tables only, not on the order they come in
    shuffled = pairs[:]
    random.Random(7).shuffle(shuffled)
    assert {rel: CsvNames(shuffled).name(rel, t) for rel, t in pairs} == got
    written = render_tables(pairs, tmp_path / "t", names)
    assert sorted(written) == sorted(got.values())


def test_a_unique_derived_name_stays_plain():
    pairs = tables_of("knowledge/crops/wheat.md", table_doc("X") + "\n| b |\n|---|\n| 2 |\n")
    names = CsvNames(pairs)
    assert [names.name(r, t) for r, t in pairs] == ["wheat-1.csv", "wheat-2.csv"]


def test_long_names_are_cut_below_file_name_limits():
    stem = "长" * 120
    pairs = [p for d in ("x", "y") for p in tables_of(f"knowledge/{d}/{stem}.md", table_doc(d))]
    names = {CsvNames(pairs).name(r, t) for r, t in pairs}
    assert len(names) == 2 and all(len(n.encode()) <= 200 for n in names)


segment = st.text(alphabet="aAbB_'. 长-", min_size=1, max_size=4).filter(
    lambda s: s.strip(". ") == s and s not in (".", ".."))


def test_a_derived_name_reads_back_as_its_table_number():
    """Every name a build derives (plain, qualified by folders, by the path's hash too)
    reads back, with or without ``.csv``, as its table's number in its own document; an
    annotated name, another document's stem and a bare number read as none."""
    pairs = [p for rel, m in CLASHING.items() for p in tables_of(rel, table_doc(m) +
                                                                  table_doc(m + "b"))]
    names = CsvNames(pairs)
    for rel, t in pairs:
        name = names.name(rel, t)
        assert derived_table_number(rel, name) == t.index, (rel, name)
        assert derived_table_number(rel, name.upper().removesuffix(".CSV")) == t.index
    assert derived_table_number("knowledge/a/index.md", "other-1.csv") is None
    assert derived_table_number("knowledge/a/index.md", "2") is None
    assert derived_table_number("knowledge/a/index.md", "index-x.csv") is None


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.lists(segment, max_size=2), segment), min_size=1, max_size=8))
def test_names_are_unique_ignoring_case_for_any_paths(paths):
    rels = sorted({"/".join(["knowledge", *dirs, f"{stem}.md"]) for dirs, stem in paths})
    pairs = [p for rel in rels for p in tables_of(rel, table_doc("x"))]
    names = CsvNames(pairs)
    got = [names.name(r, t) for r, t in pairs]
    assert len({n.casefold() for n in got}) == len(got)
    assert all(unsafe_name(n) is None for n in got)
    assert [CsvNames(reversed(pairs)).name(r, t) for r, t in pairs] == got


def test_build_with_same_stem_documents_end_to_end(tmp_path):
    docs = {rel: table_doc(m) for rel, m in CLASHING.items()}
    repo = make_repo(tmp_path / "repo", docs=docs)
    # --lenient: b/index.md and B/Index.md are a path-collision error (one file on Windows
    # and macOS); a lenient build of such a corpus still names their tables apart
    out = kb(repo, "build", "--lenient", "--json", home=tmp_path / "home")
    assert out.returncode == 0, out.stderr.decode()
    tables = repo / "dist" / "data" / "tables"
    files = {p.name: p for p in tables.iterdir()}
    assert len(files) == len(CLASHING)
    # every table chunk names the CSV file that holds its own rows
    seen = set()
    for shard in (repo / "dist" / "data" / "chunks").glob("*.jsonl"):
        for line in shard.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            if rec["kind"] != "table":
                continue
            name = rec["extra"]["csv"]
            rows = list(csv.reader(io.StringIO(files[name].read_text(encoding="utf-8-sig"))))
            assert rows[1][0] == CLASHING[rec["doc"]], (rec["doc"], name)
            seen.add(name)
    assert seen == set(files)
    # reproducible: a second build gives the same names and bytes
    first = {n: p.read_bytes() for n, p in files.items()}
    assert kb(repo, "build", "--lenient", home=tmp_path / "home").returncode == 0
    assert {p.name: p.read_bytes() for p in tables.iterdir()} == first
