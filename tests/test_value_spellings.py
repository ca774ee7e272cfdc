"""A value the knowledge writes one way and a question another way (M8×1.25 / M8x1.25 /
M8X1.25 …) finds its passage through BM25 alone: both spellings are the same tokens
(`kbtools.index.tokenize`, `kbtools.index.spellings`), in chunks and in questions alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.kbfixtures import built_pages

# (title, body): each passage writes its value in one spelling; the others are near misses
PASSAGES = [
    ("Drain plug", "The drain plug thread is M8×1.25; replace its copper washer."),
    ("Cover studs", "The cover is held by M80 studs and an M8 eye bolt with a 2.5 pitch."),
    ("Filter housing", "The filter housing thread is M20x1.5; hand tight plus a quarter turn."),
    ("Lettuce nutrient solution", "Keep the lettuce nutrient solution at pH 6.5 and EC 1.2."),
    ("Tomato nutrient solution", "Keep the tomato nutrient solution at pH 5.8 and EC 2.5."),
    ("Cabin air filter", "The cabin air filter stops PM2.5 dust; change it every season."),
    ("Spray tank", "The spray tank holds 1,000 litres of mixed solution."),
    ("Rinse tank", "The rinse tank holds 100 litres of clean water for 000 series nozzles."),
    ("储水罐", "储水罐容量 2500 升，每季度清洗一次。"),
    ("控制器固件三月版", "控制器固件于 2026年3月19日 发布，修复了断线后不重连的问题。"),
    ("控制器固件二月版", "控制器固件于 2026年2月19日 发布，增加了远程升级。"),
    ("Controller firmware April", "Controller firmware released 2026-04-02 fixes the "
                                  "watchdog reset."),
    ("Controller firmware May", "Controller firmware released 2026-05-02T08:00 adds logging."),
    ("液压油温", "液压油箱油温不应超过 60 摄氏度，超过时检查冷却器。"),
    ("Bus terminator", "The field bus needs a 120Ω terminating resistor at each end."),
    ("Pull-up", "Fit a 4.7 kΩ pull-up resistor on the signal line."),
    ("液压滤芯", "液压滤芯过滤精度 10μm，每 500 小时更换。"),
    ("液压软管", "液压软管长度 10 m，弯曲半径不小于 200 mm。"),
    ("CAN 总线故障", "CAN 总线故障：检查两端终端电阻和屏蔽层接地。"),
    ("RS-485 总线故障", "RS-485 总线故障：检查 A/B 线是否接反。"),
    ("Field bus", "Which bus can fail first? The CAN bus, when its shield is not grounded."),
    ("Gateway 3.2.0 release notes", "Gateway v3.2.0 adds Modbus TCP polling groups."),
    ("Gateway 3.2.1 release notes", "Gateway v3.2.1 fixes Modbus TCP polling timeouts."),
    ("Wheel nut torque", "Tighten the wheel nuts to 120 N·m in a cross pattern."),
    ("Lens coating", "The lens coating is 120 nm thick."),
    ("Relay response", "The relay responds within 50 μs of the signal edge."),
    ("Relay hold", "The relay holds for 50 ms after the signal drops."),
    ("Rinse water", "Bring the rinse water to pH 7 before the next batch."),
    ("三月巡检", "巡检记录：2026-03-12 完成全部水泵检查。"),
    ("二月巡检", "巡检记录：2026-02-12 完成全部风机检查。"),
    ("新设备补贴", "每台新设备补贴 3万元。"),
    ("旧设备补贴", "每台旧设备补贴 2万元。"),
]


def _build(root: Path) -> Path:
    return built_pages(root, PASSAGES, stem="part")  # one page per passage, built


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    return open_index(_build(tmp_path_factory.mktemp("values")))


@pytest.mark.parametrize(("question", "title"), [
    ("M8x1.25 thread", "Drain plug"),
    ("M8X1.25 thread", "Drain plug"),
    ("M8*1.25 thread", "Drain plug"),
    ("M20×1.5 thread", "Filter housing"),
    ("M20X1.5", "Filter housing"),
])
def test_a_size_product_is_found_however_its_x_is_written(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert not res.filters.unknown_terms


@pytest.mark.parametrize(("question", "title"), [
    ("nutrient solution pH6.5", "Lettuce nutrient solution"),
    ("nutrient solution pH5.8", "Tomato nutrient solution"),
    ("filter for PM 2.5", "Cabin air filter"),
])
def test_a_decimal_glued_to_what_it_measures_is_found_spaced(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert not res.filters.unknown_terms


@pytest.mark.parametrize(("question", "title"), [
    ("1000 litre tank", "Spray tank"),
    ("tank of 1，000 litres", "Spray tank"),
    ("2,500 升 罐", "储水罐"),
])
def test_a_number_is_found_with_or_without_thousands_separators(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert not res.filters.unknown_terms


@pytest.mark.parametrize(("question", "title"), [
    ("2026-03-19 控制器固件", "控制器固件三月版"),
    ("2026/03/19 控制器固件", "控制器固件三月版"),
    ("2026.3.19 控制器固件", "控制器固件三月版"),
    ("2026/02/19 控制器固件", "控制器固件二月版"),
    ("controller firmware 2026年4月2日", "Controller firmware April"),
    ("controller firmware 2026/04/02", "Controller firmware April"),
    ("controller firmware 2026.5.2", "Controller firmware May"),
])
def test_a_date_is_found_however_it_is_written(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]


@pytest.mark.parametrize(("question", "title"), [
    ("液压油温 60℃", "液压油温"),
    ("60°C 液压油温", "液压油温"),
    ("120 ohm resistor", "Bus terminator"),
    ("120欧姆 resistor", "Bus terminator"),
    ("4.7kohm resistor", "Pull-up"),
    ("液压 10um", "液压滤芯"),
    ("液压 10μm", "液压滤芯"),
    ("液压 10µm", "液压滤芯"),
    ("液压 10 m", "液压软管"),
])
def test_a_unit_is_found_by_its_sign_or_its_name(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert not res.filters.unknown_terms


@pytest.mark.parametrize(("question", "title"), [
    ("CAN 总线故障", "CAN 总线故障"),
    ("CAN bus shield", "Field bus"),
])
def test_an_acronym_that_is_a_stop_word_is_searched(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert "can" in res.results[0].why["matched_terms"]


@pytest.mark.parametrize(("question", "title"), [
    ("gateway 3.2 modbus polling", "Gateway 3.2.0 release notes"),
    ("gateway v3.2 modbus polling", "Gateway 3.2.0 release notes"),
    ("gateway 3.2.1 modbus polling", "Gateway 3.2.1 release notes"),  # still distinct
])
def test_a_release_x_y_0_is_found_by_its_series(index, question, title):
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert not res.filters.unknown_terms


@pytest.mark.parametrize(("question", "title", "shown"), [
    ("120Nm", "Wheel nut torque", "120Nm"),
    ("120 N.m", "Wheel nut torque", "N.m"),
    ("120牛·米", "Wheel nut torque", "n.m"),
    ("120 nm", "Lens coating", "nm"),  # nanometres stay apart
    ("relay 50us", "Relay response", "50us"),
    ("relay 50 us", "Relay response", "us"),
    ("pH7", "Rinse water", "pH7"),
    ("巡检 2026-03", "三月巡检", "2026-03"),
    ("巡检 2026-02", "二月巡检", "2026-02"),
    ("补贴 30000 元", "新设备补贴", "30000"),
    ("补贴 20,000 元", "旧设备补贴", "20000"),
])
def test_a_value_in_another_spelling_meets_its_passage(index, question, title, shown):
    """The matched value is listed as the question types it (120Nm, pH7), or as its token
    where no word of the question holds it whole (the n.m of 牛·米, the 20000 of 20,000)."""
    res = search(index, question, k=3, mode="bm25")
    assert not res.no_answer and res.results[0].title == title, \
        [(r.title, r.score) for r in res.results]
    assert shown in res.results[0].why["matched_terms"]
