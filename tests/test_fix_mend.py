"""`kb check --fix` writes the fixes of `heading-no-space` (`##安装` -> `## 安装`), `link-space`
(a space in a link's or image's path percent-encoded) and a front matter below line 1 (the
blank lines, spaces or invisible characters above its `---` deleted), each only where it is
unambiguous, in the one atomic write of a document's fixes that keeps every other byte.
Before, these warnings said what to write and `--fix` wrote none of them."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.check.engine import make_context
from kbtools.check.fix import apply_edits, fix_paths
from kbtools.check.links import Edit
from kbtools.cli import main
from kbtools.config import load_config
from tests.kbfixtures import GOOD_FM, REPO


@pytest.fixture
def kb(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "kb.toml").write_text("")
    (tmp_path / "knowledge" / "sub dir").mkdir(parents=True)
    shutil.copytree(REPO / "kbtools" / "data" / "schemas", tmp_path / "schemas")
    (tmp_path / "knowledge" / "sub dir" / "b c.md").write_text(GOOD_FM + "\n# 乙\n\n正文。\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str, cache: bool = False) -> tuple[int, list[str]]:
    """Exit code and lines: the findings (stdout), then what `--fix` wrote (stderr)."""
    res = CliRunner().invoke(main, ["check", *([] if cache else ["--no-cache"]), *args])
    return res.exit_code, res.stdout.splitlines() + res.stderr.splitlines()


def codes(out: list[str]) -> list[str]:
    """The findings' codes but the line endings' and BOM's (which `--fix` mends)."""
    return [code for line in out if line.startswith("knowledge/") and ": fixed: " not in line
            and (code := line.split(": ")[2]) not in ("encoding-crlf", "encoding-bom")]


def test_headings_without_their_space_get_it_and_tags_and_numbers_stay(kb):
    doc = kb / "knowledge" / "a.md"
    body = ("\r\n# 液压泵\r\n\r\n##安装\r\n\r\n#待办 #液压\r\n\r\n#3机组停机。\r\n\r\n"
            "###注意 事项 ###\r\n\r\n> ##引用里的\r\n\r\n```\r\n##代码\r\n```\r\n")
    doc.write_bytes(b"\xef\xbb\xbf" + (GOOD_FM.replace("\n", "\r\n") + body).encode())
    before = doc.read_bytes()
    code, out = run()
    assert code == 0
    assert "knowledge/a.md:13:1: warning: heading-no-space: '##安装' is no heading (a heading's " \
        "#s are followed by a space; Typora outside strict mode shows one, GitHub, Obsidian " \
        "and kbtools text): write '## 安装' (kb check --fix does)" in out
    assert codes(out) == ["heading-no-space"] * 2
    code, out = run("--fix")
    assert code == 0 and codes(out) == [], out
    assert doc.read_bytes() == before.replace("##安装".encode(), "## 安装".encode()).replace(
        "###注意".encode(), "### 注意".encode()).removeprefix(b"\xef\xbb\xbf").replace(
        b"\r\n", b"\n")
    assert [line for line in out if ": fixed: " in line] == [
        "knowledge/a.md:1:1: fixed: '\\ufeff' -> '' (the UTF-8 byte-order mark)",
        "knowledge/a.md:1:1: fixed: '\\r\\n' -> '\\n' (line endings written as LF: 25 CRLF)",
        "knowledge/a.md:13:1: fixed: ##安装 -> ## 安装",
        "knowledge/a.md:19:1: fixed: ###注意 事项 ### -> ### 注意 事项 ###"]


def test_a_space_in_a_link_s_path_is_percent_encoded_where_that_is_unambiguous(kb):
    doc = kb / "knowledge" / "a.md"
    body = ("\n# 甲\n\n见 [乙](sub dir/b c.md) 和 [乙的标题](<sub dir/b c.md>)。\n\n"
            "- 列表里 [乙](sub dir/b c.md \"标题\")\n"
            "> 引用里 [乙](sub dir/b	c.md)\n\n"
            "[锚](sub dir/b c.md#安装 步骤) 与 [百分](100% b c.md)\n")
    doc.write_text(GOOD_FM + body, encoding="utf-8")
    code, out = run()
    assert codes(out) == ["link-space"] * 5, out
    assert "knowledge/a.md:13:3: warning: link-space: '[乙](sub dir/b c.md)' is no link (a " \
        "space in its path; Typora shows one, GitHub, Obsidian and kbtools text: never checked " \
        "or shipped): write 'sub%20dir/b%20c.md' (or '<sub dir/b c.md>'); kb check --fix " \
        "writes the first" in out
    assert [line.split(": ")[0] for line in out
            if line.endswith("kb check --fix writes the first")] == [
        "knowledge/a.md:13:3", "knowledge/a.md:15:7"]  # not the tab's, the anchor's, the %'s
    code, out = run("--fix")
    assert doc.read_text(encoding="utf-8") == GOOD_FM + body.replace(
        "[乙](sub dir/b c.md)", "[乙](sub%20dir/b%20c.md)").replace(
        "(sub dir/b c.md \"标题\")", "(sub%20dir/b%20c.md \"标题\")")
    assert codes(out) == ["link-space"] * 3, out  # left for the author to write
    assert code == 0


def test_a_front_matter_below_line_1_is_moved_up_when_it_holds_a_mapping(kb):
    doc = kb / "knowledge" / "a.md"
    body = "\n# 甲\n\n##安装\n"
    doc.write_bytes(("\r\n \u200b\r\n" + GOOD_FM.replace("\n", "\r\n") + body).encode())
    code, out = run()
    assert code == 1 and codes(out) == ["fm-missing", "heading-no-space"], out
    assert "knowledge/a.md:1:1: error: fm-missing: the front matter block at line 3 does not " \
        "begin the file, so it is read as text: delete the blank lines 1-2 (it holds an " \
        "invisible U+200B) before its '---' (kb check --fix does)" in out
    code, out = run("--fix")
    assert code == 0 and codes(out) == [], out
    assert doc.read_bytes() == (GOOD_FM + body.replace("##", "## ")).encode()  # LF: mended
    assert [line for line in out if ": fixed: " in line] == [
        "knowledge/a.md:1:1: fixed: '\\r\\n \\u200b\\r\\n' -> ''".replace("\\r\\n", "\\n"),
        "knowledge/a.md:1:1: fixed: '\\r\\n' -> '\\n' (line endings written as LF: 9 CRLF)",
        "knowledge/a.md:15:1: fixed: ##安装 -> ## 安装"]  # its line as checked


def test_spaces_before_the_front_matter_s_fence_are_deleted(kb):
    doc = kb / "knowledge" / "a.md"
    doc.write_text("  \ufeff" + GOOD_FM + "\n# 甲\n", encoding="utf-8")
    code, out = run("--fix")
    assert code == 0 and codes(out) == [], out
    assert doc.read_text(encoding="utf-8") == GOOD_FM + "\n# 甲\n"


@pytest.mark.parametrize("text", [
    "\n---\n\n# 甲\n\n正文。\n\n---\n",  # a rule above the text: no front matter
    "\n---\n- 甲\n- 乙\n---\n\n# 甲\n",  # a list between the fences
    "\n---\ntitle: [甲\n---\n\n# 甲\n",  # YAML that does not load
])
def test_what_is_no_front_matter_is_left_as_written(kb, text):
    doc = kb / "knowledge" / "a.md"
    doc.write_text(text, encoding="utf-8")
    code, out = run("--fix")
    assert code == 1 and "fm-missing" in codes(out)
    assert not [line for line in out if "--fix does" in line or ": fixed: " in line], out
    assert doc.read_text(encoding="utf-8") == text


def test_the_fixes_come_from_the_results_cache_too(kb):
    doc = kb / "knowledge" / "a.md"
    doc.write_text("\n" + GOOD_FM + "\n# 甲\n\n##安装\n\n[乙](sub dir/b c.md)\n")
    for _ in range(2):
        code, out = run(cache=True)
        assert codes(out) == ["fm-missing", "heading-no-space", "link-space"], out
    code, out = run("--fix", cache=True)
    assert code == 0 and codes(out) == [], out
    assert doc.read_text() == GOOD_FM + "\n# 甲\n\n## 安装\n\n[乙](sub%20dir/b%20c.md)\n"


def test_an_edit_over_lines_and_one_after_it_are_written_together(tmp_path):
    doc = tmp_path / "a.md"
    doc.write_bytes(b"\r\n\r\n---\rx: 1\n---\n##a [b](c d.md)\n")
    edits = [Edit(1, 1, "\n\n", ""), Edit(6, 1, "##a", "## a"), Edit(6, 5, "[b](c d.md)",
                                                                      "[b](c%20d.md)")]
    assert sorted(apply_edits(doc, edits), key=lambda e: e.line) == edits
    assert doc.read_bytes() == b"---\rx: 1\n---\n## a [b](c%20d.md)\n"


LINES = {  # a body line, and whether `--fix` leaves a warning at it
    "##安装": False, "###注意 事项": False, "#待办 #液压": False, "#3机组": False,
    "> ##引用": False, "正文 ##不是": False, "[乙](sub dir/b c.md)": False,
    "- 见 ![图](sub dir/b c.md \"题\") 后": False, "| [乙](sub dir/b c.md) | 2 |": False,
    "##乙 [乙](sub dir/b c.md) [乙](sub dir/b c.md)": False, "[锚](sub dir/b c.md#安 装)": True, "[百分](100% b.md)": True, "[乙](<sub dir/b c.md>)": False,
}
TABLE = "| a | b |\n|---|---|\n"


def _squeezed(text: str) -> str:
    """`text` less what the fixes may add or delete: spaces, `%20`, invisible characters."""
    return "".join(text.replace("%20", "").split()).translate(
        dict.fromkeys(map(ord, "\ufeff\u200b\u2060"), None))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["", " ", "\u200b", "\ufeff"]), max_size=3),
       st.lists(st.sampled_from(sorted(LINES)), min_size=1, max_size=6),
       st.sampled_from(["\n", "\r\n"]))
def test_fixes_leave_no_fixable_warning_and_change_nothing_else(above, lines, newline):
    """Whatever the lines above the front matter and in the body, one `--fix` leaves only
    the warnings it may not fix, changes nothing but spaces, `%20` and what stood above the
    front matter, and a second changes nothing."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "kb.toml").write_text("")
        (root / "knowledge" / "sub dir").mkdir(parents=True)
        (root / "knowledge" / "sub dir" / "b c.md").write_text(GOOD_FM + "\n# 乙\n")
        body = "\n\n".join(TABLE + line if line.startswith("|") else line for line in lines)
        text = "".join(f"{blank}\n" for blank in above) + GOOD_FM + "\n# 甲\n\n" + body + "\n"
        doc = root / "knowledge" / "a.md"
        doc.write_bytes(text.replace("\n", newline).encode())
        cfg = load_config(root)
        _, _, findings = fix_paths([root / "knowledge"], lambda: make_context(cfg))
        left = sorted(f.code for f in findings if f.code in (
            "heading-no-space", "link-space", "fm-missing"))
        assert left == ["link-space"] * sum(LINES[line] for line in lines), left
        fixed = doc.read_bytes().decode()
        assert fixed.startswith("---\n")  # no BOM, LF line endings
        assert _squeezed(fixed) == _squeezed(text)
        changes, _, _ = fix_paths([root / "knowledge"], lambda: make_context(cfg))
        assert changes == [] and doc.read_bytes().decode() == fixed
