"""A section named as people write it: its number in any script, its heading with or
without the number, in Chinese and English numbering alike."""

from __future__ import annotations

import pytest

from kbtools.markdown.heading_paths import (
    heading_parts,
    path_matches,
    section_number,
    split_heading_path,
)

PATH = ("Pump manual", "Chapter 5 Fault codes")


@pytest.mark.parametrize("heading, number", [
    ("4.3 药剂选择", "4.3"), ("第5章 施药", "5"), ("第５章 施药", "5"), ("４．１ 概述", "4.1"),
    ("Chapter 5 Fault codes", "5"), ("Section 5.2 Overview", "5.2"), ("§ 3 Scope", "3"),
    ("Fault codes", ""), ("2024 年报", "2024"),
])
def test_a_headings_number_is_read_in_ascii_digits(heading, number):
    assert section_number(heading) == number


@pytest.mark.parametrize("wanted", ["Fault codes", "fault codes", "5", "Chapter 5",
                                    "section 5", "§ 5", "Chapter 5 Fault codes", "５"])
def test_an_english_numbered_heading_is_named_with_or_without_its_number(wanted):
    assert path_matches(split_heading_path(wanted), None, PATH)


@pytest.mark.parametrize("wanted", ["Fault", "6", "Chapter 6", "codes"])
def test_other_names_do_not_name_it(wanted):
    assert not path_matches(split_heading_path(wanted), None, PATH)


ZH_PATH = ("两种药剂", "氰烯菌酯", "3.2 注意事项")


@pytest.mark.parametrize("wanted, path", [
    # '＞' as a Chinese input method types '>', spaced or not, joins a path's headings
    ("氰烯菌酯＞3.2 注意事项", ZH_PATH), ("氰烯菌酯 ＞ 注意事项", ZH_PATH),
    ("两种药剂＞氰烯菌酯＞3.2", ZH_PATH),
    # and a heading holding one is still named by its whole text, or with ASCII '>'
    ("小结：温度＞20℃时", ("两种药剂", "小结：温度＞20℃时")),
    ("两种药剂 ＞ 小结：温度＞20℃时", ("两种药剂", "小结：温度＞20℃时")),
    ("小结:温度>20℃时", ("两种药剂", "小结：温度＞20℃时")),
    # a numbered heading typed without the space after its number
    ("3.2注意事项", ZH_PATH), ("氰烯菌酯 > 3.2注意事项", ZH_PATH), ("2024年报", ("2024 年报",)),
])
def test_a_heading_path_typed_with_a_chinese_input_method_names_its_section(wanted, path):
    parts, seps = heading_parts(wanted)
    assert path_matches(parts, seps, path)


@pytest.mark.parametrize("wanted", ["戊唑醇＞注意事项", "3.2注意", "32注意事项", "小结：温度＞20"])
def test_what_names_another_section_does_not_name_it(wanted):
    parts, seps = heading_parts(wanted)
    assert not path_matches(parts, seps, ZH_PATH)


def test_a_results_heading_path_list_holding_a_full_width_sign_still_names_its_section():
    """A search result's `heading_path` passed back as a list, one of whose headings holds
    '＞' (小结：温度＞20℃时), names that section whole, as the list's own parts do."""
    path = ("两种药剂", "小结：温度＞20℃时")
    parts, seps = heading_parts(list(path))
    assert path_matches(parts, seps, path, whole=True)
    parts, seps = heading_parts(["小结：温度＞20℃时"])
    assert path_matches(parts, seps, path)


SCAB = ("小麦赤霉病监测与防控操作规程", "3. 发病风险判定", "3.2 风险等级判定表")
MANUAL = ("Pump manual", "2 Maintenance", "2.1 Oil change")


@pytest.mark.parametrize("wanted, path", [
    ("3.2节", SCAB), ("3.2 节", SCAB), ("3.2.", SCAB), ("3.2. 风险等级判定表", SCAB),
    ("第3.2节 风险等级判定表", SCAB), ("3.2 Risk level table", SCAB),
    ("Section 3.2: Risk level table", SCAB), ("3 Risk assessment > 3.2 Risk level table", SCAB),
    ("2.1 换油", MANUAL), ("第2.1节 更换机油", MANUAL), ("2.1节", MANUAL),
])
def test_a_section_is_named_by_its_number_with_words_in_the_other_language(wanted, path):
    """An agent answering in English read a Chinese manual's section as "3.2 Risk level
    table" (its heading path put into English), and "3.2节" as Chinese prose writes a
    section's number: both were "no section". The number names the section with the
    heading's own words, with none, or with words in the other script."""
    assert path_matches(*heading_parts(wanted), path)


@pytest.mark.parametrize("wanted, path", [
    ("3.2 施药步骤", SCAB), ("3.3 Risk level table", SCAB), ("3.1节", SCAB),
    ("2.1 Filter change", MANUAL), ("2.2 换油", MANUAL),
])
def test_a_number_with_other_words_of_the_headings_own_script_names_no_section(wanted, path):
    """Words of the heading's own language that are not its words, or another number, name
    another section: no match (the read lists the sections)."""
    assert not path_matches(*heading_parts(wanted), path)
