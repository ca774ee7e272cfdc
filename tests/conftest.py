"""Shared fixtures. Every test runs with KB_HOME (and caches) in a temp dir."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

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

# The property tests draw the same examples on every run (each test's seeded by its own
# source), so a run of the suite says what the code does, not what one roll of the dice found:
# a CI run on an unchanged commit passes or fails as it did here. `--hypothesis-profile=
# explore` draws fresh examples (500 where a test sets no number) to look for new failures.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=500)
settings.load_profile("ci")

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


# The suite's disk. Its ~7,400 tests write repositories, indexes, releases and devices under
# pytest's basetemp; kept to the end of the run (pytest's default) they filled a CI runner's
# /tmp two thirds of the way through (ENOSPC). What a test wrote in `tmp_path` is removed when
# it passes, and everything a module's tests and fixtures wrote there (their KB_HOMEs too)
# when the module ends with no test failed: a failure keeps its files to look at. Only the
# contents go: the emptied folders stay, so pytest never hands a later test the same path
# (it numbers from the folders there are), which a process-wide cache keyed by path (an open
# SQLite file, an opened index) would take for the earlier test's. Not pytest's
# tmp_path_retention_policy "failed": it removes the folders themselves. And not KB_HOME per
# test: a module's server resolves KB_HOME during its first test and keeps using it.
# Session-scoped fixtures must not write under basetemp (a module would empty what they
# wrote); none do.
_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
        module = item.getparent(pytest.Module)
        if module is not None:
            module.stash[_FAILED] = True
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None):
    result = yield  # the test's fixtures are finalized: its servers and mounts are gone
    used = getattr(item, "funcargs", {}).get("tmp_path")
    if isinstance(used, Path) and not item.stash.get(_FAILED, False):
        empty_folder(used)
    return result


def empty_folder(folder: Path) -> None:
    """Remove what `folder` holds, also what a test left unwritable or unreadable, and keep
    the folder itself (see above). Nothing raised: a file still in use stays."""
    def open_up_and_retry(_function, name, _exc_info) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)
            if os.path.isdir(name) and not os.path.islink(name):
                os.chmod(name, 0o700)
                shutil.rmtree(name, ignore_errors=True)
            elif os.path.lexists(name):
                os.unlink(name)

    with contextlib.suppress(OSError):
        if not folder.is_symlink():
            folder.chmod(0o700)
        for entry in os.scandir(folder):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, onerror=open_up_and_retry)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


@pytest.fixture(scope="module", autouse=True)
def module_files(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """Empty what this module wrote under basetemp when it ends with no test failed.
    (Set up before the module's other fixtures, so torn down after them: servers and mounts
    are gone by then.)"""
    base = tmp_path_factory.getbasetemp()
    before = set(os.listdir(base))
    yield
    if request.node.stash.get(_FAILED, False):
        return
    for name in sorted(set(os.listdir(base)) - before):
        if (base / name).is_dir() and not (base / name).is_symlink():
            empty_folder(base / name)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("kbhome")
    monkeypatch.setenv("KB_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("KB_INDEX", raising=False)
    monkeypatch.delenv("PRE_COMMIT", raising=False)  # set by pre-commit: `kb check --staged`
    # the tests read `kb status` in English: a locale naming no language (C.UTF-8) would
    # have it speak the served release's, Chinese for the example (`ship.status_words`)
    for var in ("LANGUAGE", "LC_ALL"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("LC_MESSAGES", "en_US.UTF-8")
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
