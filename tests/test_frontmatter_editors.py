"""Front matter as Obsidian and Typora users write it: each problem one line naming the file,
the line and what to write, or accepted as the author meant.

Obsidian writes tags inline as `#迁飞性害虫`; in YAML a `#` after a blank starts a comment, so
`tags: #迁飞性害虫` left tags empty ("expected array, got NoneType") and a quoted
`"#迁飞性害虫"` was indexed with its `#`, missed by `--where tags=迁飞性害虫` without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from tests.kbfixtures import GOOD_FM

HEAD = GOOD_FM.removesuffix("---\n")  # lines 1-8; a line added here is line 9
BODY = "---\n# 稻飞虱\n\n迁飞性害虫。\n"



def findings(kb: Path, front: str, *args: str) -> list[str]:
    (kb / "knowledge" / "a.md").write_text(HEAD + front + BODY, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", *args])
    return res.stdout.splitlines()


def test_a_quoted_obsidian_tag_is_named_at_its_line(kb):
    assert findings(kb, 'tags: ["#迁飞性害虫", 水稻, "#1", "#a b"]\n') == [
        "knowledge/a.md:9:1: warning: fm-tag-hash: tags: '#迁飞性害虫' keeps Obsidian's '#' "
        "in the index, so facets and routing miss it: write "
        "'迁飞性害虫' (Obsidian reads it without '#' the same)"]  # "#1", "#a b": no tags
    got = findings(kb, 'tags:\n  - 水稻\n  - "#迁飞性害虫"\n')
    assert len(got) == 1 and got[0].startswith("knowledge/a.md:11:1: warning: fm-tag-hash")


def test_a_tag_yaml_reads_as_a_comment_says_so(kb):
    assert findings(kb, "tags: #迁飞性害虫 #水稻\n") == [
        "knowledge/a.md:9:7: error: fm-type: tags: '#迁飞性害虫 #水稻' after 'tags:' is a "
        "YAML comment, so tags is empty: write tags: [迁飞性害虫, 水稻] (Obsidian's #tag?)"]
    assert findings(kb, "tags:\n  - 水稻\n  - #迁飞性害虫\n") == [
        "knowledge/a.md:11:5: error: fm-type: tags.1: '#迁飞性害虫' after '-' is a YAML "
        "comment, so the item is empty (Obsidian's #tag?): write - 迁飞性害虫"]
    got = findings(kb, "tags: [水稻, #迁飞性害虫]\n")
    assert len(got) == 1 and got[0].startswith(
        "knowledge/a.md:9:12: error: yaml-syntax: tags: a '#' here starts a YAML comment, "
        "so the rest of the line is not read (Obsidian's #tag?): write the items without "
        "'#', [水稻, 迁飞性害虫] (")
    assert findings(kb, "summary: #1 pest\n") == [
        "knowledge/a.md:9:10: error: fm-type: summary: '#1 pest' after 'summary:' is a YAML "
        "comment, so summary is empty: write summary: \"#1 pest\""]


def test_a_comment_after_a_key_with_a_list_below_is_fine(kb):
    assert findings(kb, "tags: # 标签\n  - 水稻\n") == []
    assert findings(kb, "tags: # 标签\n  - 水稻\n", "--no-schema") == []


def test_without_the_schema_a_tag_yaml_reads_as_a_comment_still_says_so(kb):
    """`kb check --no-schema` said nothing of `tags: #迁飞性害虫`: only the schema's type
    error found the empty value. Nor of a timestamp that is no real date."""
    assert findings(kb, "tags: #迁飞性害虫 #水稻\n", "--no-schema") == [
        "knowledge/a.md:9:7: error: fm-type: tags: '#迁飞性害虫 #水稻' after 'tags:' is a "
        "YAML comment, so tags is empty: write tags: [迁飞性害虫, 水稻] for a list of tags "
        "(Obsidian's #tag?), or tags: \"#迁飞性害虫 #水稻\" for text"]
    assert findings(kb, "tags:\n  - 水稻\n  - #迁飞性害虫\n", "--no-schema") == [
        "knowledge/a.md:11:5: error: fm-type: tags.1: '#迁飞性害虫' after '-' is a YAML "
        "comment, so the item is empty (Obsidian's #tag?): write - 迁飞性害虫"]
    # a comment as YAML writers write one (a blank after '#') is no mistake without a schema
    assert findings(kb, "summary: # to do\n", "--no-schema") == []
    got = findings(kb, "valid_until: 2026-02-30\n", "--no-schema")
    assert got == ["knowledge/a.md:9:1: error: fm-value: valid_until: '2026-02-30' is not a "
                   "real date: day is out of range for month: write valid_until: "
                   "\"YYYY-MM-DD\" with a real date"]


def test_a_list_written_as_one_string_says_how_to_write_it(kb):
    assert findings(kb, "tags: 迁飞性害虫，水稻\n") == [
        "knowledge/a.md:9:1: error: fm-type: tags: expected array, got str (write a list: "
        "tags: [迁飞性害虫, 水稻]) (`kb check --fix` does)"]


@pytest.mark.parametrize(("written", "iso"), [
    ("2026/03/19", "2026-03-19"), ('"2026年3月19日"', "2026-03-19"), ("2026.3.9", "2026-03-09")])
def test_a_date_written_another_way_is_one_finding_saying_how_to_write_it(kb, written, iso):
    """`valid_until: 2026/03/19` gave two findings, "not a date" and "not a real date:
    Invalid isoformat string"."""
    assert findings(kb, f"valid_until: {written}\n") == [
        f"knowledge/a.md:9:1: error: fm-value: valid_until: {written.strip(chr(34))!r} is not a "
        f"date: write valid_until: \"{iso}\" (`kb check --fix` does)"]


def test_yaml_errors_an_editor_habit_causes_say_what_to_write(kb):
    (kb / "knowledge" / "a.md").write_text(
        GOOD_FM.replace("title: Generated", "title: 注意: 断电后检修") + BODY[4:],
        encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:2:10: error: yaml-syntax: mapping values are not allowed in this "
        "context: a ': ' inside the value of 'title'; quote the value: title: \"注意: 断电后检修\" "
        "(`kb check --fix` does)"]
    assert findings(kb, "tags:\n\t- 水稻\n") == [
        "knowledge/a.md:10:1: error: yaml-syntax: found character that cannot start any token: "
        "indent with spaces, not a tab (`kb check --fix` does)"]
    text = HEAD.replace("verified: false", "verified: 是")
    (kb / "knowledge" / "a.md").write_text(text + BODY, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:8:1: error: fm-type: verified: expected boolean, got str ('是' is text "
        "to YAML, not a boolean: write verified: true)"]


@pytest.mark.parametrize(("line", "said"), [
    ("title：稻飞虱", "title: fullwidth colon '：' after the key"),
    ("title:\u00a0稻飞虱", "title: no-break space '\\xa0' after the key")])
def test_a_key_chinese_input_separates_oddly_is_named_on_its_own_line(kb, line, said):
    """YAML read `title：稻飞虱` as text running on into the next line and named that line."""
    (kb / "knowledge" / "a.md").write_text(
        GOOD_FM.replace("title: Generated", line) + BODY[4:], encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        f"knowledge/a.md:2:6: error: yaml-syntax: {said}, which YAML does not read as ': ': "
        "write title: 稻飞虱 (mapping values are not allowed in this context) "
        "(`kb check --fix` does)"]


def test_long_empty_indented_and_spaced_values_say_what_is_wrong(kb):
    long_title = GOOD_FM.replace("title: Generated", "title: " + "长" * 5000)
    (kb / "knowledge" / "a.md").write_text(long_title + BODY[4:], encoding="utf-8")
    got = CliRunner().invoke(main, ["check", "--no-cache"]).stdout.splitlines()
    assert len(got) == 1 and got[0].endswith(  # the limit named: it was not
        "…' (5000 characters) is too long (at most 200 characters)")
    empty = GOOD_FM.replace("title: Generated", "title:")
    (kb / "knowledge" / "a.md").write_text(empty + BODY[4:], encoding="utf-8")
    assert CliRunner().invoke(main, ["check", "--no-cache"]).stdout.splitlines() == [
        "knowledge/a.md:2:1: error: fm-type: title: expected string, got nothing (the key is "
        "empty: write title: <text>)"]
    assert findings(kb, "  summary: x\n") == [
        "knowledge/a.md:9:10: error: yaml-syntax: mapping values are not allowed in this "
        "context: 'summary' is indented under a key that has a value: start the line at its "
        "first column (`kb check --fix` does)"]
    spaced = HEAD.replace('"2026-03-14T09:30:00+08:00"', "2026-03-14 09:30:00+08:00")
    (kb / "knowledge" / "a.md").write_text(spaced + BODY, encoding="utf-8")
    assert CliRunner().invoke(main, ["check", "--no-cache"]).stdout.splitlines() == [
        "knowledge/a.md:7:1: error: fm-timestamp: timestamp: '2026-03-14 09:30:00+08:00' is "
        "not an ISO 8601 timestamp with offset: write timestamp: \"2026-03-14T09:30:00+08:00\" "
        "(`kb check --fix` does)"]


def test_a_misspelt_required_key_is_one_finding(kb):
    """`categroy:` said "unknown key 'categroy'; did you mean 'category'?" and "required key
    'category' is missing" too: two findings for one typo."""
    (kb / "knowledge" / "a.md").write_text(
        GOOD_FM.replace("title:", "Title:").replace("category:", "categroy:") + BODY[4:],
        encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:2:1: error: fm-unknown-key: unknown key 'Title'; did you mean 'title'? "
        "(`kb check --fix` renames it)",
        "knowledge/a.md:3:1: error: fm-unknown-key: unknown key 'categroy'; did you mean "
        "'category'?"]
    (kb / "knowledge" / "a.md").write_text(GOOD_FM.replace("title: Generated\n", "")
                                           + BODY[4:], encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])  # no typo: missing it is
    assert res.stdout.splitlines() == [
        "knowledge/a.md:2:1: error: fm-missing-key: required key 'title' is missing"]


def test_verified_without_a_reviewer_and_repeated_tags_say_what_to_write(kb):
    assert findings(kb, "tags: [水稻, 稻瘟病, 水稻, 稻瘟病]\n") == [
        "knowledge/a.md:9:1: error: fm-value: tags: '水稻', '稻瘟病' listed more than once: "
        "keep one of each"]
    (kb / "knowledge" / "a.md").write_text(
        GOOD_FM.replace("verified: false", "verified: true") + BODY[4:], encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:8:1: error: fm-verified-without-reviewer: verified: true needs "
        "verified_by and verified_at: add verified_by: <the reviewer's email> and "
        "verified_at: \"<when reviewed, e.g. 2026-03-14T09:30:00+08:00>\", or write "
        "verified: false until it is reviewed"]


def test_a_byte_order_mark_says_how_to_save_the_file(kb):
    (kb / "knowledge" / "a.md").write_bytes(
        b"\xef\xbb\xbf" + (GOOD_FM + BODY[4:]).replace("\n", "\r\n").encode())
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:1:1: warning: encoding-bom: file starts with a UTF-8 byte-order mark: "
        "save it as UTF-8 without BOM (`kb check --fix` removes it)",
        "knowledge/a.md:1:1: warning: encoding-crlf: Windows (CRLF) or CR line endings; use LF "
        "(`kb check --fix` writes LF)"]


def test_a_list_where_text_belongs_and_an_unknown_key_say_what_to_write(kb):
    """`author: [a, b]` said "expected string, got list" and `date:` said "unknown key
    'date'": neither said what to do."""
    assert findings(kb, "date: 2026-03-14\n") == [
        "knowledge/a.md:9:1: error: fm-unknown-key: unknown key 'date'; the schema has no "
        "such key: delete it, or declare it in schemas/frontmatter.schema.json (the base "
        "schema lists every key; a category's schema may then require it)"]
    (kb / "knowledge" / "a.md").write_text(GOOD_FM.replace(
        "author: alice@example.org", "author: ['张三: 植保站', bob@example.org]") + BODY[4:],
        encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:6:1: error: fm-type: author: expected string, got list (write one "
        "text: author: \"张三: 植保站, bob@example.org\")"]
    (kb / "knowledge" / "a.md").write_text(GOOD_FM.replace(
        "author: alice@example.org", "author:\n  - 张三\n  - 李四") + BODY[4:], encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:6:1: error: fm-type: author: expected string, got list (write one "
        "text: author: 张三, 李四)"]


def lines_of(kb: Path, text: str) -> list[str]:
    (kb / "knowledge" / "a.md").write_text(text, encoding="utf-8")
    return CliRunner().invoke(main, ["check", "--no-cache", "--no-schema"]).stdout.splitlines()


@pytest.mark.parametrize(("written", "said"), [
    ('title: "稻瘟病', "2:8: error: yaml-syntax: a quote opened here is never closed: end the "
                      "value with the same quote: title: \"稻瘟病\" (`kb check --fix` does)"),
    ("tags: [水稻, 稻瘟病", "2:7: error: yaml-syntax: '[' opened here is never closed: end the "
                        "value with ']': tags: [水稻, 稻瘟病] (`kb check --fix` does)"),
    ("title: 'Farmer's guide'", "2:16: error: yaml-syntax: did not find expected key: the ' "
                                "inside the value of 'title' ends it early; write title: "
                                "\"Farmer's guide\" (`kb check --fix` does)"),
    ('title: "say "hi" now"', "2:14: error: yaml-syntax: did not find expected key: the \" "
                              "inside the value of 'title' ends it early; write title: "
                              "'say \"hi\" now' (`kb check --fix` does)")])
def test_a_quote_or_bracket_left_open_is_named_where_it_opens(kb, written, said):
    """YAML named the end of the front matter ("found unexpected end of stream", two lines
    below) or "did not find expected key", not the value to mend."""
    assert lines_of(kb, f"---\n{written}\nsource: x\n---\n# A\n") == [f"knowledge/a.md:{said}"]
    assert lines_of(kb, "---\ntitle: 'it''s fine'\n---\n# A\n") == []


def test_a_front_matter_never_closed_says_where_to_close_it(kb):
    assert lines_of(kb, "---\ntitle: 稻瘟病\nsource: x\n# 稻瘟病\n\ntext\n") == [
        "knowledge/a.md:1:1: error: fm-unterminated: front matter is never closed by ---: add "
        "a line --- before line 4, where it ends"]
    assert lines_of(kb, "---\ntitle: 稻瘟病\n") == [
        "knowledge/a.md:1:1: error: fm-unterminated: front matter is never closed by ---: add "
        "a line --- after line 2, where it ends"]



def test_a_value_the_schema_does_not_allow_names_the_one_meant(kb):
    """`status: Draft` said "is not one of [...]" (the list holds 'draft'), and
    `verified_by: 李四` said "is too short" without a word of what the key wants."""
    assert findings(kb, "status: Draft\n") == [
        "knowledge/a.md:9:1: error: fm-value: status: 'Draft' is not one of ['proposed', "
        "'accepted', 'superseded', 'deprecated', 'draft']; did you mean 'draft'?"]
    assert findings(kb, "urgency: 高\n") == [
        "knowledge/a.md:9:1: error: fm-value: urgency: '高' is not one of ['low', 'normal', "
        "'high', 'critical']"]
    (kb / "knowledge" / "a.md").write_text(GOOD_FM.replace("verified: false", (
        'verified: true\nverified_by: 李四\nverified_at: "2026-03-15T09:00:00+08:00"'))
        + BODY[4:], encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:9:1: error: fm-value: verified_by: '李四' is too short: write at least "
        "3 characters (the reviewer's email)"]


@pytest.mark.parametrize(("written", "meant"), [
    ("2024-05-01", "2024-05-01T00:00:00"), ("2024-05-01 10:00", "2024-05-01T10:00:00"),
    ('"2024-05-01T10:00:00"', "2024-05-01T10:00:00"), ("2024/5/1", "2024-05-01T00:00:00"),
    ("2024年5月1日", "2024-05-01T00:00:00")])
def test_a_timestamp_without_offset_is_shown_written_with_one(kb, written, meant):
    """Obsidian's templates write `date: 2024-05-01` (a date, no time, no offset), which
    `timestamp:` refuses; the finding showed 2026-03-14T09:30:00+08:00, not the author's own
    date written as the schema asks. The offset is the author's: kbtools cannot guess it."""
    text = HEAD.replace('"2026-03-14T09:30:00+08:00"', written)
    (kb / "knowledge" / "a.md").write_text(text + BODY, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        f"knowledge/a.md:7:1: error: fm-timestamp: timestamp: {written.strip(chr(34))!r} is "
        f"not an ISO 8601 timestamp with offset: it has no offset, which kbtools cannot guess: "
        f"write timestamp: \"{meant}+08:00\" with your time zone's offset (Z for UTC)"]


@pytest.mark.parametrize(("written", "said", "fixed"), [
    ("tags: [液压、检修]\n", "9:8: warning: fm-list-joined: tags: '液压、检修' is one item, its "
     "values joined by '、' (YAML splits a list at ',' only), so `--where tags=液压`, facets "
     "and routing miss it: write tags: [液压, 检修] (`kb check --fix` does)",
     "tags: [液压, 检修]\n"),
    ("crop: [小麦，玉米, 水稻]\n", "9:8: warning: fm-list-joined: crop: '小麦，玉米' is one item, "
     "its values joined by '，' (YAML splits a list at ',' only), so `--where crop=小麦`, "
     "facets and routing miss it: write crop: [小麦, 玉米, 水稻] (`kb check --fix` does)",
     "crop: [小麦, 玉米, 水稻]\n"),
    ("tags: [hydraulics；maintenance]  \n", "9:8: warning: fm-list-joined: tags: "
     "'hydraulics；maintenance' is one item, its values joined by '；' (YAML splits a list "
     "at ',' only), so `--where tags=hydraulics`, facets and routing miss it: write tags: "
     "[hydraulics, maintenance] (`kb check --fix` does)", "tags: [hydraulics, maintenance]  \n"),
    # a mark inside brackets parts nothing: the kinds of one value
    ("disease: [稻瘟病（叶瘟、穗颈瘟）、纹枯病]\n", "9:11: warning: fm-list-joined: disease: "
     "'稻瘟病（叶瘟、穗颈瘟）、纹枯病' is one item, its values joined by '、' (YAML splits a list at "
     "',' only), so `--where disease=稻瘟病（叶瘟、穗颈瘟）`, facets and routing miss it: write "
     "disease: [稻瘟病（叶瘟、穗颈瘟）, 纹枯病] (`kb check --fix` does)",
     "disease: [稻瘟病（叶瘟、穗颈瘟）, 纹枯病]\n"),
    # a block list: said, each value's `- ` line left to the author
    ("aliases:\n  - 稻瘟病\n  - 油路，液压油路\n", "11:5: warning: fm-list-joined: aliases: "
     "'油路，液压油路' is one item, its values joined by '，' (YAML splits a list at ',' only), "
     "so `--where aliases=油路`, facets and routing miss it: write aliases: [稻瘟病, 油路, "
     "液压油路], or each on a `- ` line of its own", None),
    # split, a value would be listed twice: said, not fixed
    ("tags: [液压、检修, 液压]\n", "9:8: warning: fm-list-joined: tags: '液压、检修' is one "
     "item, its values joined by '、' (YAML splits a list at ',' only), so `--where tags=液压`, "
     "facets and routing miss it: write tags: [液压, 检修, 液压]", None)])
def test_a_list_item_joining_values_with_chinese_punctuation_is_named(kb, written, said, fixed):
    """`tags: [液压、检修]` (Chinese input's 、 or ， typed between values) was one tag,
    '液压、检修', that `--where tags=液压`, facets and routing never matched, and `kb check`
    said nothing."""
    assert findings(kb, written) == [f"knowledge/a.md:{said}"]
    before = (kb / "knowledge" / "a.md").read_text(encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    after = (kb / "knowledge" / "a.md").read_text(encoding="utf-8")
    if fixed is None:
        assert after == before
    else:
        assert after == HEAD + fixed + BODY
        assert "fixed:" in res.output
        assert CliRunner().invoke(main, ["check", "--no-cache"]).stdout == ""


@pytest.mark.parametrize("written", [
    "tags: [液压, 检修]\n", 'summary: "液压、检修"\n', "aliases: [稻瘟病（叶瘟、穗颈瘟）]\n",
    "requires_context: [先断电，再验电后开机。]\n",  # a sentence, not values
    "requires_context: [日均温在十五度以上的连续天数，以及这段时间里的降雨总量]\n",
    'tags: ["液压, 检修"]\n'])  # quoted with an ASCII comma: the author's one value
def test_values_and_prose_are_not_taken_for_joined_items(kb, written):
    assert findings(kb, written) == []


@pytest.mark.parametrize(("written", "line", "key", "said"), [
    ("tags: [液压]\nsummary: 检修\ntags: [检修]\n", 11, "tags",
     "with what both lines say (two lists as one: tags: [a, b])"),
    ("tags:\n  - 液压\ntags:\n  - 检修\n", 11, "tags",
     "with what both lines say (two lists as one: tags: [a, b])"),
    # a text or a boolean written twice was told to write a list too
    ("summary: Pump service\nsummary: Seal replacement\n", 10, "summary", "with the value meant"),
    ("verified: false\n", 9, "verified", "with the value meant")])
def test_a_key_written_twice_says_what_to_write(kb, written, line, key, said):
    """`duplicate key 'tags' (first on line 9)` said where, not what to do."""
    first = 8 if key == "verified" else 9
    assert findings(kb, written) == [
        f"knowledge/a.md:{line}:1: error: duplicate-key: duplicate key {key!r} (first on line "
        f"{first}): YAML holds one value per key, so the front matter is not read; write "
        f"{key!r} once, {said}"]


def test_an_empty_value_says_what_to_write_and_whether_the_line_may_go(kb):
    """`author:` said "expected string, got nothing (the key is empty)": not what to write,
    nor whether the key may simply be deleted."""
    text = HEAD.replace("author: alice@example.org", "author:").replace(
        "project: demo", "project:")
    (kb / "knowledge" / "a.md").write_text(
        text + "tags:\nsummary: \nverified_by:\n" + BODY, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", "--no-cache"])
    assert res.stdout.splitlines() == [
        "knowledge/a.md:4:1: error: fm-type: project: expected string, got nothing (the key "
        "is empty: write project: <text>)",  # the category requires it
        "knowledge/a.md:6:1: error: fm-type: author: expected string, got nothing (the key is "
        "empty: write author: <text>)",
        "knowledge/a.md:9:1: error: fm-type: tags: expected array, got nothing (the key is "
        "empty: write tags: [a, b], or delete the line)",
        "knowledge/a.md:10:1: error: fm-type: summary: expected string, got nothing (the key "
        "is empty: write summary: <text>, or delete the line)",
        "knowledge/a.md:11:1: error: fm-type: verified_by: expected string, got nothing (the "
        "key is empty: write verified_by: <the reviewer's email>, or delete the line)"]


@pytest.mark.parametrize(("written", "meant"), [
    ("tags: 液压 检修", "tags: [液压, 检修]"),  # Obsidian's tags, parted by spaces
    ("tags: hydraulics seals", "tags: [hydraulics, seals]"),
    ("tags: hydraulic pump, seals", "tags: [hydraulic pump, seals]"),  # a mark parts them
    ("aliases: 油路 检修", "aliases: [油路 检修]")])  # an alias may hold a space
def test_obsidians_tags_parted_by_spaces_are_its_tags(kb, written, meant):
    """`tags: 液压 检修` (Obsidian reads two tags: a tag holds no space) was told, and fixed,
    as one tag, `tags: [液压 检修]`."""
    key = written.split(":")[0]
    assert findings(kb, written + "\n") == [
        f"knowledge/a.md:9:1: error: fm-type: {key}: expected array, got str (write a list: "
        f"{meant}) (`kb check --fix` does)"]
    CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert (kb / "knowledge" / "a.md").read_text(encoding="utf-8") == HEAD + meant + "\n" + BODY


def test_obsidians_former_key_names_are_renamed_as_obsidian_renames_them(kb):
    """`alias:` and `tag:` (Obsidian before 1.4, which renames them itself) were "did you
    mean 'aliases'?" that `kb check --fix` left for the author."""
    assert findings(kb, "alias: 稻热病\ntag: [水稻]\n") == [
        "knowledge/a.md:9:1: error: fm-unknown-key: unknown key 'alias'; did you mean "
        "'aliases'? (`kb check --fix` renames it)",
        "knowledge/a.md:10:1: error: fm-unknown-key: unknown key 'tag'; did you mean 'tags'? "
        "(`kb check --fix` renames it)"]
    for _ in range(2):  # the key, then (YAML read one text) the list
        CliRunner().invoke(main, ["check", "--no-cache", "--fix"])
    assert (kb / "knowledge" / "a.md").read_text(encoding="utf-8") == \
        HEAD + "aliases: [稻热病]\ntags: [水稻]\n" + BODY
    # not where the key meant is written too: which value is meant is the author's call
    got = findings(kb, "tag: [水稻]\ntags: [稻瘟病]\n")
    assert got == ["knowledge/a.md:9:1: error: fm-unknown-key: unknown key 'tag'; did you "
                   "mean 'tags'?"]
