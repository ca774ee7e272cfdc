"""Documents as Typora and Obsidian write them: `kb check` accepts what those editors show
correctly, and the doc tree, chunks and citations point at the lines written."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.corpus import parse_source
from kbtools.markdown.doctree import Paragraph, parse
from kbtools.markdown.frontend import scan
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")  # the body starts on line FM_LINES + 1


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "t").mkdir(parents=True)
    (tmp_path / "assets" / "images").mkdir(parents=True)
    (tmp_path / "assets" / "images" / "小麦 病害.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def check(*args: str):
    return CliRunner().invoke(main, ["check", "--no-cache", *args])


def doc(body: str, rel: str = "knowledge/t/d.md"):
    return parse_source(GOOD_FM + body, Path("/r") / rel, rel)


FOOTNOTES = ("# 施药\n\n用量按标签[^1]，安全间隔期见国标[^gb]。\n\n"
             "[^1]: 以登记为准。\n[^gb]: GB/T8321\n")


def test_footnotes_are_text_not_links_to_files(repo):
    """`[^1]: 以登记为准。` is a footnote, not a link definition to a file named 以登记为准。"""
    (repo / "knowledge" / "t" / "fn.md").write_text(GOOD_FM + FOOTNOTES, encoding="utf-8")
    result = check()
    assert result.exit_code == 0, result.output
    src = doc(FOOTNOTES)
    assert scan(src.body, src.body_line).refs == []
    tree = parse(src)
    assert [lk for _, b in tree.blocks() if isinstance(b, Paragraph) for lk in b.inline.links] == []
    notes = [b for _, b in tree.blocks() if isinstance(b, Paragraph)][-1]
    assert (notes.line_start, notes.inline.text) == (FM_LINES + 5, "[^1]: 以登记为准。 [^gb]: GB/T8321")


def test_link_definitions_still_work_next_to_footnotes(repo):
    (repo / "knowledge" / "t" / "ref.md").write_text(
        GOOD_FM + FOOTNOTES + "\n见 [说明][doc]。\n\n[doc]: missing.md\n", encoding="utf-8")
    assert check().stdout.splitlines() == [
        f"knowledge/t/ref.md:{FM_LINES + 10}:8: error: path-missing: 'missing.md' does not exist "
        "(knowledge/t/missing.md)"]


def test_percent_encoded_image_paths_in_html_tags(repo):
    """Typora writes a resized picture as `<img src="…%20…" style="zoom:50%;" />`: the
    `src` is a URL, read like a Markdown image's destination."""
    enc = "../../assets/images/%E5%B0%8F%E9%BA%A6%20%E7%97%85%E5%AE%B3.png"
    (repo / "knowledge" / "t" / "img.md").write_text(
        GOOD_FM + f'# 图\n\n<img src="{enc}" alt="穗" style="zoom:50%;" />\n\n'
        f'病穗 <img src="../../assets/images/小麦 病害.png"> 和 ![穗]({enc})\n\n'
        '<img src="../../assets/images/no%20such.png">\n', encoding="utf-8")
    assert check().stdout.splitlines() == [
        f"knowledge/t/img.md:{FM_LINES + 7}:11: error: path-missing: "
        "'../../assets/images/no such.png' does not exist (assets/images/no such.png)"]
