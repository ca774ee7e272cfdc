"""A failure late in a build wastes none of the work before it.

The embedding cache keeps every vector as soon as its batch is embedded, so a build killed
in the middle of embedding, or failing after it, re-embeds only what it had not finished;
inputs that would fail the build are read before anything costly happens.
"""

from __future__ import annotations

import os
import re
import selectors
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build import pipeline
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.fsutil import read_json_lines
from kbtools.index.layout import ReleaseLayout
from tests.kbfixtures import copy_example
from tests.test_build import SMALL, tree_hashes

pytestmark = pytest.mark.slow

KB = str(Path(sys.executable).with_name("kb"))
BATCH = 2
PROGRESS = re.compile(rb"embedding (\S+): (\d+)/(\d+)")


def set_batch_size(repo: Path, size: int) -> None:
    toml = repo / "kb.toml"
    text = re.sub(r"\nbatch_size = \d+", "", toml.read_text())
    toml.write_text(text.replace('model = "use"', f'model = "use"\nbatch_size = {size}'))


def kill_mid_embedding(repo: Path, out: Path) -> int:
    """Run `kb build` and SIGKILL it once it has embedded at least two batches of one model
    and has at least two more of that model to go (a model with less work, such as the
    English model of the few English sections, may have finished before); returns how many
    vectors of that model it reported done."""
    proc = subprocess.Popen([KB, "build", "--out", str(out)], cwd=repo, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stderr, selectors.EVENT_READ)
    seen, deadline = b"", time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            if not sel.select(timeout=1):
                continue
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            progress = PROGRESS.findall(seen)
            for _model, done, total in progress:
                if int(done) >= 2 * BATCH and int(total) - int(done) >= 2 * BATCH:
                    workers = children(proc.pid)
                    assert workers, "no embedding workers to check"
                    proc.kill()
                    proc.wait()
                    assert_gone(workers)
                    return int(done)
        raise AssertionError(f"no progress to interrupt: {seen.decode(errors='replace')}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sel.close()
        proc.stderr.close()


def children(pid: int) -> list[int]:
    """The live child processes of `pid` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def assert_gone(pids: list[int], seconds: float = 15) -> None:
    """The build's embedding workers end once it is killed (none left holding a model)."""
    deadline = time.monotonic() + seconds
    alive = pids
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in alive if Path(f"/proc/{p}").exists()
                 and "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[:1]]
    assert not alive, f"workers of a killed build still running: {alive}"


def test_build_killed_while_embedding_keeps_the_batches_it_embedded(tmp_path: Path):
    repo = copy_example(tmp_path / "repo", SMALL)
    set_batch_size(repo, BATCH)  # many small batches, so the kill lands between two
    out = tmp_path / "dist"
    done = kill_mid_embedding(repo, out)
    assert not out.exists()  # nothing half-built is served
    set_batch_size(repo, 64)  # the cache is keyed by model and text, not by batch
    again = build(load_config(repo), BuildOptions(out=out, progress=False))
    assert again.reused >= done >= 2 * BATCH  # committed batch by batch, not at the end
    shards = ReleaseLayout(out).chunk_shards()
    wanted = {(r["content_hash"], m) for s in shards for r in read_json_lines(s) for m in r["models"]}
    assert again.reused + again.embedded == len(wanted) and again.embedded > 0


def test_failure_after_embedding_reembeds_nothing_on_rerun(tmp_path: Path, monkeypatch):
    repo = copy_example(tmp_path / "repo", SMALL[:2])
    cfg = load_config(repo)
    out = tmp_path / "dist"
    out.mkdir()
    (out / "previous").write_text("the index served before")
    before = tree_hashes(out)

    def disk_full(root: Path, previous: Path | None = None) -> str:
        raise OSError(28, "No space left on device", str(root))

    monkeypatch.setattr(pipeline, "materialize", disk_full)  # the last stage fails once
    with pytest.raises(OSError, match="No space left"):
        build(cfg, BuildOptions(out=out, progress=False))
    assert tree_hashes(out) == before and not list(tmp_path.glob(".dist.build-*"))
    monkeypatch.undo()
    again = build(cfg, BuildOptions(out=out, progress=False))
    assert again.embedded == 0 and again.reused > 0


def test_unreadable_user_dictionary_fails_before_embedding(tmp_path: Path, monkeypatch):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nPump seals.\n", encoding="utf-8")
    (corpus / "_dict.txt").write_bytes("赤霉病 5\n".encode("gbk"))  # not UTF-8

    def no_embedding(key: str) -> None:
        raise AssertionError("the build embedded before reading its inputs")

    monkeypatch.setattr(pipeline, "get_reference_embedder", no_embedding)
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["build", "--corpus", "corpus", "--lenient", "-q"])
    assert res.exit_code == 1, res.output
    assert res.output.count("\n") == 1 and "_dict.txt" in res.output
    assert "not UTF-8" in res.output and "Traceback" not in res.output
