"""Git's conflict markers left in a document are `merge-conflict`, an error at the
`<<<<<<<` line. A merge whose conflict a Git app "marked as resolved" (or that was `git
add`ed unedited) committed both sides with the markers: `kb check` and so the hook passed it
(the `=======` under a line made that line a heading) and the release served both versions.
A conflict shown in fenced code, and a heading underlined with `=======`, are no finding.
The hook's refusal of such a merge commit: tests/test_init_hook_commits.py."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import titled_page

CONFLICT = """液压油温度超过 80℃ 时停机。
<<<<<<< HEAD
Every 2000 running hours, replace the filter.
=======
每运行 2000 小时更换滤芯。
>>>>>>> 维护-分支
"""


def check(kb, body: str) -> list[str]:
    (kb / "knowledge" / "a.md").write_text(titled_page("液压系统", body), encoding="utf-8")
    result = CliRunner().invoke(main, ["check"])
    return [line for line in result.stdout.splitlines() if "merge-conflict" in line]


def test_conflict_markers_are_one_error_at_their_first_line(kb):
    """The page's body starts at line 13 (titled_page): the markers at 14–18."""
    assert check(kb, CONFLICT) == [
        "knowledge/a.md:14:1: error: merge-conflict: a merge conflict left unresolved: Git's "
        "markers from line 14 to line 18 hold both sides; keep the text you want, delete "
        "the marker lines, then git add the file"]


@pytest.mark.parametrize("body,lines", [
    # diff3 (`merge.conflictStyle diff3`) and zdiff3 add the base between `|||||||` and `=====`
    (CONFLICT.replace("=======\n", "||||||| 共同祖先\nEvery 1000 hours.\n=======\n"), [14]),
    (CONFLICT + "\n" + CONFLICT, [14, 21]),
    # a conflict shown as an example, in a fenced code block (``` or ~~~), is the text
    ("解决冲突的样子：\n\n```text\n" + CONFLICT + "```\n", []),
    ("~~~~\n" + CONFLICT + "```\n~~~\n~~~~\n", []),
    # a setext heading's underline, and markers that never close, are no conflict
    ("滤芯更换\n=======\n\n每 2000 小时。\n", []),
    ("<<<<<<< 说明\n没有结束。\n", []),
    ("``` 行内 ``` 不是代码块\n" + CONFLICT, [15]),
])
def test_which_lines_are_a_conflict(kb, body, lines):
    assert [int(line.split(":")[1]) for line in check(kb, body)] == lines


def test_a_conflict_in_the_front_matter_is_named_at_its_line(kb):
    page = titled_page("冲突", "正文。\n").replace(
        "verified: false\n",
        "<<<<<<< HEAD\nverified: false\n=======\nverified: true\n>>>>>>> other\n")
    (kb / "knowledge" / "a.md").write_text(page, encoding="utf-8")
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    assert "knowledge/a.md:8:1: error: merge-conflict" in result.stdout, result.stdout


# each side of the conflict opens a fence of its own: Git wrote its markers around them
FENCED_SIDES = """<<<<<<< HEAD
```bash
systemctl restart kb
=======
```sh
kb serve --port 8080
>>>>>>> deploy
```
"""


@pytest.mark.parametrize("body,lines", [
    # fences indented by up to three spaces are fences; four make indented code, which a
    # marker at the line's start ends
    ("   ```text\n" + CONFLICT + "   ```\n", []),
    ("    ```text\n" + CONFLICT, [15]),
    # `~~~` inside a ``` block closes nothing, nor does ``` inside ~~~~
    ("```\n~~~\n" + CONFLICT + "~~~\n```\n", []),
    # an unclosed fence runs to the end of the document: its conflict is its text
    ("```text\n" + CONFLICT, []),
    # a fence in a list item or a quote ends with its container: Git's markers at a line's
    # start are outside it (the fence's own regex read the list item's fence as open)
    ("1. 合并后检查：\n\n   ```text\n   git status\n" + CONFLICT, [18]),
    ("> ```text\n> git status\n" + CONFLICT, [16]),
    # an example inside a list item's fence is the example's text
    ("- 例子：\n\n  ```text\n" + "".join("  " + line + "\n" for line in CONFLICT.split("\n")
                                       if line) + "  ```\n", []),
    (FENCED_SIDES, [13]),
])
def test_fenced_code_is_read_from_the_parse(kb, body, lines):
    """Which lines are fenced code is the parser's reading (markdown-it's fence tokens), the
    one the build and the served page use, not a second reader of fence syntax."""
    assert [int(line.split(":")[1]) for line in check(kb, body)] == lines
