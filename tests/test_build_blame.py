"""A build's per-line provenance: `git blame` only for documents more than one commit wrote
(build/blame.py), the same provenance as blaming every document."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import git as gitpython
import pytest
from click.testing import CliRunner

import kbtools.provenance
from kbtools.build.blame import blame_documents
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.corpus import decode
from kbtools.fsutil import read_json_lines
from kbtools.provenance import blame_lines, staged_paths
from tests.hostile import GOOD_DOC, make_repo


def git(root: Path, *args: str, who: str = "Alice <alice@ex.org>",
        when: str = "2026-02-01T10:00:00+08:00") -> None:
    name, email = who[:-1].split(" <")
    env = dict(os.environ, GIT_AUTHOR_NAME=name, GIT_AUTHOR_EMAIL=email, GIT_AUTHOR_DATE=when,
               GIT_COMMITTER_NAME=name, GIT_COMMITTER_EMAIL=email, GIT_COMMITTER_DATE=when)
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def history(top: Path) -> Path:
    """A repository whose knowledge root is `kb/`, with every way a file comes to be."""
    root = top / "kb"
    subprocess.run(["git", "init", "-q", "-b", "main", str(top)], check=True)
    write(top, ".mailmap", "Alice Real <alice.real@ex.org> <alice@ex.org>\n")
    write(root, "k/once.md", "one\ntwo\n")
    write(root, "k/no-newline.md", "one\ntwo")
    write(root, "k/empty.md", "")
    write(root, "k/old-name.md", "moved\nlines\nhere\n")
    write(root, "k/dirty.md", "a\nb\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "first")
    write(root, "k/edited.md", "x\n")
    write(root, "k/later.md", "later\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "second", who="Bob <bob@ex.org>", when="2026-03-01T08:00:00-05:00")
    write(root, "k/edited.md", "x\ny\n")
    git(top, "mv", "kb/k/old-name.md", "kb/k/new-name.md")
    git(top, "commit", "-qam", "edit and rename", when="2026-03-02T00:00:00+00:00")
    git(top, "checkout", "-qb", "side")
    write(root, "k/side.md", "from the side\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "side", who="Carol <carol@ex.org>")
    git(top, "checkout", "-q", "main")
    write(root, "k/main-only.md", "main\n")
    git(top, "add", "-A")
    git(top, "commit", "-qm", "main")
    git(top, "merge", "-q", "--no-ff", "-m", "merge", "side")
    write(root, "k/dirty.md", "a\nchanged\n")
    write(root, "k/untracked.md", "new\n")
    return root


def test_provenance_equals_blaming_every_document(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    root = history(tmp_path)
    rels = sorted(p.relative_to(root).as_posix() for p in (root / "k").glob("*.md"))
    expected = {rel: b for rel in rels if (b := blame_lines(root, rel))}
    blamed: list[str] = []

    def counted(r: Path, rel: str, repo: gitpython.Repo | None = None
                ) -> list[kbtools.provenance.LineProvenance]:
        blamed.append(rel)
        return blame_lines(r, rel, repo)

    monkeypatch.setattr(kbtools.provenance, "blame_lines", counted)
    assert blame_documents(root, rels) == expected
    # as the commit records it: not through the repository's .mailmap (blame applies it)
    assert expected["k/once.md"][0].author_name == "Alice"
    assert expected["k/later.md"][0].authored_at == "2026-03-01T08:00:00-05:00"
    # only what more than one commit wrote, or the working tree changed, is blamed
    assert sorted(blamed) == ["k/dirty.md", "k/edited.md", "k/main-only.md", "k/new-name.md",
                              "k/side.md", "k/untracked.md"]


def test_a_build_blames_only_documents_edited_after_they_were_added(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # blame walks the history back to each line's commit: a document per commit of D made a
    # build's blame cost D × D (200 documents: 8 s in 500 commits, 35 s in 2,000)
    docs = {f"knowledge/d{i}.md": GOOD_DOC + f"\nSection {i} of the manual.\n" for i in range(6)}
    root = make_repo(tmp_path / "kb", docs=docs)
    write(root, "knowledge/d0.md", docs["knowledge/d0.md"] + "\nOne more line.\n")
    git(root, "commit", "-qam", "edit d0", who="Bob <bob@ex.org>", when="2030-01-01T00:00:00+00:00")
    blamed: list[str] = []
    real = kbtools.provenance.blame_lines

    def counted(r: Path, rel: str, repo: gitpython.Repo | None = None
                ) -> list[kbtools.provenance.LineProvenance]:
        blamed.append(rel)
        return real(r, rel, repo)

    monkeypatch.setattr(kbtools.provenance, "blame_lines", counted)
    build(load_config(root), BuildOptions(out=tmp_path / "dist", progress=False))
    assert blamed == ["knowledge/d0.md"]
    chunks = [c for p in sorted((tmp_path / "dist" / "data" / "chunks").glob("*.jsonl"))
              for c in read_json_lines(p)]
    authors: dict[str, set[str]] = {}
    for c in chunks:
        authors.setdefault(c["doc"], set()).add(c["provenance"]["last_author"])
    assert "Bob" in authors["knowledge/d0.md"] and "Bob" not in authors["knowledge/d3.md"]
    assert None not in authors["knowledge/d3.md"]


@pytest.mark.parametrize("once", [True, False])
def test_lines_ended_by_a_lone_cr_are_credited_as_documents_number_them(tmp_path, once):
    """A document read a lone CR as a line end (its chunks cite those lines) while `git
    blame` ends a line at LF only: in a file mixing CRLF and CR line ends, every chunk after
    the first lone CR was credited with the commit of some other line (or none, past the
    blamed lines). Blamed lines holding lone CRs now stand for as many document lines."""
    root = make_repo(tmp_path / "repo", commit=False)
    long = " The pump must be stopped, drained and locked out before this work starts." * 6
    body = ["# Pump", "", "First paragraph." + long, "", "## Seal", "", "Replace the seal." + long,
            "", "## Bearing", "", "Grease the bearing." + long]
    ends = ["\r", "\r\n"]

    def save(lines: list[str]) -> None:
        text = GOOD_DOC.split("# Pump maintenance")[0].replace("\n", "\r\n") + "".join(
            line + ends[i % 2] for i, line in enumerate(lines))
        (root / "knowledge" / "mixed.md").write_bytes(text.encode())

    save(body)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "first")
    if not once:
        body[-1] = "Grease the bearing every 500 hours." + long
        save(body)
        git(root, "commit", "-qam", "bearing", who="Bob <bob@ex.org>",
            when="2026-03-01T08:00:00+00:00")
    build(load_config(root), BuildOptions(out=root / "dist", progress=False))
    records = [r for shard in sorted((root / "dist" / "data" / "chunks").glob("*.jsonl"))
               for r in read_json_lines(shard) if r["doc"] == "knowledge/mixed.md"]
    lines = (root / "knowledge" / "mixed.md").read_bytes().decode().replace(
        "\r\n", "\n").replace("\r", "\n").split("\n")
    by_heading = {r["heading_path"][-1]: r for r in records if r["kind"] == "section"}
    assert lines[by_heading["Bearing"]["line_end"] - 1] == body[-1]
    # git sees the lines from "First paragraph." to "## Seal" as one (lone CRs inside it);
    # any edit to one of them is an edit to all, so only the lines after it tell commits apart
    assert by_heading["Bearing"]["provenance"]["last_author"] == ("Alice" if once else "Bob")
    assert by_heading["Pump"]["provenance"]["last_author"] == "Alice"
    assert all(r["provenance"]["last_author"] for r in records)
def test_provenance_is_the_commits_author_whatever_a_mailmap_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # git blame prints authors through .mailmap and the user's `mailmap.file`: one line in a
    # pull request's .mailmap (or an uncommitted one) credited Mallory's unreviewed lines to
    # the reviewer, and two machines building one commit wrote different provenance
    root = make_repo(tmp_path / "kb", docs={"knowledge/a.md": GOOD_DOC})
    write(root, "knowledge/a.md", GOOD_DOC + "\nMallory's line.\n")
    git(root, "commit", "-qam", "edit", who="Mallory <mal@ex.org>")
    write(root, ".mailmap", "Rita Reviewer <rita@ex.org> <mal@ex.org>\n")
    user = tmp_path / "gitconfig"
    write(tmp_path, "mailmap", "Someone Else <else@ex.org> <mal@ex.org>\n")
    user.write_text(f"[mailmap]\n\tfile = {tmp_path / 'mailmap'}\n", encoding="utf-8")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(user))
    for blame in (blame_lines(root, "knowledge/a.md"),
                  blame_documents(root, ["knowledge/a.md"])["knowledge/a.md"]):
        last = blame[-1]
        assert (last.author_name, last.author_email) == ("Mallory", "mal@ex.org")
        assert {p.author_name for p in blame} == {"Mallory", blame[0].author_name}
        assert blame[0].author_name != "Mallory"


def test_a_shallow_clone_credits_no_line_to_its_boundary_commit(tmp_path: Path) -> None:
    # CI checks out `--depth 1` by default: git blames every line it cannot follow on the
    # boundary commit, so a release stamped every passage "last changed by" whoever made
    # the newest commit, when. What the clone holds is known; the rest is not
    docs = {"knowledge/once.md": GOOD_DOC, "knowledge/edited.md": GOOD_DOC}
    origin = make_repo(tmp_path / "origin", docs=docs)
    write(origin, "notes.txt", "x\n")
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "notes", who="Bob <bob@ex.org>", when="2030-01-01T00:00:00Z")
    write(origin, "knowledge/edited.md", GOOD_DOC + "\nCarol's line.\n")
    git(origin, "commit", "-qam", "edit", who="Carol <carol@ex.org>",
        when="2030-02-01T00:00:00Z")
    root = tmp_path / "ci"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{origin}", str(root)],
                   check=True, capture_output=True)
    for blame in (blame_lines(root, "knowledge/edited.md"),
                  blame_documents(root, ["knowledge/edited.md"])["knowledge/edited.md"]):
        assert {p.author_name for p in blame} == {"", "Carol"}
        assert "Bob" not in {p.author_name for p in blame}
    build(load_config(root), BuildOptions(out=tmp_path / "dist", progress=False))
    chunks = [c for p in sorted((tmp_path / "dist" / "data" / "chunks").glob("*.jsonl"))
              for c in read_json_lines(p)]
    authors = {(c["doc"], c["provenance"]["last_author"]) for c in chunks}
    assert ("knowledge/edited.md", "Carol") in authors
    assert {a for _, a in authors} == {"Carol", None}  # never Bob, the boundary's author
    docs_out = {d["doc"]: d for d in read_json_lines(tmp_path / "dist" / "data" / "docs.jsonl")}
    assert docs_out["knowledge/edited.md"]["last_author"] == "Carol"
    assert docs_out["knowledge/once.md"]["last_commit"] is None


def test_git_dir_and_work_tree_of_another_repository_in_the_environment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a hook of another repository (or a shell set up for one) exports GIT_DIR and
    # GIT_WORK_TREE: git took this repository's index and history but the other's files,
    # so the build called every document changed (dirty) and blamed none of them
    root = make_repo(tmp_path / "kb")
    other = make_repo(tmp_path / "other", docs={"knowledge/elsewhere.md": GOOD_DOC})
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(other))
    assert staged_paths(root) is not None and "knowledge/good.md" in staged_paths(root)
    build(load_config(root), BuildOptions(out=tmp_path / "dist", progress=False))
    manifest = json.loads((tmp_path / "dist" / "manifest.json").read_text(encoding="utf-8"))
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items()
                               if k not in ("GIT_DIR", "GIT_WORK_TREE")}).stdout.strip()
    assert manifest["source"]["commit"] == head and manifest["source"]["dirty"] is False
    chunks = [c for p in sorted((tmp_path / "dist" / "data" / "chunks").glob("*.jsonl"))
              for c in read_json_lines(p)]
    assert chunks and all(c["provenance"]["last_commit"] == head for c in chunks)


def test_blame_numbers_lines_as_kbtools_reads_a_lone_cr(tmp_path: Path) -> None:
    # a lone CR (an old Mac line end, a paste) ends a line for kbtools but not for git: every
    # line after it was blamed one line off, so a passage took its neighbour's provenance and
    # `kb check` called an unchanged line "changed after review"
    text = GOOD_DOC + "\nOld note\rsame git line.\n\nAlpha.\n\nBeta.\n"
    root = make_repo(tmp_path / "kb", docs={"knowledge/cr.md": text,
                                            "knowledge/once.md": "one\rtwo\r\nthree\n"})
    write(root, "knowledge/cr.md", text.replace("Beta.", "Beta, edited."))
    git(root, "commit", "-qam", "edit", who="Bob <bob@ex.org>", when="2030-01-01T00:00:00Z")
    lines = decode((root / "knowledge/cr.md").read_bytes())[0].split("\n")[:-1]
    blame = blame_lines(root, "knowledge/cr.md")
    assert [p.line for p in blame] == list(range(1, len(lines) + 1))
    assert [lines[p.line - 1] for p in blame if p.author_name == "Bob"] == ["Beta, edited."]
    once = blame_documents(root, ["knowledge/once.md"])["knowledge/once.md"]
    assert [p.line for p in once] == [1, 2, 3] == [p.line for p in
                                                   blame_lines(root, "knowledge/once.md")]


def test_a_passage_not_committed_yet_says_so_in_kb_query(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    # its provenance is the commit "uncommitted" with no date: kb query printed
    # "— last changed  by uncommitted" (an empty date, "uncommitted" as the author's name)
    root = make_repo(tmp_path / "kb", docs={"knowledge/b.md": GOOD_DOC.replace(
        "Pump maintenance", "Valve care").replace("mechanical seal of the irrigation pump",
                                                  "gasket of the gate valve")})
    write(root, "knowledge/good.md", GOOD_DOC + "\nFlush the pump casing after each season.\n")
    build(load_config(root), BuildOptions(out=root / "dist", progress=False))
    monkeypatch.chdir(root)
    out = CliRunner().invoke(main, ["query", "--no-log", "-k", "2", "pump seal casing"]).stdout
    assert "by uncommitted" not in out
    passages = {block.split(" ")[1]: block for block in out.split("\n\n") if "knowledge/" in block}
    assert passages["knowledge/good.md"].endswith(
        "— changed since the last commit (not committed yet)")
    assert "— last changed 20" in passages["knowledge/b.md"]  # a committed one: its date
