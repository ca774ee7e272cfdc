"""Documents outside the repository and odd files: skipped means not read (issue 12 §4, §5).

Real repos, the real `kb` CLI in a subprocess (a hang fails the test instead of the run):
a symlinked document or asset leading outside, FIFOs, /dev/zero, symlink loops, dangling
links, unreadable files and file names that are not UTF-8 are each one finding of `kb check`;
`kb build --skip-invalid` and `--lenient` never read them, never put a byte of them into
dist/ and never write through them. A hypothesis suite mixes such files at random.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest
from hostile import (
    GOOD_DOC,
    can_drop_read_override,
    drop_read_override,
    kb,
    make_repo,
    snapshot,
    tree_bytes,
)
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

SECRET = "TOPSECRET-7f3a9c"
SECRET_DOC = GOOD_DOC.replace("Pump maintenance", f"Leaked {SECRET}").replace(
    "Replace the mechanical seal", f"{SECRET} replace the seal")


def outside_dir(tmp_path: Path) -> Path:
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret.md").write_text(SECRET_DOC, encoding="utf-8")
    (out / "secret.png").write_bytes(SECRET.encode() * 10)
    (out / "dict.txt").write_text(f"{SECRET}\n", encoding="utf-8")
    return out


def codes(res) -> dict[str, set[str]]:
    """path -> finding codes, from `kb check --json` output."""
    found: dict[str, set[str]] = {}
    for f in json.loads(res.stdout):
        found.setdefault(f["path"], set()).add(f["code"])
    return found


def assert_clean(res) -> None:
    out = res.stdout + res.stderr
    assert b"Traceback" not in out and b"unexpected error" not in out, out.decode(errors="replace")


@pytest.mark.parametrize("flags", [["--skip-invalid"], ["--lenient", "--skip-invalid"]])
def test_build_never_reads_a_document_linked_outside(tmp_path, flags):
    outside = outside_dir(tmp_path)
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "knowledge" / "leak.md").symlink_to(outside / "secret.md")
    (repo / "knowledge" / "dir").symlink_to(outside)  # a linked folder is not walked
    (repo / "assets" / "leak.png").symlink_to(outside / "secret.png")
    (repo / "knowledge" / "uses-asset.md").write_text(
        GOOD_DOC.replace("# Pump", "![p](../assets/leak.png)\n\n# Pump"), encoding="utf-8")
    before = snapshot(outside)

    res = kb(repo, "build", "--json", *flags, home=tmp_path / "home")
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    stats = json.loads(res.stdout)
    skipped = {d["doc"]: d["errors"] for d in stats["skipped"]}
    assert skipped["knowledge/leak.md"] == ["path-symlink-escape"]
    dist = repo / "dist"
    assert SECRET.encode() not in tree_bytes(dist)
    with sqlite3.connect(dist / "index" / "store.sqlite") as con:
        texts = " ".join(r[0] for r in con.execute("SELECT text FROM chunks"))
    assert SECRET not in texts and "Replace the mechanical seal" in texts
    assert not (dist / "data" / "source" / "knowledge" / "leak.md").exists()
    assert snapshot(outside) == before  # nothing written through the links


def test_lenient_build_refuses_a_document_linked_outside(tmp_path):
    outside = outside_dir(tmp_path)
    repo = make_repo(tmp_path / "repo", commit=False)
    (repo / "knowledge" / "leak.md").symlink_to(outside / "secret.md")
    res = kb(repo, "build", "--lenient", home=tmp_path / "home")
    assert_clean(res)
    assert res.returncode == 1
    assert b"knowledge/leak.md:1:1: error: path-symlink-escape" in res.stderr
    assert not (repo / "dist").exists()


def test_odd_files_are_findings_and_never_block(tmp_path):
    repo = make_repo(tmp_path / "repo", commit=False)
    k = repo / "knowledge"
    os.mkfifo(k / "pipe.md")
    (k / "zero.md").symlink_to("/dev/zero")
    (k / "loop.md").symlink_to("loop.md")
    (k / "dangling.md").symlink_to("gone.md")
    (k / "folder.md").symlink_to(k)  # a directory named like a document
    (k / "sub").mkdir()
    (k / "sub" / "up").symlink_to("..")  # a directory loop: not followed

    res = kb(repo, "check", "--json", home=tmp_path / "home", timeout=60)
    assert_clean(res)
    assert res.returncode == 1
    assert codes(res) == {"knowledge/pipe.md": {"file-not-regular"},
                          "knowledge/zero.md": {"path-symlink-escape"},
                          "knowledge/loop.md": {"file-not-regular"},
                          "knowledge/dangling.md": {"file-unreadable"},
                          "knowledge/folder.md": {"file-not-regular"}}

    for name in ("pipe.md", "zero.md", "loop.md"):  # named explicitly: a finding, no hang
        res = kb(repo, "check", f"knowledge/{name}", home=tmp_path / "home", timeout=60)
        assert_clean(res)
        assert res.returncode == 1 and f"knowledge/{name}:1:1: error: ".encode() in res.stdout

    res = kb(repo, "build", "--skip-invalid", "--json", home=tmp_path / "home", timeout=120)
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    assert {d["doc"] for d in json.loads(res.stdout)["skipped"]} == {
        "knowledge/pipe.md", "knowledge/zero.md", "knowledge/loop.md", "knowledge/dangling.md",
        "knowledge/folder.md"}


@pytest.mark.skipif(not can_drop_read_override(), reason="cannot drop root's read override")
def test_unreadable_document_is_a_finding_not_a_crash(tmp_path):
    base = tmp_path / "repo"
    repo = make_repo(base, commit=False, docs={"knowledge/locked.md": GOOD_DOC})
    (repo / "knowledge" / "locked.md").chmod(0)
    home = tmp_path / "home"
    res = kb(repo, "check", "--json", home=home, preexec=drop_read_override)
    assert_clean(res)
    assert codes(res) == {"knowledge/locked.md": {"file-unreadable"}}
    assert "Permission denied" in json.loads(res.stdout)[0]["message"]
    res = kb(repo, "build", "--skip-invalid", "--json", home=home, preexec=drop_read_override)
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    assert json.loads(res.stdout)["skipped"] == [{"doc": "knowledge/locked.md",
                                                 "errors": ["file-unreadable"]}]


def test_file_name_that_is_not_utf8(tmp_path):
    outside = outside_dir(tmp_path)
    repo = make_repo(tmp_path / "repo", commit=False)
    name = os.fsdecode(b"caf\xe9-\xff.md")  # surrogate escapes, as os.listdir gives them
    (repo / "knowledge" / name).write_text(GOOD_DOC.replace("Pump", "Cafe"), encoding="utf-8")
    (repo / "knowledge" / os.fsdecode(b"leak-\xfe.md")).symlink_to(outside / "secret.md")
    home = tmp_path / "home"

    res = kb(repo, "check", "--json", home=home)
    assert_clean(res)
    assert codes(res) == {"knowledge/caf\ufffd-\ufffd.md": {"path-not-utf8"},
                          "knowledge/leak-\ufffd.md": {"path-not-utf8", "path-symlink-escape"}}
    res = kb(repo, "build", home=home)
    assert_clean(res)
    assert res.returncode == 1 and b"path-not-utf8" in res.stderr
    res = kb(repo, "build", "--skip-invalid", "--json", home=home)
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    assert json.loads(res.stdout)["skipped"] == [
        {"doc": "knowledge/caf\ufffd-\ufffd.md", "errors": ["path-not-utf8"]},
        {"doc": "knowledge/leak-\ufffd.md", "errors": ["path-not-utf8", "path-symlink-escape"]}]
    dist = tree_bytes(repo / "dist")
    assert b"Cafe" not in dist and SECRET.encode() not in dist


def test_corpus_user_dictionary_linked_outside_is_not_read(tmp_path):
    outside = outside_dir(tmp_path)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "page.md").write_text("# Page\n\nSome text about pumps.\n", encoding="utf-8")
    (corpus / "_dict.txt").symlink_to(outside / "dict.txt")
    repo = make_repo(tmp_path / "repo", commit=False)
    res = kb(repo, "build", "--corpus", str(corpus), "--lenient", "--out",
             str(tmp_path / "out"), home=tmp_path / "home")
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    assert b"user dictionary _dict.txt not read" in res.stderr
    assert SECRET.encode() not in tree_bytes(tmp_path / "out")


# --------------------------------------------------------------------------- property suite

HOSTILE = {
    "symlink-out": lambda k, out: (k / "h-out.md").symlink_to(out / "secret.md"),
    "symlink-dir-out": lambda k, out: (k / "h-dir").symlink_to(out),
    "fifo": lambda k, out: os.mkfifo(k / "h-fifo.md"),
    "fifo-out": lambda k, out: (os.mkfifo(out / "pipe"), (k / "h-pipe.md").symlink_to(out / "pipe")),
    "dev-zero": lambda k, out: (k / "h-zero.md").symlink_to("/dev/zero"),
    "loop": lambda k, out: (k / "h-loop.md").symlink_to("h-loop.md"),
    "dir-loop": lambda k, out: (k / "h-sub").mkdir() or (k / "h-sub" / "up").symlink_to(".."),
    "dangling": lambda k, out: (k / "h-gone.md").symlink_to("nowhere.md"),
    "bad-name": lambda k, out: (k / os.fsdecode(b"h-\xff\xfe.md")).write_text(SECRET_DOC),
    "nul-bytes": lambda k, out: (k / "h-nul.md").write_bytes(b"---\x00\xff" * 100),
    "too-large": lambda k, out: (k / "h-big.md").write_text(GOOD_DOC + "x" * 2_200_000),
    "asset-out": lambda k, out: ((k.parent / "assets" / "h.png").symlink_to(out / "secret.png"),
                                 (k / "h-img.md").write_text(GOOD_DOC + "\n![s](../assets/h.png)\n")),
}
NOT_WALKED = {"symlink-dir-out", "dir-loop"}  # linked folders are not followed: no finding
LONG_HEADER_CHARS = "([<{/ |-\\`*_$!#"


def long_header_doc(char: str, n: int) -> str:
    header = f"温度{char * n}(℃)"
    return (GOOD_DOC + "\n## Table\n\n<!-- decision: inputs=温度; outputs=x -->\n"
            f"| {header} | x |\n|---|---|\n| <15 | a |\n| 15-20 | b |\n")


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck),
          phases=[Phase.explicit, Phase.reuse, Phase.generate])  # shrinking re-runs builds
@given(kinds=st.sets(st.sampled_from(sorted(HOSTILE)), min_size=1, max_size=5),
       header=st.sampled_from(LONG_HEADER_CHARS), n=st.integers(1_000, 60_000))
def test_hostile_repos_check_and_build_in_bounded_time(tmp_path_factory, kinds, header, n):
    tmp = tmp_path_factory.mktemp("hostile")
    outside = outside_dir(tmp)
    repo = make_repo(tmp / "repo", commit=False,
                     docs={"knowledge/long-header.md": long_header_doc(header, n)})
    for kind in sorted(kinds):
        HOSTILE[kind](repo / "knowledge", outside)
    before = snapshot(outside)
    home = tmp / "home"

    start = time.monotonic()
    res = kb(repo, "check", "--json", home=home, timeout=90)
    assert_clean(res)
    assert res.returncode == (1 if kinds - NOT_WALKED else res.returncode)
    flagged = set(codes(res))
    assert all(p.startswith("knowledge/h") for p in flagged - {"knowledge/long-header.md"})
    # what --skip-invalid leaves out: files with an error (a header of '|' no delimiter row
    # matches is a table read as text, a warning: `table-unread`)
    invalid = {f["path"] for f in json.loads(res.stdout) if f["level"] == "error"}

    res = kb(repo, "build", "--skip-invalid", "--json", home=home, timeout=120)
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    assert time.monotonic() - start < 120
    dist = repo / "dist"
    assert SECRET.encode() not in tree_bytes(dist)
    built = {p.relative_to(dist / "data" / "source").as_posix()
             for p in (dist / "data" / "source").rglob("*.md")}
    assert built == {"knowledge/good.md", "knowledge/long-header.md"} - invalid
    assert snapshot(outside) == before
    assert {p.name for p in tmp.iterdir()} <= {"outside", "repo", "home"}


def test_a_file_name_with_a_line_break_stays_one_line_and_is_skipped(tmp_path):
    """`knowledge/new<LF>line.md` printed its finding over two lines (no longer FILE:LINE to
    an editor or a CI annotation); the name is shown escaped, and `--skip-invalid` still
    matches its errors to it and leaves it out."""
    repo = make_repo(tmp_path / "repo", commit=False)
    bad = GOOD_DOC.replace("Pump maintenance", "Broken name").replace("\n---\n", "\nbogus: 1\n---\n", 1)
    (repo / "knowledge" / "new\nline.md").write_text(bad, encoding="utf-8")
    (repo / "knowledge" / "tab\there.md").write_text(bad, encoding="utf-8")
    home = tmp_path / "home"
    res = kb(repo, "check", home=home, timeout=60)
    assert_clean(res)
    assert res.returncode == 1
    lines = res.stdout.decode().splitlines()
    assert lines and all(line.startswith(("knowledge/new\\nline.md:", "knowledge/tab\\there.md:"))
                         for line in lines), lines
    res = kb(repo, "build", "--skip-invalid", "--json", home=home, timeout=300)
    assert_clean(res)
    assert res.returncode == 0, res.stderr.decode()
    assert {d["doc"] for d in json.loads(res.stdout)["skipped"]} == {
        "knowledge/new\\nline.md", "knowledge/tab\\there.md"}
    with sqlite3.connect(repo / "dist" / "index" / "store.sqlite") as con:
        texts = " ".join(r[0] for r in con.execute("SELECT text FROM chunks"))
    assert "Broken name" not in texts
