"""``--where 湿度>=80%`` beside a document's ``湿度: 0.9`` (session 45, f45c; issue 5).

A bare number orders with a quantity's number in the quantity's unit (``power>5`` holds for
``7.5kW``), so ``0.9`` beside ``80%`` was 0.9 %: ``湿度<=50%`` found it, ``湿度>=80%`` did not,
where its author most likely wrote 90 % as a fraction. A bare number of 0 < |n| ≤ 1 beside a
percentage is either, so an order on a percentage leaves it out (as it leaves text out of
``<``), locally and in Milvus alike; 0 (0 % either way) and bare numbers above 1 (``50`` is
50 %) still order, and a filter in any other unit is as before."""

from __future__ import annotations

import html
import json
import re

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from kbtools.cli import main
from kbtools.errors import FilterError
from kbtools.query.filter_checks import _check_order
from kbtools.query.filter_text import parse_where
from kbtools.serve.app import create_app
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_fixture,
    local_rows,
    milvus,
    published_pumps,
    rows_alike,
)

FACTS = [{"湿度": v} for v in ("90%", "0.9", "50", "0.5%", "1", "0", ["0.95", "85%"], "-0.5",
                              "高", "0.9kW")]
coll = facts_fixture("percent", FACTS)


@pytest.mark.parametrize(("where", "rows"), [
    ("湿度>=80%", [0, 6, 8]),  # 0.9, 1 and 0.95 are no 0.9 %, 1 %, 0.95 %; 高 text, after all
    ("湿度<=50%", [2, 3, 5]),  # 0.9 was 0.9 % here; 50 is 50 %, 0 is 0 %
    ("湿度<1%", [3, 5]), ("湿度=0%..100%", [0, 2, 3, 5, 6]), ("湿度>-1%", [0, 2, 3, 5, 6, 8]),
    ("湿度>=0.8", [0, 1, 2, 4, 6, 8, 9]),  # a bare filter orders every number as before
    ("湿度<=1kW", [1, 4, 5, 6, 7, 9]),  # a bare 0.9 is 0.9kW beside one in kW, as before
])
def test_a_bare_fraction_is_not_ordered_with_a_percentage_locally_and_in_milvus(coll, where,
                                                                               rows):
    assert rows_alike(coll, "percent", FACTS, where) == rows


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=st.builds(lambda n, u: f"{n}{u}", st.sampled_from(
    ["0", "0.5", "0.9", "1", "1.5", "50", "-0.5", "100"]), st.sampled_from(["%", "", "kW"])),
       op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_percentage_filters_alike_locally_and_in_milvus(coll, want, op):
    try:
        conditions = parse_where([f"湿度{op}{want}"])
    except FilterError:
        return
    for key, o, w in conditions:
        assert engine_rows(coll, "percent", key, o, w, FACTS) == local_rows(FACTS, key, o, w)


@pytest.fixture(scope="module")
def released(tmp_path_factory, milvus):  # noqa: F811
    return published_pumps(milvus, tmp_path_factory.mktemp("percent") / "kp", "percent", {
        name: {"湿度": value}
        for name, value in (("wet", "90%"), ("fraction", "0.9"), ("dry", "50"))})


def test_a_bare_fraction_left_out_is_said_once_locally_and_in_the_engine(released):
    """Left out silently, ``湿度: 0.9`` would be as lost as when it compared as 0.9 %: the
    search says it once (the JSON's ``filters.fractions_left_out``, a note in the text)."""
    dist, url = released
    for target in (["--index", str(dist)], ["--engine", url]):
        args = ["query", "-k", "20", "--no-log", "pump seal replacement", "--where",
                "湿度>=80%", *target]
        res = CliRunner().invoke(main, [args[0], "--json", *args[1:]])
        assert res.exit_code == 0, res.output
        out = json.loads(res.output)
        assert sorted({r["doc"].rsplit("/", 1)[-1][:-3] for r in out["results"]}) == ["wet"]
        assert out["filters"]["fractions_left_out"] == ["湿度: 0.9"], target
        text = CliRunner().invoke(main, args)
        assert text.output.count("湿度: 0.9") == 1 and "left out" in text.output, text.output
    none = CliRunner().invoke(main, ["query", "--json", "--no-log", "pump seal replacement",
                                     "--where", "湿度>=60", "--index", str(dist)])
    assert "fractions_left_out" not in json.loads(none.output)["filters"]  # no percentage


def test_the_search_page_says_a_bare_fraction_left_out_in_its_language(released):
    dist, _ = released
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as client:
        for lang, said in (("zh", "湿度: 0.9 没有参与百分比筛选"),
                           ("en", "湿度: 0.9 left out of the percentage filter")):
            page = client.get("/", params=[("q", "pump seal replacement"),
                                           ("where", "湿度>=80%"), ("lang", lang)])
            [note] = re.findall(r'<p class="filter-note" role="status">(.*?)</p>', page.text)
            assert html.unescape(note).startswith(said), note


@pytest.mark.parametrize(("where", "said"), [
    ("湿度>=0.8", "湿度>=0.8: 湿度 is a percentage in this index (e.g. 90%); write 80% for a "
                 "fraction, or 0.8%"),
    ("湿度=0.5..1", "湿度>=0.5: 湿度 is a percentage in this index (e.g. 90%); write 50% for "
                   "a fraction, or 0.5%"),
])
def test_a_bare_fraction_filter_on_percentages_names_both_meanings(released, where, said):
    """``湿度>=0.8`` beside ``湿度: 90%`` compared 0.8 %, finding every humid document where
    80 % was likely meant: refused, naming what to write for each meaning."""
    dist, _ = released
    res = CliRunner().invoke(main, ["query", "--no-log", "pump seal", "--where", where,
                                    "--index", str(dist)])
    assert res.exit_code == 2 and said in " ".join(res.output.split()), res.output


MILLE = [{"含量": v} for v in ("3‰", "0.3%", "0.6%", "8 ‰", "0.004", "5", "千分之五", "5‰")]
mille = facts_fixture("permille", MILLE)


@pytest.mark.parametrize(("where", "rows"), [  # session 46 (f46, issue 4): ‰ was text
    ("含量<=5‰", [0, 1, 5, 6, 7]),  # 0.6% is 6‰; a bare 0.004 a fraction or 0.004‰: left out
    ("含量>=0.5%", [2, 3, 5, 6, 7]), ("含量=3‰", [0, 1]), ("含量=0.3%", [0, 1]),
    ("含量>4‰", [2, 3, 5, 6, 7]), ("含量=5‰..0.6%", [2, 5, 6, 7]),  # 千分之五 is 5‰
    # session 47: a bare 5 in a range's first unit against both ends (5‰; 5 % below, out)
    ("含量=0.5%..6‰", [2, 6, 7]), ("含量=0.5%..6‰,0.3%", [0, 1, 2, 6, 7]),
    ("含量=千分之三", [0, 1]), ("含量<百分之0.5", [0, 1]),  # a share in words, a filter's too
    ("含量=0.3 pct", [0, 1]), ("含量>=0.5pct", [2, 3, 5, 6, 7]),  # session 47: pct was its own
])
def test_per_mille_is_a_share_as_percent_is_locally_and_in_milvus(mille, where, rows):
    assert rows_alike(mille, "permille", MILLE, where) == rows


def test_a_bare_fraction_filter_on_per_mille_names_both_meanings():
    with pytest.raises(FilterError, match=r"write 500‰ for a fraction, or 0.5‰"):
        _check_order("含量", ">=", "0.5", ["3‰", "8‰"])
