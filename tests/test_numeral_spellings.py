"""A value a question writes in Chinese numerals (三十天, 百分之九十, 二十至三十度) is also
searched as the knowledge mostly writes it, in Arabic digits (30 天, 90%, 20 至 30 度:
`digits.numeral_spellings`, `kbtools.query.expansion`): jieba makes 三十, 十天 and 三十天 of
三十天, terms the knowledge never writes, so the number that told the passages apart was
lost and "保留三十天的日志" ranked as "保留…的日志" does. 一 and 两 are values where they
count a unit of time or, for 两, a measure word (保留一天, 两个小时, 两台服务器)."""

from __future__ import annotations

import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kbtools.index.reader import open_index
from kbtools.query.digits import NOT_A_COUNT_AFTER, numeral_spellings, numeral_values
from kbtools.query.search import search
from tests.kbfixtures import built_pages

SECTIONS = [
    ("慢查询日志", "慢查询日志默认保留 30 天，过期的文件由后台任务清理。"),
    ("审计日志", "审计日志默认保留 7 天，过期的文件由后台任务清理。"),
    ("通用日志", "通用日志默认保留 90 天，过期的文件由后台任务清理。"),
    ("内存告警", "使用率超过 80% 时发出告警，请尽快处理。"),
    ("磁盘告警", "使用率超过 95% 时发出告警，请尽快处理。"),
    ("冷通道", "送风温度保持在 18 至 22 度，超出时检查空调。"),
    ("热通道", "回风温度保持在 30 至 35 度，超出时检查空调。"),
    ("节点宕机", "一个节点宕机后，集群会自动补齐副本。"),
    ("临时日志", "临时日志默认保留 1 天，过期的文件由后台任务清理。"),
    ("备份任务", "备份任务每次运行 2 个小时，超时后由调度器重试。"),
    ("巡检任务", "巡检任务每次运行 6 个小时，超时后由调度器重试。"),
    ("归档任务", "归档任务每次运行 9 分钟，超时后由调度器重试。"),
    ("小集群", "小集群部署 2 台服务器，适合测试环境使用。"),
    ("大集群", "大集群部署 5 台服务器，适合生产环境使用。"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(built_pages(tmp_path_factory.mktemp("numerals"), SECTIONS))


def test_values_in_chinese_numerals_are_respelled_in_arabic_digits():
    assert numeral_spellings("温度二十至三十度") == [("二十", "20"), ("三十度", "30度")]
    assert numeral_spellings("保留三十天的数据") == [("三十天", "30天")]
    assert numeral_spellings("超过百分之九十") == [("百分之九十", "90%")]
    assert numeral_spellings("十五点五天") == [("十五点五天", "15.5天")]
    assert numeral_spellings("二十五个节点") == [("二十五个", "25个")]
    # 一 and 两 (mostly no amount), ordinals, words of a numeral and a unit's character
    # meaning no amount, names holding numerals, numerals written otherwise: no value
    for text in ("一个节点宕机", "哪一年发布", "同一时间", "第三方应用", "第四张专辑", "十分灵活",
                 "建筑四周", "一氧化碳", "七星瓢虫", "二十四节气", "三七", "三四天", "泵"):
        assert numeral_spellings(text) == [], text


@pytest.mark.parametrize(("text", "spelled"), [
    ("保留一天", [("一天", "1天")]), ("运行两个小时", [("两个小时", "2个小时")]),
    ("一分钟后", [("一分钟", "1分钟")]), ("一个月", [("一个月", "1个月")]),
    ("两周内", [("两周", "2周")]), ("保存一年", [("一年", "1年")]), ("等两秒", [("两秒", "2秒")]),
    ("一小时", [("一小时", "1小时")]), ("两台服务器", [("两台", "2台")]),
    ("两块网卡", [("两块", "2块")]), ("两个副本", [("两个", "2个")]),
    ("三小时", [("三小时", "3小时")]), ("二十分钟", [("二十分钟", "20分钟")]),
    ("十分钟", [("十分钟", "10分钟")]), ("一分钟和三十天", [("一分钟", "1分钟"), ("三十天", "30天")]),
])
def test_one_and_two_counting_time_or_things_are_values(text, spelled):
    """一 and 两 before a unit of time the knowledge writes in digits (and 两 before a
    measure word); a unit of time of two characters after any numeral (三小时, 十分钟)."""
    assert numeral_spellings(text) == spelled


@pytest.mark.parametrize("text", [
    "一个节点", "一台服务器", "哪一年", "这一天", "那两天", "同一天", "某一天", "每一天", "第一天",
    "前一天", "上一年", "下一周", "有一天", "这两年", "一年级", "一周年", "一年半", "一个半小时",
    "两个半月", "一两天", "第二天", "一次", "唯一", "统一时间"])
def test_one_and_two_that_count_nothing_are_no_values(text):
    """A determiner, an ordinal or a word before them (哪一年, 这两天, 每一天, 前一天), a
    unit's character starting another word (一年级, 一周年), half more (一年半): no value."""
    assert numeral_spellings(text) == [], text


@pytest.mark.parametrize(("question", "arabic", "heading"), [
    ("哪种日志保留三十天", "哪种日志保留30天", "慢查询日志"),
    ("哪种日志保留七天", "哪种日志保留7天", "审计日志"),
    ("哪种日志保留九十天", "哪种日志保留90天", "通用日志"),
    ("使用率超过百分之九十五", "使用率超过95%", "磁盘告警"),
    ("温度三十至三十五度", "温度30至35度", "热通道"),
    ("哪种日志保留一天", "哪种日志保留1天", "临时日志"),
    ("哪个任务每次运行两个小时", "哪个任务每次运行2个小时", "备份任务"),
    ("哪个集群部署两台服务器", "哪个集群部署2台服务器", "小集群"),
])
def test_a_value_in_chinese_numerals_finds_what_the_digits_find(index, question, arabic,
                                                                 heading):
    """The passages differ only in their numbers: BM25 ranks them for the numeral question
    as for the digits, and so does BM25's list within a hybrid search (the question's
    vector is its own: 三十天 is not 30天 to the embedding model)."""
    res = search(index, question, k=3, mode="bm25")
    digits = search(index, arabic, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == heading, \
        [r.title for r in res.results]
    assert [r.title for r in res.results] == [r.title for r in digits.results]
    written = numeral_spellings(question)
    assert written and all(w not in res.filters.unknown_terms for w, _ in written)
    assert any(e["from"] == "spelling" and e["term"] == written[-1][0]
               for e in res.filters.expanded or ()), res.filters.expanded
    hybrid = search(index, question, k=8, mode="hybrid")
    assert not hybrid.no_answer
    assert next(r for r in hybrid.results if r.title == heading).why["bm25_rank"] == 1


def test_an_article_or_a_number_the_knowledge_never_writes_is_not_respelled(index):
    for q in ("一个节点宕机怎么办", "保留四十天的日志"):  # (no chunk writes 40)
        res = search(index, q, k=3)
        assert not any(e["from"] == "spelling" for e in res.filters.expanded or ()), q
    assert search(index, "一个节点宕机怎么办", k=1).results[0].title == "节点宕机"


NUMERALS = "零〇一二两三四五六七八九十百千万点"
_PIECES = st.sampled_from(["一", "两", "三", "十", "二十", "个", "天", "小时", "分钟", "周", "年",
                           "月", "台", "半", "级", "百分之", "哪", "这", "每", "第", "前", "保留", "节点",
                           "至", "和", " ", "，"])


@settings(max_examples=600)
@given(st.lists(_PIECES, max_size=10).map("".join))
@example("三个十一").via("a numeral after a measure word was read as the first one's unit")
@example("哪一天一天").via("the respelled 一天 is the second, not the 一天 of 哪一天")
def test_each_respelled_value_is_written_in_the_question(text):
    """What is respelled is the question's own text, in order, its number in digits and its
    unit kept; 一 and 两 never after a word that makes them no count."""
    at = 0
    for written, arabic in numeral_spellings(text):
        found = text.find(written, at)
        alone = written[0] in "一两" and written[1:2] not in NUMERALS  # 一 or 两 alone
        while alone and found > 0 and text[found - 1] in NOT_A_COUNT_AFTER:
            found = text.find(written, found + 1)  # 哪一天一天: the second 一天 is respelled
        assert found >= at, (text, written)
        at = found + len(written)
        number = re.match(r"\d+(?:\.\d+)?", arabic)
        assert number, (text, arabic)
        unit = arabic[number.end():]
        if written.startswith("百分之"):  # 百分之九十: 90%
            unit = unit.removeprefix("%")
        assert written.endswith(unit), (text, written, arabic)  # its unit as written
        if written[0] in "一两" and written[1:2] not in NUMERALS:  # 一 or 两 alone
            assert text[found - 1:found] not in NOT_A_COUNT_AFTER, (text, written)


@pytest.mark.parametrize("text, spans", [
    ("三个十一", [(0, 2), (2, 4)]),  # 三个, then 十一: 十 is no unit of 三
    ("三 十", [(0, 1), (2, 3)]),
    ("三个月", [(0, 3)]),
    ("八十 度", [(0, 4)]),
])
def test_a_numeral_is_no_unit_of_the_numeral_before_it(text, spans):
    assert numeral_values(text) == spans
    starts = [s for s, _ in spans]
    assert all(e <= s for (_, e), s in zip(spans, starts[1:], strict=False))  # no overlap
