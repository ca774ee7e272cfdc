"""``--where`` on dotted versions and on dates with times and offsets, as people write them,
with the same meaning on the local mask and in Milvus. Before, both compared as text:
``version>1.9`` left out ``1.10.2`` ("1.1" < "1.9") and ``2.0.0-rc1`` was after ``2.0.0``;
``2024-03-01T08:00:00+08:00`` (midnight UTC) was after ``2024-03-01`` and
``2024-03-01T01:00:00+08:00`` (the evening before, UTC) too. A date (without a time) is
the whole day an author writes, offset aside (session 39): ``updated=2024-03-01`` holds
for ``2024-03-01T01:00:00+08:00``; a value with a time is the instant, in UTC."""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kbtools.cli import main
from kbtools.query.filter_kinds import instant_text, member_class, version_text
from kbtools.query.filters import _compare
from tests.milvus_server import (  # noqa: F401 - milvus: a fixture
    engine_rows,
    facts_collection,
    local_rows,
    milvus,
    published_repo,
)

FACTS = [
    {"version": "1.10.2", "updated": "2024-03-01T08:00:00+08:00"},  # 0: 2024-03-01 00:00 UTC
    {"version": "1.9", "updated": "2024-03-01"},  # 1
    {"version": "v2.3", "updated": "2024-03-01T01:00:00+08:00"},  # 2: 2024-02-29 17:00 UTC
    {"version": "2.0.0-rc1", "updated": dt.datetime(2024, 3, 1, 12, 0, tzinfo=dt.UTC)},  # 3
    {"version": "2.0.0", "updated": dt.date(2024, 2, 29)},  # 4
    {"version": ["1.2.3", "10.0"], "updated": "2024-03-02T07:59:59+0800"},  # 5
    {"version": "beta", "updated": "yesterday"},  # 6: text
    {"version": 2.1, "updated": "2024-03-01 09:30:00Z"},  # 7: a YAML number; a YAML timestamp
]


@pytest.fixture(scope="module")
def coll(milvus):  # noqa: F811
    with facts_collection(milvus, "versions", "versions",
                          [(f, False) for f in FACTS]) as engine:
        yield engine


def _local(key: str, op: str, want: str, facts: list[dict] = FACTS) -> list[int]:
    return local_rows(facts, key, op, want)


def _remote(engine, key: str, op: str, want: str, name: str = "versions",
            facts: list[dict] = FACTS) -> list[int]:
    return engine_rows(engine, name, key, op, want, facts)


@pytest.mark.parametrize(("key", "op", "want", "rows"), [
    ("version", ">", "1.9", [0, 2, 3, 4, 5, 6, 7]),  # 1.10.2 after 1.9; "beta" as text
    ("version", ">=", "1.10", [0, 1, 2, 3, 4, 5, 6, 7]),  # two numbers: 1.9 >= 1.10 (1.1)
    ("version", "<", "2.0.0", [0, 1, 3, 5]),  # the release candidate before its release
    ("version", ">", "2.0.0-rc1", [2, 4, 5, 6, 7]),
    ("version", ">=", "v2", [2, 4, 5, 6, 7]),  # v2 is 2.0.0; "beta", text, after versions
    ("version", "=", "2.3.0", [2]), ("version", "=", "V2.0", [4]),
    ("version", "!=", "1.9.0", [0, 2, 3, 4, 5, 6, 7]),
    ("version", "<", "1.9.1", [1, 5]),
    ("updated", ">=", "2024-03-01", [0, 1, 2, 3, 5, 6, 7]),  # "yesterday" as text
    ("updated", "<", "2024-03-01", [4]),  # 01:00 at +08:00 is written on March 1st
    ("updated", "=", "2024-03-01", [0, 1, 2, 3, 7]),  # the whole day, as written
    ("updated", ">", "2024-03-01T20:00:00+08:00", [5, 6]),  # 3 is that instant
    ("updated", "<=", "2024-03-01T17:30+08:00", [0, 1, 2, 4, 7]),
])
def test_versions_and_instants_order_alike_locally_and_in_milvus(coll, key, op, want, rows):
    assert _local(key, op, want) == rows
    assert _remote(coll, key, op, want) == rows


def _semver(text: str) -> tuple:
    """A reference order of the versions this test writes, apart from `version_text`."""
    text = text.lstrip("vV")
    release, _, pre = text.partition("-")
    nums = [int(p) for p in release.split(".")]
    while nums and nums[-1] == 0:
        nums.pop()
    if not pre:
        return (tuple(nums), 1, ())
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p.casefold()) for p in pre.split("."))
    return (tuple(nums), 0, ids)


versions = st.builds(
    lambda v, nums, pre: v + ".".join(map(str, nums)) + (f"-{pre}" if pre else ""),
    st.sampled_from(["", "v"]), st.lists(st.integers(0, 120), min_size=2, max_size=4),
    st.one_of(st.just(""), st.lists(st.one_of(st.integers(0, 30).map(str),
                                              st.sampled_from(["rc", "alpha", "beta", "RC"])),
                                    min_size=1, max_size=3).map(".".join))
).filter(lambda t: member_class(t) == "v")  # 1.9, 0.0: plain numbers, versions only beside one


@settings(max_examples=400, deadline=None)
@given(a=versions, b=versions)
def test_versions_order_as_semver(a, b):
    ra, rb = _semver(a), _semver(b)
    ta, tb = version_text(a), version_text(b)
    assert ta is not None and tb is not None, (a, b)
    assert (ta < tb, ta == tb) == (ra < rb, ra == rb), (a, b, ta, tb)
    assert _compare(a, ">", b) == (ra > rb) and _compare(a, "=", b) == (ra == rb)


zones = st.one_of(st.just(""), st.just("Z"),
                  st.integers(-14 * 60, 14 * 60).map(lambda m: f"{'+' if m >= 0 else '-'}"
                                                     f"{abs(m) // 60:02d}:{abs(m) % 60:02d}"))
instants = st.builds(
    lambda d, t, z, sep: f"{d.isoformat()}{sep}{t.strftime('%H:%M:%S')}{z}" if t else d.isoformat(),
    st.dates(dt.date(1990, 1, 1), dt.date(2040, 1, 1)), st.one_of(st.none(), st.times()),
    zones, st.sampled_from(["T", " "]))


def _when(text: str) -> dt.datetime:
    """A reference instant, by Python's own ISO reading (no offset: UTC)."""
    value = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


@settings(max_examples=400, deadline=None)
@given(a=instants, b=instants)
def test_dates_and_datetimes_order_as_instants(a, b):
    """Instants order in UTC; a filter's date (no time) is the day, which a datetime lies
    in by the day it writes (its offset aside)."""
    wa, wb = _when(a), _when(b)
    ta, tb = instant_text(a), instant_text(b)
    assert ta is not None and tb is not None
    assert (ta < tb, ta == tb) == (wa < wb, wa == wb), (a, b)
    if len(b) > 10:
        assert _compare(a, "<", b) == (wa < wb) and _compare(a, "=", b) == (wa == wb)
    else:
        day = dt.date.fromisoformat(b)
        written = dt.datetime.fromisoformat(a.replace("Z", "+00:00")).date()
        assert _compare(a, "<", b) == (written < day) and _compare(a, "=", b) == (written == day)
        assert _compare(a, ">", b) == (written > day) and _compare(a, "<=", b) == (written <= day)


def test_what_reads_as_a_version_or_an_instant():
    assert [member_class(t) for t in ("1.9", "1.10.2", "v2", "2.0.0-rc.1", "2024-03-01",
                                       "2024-03-01 08:00:00+08:00", "1e5", "2024-3-1",
                                       "2-rc1", "2024-02-30", "v", "1.2.3a1")] == [
        "m", "v", "v", "v", "d", "d", "n", "d", "t", "t", "t", "t"]
    assert version_text("2.0.0+build.7") == version_text("2.0", True) == version_text("v2")
    assert version_text("2.0") is None  # alone, a number
    assert instant_text("2024-03-01T08:00:00.5+08:00") > instant_text("2024-03-01")
    assert _compare(Decimal("1.9"), ">", "1.10") and not _compare("1.9", ">", "1.10.0")
    assert instant_text("2024年3月1日") == instant_text("２０２４年３月１号") == instant_text(
        "2024-03-01T08:00+08:00") and instant_text("2024年2月30日") is None
    assert _compare("2024年3月1日", ">", "2024-02-29T23:59:59Z")
    assert _compare("2024年12月1日", ">", "2024年3月1日")  # by date: as text "1" < "3"


mixed = st.one_of(versions, instants, st.sampled_from(
    ["1.9", "1.10", "2", "10", "1e5", "-1", "inf", "abc", "v", "2024", "小麦", "2024-3-1",
     "2024年3月1日", "２０２４年２月２９号", "2024 年 12 月 1 日", "2024年13月1日"]))
MIXED_ROWS = [{"k": v} for v in [
    "1.10.2", "1.9", "v2.3", "2.0.0-rc1", "2024-03-01", "2024-03-01T08:00:00+08:00", "10",
    ["1.2.3", "abc"], ["2024-02-29 23:00:00-02:00", "1.9.0"], "1e5", "小麦", "2024-3-1",
    ["v1.0.0-alpha.2", "v1.0.0-alpha.10"], dt.date(2023, 1, 1), "-2", "0.0.0", "2024年3月1日",
    "2024年2月29号"]]


@pytest.fixture(scope="module")
def mixed_coll(milvus):  # noqa: F811
    with facts_collection(milvus, "versions", "mixed", [(f, False) for f in MIXED_ROWS]) as engine:
        yield engine


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(want=mixed, op=st.sampled_from([">=", "<=", ">", "<", "=", "!="]))
def test_any_version_or_instant_filters_alike_locally_and_in_milvus(mixed_coll, want, op):
    assert _remote(mixed_coll, "k", op, want, "mixed", MIXED_ROWS) == _local("k", op, want, MIXED_ROWS)


RELEASED = {  # document: (firmware as the author wrote it, timestamp, a YAML date or timestamp)
    "old": ("1.9.4", "2024-02-29T23:30:00+08:00", "2024-02-29"),
    "ten": ("1.10.2", "2024-03-01T07:59:00+08:00", "2024-03-01 07:59:00+08:00"),
    "rc": ("2.0.0-rc.1", "2024-03-01T08:00:00+08:00", "2024-03-01t08:00:00+08:00"),
    "two": ("v2.0", "2024-03-02T00:00:00Z", "2024-03-02 00:00:00"),
    "tenth": ("'1.10'", "2024-03-01T09:00:00Z", "2024-03-01"),  # quoted '1.10': the text
}


@pytest.fixture(scope="module")
def released(tmp_path_factory, milvus):  # noqa: F811
    """A repo whose documents give firmware versions and timestamps with offsets, built and
    published: (local dist/, engine URL). `make_repo` adds ``good`` (no firmware, a
    timestamp of 2026)."""
    docs = {f"knowledge/{name}.md": (
        f"---\ntitle: {name}\ncategory: engineering\nproject: demo\nsource: test\n"
        f"author: alice@example.org\ntimestamp: \"{when}\"\nverified: false\n"
        f"firmware: {firmware}\nshipped: {shipped}\n---\n\n# {name}\n\nFirmware upgrade of the pump controller "
        f"{name}: flash it, then check the seal.\n") for name, (firmware, when, shipped) in RELEASED.items()}
    return published_repo(milvus, tmp_path_factory.mktemp("released") / "kr", "released", docs,
                          ("firmware", "shipped"))


def _docs_found(args: list[str]) -> list[str]:
    res = CliRunner().invoke(main, ["query", "--json", "-k", "20", *args])
    assert res.exit_code == 0, res.output
    return sorted({r["doc"].rsplit("/", 1)[-1][:-3] for r in json.loads(res.output)["results"]})


@pytest.mark.parametrize(("where", "docs"), [
    ("firmware>1.9", ["old", "rc", "ten", "two"]), ("firmware<2.0.0", ["old", "rc", "ten", "tenth"]),
    ("firmware>=v1.10", ["rc", "ten", "tenth", "two"]), ("firmware=2", ["two"]),
    ("firmware<1.10.0", ["old"]),
    ("timestamp>=2024-03-01", ["good", "rc", "ten", "tenth", "two"]),
    ("timestamp<2024-03-01", ["old"]),  # 07:59 at +08:00 is written on March 1st
    ("timestamp=2024-03-01T00:00:00Z", ["rc"]),
    ("shipped>=2024-03-01", ["rc", "ten", "tenth", "two"]),
    ("shipped<2024-03-01T00:00+00:00", ["old", "ten"]),  # an instant: UTC
    ("shipped=2024-03-01", ["rc", "ten", "tenth"]),
    ("shipped>=2024年3月", ["rc", "ten", "tenth", "two"]), ("shipped<２０２４/３/１", ["old"]),
    ("firmware=２", ["two"]), ("firmware＞＝ｖ１．１０", ["rc", "ten", "tenth", "two"]),
])
def test_kb_query_where_versions_and_instants_locally_and_in_the_engine(released, where, docs):
    """`kb query --where` end to end, on a built release and the same release published."""
    dist, url = released
    question = ["pump controller firmware upgrade", "--where", where]
    assert _docs_found([*question, "--index", str(dist)]) == docs
    assert _docs_found([*question, "--engine", url]) == docs
