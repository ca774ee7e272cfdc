"""Options that only mean something with `--engine` (or only without it), mixed: each
command that takes `--engine` refuses the mix in one line naming the option (exit 2),
before connecting to anything. `kb rollback --engine … --to DIR` moved the engine's alias
and left the device named by --to as it was, without a word; `--token-file` without
`--engine` was dropped as silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main

# nothing listens on port 1: a command that got as far as connecting would fail otherwise
ENGINE = "milvus://127.0.0.1:1/kb"


def refusal(args: list[str]) -> str:
    """The one line a refused command prints on stderr (exit 2, nothing on stdout)."""
    res = CliRunner().invoke(main, args)
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and res.stdout == "" and len(lines) == 1, (res.exit_code,
                                                                         res.output)
    return lines[0]


@pytest.mark.parametrize(("args", "option"), [
    (["rollback", "--engine", ENGINE, "--to", "{dir}"], "--to"),
    (["rollback", "--engine", ENGINE, "kb-r1", "--to", "{dir}", "--json"], "--to"),
    (["query", "--engine", ENGINE, "--index", "{dir}", "稻瘟病怎么防治"], "--index"),
    (["mcp", "--engine", ENGINE, "--index", "{dir}"], "--index"),
    (["serve", "--engine", ENGINE, "--index", "{dir}"], "--index")])
def test_a_local_option_with_engine_is_refused(tmp_path: Path, args, option):
    line = refusal([a.replace("{dir}", str(tmp_path)) for a in args])
    assert f"{option} names local files, which --engine does not use" in line, line
    assert "127.0.0.1:1" not in line  # refused before connecting, not a connection error


@pytest.mark.parametrize(("args", "option"), [
    (["rollback", "--token-file", "{token}"], "--token-file"),
    (["rollback", "kb-r1", "--alias", "kb_staging"], "--alias"),
    (["query", "--token-file", "{token}", "how do I reset E17"], "--token-file"),
    (["query", "--batch", "-", "--token-file", "{token}"], "--token-file"),
    (["query", "--alias", "kb_staging", "how do I reset E17"], "--alias"),
    (["mcp", "--alias", "kb_staging"], "--alias"),
    (["serve", "--alias", "kb_staging"], "--alias"),
    (["mcp", "--token-file", "{token}"], "--token-file"),
    (["serve", "--engine-token-file", "{token}"], "--engine-token-file")])
def test_an_engine_option_without_engine_is_refused(tmp_path: Path, args, option):
    token = tmp_path / "token"
    token.write_text("root:Milvus\n", encoding="utf-8")
    line = refusal([a.replace("{token}", str(token)) for a in args])
    assert f"{option} is for an engine: give --engine milvus://HOST:PORT[/DB] with it" in line


def test_a_default_is_no_option_given(tmp_path: Path):
    """`--alias` has a default and `--to` falls back to the device: neither, left unsaid,
    is a mix (the rollback gets as far as the device, which has no release)."""
    res = CliRunner().invoke(main, ["rollback", "--to", str(tmp_path / "device")])
    assert res.exit_code not in (0, 2), res.output
    assert "--alias" not in res.output and "--engine" not in res.output
