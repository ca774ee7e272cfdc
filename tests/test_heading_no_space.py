"""`##安装` (no space after the `#`s) is a heading in Typora outside its strict mode, and in
many Chinese editors, but text to CommonMark, GitHub, Obsidian and kbtools: the document
lost its sections (one chunk under no heading, citations without a section, `#anchor`
links refused) and `kb check` said nothing. It is a warning, `heading-no-space`, at the
line, saying what to write; an Obsidian tag (`#待办`, `#3机组`) is not one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = ("# 液压泵\n\n##第一节 安装\n\n先断电。\n\n###1.1 细节\n\n内容。\n\n"
        "#待办 #液压\n\n#3机组 已检修。\n\n#概述 第二章\n\n"
        "```bash\n##不是标题\n```\n\n> ##引用里\n\n正文 ##不在行首。\n\n"
        "## 正常标题\n\n######太深\n\n#######七个\n")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_hashes_without_a_space_are_named_with_what_to_write(repo):
    (repo / "knowledge" / "pump.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--no-cache"])
    assert result.exit_code == 0, result.output  # warnings
    lines = result.stdout.splitlines()
    said = "is no heading (a heading's #s are followed by a space; Typora outside strict " \
        "mode shows one, GitHub, Obsidian and kbtools text): write"
    assert lines == [
        f"knowledge/pump.md:12:1: warning: heading-no-space: '##第一节 安装' {said} '## 第一节 安装' (kb check --fix does)",
        f"knowledge/pump.md:16:1: warning: heading-no-space: '###1.1 细节' {said} '### 1.1 细节' (kb check --fix does)",
        f"knowledge/pump.md:24:1: warning: heading-no-space: '#概述 第二章' {said} '# 概述 第二章' (kb check --fix does)",
        f"knowledge/pump.md:36:1: warning: heading-no-space: '######太深' {said} '###### 太深' (kb check --fix does)",
    ]


def test_written_with_the_space_they_are_sections(repo):
    fixed = BODY.replace("##第一节", "## 第一节").replace("###1.1", "### 1.1")
    (repo / "knowledge" / "pump.md").write_text(GOOD_FM + fixed, encoding="utf-8")
    result = CliRunner().invoke(main, ["check", "--no-cache", "--json"])
    assert '"heading-no-space"' in result.stdout  # the others are still there
    assert "第一节" not in result.stdout and "1.1 细节" not in result.stdout


def test_a_front_matter_edit_keeps_them(repo):
    """The check's scan of a body (cached, read again when only the front matter changed)
    kept no such lines: after an edit of the front matter, `kb check` (the pre-commit hook's
    next run) said nothing of them."""
    doc = repo / "knowledge" / "pump.md"
    doc.write_text(GOOD_FM + BODY, encoding="utf-8")
    first = CliRunner().invoke(main, ["check"]).stdout
    assert first.count("heading-no-space") == 4
    doc.write_text(GOOD_FM.replace("source: test", "source: 手册") + BODY, encoding="utf-8")
    assert CliRunner().invoke(main, ["check"]).stdout == first
