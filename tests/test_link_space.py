"""`![泵外观](../../assets/images/泵 外观.png)`: a space in a destination (not written `<…>`
or `%20`) makes the whole thing text to CommonMark, GitHub, Obsidian and kbtools, though
Typora shows the picture; `kb check` said nothing, the picture was never checked or shipped
and a device showed the Markdown source. A warning, `link-space`, names it and what to write;
prose in brackets (`[注](见 下文)`), code and a written `<…>` or `%20` are not named."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = ("# 泵\n\n看 ![泵外观](../assets/泵 外观.png \"外观\") 和 [手册](../manuals/HX 260.pdf)。\n\n"
        "| 部件 | 图 |\n|---|---|\n| 泵 | ![泵](../assets/泵 外观.png) |\n\n"
        "[注](见 下文) `![代码](a b.png)` ![好](<../assets/泵 外观.png>) "
        "![也好](../assets/泵%20外观.png) [笔记](other note.md#安装)\n")


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge").mkdir()
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "泵 外观.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_space_in_a_path_is_named_with_what_to_write(repo):
    (repo / "knowledge" / "pump.md").write_text(GOOD_FM + BODY, encoding="utf-8")
    out = [line for line in CliRunner().invoke(main, ["check", "--no-cache"]).stdout.splitlines()
           if "link-space" in line]
    said = "(a space in its path; Typora shows one, GitHub, Obsidian and kbtools text: never " \
        "checked or shipped): write"
    assert out == [
        "knowledge/pump.md:12:3: warning: link-space: '![泵外观](../assets/泵 外观.png \"外观\")' "
        f"is no image {said} '../assets/泵%20外观.png' (or '<../assets/泵 外观.png>'); kb check --fix writes the first",
        "knowledge/pump.md:12:37: warning: link-space: '[手册](../manuals/HX 260.pdf)' is no link "
        f"{said} '../manuals/HX%20260.pdf' (or '<../manuals/HX 260.pdf>'); kb check --fix writes the first",
        "knowledge/pump.md:16:7: warning: link-space: '![泵](../assets/泵 外观.png)' is no image "
        f"{said} '../assets/泵%20外观.png' (or '<../assets/泵 外观.png>'); kb check --fix writes the first",
        "knowledge/pump.md:18:83: warning: link-space: '[笔记](other note.md#安装)' is no link "
        f"{said} 'other%20note.md#安装' (or '<other note.md#安装>'); kb check --fix writes the first",
    ]


def test_written_as_it_says_the_picture_is_checked(repo):
    fixed = BODY.replace("泵 外观.png \"", "泵%20外观.png \"")
    (repo / "knowledge" / "pump.md").write_text(GOOD_FM + fixed, encoding="utf-8")
    out = CliRunner().invoke(main, ["check", "--no-cache"]).stdout
    assert "![泵外观]" not in out  # an image now, checked: the file exists
    assert out.count("link-space") == 3


@pytest.mark.parametrize("shown", ["`![泵](../assets/泵 外观.png)`", "``看 ![泵](../assets/泵 外观.png)``"])
def test_the_same_text_in_a_code_span_before_it_is_passed_over(repo, shown):
    """`写法 `![泵](a b.png)` 不对，应写：![泵](a b.png)`: the finding was at the code span
    (the first place the text is written), and `--fix` rewrote the code, not the image."""
    line = f"写法 {shown} 不对，应写：![泵](../assets/泵 外观.png)"
    (repo / "knowledge" / "pump.md").write_text(GOOD_FM + f"# 泵\n\n{line}\n", encoding="utf-8")
    out = [f.split(": ")[0] for f in CliRunner().invoke(main, ["check", "--no-cache"])
           .stdout.splitlines() if "link-space" in f]
    at = GOOD_FM.count("\n") + 3
    assert out == [f"knowledge/pump.md:{at}:{line.rindex('![') + 1}"]
    CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert (repo / "knowledge" / "pump.md").read_text(encoding="utf-8") == GOOD_FM + \
        f"# 泵\n\n{line[:line.rindex('![')]}![泵](../assets/泵%20外观.png)\n"


def test_a_link_written_in_angle_brackets_resolves_in_the_build(repo):
    """`[笔记](<other note.md#安装>)`, what the `link-space` finding says to write: the build
    found no link in it (its cross references read destinations without spaces only), so
    the chunk named no target document or heading; it names both, as the `%20` form does."""
    from kbtools.build.chunk import chunk_document
    from kbtools.build.xref import HeadingIndex
    from kbtools.corpus import parse_source
    other = parse_source(GOOD_FM + "# Other\n\n## 安装\n\ntext\n",
                         repo / "knowledge/other note.md", "knowledge/other note.md")
    page = parse_source(GOOD_FM + "# 泵\n\n见 [笔记](<other note.md#安装> \"标题\") 与 "
                        "[也是](other%20note.md#安装)。\n", repo / "knowledge/p.md", "knowledge/p.md")
    index = HeadingIndex.build([other, page])
    (section,) = chunk_document(page, resolver=index)
    assert [(lk.text, lk.doc, lk.heading_path) for lk in section.links] == [
        ("[笔记](<other note.md#安装> \"标题\")", "knowledge/other note.md", ("Other", "安装")),
        ("[也是](other%20note.md#安装)", "knowledge/other note.md", ("Other", "安装"))]
