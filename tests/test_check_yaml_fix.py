"""`kb check --fix` writes what a YAML syntax finding of an editor's habit says to write.

A title with a colon (`title: 注意: 断电后检修`), Chinese input's full-width colon after a key
(`title：稻飞虱`), a tab indenting a list (Obsidian and Typora keep the tab key), a value
holding its own quote (`title: 'Farmer's guide'`): each finding said exactly what to write,
yet `--fix` wrote nothing, and one such line stops YAML reading the whole front matter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = "\n# 稻飞虱\n\n迁飞性害虫。\n"
DOC = "knowledge/a.md"
FIXES = " (`kb check --fix` does)"



def check() -> list[str]:
    return CliRunner().invoke(main, ["check", "--no-cache"]).stdout.splitlines()


def fix() -> list[str]:
    """What `kb check --fix` says it wrote or left (stderr), then the findings left."""
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    return [line for line in res.stderr.splitlines() if ": fixed: " in line
            or ": not fixed: " in line] + res.stdout.splitlines()


def written(kb: Path, old: str, new: str) -> Path:
    path = kb / DOC
    path.write_text(GOOD_FM.replace(old, new) + BODY, encoding="utf-8")
    return path


@pytest.mark.parametrize(("title", "quoted"), [
    ("注意: 断电后检修", '"注意: 断电后检修"'),
    ("Note: power off first", '"Note: power off first"'),
    ('Pump "A": seal C:\\parts', '"Pump \\"A\\": seal C:\\\\parts"'),
    ("小麦: 赤霉病: 防治", '"小麦: 赤霉病: 防治"')])
def test_a_colon_inside_a_value_is_quoted(kb, title, quoted):
    path = written(kb, "title: Generated", f"title: {title}")
    [finding] = check()
    assert finding.startswith(f"{DOC}:2:")
    assert finding.endswith(f"quote the value: title: {quoted}{FIXES}")
    assert fix() == [f"{DOC}:2:8: fixed: {title} -> {quoted}"]
    assert path.read_text(encoding="utf-8") == GOOD_FM.replace("Generated", quoted) + BODY
    assert check() == []  # and YAML reads the title as written
    res = CliRunner().invoke(main, ["chunks", "--json", DOC])
    assert {c["metadata"]["title"] for c in json.loads(res.stdout)} == {title}


@pytest.mark.parametrize("sep", ["：", ":\u00a0", ":\u3000"])
def test_a_key_separated_oddly_gets_its_colon_and_space(kb, sep):
    path = written(kb, "title: Generated", f"title{sep}稻飞虱")
    [finding] = check()
    assert finding.endswith(f"write title: 稻飞虱 (mapping values are not allowed in this "
                            f"context){FIXES}")
    assert fix() == [f"{DOC}:2:6: fixed: {sep} -> : "]
    assert path.read_text(encoding="utf-8") == GOOD_FM.replace("Generated", "稻飞虱") + BODY
    assert check() == []


def test_tabs_indenting_the_front_matter_become_two_spaces_each(kb):
    path = written(kb, "verified: false\n", "verified: false\ntags:\n\t- 病害\n\t- 小麦\n"
                   "aliases:\n\t- wheat scab\n")
    assert check() == [f"{DOC}:10:1: error: yaml-syntax: found character that cannot start "
                       f"any token: indent with spaces, not a tab{FIXES}"]
    assert fix() == [f"{DOC}:{n}:1: fixed: '\\t' -> '  '" for n in (10, 11, 13)]
    assert "tags:\n  - 病害\n  - 小麦\naliases:\n  - wheat scab\n" in path.read_text("utf-8")
    assert check() == []


def test_a_quote_inside_a_quoted_value_is_requoted(kb):
    path = written(kb, "title: Generated", "title: 'Farmer's guide'")
    [finding] = check()
    assert finding.endswith("""write title: "Farmer's guide\"""" + FIXES)
    assert fix() == [f"""{DOC}:2:8: fixed: 'Farmer's guide' -> "Farmer's guide\""""]
    assert check() == []
    assert "title: \"Farmer's guide\"\n" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("line", [
    "title: 注意: 断电 # 备注",  # a comment: is it part of the title?
    "title: 注意:\t断电: 检修\t",  # (a tab: kept as written? left to the author)
    "title: 'Farmer's guide' # 草稿",
])
def test_what_is_not_mechanical_is_left_and_not_promised(kb, line):
    path = written(kb, "title: Generated", line)
    found = check()
    assert found and not any(FIXES in f for f in found)
    assert fix() == found
    assert path.read_text(encoding="utf-8") == GOOD_FM.replace("title: Generated", line) + BODY


def test_a_mixed_indentation_is_left(kb):
    """A line indented by a tab and spaces: how deep it was meant is the author's call."""
    text = "verified: false\ntags:\n  - 病害\n \t- 小麦\n"
    path = written(kb, "verified: false\n", text)
    found = check()
    assert len(found) == 1 and not found[0].endswith(FIXES)
    assert fix() == found
    assert text in path.read_text(encoding="utf-8")


def test_crlf_and_bom_are_mended_and_every_yaml_habit_is_fixed_by_one_fix(kb):
    """Typora on Windows: CRLF and a byte-order mark; a colon in the title, a tab in the
    tags, a timestamp with a space. YAML stops at the first error, so the tab was found
    (and fixed) by a second `kb check --fix`, the timestamp by a third: the first said "1
    error" left that the check had said `--fix` writes. One `--fix` now writes them all,
    and the file without its BOM and with LF line endings (which `--fix` left, though the
    check warned of them)."""
    text = "\ufeff" + (GOOD_FM.replace("title: Generated", "title: 注意: 断电").replace(
        '"2026-03-14T09:30:00+08:00"', "2026-03-14 09:30:00+08:00").replace(
        "verified: false\n", "verified: false\ntags:\n\t- 病害\n") + BODY).replace("\n", "\r\n")
    path = kb / DOC
    path.write_bytes(text.encode("utf-8"))
    lines = text.count("\r\n")
    assert fix() == [f"{DOC}:1:1: fixed: '\\ufeff' -> '' (the UTF-8 byte-order mark)",
                     f"{DOC}:1:1: fixed: '\\r\\n' -> '\\n' (line endings written as LF: "
                     f"{lines} CRLF)",
                     f"{DOC}:2:8: fixed: 注意: 断电 -> \"注意: 断电\"",
                     f"{DOC}:7:12: fixed: 2026-03-14 09:30:00+08:00 -> "
                     '"2026-03-14T09:30:00+08:00"',
                     f"{DOC}:10:1: fixed: '\\t' -> '  '"]  # no finding left
    assert path.read_bytes() == text.removeprefix("\ufeff").replace(
        "注意: 断电", '"注意: 断电"').replace(
        "2026-03-14 09:30:00+08:00", '"2026-03-14T09:30:00+08:00"').replace(
        "\t", "  ").replace("\r\n", "\n").encode("utf-8")
    assert fix() == []  # nothing left, nothing written


@pytest.mark.parametrize(("key", "old", "value", "new"), [
    ("timestamp", '"2026-03-14T09:30:00+08:00"', "2026-03-14 09:30:00+08:00",
     '"2026-03-14T09:30:00+08:00"'),
    ("timestamp", '"2026-03-14T09:30:00+08:00"', '"2026-03-14 09:30:00Z"',
     '"2026-03-14T09:30:00Z"'),
    # an offset written without its colon, or as hours alone, or after a space; full-width
    # digits, colon and plus (a Chinese input method): the finding said to write `+0800`
    # again, and the fix wrote `T09:30:00 +08:00`, which the schema refuses again
    ("timestamp", '"2026-03-14T09:30:00+08:00"', '"2026-03-14T09:30:00+0800"',
     '"2026-03-14T09:30:00+08:00"'),
    ("timestamp", '"2026-03-14T09:30:00+08:00"', '"2026-03-14T09:30:00-05"',
     '"2026-03-14T09:30:00-05:00"'),
    ("timestamp", '"2026-03-14T09:30:00+08:00"', "2026-03-14 09:30:00 +08:00",
     '"2026-03-14T09:30:00+08:00"'),
    ("verified_at", None, '"２０２６-03-14T09：30：00＋08:00"', '"2026-03-14T09:30:00+08:00"'),
    ("valid_until", None, "2026/03/19", '"2026-03-19"'),
    ("valid_until", None, '"2026年3月9日"', '"2026-03-09"')])
def test_a_timestamp_or_date_written_another_way_is_rewritten_as_the_finding_says(
        kb, key, old, value, new):
    if old is None:  # a key of its own line, below the others
        path = written(kb, "verified: false\n", f"verified: false\n{key}: {value}\n")
    else:
        path = written(kb, old, value)
    [finding] = check()
    assert finding.endswith(f"write {key}: {new}{FIXES}")
    line = int(finding.split(":")[1])
    assert fix() == [f"{DOC}:{line}:{len(key) + 3}: fixed: {value} -> {new}"]
    assert f"\n{key}: {new}\n" in path.read_text(encoding="utf-8")
    assert check() == []


def test_a_timestamp_with_a_comment_or_without_offset_is_left(kb):
    for value in ("2026-03-14 09:30:00+08:00 # 初稿", "2024-05-01"):
        path = written(kb, '"2026-03-14T09:30:00+08:00"', value)
        [finding] = check()
        assert not finding.endswith(FIXES)
        assert fix() == [finding]
        assert f"timestamp: {value}\n" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("value", "items"), [
    ("迁飞性害虫，水稻", "[迁飞性害虫, 水稻]"), ("稻瘟病、纹枯病；稻曲病", "[稻瘟病, 纹枯病, 稻曲病]"),
    ("wheat scab, head blight", "[wheat scab, head blight]")])
def test_a_list_written_as_one_text_is_written_as_a_list(kb, value, items):
    path = written(kb, "verified: false\n", f"verified: false\ntags: {value}\n")
    [finding] = check()
    assert finding.endswith(f"(write a list: tags: {items}){FIXES}")
    assert fix() == [f"{DOC}:9:7: fixed: {value} -> {items}"]
    assert f"\ntags: {items}\n" in path.read_text(encoding="utf-8")
    assert check() == []


@pytest.mark.parametrize("value", ["yes, no", "a, 'b", "病害 # 草稿，虫害"])
def test_a_list_yaml_would_read_otherwise_is_left(kb, value):
    """`[yes, no]` is two booleans to YAML; a quote left open; a comment."""
    path = written(kb, "verified: false\n", f"verified: false\ntags: {value}\n")
    found = check()
    assert not any(f.endswith(FIXES) for f in found)
    assert fix() == found
    assert f"\ntags: {value}\n" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize("indent", ["\t", "  ", "\t\t"])
def test_a_key_indented_under_a_key_with_a_value_moves_to_the_first_column(kb, indent):
    """`\\tcategory: …` under `title: …` (an editor's stray Tab): `--fix` made the tab two
    spaces, and the check then refused the spaces ("start the line at its first column"),
    which `--fix` did not do. Such a key now starts at the first column; a tab under a key
    that opens a list or a block keeps indenting it (two spaces a tab)."""
    path = written(kb, "category: engineering", f"{indent}category: engineering")
    [finding] = check()
    assert finding.endswith(FIXES), finding
    fixed = fix()
    assert fixed and all("fixed:" in line for line in fixed), fixed
    assert check() == []
    assert path.read_text(encoding="utf-8") == GOOD_FM + BODY


@pytest.mark.parametrize("above", ["tags:", "summary: |", "summary: >-"])
def test_a_tab_under_a_key_opening_a_block_still_indents(kb, above):
    path = written(kb, "verified: false\n", f"verified: false\n{above}\n\tb\n")
    fix()
    assert f"{above}\n  b\n" in path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("old", "new", "line", "closes"), [
    ("title: Generated", 'title: "液压泵维护', 2, 7),  # to timestamp's first quote
    ("title: Generated", "title: 'Pump maintenance", 2, 0),  # never closed: to the end
    ("source: test", 'source: "现场记录 \\"A', 5, 7),  # an escaped quote closes nothing
    ("author: alice@example.org", "author: 'it''s me", 6, 0),
    ("verified: false", 'verified: false\nlang: "zh', 9, 0),  # the front matter's last line
    ("verified: false", "verified: false\nlang: 'en", 9, 0)])
def test_a_quote_left_open_is_said_at_its_line_and_closed(kb, old, new, line, closes):
    """YAML read `title: "液压泵维护`'s value on to the quote that opens timestamp's, and said
    "did not find expected key" at line 7, column 13, naming neither the title nor the
    quote; a quote never closed was said at its line but not closed by `--fix`, and on the
    front matter's last line it was YAML's "found unexpected end of stream" at its end."""
    path = written(kb, old, new)
    [finding] = check()
    key, _, value = new.rpartition("\n")[2].partition(": ")
    assert finding.startswith(f"{DOC}:{line}:{len(key) + 3}: error: yaml-syntax: "), finding
    if not closes:
        assert finding.endswith("a quote opened here is never closed: end the value with "
                                f"the same quote: {key}: {value}{value[0]}{FIXES}"), finding
    else:
        assert finding.endswith(f"end the value with {value[0]}, {key}: {value}{value[0]}{FIXES}")
        assert f"to the {value[0]} on line {closes}" in finding
    assert fix() == [f"{DOC}:{line}:{len(key) + 3}: fixed: {value} -> {value}{value[0]}"]
    assert path.read_text(encoding="utf-8") == GOOD_FM.replace(old, new + value[0]) + BODY
    assert check() == []


@pytest.mark.parametrize("below", ["", "\nlang: zh"])
def test_a_flow_list_left_open_is_closed(kb, below):
    """`tags: [水稻, 稻瘟病` (the `]` forgotten), the front matter's last line or not: said at
    its `[`, closed by `--fix` at the end of its line."""
    path = written(kb, "verified: false", f"verified: false\ntags: [水稻, 稻瘟病{below}")
    [finding] = check()
    assert finding.startswith(f"{DOC}:9:7: error: yaml-syntax: '[' opened here is never "
                              "closed: end the value with ']': tags: [水稻, 稻瘟病]"), finding
    assert fix() == [f"{DOC}:9:7: fixed: [水稻, 稻瘟病 -> [水稻, 稻瘟病]"]
    assert "\ntags: [水稻, 稻瘟病]\n" in path.read_text(encoding="utf-8")


def test_a_quote_left_open_on_the_last_line_of_a_windows_file_is_closed(kb):
    """Typora on Windows: a BOM and CRLF line ends; the closing quote goes before the CR
    (and the file is then written without the BOM, with LF line ends)."""
    path = kb / DOC
    text = (GOOD_FM.replace("verified: false", 'verified: false\nlang: "zh') + BODY)
    path.write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    assert f"{DOC}:9:7: fixed: \"zh -> \"zh\"" in fix()
    assert path.read_bytes() == text.replace('"zh', '"zh"').encode()


@pytest.mark.parametrize("below", ["  续行", "", " - a"])
def test_a_quote_never_closed_over_an_indented_line_is_left_to_the_author(kb, below):
    """`summary: "第一行` over an indented (or blank) line: is the line below the value's?
    Closing the quote on its own line would make that line a new error; it is said, not
    written."""
    path = written(kb, "verified: false", f'verified: false\nlang: "zh\n{below}')
    [finding] = check()
    assert finding.endswith('a quote opened here is never closed: end the value with the '
                            'same quote: lang: "zh"'), finding
    before = path.read_text(encoding="utf-8")
    fix()
    assert path.read_text(encoding="utf-8") == before
