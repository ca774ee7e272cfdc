"""A release in Milvus answers its first question at once (issue 14, at scale), and a wrong
address is told at once, through a real `milvus-lite server`:

* the alias moves only after the release's collection answered a search on each of its
  vector fields (`Engine.warm`: milvus-lite reports a collection loaded before a segment's
  sparse index is read, which its first search then paid: the first question after the
  54,626-chunk publish timed out), for a publish and a rollback alike;
* the local copy of a release's sources is flushed once, not fsynced file by file (two
  fsyncs a file took 15 s of a first question for 1,104 sources under load);
* a release is described once when a reader opens it, not once per check;
* a port nothing listens on is one line naming the address before the client (pymilvus)
  is even imported; a server that is up but slow to answer is still waited for."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner
from pymilvus.grpc_gen import milvus_pb2

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.cache import cache_dir
from kbtools.engine.milvus import connect_url
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.query.search import search
from tests.hostile import env as hostile_env
from tests.hostile import git, make_repo
from tests.kbfixtures import REPO, titled_page
from tests.milvus_server import RecordingRelay, free_port, milvus, relay  # noqa: F401 - fixture

SOURCES = 24  # documents of the first release: more than the fsyncs its copy may take
QUESTION = "how often to flush the drip line"


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    docs = {f"knowledge/line{i:02}.md": titled_page(
        f"Drip line {i}", f"Flush drip line {i} with clean water every {i + 2} days.")
        for i in range(SOURCES - 1)}
    kr = make_repo(tmp_path_factory.mktemp("ready") / "kr", docs=docs)
    build(load_config(kr), BuildOptions(progress=False))
    return kr


def _searched_fields(calls: list[tuple[str, bytes]], collection: str) -> set[str]:
    """The vector fields of `collection` that the Search calls among `calls` searched."""
    fields = set()
    for method, raw in calls:
        if method == "Search":
            req = milvus_pb2.SearchRequest.FromString(raw)
            if req.collection_name == collection:
                fields |= {p.value for p in req.search_params if p.key == "anns_field"}
    return fields


def _before_alias(calls: list[tuple[str, bytes]], collection: str) -> list[tuple[str, bytes]]:
    """The calls after `collection` was last told to load and before an alias was pointed
    at it."""
    def names(method: str, raw: bytes, kind: type) -> bool:
        return method == kind.__name__.removesuffix("Request") and \
            kind.FromString(raw).collection_name == collection
    moved = next(i for i, (m, raw) in enumerate(calls)
                 if names(m, raw, milvus_pb2.CreateAliasRequest)
                 or names(m, raw, milvus_pb2.AlterAliasRequest))
    loads = [i for i, (m, raw) in enumerate(calls[:moved])
             if names(m, raw, milvus_pb2.LoadCollectionRequest)]
    assert loads, "the collection was never loaded before the alias moved"
    return calls[loads[-1] + 1:moved]


def test_the_alias_moves_only_after_every_vector_field_answered(relay, repo):  # noqa: F811
    """Publish, publish a second release, roll back to the first: each time the alias
    moves, the collection it moves to has answered a search on its sparse (BM25) field
    and on each model's dense field since it was loaded."""
    eng = connect_url(relay.url("ready"), create_db=True)
    try:
        relay.calls.clear()
        first = publish(eng, check_release(repo / "dist")).collection
        want = {"sparse", "v0"}  # BM25, and the one model's vectors
        assert _searched_fields(_before_alias(relay.calls, first), first) == want
        (repo / "knowledge" / "drip.md").write_text(
            titled_page("Drip line flushing", "Flush drip lines every two weeks."),
            encoding="utf-8")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "second")
        build(load_config(repo), BuildOptions(progress=False))
        second = publish(eng, check_release(repo / "dist")).collection
        assert second != first
        relay.calls.clear()
        assert rollback(eng, first)["to"] == first
        assert _searched_fields(_before_alias(relay.calls, first), first) == want
    finally:
        eng.close()


def test_a_release_copy_is_flushed_once_and_described_once(milvus, repo, monkeypatch):  # noqa: F811
    """The first reader of a release writes its sources (byte for byte the release's)
    with fewer fsyncs than there are files, and describes the collection once."""
    url = milvus.url("copy")
    eng = connect_url(url, create_db=True)
    try:
        collection = publish(eng, check_release(repo / "dist")).collection
        fsyncs = []
        real_fsync = os.fsync
        relay = RecordingRelay(f"127.0.0.1:{milvus.port}")
        try:
            reader_engine = connect_url(relay.url("copy"))
            relay.calls.clear()
            with monkeypatch.context() as patched:
                patched.setattr(os, "fsync", lambda fd: (fsyncs.append(fd), real_fsync(fd))[1])
                index = EngineReader(reader_engine).current()
            described = [m for m, _ in relay.calls if m == "DescribeCollection"]
            root = cache_dir(reader_engine, collection)  # (named by the address it read)
            reader_engine.close()
        finally:
            relay.close()
        sources = sorted((repo / "dist" / "data" / "source").rglob("*.md"))
        assert len(sources) >= SOURCES
        assert len(fsyncs) < len(sources), len(fsyncs)
        for src in sources:
            rel = src.relative_to(repo / "dist")
            assert (root / rel).read_bytes() == src.read_bytes(), rel
        assert len(described) == 1, described
        assert index.collection == collection
    finally:
        eng.close()


def test_a_refused_port_is_one_line_before_the_client_loads(tmp_path, repo):
    """Nothing listens at the port: the error names the address at once, and pymilvus (a
    few seconds of imports on a loaded machine) was never imported; `kb query` and `kb
    publish` (after verifying the release: its problems are said first) say so in one
    line, exit 1."""
    port = free_port()
    code = ("import sys\nfrom kbtools.engine.milvus import connect_url\n"
            "from kbtools.errors import EngineError\n"
            f"try:\n    connect_url('milvus://127.0.0.1:{port}/crops')\n"
            "except EngineError as exc:\n    print(exc)\n"
            "print('pymilvus' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=hostile_env(tmp_path / "home"), cwd=REPO, timeout=120)
    lines = out.stdout.strip().splitlines()
    assert lines[-1] == "False", out
    assert lines[0].startswith(f"milvus://127.0.0.1:{port}/crops: connecting failed: "
                               f"nothing answers at 127.0.0.1:{port}"), lines
    for args in (["query", "--engine", f"milvus://127.0.0.1:{port}", "小麦"],
                 ["publish", "--engine", f"milvus://127.0.0.1:{port}", "--index",
                  str(repo / "dist")]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 1, res.output
        assert len(res.output.strip().splitlines()) == 1, res.output
        assert f"nothing answers at 127.0.0.1:{port}" in res.output, res.output


def test_a_host_that_does_not_resolve_is_one_line():
    res = CliRunner().invoke(main, ["query", "--engine", "milvus://no-such-host.invalid",
                                    "小麦"])
    assert res.exit_code == 1, res.output
    assert "host 'no-such-host.invalid' is not known" in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1, res.output


def test_a_server_slow_to_answer_is_still_waited_for(milvus, repo):  # noqa: F811
    """The server accepts the connection but answers nothing for a while (stopped, then
    resumed): the connection waits for it, as configured, and the question is answered."""
    url = milvus.url("slow")
    eng = connect_url(url, create_db=True)
    publish(eng, check_release(repo / "dist"))
    eng.close()
    os.kill(milvus.proc.pid, signal.SIGSTOP)
    resume = threading.Timer(2.0, os.kill, (milvus.proc.pid, signal.SIGCONT))
    resume.start()
    try:
        slow = connect_url(url)
    finally:
        resume.join()
        os.kill(milvus.proc.pid, signal.SIGCONT)
    try:
        got = search(EngineReader(slow).current(), QUESTION, k=3)
        assert got.results, json.dumps(got.to_dict() if hasattr(got, "to_dict") else {})
    finally:
        slow.close()
