"""A killed build leaves no staging directory behind for good, and none is ever served.

`kb build` writes into `.dist.build-<random>` next to `dist/` and holds an flock on it while
it lives (`fsutil.staging_dir`). The next build removes the staging directories nobody holds
(a build killed with SIGKILL) and leaves alone those of a live build (here: one stopped with
SIGSTOP in the middle of its work); `kb query`, `kb status`-style readers and `kb release`
refuse a staging directory.
"""

from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from hostile import GOOD_DOC, KB, env, kb, make_repo

from kbtools.fsutil import remove_stale_staging, replace_dir, staging_dir


def repo_with_docs(root: Path, n: int = 30) -> Path:
    docs = {f"knowledge/d{i:03}.md": GOOD_DOC.replace("Pump maintenance", f"Pump {i}")
            + f"\nSection {i} on seal wear number {i}.\n" for i in range(n)}
    return make_repo(root, docs=docs)


def build_until(repo: Path, home: Path, stage: bytes) -> subprocess.Popen[bytes]:
    """Start `kb build` and return once it reported finishing `stage` (its staging
    directory holds that stage's work by then)."""
    proc = subprocess.Popen([*KB, "build"], cwd=repo, env=env(home), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    seen, deadline = b"", time.monotonic() + 120
    try:
        while time.monotonic() < deadline and f"kb build: {stage.decode()}".encode() not in seen:
            if sel.select(timeout=1):
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    raise AssertionError(f"build ended early: {seen.decode(errors='replace')}")
                seen += chunk
        assert b"kb build: " + stage in seen, seen
        return proc
    finally:
        sel.close()


def staging_dirs(repo: Path) -> set[str]:
    return {p.name for p in repo.glob(".dist.build-*")}


def test_killed_build_is_swept_live_build_is_not(tmp_path):
    repo = repo_with_docs(tmp_path / "repo")
    home = tmp_path / "home"
    killed = build_until(repo, home, b"chunk")
    killed.send_signal(signal.SIGKILL)
    killed.wait()
    killed.stderr.close()  # type: ignore[union-attr]
    (dead,) = staging_dirs(repo)
    assert not (repo / "dist").exists()  # nothing half-built is served

    live = build_until(repo, home, b"render")
    live.send_signal(signal.SIGSTOP)  # alive, mid-build, holding its staging directory
    try:
        (held,) = staging_dirs(repo) - {dead}
        done = kb(repo, "build", "-q", home=home)
        assert done.returncode == 0, done.stderr.decode()
        assert staging_dirs(repo) == {held}  # the dead one is gone, the live one is kept
        assert (repo / held / "data").is_dir()
    finally:
        live.send_signal(signal.SIGCONT)
    assert live.wait(timeout=120) == 0, live.stderr.read().decode()  # type: ignore[union-attr]
    live.stderr.close()  # type: ignore[union-attr]
    assert staging_dirs(repo) == set()
    assert kb(repo, "query", "seal wear number 7", home=home).returncode == 0


def test_staging_directory_is_never_served_or_released(tmp_path):
    repo = repo_with_docs(tmp_path / "repo", 2)
    home = tmp_path / "home"
    assert kb(repo, "build", "-q", home=home).returncode == 0
    # a complete-looking tree a build was killed on just before moving it into place
    stale = repo / ".dist.build-k1ll3d"
    shutil.copytree(repo / "dist", stale)
    for args in (("query", "seal", "--index", str(stale)),
                 ("release", "--dist", str(stale), "--no-push")):
        out = kb(repo, *args, home=home)
        err = out.stderr.decode()
        assert out.returncode != 0 and "staging directory" in err, (args, err)
        assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert kb(repo, "build", "-q", home=home).returncode == 0
    assert not stale.exists()


def test_sweep_unlinks_a_planted_symlink_never_its_target(tmp_path):
    target = tmp_path / "precious"
    target.mkdir()
    (target / "keep.txt").write_text("keep")
    out = tmp_path / "work" / "dist"
    out.parent.mkdir()
    (out.parent / ".dist.build-abc123").symlink_to(target)
    (out.parent / ".dist.build-file9").write_text("x")
    (out.parent / ".dist.build-nothing.txt").write_text("not ours: a dot in the name")
    with staging_dir(out) as mine:
        assert mine.is_dir()
        assert remove_stale_staging(out) == []  # ours is held
    assert (target / "keep.txt").read_text() == "keep"
    assert {p.name for p in out.parent.iterdir()} == {".dist.build-nothing.txt", mine.name}
    assert remove_stale_staging(out) == [mine.name]  # released with the `with` block


def _gone(path: Path, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while path.exists() or path.is_symlink():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_replaced_tree_is_deleted_off_the_critical_path(tmp_path):
    """`replace_dir` renames the old tree aside and leaves deleting it to a detached
    process; a reader holding one of its files keeps reading it; what a crash leaves
    (`.dist.old-*`) goes with the next staging directory, a planted symlink only unlinked."""
    from kbtools.fsutil import TRASH_INFIX, replace_dir

    target = tmp_path / "dist"
    for generation in ("one", "two"):
        with staging_dir(target) as staging:
            (staging / "sub").mkdir()
            for i in range(200):
                (staging / "sub" / f"f{i}").write_text(generation)
            if generation == "two":
                held = (target / "sub" / "f0").open()
            replace_dir(staging, target)
    assert (target / "sub" / "f0").read_text() == "two"
    assert held.read() == "one"  # the old tree's file, still readable after the swap
    held.close()
    assert all(_gone(p) for p in tmp_path.glob(f".dist{TRASH_INFIX}*"))
    left = tmp_path / f".dist{TRASH_INFIX}crashed"
    (left / "deep").mkdir(parents=True)
    (left / "deep" / "x").write_text("x")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    planted = tmp_path / f".dist{TRASH_INFIX}link"
    planted.symlink_to(outside, target_is_directory=True)
    with staging_dir(target):
        pass
    assert _gone(left) and _gone(planted)
    assert (outside / "keep").read_text() == "keep"


def test_built_tree_has_the_umask_mode_not_mkdtemp_0700(tmp_path):
    """dist/ is an ordinary directory: another account (a web server running `kb serve
    --index dist`, a container) reads it as it reads the files inside; mkdtemp's 0700 used
    to survive the rename into place."""
    repo = repo_with_docs(tmp_path / "repo", 2)
    assert kb(repo, "build", "-q", home=tmp_path / "home").returncode == 0
    umask = os.umask(0o022)
    os.umask(umask)
    assert (repo / "dist").stat().st_mode & 0o777 == 0o777 & ~umask
    old = os.umask(0o027)
    try:
        with staging_dir(tmp_path / "out") as staging:
            assert staging.stat().st_mode & 0o777 == 0o750
    finally:
        os.umask(old)


def _swap_trees(target: Path, writer: int, rounds: int, errors: Any) -> None:
    """A writer of `target` as a build is: a staging tree, then `replace_dir`."""
    for n in range(rounds):
        try:
            with staging_dir(target) as staging:
                (staging / "manifest.json").write_text(f"{writer}-{n}")
                replace_dir(staging, target)
        except Exception as exc:  # noqa: BLE001 - reported to the test
            errors.put(f"writer {writer}: {exc!r}")


def test_two_writers_swap_one_target_and_it_never_goes_missing(tmp_path):
    """Two builds into one dist/ at once: neither fails on the other's rename (one saw dist/
    gone, or renamed its tree onto the other's: FileNotFoundError, "Directory not empty"),
    and a reader finds a whole tree at every moment (dist/ is swapped, not removed and put
    back)."""
    import multiprocessing

    target = tmp_path / "dist"
    with staging_dir(target) as staging:
        (staging / "manifest.json").write_text("first")
        replace_dir(staging, target)
    ctx = multiprocessing.get_context("fork")
    errors = ctx.Queue()
    writers = [ctx.Process(target=_swap_trees, args=(target, w, 100, errors)) for w in (1, 2)]
    for w in writers:
        w.start()
    missing = 0
    while any(w.is_alive() for w in writers):
        try:
            (target / "manifest.json").read_text()
        except FileNotFoundError:
            missing += 1
    for w in writers:
        w.join()
    found = []
    while not errors.empty():
        found.append(errors.get())
    assert found == []
    assert missing == 0
    assert (target / "manifest.json").read_text().endswith("-99")


def test_replace_without_an_atomic_exchange_still_swaps(tmp_path, monkeypatch):
    """Where the system has no RENAME_EXCHANGE, the old tree is renamed aside first."""
    import kbtools.fsutil

    monkeypatch.setattr(kbtools.fsutil, "_exchange", lambda a, b: False)
    target = tmp_path / "dist"
    for generation in ("one", "two"):
        with staging_dir(target) as staging:
            (staging / "manifest.json").write_text(generation)
            replace_dir(staging, target)
    assert (target / "manifest.json").read_text() == "two"
