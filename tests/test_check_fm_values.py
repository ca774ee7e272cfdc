"""Front-matter values a new author writes for a boolean or a date the way people write them
(`verified: 是`, `verified: "true"`, `timestamp: 2024-13-01`): one finding naming the line,
the value and what to write, and `kb check --fix` leaving the file's bytes alone (what the
author meant by `是` or by month 13 is theirs to say)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.check.fm_written import item_position
from kbtools.cli import main
from kbtools.corpus import parse_source
from tests.kbfixtures import GOOD_FM

BODY = "\n# 稻飞虱\n\n迁飞性害虫。\n"
DOC = "knowledge/a.md"


def check(*args: str) -> tuple[int, list[str]]:
    """`kb check`'s exit code and the findings it prints."""
    res = CliRunner().invoke(main, ["check", "--no-cache", *args])
    return res.exit_code, res.stdout.splitlines()


@pytest.mark.parametrize(("written", "said"), [
    ("是", "'是' is text to YAML, not a boolean: write verified: true"),
    ("否", "'否' is text to YAML, not a boolean: write verified: false"),
    ("已审核", "'已审核' is text to YAML, not a boolean: write verified: true"),
    ('"true"', 'written "true": the quotes make it text: write verified: true, without quotes'),
    ("'False'", "written 'False': the quotes make it text: write verified: false, without "
                "quotes"),
    ("y", "'y' is text to YAML, not a boolean: write verified: true"),
    ("1", "1 is a number to YAML, not a boolean: write verified: true"),
    ("0", "0 is a number to YAML, not a boolean: write verified: false"),
    ("待定", "'待定' is text to YAML: write verified: true or verified: false"),
    ("2", "2 is a number to YAML: write verified: true or verified: false"),
])
def test_a_boolean_written_as_a_word_names_the_value_and_what_to_write(kb, written, said):
    path = kb / DOC
    data = (GOOD_FM.replace("verified: false", f"verified: {written}") + BODY).encode()
    path.write_bytes(data)
    got = "int" if written.isdigit() else "str"
    assert check() == (1, [f"{DOC}:8:1: error: fm-type: verified: expected boolean, got {got} "
                           f"({said})"])
    assert CliRunner().invoke(main, ["check", "--no-cache", "--fix"]).exit_code == 1
    assert path.read_bytes() == data


def test_another_boolean_key_is_told_the_same(kb):
    (kb / DOC).write_text(GOOD_FM.replace("verified: false", "verified: false\nexecutable: 是")
                          + BODY, encoding="utf-8")
    assert check() == (1, [f"{DOC}:9:1: error: fm-type: executable: expected boolean, got str "
                           "('是' is text to YAML, not a boolean: write executable: true)"])


REAL = "with a real date and your time zone's offset"


@pytest.mark.parametrize(("value", "why"), [
    ("2024-13-01", "month must be in 1..12"),
    ('"2024-00-10"', "month must be in 1..12"),
    ("2024/2/30", "day is out of range for month"),
    ("2024年2月30日", "day is out of range for month"),
    ("2023-02-29 10:00", "day is out of range for month"),
])
def test_a_timestamp_that_is_no_real_date_says_which_part_is_wrong(kb, value, why):
    path = kb / DOC
    data = (GOOD_FM.replace('timestamp: "2026-03-14T09:30:00+08:00"', f"timestamp: {value}")
            + BODY).encode()
    path.write_bytes(data)
    shown = value.strip('"')
    assert check() == (1, [f"{DOC}:7:1: error: fm-timestamp: timestamp: {shown!r} is not an "
                           f"ISO 8601 timestamp with offset: {why}: write timestamp: "
                           f"\"YYYY-MM-DDThh:mm:ss+08:00\" {REAL}"])
    assert CliRunner().invoke(main, ["check", "--no-cache", "--fix"]).exit_code == 1
    assert path.read_bytes() == data


def test_a_timestamp_with_an_offset_and_no_real_date_says_what_to_write(kb):
    (kb / DOC).write_text(GOOD_FM.replace('"2026-03-14T09:30:00+08:00"',
                                          '"2026-03-14T25:30:00+08:00"') + BODY, encoding="utf-8")
    assert check() == (1, [f"{DOC}:7:1: error: fm-timestamp: timestamp: "
                           "'2026-03-14T25:30:00+08:00' is not a valid date: hour must be in "
                           "0..23: write timestamp: \"YYYY-MM-DDThh:mm:ss+08:00\" with a real "
                           "date and time"])


@pytest.mark.parametrize(("value", "said"), [
    ("2024-13-01", "'2024-13-01' is not a real date: month must be in 1..12"),
    ("2024/13/01", "'2024/13/01' is not a real date: month must be in 1..12"),
    ("2024年2月30日", "'2024年2月30日' is not a real date: day is out of range for month"),
])
def test_a_valid_until_that_is_no_real_date_says_what_to_write(kb, value, said):
    path = kb / DOC
    data = (GOOD_FM.replace("verified: false", f"verified: false\nvalid_until: {value}")
            + BODY).encode()
    path.write_bytes(data)
    assert check() == (1, [f"{DOC}:9:1: error: fm-value: valid_until: {said}: write "
                           "valid_until: \"YYYY-MM-DD\" with a real date"])
    assert CliRunner().invoke(main, ["check", "--no-cache", "--fix"]).exit_code == 1
    assert path.read_bytes() == data


@pytest.mark.parametrize(("line", "key_line", "said"), [
    ("title: 2024", 2, "title: expected string, got int (YAML reads 2024 as a number: quote it "
                       "to keep it as text: title: \"2024\")"),
    ("section: 3.10", 9, "section: expected string, got float (YAML reads 3.10 as a number: "
                         "quote it to keep it as text: section: \"3.10\")"),
    ("author: 12345  # 工号", 6, "author: expected string, got int (YAML reads 12345 as a "
                                "number: quote it to keep it as text: author: \"12345\")"),
    ("tags: [2024, 水稻]", 9, "tags.0: expected string, got int (YAML reads it as a number: "
                            "quote it to keep it as text, as written)"),
    ("timestamp: 20260314", 7, "timestamp: expected string, got int (write timestamp: "
                               "\"YYYY-MM-DDThh:mm:ss+08:00\")"),
    ("valid_until: 2027", 9, "valid_until: expected string, got int (write valid_until: "
                             "\"YYYY-MM-DD\")"),
])
def test_text_written_as_a_number_says_to_quote_it(kb, line, key_line, said):
    key = line.split(":")[0]
    lines = [ln for ln in GOOD_FM.split("\n") if not ln.startswith(f"{key}:")]
    lines.insert(key_line - 1, line)
    path = kb / DOC
    data = ("\n".join(lines) + BODY).encode()
    path.write_bytes(data)
    col = line.index("[") + 2 if "[" in line else 1  # a list's item: at the item
    assert check() == (1, [f"{DOC}:{key_line}:{col}: error: fm-type: {said}"])
    assert CliRunner().invoke(main, ["check", "--no-cache", "--fix"]).exit_code == 1
    assert path.read_bytes() == data


def test_a_timestamp_with_a_zone_name_for_its_offset_is_one_finding(kb):
    """`09:30:00 CST` (a zone's name, which says no offset: China's or US Central?): the
    pattern's finding alone; it came twice, the second quoting Python's "Invalid isoformat
    string"."""
    (kb / DOC).write_text(GOOD_FM.replace('"2026-03-14T09:30:00+08:00"',
                                          '"2026-03-14T09:30:00 CST"') + BODY, encoding="utf-8")
    assert check() == (1, [f"{DOC}:7:1: error: fm-timestamp: timestamp: "
                           "'2026-03-14T09:30:00 CST' is not an ISO 8601 timestamp with offset "
                           "(e.g. 2026-03-14T09:30:00+08:00)"])


def test_a_list_items_error_names_the_items_own_line_and_column(kb):
    """`tags.1` was said at the line of `tags:` (column 1): the author counted the items.
    A block list's item is named at its `- ` line, a flow list's at its column, a mapping
    written as an item at its start; an error of the whole list stays at its key."""
    fm = GOOD_FM.replace("verified: false\n", "verified: false\n"
                         "tags:\n  - 稻飞虱\n  - 12\n  - {名称: 褐飞虱}\n"
                         "crop: [水稻, 3, \"\"]\n"
                         "aliases: [同名, 同名]\n")
    (kb / DOC).write_text(fm + BODY, encoding="utf-8")
    code, said = check()
    assert code == 1
    assert said == [
        f"{DOC}:11:5: error: fm-type: tags.1: expected string, got int (YAML reads it as a "
        "number: quote it to keep it as text, as written)",
        f"{DOC}:12:5: error: fm-type: tags.2: expected string, got dict",
        f"{DOC}:13:12: error: fm-type: crop.1: expected string, got int (YAML reads it as a "
        "number: quote it to keep it as text, as written)",
        f"{DOC}:13:15: error: fm-value: crop.2: '' should be non-empty: write at least 1 "
        "characters",
        f"{DOC}:14:1: error: fm-value: aliases: '同名' listed more than once: keep one of each",
    ]


def test_a_nested_mappings_item_is_found_at_its_own_place():
    """A project's schema may list mappings (`pests:` of `- name:` / `stage:`): the error at
    `pests.1.stage` names that value's line and column, in block and flow style alike."""
    text = GOOD_FM.replace("verified: false\n", "verified: false\npests:\n  - name: 稻飞虱\n"
                           "    stage: 成虫\n  - name: 二化螟\n    stage: 3\n"
                           "hosts: [{名: 水稻, 期: 2}]\n") + BODY
    src = parse_source(text, Path("a.md"), "a.md")
    assert item_position(src, ["pests", 1, "stage"]) == (13, 12)
    assert item_position(src, ["pests", 1]) == (12, 5)
    assert item_position(src, ["hosts", 0, "期"]) == (14, 20)
    assert item_position(src, ["pests", 2]) is None and item_position(src, ["无"]) is None
