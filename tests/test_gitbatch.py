"""One git process for the blobs a loop over many documents reads (`kbtools.gitbatch`):
the same bytes as a process per read, in either object format, and `kb check`'s review
judgement starting as many git processes for six verified documents as for two."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from pathlib import Path

import git as gitpython
import pytest
from reviewkb import AT, doc_text, git
from reviewkb import REVIEWERS_TOML as KB_TOML

from kbtools import gitbatch
from kbtools.check.verification import coverage_findings, lapse_findings
from kbtools.config import load_config
from kbtools.corpus import parse_source
from kbtools.gitobjects import commit_authors, git_reason, read_blobs
from kbtools.provenance import not_ancestors, open_repo
from kbtools.review.lapse import review_coverage

FILES = {
    "a.md": b"# A\n\nplain text\n",
    "dir/b b.md": b"a name with a space\n",
    "设备/手册.md": "# 手册\n\n检查油温。\n".encode(),
    "x 12 34": b"a name that looks like a header\n",
    "empty.md": b"",
    # bigger than a pipe's buffer, with line feeds and every byte value
    "big.bin": bytes(range(256)) * 1200 + b"\n\n",
}
NAMES = ["HEAD:a.md", "HEAD:dir/b b.md", "HEAD:设备/手册.md", "HEAD:x 12 34", "HEAD:empty.md",
         "HEAD:big.bin", "HEAD:missing.md", "HEAD:dir", "HEAD", "HEAD:dir/b b.md missing",
         "nosuchrev:a.md", "HEAD:a.md"]
EXPECTED = [FILES["a.md"], FILES["dir/b b.md"], FILES["设备/手册.md"], FILES["x 12 34"], b"",
            FILES["big.bin"], None, None, None, None, None, FILES["a.md"]]


def make_repo(root: Path, object_format: str) -> Path:
    root.mkdir()
    made = subprocess.run(["git", "init", "-q", "-b", "main", f"--object-format={object_format}"],
                          cwd=root, capture_output=True)
    if made.returncode:
        pytest.skip(f"this git cannot make {object_format} repositories")
    for name, data in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "files")
    return root


class Spawned:
    """Counts the git processes GitPython starts (`git.cmd.safer_popen`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.commands: list[list[str]] = []
        real = gitpython.cmd.safer_popen
        spawned = self

        class Counting(real):  # type: ignore[misc, valid-type]
            def __init__(self, args: list[str], *more: object, **kwargs: object):
                spawned.commands.append([a for a in args if a != "-c" and "=" not in a])
                super().__init__(args, *more, **kwargs)

        monkeypatch.setattr(gitpython.cmd, "safer_popen", Counting)

    @property
    def count(self) -> int:
        return len(self.commands)

    def of(self, command: str) -> int:
        return sum(1 for c in self.commands if c[1:2] == [command])


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_batched_reads_are_the_bytes_one_process_per_read_gives(tmp_path, monkeypatch,
                                                                object_format):
    root = make_repo(tmp_path / object_format, object_format)
    with open_repo(root) as repo:
        assert read_blobs(repo, NAMES) == EXPECTED  # one `cat-file --batch` for the call
        spawned = Spawned(monkeypatch)
        with gitbatch.batched(repo):
            batch = gitbatch.reader(repo)
            assert batch is not None
            got = [read_blobs(repo, [n])[0] for n in NAMES]  # a call per name, as a loop does
            with gitbatch.batched(repo):  # a nested block shares the outer one's
                assert gitbatch.reader(repo) is batch
                assert read_blobs(repo, NAMES[::-1]) == EXPECTED[::-1]
            assert read_blobs(repo, []) == []
        assert got == EXPECTED
        assert spawned.count == 1
        assert gitbatch.reader(repo) is None
        assert batch.cmd.proc.poll() == 0  # ended with its input, not left running
        # after the block, reads start their own process again
        assert read_blobs(repo, NAMES[:1]) == EXPECTED[:1] and spawned.count == 2


def test_a_name_with_a_line_feed_is_no_request_of_two(tmp_path):
    """One name per line: a line feed inside one would be read by git as two requests and
    put every later answer one behind."""
    root = make_repo(tmp_path / "r", "sha1")
    (root / "odd\nname.md").write_bytes(b"odd\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "odd name")
    with open_repo(root) as repo, gitbatch.batched(repo):
        assert read_blobs(repo, ["HEAD:odd\nname.md", "HEAD:a.md"]) == [b"odd\n", FILES["a.md"]]
        assert read_blobs(repo, ["HEAD:a.md"]) == [FILES["a.md"]]


def verified_repo(root: Path, n: int) -> list[str]:
    """`n` documents Alice wrote and Rita verified in her own commit (legitimate reviews);
    Mallory then changes the first one's last line. The documents' paths."""
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "settings", who="lead@ex.org", date="2026-01-01T00:00:00Z")
    rels = [f"knowledge/pump{i}.md" for i in range(n)]

    def text(i: int, by: str | None, interval: int = 2000) -> str:
        return doc_text(f"# Pump {i} seals\n\nReplace the seal every {interval} hours.\n",
                        verified=by is not None, by=by, at=AT if by else None,
                        title=f"Pump {i} seals")

    (root / "knowledge").mkdir()
    for i, rel in enumerate(rels):
        (root / rel).write_text(text(i, None), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Add pumps", date="2026-02-01T10:00:00+00:00")
    for i, rel in enumerate(rels):
        (root / rel).write_text(text(i, "rita@ex.org"), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Verify", who="rita@ex.org")
    (root / rels[0]).write_text(text(0, "rita@ex.org", 5000), encoding="utf-8")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "Longer interval", who="mallory@ex.org",
        date="2026-03-01T10:00:00+00:00")
    return rels


def judged(root: Path, rels: list[str], monkeypatch: pytest.MonkeyPatch
           ) -> tuple[list, list, Spawned]:
    """(each document's findings judged on its own, `lapse_findings`' findings, the git
    processes `lapse_findings` started)."""
    cfg = load_config(root)
    alone = []
    with open_repo(root) as repo:
        for rel in rels:
            text = (root / rel).read_text("utf-8")
            cov = review_coverage(repo, cfg, rel, text)
            alone += coverage_findings(cov, parse_source(text, Path(rel), rel).key_lines)
    with monkeypatch.context() as m:
        spawned = Spawned(m)
        together = lapse_findings(cfg, rels)
    return alone, together, spawned


def test_check_judges_every_verified_document_through_one_git_process(tmp_path, monkeypatch):
    """`kb check`'s verification-lapsed findings are those of each document judged on its
    own (git processes for every read), and they read every blob through one git process
    (five per document before) and ask who wrote the blamed commits, and whether they came
    before the review, once (two per document before): what is left per document is its
    blame."""
    counts = []
    for n in (2, 6):
        root = tmp_path / f"kb{n}"
        rels = verified_repo(root, n)
        alone, together, spawned = judged(root, rels, monkeypatch)
        late = (root / rels[0]).read_text("utf-8").split("\n").index(
            "Replace the seal every 5000 hours.") + 1
        assert [(f.path, f.line) for f in alone] == [(rels[0], late)]
        assert "mallory" in alone[0].message.lower()
        assert together == alone
        assert spawned.of("cat-file") == 1
        counts.append((spawned.count, spawned.of("blame")))
    (small, blamed_small), (large, blamed_large) = counts
    assert blamed_large - blamed_small == 4 and large - small == 4, counts


def test_answers_no_commit_can_change_are_asked_once_in_a_block(tmp_path, monkeypatch):
    """A commit's recorded author and whether it is an ancestor of another are remembered
    while a `batched` block runs: the same answers as outside one, asked of git once."""
    root = tmp_path / "kb"
    verified_repo(root, 2)
    shas = git(root, "rev-list", "HEAD").split()  # newest first: Mallory, Rita, Alice, lead
    with open_repo(root) as repo:
        authors = commit_authors(repo, shas)
        late = not_ancestors(repo, shas, shas[2])
        assert [authors[s][1] for s in shas] == ["mallory@ex.org", "rita@ex.org",
                                                 "alice@ex.org", "lead@ex.org"]
        assert late == set(shas[:2])
        with gitbatch.batched(repo):
            spawned = Spawned(monkeypatch)
            assert commit_authors(repo, shas[:2]) == {s: authors[s] for s in shas[:2]}
            assert commit_authors(repo, shas) == authors
            assert not_ancestors(repo, shas[1:], shas[2]) == {shas[1]}
            assert not_ancestors(repo, shas, shas[2]) == late
            assert not_ancestors(repo, shas, shas[0]) == set()
            assert spawned.of("log") == 2 and spawned.of("rev-list") == 3
            assert commit_authors(repo, shas[::-1]) == authors
            assert not_ancestors(repo, shas[::-1], shas[2]) == late
            assert not_ancestors(repo, shas[:1], shas[2]) == {shas[0]}
            assert spawned.count == 5  # asked again of git: nothing


def test_a_block_left_mid_read_ends_its_git(tmp_path):
    """Stopped while git was writing an object larger than a pipe holds (Ctrl-C, an error
    in the loop), the block still ends its git process rather than waiting on it (it
    waited for ever: the test runs the block in a thread to see it end)."""
    root = make_repo(tmp_path / "r", "sha1")
    ended: list[gitbatch._Batch] = []

    def stop_mid_read(repo: gitpython.Repo) -> None:
        with contextlib.suppress(RuntimeError), gitbatch.batched(repo):
            batch = gitbatch.reader(repo)
            assert batch is not None and batch.cmd.proc.stdin is not None
            batch.cmd.proc.stdin.write(b"HEAD:big.bin\n")  # asked, and never read
            batch.cmd.proc.stdin.flush()
            time.sleep(0.2)  # git writes what the pipe holds, then waits
            ended.append(batch)
            raise RuntimeError("stopped")

    with open_repo(root) as repo:
        worker = threading.Thread(target=stop_mid_read, args=(repo,), daemon=True)
        worker.start()
        worker.join(60)
        assert not worker.is_alive(), "the block waited on its git process"
        assert ended[0].cmd.proc.poll() is not None
        assert gitbatch.reader(repo) is None


def test_a_git_failure_with_nothing_on_stderr_says_what_git_said(tmp_path: Path) -> None:
    """`kb review approve` once ended "commit failed, files restored: git -c failed": git
    said why on stdout ("nothing to commit"), and the name given was the first word after
    `git`, the `-c` of the options every kb git call carries (`open_repo`)."""
    (tmp_path / "a.md").write_text("x\n", encoding="utf-8")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "a.md")
    git(tmp_path, "commit", "-qm", "a")
    repo = open_repo(tmp_path)
    assert repo is not None
    with repo, pytest.raises(gitpython.GitCommandError) as exc:
        repo.git.commit("--only", "--no-verify", "-m", "m", "--", "a.md")
    assert exc.value.command[1] == "-c"
    assert git_reason(exc.value) == "git commit failed: nothing to commit, working tree clean"
