"""Front matter keys written in another case or with another separator, as editors and
authors from other tools write them (`Title:`, `TITLE:`, `Valid-Until:`).

`TITLE:` was "unknown key 'TITLE'" with no "did you mean" (difflib compares case), and beside
it "required key 'title' is missing": two findings for one key written in capitals. A key
that differs from a known one only in case and separator is that key: the finding names it,
and `kb check --fix` renames it where nothing else is written under that name."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

BODY = "\n# 稻飞虱\n\n迁飞性害虫。\n"
DOC = "knowledge/a.md"



def check(*args: str) -> list[str]:
    """The findings `kb check` prints (stdout)."""
    return CliRunner().invoke(main, ["check", "--no-cache", *args]).stdout.splitlines()


def fix() -> list[str]:
    """What `kb check --fix` says it wrote or left (stderr), then the findings left."""
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    return [line for line in res.stderr.splitlines() if ": fixed: " in line
            or ": not fixed: " in line] + res.stdout.splitlines()


@pytest.mark.parametrize(("written", "meant", "line"), [
    ("title:", "Title", 2), ("title:", "TITLE", 2), ("source:", "SOURCE", 5),
    ("author:", "Author", 6), ("timestamp:", "TimeStamp", 7)])
def test_a_key_in_another_case_is_named_and_renamed_by_fix(kb, written, meant, line):
    path = kb / DOC
    path.write_text(GOOD_FM.replace(written, f"{meant}:") + BODY, encoding="utf-8")
    key = written.rstrip(":")
    assert check() == [f"{DOC}:{line}:1: error: fm-unknown-key: unknown key {meant!r}; did you "
                       f"mean {key!r}? (`kb check --fix` renames it)"]
    assert fix() == [f"{DOC}:{line}:1: fixed: {meant} -> {key}"]
    assert path.read_text(encoding="utf-8") == GOOD_FM + BODY
    assert check() == []


def test_a_separator_other_than_the_schemas_is_the_same_key(kb):
    path = kb / DOC
    path.write_text(GOOD_FM.replace("verified: false\n", "verified: false\nValid-Until: "
                                    "2027-01-31\nfault codes: [E12]\n") + BODY,
                    encoding="utf-8")
    assert check() == [
        f"{DOC}:9:1: error: fm-unknown-key: unknown key 'Valid-Until'; did you mean "
        "'valid_until'? (`kb check --fix` renames it)",
        f"{DOC}:10:1: error: fm-unknown-key: unknown key 'fault codes'; did you mean "
        "'fault_codes'? (`kb check --fix` renames it)"]
    assert fix() == [f"{DOC}:9:1: fixed: Valid-Until -> valid_until",
                              f"{DOC}:10:1: fixed: fault codes -> fault_codes"]
    assert "valid_until: 2027-01-31\nfault_codes: [E12]\n" in path.read_text(encoding="utf-8")
    assert check() == []


def test_a_renaming_that_would_repeat_a_key_is_not_written(kb):
    """`Tags:` beside `tags:`, or `Title:` beside `TITLE:`: which value is meant is the
    author's call; the finding still names the key, and the file is left as it is."""
    path = kb / DOC
    both = GOOD_FM.replace("verified: false\n", "verified: false\ntags: [水稻]\nTags: [虫害]\n")
    twice = GOOD_FM.replace("title: Generated\n", "Title: 甲\nTITLE: 乙\n")
    for text, found in ((both, [f"{DOC}:10:1: error: fm-unknown-key: unknown key 'Tags'; "
                                "did you mean 'tags'?"]),
                        (twice, [f"{DOC}:2:1: error: fm-unknown-key: unknown key 'Title'; did "
                                 "you mean 'title'?",
                                 f"{DOC}:3:1: error: fm-unknown-key: unknown key 'TITLE'; did "
                                 "you mean 'title'?"])):
        path.write_text(text + BODY, encoding="utf-8")
        assert check() == found
        assert fix() == found
        assert path.read_text(encoding="utf-8") == text + BODY


def test_fix_keeps_a_windows_files_bytes_but_the_key(kb):
    """Typora on Windows saves CRLF with a byte-order mark: the key changes, and the file is
    written without the BOM, with LF (as the check warns), every other byte kept."""
    path = kb / DOC
    text = "\ufeff" + (GOOD_FM.replace("category:", "Category:") + BODY).replace("\n", "\r\n")
    path.write_bytes(text.encode("utf-8"))
    assert f"{DOC}:3:1: fixed: Category -> category" in fix()
    assert path.read_bytes() == text.replace("Category:", "category:").removeprefix(
        "\ufeff").replace("\r\n", "\n").encode("utf-8")


@pytest.mark.parametrize(("alias", "value", "offset"), [
    ("date", "2024-05-01", False), ("created", '"2024-05-01 10:00"', False),
    ("updated", '"2026-03-14T09:30:00+08:00"', True), ("Date Created", "2024年5月1日", False)])
def test_an_editors_date_key_is_the_timestamp_meant(kb, alias, value, offset):
    """Obsidian's `date: 2024-05-01` (or `created:`, `updated:`) with no `timestamp` was two
    findings: "unknown key 'date'" with no hint, and "timestamp is missing". It is the
    timestamp meant; `--fix` renames the key and keeps the value the author wrote, whose
    offset kbtools cannot guess (the timestamp finding then says what to write)."""
    path = kb / DOC
    path.write_text(GOOD_FM.replace('timestamp: "2026-03-14T09:30:00+08:00"',
                                    f"{alias}: {value}") + BODY, encoding="utf-8")
    assert check() == [f"{DOC}:7:1: error: fm-unknown-key: unknown key {alias!r}; did you "
                       "mean 'timestamp'? (`kb check --fix` renames it)"]
    assert fix()[0] == f"{DOC}:7:1: fixed: {alias} -> timestamp"
    assert f"\ntimestamp: {value}\n" in path.read_text(encoding="utf-8")
    left = check()
    if offset:
        assert left == []
    else:
        assert len(left) == 1 and "fm-timestamp" in left[0] and "no offset" in left[0], left


def test_a_date_key_is_not_renamed_when_it_says_no_date_or_timestamp_is_there(kb):
    path = kb / DOC
    path.write_text(GOOD_FM.replace('timestamp: "2026-03-14T09:30:00+08:00"',
                                    "date: 上周") + BODY, encoding="utf-8")
    assert check() == [f"{DOC}:7:1: error: fm-unknown-key: unknown key 'date'; did you "
                       "mean 'timestamp'?"]
    fix()
    assert "\ndate: 上周\n" in path.read_text(encoding="utf-8")
    path.write_text(GOOD_FM.replace("verified: false", "verified: false\ncreated: 2024-05-01"
                                    "\nupdated: 2024-06-01") + BODY, encoding="utf-8")
    got = check()  # timestamp is written: created/updated are keys the schema lacks
    assert len(got) == 2 and all("the schema has no such key" in g for g in got), got
    path.write_text(GOOD_FM.replace('timestamp: "2026-03-14T09:30:00+08:00"',
                                    "created: 2024-05-01\nupdated: 2024-06-01") + BODY,
                    encoding="utf-8")
    got = check()  # two dates, one timestamp: which one is for the author to say
    assert got == [f"{DOC}:7:1: error: fm-unknown-key: unknown key 'created'; did you mean "
                   "'timestamp'?",
                   f"{DOC}:8:1: error: fm-unknown-key: unknown key 'updated'; did you mean "
                   "'timestamp'?"]
    fix()
    assert "created: 2024-05-01\nupdated: 2024-06-01" in path.read_text(encoding="utf-8")
