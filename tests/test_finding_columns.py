"""Where `kb check` says a finding is: columns count characters from 1 (a Chinese
character, a full-width mark, an emoji and a tab are one each), inside table cells (each
cell from where it starts), `<br>` in a cell, lists nested in callouts, flow lists of the
front matter (session 41: a formula was said at column 1 of its line, so two in one row
of a table were one finding)."""

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


def where(repo: Path, text: str) -> list[tuple[int, int, str]]:
    """(line, column, code) of each finding of the document `text`."""
    (repo / "knowledge" / "t" / "a.md").write_text(text, encoding="utf-8")
    out = CliRunner().invoke(main, ["check", "--no-cache", "knowledge/t/a.md"]).stdout
    return [(int(line), int(col), said.split(": ")[1])
            for _, line, col, said in (f.split(":", 3) for f in out.splitlines())]


@pytest.mark.parametrize("formula", [r"$\frac{1}{$", r"$E = \sqrt{2$"])
def test_each_invalid_formula_is_said_at_its_column(repo, formula):
    row = f"| 公式 {formula} | 😀，{formula} |"
    line = f"😀😀 中文：{formula} and {formula}"
    block = "> [!note] 公式\n> $$\n> \\frac{1}{\n> $$\n"
    body = f"\n# 公式\n\n| a | b |\n|---|---|\n{row}\n\n{line}\n\n{block}"
    at = FM_LINES + 6
    assert where(repo, GOOD_FM + body) == [
        (at, row.index(formula) + 1, "math-invalid"),
        (at, row.rindex(formula) + 1, "math-invalid"),
        (at + 2, line.index("$") + 1, "math-invalid"),
        (at + 2, line.rindex(formula) + 1, "math-invalid"),
        (at + 5, 3, "math-invalid")]


def test_columns_count_characters_after_cjk_emoji_tabs_br_and_callout_lists(repo):
    """Guards: a link's column after full-width marks, emoji, a tab, a `<br>` in a cell, in
    a list nested in a callout, and a flow list's item in the front matter."""
    lines = ["😀😀 中文，全角：[a](n1.md)", "|\t[a](n2.md)\t| 甲<br>乙 [b](n3.md) |",
             "> [!tip] 提示", "> - 一", ">   - 二　[c](n4.md)", "- 一", "\t- 二\t[d](n5.md)"]
    body = (f"\n# 列\n\n{lines[0]}\n\n| a | b |\n|---|---|\n{lines[1]}\n\n"
            + "\n".join(lines[2:5]) + "\n\n" + "\n".join(lines[5:]) + "\n")
    front = GOOD_FM.replace("verified: false\n", "verified: false\ntags: [水稻😀，, 3]\n")
    at = FM_LINES + 1 + 4
    assert where(repo, front + body) == [
        (FM_LINES, front.split("\n")[FM_LINES - 1].index("3") + 1, "fm-type"),
        (at, lines[0].index("n1") + 1, "path-missing"),
        (at + 4, lines[1].index("n2") + 1, "path-missing"),
        (at + 4, lines[1].index("n3") + 1, "path-missing"),
        (at + 8, lines[4].index("n4") + 1, "path-missing"),
        (at + 11, lines[6].index("n5") + 1, "path-missing")]


@pytest.mark.parametrize("tabbed", ["project:\tdemo", "source: \ttest"])
def test_a_flow_list_item_is_said_at_its_column_beside_a_tab_after_a_key(repo, tabbed):
    """A tab after a key's colon (YAML 1.2 separation, read by the front matter's loader)
    made the item's position unreadable, and `tags.1` went back to column 1 of `tags:`."""
    key = tabbed.split(":")[0]
    front = GOOD_FM.replace("verified: false\n", "verified: false\ntags: [水稻😀，, 3]\n") \
        .replace(f"{key}: {'demo' if key == 'project' else 'test'}\n", tabbed + "\n")
    lines = front.split("\n")
    at = next(n for n, line in enumerate(lines, 1) if line.startswith("tags:"))
    assert where(repo, front + "\n# 列\n") == [(at, lines[at - 1].index("3") + 1, "fm-type")]
