"""Shared fixtures. Every test runs with KB_HOME (and caches) in a temp dir."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest

# Tests run git, kb and LaTeX as subprocesses from workers that also hold gRPC channels to
# Milvus: without this a forked child can abort before exec (see kbtools.engine.milvus).
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")
# A suite started in the background by a shell without job control (`cmd &`, nohup, some
# CI runners) inherits Ctrl-C ignored, and Python leaves it so: the tests of Ctrl-C (kb sync
# in this process; kb build as a child, which inherits it) then saw no interrupt at all.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# Module-scoped fixtures run before a test's own KB_HOME (`isolated_home`) is set: they get
# one of their own (the token cache of their builds' derivations lives there).
_SESSION_HOME = tempfile.mkdtemp(prefix="kbhome-session-")
os.environ["KB_HOME"] = _SESSION_HOME
atexit.register(shutil.rmtree, _SESSION_HOME, True)
# ... and a Git identity, for the same fixtures' commits on a machine whose Git has none
# (a fresh CI runner: `git commit` refuses to guess one); tests set their own per test too
for _var, _value in (("GIT_AUTHOR_NAME", "Test Author"), ("GIT_AUTHOR_EMAIL", "author@example.com"),
                     ("GIT_COMMITTER_NAME", "Test Author"),
                     ("GIT_COMMITTER_EMAIL", "author@example.com")):
    os.environ.setdefault(_var, _value)

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("kbhome")
    monkeypatch.setenv("KB_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("KB_INDEX", raising=False)
    monkeypatch.delenv("PRE_COMMIT", raising=False)  # set by pre-commit: `kb check --staged`
    # git identities for tests that commit
    monkeypatch.setenv("GIT_AUTHOR_NAME", os.environ.get("GIT_AUTHOR_NAME", "Test Author"))
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", os.environ.get("GIT_AUTHOR_EMAIL", "author@example.com"))
    monkeypatch.setenv("GIT_COMMITTER_NAME", os.environ.get("GIT_COMMITTER_NAME", "Test Author"))
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", os.environ.get("GIT_COMMITTER_EMAIL", "author@example.com"))
    return home


@pytest.fixture
def kb(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty knowledge repository (a blank kb.toml, knowledge/) as the working directory,
    for `kb check` of documents a test writes; a test module's own `kb` replaces it."""
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture(scope="module")
def example_index(tmp_path_factory) -> Path:
    """A build of a copy of the bundled example knowledge (its dist/), once per module.
    (kbtools imported on use: this file sets the environment before any of it loads.)"""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config
    from tests.kbfixtures import copy_example

    repo = copy_example(tmp_path_factory.mktemp("example"))
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    return out
