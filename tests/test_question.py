"""The question as searched (kbtools/query/question.py): what field users paste — a screen of
log, a stack trace — is searched by its distinctive lines, not cut at its head, and every
surface takes the same question length."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from kbtools.agents.arguments import MAX_QUESTION_CHARS
from kbtools.cli import main
from kbtools.errors import UsageError
from kbtools.index.reader import open_index
from kbtools.query.question import (
    MAX_QUERY_CHARS,
    PIECE_CHARS,
    distinct_shapes,
    is_blank,
    pieces,
    question_text,
    searched_question,
)
from kbtools.query.search import search, term_weights

FAULT_CODES = "knowledge/equipment/hx260-ch05-fault-codes.md"


def routine_log(alarm: str, at: int, n: int = 60) -> str:
    """`n` lines of a press's routine log (timestamps, counters and readings change) with
    `alarm` as line `at`: longer than the searched length."""
    lines = [f"2026-03-12 08:{i:02d}:11.123 INFO  [plc-main] cycle {i} pressure=12.{i}MPa "
             f"temp=4{i % 10}C ok" for i in range(n)]
    lines.insert(at, alarm)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def index(example_index):
    return open_index(example_index)


@pytest.mark.parametrize("at", [0, 30, 50, 60])
def test_a_pasted_log_is_searched_by_its_alarm_wherever_it_is(index, at):
    alarm = "2026-03-12 08:50:11.400 ALARM [servo] fault E17 servo overload, axis 1, stopped"
    log = routine_log(alarm, at)
    assert len(log) > 2 * MAX_QUERY_CHARS
    res = search(index, log).to_dict()
    assert "E17" in res["query"] and len(res["query"]) <= MAX_QUERY_CHARS
    assert not res["no_answer"] and res["results"][0]["doc"] == FAULT_CODES


def test_a_short_question_is_searched_as_cleaned(index):
    question = "E17 伺服过载\n  怎么  复位" + " 复位" * 300  # within the searched length
    assert search(index, question).query == " ".join(question.split())


def test_a_long_question_keeps_what_the_index_knows_in_order(index):
    weigh = term_weights(index)
    blob = "".join(hashlib.sha256(str(i).encode()).hexdigest() for i in range(80))[:5000]
    text = question_text(f"液压油温过高怎么处理\n{blob}\n报警 E08 之后冷却水阀已经开大", weigh)
    assert text.startswith("液压油温过高怎么处理") and text.endswith("冷却水阀已经开大")
    assert "E08" in text and blob[:PIECE_CHARS] not in text
    assert 0 < len(question_text(blob, weigh)) <= MAX_QUERY_CHARS
    # nothing the index knows anywhere: the head, as before
    unknown = " ".join(f"qz{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}x" for i in range(600))
    assert question_text(unknown, lambda piece: {}) == unknown[:MAX_QUERY_CHARS]
    # the same words pasted many times: one copy is searched
    assert question_text("赤霉病 防治\n" * 1000, weigh) == "赤霉病 防治"


def test_pieces_and_shapes():
    line = "x" * 5000 + " 小麦赤霉病。" + "y" * 10
    assert all(0 < len(p) <= PIECE_CHARS for p in pieces([line]))
    assert "".join(pieces([line])).replace(" ", "") == line.replace(" ", "")
    assert distinct_shapes(["fault E17 at 08:01:02", "fault E17 at 08:01:05", "fault E21 at 9",
                            "h1.py line 7", "h10.py line 70"]) == [
        "fault E17 at 08:01:02", "fault E21 at 9", "h1.py line 7", "h10.py line 70"]


def test_every_surface_takes_the_same_question_length(example_index, tmp_path, monkeypatch):
    from starlette.testclient import TestClient

    from kbtools.serve.app import create_app

    monkeypatch.setenv("KB_HOME", str(tmp_path / "home"))
    log = routine_log("ALARM fault E17 servo overload", 50, n=200)[:MAX_QUESTION_CHARS]
    runner = CliRunner()
    ok = runner.invoke(main, ["query", "--index", str(example_index), "--json", log])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.output)["results"][0]["doc"] == FAULT_CODES
    over = runner.invoke(main, ["query", "--index", str(example_index), log + "x"])
    assert over.exit_code == 2  # a usage error, as a bad --where
    assert f"question longer than {MAX_QUESTION_CHARS} characters" in over.output
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"id": 1, "query": log + "x"}) + "\n", encoding="utf-8")
    over = runner.invoke(main, ["query", "--index", str(example_index), "--batch", str(batch)])
    assert over.exit_code == 2 and "q.jsonl:1: \"query\" longer than" in over.output
    with TestClient(create_app(example_index), base_url="http://127.0.0.1") as api:
        resp = api.post("/api/search", json={"query": log})
        assert resp.status_code == 200 and resp.json()["results"][0]["doc"] == FAULT_CODES
        resp = api.post("/api/search", json={"query": log + "x"})
        assert resp.status_code == 400
        assert f"longer than {MAX_QUESTION_CHARS}" in resp.json()["error"]["message"]


def test_invisible_characters_and_colour_codes_do_not_split_words(index):
    """A question pasted from a web page or PDF (zero-width spaces, a soft hyphen, bidi marks
    inside words) or from a coloured terminal (ANSI escapes) is searched as its words."""
    plain = search(index, "小麦赤霉病 E17 伺服过载").to_dict()
    pasted = search(index, "小\u200b麦\u00ad赤\u200d霉\ufeff病 \u202aE17\u202c "
                           "\x1b[1;31m伺服过载\x1b[0m").to_dict()
    assert pasted["query"] == plain["query"] == "小麦赤霉病 E17 伺服过载"
    assert not pasted["filters"].get("unknown_terms")
    assert [r["chunk_id"] for r in pasted["results"]] == [r["chunk_id"] for r in plain["results"]]


def test_a_condensed_question_says_how_much_of_it_was_searched(index, example_index):
    """The bound is said: an answer to the lines chosen from a pasted log reports how many of
    the question's characters were searched (and read), in the JSON every surface returns
    and in `kb query`'s output; a question searched whole reports nothing."""
    log = routine_log("2026-03-12 08:50:11.400 ALARM [servo] fault E17 servo overload", 30)
    res = search(index, log).to_dict()
    assert res["condensed"] == {"question_chars": len(log), "read_chars": len(log),
                                "searched_chars": len(res["query"]),
                                "max_searched_chars": MAX_QUERY_CHARS}
    assert len(res["query"]) < len(log)
    assert list(res)[list(res).index("results") + 1] == "condensed"
    assert "condensed" not in search(index, "E17 伺服过载 怎么复位").to_dict()
    # a library caller's longer question: only its head is read, and that is said too
    huge = search(index, log * 4).to_dict()["condensed"]
    assert huge["question_chars"] == 4 * len(log) and huge["read_chars"] == MAX_QUESTION_CHARS
    # nothing to search in what is read (only whitespace): nothing asked, refused
    with pytest.raises(UsageError, match="blank"):
        search(index, " " * (MAX_QUESTION_CHARS + 5))
    out = CliRunner().invoke(main, ["query", "--index", str(example_index), "--no-log", log])
    assert out.exit_code == 0, out.output
    assert (f"Searched {len(res['query']):,} of the question's {len(log):,} characters"
            in out.output.splitlines()[0])
    plain = CliRunner().invoke(main, ["query", "--index", str(example_index), "--no-log", "E17"])
    assert "Searched" not in plain.output


def test_a_paste_keeps_its_lines_searched():
    """A paste's lines are judged one by one (a best hit holding its error line answers it:
    `Coverage.line_share`): those searched, the condensed ones only when it is condensed."""
    def weigh(piece: str) -> dict[str, float]:
        return {w: 1.0 for w in piece.split() if w.startswith("alarm")}

    short = searched_question("E17 overload\nstack frame one\nstack frame two", weigh)
    assert short.paste and short.lines == ("E17 overload", "stack frame one", "stack frame two")
    assert searched_question("what does E17 mean", weigh).lines == ()
    log = "\n".join([f"routine line {n} " + "x" * 80 for n in range(60)] + ["alarm42 tripped"])
    long = searched_question(log, weigh)
    assert long.condensed and "alarm42 tripped" in long.lines
    assert all(line in long.text for line in long.lines)


# what a blank question is typed of, and a letter among it
_NOTHING = st.sampled_from([" ", "\t", "\n", "\r", "\u3000", "\x00", "\x01", "\x1b", "\x7f",
                            "\x85", "\u200b", "\u2060", "\ufeff", "\u00ad", "\x1b[31m"])


@given(st.one_of(st.lists(_NOTHING).map("".join), st.text(max_size=40),
                 st.tuples(st.lists(_NOTHING).map("".join), st.characters(),
                           st.lists(_NOTHING).map("".join)).map("".join)))
def test_a_question_is_blank_exactly_when_nothing_is_searched(question):
    """`search` refuses a question whose searched text is empty through `is_blank`, the rule
    every surface refuses it by: the two must agree, or a question would pass the surface's
    check and be searched as nothing (or be refused with text to search)."""
    assert is_blank(question) == (searched_question(question, lambda _: {}).text == "")
