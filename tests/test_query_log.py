"""The device query log: what `kb query` and MCP record, `kb log`, the off switches, rotation
by size, concurrent writers in separate processes, and failures that never reach the answer.

A real device (tests/device_fixtures.py: built, signed, synced); each test gets its own copy.
"""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from device_fixtures import Device, make_device
from hostile import can_drop_read_override, drop_read_override, env
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_search
from kbtools.cli import main
from kbtools.errors import UsageError
from kbtools.index.layout import QUERY_LOG_KEEP
from kbtools.index.reader import open_index
from kbtools.query import log as qlog
from kbtools.query.log import parse_since, read_log, record_question
from kbtools.query.search import search
from kbtools.serve.app import create_app
from kbtools.serve.held import AnswerTags

pytestmark = pytest.mark.slow
QUESTION = "小麦赤霉病施药步骤"


@pytest.fixture(scope="module")
def published(tmp_path_factory) -> Device:
    return make_device(tmp_path_factory.mktemp("qlog"))


@pytest.fixture
def dev(published, tmp_path) -> Path:
    path = tmp_path / "device"
    shutil.copytree(published.dev, path, symlinks=True)
    return path


def kb(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


def logged(dev: Path) -> list[dict]:
    return read_log(dev)


def test_kb_query_is_logged_with_release_and_citations(dev):
    code, out = kb("query", "--index", str(dev), QUESTION, "--json")
    assert code == 0, out
    answer = json.loads(out)
    [entry] = logged(dev)
    assert list(entry) == ["at", "interface", "release", "question", "cited", "no_answer"]
    assert entry["interface"] == "cli" and entry["release"] == "kb-r1"
    assert entry["question"] == QUESTION and entry["no_answer"] is False
    assert entry["cited"] == [r["chunk_id"] for r in answer["results"]] and entry["cited"]
    at = datetime.fromisoformat(entry["at"].replace("Z", "+00:00"))
    assert entry["at"].endswith("Z") and abs(datetime.now(UTC) - at) < timedelta(minutes=5)
    assert (dev / "queries.jsonl").stat().st_mode & 0o777 == 0o600  # questions are private
    # no answer, and a question refused by the filters, are logged as such
    kb("query", "--index", str(dev), "quantum chromodynamics lattice gauge")
    code, out = kb("query", "--index", str(dev), QUESTION, "--where", "crop==小麦")
    assert code == 2
    rows = logged(dev)
    assert rows[1]["no_answer"] is True and rows[1]["cited"] == []
    assert rows[2]["no_answer"] is None and "'==' is not an operator" in rows[2]["error"]


def test_no_log_flag_device_setting_and_dist_are_not_logged(dev, published):
    assert kb("query", "--index", str(dev), QUESTION, "--no-log")[0] == 0
    assert not (dev / "queries.jsonl").exists()
    assert kb("log", "--off", "--to", str(dev)) == (0, f"query log off for device {dev}\n")
    assert json.loads((dev / "settings.json").read_text()) == {"query_log": False}
    assert kb("query", "--index", str(dev), QUESTION)[0] == 0
    assert not (dev / "queries.jsonl").exists()
    code, out = kb("log", "--to", str(dev))
    assert out == f"device {dev}: 0 questions (logging is off: `kb log --on`)\n"
    assert kb("log", "--on", "--to", str(dev))[0] == 0
    assert kb("query", "--index", str(dev), QUESTION)[0] == 0
    assert len(logged(dev)) == 1
    # a build's dist/ is not a device: nothing is written there or anywhere
    dist = published.kr / "dist"
    before = sorted(p.name for p in dist.iterdir())
    assert kb("query", "--index", str(dist), QUESTION)[0] == 0
    assert sorted(p.name for p in dist.iterdir()) == before
    assert len(logged(dev)) == 1


def test_log_switches_print_json_and_refuse_contradictions(dev):
    """`kb log --off --json` printed text; `--off --on` silently took the last one."""
    code, out = kb("log", "--off", "--json", "--to", str(dev))
    assert code == 0 and json.loads(out) == {"device": str(dev), "query_log": False}
    for args in (["--off", "--on"], ["--on", "--off"], ["--on", "--since", "1d"]):
        code, out = kb("log", *args, "--to", str(dev))
        assert code == 2 and out.startswith("kb: error: ") and len(out.splitlines()) == 1
    assert json.loads((dev / "settings.json").read_text()) == {"query_log": False}


def test_mcp_search_is_logged_as_mcp(dev):
    out = tool_search(Context(index=dev), QUESTION, k=2)
    [entry] = logged(dev)
    assert entry["interface"] == "mcp" and entry["release"] == "kb-r1"
    assert entry["cited"] == [r["chunk_id"] for r in out["results"]]
    tool_search(Context(index=dev, query_log=False), QUESTION, k=2)
    with pytest.raises(UsageError):
        tool_search(Context(index=dev), QUESTION, where=["verified=maybe"])  # yes is true
    rows = logged(dev)
    assert len(rows) == 2 and "verified=true or verified=false" in rows[1]["error"]


def test_reloading_a_results_page_logs_its_question_once(dev):
    """A reload of a results page (the same GET) logged its question again: one technician
    reading one answer looked like several questions in the audit. The page's ETag comes
    back with a reload; within the window it is a 304 and nothing is logged."""
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        url = "/?" + urlencode({"q": QUESTION, "lang": "zh"})
        first = client.get(url)
        tag = first.headers["etag"]
        assert first.status_code == 200 and len(logged(dev)) == 1
        reload = client.get(url, headers={"if-none-match": tag})
        assert reload.status_code == 304 and reload.headers["etag"] == tag
        assert len(logged(dev)) == 1
        long = client.post("/?lang=zh", data={"q": QUESTION + " " + "补充说明 " * 2000})
        held = client.get(long.url, headers={"if-none-match": long.headers["etag"]})
        assert held.status_code == 304 and len(logged(dev)) == 2  # a held question too
        forged = tag.replace(tag[-6:-1], "00000")
        for other in ({}, {"if-none-match": forged}, {"if-none-match": '"*"'}):
            assert client.get(url, headers=other).status_code == 200  # another client
        english = client.get(url.replace("lang=zh", "lang=en"), headers={"if-none-match": tag})
        assert english.status_code == 200 and english.headers["etag"] != tag
        assert len(logged(dev)) == 6
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as restarted:
        assert restarted.get(url, headers={"if-none-match": tag}).status_code == 200
    assert len(logged(dev)) == 7


def test_a_results_pages_tag_expires_after_the_reload_window():
    """A tag names the page it was given for and when: past the window, or for another
    page, it is not the answer any more."""
    now = [1000.0]
    tags = AnswerTags(seconds=60, clock=lambda: now[0])
    tag = tags.tag("page a")
    assert tags.answered(f'"x", {tag}', "page a") == tag
    assert tags.answered(tag, "page b") is None and tags.answered(None, "page a") is None
    now[0] += 59
    assert tags.answered(tag.removeprefix("W/"), "page a") == tag
    now[0] += 1
    assert tags.answered(tag, "page a") is None


def test_kb_log_shows_since_and_json(dev):
    index = open_index(dev)
    for q in ("E17 怎么复位", "how to calibrate a sprayer"):
        record_question(index, "cli", q, search(index, q, k=2))
    old = {"at": "2020-01-01T00:00:00.000Z", "interface": "web", "release": "kb-r0",
           "question": "旧问题\n第二行", "cited": ["a"], "no_answer": False}
    text = (dev / "queries.jsonl").read_text(encoding="utf-8")
    (dev / "queries.jsonl").write_text(json.dumps(old, ensure_ascii=False) + "\n" + text
                                       + '{"torn', encoding="utf-8")
    code, out = kb("log", "--to", str(dev))
    lines = out.splitlines()
    assert code == 0 and lines[0] == f"device {dev}: 3 questions"
    assert lines[1] == "2020-01-01T00:00:00.000Z  web  kb-r0  1 citation  旧问题 第二行"
    assert lines[2].endswith("E17 怎么复位") and " cli  kb-r1  " in lines[2]
    code, out = kb("log", "--to", str(dev), "--since", "1h")
    assert out.splitlines()[0] == f"device {dev}: 2 questions since 1h"
    code, out = kb("log", "--to", str(dev), "--since", "2019-12-31", "--json")
    assert [e["question"] for e in json.loads(out)][0] == "旧问题\n第二行"
    code, out = kb("log", "--to", str(dev), "--since", "yesterday")
    assert code == 2 and out.startswith("kb: error: bad --since 'yesterday'")
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert parse_since("2d", now) == now - timedelta(days=2)
    assert parse_since("2026-11-30T08:00", now) == datetime(2026, 11, 30, 8, tzinfo=UTC)


def test_kb_log_prints_a_question_without_obeying_it(dev):
    """Anyone who can ask (the web app on --open, a page posting to it) put terminal
    sequences in a question; `kb log` printed them to the operator's terminal as given."""
    question = "E17 \x1b]52;c;cm0gLXJmIH4K\x07复位\x1b[2A\x1b[J \x9b2J"
    record_question(open_index(dev), "api", question, None, error="no answer")
    res = CliRunner().invoke(main, ["log", "--to", str(dev)], color=True)
    assert res.exit_code == 0, res.output
    line = res.output.splitlines()[-1]
    assert not any(ch in line for ch in "\x1b\x07\x9b")
    assert line.endswith("E17 \\u001b]52;c;cm0gLXJmIH4K\\u0007复位\\u001b[2A\\u001b[J \\u009b2J")
    assert read_log(dev)[-1]["question"] == question  # the log keeps what was asked


def test_kb_log_since_an_age_older_than_the_calendar_is_everything(dev):
    """`--since 999999d` reaches back before the year 1: all questions, not a crash."""
    index = open_index(dev)
    record_question(index, "cli", "E17 怎么复位", search(index, "E17 怎么复位", k=2))
    for age in ("999999d", "999999w", "740000d"):
        code, out = kb("log", "--to", str(dev), "--since", age)
        assert code == 0 and out.splitlines()[0] == f"device {dev}: 1 question since {age}"
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert parse_since("999999w", now) == datetime.min.replace(tzinfo=UTC)


def test_rotation_keeps_the_log_bounded(dev):
    (dev / "settings.json").write_text(json.dumps({"query_log_max_bytes": 4096}))
    index = open_index(dev)
    res = search(index, QUESTION, k=3)
    for i in range(400):
        record_question(index, "cli", f"问题 {i} " + "x" * 100, res)
    files = sorted(p.name for p in dev.iterdir() if p.name.startswith("queries.jsonl"))
    assert files == ["queries.jsonl"] + [f"queries.jsonl.{n}" for n in range(1, QUERY_LOG_KEEP + 1)]
    assert all((dev / f).stat().st_size <= 4096 for f in files)
    rows = logged(dev)
    numbers = [int(r["question"].split()[1]) for r in rows]
    assert numbers == sorted(numbers) and numbers[-1] == 399  # oldest first, newest kept
    assert len(rows) < 400  # the oldest lines were dropped
    line = max(len((dev / f).read_bytes().split(b"\n")[0]) + 1 for f in files)
    total = sum((dev / f).stat().st_size for f in files)
    assert total > QUERY_LOG_KEEP * (4096 - line)  # rotated files are full, not truncated


def _writer(dev: str, n: int, tag: str) -> None:
    index = open_index(Path(dev))
    for i in range(n):
        record_question(index, "api", f"{tag}-{i} " + "y" * 150, None)


def test_concurrent_writers_never_tear_lines(dev):
    (dev / "settings.json").write_text(json.dumps({"query_log_max_bytes": 64 << 10}))
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(dev), 150, f"w{k}")) for k in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    raw = b"".join((dev / n).read_bytes() for n in os.listdir(dev) if n.startswith("queries"))
    lines = raw.split(b"\n")
    assert lines.count(b"") >= 1 and all(json.loads(x) for x in lines if x)
    rows = [json.loads(x) for x in lines if x]
    assert len(rows) == 600  # 4 × 150 lines ≈ 130 KB: rotated, nothing dropped yet
    assert {r["question"].split()[0] for r in rows} == {f"w{k}-{i}" for k in range(4)
                                                         for i in range(150)}


def test_unwritable_log_warns_once_and_answers_anyway(dev, capsys):
    (dev / "queries.jsonl").symlink_to(dev / "elsewhere.jsonl")  # planted: never followed
    index = open_index(dev)
    qlog._warned.discard(str(dev))
    for _ in range(3):
        record_question(index, "cli", QUESTION, search(index, QUESTION))
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("kb: warning: query log not written (")
    assert err[0].endswith("answers are not affected")
    assert not (dev / "elsewhere.jsonl").exists()


@pytest.mark.skipif(not can_drop_read_override(), reason="cannot drop root's DAC override")
def test_read_only_device_still_answers(dev, tmp_path):
    os.chmod(dev, 0o555)
    try:
        run = subprocess.run([sys.executable, "-m", "kbtools", "query", "--index", str(dev),
                              QUESTION, "-k", "1"], env=env(tmp_path / "home"),
                             capture_output=True, text=True, timeout=120,
                             preexec_fn=drop_read_override)
    finally:
        os.chmod(dev, 0o755)
    assert run.returncode == 0, run.stderr
    assert "wheat-scab.md" in run.stdout
    assert run.stderr.count("kb: warning: query log not written") == 1, run.stderr
    assert "Traceback" not in run.stderr and not (dev / "queries.jsonl").exists()


@pytest.mark.parametrize("err", [errno.EROFS, errno.ENOSPC, errno.EACCES])
def test_log_switch_on_a_device_that_refuses_the_write_is_no_usage_error(dev, monkeypatch, err):
    """`kb log --off` on a read-only device directory exited 2, a usage error, for the
    machine refusing the write, and named the directory, not the file."""
    def refuse(root: Path, rel: str, data: bytes) -> None:
        raise OSError(err, os.strerror(err), str(root / rel))

    monkeypatch.setattr(qlog, "atomic_write_beneath", refuse)
    code, out = kb("log", "--off", "--to", str(dev))
    assert (code, out) == (1, f"kb: error: {dev / 'settings.json'}: cannot write: "
                              f"{os.strerror(err)}\n")
    assert not (dev / "settings.json").exists()


def test_log_switch_with_a_broken_settings_file_names_it(dev):
    (dev / "settings.json").write_text("{query_log: off", encoding="utf-8")
    code, out = kb("log", "--on", "--to", str(dev))
    assert code == 1 and out.startswith(f"kb: error: {dev / 'settings.json'}: not JSON (")
    assert len(out.splitlines()) == 1
    assert (dev / "settings.json").read_text(encoding="utf-8") == "{query_log: off"


def test_an_api_search_asked_again_with_its_etag_is_a_304_not_logged_again(dev):
    """`GET /api/search` had no ETag (the pages had): a client on a patchy link asking again
    got the whole answer again, and the question was searched and logged once more. Its
    answer is tagged as a results page's is; asked again with the tag, a 304, not logged."""
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        url = "/api/search?" + urlencode({"q": QUESTION, "k": "3"})
        first = client.get(url)
        tag = first.headers["etag"]
        assert first.status_code == 200 and first.headers["cache-control"] == "private, no-cache"
        assert len(logged(dev)) == 1
        again = client.get(url, headers={"if-none-match": tag})
        assert again.status_code == 304 and again.headers["etag"] == tag and not again.content
        assert again.headers["cache-control"] == "private, no-cache"
        assert len(logged(dev)) == 1
        other = client.get(url.replace("k=3", "k=4"), headers={"if-none-match": tag})
        assert other.status_code == 200 and other.headers["etag"] != tag
        posted = client.post("/api/search", json={"q": QUESTION, "k": 3},
                             headers={"if-none-match": tag})
        assert posted.status_code == 200 and "etag" not in posted.headers  # a POST: asked
        assert len(logged(dev)) == 3


def test_a_head_of_a_search_is_answered_and_not_logged(dev):
    """A HEAD of a results page or of ``/api/search`` (a link checker, ``curl -I``) was
    logged as a question asked: nobody read an answer. It is answered as the GET is, its
    headers and status, and not logged."""
    with TestClient(create_app(dev), base_url="http://127.0.0.1") as client:
        for url in ("/?" + urlencode({"q": QUESTION, "lang": "zh"}),
                    "/api/search?" + urlencode({"q": QUESTION})):
            head = client.head(url)
            assert head.status_code == 200 and head.headers["etag"] and not head.content
        assert logged(dev) == []
        assert client.get(url).status_code == 200 and len(logged(dev)) == 1
