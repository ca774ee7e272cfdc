"""Provenance: doc_changes, blame_lines / chunk_provenance; kb history and recent_changes
(provenance read by the review package)."""

from __future__ import annotations

import ast
import json
import unicodedata
from datetime import datetime
from pathlib import Path

import git
import pytest
from click.testing import CliRunner
from git.util import Actor

import kbtools.doc_changes
import kbtools.provenance
from kbtools.cli import main
from kbtools.doc_changes import doc_changes
from kbtools.errors import KbError
from kbtools.provenance import (
    UNCOMMITTED,
    LineProvenance,
    blame_lines,
    chunk_provenance,
    parse_line_porcelain,
)
from kbtools.review.history import doc_history, recent_changes
from kbtools.review.verification import reviewed_by

ALICE = Actor("Alice Writer", "alice@ex.org")
RITA = Actor("Rita Reviewer", "rita@ex.org")
RAY = Actor("Ray Reviewer", "ray@ex.org")
DOC = "knowledge/crops/rust.md"
NC = frozenset({"tags"})


def text(body: str = "Line one.\nLine two.\n", *, by: str | None = None, at: str = "",
         tags: str = "a") -> str:
    fm = ["---", "title: Rust", "category: crop-protection", "source: SOP", "author: Alice",
          'timestamp: "2026-01-01T09:00:00+08:00"', f"verified: {'true' if by else 'false'}"]
    if by:
        fm += [f"verified_by: {by}", f'verified_at: "{at}"']
    return "\n".join(fm + ["crop: [wheat]", "disease: [rust]", f"tags: [{tags}]", "---", ""]) + body


class Repo:
    def __init__(self, root: Path):
        self.root = root
        self.repo = git.Repo.init(root, initial_branch="main")
        (root / "kb.toml").write_text('[review]\nnon_content_fields = ["tags"]\n')
        self.commit({"kb.toml": None}, "settings", ALICE, "2026-01-01T00:00:00+00:00")

    def commit(self, files: dict[str, str | None], message: str, actor: Actor, date: str) -> str:
        for rel, content in files.items():
            if content is not None:
                (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.root / rel).write_text(content, encoding="utf-8")
        self.repo.index.add(list(files))
        when = datetime.fromisoformat(date)
        return self.repo.index.commit(message, author=actor, committer=actor, author_date=when,
                                      commit_date=when).hexsha


@pytest.fixture
def r(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "kb")


def story(r: Repo) -> list[str]:
    """created -> verified (Rita) -> tags -> body edit + unverified -> verified (Ray)."""
    return [
        r.commit({DOC: text()}, "Add rust", ALICE, "2026-02-01T10:00:00+08:00"),
        r.commit({DOC: text(by="rita@ex.org", at="2026-02-02T10:00:00+08:00")}, "Verify", RITA,
                 "2026-02-02T10:00:00+08:00"),
        r.commit({DOC: text(by="rita@ex.org", at="2026-02-02T10:00:00+08:00", tags="a, b")},
                 "Tags", ALICE, "2026-02-03T10:00:00+08:00"),
        r.commit({DOC: text("Line one.\nLine 2 changed.\n", tags="a, b")}, "Edit", ALICE,
                 "2026-02-04T10:00:00+08:00"),
        r.commit({DOC: text("Line one.\nLine 2 changed.\n", by="ray@ex.org",
                            at="2026-02-05T10:00:00+08:00", tags="a, b")},
                 "Verify again\n\nReviewed-by: Ray Reviewer <ray@ex.org>", ALICE,
                 "2026-02-05T10:00:00+08:00"),
    ]


def test_history_lists_commits_and_verification_events_in_order(r: Repo) -> None:
    shas = story(r)
    h = doc_history(r.root, DOC, NC)
    assert [c["commit"] for c in h["commits"]] == shas[::-1]
    assert [c["changes"] for c in h["commits"]] == [
        ["verified by ray@ex.org"], ["body", "verification removed"],
        ["front matter tags (non-content)"], ["verified by rita@ex.org"], ["created"]]
    assert h["commits"][0]["reviewed_by"] == ["ray@ex.org"]
    events = [(e["event"], e["commit"], e["verified_by"]) for e in h["verifications"]]
    assert events == [("verified", shas[1], "rita@ex.org"), ("unverified", shas[3], None),
                      ("verified", shas[4], "ray@ex.org")]
    assert h["verifications"][2]["committed_by"] == "alice@ex.org"


def test_history_follows_renames(r: Repo) -> None:
    first = r.commit({DOC: text()}, "Add", ALICE, "2026-02-01T10:00:00+08:00")
    r.repo.index.move([DOC, "knowledge/crops/wheat-rust.md"])
    r.commit({}, "Rename", ALICE, "2026-02-02T10:00:00+08:00")
    h = doc_history(r.root, "knowledge/crops/wheat-rust.md", NC)
    assert [c["commit"] for c in h["commits"]][-1] == first
    assert h["commits"][0]["changes"] == ["no content change"]


def test_history_errors(r: Repo, tmp_path: Path) -> None:
    with pytest.raises(KbError, match="no commits touch this document"):
        doc_history(r.root, "knowledge/none.md", NC)
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(KbError, match="not inside a Git repository"):
        doc_history(plain, DOC, NC)


def test_history_and_approve_on_a_branch_without_commits(tmp_path: Path, monkeypatch) -> None:
    # `git init`, files added, nothing committed yet: "unknown Git revision 'HEAD'" (exit 2,
    # a usage error) read as if HEAD were misspelt
    root = tmp_path / "new"
    git.Repo.init(root)
    (root / "kb.toml").write_text("", encoding="utf-8")
    (root / DOC).parent.mkdir(parents=True)
    (root / DOC).write_text(text(), encoding="utf-8")
    monkeypatch.chdir(root)
    for args in (["history", DOC], ["review", "approve", DOC, "--as", "rita@ex.org"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 1 and "no commits yet (unborn branch)" in res.stderr, res.output


NAME = "knowledge/café ñ.md"


def test_history_of_a_name_typed_composed_for_one_committed_decomposed(
        r: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS writes file names decomposed (NFD); typed composed (NFC), `kb history` said
    "no commits touch this document". It follows the name as the disk spells it, and as
    the history spells it for a document no longer on disk."""
    nfd = unicodedata.normalize("NFD", NAME)
    assert nfd != NAME
    first = r.commit({nfd: text()}, "Add café", ALICE, "2026-02-01T10:00:00+08:00")
    monkeypatch.chdir(r.root)
    res = CliRunner().invoke(main, ["history", NAME, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["doc"] == nfd and [c["commit"] for c in out["commits"]] == [first]
    monkeypatch.chdir(r.root / "knowledge")  # relative to the cwd, as typed
    res = CliRunner().invoke(main, ["history", "café ñ.md", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["doc"] == nfd
    r.repo.index.remove([nfd], working_tree=True)  # deleted: only the history spells it
    gone = r.commit({}, "Remove café", ALICE, "2026-02-02T10:00:00+08:00")
    h = doc_history(r.root, NAME, NC)
    assert h["doc"] == nfd and [c["commit"] for c in h["commits"]] == [gone, first]


def test_doc_changes_are_neutral(r: Repo) -> None:
    """Provenance lists every commit with what changed; no field is special to it."""
    shas = story(r)
    with r.repo:
        changes = doc_changes(r.repo, "HEAD", DOC)
    assert [ch.commit.sha for ch in changes] == shas[::-1]
    tags, verify = changes[2], changes[3]
    assert tags.after is not None and tags.before is not None
    assert tags.after.changed_fields(tags.before) == ["tags"]
    assert tags.changed() and not tags.changed(frozenset({"tags"}))
    assert verify.changed() and not verify.changed(frozenset({"verified", "verified_by",
                                                              "verified_at"}))


@pytest.mark.parametrize("module", [kbtools.provenance, kbtools.doc_changes])
def test_provenance_has_no_review_vocabulary(module) -> None:
    """Verification semantics live in kbtools.review; provenance and the histories read on
    it neither import nor name them (a docstring may point there)."""
    path = Path(module.__file__)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstring = ast.get_docstring(tree, clean=False)
    words = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            words.append(node.module or "")
        elif isinstance(node, ast.Name | ast.Attribute | ast.FunctionDef | ast.ClassDef | ast.arg):
            words.append(getattr(node, "id", None) or getattr(node, "attr", None)
                         or getattr(node, "name", None) or getattr(node, "arg", ""))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value != docstring:
            words.append(node.value)
    found = [w for w in words if any(v in w.lower() for v in ("verif", "review", "trailer"))]
    assert found == []


def test_reviewed_by_reads_only_the_trailer_block() -> None:
    assert reviewed_by("Subject\n\nbody\n\nReviewed-by: A B <A@x.org>\nSigned-off-by: C <c@x>") \
        == [("A B", "a@x.org")]
    assert reviewed_by("Reviewed-by: A <a@x.org>") == []  # a subject is not a trailer
    assert reviewed_by("S\n\nReviewed-by: a@x.org") == []  # no <email>


class CountedLine(LineProvenance):
    """A blame line that counts how often its line number is read."""

    reads = 0

    def __getattribute__(self, name: str) -> object:
        if name == "line":
            CountedLine.reads += 1
        return super().__getattribute__(name)


def test_chunk_provenance_reads_the_chunks_lines_not_the_whole_blame() -> None:
    # a document of 8,000 headings is 7,500 chunks over 24,000 lines: stamping every chunk
    # by reading every blame line took 56 s of a 60 s build
    n = 3000
    blame = [CountedLine(line=i, commit=f"{i % 7:040x}", author_name=f"a{i % 7}",
                         author_email="", authored_at=f"2026-01-{i % 7 + 1:02d}T00:00:00",
                         committed_ts=i % 7 + 100, authored_ts=i % 5)
             for i in range(1, n + 1)]
    spans = [(s, s + 2) for s in range(1, n + 1, 3)] + [(n + 5, n + 9), (0, 0), (5, 4)]

    def reference(lo: int, hi: int) -> dict[str, str | None]:
        lines = [p for p in blame if lo <= p.line <= hi]
        if not lines:
            return {"last_commit": None, "last_author": None, "last_changed": None}
        newest = max(lines, key=lambda p: (p.committed_ts, p.authored_ts))
        return {"last_commit": newest.commit, "last_author": newest.author_name,
                "last_changed": newest.authored_at}

    expected = [reference(lo, hi) for lo, hi in spans]
    CountedLine.reads = 0
    assert [chunk_provenance(blame, lo, hi) for lo, hi in spans] == expected
    assert CountedLine.reads < 40 * len(spans)  # a bisection per chunk, not n reads


def test_porcelain_parsed_in_line_order() -> None:
    sha = "a" * 40
    out = "".join(f"{sha} {i} {i} 1\nauthor A\ncommitter-time 5\n\tline {i}\n"
                  for i in (3, 1, 2))
    assert [p.line for p in parse_line_porcelain(out)] == [1, 2, 3]


def test_blame_and_chunk_provenance(r: Repo) -> None:
    shas = story(r)
    blame = blame_lines(r.root, DOC)
    lines = (r.root / DOC).read_text().split("\n")
    assert len(blame) == len(lines) - 1  # the file ends with a newline
    assert [p.line for p in blame] == list(range(1, len(blame) + 1))
    body_start = lines.index("Line one.") + 1
    assert blame[body_start - 1].commit == shas[0]
    assert blame[body_start].commit == shas[3]
    assert blame[body_start].author_email == "alice@ex.org"
    assert blame[body_start].authored_at == "2026-02-04T10:00:00+08:00"
    prov = chunk_provenance(blame, body_start, body_start + 1)
    assert prov == {"last_commit": shas[3], "last_author": "Alice Writer",
                    "last_changed": "2026-02-04T10:00:00+08:00"}
    assert chunk_provenance(blame, body_start, body_start)["last_commit"] == shas[0]
    assert chunk_provenance(blame, 500, 600) == {"last_commit": None, "last_author": None,
                                                 "last_changed": None}


def test_chunk_provenance_of_commits_made_in_one_second_is_the_later_authored(r: Repo) -> None:
    """A rebase (or GitHub's "rebase and merge") stamps every commit with one commit time;
    the newer of two is then the later author time as an instant, whatever the offsets:
    08:00+08:00 (00:00Z) is before 07:00+00:00, though its text sorts after."""
    r.commit({DOC: text("Line one.\nLine two.\n")}, "Add", ALICE, "2026-02-01T10:00:00+00:00")
    stamp = datetime.fromisoformat("2026-03-01T12:00:00+00:00")  # the rebase's one second
    shas = []
    for body, authored in (("Line ONE.\nLine two.\n", "2026-02-02T08:00:00+08:00"),
                           ("Line ONE.\nLine TWO.\n", "2026-02-02T07:00:00+00:00")):
        (r.root / DOC).write_text(text(body), encoding="utf-8")
        r.repo.index.add([DOC])
        shas.append(r.repo.index.commit("edit", author=ALICE, committer=ALICE,
                                        author_date=datetime.fromisoformat(authored),
                                        commit_date=stamp).hexsha)
    blame = blame_lines(r.root, DOC)
    first = next(p.line for p in blame if p.commit == shas[0])
    assert chunk_provenance(blame, first, first + 1) == {
        "last_commit": shas[1], "last_author": "Alice Writer",
        "last_changed": "2026-02-02T07:00:00+00:00"}


def test_blame_dirty_untracked_and_not_a_repo(r: Repo, tmp_path: Path) -> None:
    story(r)
    path = r.root / DOC
    path.write_text(path.read_text() + "Uncommitted line.\n")
    blame = blame_lines(r.root, DOC)
    assert blame[-1].commit == UNCOMMITTED and blame[-2].commit != UNCOMMITTED
    n = len(blame)
    assert chunk_provenance(blame, n - 1, n) == {"last_commit": UNCOMMITTED,
                                                 "last_author": UNCOMMITTED,
                                                 "last_changed": None}
    (r.root / "knowledge/new.md").write_text("x\n")
    assert blame_lines(r.root, "knowledge/new.md") == []
    assert blame_lines(r.root, "knowledge/missing.md") == []
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.md").write_text("x\n")
    assert blame_lines(plain, "a.md") == []
    empty = tmp_path / "empty"
    git.Repo.init(empty)
    (empty / "a.md").write_text("x\n")
    assert blame_lines(empty, "a.md") == []


def test_blame_ignores_the_machines_ignore_revs_setting(r: Repo, tmp_path: Path,
                                                         monkeypatch) -> None:
    """`blame.ignoreRevsFile` in a user's or CI's git settings (`.git-blame-ignore-revs`, as
    GitHub suggests) must not change provenance: listed commits still own their lines, and
    a repository without the file still has blame (git fails every blame then)."""
    shas = story(r)
    plain = blame_lines(r.root, DOC)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[blame]\n\tignoreRevsFile = .git-blame-ignore-revs\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    assert plain and blame_lines(r.root, DOC) == plain  # the file is missing
    r.commit({".git-blame-ignore-revs": shas[3] + "\n"}, "ignore the edit", ALICE,
             "2026-02-06T10:00:00+08:00")
    assert blame_lines(r.root, DOC) == plain  # listed: the edit still owns its line
    assert shas[3] in {p.commit for p in plain}


def test_blame_reads_names_in_utf8_whatever_the_log_encoding(r: Repo, tmp_path: Path,
                                                             monkeypatch) -> None:
    """A machine set to print logs in GBK (`i18n.logOutputEncoding`, common on Chinese
    Windows setups) must still stamp chunks with the author's real name."""
    sha = r.commit({DOC: text()}, "新增", Actor("张伟", "zhang.wei@ex.org"),
                   "2026-02-01T10:00:00+08:00")
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[i18n]\n\tlogOutputEncoding = gbk\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    blame = blame_lines(r.root, DOC)
    assert blame and {(p.commit, p.author_name) for p in blame} == {(sha, "张伟")}


def test_blame_in_a_subdirectory_root(tmp_path: Path) -> None:
    repo = git.Repo.init(tmp_path, initial_branch="main")
    (tmp_path / "kb" / "knowledge").mkdir(parents=True)
    (tmp_path / "kb" / "knowledge" / "a.md").write_text("one\ntwo\n")
    repo.index.add(["kb/knowledge/a.md"])
    sha = repo.index.commit("add", author=RITA, committer=RITA).hexsha
    assert [p.commit for p in blame_lines(tmp_path / "kb", "knowledge/a.md")] == [sha, sha]


def test_recent_changes_newest_first(r: Repo) -> None:
    story(r)
    r.commit({"knowledge/equipment/pump.md": text("Pump.\n")}, "Add pump", RAY,
             "2026-02-06T10:00:00+08:00")
    r.commit({"README.md": "not knowledge\n"}, "Readme", RAY, "2026-02-07T10:00:00+08:00")
    rows = recent_changes(r.root)
    assert [(x["doc"], x["change"], x["author_email"]) for x in rows] == [
        ("knowledge/equipment/pump.md", "added", "ray@ex.org"),
        (DOC, "modified", "alice@ex.org")]
    assert rows[1]["summary"] == "verified by ray@ex.org" and rows[1]["verified"] is True
    assert rows[0]["title"] == "Rust" and rows[0]["date"] == "2026-02-06T10:00:00+08:00"
    assert [x["doc"] for x in recent_changes(r.root, n=1)] == ["knowledge/equipment/pump.md"]
    assert recent_changes(r.root, days=1) == []  # all of it is months old
    for days in (20_500, 36_600):  # reaching before 1970: everything, not nothing
        assert len(recent_changes(r.root, days=days)) == 2


def test_recent_changes_recent_days_and_deleted(r: Repo) -> None:
    r.commit({DOC: text()}, "Add", ALICE, datetime.now().astimezone().isoformat())
    r.repo.index.remove([DOC], working_tree=True)
    r.commit({}, "Remove", RITA, datetime.now().astimezone().isoformat())
    rows = recent_changes(r.root, days=2)
    assert [(x["doc"], x["change"], x["summary"]) for x in rows] == [(DOC, "deleted", "deleted")]


def test_recent_changes_outside_git(tmp_path: Path) -> None:
    assert recent_changes(tmp_path) == []


def test_cli_history(r: Repo, monkeypatch) -> None:
    shas = story(r)
    monkeypatch.chdir(r.root)
    out = CliRunner().invoke(main, ["history", DOC])
    assert out.exit_code == 0, out.output
    # with its offset: commits from several time zones are not read as one zone's times
    assert out.stdout.startswith(f"{shas[4][:10]}  2026-02-05T10:00:00+08:00  "
                                 "Alice Writer <alice@ex.org>")
    assert "verification events:" in out.stdout
    assert f"{shas[4][:10]}  verified by ray@ex.org at 2026-02-05T10:00:00+08:00 " \
           "(Reviewed-by: ray@ex.org)" in out.stdout
    assert f"{shas[1][:10]}  verified by rita@ex.org at 2026-02-02T10:00:00+08:00 " \
           "(reviewer's own commit)" in out.stdout
    data = json.loads(CliRunner().invoke(main, ["history", DOC, "--json"]).stdout)
    assert data["doc"] == DOC and len(data["commits"]) == 5
    bad = CliRunner().invoke(main, ["history", "knowledge/none.md"])
    assert bad.exit_code == 1 and "no commits touch this document" in bad.stderr
    for folder in ("knowledge", "knowledge/crops"):  # once its documents' history, as one's
        res = CliRunner().invoke(main, ["history", folder, "--json"])
        assert res.exit_code == 2 and "a directory, not a document" in res.stderr, res.output
    out_file = r.root / "written.txt"  # once git's --output option, writing that file
    for rev in (f"--output={out_file}", "--all", "no-such-rev"):
        res = CliRunner().invoke(main, ["history", DOC, f"--rev={rev}"])
        assert res.exit_code == 2 and f"unknown Git revision {rev!r}" in res.stderr, res.output
    assert not out_file.exists()
    assert doc_changes(r.repo, f"--output={out_file}", DOC) == [] and not out_file.exists()
    res = CliRunner().invoke(main, ["review", "approve", "knowledge/crops"])
    assert res.exit_code == 2 and "a directory, not a document" in res.stderr, res.output


def test_paths_outside_ascii_read_as_written(r: Repo) -> None:
    """git quotes such paths in its output (core.quotePath): `knowledge/设备/手册.md` came back
    as `"knowledge/\\350\\256…"`, so its creation read as a deletion, `kb recent` left it out
    and its review was never found (always served unverified)."""
    doc = "knowledge/设备 手册/液压泵.md"
    r.commit({doc: text()}, "Add pump", ALICE, "2026-02-01T10:00:00+08:00")
    r.commit({doc: text(by="rita@ex.org", at="2026-02-02T10:00:00+08:00")}, "Verify", RITA,
             "2026-02-02T10:00:00+08:00")
    history = doc_history(r.root, doc, NC)
    assert [c["changes"][0] for c in history["commits"]][-1] == "created"
    assert [e["event"] for e in history["verifications"]] == ["verified"]
    assert [x["doc"] for x in recent_changes(r.root)] == [doc]
    assert len(blame_lines(r.root, doc)) == len(text(by="rita@ex.org").splitlines())
    first = r.repo.commit("HEAD~2")  # kb review check's view of the two commits
    assert kbtools.provenance.changed_docs(r.repo, first, r.repo.head.commit,
                                           "knowledge") == [doc]


def test_history_of_a_document_deleted_and_added_again_shows_its_earlier_life(r: Repo) -> None:
    """A new file resembling another document is a copy to `git log --follow`, which then
    ends its history there: the life the path had before, and its deletion, are read too,
    through the renames since."""
    other = "knowledge/crops/other.md"
    first = r.commit({DOC: text("First life.\n"), other: text("Other.\n")}, "Add both", ALICE,
                     "2026-02-01T10:00:00+08:00")
    r.repo.index.remove([DOC], working_tree=True)
    when = datetime.fromisoformat("2026-02-02T10:00:00+08:00")
    gone = r.repo.index.commit("Delete", author=ALICE, committer=ALICE, author_date=when,
                               commit_date=when).hexsha
    again = r.commit({DOC: text("Second life.\n")}, "Add again", RITA,
                     "2026-02-03T10:00:00+08:00")
    r.repo.git.mv(DOC, "knowledge/crops/b.md")
    moved = r.commit({}, "a -> b", ALICE, "2026-02-04T10:00:00+08:00")
    r.repo.git.mv("knowledge/crops/b.md", "knowledge/crops/c.md")
    last = r.commit({}, "b -> c", ALICE, "2026-02-05T10:00:00+08:00")
    result = doc_history(r.root, "knowledge/crops/c.md", NC)
    assert [(c["commit"], c["changes"]) for c in result["commits"]] == [
        (last, ["no content change"]), (moved, ["no content change"]), (again, ["created"]),
        (gone, ["deleted"]), (first, ["created"])]
    assert [c["path"] for c in result["commits"]][-2:] == [DOC, DOC]
