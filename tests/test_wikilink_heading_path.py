"""An Obsidian wikilink naming a heading by its path (`[[#安装#注意事项]]`, `[[pump#安装#注意事项]]`)
names the `注意事项` under `安装`, as Obsidian follows it. Where the note has several headings
of that text, `kb check --fix` wrote `#注意事项`, the anchor of the first one (under `拆卸`):
it silently pointed the link at another section. The anchor written names the heading by its
text alone, so `--fix` now leaves such a link for the author, saying which headings it may
mean; a path to a heading written once is fixed as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

NOTE = ("# 液压泵\n\n## 拆卸\n\n### 注意事项\n\n先断电。\n\n## 安装\n\n### 注意事项\n\n先对中。\n\n"
        "### 对中\n\n用百分表。\n")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "knowledge" / "pump.md").write_text(GOOD_FM + NOTE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


@pytest.mark.parametrize("written", ["[[pump#安装#注意事项]]", "[[pump#安装#注意事项|装前]]",
                                     "[[pump.md#液压泵#安装#注意事项]]"])
def test_a_path_to_a_repeated_heading_is_left_for_the_author(repo, written):
    doc = repo / "knowledge" / "note.md"
    text = GOOD_FM + f"# 笔记\n\n见 {written}。\n"
    doc.write_text(text, encoding="utf-8")
    result = run("--fix")
    assert result.exit_code == 1
    assert doc.read_text(encoding="utf-8") == text  # not rewritten
    assert f"knowledge/note.md:12:3: error: link-wikilink: Obsidian wikilink '{written}' is " \
        "plain text to kbtools (the link is not followed or checked); the note has 2 headings " \
        "'注意事项' ('#注意事项', '#注意事项-1'): which one the heading path names is not read " \
        "here, so link to it by hand; `kb check --fix` leaves it as it is" in result.stdout
    assert "link-anchor" not in result.stdout  # one line


def test_in_its_own_note_too(repo):
    doc = repo / "knowledge" / "pump.md"
    text = GOOD_FM + NOTE + "\n见 [[#安装#注意事项]]。\n"
    doc.write_text(text, encoding="utf-8")
    assert run("--fix").exit_code == 1
    assert doc.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("written", "link"), [
    ("[[pump#安装#对中]]", "[pump > 安装 > 对中](pump.md#对中)"),
    ("[[pump#注意事项]]", "[pump > 注意事项](pump.md#注意事项)"),  # Obsidian: the first one
])
def test_a_heading_named_once_or_by_its_text_alone_is_fixed(repo, written, link):
    doc = repo / "knowledge" / "note.md"
    doc.write_text(GOOD_FM + f"# 笔记\n\n见 {written}。\n", encoding="utf-8")
    assert run("--fix").exit_code == 0
    assert doc.read_text(encoding="utf-8") == GOOD_FM + f"# 笔记\n\n见 {link}。\n"
    assert run().exit_code == 0
