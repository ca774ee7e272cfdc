"""The decision-table form as a phone's Chinese keyboard fills it: full-width digits, a
full-width point, minus and percent sign, a unit typed after the number (℃, ％, 天, 日),
spaces around it, a value begun at its point (.5, as a decimal keypad types it): each
decides the row its half-width spelling decides, and the form shows the value as typed
beside the number it read."""

from __future__ import annotations

import html
import re

import pytest
from servefixtures import unread_headers
from starlette.testclient import TestClient

from kbtools.serve.app import create_app

SCAB = "/table/knowledge/crops/wheat-scab.md"


@pytest.fixture(scope="module")
def client(example_index):
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as c:
        yield c


def decided(client: TestClient, values: list[str]) -> tuple[int, str]:
    page = client.get(SCAB, params={"lang": "zh", "table": "1", "go": "1",
                                    **{f"in.{i}": v for i, v in enumerate(values)}})
    row = re.search(r"匹配行: (第 \d+ 行)", html.unescape(re.sub("<[^>]+>", " ", page.text)))
    assert row, page.text
    return page.status_code, row.group(1)


@pytest.mark.parametrize("typed, plain", [
    (["２２", "９０", "３"], ["22", "90", "3"]),
    (["２２℃", "９０％", "３天"], ["22", "90", "3"]),
    (["２２．５", "８５", "３日"], ["22.5", "85", "3"]),
    ([" 22 ℃ ", "90 %", "3 天"], ["22", "90", "3"]),
    (["－５", "９０", "３"], ["-5", "90", "3"]),
    # a decimal keypad's point typed first (0 left out): refused as "not a number"
    (["22", "90", ".5"], ["22", "90", "0.5"]),
    (["-.5", "90", "3"], ["-0.5", "90", "3"]),
    (["２２", "９０", "．５天"], ["22", "90", "0.5"]),
])
def test_full_width_and_unit_suffixed_inputs_decide_as_half_width(client, typed, plain):
    assert decided(client, typed) == decided(client, plain)
    assert decided(client, typed)[0] == 200


def keypads(page: str) -> dict[str, bool]:
    """Each input field of a decision form: whether it asks for the decimal keypad."""
    fields = re.findall(r'<input type="text" name="(in\.\d+)"[^>]*>', page)
    tags = re.findall(r'<input type="text" name="in\.\d+"[^>]*>', page)
    return {name: 'inputmode="decimal"' in tag for name, tag in zip(fields, tags, strict=True)}


def test_a_field_that_takes_a_minus_or_a_colon_does_not_ask_for_the_decimal_keypad(client):
    """The form asked a phone for its decimal keypad on every numeric column: on an iPhone
    that keypad has digits and a point only (no minus, no colon, no key to switch), so a
    frost morning's -2 ℃ or a time of day (23:30) could not be typed in. Temperatures in
    ℃/℉, columns with a bound below zero and columns of times of day get the text keyboard;
    humidity and a count of days keep the keypad."""
    from kbtools.decision import build_table
    from kbtools.serve.pages import _table_view

    page = client.get(SCAB, params={"lang": "zh", "table": "1"}).text
    assert keypads(page) == {"in.0": False, "in.1": True, "in.2": True}  # ℃, %, 天数
    table = build_table(["时段", "水温差", "转速(rpm)", "措施"],
                        [["22:00-6:00", "-5~0", "<1500", "夜间低速"],
                         ["6:00-22:00", ">0", ">=1500", "白天常规"]],
                        decision="inputs=时段,水温差,转速; outputs=措施")
    assert table is not None
    assert [f["numeric"] for f in _table_view(table, 1, {})["inputs"]] == [False, False, True]


@pytest.mark.parametrize("typed, plain", [
    (["25.", "90.", "4."], ["25", "90", "4"]),
    (["25. ℃", "90. %", "4. 天"], ["25", "90", "4"]),
    (["２５．", "９０．％", "４．天"], ["25", "90", "4"]),
    (["25.℃", "90.%", "3."], ["25", "90", "3"]),
    (["-5.", "90", "3"], ["-5", "90", "3"]),
])
def test_a_point_typed_last_is_the_numbers_not_a_unit(client, typed, plain):
    """A phone's keypad leaves ``25.`` when the decimal is not typed: the form took it, but
    read the point as the value's unit (``.``), so ``25. ℃`` (a space before the unit) was
    "not a number" and ``25.℉`` was 25 in the ℃ column, its unit ``.°F`` unknown."""
    assert decided(client, typed) == decided(client, plain)
    assert decided(client, typed)[0] == 200


def test_a_unit_after_a_trailing_point_is_judged_as_the_unit_it_names(client):
    """``90.℉`` against the ℃ column: read as 90 ℃ (the highest-risk row) before; it is
    judged as 90 ℉ written without decimals, as ``90℉`` is: converted, 32.222222 ℃ (session 45)."""
    def said(values: list[str]) -> str:
        page = client.get(SCAB, params={"lang": "en", "table": "1", "go": "1",
                                        **{f"in.{i}": v for i, v in enumerate(values)}})
        return html.unescape(re.sub(r"<[^>]+>", " ", page.text))

    assert said(["90.℉", "90", "4"]).count("32.222222") == said(["90℉", "90", "4"]).count("32.222222") > 0
    assert "90 is > 20" not in said(["90.℉", "90", "4"])


def test_the_search_page_says_how_a_value_was_read(client):
    """湿度0.9 is read as 90 % for the scab table (whole-percent bounds) and 下了三四天雨 as the
    rough range 三到四天: the page said neither (session 43)."""
    page = client.get("/", params={"q": "小麦赤霉病 温度22度 湿度0.9 下了四五天雨", "lang": "zh"})
    text = html.unescape(re.sub("<[^>]+>", " ", page.text))
    assert "数值读法：相对湿度(%) 0.9 as 90 %" in text, text
    assert "近似值：连续降雨天数 四五天" in text


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_why_table_and_the_rules_have_their_headers_said(client, lang):
    """A decided form shows why the row matched (column, condition, value, why) and the
    rules: the why table's header row was a plain row of <th> without a scope, and no
    header cell of either said it heads a column, so a screen reader read "column,
    condition, value, why" as a row of data. Both have `scope="col"` headers in a <thead>;
    each why row begins with its column as `scope="row"`."""
    page = client.get(SCAB, params={"lang": lang, "table": "1", "go": "1",
                                    "in.0": "22", "in.1": "90", "in.2": "4"}).text
    assert 'class="why"' in page and 'class="rules"' in page
    tables, faults = unread_headers(page, row_headers=False)
    assert tables == 2 and faults == [], faults
    why = page[page.index('class="why"'):page.index('class="rules"')]
    assert unread_headers(why) == (0, []), why
