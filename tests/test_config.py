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
    assert message.startswith(f"kb: error: {tmp_path / 'kb.toml'}:{line}: ")
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
    assert message.startswith(f"kb: error: {tmp_path / 'kb.toml'}:2: release.knowledge_base: ")
    assert words in message, message
    (tmp_path / "kb.toml").write_text('[release]\nknowledge_base = "作物-华北"\n', encoding="utf-8")
    assert load_config(tmp_path).section("release")["knowledge_base"] == "作物-华北"
