"""kb.toml paths written on Windows read the same on every machine."""

from __future__ import annotations

import git
import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.config import load_config
from tests.kbfixtures import PAGE

WINDOWS_TOML = r"""[paths]
knowledge = 'docs\kb'
assets = '.\docs\media\'
cache = "build\\cache"

[bm25]
user_dict = 'docs\kb\_dict.txt'
"""


def test_paths_written_with_backslashes_name_the_same_folders(tmp_path, monkeypatch):
    """A kb.toml written on Windows (`docs\\kb`) named a folder called `docs\\kb` on Linux
    CI, where the pre-commit hook and the workflows stopped on "knowledge folder not
    found"."""
    (tmp_path / "kb.toml").write_text(WINDOWS_TOML)
    (tmp_path / "docs" / "kb").mkdir(parents=True)
    (tmp_path / "docs" / "media").mkdir()
    (tmp_path / "docs" / "media" / "pump.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "docs" / "kb" / "_dict.txt").write_text("离心泵\n", encoding="utf-8")
    (tmp_path / "docs" / "kb" / "pump.md").write_text(
        PAGE.format(title="Pump", source="test", body="![pump](../media/pump.png)"))
    git.Repo.init(tmp_path)
    cfg = load_config(tmp_path)
    assert cfg.path("knowledge") == tmp_path / "docs" / "kb"
    assert cfg.path("assets") == tmp_path / "docs" / "media"
    assert cfg.path("cache") == tmp_path / "build" / "cache"
    assert cfg.get("bm25.user_dict") == "docs/kb/_dict.txt"
    assert cfg.data["paths"]["knowledge"] == "docs/kb"  # as the review code matches it
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["check"])
    assert res.exit_code == 0, res.output
    assert "1 document, 0 errors, 0 warnings" in res.stderr
    assert not any("\\" in p.name for p in tmp_path.rglob("*"))  # no `build\cache` folder


@pytest.mark.parametrize(("toml", "line", "hint"), [
    ('[path]\nknowledge = "knowledge"\n', 1, " (did you mean 'paths'?)"),
    ('[paths]\nknowlege = "knowledge"\n', 2, " (did you mean 'knowledge'?)"),
    ('[Embedding]\nmodel = "use"\n', 1, " (did you mean 'embedding'?)"),
    ('# 设置\n["路径"]\nknowledge = "knowledge"\n', 2, ""),
])
def test_a_mistyped_kb_toml_key_names_the_one_meant(tmp_path, monkeypatch, toml, line, hint):
    """A newcomer's `[path]` for `[paths]` was refused with the schema's words only."""
    message = _refused_kb_toml(tmp_path, monkeypatch, toml)
    assert message.startswith(f"kb: error: kb.toml:{line}: ")
    assert message.endswith("was unexpected)" + hint), message


def _refused_kb_toml(tmp_path, monkeypatch, toml: str) -> str:
    """`kb check`'s one line for a knowledge base whose kb.toml reads `toml` (exit 1)."""
    (tmp_path / "kb.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "knowledge").mkdir(exist_ok=True)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    [message] = result.stderr.splitlines()
    return message


@pytest.mark.parametrize(("value", "words"), [
    ('" 作物 "', "has space around it or a control character"),
    ('"作物\\t华北"', "has space around it or a control character"),
    ('""', "should be non-empty"),
    ("3", "is not of type 'string'"),
    ('"' + "名" * 101 + '"', "is too long"),
])
def test_a_knowledge_base_name_is_checked_in_one_line(tmp_path, monkeypatch, value, words):
    """``[release] knowledge_base`` (`kbtools.base_identity`): a name with space around it
    would look like another's in every message; it is refused at its line."""
    message = _refused_kb_toml(tmp_path, monkeypatch, f"[release]\nknowledge_base = {value}\n")
    assert message.startswith("kb: error: kb.toml:2: release.knowledge_base: ")
    assert words in message, message
    (tmp_path / "kb.toml").write_text('[release]\nknowledge_base = "作物-华北"\n', encoding="utf-8")
    assert load_config(tmp_path).section("release")["knowledge_base"] == "作物-华北"



CWDS = [("mono", "docs/kb/kb.toml"),  # a monorepo's root, where pre-commit runs the hook
        ("mono/docs/kb", "kb.toml"),
        ("mono/docs/kb/knowledge", "kb.toml"),  # as findings name knowledge/a.md there
        ("elsewhere", None)]  # outside the knowledge base: its absolute path


@pytest.mark.parametrize(("cwd", "shown", "command"), [
    *[(cwd, shown, command) for cwd, shown in CWDS for command in (["check", "KB/knowledge"],
                                                                   ["init", "KB"])],
    # these find the knowledge base around the current directory
    *[(cwd, shown, command) for cwd, shown in CWDS[1:3] for command in (
        ["build", "-q"], ["review", "pending"], ["query", "蚜虫"])]])
def test_kb_toml_is_named_as_the_findings_name_documents(tmp_path, monkeypatch, cwd, shown,
                                                         command):
    """kb.toml was named by its absolute path in every command's error
    (`kb: error: /home/…/docs/kb/kb.toml:2: …`) while the findings of the same run read
    `docs/kb/knowledge/a.md:3:1: …`: it is named from the current directory above the
    knowledge base, from the knowledge base inside it, absolute only from elsewhere."""
    kb = tmp_path / "mono" / "docs" / "kb"
    (kb / "knowledge").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (kb / "kb.toml").write_text('[paths]\n"knowledge" = 7\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path / cwd)
    args = [str(kb) if a == "KB" else str(kb / "knowledge") if a == "KB/knowledge" else a
            for a in command]
    res = CliRunner().invoke(main, args)
    name = str(kb / "kb.toml") if shown is None else shown
    said = (f"kb: error: {name}: already exists; use --force to overwrite\n"
            if command[0] == "init" else
            f"kb: error: {name}:2: paths.knowledge: 7 is not of type 'string'\n")
    assert (res.exit_code, res.stderr) == (1, said)
