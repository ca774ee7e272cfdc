"""Mermaid timelines, ER diagrams, journeys, Gantt charts and mind maps (Obsidian and Typora
draw them all from a ```mermaid fence) are indexed by the words a reader searches: their
title, sections, periods and events, entities and attributes, tasks and actors, node texts;
never their settings (`dateFormat`, `excludes weekends`), task ids, dates, scores, attribute
types, keys or cardinalities, which a flowchart's reading made nodes of (session 39)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.build.chunk import chunk_document
from kbtools.corpus import parse_source
from kbtools.markdown.mermaid import mermaid_graph, mermaid_text, mermaid_title
from tests.kbfixtures import GOOD_FM
from tests.test_chunk import check_invariants

TIMELINE = """timeline
    title 小麦赤霉病防治时间线
    section 播种期
        10月上旬 : 拌种处理 : 选用抗病品种
    section 抽穗扬花期
        4月中旬 : 第一次喷药
                : 戊唑醇 10:30 前施药
    2024 : Release 2.0 : see http://example.com/notes
"""
ER = """erDiagram
    CUSTOMER ||--o{ ORDER : places
    ORDER ||--|{ "Line Item" : contains
    设备 }|..|{ 故障记录 : "产生"
    CUSTOMER {
        string name "客户名称"
        varchar(32) custNumber PK, FK
    }
    p[Pump Station] {
        int 额定压力 "MPa"
    }
    CUSTOMER one or more to zero or more p : 维护
"""
JOURNEY = """journey
    title My working day
    section Go to work
      Make tea: 5: Me
      Do work: 1: Me, Cat
    section 回家
      开车回家: 2: 我, 同事
"""
GANTT = """gantt
    title 液压泵站检修计划
    dateFormat  YYYY-MM-DD
    axisFormat %m-%d
    excludes    weekends
    todayMarker off
    section 拆卸
    排空液压油           :done,    des1, 2014-01-06,2014-01-08
    Remove the main pump :active,  des2, 2014-01-09, 3d
    section Acceptance
    Pressure test in the critical line :crit, after des2, 24h
"""
MINDMAP = """mindmap
  root((病害防治))
    农业防治
      轮作倒茬
      ::icon(fa fa-book)
    化学防治
      [戊唑醇]
      id1{{Spray the field}}
      id2)Cloud cover(
      id3))Bang((
    Pen and paper
    :::urgent
"""


def test_timeline_reads_sections_periods_and_events():
    nodes, edges = mermaid_graph(TIMELINE)
    assert nodes == ("播种期", "10月上旬", "拌种处理", "选用抗病品种", "抽穗扬花期", "4月中旬",
                     "第一次喷药", "戊唑醇 10:30 前施药", "2024", "Release 2.0",
                     "see http://example.com/notes")
    assert ("10月上旬", "选用抗病品种", "") in edges
    assert ("4月中旬", "戊唑醇 10:30 前施药", "") in edges  # a continued period's event
    assert mermaid_title(TIMELINE) == "小麦赤霉病防治时间线"


def test_er_diagram_reads_entities_attributes_and_relationships():
    nodes, edges = mermaid_graph(ER)
    assert edges == (("CUSTOMER", "ORDER", "places"), ("ORDER", "Line Item", "contains"),
                     ("设备", "故障记录", "产生"), ("CUSTOMER", "Pump Station", "维护"))
    assert nodes == ("CUSTOMER", "ORDER", "Line Item", "设备", "故障记录", "name", "客户名称",
                     "custNumber", "Pump Station", "额定压力", "MPa")
    text = mermaid_text(ER)
    for syntax in ("||", "o{", "string", "varchar", "PK", " p\n", "one or more"):
        assert syntax not in text, syntax


def test_journey_reads_tasks_and_actors_never_scores():
    nodes, edges = mermaid_graph(JOURNEY)
    assert nodes == ("Go to work", "Make tea", "Me", "Do work", "Cat", "回家", "开车回家", "我",
                     "同事")
    assert edges == ()
    assert mermaid_text(JOURNEY).split("\n")[0] == "My working day"


def test_gantt_reads_sections_and_tasks_never_settings():
    nodes, _ = mermaid_graph(GANTT)
    assert nodes == ("拆卸", "排空液压油", "Remove the main pump", "Acceptance",
                     "Pressure test in the critical line")
    text = mermaid_text(GANTT)
    assert text.split("\n")[0] == "液压泵站检修计划"
    for setting in ("dateFormat", "YYYY", "excludes", "weekends", "todayMarker", "des1", "2014",
                    "done", ":crit", "axisFormat"):
        assert setting not in text, setting


def test_mindmap_reads_whole_node_texts_without_shapes():
    nodes, _ = mermaid_graph(MINDMAP)
    assert nodes == ("病害防治", "农业防治", "轮作倒茬", "化学防治", "戊唑醇", "Spray the field",
                     "Cloud cover", "Bang", "Pen and paper")


@pytest.mark.parametrize("source", [
    "---\ntitle: 保养计划\n---\ngantt\n  dateFormat YYYY\n  换油 :a1, 2024-01-01, 1d\n",
    "gantt\n  title 保养计划\n  换油 :a1, 2024-01-01, 1d\n"
    "  accDescr {\n    a long description\n  }\n  accTitle: 无障碍标题\n",
])
def test_a_title_from_settings_or_its_line_and_no_accessibility_text(source):
    assert mermaid_title(source) == "保养计划"
    assert mermaid_graph(source) == (("换油",), ())


@pytest.mark.parametrize(("source", "words", "syntax"), [
    (GANTT, ["液压泵站检修计划", "排空液压油", "Remove the main pump"], ["dateFormat", "des1", "2014"]),
    (ER, ["CUSTOMER → ORDER（places）", "客户名称", "额定压力"], ["||--o{", "varchar", "PK"]),
    (JOURNEY, ["Make tea", "开车回家", "同事"], [": 5:", ": 2:"]),
    (TIMELINE, ["10月上旬 → 拌种处理"], ["section 播种期"]),
    (MINDMAP, ["Spray the field", "Cloud cover"], ["::icon", "{{", "id1"]),
])
def test_a_diagram_chunk_embeds_its_words_and_context_never_its_syntax(source, words, syntax):
    rel = "equipment/plan.md"
    text = (GOOD_FM + "\n# 检修\n\n下图是计划安排。\n\n```mermaid\n" + source
            + "```\n\n以上安排需经站长批准。\n")
    src = parse_source(text, Path("/r") / rel, rel)
    chunks = chunk_document(src)
    check_invariants(src, chunks)
    [diagram] = [c for c in chunks if c.kind == "mermaid"]
    assert "```mermaid" in diagram.text  # the reader still sees the diagram as written
    for word in [*words, "下图是计划安排", "以上安排需经站长批准"]:
        assert word in diagram.embed_text, word
    for written in syntax:
        assert written not in diagram.embed_text, written


def test_a_flowchart_chunk_still_embeds_its_lines():
    rel = "equipment/flow.md"
    text = (GOOD_FM + "\n# 流程\n\n启动顺序如下。\n\n```mermaid\ngraph TD\n  A[启动泵] --> B[检查压力]\n```\n"
            "\n压力不足时停机。\n")
    src = parse_source(text, Path("/r") / rel, rel)
    [diagram] = [c for c in chunk_document(src) if c.kind == "mermaid"]
    assert "启动泵 → 检查压力" in diagram.embed_text and "A[启动泵]" in diagram.embed_text


@pytest.mark.parametrize(("source", "nodes", "edges"), [
    ('graph TD\n A["启动<br>液压泵"] -->|压力<br/>正常| B(运行)\n',
     ("启动 液压泵", "运行"), (("启动 液压泵", "运行", "压力 正常"),)),
    ('flowchart LR\n  A["`**化学**防治`"] --> B[喷药]\n',
     ("化学防治", "喷药"), (("化学防治", "喷药", ""),)),
    ("timeline\n  10月 : 拌种<BR>处理\n", ("10月", "拌种 处理"), (("10月", "拌种 处理", ""),)),
    ('mindmap\n  root((病害<br/>防治))\n    A["`**化学**防治`"]\n', ("病害 防治", "化学防治"), ()),
])
def test_a_label_reads_as_the_diagram_shows_it(source, nodes, edges):
    """Mermaid labels break lines with `<br>` and write Markdown strings (`"`**粗**`"`):
    the `<br>` and the marks were embedded as words (`启动<br>液压泵`, `**化学**防治`)."""
    assert mermaid_graph(source) == (nodes, edges)
