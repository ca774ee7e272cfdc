"""`kb review pending` reads the history once for every document (`lineage.histories_of`):
the same histories as one `git log --follow` per document (`doc_changes.doc_changes`), and a
number of git processes that does not grow with the number of documents."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from git import Repo as git_repo

from kbtools.config import load_config
from kbtools.corpus import iter_documents
from kbtools.doc_changes import doc_changes
from kbtools.review.lineage import UNKNOWN, Lineage, Step, changes_of, histories_of, scan, source
from kbtools.review.pending import awaiting, pending, uncommitted
from kbtools.review.verification import non_content_fields
from tests.kbfixtures import logging_git

NOW = datetime(2026, 11, 29, 22, 5, tzinfo=timezone(timedelta(hours=8)))
# lines documents are made of: documents sharing many are similar enough for git's
# rename and copy detection
LINES = [f"Pump {i} needs {i % 5} litres of oil every {i * 7 % 11} days." for i in range(40)]


def git(cwd: Path, *args: str, check: bool = True) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=check, capture_output=True,
                          text=True).stdout


def document(title: str, lines: list[str], verified: bool = False) -> str:
    review = ('verified: true\nverified_by: Bob\nverified_at: "2026-01-02T09:00:00+08:00"\n'
              if verified else "verified: false\n")
    return (f"---\ntitle: {title}\nauthor: Alice\n{review}---\n\n# {title}\n\n"
            + "\n".join(lines) + "\n")


def make_repo(root: Path) -> Path:
    (root / "knowledge").mkdir(parents=True)
    (root / "kb.toml").write_text("")
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Alice")
    git(root, "config", "user.email", "alice@ex.org")
    git(root, "add", "kb.toml")
    git(root, "commit", "-q", "-m", "settings")
    return root


def commit(root: Path, message: str) -> None:
    git(root, "add", "-A", "knowledge")
    git(root, "commit", "-q", "--allow-empty", "-m", message)


def docs(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in (root / "knowledge").rglob("*.md"))


def write(root: Path, rel: str, rng: random.Random, verified: bool = False) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document(path.stem, rng.sample(LINES, 8), verified))


def edit(root: Path, rel: str, rng: random.Random, verified: bool = False) -> None:
    path = root / rel
    text = path.read_text().replace(rng.choice(LINES[:20]), rng.choice(LINES[20:]))
    text = text.rstrip("\n") + f"\n{rng.choice(LINES)}\n"
    if verified:
        text = text.replace("verified: false\n", 'verified: true\nverified_by: Bob\n'
                            'verified_at: "2026-01-02T09:00:00+08:00"\n')
    path.write_text(text)


def step(root: Path, rng: random.Random, n: int) -> None:
    """One random change: add, edit, review, rename (as is or edited), copy, delete, move
    several documents at once, re-add a deleted name, or revert the last commit."""
    present = docs(root)
    kind = rng.choice(["add", "add", "edit", "edit", "review", "rename", "rename", "copy",
                       "delete", "move", "revert"] if present else ["add"])
    if kind == "add" or not present:
        write(root, f"knowledge/{rng.choice(['a', 'b', 'sub/c'])}{n % 6}.md", rng)
    elif kind == "edit":
        edit(root, rng.choice(present), rng)
    elif kind == "review":
        edit(root, rng.choice(present), rng, verified=True)
    elif kind in ("rename", "copy"):
        old = rng.choice(present)
        new = f"knowledge/{rng.choice(['r', 'sub/r', 'x/y'])}{n}.md"
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(root / old, root / new)
        if kind == "rename":
            (root / old).unlink()
        if rng.random() < 0.5:
            edit(root, new, rng)
    elif kind == "delete":
        (root / rng.choice(present)).unlink()
    elif kind == "move":
        for old in rng.sample(present, min(len(present), 3)):
            new = root / "knowledge" / f"moved{n}" / Path(old).name
            new.parent.mkdir(parents=True, exist_ok=True)
            (root / old).rename(new)
            if rng.random() < 0.3:
                edit(root, new.relative_to(root).as_posix(), rng)
    else:
        if git(root, "revert", "--no-edit", "-m", "1", "HEAD", check=False) == "":
            git(root, "revert", "--no-edit", "HEAD", check=False)
        git(root, "revert", "--abort", check=False)
        return
    commit(root, f"{kind} {n}")


def random_history(root: Path, seed: int, commits: int) -> None:
    """A history of random changes, with branches merged in: a side that changed other
    files, or the same document (the merge takes one side, or resolves the conflict)."""
    rng = random.Random(seed)
    make_repo(root)
    for n in range(commits):
        if n % 7 == 6:
            git(root, "checkout", "-q", "-b", f"side{n}")
            step(root, rng, 1000 + n)
            step(root, rng, 2000 + n)
            git(root, "checkout", "-q", "main")
            step(root, rng, 3000 + n)
            how = rng.choice([[], ["-X", "ours"], ["-X", "theirs"]])
            if subprocess.run(["git", "merge", "-q", "--no-ff", "--no-edit", *how, f"side{n}"],
                              cwd=root, capture_output=True).returncode:
                git(root, "merge", "--abort", check=False)
        else:
            step(root, rng, n)


def every_path(root: Path) -> list[str]:
    out = git(root, "log", "--format=", "--name-only", "-z", "HEAD")
    return sorted({p.strip("\n") for p in out.split("\0") if p.strip("\n")} - {"kb.toml"})


def every_commit(lineage: Lineage, path: str) -> tuple[tuple[Step, ...],
                                                      dict[str, tuple[str, ...]]]:
    """What `follow` reads, the plain way: the document's name in every commit of the
    walk, each commit taking it from its first child in the walk (through that child's
    rename, or the file of that parent the merge made it from), its history the commits
    that touched it under that name."""
    names: dict[int, str | None] = {0: path}
    steps: list[Step] = []
    sides: dict[str, tuple[str, ...]] = {}
    for row, (info, touches) in enumerate(lineage.walk):
        name = names.get(row)
        below: list[str | None] = [name] * len(info.parents)
        if name is not None:
            for k, added in enumerate(lineage.side_added.get(row, ()), 1):
                if name in added:
                    below[k] = lineage.side_renames[info.sha, k].get(name, name)
            if len(info.parents) > 1:
                sides[info.sha] = tuple(str(n) for n in below[1:])
            if name in touches:
                status = touches[name][0]
                found = None
                if status == "A" and info.parents:
                    found = source(touches, lineage.copies[info.sha], name)
                    if found == UNKNOWN:
                        found = lineage.alone[info.sha, name]
                if found is not None:
                    steps.append((info, found[0], found[1], name))
                    below[0] = None if found[0].startswith("C") else found[1]
                else:
                    steps.append((info, status, name, name))
        for k, parent in enumerate(info.parents):
            names.setdefault(lineage.rows[parent], below[k])
    return tuple(steps), {info.sha: sides[info.sha] for info, *_ in steps if info.sha in sides}


@pytest.mark.parametrize("seed", range(6))
def test_histories_read_at_once_are_each_documents_names_on_every_line(tmp_path: Path,
                                                                       seed: int) -> None:
    """Random histories with branches renaming, copying and moving documents: the histories
    read at once (a few commits per document) are those of the plain walk over every
    commit (`every_commit`); a document no branch renamed reads as `git log --follow`."""
    root = tmp_path / "kb"
    random_history(root, seed, 30)
    repo = git_repo(root)
    lineage = scan(repo)
    assert lineage is not None
    paths = every_path(root)  # the documents of today and of the past
    histories_of(repo, lineage, paths)
    read = sum(lineage.histories[p] is not None for p in paths)
    assert read >= len(paths) // 2, (read, len(paths))  # git is asked for few
    for path in paths:
        if lineage.histories[path] is not None:
            assert (lineage.histories[path], lineage.side_names[path]) == \
                every_commit(lineage, path), path
        if all(status[0] not in "RC" and old == new == path for _, status, old, new
               in lineage.histories[path] or ((None, "R", "", ""),)):
            assert changes_of(repo, lineage.head.sha, path, lineage=lineage) == \
                doc_changes(repo, "HEAD", path), path


def test_renames_copies_merges_and_reverts_are_read_as_git_log_follow(tmp_path: Path) -> None:
    """The shapes `--follow` reads in its own way: a rename among several new files, an
    edited rename, a copy of a file left in place, a name deleted and added again, a folder
    moved, a merge that resolved a conflict and one that took a side, a revert, a name git
    reads as a pattern, a document named as a folder once was."""
    root = make_repo(tmp_path / "kb")
    rng = random.Random(7)
    for name in ("a", "b", "c"):
        write(root, f"knowledge/{name}.md", rng)
    commit(root, "add")
    edit(root, "knowledge/a.md", rng, verified=True)
    commit(root, "review a")
    git(root, "mv", "knowledge/a.md", "knowledge/a2.md")
    write(root, "knowledge/new.md", rng)
    commit(root, "rename a among new files")
    edit(root, "knowledge/a2.md", rng)
    commit(root, "edit a after its review")
    shutil.copy(root / "knowledge/b.md", root / "knowledge/b-copy.md")
    commit(root, "copy b")
    git(root, "mv", "knowledge/c.md", "knowledge/c2.md")
    edit(root, "knowledge/c2.md", rng)
    commit(root, "rename c, edited")
    git(root, "rm", "-q", "knowledge/b.md")
    commit(root, "delete b")
    write(root, "knowledge/b.md", rng)
    commit(root, "b again")
    git(root, "checkout", "-q", "-b", "side")
    edit(root, "knowledge/a2.md", rng)
    commit(root, "side edits a")
    git(root, "checkout", "-q", "main")
    edit(root, "knowledge/a2.md", rng)
    commit(root, "main edits a")
    git(root, "merge", "-q", "--no-edit", "-X", "theirs", "side")
    git(root, "revert", "--no-edit", "-m", "1", "HEAD")
    write(root, "knowledge/pump[1].md", rng)  # a pattern, were it not passed literally
    write(root, "knowledge/q.md/inner.md", rng)  # a folder then, a document later
    commit(root, "a pattern and a folder")
    git(root, "rm", "-q", "-r", "knowledge/q.md")
    write(root, "knowledge/pump1.md", rng)
    commit(root, "a name the pattern matches, the folder gone")
    write(root, "knowledge/q.md", rng)
    commit(root, "q.md a document")
    (root / "knowledge/moved").mkdir()
    for name in ("a2", "c2", "new"):
        git(root, "mv", f"knowledge/{name}.md", f"knowledge/moved/{name}.md")
    commit(root, "move a folder")
    repo = git_repo(root)
    lineage = scan(repo)
    assert lineage is not None
    paths = every_path(root)
    histories_of(repo, lineage, paths)
    for path in paths:
        assert changes_of(repo, lineage.head.sha, path, lineage=lineage) == \
            doc_changes(repo, "HEAD", path), path
    assert [h[1][0] for h in lineage.histories["knowledge/moved/a2.md"] or ()
            if h[1][0] == "R"] == ["R", "R"]  # followed through both renames
    assert lineage.histories["knowledge/pump[1].md"] is not None  # read as git reads it
    assert lineage.histories["knowledge/q.md"] is None
    # what `kb review pending` lists: as each document judged on its own history
    cfg = load_config(root)
    nc = non_content_fields(cfg)
    dirty = uncommitted(repo, cfg)
    alone = [awaiting(repo, cfg, src, src.rel, nc)
             for src in iter_documents(cfg.root, cfg.path("knowledge")) if src.rel not in dirty]
    expected = sorted((e["doc"], e["reason"], e["commit"]) for e in alone if e is not None)
    listed = sorted((e["doc"], e["reason"], e["commit"]) for e in pending(cfg, NOW))
    assert listed == expected
    assert ("knowledge/moved/a2.md", "changed-since-verification") in \
        {(doc, reason) for doc, reason, _ in listed}


def test_pending_asks_git_the_same_number_of_times_for_any_number_of_documents(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shim, log = logging_git(tmp_path)
    counts = []
    for n in (2, 8):
        root = make_repo(tmp_path / f"kb{n}")
        rng = random.Random(n)
        for i in range(n):  # each: added, reviewed, renamed, edited since its review
            write(root, f"knowledge/d{i}.md", rng)
            commit(root, f"add {i}")
            edit(root, f"knowledge/d{i}.md", rng, verified=True)
            commit(root, f"review {i}")
            git(root, "mv", f"knowledge/d{i}.md", f"knowledge/e{i}.md")
            commit(root, f"rename {i}")
            edit(root, f"knowledge/e{i}.md", rng)
            commit(root, f"edit {i}")
        with monkeypatch.context() as m:
            m.setenv("PATH", f"{shim}{os.pathsep}{os.environ['PATH']}")
            log.write_text("")
            rows = pending(load_config(root), NOW)
            counts.append(len(log.read_text().splitlines()))
        assert [r["reason"] for r in rows] == ["changed-since-verification"] * n
    assert counts[0] == counts[1], counts


@pytest.mark.parametrize("seed", range(8))
def test_a_folder_moved_with_edits_is_read_at_once_as_git_log_follow(tmp_path: Path,
                                                                     seed: int) -> None:
    """Similar documents moved to another folder in one commit, some edited on the way, one
    split in two, one dropped: rename detection over all the commit's new files shares the
    deleted files among them, `--follow` looks for each file's source on its own. Both
    moves are read without a `git log --follow` per document, as that reads them."""
    root = make_repo(tmp_path / "kb")
    rng = random.Random(seed)
    for i in range(8):  # half of them near-copies of another: each a likely source of both
        if i >= 4 and rng.random() < 0.7:
            shutil.copy(root / f"knowledge/old/d{i - 4}.md", root / f"knowledge/old/d{i}.md")
            edit(root, f"knowledge/old/d{i}.md", rng)
        else:
            write(root, f"knowledge/old/d{i}.md", rng)
    write(root, "knowledge/kept.md", rng)
    commit(root, "add")
    for folder, new in (("old", "new"), ("new", "newer/deep")):
        present = sorted((root / "knowledge" / folder).glob("*.md"))
        for path in present:
            moved = root / "knowledge" / new / path.name
            moved.parent.mkdir(parents=True, exist_ok=True)
            if rng.random() < 0.4:  # split: two new files made from one
                shutil.copy(path, moved.with_name("split-" + path.name))
                edit(root, moved.with_name("split-" + path.name).relative_to(root).as_posix(),
                     rng)
            path.rename(moved)
            if rng.random() < 0.6:
                edit(root, moved.relative_to(root).as_posix(), rng)
        (root / "knowledge" / new / present[-1].name).unlink()
        write(root, f"knowledge/{new}/fresh.md", rng)
        commit(root, f"move {folder} to {new}, with edits")
    repo = git_repo(root)
    lineage = scan(repo)
    assert lineage is not None
    paths = every_path(root)
    objects = git(root, "count-objects", "-v")
    histories_of(repo, lineage, paths)
    assert git(root, "count-objects", "-v") == objects  # the trees compared: elsewhere
    assert lineage.alone  # sources looked for file by file
    assert [p for p in paths if lineage.histories[p] is None] == []  # git asked for none
    for path in paths:
        assert changes_of(repo, lineage.head.sha, path, lineage=lineage) == \
            doc_changes(repo, "HEAD", path), path


NEW_B = "knowledge/泵房/b 号.md"


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_a_source_another_new_file_took_is_found_as_git_log_follow_finds_it(
        tmp_path: Path, object_format: str) -> None:
    """x and its near-copy y moved with edits as a and b (in another folder, a Chinese
    name): detection over both new files gives x to a (the closer) and y to b; `--follow`
    of b alone finds x, closer to it."""
    root = tmp_path / "kb"
    (root / "knowledge").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main", f"--object-format={object_format}")
    git(root, "config", "user.name", "Alice")
    git(root, "config", "user.email", "alice@ex.org")
    lines = LINES[:12]
    (root / "knowledge/x.md").write_text(document("x", lines))
    (root / "knowledge/y.md").write_text(document("x", lines[:9] + LINES[30:33]))
    commit(root, "x and a near-copy")
    (root / "knowledge/moved").mkdir()
    (root / "knowledge/泵房").mkdir()
    (root / "knowledge/x.md").rename(root / "knowledge/moved/a.md")
    (root / "knowledge/y.md").unlink()
    (root / "knowledge/moved/a.md").write_text(document("x", lines + LINES[20:21]))
    (root / NEW_B).write_text(document("x", lines[:10] + LINES[34:36]))
    commit(root, "moved with edits")
    repo = git_repo(root)
    lineage = scan(repo)
    assert lineage is not None
    histories_of(repo, lineage, [NEW_B])
    read = lineage.histories[NEW_B]
    assert read is not None and read[0][2] == "knowledge/x.md"
    assert lineage.copies[read[0][0].sha][NEW_B][1] == "knowledge/y.md"
    assert changes_of(repo, lineage.head.sha, NEW_B, lineage=lineage) == \
        doc_changes(repo, "HEAD", NEW_B)
