"""A Milvus server that dies in the middle of a publish (issue 14): the publish fails in one
line, the alias still serves the previous release complete once the server is back, and
publishing again finishes the release that was cut short (a guard: found right)."""

from __future__ import annotations

from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.errors import EngineError
from tests.hostile import git, make_repo
from tests.milvus_server import MilvusLite, answering
from tests.test_engine_prune import zh_page

NEW = "knowledge/过滤器.md"


def test_a_server_killed_mid_publish_keeps_the_served_release_and_recovers(tmp_path):
    docs = {f"knowledge/滴灌{i}.md": zh_page(f"滴灌{i}", f"滴灌管第{i}周冲洗一次。" * 20)
            for i in range(12)}
    repo = make_repo(tmp_path / "kr", docs=docs)
    build(load_config(repo), BuildOptions(out=repo / "r1", progress=False))
    (repo / NEW).write_text(zh_page("过滤器", "过滤器每月拆开清洗一次。"), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "filters")
    build(load_config(repo), BuildOptions(out=repo / "r2", progress=False))
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
        server.stop()
        server = MilvusLite(tmp_path / "data", port=server.port)
        answering(url)
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
