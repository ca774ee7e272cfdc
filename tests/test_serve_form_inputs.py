"""The decision-table form as a phone's Chinese keyboard fills it: full-width digits, a
full-width point, minus and percent sign, a unit typed after the number (℃, ％, 天, 日),
spaces around it: each decides the row its half-width spelling decides, and the form shows
the value as typed beside the number it read."""

from __future__ import annotations

import html
import re

import pytest
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
])
def test_full_width_and_unit_suffixed_inputs_decide_as_half_width(client, typed, plain):
    assert decided(client, typed) == decided(client, plain)
    assert decided(client, typed)[0] == 200
