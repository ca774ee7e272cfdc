"""A Milvus server that dies in the middle of a publish (issue 14): the publish fails in one
line, the alias still serves the previous release complete once the server is back, and
publishing again finishes the release that was cut short (a guard: found right); a
re-publish or a rollback after a restart leaves the release loaded, not its first reader."""

from __future__ import annotations

import signal
import subprocess
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import ALIAS, META_SUFFIX, Engine, connect_url
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.errors import EngineError
from tests.hostile import KB, env, git, make_repo
from tests.milvus_server import MilvusLite, answering
from tests.test_engine_prune import zh_page

NEW = "knowledge/过滤器.md"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A repository with two releases built: r1, and r2 adding the document `NEW`."""
    docs = {f"knowledge/滴灌{i}.md": zh_page(f"滴灌{i}", f"滴灌管第{i}周冲洗一次。" * 20)
            for i in range(12)}
    repo = make_repo(tmp_path_factory.mktemp("restart") / "kr", docs=docs)
    build(load_config(repo), BuildOptions(out=repo / "r1", progress=False))
    (repo / NEW).write_text(zh_page("过滤器", "过滤器每月拆开清洗一次。"), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "filters")
    build(load_config(repo), BuildOptions(out=repo / "r2", progress=False))
    return repo


def _restarted(server: MilvusLite, data: Path, url: str) -> MilvusLite:
    server.stop()
    server = MilvusLite(data, port=server.port)
    answering(url)
    return server


def _loaded(eng: Engine, collection: str) -> list[str]:
    """The load state of `collection` and its ``__meta``."""
    return [eng.client.get_load_state(c)["state"].name
            for c in (collection, collection + META_SUFFIX)]


def test_a_server_killed_mid_publish_keeps_the_served_release_and_recovers(tmp_path, repo):
    server = MilvusLite(tmp_path / "data")
    url = server.url("restart")
    try:
        eng = connect_url(url, create_db=True)
        first = publish(eng, check_release(repo / "r1"))

        def kill(message: str) -> None:  # the chunks written, before the load and count
            if message.startswith("inserted") and server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait()

        try:
            publish(eng, check_release(repo / "r2"), progress=kill)
            raise AssertionError("the publish went on without its server")
        except EngineError as exc:
            assert "\n" not in str(exc) and "is the server running" in str(exc), exc
        eng.close()
        server = _restarted(server, tmp_path / "data", url)
        eng = connect_url(url)
        assert eng.alias_target() == first.collection
        res = CliRunner().invoke(main, ["query", "--engine", url, "--json", "过滤器多久清洗"])
        assert res.exit_code == 0 and NEW not in res.output, res.output  # r1, whole
        res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(repo / "r2")])
        assert res.exit_code == 0, res.output
        assert eng.alias_target() != first.collection
        res = CliRunner().invoke(main, ["query", "--engine", url, "--json", "过滤器多久清洗"])
        assert res.exit_code == 0 and NEW in res.output, res.output
        eng.close()
    finally:
        server.stop()


def test_a_republish_or_rollback_after_a_restart_leaves_the_release_loaded(tmp_path, repo):
    """A restarted server holds every collection released (milvus-lite: NotLoad). Publishing
    the served release again wrote nothing and returned at once, "nothing to do", and the
    first reader paid the load of both collections; a rollback loaded only the release's
    chunks, not the ``__meta`` its reader opens first. Both now leave the release loaded
    and warm, and the re-publish says so in one line."""
    server = MilvusLite(tmp_path / "data")
    url = server.url("again")
    try:
        eng = connect_url(url, create_db=True)
        first = publish(eng, check_release(repo / "r1")).collection
        second = publish(eng, check_release(repo / "r2")).collection
        eng.close()
        server = _restarted(server, tmp_path / "data", url)
        eng = connect_url(url)
        assert _loaded(eng, second) == ["NotLoad", "NotLoad"]  # what the fix is for
        res = CliRunner().invoke(main, ["publish", "--engine", url, "--index",
                                        str(repo / "r2")])
        assert res.exit_code == 0, res.output
        line = (f"{second} is already published and served by alias {ALIAS}; nothing "
                "written, loaded and warmed (")
        assert res.stdout.startswith(line) and res.stdout.count("\n") == 1, res.stdout
        assert _loaded(eng, second) == ["Loaded", "Loaded"]
        assert eng.alias_target() == second
        eng.close()
        server = _restarted(server, tmp_path / "data", url)
        eng = connect_url(url)
        assert rollback(eng, first)["to"] == first
        assert _loaded(eng, first) == ["Loaded", "Loaded"]
        eng.close()
    finally:
        server.stop()


def rest_of(proc: subprocess.Popen[str], seconds: float) -> list[str]:
    """The lines `proc` writes to stderr until it exits; killed (and the test failed by its
    exit code) when it has not exited within `seconds`: it once said its line and hung in
    the interpreter's exit, and this read held the whole suite."""
    assert proc.stderr is not None
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr.read().splitlines()),
                              daemon=True)
    reader.start()
    reader.join(seconds)
    if reader.is_alive():
        proc.kill()
        reader.join(10)
    return lines


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_publish_stopped_half_way_says_what_serves_and_is_finished_again(
        tmp_path, repo, sig):
    """`kb publish` stopped (a service manager's SIGTERM, Ctrl-C) while loading a release
    died without a word (SIGTERM: exit 143) or said "kb: interrupted". It now says in one
    line what the alias serves, which the half-loaded collection never is; publishing
    again says it dropped what was left and serves the release whole."""
    server = MilvusLite(tmp_path / "data")
    url = server.url("stopped")
    try:
        eng = connect_url(url, create_db=True)
        first = publish(eng, check_release(repo / "r1")).collection
        proc = subprocess.Popen([*KB, "publish", "--engine", url, "--index", str(repo / "r2")],
                                stderr=subprocess.PIPE, text=True, env=env(tmp_path / "h"),
                                start_new_session=True)  # (no Ctrl-C of the test's own)
        assert proc.stderr is not None
        said = [proc.stderr.readline()]
        while said[-1] and not said[-1].startswith("kb publish: inserted"):
            said.append(proc.stderr.readline())
        proc.send_signal(sig)  # the chunks written; indexing, loading, warming to come
        said += rest_of(proc, 120)
        assert proc.wait(60) == 130, said
        assert said[-1] == (f"kb: interrupted: publishing into {url} stopped before the "
                            f"release was served: alias {ALIAS} still serves {first}; what "
                            "was loaded is never served, and `kb publish` again drops it "
                            "and loads the release anew"), said
        assert eng.alias_target() == first
        res = CliRunner().invoke(main, ["publish", "--engine", url, "--index",
                                        str(repo / "r2")])
        assert res.exit_code == 0 and "dropped what an interrupted publish left of" in \
            res.stderr, res.output
        assert eng.alias_target() != first
        res = CliRunner().invoke(main, ["query", "--engine", url, "--json", "过滤器多久清洗"])
        assert res.exit_code == 0 and NEW in res.output, res.output
        eng.close()
    finally:
        server.stop()
