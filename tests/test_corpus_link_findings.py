"""Link findings read as an author of a real corpus reads them (session 41: `kb check` over
copies of tidb-docs-cn and aliyun_ecs_zh): an empty link target (`[远程连接FAQ]()`, 96 of
them in aliyun_ecs_zh) was said at column 1 of its block, so several in one line or table
cell were one finding, and "empty link target" said nothing of what to write; a path
starting with `/` naming no file in a folder at the repository's root (GitHub reads it from
there: `/resources/guide.pdf`) was called "a file outside the repository"."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

FM_LINES = GOOD_FM.count("\n")


@pytest.fixture
def repo(kb: Path) -> Path:
    """conftest's empty knowledge repository, its documents under knowledge/t."""
    (kb / "knowledge" / "t").mkdir()
    return kb


def check(repo: Path, body: str) -> list[str]:
    (repo / "knowledge" / "t" / "a.md").write_text(GOOD_FM + body, encoding="utf-8")
    return CliRunner().invoke(main, ["check", "--no-cache", "knowledge/t/a.md"]).stdout \
        .splitlines()


def places(repo: Path, body: str) -> list[str]:
    """Where `kb check` says each of its findings in a document of `body` is."""
    return [f.split(": ", 2)[0] for f in check(repo, body)]


ROW_AT = FM_LINES + 6  # the line of `one_row`'s row


def one_row(heading: str, row: str) -> str:
    """A body of one section `heading` holding a table whose one row is `row`."""
    cells = row.count("|") - 1
    return (f"\n# {heading}\n\n| " + " | ".join("abcd"[:cells]) + " |\n|"
            + "---|" * cells + f"\n{row}\n")


def first_and_last(row: str, mark: str) -> list[str]:
    """The places of the first and the last `mark` in the row `one_row` holds."""
    return [f"knowledge/t/a.md:{ROW_AT}:{row.index(mark) + 1}",
            f"knowledge/t/a.md:{ROW_AT}:{row.rindex(mark) + 1}"]


def test_each_empty_link_target_is_said_where_it_is_written(repo):
    line = "详情请参见[远程连接FAQ]()和[Guest OS](<>)，或 ![拓扑]() 与 <img src=\"\" alt=\"图\">。"
    cell = "| 打标 | [用户打标接口]() |"
    body = f"\n# 标签\n\n{line}\n\n| 操作 | API |\n|---|---|\n{cell}\n"
    link = ("warning: link-empty: empty link target: it opens nothing (GitHub reloads the "
            "page): write the file or URL it should open, or the text alone")
    image = "warning: link-empty: empty image target: no picture shows: write the picture's path"
    at, row = FM_LINES + 4, FM_LINES + 8
    assert check(repo, body) == [
        f"knowledge/t/a.md:{at}:{line.index('()') + 2}: {link}",
        f"knowledge/t/a.md:{at}:{line.index('<>') + 1}: {link}",
        f"knowledge/t/a.md:{at}:{line.index('拓扑]()') + 5}: {image}",
        f"knowledge/t/a.md:{at}:{line.index('src=') + 6}: {image}",
        f"knowledge/t/a.md:{row}:{cell.index('()') + 2}: {link}"]


def test_a_rooted_path_naming_no_file_of_a_root_folder_is_said_missing_there(repo):
    """`/resources/guide.pdf` with `resources/` at the repository's root (GitHub's reading)
    and no such file: missing there. A picture on the author's disk (`/Users/…`, no such
    folder in the repository) is still one to copy in; an existing one is rewritten."""
    (repo / "resources").mkdir()
    (repo / "resources" / "tidb-terms.md").write_text("# 术语\n", encoding="utf-8")
    body = ("\n# 贡献\n\n参见 [风格指南](/resources/pingcap-style-guide-zh.pdf)、"
            "[术语](/resources/tidb-terms.md)。\n\n![图](/Users/jane/Desktop/y.png)\n")
    found = [f.split(": error: path-absolute: ", 1)[1] for f in check(repo, body)
             if "path-absolute" in f]
    assert found == [
        "absolute path '/resources/pingcap-style-guide-zh.pdf': no file "
        "'resources/pingcap-style-guide-zh.pdf' in the repository (read from its root, as "
        "GitHub reads a path starting with '/'), nor on this disk: link an existing file by a "
        "path relative to the document",
        "absolute path '/resources/tidb-terms.md': use '../../resources/tidb-terms.md'",
        "absolute path '/Users/jane/Desktop/y.png': a file outside the repository (devices and "
        "other authors lack it): copy it into the repository (a picture into the assets "
        "folder) and link it by a path relative to the document"]


def test_text_markdown_reads_as_a_link_to_no_name_says_how_to_keep_it_text(repo):
    """scifact's abstracts write `[M + K](+)` and `[GHS-R](-/-)`: Markdown (GitHub too) reads
    them as links, and "'+' does not exist" did not say why a link was seen there."""
    body = ("\n# Results\n\nIons ([M + K](+) at m/z 333.15) in [GHS-R](-/-) mice; see "
            "[setup](setup.md).\n")
    hint = (" (Markdown reads text in brackets followed by text in parentheses as a link: if "
            "it is text, write its '[' as '\\[')")
    assert [f.split(": error: path-missing: ", 1)[1] for f in check(repo, body)] == [
        f"'+' does not exist (knowledge/t/+){hint}",
        f"'-/-' does not exist (knowledge/t/-/-){hint}",
        "'setup.md' does not exist (knowledge/t/setup.md)"]


def test_a_destination_two_cells_of_a_row_write_is_two_findings_and_fixes(repo):
    """aliyun_ecs_zh's tables link one API page from several cells of a row: each cell was
    located from the row's start, so the second was found at the first's column (one
    finding printed, and `--fix` rewrote the first alone)."""
    (repo / "knowledge" / "x.md").write_text("# X\n", encoding="utf-8")
    row = "| [绑定](/knowledge/x.md) | [解绑](/knowledge/x.md) | [查询]() | [列出]() |"
    body = one_row("标签", row)
    found = [f.split(": ", 2)[0:2] for f in check(repo, body)]
    assert found == [[f"knowledge/t/a.md:{ROW_AT}:{row.index('/k') + 1}", "error"],
                     [f"knowledge/t/a.md:{ROW_AT}:{row.rindex('/k') + 1}", "error"],
                     [f"knowledge/t/a.md:{ROW_AT}:{row.index('()') + 2}", "warning"],
                     [f"knowledge/t/a.md:{ROW_AT}:{row.rindex('()') + 2}", "warning"]]
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", "knowledge/t/a.md"])
    assert (repo / "knowledge/t/a.md").read_text(encoding="utf-8") == GOOD_FM + body.replace(
        "/knowledge/x.md", "../x.md")


@pytest.mark.parametrize("text", ["![外观](my pic.png)", "![pump](pump photo.png)"])
def test_a_spaced_link_two_cells_of_a_row_write_is_two_findings_and_fixes(repo, text):
    """Two cells of one row holding the same spaced link were both located from the row's
    start: one finding at the first cell's column, and `--fix` mended the first alone."""
    row = f"| 见 {text} | see {text} |"
    body = one_row("部件", row)
    assert places(repo, body) == first_and_last(row, "!")
    CliRunner().invoke(main, ["check", "--no-cache", "--fix", "knowledge/t/a.md"])
    path = text[text.index("(") + 1:-1]
    assert (repo / "knowledge/t/a.md").read_text(encoding="utf-8") == GOOD_FM + body.replace(
        path, path.replace(" ", "%20"))


@pytest.mark.parametrize("label", ["缺", "missing"])
def test_an_undefined_footnote_two_cells_of_a_row_write_is_two_findings(repo, label):
    row = f"| 注[^{label}] | note[^{label}] |"
    assert places(repo, one_row("说明", row)) == first_and_last(row, "[^")
