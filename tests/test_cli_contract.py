"""The `kb` command line as scripts drive it: output on terminals and pipes that are not
UTF-8, colour switched off by NO_COLOR, and arguments that cannot go together."""

from __future__ import annotations

import json
import os
import re
import subprocess

import click
import pytest
from click.testing import CliRunner
from hostile import KB, env, make_repo
from kbfixtures import PAGE

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config

ZH_DOC = PAGE.format(title="水泵维护", source="test",
                     body="灌溉水泵每运行 2000 小时更换一次机械密封。😀")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = make_repo(tmp_path_factory.mktemp("contract"), docs={"knowledge/zh.md": ZH_DOC})
    build(load_config(root), BuildOptions(progress=False))
    return root


def run(repo, tmp_path, *args: str, **extra: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([*KB, *args], cwd=repo, env={**env(tmp_path / "home"), **extra},
                          capture_output=True, timeout=120)


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_chinese_text_on_a_stdout_that_is_not_unicode_is_escaped_not_a_crash(
        repo, tmp_path, encoding):
    res = run(repo, tmp_path, "chunks", "knowledge/zh.md", PYTHONIOENCODING=encoding)
    assert res.returncode == 0, res.stderr
    assert b"\\u6c34\\u6cf5" in res.stdout  # 水泵, escaped
    assert b"unexpected error" not in res.stderr


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_json_on_a_stdout_that_is_not_unicode_is_ascii_and_exact(repo, tmp_path, encoding):
    res = run(repo, tmp_path, "query", "--json", "水泵 机械密封", PYTHONIOENCODING=encoding)
    assert res.returncode == 0, res.stderr
    assert res.stdout.isascii()
    utf8 = run(repo, tmp_path, "query", "--json", "水泵 机械密封")
    got, want = json.loads(res.stdout), json.loads(utf8.stdout)
    got.pop("took_ms"), want.pop("took_ms")
    assert got == want
    assert "😀" in json.dumps(got, ensure_ascii=False)

    batch = subprocess.run([*KB, "query", "--json", "--batch", "-"], cwd=repo,
                           input='{"id": "一", "query": "水泵"}\n'.encode(),
                           env={**env(tmp_path / "home"), "PYTHONIOENCODING": encoding},
                           capture_output=True, timeout=120)
    assert batch.returncode == 0, batch.stderr
    assert batch.stdout.isascii()
    assert json.loads(batch.stdout)["id"] == "一"


def test_no_color_turns_the_colour_off_on_a_terminal(repo, monkeypatch):
    monkeypatch.chdir(repo)
    args = ["query", "--include-unverified", "机械密封"]
    coloured = CliRunner().invoke(main, args, color=True)  # as on a terminal
    assert coloured.exit_code == 0, coloured.output
    assert "\x1b[" in coloured.output
    plain = CliRunner(env={"NO_COLOR": "1"}).invoke(main, args, color=True)
    assert plain.exit_code == 0, plain.output
    assert "\x1b[" not in plain.output
    assert plain.output == click.unstyle(coloured.output)


def test_a_question_and_batch_together_is_a_usage_error_not_a_question_dropped(repo, tmp_path,
                                                                                monkeypatch):
    monkeypatch.chdir(repo)
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "a", "query": "机械密封"}\n', encoding="utf-8")
    res = CliRunner().invoke(main, ["query", "--batch", str(questions), "水泵"])
    assert res.exit_code == 2
    assert "not both" in res.output


def test_build_progress_in_a_pipe_is_whole_lines(tmp_path):
    """Progress rewritten with carriage returns ran together in CI logs and pipes."""
    root = make_repo(tmp_path / "kb", docs={f"knowledge/n{i}.md": ZH_DOC.replace("水泵", f"水泵{i}")
                                            for i in range(6)})
    toml = root / "kb.toml"
    toml.write_text(toml.read_text().replace("[embedding]\n", "[embedding]\nbatch_size = 2\n"))
    res = run(root, tmp_path, "build")
    assert res.returncode == 0, res.stderr
    assert b"\r" not in res.stderr
    progress = [line for line in res.stderr.decode().splitlines() if ": embedding " in line]
    assert len(progress) > 1
    assert all(re.fullmatch(r"kb build: embedding \S+: \d+/\d+", line) for line in progress)


@pytest.mark.parametrize("exc, says", [
    (OSError(28, "No space left on device", "/kr/.kb-cache/formulas"),
     "kb: error: No space left on device: /kr/.kb-cache/formulas\n"),
    (OSError(30, "Read-only file system", "/kr/.dist.build-x1"),
     "kb: error: Read-only file system: /kr/.dist.build-x1\n"),
    (OSError(13, "Permission denied"), "kb: error: Permission denied\n"),
])
def test_the_machine_refusing_a_write_is_one_line_not_a_crash(tmp_path, monkeypatch, exc,
                                                              says):
    """A full disk, a read-only mount or a folder the user may not write, met anywhere in a
    command (a build writing its formula cache): one line naming the file, exit 1, not
    "unexpected error" and a traceback (exit 3)."""
    import kbtools.commands.build as build_cmd

    def refused(*args: object, **kwargs: object) -> None:
        raise exc

    monkeypatch.setattr(build_cmd, "build", refused)
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    res = CliRunner().invoke(main, ["build", "-q"])
    assert (res.exit_code, res.stderr) == (1, says)
    assert not (tmp_path / "home" / "kb-crash.log").exists()


def test_sqlite_finding_the_disk_full_is_one_line(tmp_path, monkeypatch):
    import sqlite3

    import kbtools.commands.build as build_cmd

    def full(*args: object, **kwargs: object) -> None:
        exc = sqlite3.OperationalError("database or disk is full")
        exc.sqlite_errorcode = sqlite3.SQLITE_FULL
        raise exc

    monkeypatch.setattr(build_cmd, "build", full)
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    res = CliRunner().invoke(main, ["build", "-q"])
    assert (res.exit_code, res.stderr) == (1, "kb: error: database or disk is full\n")


def into_closed_pipe(repo, tmp_path, *args: str,
                     unbuffered: bool) -> subprocess.CompletedProcess[bytes]:
    """`kb ARGS` with a stdout whose reader has already left (`| head -1` once it has read),
    with PYTHONUNBUFFERED set or not."""
    environ = {k: v for k, v in env(tmp_path / "home").items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        environ["PYTHONUNBUFFERED"] = "1"
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run([*KB, *args], cwd=repo, env=environ, stdout=write,
                              stderr=subprocess.PIPE, timeout=120)
    finally:
        os.close(write)


@pytest.mark.parametrize("unbuffered", [False, True])
@pytest.mark.parametrize("args", [
    ["--help"], ["--version"], ["chunks", "--help"],
    ["chunks", "knowledge/zh.md"], ["chunks", "knowledge/zh.md", "--json"],
    ["query", "--include-unverified", "水泵"],
    ["query", "--include-unverified", "--json", "水泵"],
    ["check", "knowledge", "--json"],
], ids=" ".join)
def test_a_reader_leaving_early_ends_every_command_quietly_with_141(repo, tmp_path, args,
                                                                    unbuffered):
    """`kb query ... | head -1`: text output ended 1 or 120 with "Exception ignored ...
    BrokenPipeError" on stderr, JSON 1, help 1, and with PYTHONUNBUFFERED set JSON ended 0
    (the rest of a long write dropped): one rule now, as git and coreutils end."""
    res = into_closed_pipe(repo, tmp_path, *args, unbuffered=unbuffered)
    assert (res.returncode, res.stderr) == (141, b"")


def test_a_broken_pipe_that_is_not_kbs_output_is_unexpected(tmp_path, monkeypatch):
    """A git child that died mid-write is a bug to report, not a reader that left."""
    import kbtools.commands.build as build_cmd

    def child_died(*args: object, **kwargs: object) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(build_cmd, "build", child_died)
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    res = CliRunner().invoke(main, ["build", "-q"])
    assert res.exit_code == 3
    assert res.stderr.startswith("kb: unexpected error: BrokenPipeError:")


@pytest.mark.parametrize("args", [
    ["--version"], ["--help"], ["chunks", "--help"],
    ["chunks", "knowledge/zh.md", "--json"], ["check", "knowledge", "--json"],
    ["query", "--include-unverified", "--json", "水泵"],
], ids=" ".join)
def test_a_full_disk_under_stdout_is_one_line_naming_it(repo, tmp_path, args):
    """`kb eval --json > results.json` on a full disk: "kb: error: No space left on device",
    naming nothing, then Python's "Exception ignored … OSError" and exit 120 (help and
    --version: a traceback): one line naming stdout, exit 1, as any refused write."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "wb") as full:
        res = subprocess.run([*KB, *args], cwd=repo, env=env(tmp_path / "home"), stdout=full,
                             stderr=subprocess.PIPE, timeout=120)
    assert (res.returncode, res.stderr) == (1, b"kb: error: No space left on device: <stdout>\n")


@pytest.mark.parametrize("args", [
    ["--version"], ["chunks", "knowledge/zh.md", "--json"], ["check", "knowledge", "--json"],
], ids=" ".join)
def test_a_closed_stdout_drops_the_output_not_a_crash(repo, tmp_path, args):
    """`kb … >&-` (a service started without a stdout): Python leaves sys.stdout None and
    every command ended "unexpected error: AttributeError" (exit 3; `kb serve` and `kb mcp`
    too): the output is dropped, as click drops it, and the command does its work."""
    res = subprocess.run([*KB, *args], cwd=repo, env=env(tmp_path / "home"),
                         stderr=subprocess.PIPE, timeout=120,
                         preexec_fn=lambda: os.close(1))
    assert res.returncode == 0, res.stderr
    assert b"unexpected error" not in res.stderr


@pytest.mark.parametrize("args, code", [
    (["query", "--where", "nosuch=1", "水泵"], 2),
    (["query", "-k", "0", "水泵"], 2),
    (["query", "--json"], 2),
    (["eval", "--json", "questions.jsonl"], 2),
    (["chunks", "--json", "knowledge/missing.md"], 2),
    (["check", "--json", "knowledge/bad.md"], 1),
    (["query", "--json", "--index", "no-index-here", "水泵"], 1),
])
def test_exit_statuses_are_the_ones_kb_help_documents(repo, tmp_path, monkeypatch, args, code):
    """`kb --help` documents 0/1/2/3: a usage error is 2 and a failure 1 in every command,
    with nothing but JSON (or nothing) on stdout and one `kb: error:` or usage line on
    stderr."""
    monkeypatch.chdir(repo)
    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    (repo / "questions.jsonl").write_text('{"query": "水泵"}\n', encoding="utf-8")
    (repo / "knowledge" / "bad.md").write_text("---\ntitle: x\n---\n# x\n", encoding="utf-8")
    try:
        res = CliRunner().invoke(main, args)
    finally:
        (repo / "questions.jsonl").unlink()
        (repo / "knowledge" / "bad.md").unlink()
    assert res.exit_code == code, res.output
    if res.stdout.strip():
        json.loads(res.stdout)
    assert "Traceback" not in res.stderr and res.stderr.strip()
    assert re.search(rf"^\s+{code}\s+\S", (main.help or "").split("Exit status:")[1], re.M)
