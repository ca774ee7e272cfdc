"""Question files of `kb eval` and `kb query --batch` (`kbtools.query.quality`): every field
checked when the file is read (one line naming FILE:LINE, exit 2), a byte-order mark dropped,
non-finite numbers refused, and a batch line's own "where" replacing --where."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from kbtools.cli import main
from kbtools.errors import UsageError
from kbtools.index.reader import open_index
from kbtools.query.quality import load_questions, score_one
from kbtools.query.search import search

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
D = "knowledge/equipment/hx260-ch05-fault-codes.md"
GOLD = '{"doc", "text"?, "answers"?}'
NOT_FINITE = "is not a finite number; use numbers JSON can hold (no NaN, Infinity or overflow)"


def kb(*args: str, stdin: bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), prog_name="kb", input=stdin)


def strict_json(line: str) -> Any:
    def refuse(name: str) -> Any:
        raise AssertionError(f"not strict JSON: {name}")
    return json.loads(line, parse_constant=refuse)


BAD_QUESTIONS = [
    ('{"id":"a","query":"E17","gold":"x"}', f'"gold" must be a list of {GOLD} objects, got text'),
    ('{"query":"E17","gold":null}', f'"gold" must be a list of {GOLD} objects, got null'),
    ('{"query":"E17","gold":[null]}', f'"gold" entry 1 must be an object {GOLD}, got null'),
    (json.dumps({"query": "E17", "gold": [{"doc": D}, {}]}),
     '"gold" entry 2 has no "doc"; expected a document\'s path'),
    ('{"query":"E17","gold":[{"doc":7}]}',
     '"gold" entry 1: "doc" must be a document\'s path (text), got a number'),
    (json.dumps({"query": "E17", "gold": [{"doc": D, "answers": [1]}]}),
     '"gold" entry 1: "answers" must be a list of texts, got a number in it'),
    (json.dumps({"query": "E17", "gold": [{"doc": D, "answers": "zqxw"}]}),
     '"gold" entry 1: "answers" must be a list of texts, got text'),
    (json.dumps({"query": "E17", "gold": [{"doc": D, "text": ["a"]}]}),
     '"gold" entry 1: "text" must be text or null, got a list'),
    ('{"query":["E17"],"gold":[]}', '"query" must be text, got a list'),
    ('{"id":"a","gold":[]}', 'no "query"; expected the question as text'),
    ('{"id":"a","query":"E17"}', f'no "gold"; expected a list of {GOLD} objects ([] for none)'),
    ('{"query":"E17","gold":[],"no_answer":"yes"}', '"no_answer" must be true or false, got text'),
    ('{"id":{"a":1},"query":"E17","gold":[]}', '"id" must be text or a number, got an object'),
    ('{"id":NaN,"query":"E17","gold":[]}', f"NaN {NOT_FINITE}"),
    (json.dumps({"query": "E17", "gold": [{"doc": D, "doc_id": -math.inf}]}),
     f"-Infinity {NOT_FINITE}"),
    ('{"query":"E17","gold":[],"where":{"crop":1e400}}', f"1e400 {NOT_FINITE}"),
    ('{"query":"E17","gold":[],"where":"crop=x"}',
     '"where" must be a list of KEY=VALUE texts or an object, got text'),
    ('{"query":"E17","gold":[],"where":["crop"]}',
     "bad --where 'crop': use KEY=VALUE, KEY!=VALUE, KEY>=VALUE, KEY<=VALUE, KEY>VALUE or KEY<VALUE "
     "(at most 1000 characters; a key of other characters in quotes)"),
    (json.dumps({"query": "E17", "gold": [{"doc": D, "relevance": -1}]}),
     '"gold" entry 1: "relevance" must be a number 0 or more (0: not relevant), got -1'),
    (json.dumps({"query": "E17", "gold": [{"doc": D, "score": "2"}]}),
     '"gold" entry 1: "score" must be a number 0 or more (0: not relevant), got text'),
    ('{"id":"q","query":"E17","gold":[]}', '"id" "q" is already on line 1; give each '
     "question its own id"),
    ('["E17"]', 'expected a JSON object with "query", got a list'),
    ("[" * 100_000, 'not JSON: expected a JSON object with "query" on each line'),
]


@pytest.mark.parametrize(("line", "message"), BAD_QUESTIONS)
def test_malformed_question_is_one_line_naming_file_and_line(tmp_path, line, message):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "q", "query": "E17", "gold": []}\n\n' + line + "\n",
                    encoding="utf-8")
    with pytest.raises(UsageError) as exc:
        load_questions(path)
    assert exc.value.format() == f"{path}:3: {message}"
    res = kb("eval", str(path), "--index", str(tmp_path / "no-index"))  # refused before opening
    assert res.exit_code == 2, res.output
    assert res.output.splitlines() == [f"kb: error: {path}:3: {message}"]


def test_question_file_that_is_not_utf8_names_the_line(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(b'{"query": "E17", "gold": []}\n{"query": "\xff", "gold": []}\n')
    res = kb("eval", str(path), "--index", str(tmp_path / "no-index"))
    assert res.exit_code == 2, res.output
    assert res.output.splitlines() == [f"kb: error: {path}:2: not UTF-8 (byte 12 of the line); "
                                       "save the file as UTF-8"]


def test_documented_forms_and_dev_sets_load_unchanged(tmp_path):
    rows = [{"id": "a", "query": "E17", "gold": [{"doc": D, "answers": ["x"], "heading": "h"}]},
            {"id": 2, "query": "E17", "gold": [{"doc": D, "text": None, "answers": None}]},
            {"query": "E17", "gold": [D], "no_answer": False},
            {"query": "E99", "gold": [], "no_answer": True, "group": "g"}]
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert load_questions(path) == rows
    sets = [*(REPO / "tests" / "data").glob("*.jsonl"), *SHARED.glob("eval/*/queries*.jsonl")]
    for questions in sets:
        text = questions.read_text(encoding="utf-8")
        assert load_questions(questions) == [json.loads(x) for x in text.split("\n") if x.strip()]


def test_where_and_nulls_are_read_once(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"query":"a","gold":[],"where":{"crop":"小麦","verified":true,"n":1.5}}\n'
                    '{"query":"b","gold":[],"where":null,"id":null,"no_answer":null}\n',
                    encoding="utf-8")
    assert load_questions(path) == [
        {"query": "a", "gold": [], "where": ["crop=小麦", "verified=true", "n=1.5"]},
        {"query": "b", "gold": []}]


def test_byte_order_mark_is_dropped(example_index, tmp_path):
    path = tmp_path / "b.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": "e", "query": "E17", "gold": [{"doc": "%s"}]}\n'
                     % D.encode())
    assert load_questions(path) == [{"id": "e", "query": "E17", "gold": [{"doc": D}]}]
    res = kb("query", "--batch", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0, res.output
    assert strict_json(res.output)["id"] == "e"
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0, res.output
    assert strict_json(res.output)["results"][0]["hit@10"] == 1.0
    res = kb("query", "--batch", "-", "--index", str(example_index), "--json",
             stdin=b'\xef\xbb\xbf{"query": "E17"}\n')
    assert res.exit_code == 0, res.output


def test_files_joined_keep_each_ones_byte_order_mark_out(example_index, tmp_path):
    """Two question files saved by a Windows editor and joined (`type a.jsonl b.jsonl`,
    `cat`): the second one's byte-order mark starts a line in the middle, which read as
    "not JSON" on a line that looks right in every editor (session 33)."""
    one = b'\xef\xbb\xbf{"id": "a", "query": "E17", "gold": ["%s"]}\r\n' % D.encode()
    two = b'\xef\xbb\xbf{"id": "b", "query": "\xe8\xb5\xa4\xe9\x9c\x89\xe7\x97\x85", "gold": []}\r\n'
    path = tmp_path / "joined.jsonl"
    path.write_bytes(one + two)
    assert [q["id"] for q in load_questions(path)] == ["a", "b"]
    assert load_questions(path)[1]["query"] == "赤霉病"
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0, res.output
    assert [d["line"] for d in strict_json(res.output)["results"][0]["per_question"]] == [1, 2]
    res = kb("query", "--batch", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0, res.output
    assert [json.loads(line)["id"] for line in res.output.splitlines()] == ["a", "b"]


@pytest.mark.parametrize(("line", "message"), [
    ('{"id": NaN, "query": "E17"}', f"NaN {NOT_FINITE}"),
    ('{"id": Infinity, "query": "E17"}', f"Infinity {NOT_FINITE}"),
    ('{"query": "E17", "where": {"crop": 1e400}}', f"1e400 {NOT_FINITE}"),
    ('{"query": "E17", "where": [1]}', '"where" must be a list of KEY=VALUE texts, got a number '
                                       "in it"),
    ('{"query": "E17", "where": {"nope": "x"}}', "unknown --where key 'nope'; known keys: "),
])
def test_batch_refuses_bad_lines_and_prints_strict_json(example_index, tmp_path, line, message):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": 1.5, "query": "E17"}\n' + line + "\n", encoding="utf-8")
    res = kb("query", "--batch", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 2, res.output
    first, error = res.output.splitlines()
    assert strict_json(first)["id"] == 1.5
    assert error.startswith(f"kb: error: {path}:2: {message}")


def test_batch_line_where_replaces_command_line_where_even_when_empty(example_index, tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "list", "query": "E17", "where": []}\n'
                    '{"id": "object", "query": "E17", "where": {}}\n'
                    '{"id": "own", "query": "E17", "where": {"kind": "section"}}\n'
                    '{"id": "absent", "query": "E17"}\n'
                    '{"id": "null", "query": "E17", "where": null}\n', encoding="utf-8")
    res = kb("query", "--batch", str(path), "--index", str(example_index), "--json",
             "--where", "kind=table")
    assert res.exit_code == 0, res.output
    where = {o["id"]: o["filters"]["where"] for o in map(strict_json, res.output.splitlines())}
    assert where == {"list": [], "object": [], "own": ["kind=section"],
                     "absent": ["kind=table"], "null": ["kind=table"]}


def test_gold_given_as_a_path_alone_scores_like_an_object(example_index):
    index = open_index(example_index)
    try:
        res = search(index, "E17 怎么复位？", k=5)
    finally:
        index.close()
    as_path = score_one(res, {"query": "E17", "gold": [D]})
    assert as_path == score_one(res, {"query": "E17", "gold": [{"doc": D}]})
    assert as_path["hit@1"] == 1.0 and "answer@1" not in as_path


def test_question_without_a_gold_document_is_a_no_answer_question(example_index, tmp_path):
    path = tmp_path / "q.jsonl"
    lines = [{"id": "a", "query": "E17 怎么复位？", "gold": [D]},
             {"id": "b", "query": "苹果树腐烂病怎么刮治和涂药？", "gold": []},
             {"id": "c", "query": "葡萄霜霉病在什么天气容易爆发", "no_answer": True}]
    path.write_text("".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines),
                    encoding="utf-8")
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0, res.output
    row = strict_json(res.output)["results"][0]
    # two no-answer questions, one answerable: "b" is not a miss dragging Hit@1 to 0.5
    assert (row["questions"], row["answerable"], row["hit@1"]) == (3, 1, 1.0)
    assert row["no_answer_recall"] is not None
    path.write_text('{"query": "E17", "gold": [], "no_answer": false}\n', encoding="utf-8")
    res = kb("eval", str(path), "--index", str(example_index))
    assert res.exit_code == 2
    assert res.output == (f'kb: error: {path}:1: "no_answer" is false but "gold" names no '
                          'relevant document; list the documents that answer it, or drop '
                          '"no_answer"\n')


def test_graded_relevance_scored_by_hand(example_index):
    index = open_index(example_index)
    try:
        res = search(index, "E17 怎么复位？", k=10)
    finally:
        index.close()
    chunks = [r.doc for r in res.results]
    docs = list(dict.fromkeys(chunks))  # a document's chunks count once, at its best rank
    assert len(docs) >= 3 and len(chunks) > len(docs)
    absent = "knowledge/not/in-the-index.md"
    gold = [{"doc": docs[0], "relevance": 1}, {"doc": docs[2], "score": 2},
            {"doc": absent, "relevance": 2}, {"doc": docs[1], "relevance": 0}]
    m = score_one(res, {"query": "E17", "gold": gold})
    dcg = 1 / 1 + 2 / 2  # rank 1 (gain 1), rank 3 (gain 2, log2(4) = 2); rank 2 judged 0
    idcg = 2 / 1 + 2 / math.log2(3) + 1 / 2  # ideal: 2, 2, 1 (the absent document included)
    assert m["ndcg@10"] == pytest.approx(dcg / idcg)
    assert (m["hit@1"], m["mrr@10"]) == (1.0, 1.0)
    m = score_one(res, {"query": "E17", "gold": [{"doc": docs[1], "relevance": 0}, docs[2]]})
    assert (m["hit@1"], m["hit@3"], m["mrr@10"]) == (0.0, 1.0, pytest.approx(1 / 3))
    assert m["ndcg@10"] == pytest.approx(1 / 2)
    binary = score_one(res, {"query": "E17", "gold": [docs[0], {"doc": docs[2]}]})
    assert binary == score_one(res, {"query": "E17", "gold": [
        {"doc": docs[0], "relevance": 1}, {"doc": docs[2], "score": 1.0}]})
    assert binary["ndcg@10"] == pytest.approx((1 + 1 / 2) / (1 + 1 / math.log2(3)))


def test_cutoffs_above_k_are_not_measured_and_every_metric_is_reported(example_index, tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"query": "E17 怎么复位？", "gold": [D]}) + "\n", encoding="utf-8")
    res = kb("eval", str(path), "--index", str(example_index), "-k", "3", "--json")
    assert res.exit_code == 0, res.output
    row = strict_json(res.output)["results"][0]
    assert (row["hit@1"], row["hit@3"]) == (1.0, 1.0)
    # three results cannot measure Hit@10 or nDCG@10; no gold answer text: no answer@k
    assert [key for key, v in row.items() if v is None] == [
        "ndcg@10", "mrr@10", "hit@5", "hit@10", "answer@1", "answer@5", "no_answer_precision",
        "no_answer_recall"]
    res = kb("eval", str(path), "--index", str(example_index), "-k", "3")
    assert res.output.splitlines()[2].startswith("hybrid | – | – | 1.0 | 1.0 | – | – | – | – |")


def test_latency_is_warm_in_a_fresh_process(example_index, tmp_path):
    # the first search of a process loads models and tables (hundreds of ms); it was timed,
    # so a small set's p95 was the model load
    path = tmp_path / "q.jsonl"
    path.write_text(3 * (json.dumps({"query": "E17 怎么复位？", "gold": [D]}) + "\n"),
                    encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "kbtools", "eval", str(path), "--index",
                          str(example_index), "--baseline", "vector", "--json"], env=env,
                         capture_output=True, text=True, timeout=120, check=True).stdout
    for row in strict_json(out)["results"]:
        assert row["latency_p95_ms"] < max(100.0, 10 * row["latency_p50_ms"]), row


def test_gold_documents_missing_from_the_index_are_named(example_index, tmp_path):
    path = tmp_path / "q.jsonl"
    written_otherwise = D.removeprefix("knowledge/")  # relative to knowledge/, not the repo
    path.write_text(json.dumps({"query": "E17 怎么复位？", "gold": [written_otherwise, D]}) + "\n"
                    + json.dumps({"query": "x", "gold": ["gone.md"], "no_answer": True}) + "\n",
                    encoding="utf-8")
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0, res.output
    assert strict_json(res.stdout)["gold_not_in_index"] == [written_otherwise]
    assert res.stderr == (f"kb eval: warning: 1 gold document(s) not in {example_index}, e.g. "
                          f"{written_otherwise!r} ({path}:1), count as never retrieved; the "
                          "index names documents like 'knowledge/crops/corn-southern-rust.md'\n")
    # the line of the first question naming one, in the file's order (session 33)
    path.write_text("\r\n".join([json.dumps({"id": "a", "query": "E17 怎么复位？", "gold": [D]}),
                                 json.dumps({"id": "b", "query": "y", "gold": []}),
                                 json.dumps({"id": "c", "query": "赤霉病", "gold": [
                                     {"doc": "zz/gone.md", "relevance": 0}, "crops/scab.md"]}),
                                 json.dumps({"id": "d", "query": "E17", "gold": ["aa.md"]})]),
                    encoding="utf-8-sig")
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    assert res.exit_code == 0 and strict_json(res.stdout)["gold_not_in_index"] == [
        "aa.md", "crops/scab.md"]
    assert f"e.g. 'crops/scab.md' ({path}:3), count as never retrieved" in res.stderr
    path.write_text(json.dumps({"query": "E17 怎么复位？", "gold": [D]}) + "\n", encoding="utf-8")
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    assert res.stderr == "" and strict_json(res.stdout)["gold_not_in_index"] == []


BAD_ARRAYS = [
    ('[\n {"query": "a", "gold": []},\n {"query": "b", "gold": []},\n]\n',
     '4: not JSON: expected a JSON object with "query" as each item of the array'),
    ('[\n {"query": "a", "gold": []}\n {"query": "b", "gold": []}\n]\n',
     '3: not JSON: expected "," or "]" after a question'),
    ('[{"query": "a", "gold": []}]\n\nmore\n', "3: not JSON: text after the array's closing ]"),
    ('[\n {"query": "a", "gold": []},\n\n "b"\n]', '4: expected a JSON object with "query", '
     "got text"),
    ('[{"query": "a",\n "gold": [{"doc": "x", "relevance": Infinity}]}]',
     f"1: Infinity {NOT_FINITE}"),
    ('[\n {"id": 1, "query": "a", "gold": []},\n {"id": 1, "query": "b", "gold": []}]',
     '3: "id" 1 is already on line 2; give each question its own id'),
]


@pytest.mark.parametrize(("text", "message"), BAD_ARRAYS)
def test_a_json_array_that_breaks_strict_json_names_the_line(tmp_path, text, message):
    path = tmp_path / "q.json"
    path.write_text(text, encoding="utf-8")
    res = kb("eval", str(path), "--index", str(tmp_path / "no-index"))
    assert res.exit_code == 2, res.output
    assert res.output.splitlines() == [f"kb: error: {path}:{message}"]


def test_json_array_scores_as_json_lines_with_details_per_question(example_index, tmp_path):
    rows = [{"id": "a", "query": "E17 怎么复位？", "gold": [{"doc": D, "answers": ["复位"]}]},
            {"id": "b", "query": "苹果树腐烂病怎么刮治和涂药？", "no_answer": True}]
    lines, array = tmp_path / "q.jsonl", tmp_path / "q.json"
    lines.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                     encoding="utf-8")
    array.write_bytes(b"\xef\xbb\xbf" + json.dumps(rows, ensure_ascii=False, indent=2)
                      .replace("\n", "\r\n").encode())
    assert load_questions(array) == load_questions(lines) == rows
    out = [strict_json(kb("eval", str(p), "--index", str(example_index), "--json").stdout)
           for p in (lines, array)]

    def figures(o: dict[str, Any]) -> list[Any]:
        return [{k: v for k, v in r.items() if "latency" not in k and k != "per_question"}
                for r in o["results"]]
    assert figures(out[0]) == figures(out[1])
    a, b = out[0]["results"][0]["per_question"]
    assert (a["id"], a["expected_no_answer"], a["rank"], a["hit@1"]) == ("a", False, 1, 1.0)
    assert a["docs"][0] == D and len(a["docs"]) == len(set(a["docs"])) <= 10
    assert (b["id"], b["expected_no_answer"], b["rank"]) == ("b", True, None)
    assert "hit@1" not in b and isinstance(b["no_answer"], bool)


def test_eval_lists_each_failed_question_with_its_file_line(example_index, tmp_path):
    wrong = "knowledge/crops/wheat-aphids.md"  # does not answer E17
    rows = [{"id": "a", "query": "E17 怎么复位？", "gold": [{"doc": D}]},  # passes
            {"query": "E17 怎么复位？", "gold": [wrong]},  # no id: named by its line
            {"id": 7, "query": "E17 怎么\n复位？", "no_answer": True}]  # answered: fails
    path = tmp_path / "q.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows[:1]) + "\n\n"
                    + "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows[1:]),
                    encoding="utf-8")
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    per = strict_json(res.stdout)["results"][0]["per_question"]
    assert [(d["id"], d["line"]) for d in per] == [("a", 1), (None, 3), (7, 4)]
    assert [d["relevant"] for d in per] == [[D], [wrong], []]
    assert [d["failed"] for d in per] == [False, True, True] and not per[2]["no_answer"]
    top = per[1]["docs"]
    assert wrong not in top and top[0] == D
    text = kb("eval", str(path), "--index", str(example_index)).stdout.splitlines()
    assert text[0].startswith("mode | ndcg@10") and text[2].startswith("hybrid | ")
    assert text[3] == ""  # the table as before, then the failures
    text = text[4:]
    assert text[0] == ("hybrid: 2 of 3 questions failed (the relevant document not first, or "
                       "the wrong no-answer verdict)")
    assert text[1:3] == [f"{path}:3: E17 怎么复位？",
                         f"    expected {wrong}; got not in the top {len(top)} ({D} first)"]
    assert text[3:5] == [f"{path}:4: [7] E17 怎么 复位？",  # the question's newline flattened
                         f"    expected no answer; got an answer ({D} first)"]
    assert len(text) == 5


def test_eval_json_array_questions_carry_the_line_they_start_on(example_index, tmp_path):
    path = tmp_path / "q.json"
    item = json.dumps({"query": "E17 怎么复位？", "gold": [D]}, ensure_ascii=False)
    path.write_text(f"[\n  {item[:-1]},\n   \"no_answer\": false}},\n\n  {item}\n]\n",
                    encoding="utf-8")  # the first over two lines, then a blank line
    res = kb("eval", str(path), "--index", str(example_index), "--json")
    per = strict_json(res.stdout)["results"][0]["per_question"]
    assert [d["line"] for d in per] == [2, 5]
