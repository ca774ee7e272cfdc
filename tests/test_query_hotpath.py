"""The warm query's fast paths give exactly what their plain definitions give: fusion
(scores to the bit, the same ``why``), ranking rows of the store (any column on
demand), the identifier match level (cheap NFKC, substring pre-test, compiled key lines)."""

from __future__ import annotations

import json
import os
import re
import string
import sys
import unicodedata
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.index.store import RankingRow, Store, _dump, _load_strings, write_store
from kbtools.query import fusion as fusion_module
from kbtools.query import identifiers
from kbtools.query.fusion import FusionParams, Hit, Ranked, fuse, fuse_arrays, top, weights

# --- fusion -------------------------------------------------------------------------------


def reference_fuse(lists: dict[str, Ranked], p: FusionParams, boost: np.ndarray | None,
                   unverified: np.ndarray | None) -> list[Hit]:
    """Fusion as defined: per list, per rank, add the candidate's contribution in list order
    and keep its best rank per side (an equal rank keeps the earlier list)."""
    n_vec = sum(1 for name in lists if name.startswith("vector"))
    w_bm25, w_vec = weights(lists, p)
    total: dict[int, float] = {}
    why: dict[int, dict[str, Any]] = {}
    for name, r in lists.items():
        is_bm25 = name == "bm25"
        weight = w_bm25 if is_bm25 else w_vec / max(n_vec, 1)
        if p.method == "rrf":
            contrib = weight / (p.rrf_k + np.arange(1, len(r.keys) + 1))
        elif is_bm25:
            contrib = weight * (r.scores / max(float(r.scores[0]), 1e-9)) if len(r.keys) else r.scores
        else:
            lo, hi = (float(r.scores[-1]), float(r.scores[0])) if len(r.keys) else (0.0, 0.0)
            flat = len(r.scores) <= 1 or hi - lo < 1e-6
            contrib = weight * (np.ones_like(r.scores) if flat else (r.scores - lo) / (hi - lo))
        prefix = "bm25" if is_bm25 else "vector"
        for rank, (key, raw, c) in enumerate(zip(r.keys.tolist(), r.scores.tolist(),
                                                 contrib.tolist(), strict=True), 1):
            total[key] = total.get(key, 0.0) + c
            w = why.setdefault(key, {"bm25_rank": None, "bm25_score": None,
                                     "vector_rank": None, "vector_score": None})
            if w[f"{prefix}_rank"] is None or rank < w[f"{prefix}_rank"]:
                w[f"{prefix}_rank"], w[f"{prefix}_score"] = rank, round(raw, 6)
                if not is_bm25:
                    w["vector_model"] = name.split(":", 1)[1]
    for key in total:
        if boost is not None and boost[key]:
            total[key] *= 1.0 + p.boost * float(boost[key])
            why[key]["boost"] = float(boost[key])
        if unverified is not None and p.unverified_weight != 1.0 and unverified[key]:
            total[key] *= p.unverified_weight
    ordered = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Hit(key, score, why[key]) for key, score in ordered]


N_CHUNKS = 60


@st.composite
def ranked(draw: Any, *, cosine: bool) -> Ranked:
    keys = draw(st.lists(st.integers(0, N_CHUNKS - 1), max_size=25, unique=True))
    lo, hi = (-1.0, 1.0) if cosine else (0.5, 40.0)
    scores = sorted((draw(st.floats(lo, hi, width=32)) for _ in keys), reverse=True)
    return Ranked(np.array(keys, dtype=np.int64), np.array(scores, dtype=np.float32))


@settings(max_examples=300, deadline=None)
@given(bm25=st.one_of(st.none(), ranked(cosine=False)),
       vecs=st.lists(ranked(cosine=True), max_size=3),
       method=st.sampled_from(["linear", "rrf"]),
       weighting=st.sampled_from(["shape", "fixed"]),
       boost=st.one_of(st.none(), st.lists(st.sampled_from([0.0, 1.0, 2.0]),
                                           min_size=N_CHUNKS, max_size=N_CHUNKS)),
       unverified=st.one_of(st.none(), st.lists(st.booleans(), min_size=N_CHUNKS,
                                                max_size=N_CHUNKS)))
def test_fuse_is_the_per_candidate_definition(bm25, vecs, method, weighting, boost, unverified):
    lists = {} if bm25 is None else {"bm25": bm25}
    lists.update({f"vector:m{i}": r for i, r in enumerate(vecs)})
    p = FusionParams(method=method, weighting=weighting)
    b = None if boost is None else np.array(boost, dtype=np.float32)
    u = None if unverified is None else np.array(unverified, dtype=bool)
    got, want = fuse(lists, p, b, u), reference_fuse(lists, p, b, u)
    assert [(h.num, h.score, h.why) for h in got] == [(h.num, h.score, h.why) for h in want]
    assert all(type(h.num) is int and type(h.score) is float for h in got)
    assert [list(h.why) for h in got] == [list(h.why) for h in want]  # the key order too


@settings(max_examples=100, deadline=None)
@given(bm25=ranked(cosine=False), vec=ranked(cosine=True), head=st.integers(0, 30),
       also=st.sets(st.integers(0, N_CHUNKS - 1), max_size=10))
def test_fused_hits_of_a_head_are_the_full_ranking_cut(bm25, vec, head, also):
    fused = fuse_arrays({"bm25": bm25, "vector:m": vec}, FusionParams())
    full = fused.hits()
    want = [h for i, h in enumerate(full) if i < head or h.num in also]
    got = fused.hits(head, also)
    assert [(h.num, h.score, h.why) for h in got] == [(h.num, h.score, h.why) for h in want]


@settings(max_examples=100, deadline=None)
@given(bm25=ranked(cosine=False), vec=ranked(cosine=True), read_first=st.booleans(),
       notes=st.lists(st.sampled_from(["doc_decay", "collapsed_from", "bm25_rank", "anchor"]),
                      max_size=3))
def test_a_noted_hit_has_the_why_of_its_notes_added_read_before_or_after(bm25, vec,
                                                                        read_first, notes):
    hits = fuse({"bm25": bm25, "vector:m": vec}, FusionParams())
    want = [{**h.why} for h in fuse({"bm25": bm25, "vector:m": vec}, FusionParams())]
    for h, why in zip(hits, want, strict=True):
        if read_first:
            assert h.why == why
        noted = h
        for i, key in enumerate(notes):  # each note a stage: {**why, key: value}
            noted = noted.noted(noted.score / 2, num=noted.num + i, **{key: i})
            why = {**why, key: i}
        assert (noted.num, noted.score) == (h.num + sum(range(len(notes))),
                                            h.score / 2 ** len(notes))
        assert noted.why == why and list(noted.why) == list(why)  # the key order too
        assert h.why == want[hits.index(h)]  # the hit noted is unchanged


def test_fused_hits_build_their_why_only_when_read(monkeypatch):
    lists = {"bm25": Ranked(np.array([4, 2, 9]), np.array([3.0, 2.0, 1.0], dtype=np.float32)),
             "vector:m": Ranked(np.array([2, 7]), np.array([0.9, 0.5], dtype=np.float32))}
    made: list[int] = []
    of = fusion_module._Why.of
    monkeypatch.setattr(fusion_module._Why, "of", lambda self, j: made.append(j) or of(self, j))
    hits = fuse(lists, FusionParams())
    decayed = [h.noted(h.score * 0.5, doc_decay=0.5) for h in hits]
    assert made == []
    both = next(h for h in decayed if h.num == 2)  # in both lists
    assert both.why["doc_decay"] == 0.5 and both.why["vector_model"] == "m"
    assert len(made) == 1  # that hit's only, once
    assert both.why is both.why and len(made) == 1
    with pytest.raises(AttributeError):
        hits[0].score = 2.0  # type: ignore[misc]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300))
def test_mean_and_std_are_numpys_to_the_bit(values):
    s = np.array(values, dtype=np.float64)
    assert fusion_module._mean_std(s) == (float(s.mean()), float(s.std()))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 80), max_size=300))
def test_unique_is_numpys(values):
    keys = np.array(values, dtype=np.int64)
    got, want = fusion_module._unique(keys), np.unique(keys, return_inverse=True)
    assert np.array_equal(got[0], want[0]) and got[0].dtype == want[0].dtype
    assert np.array_equal(got[1], want[1].reshape(-1))


def test_fuse_shared_candidate_keeps_the_better_vector_rank_and_its_model():
    lists = {"vector:a": Ranked(np.array([3, 1]), np.array([0.9, 0.8], dtype=np.float32)),
             "vector:b": Ranked(np.array([1, 3]), np.array([0.7, 0.6], dtype=np.float32))}
    hits = {h.num: h.why for h in fuse(lists, FusionParams())}
    assert hits[3]["vector_rank"] == 1 and hits[3]["vector_model"] == "a"
    assert hits[1]["vector_rank"] == 1 and hits[1]["vector_model"] == "b"


# --- identifiers --------------------------------------------------------------------------


def test_ascii_folds_lists_every_non_ascii_character_re_matches_an_ascii_letter_with():
    everything = "".join(chr(c) for c in range(128, sys.maxunicode + 1)
                         if not 0xD800 <= c < 0xE000)
    found = {ch for a in string.ascii_letters
             for ch in re.findall(re.escape(a), everything, re.IGNORECASE)}
    assert found == set(identifiers.ASCII_FOLDS)


TEXT = st.lists(st.sampled_from(
    list("ab_E17-.: \n\t") + list("：，（）；？！") + ["\u0338", "\u0301", "ﬁ", "①", "Ａ", "ｅ",
                                                       "İ", "ı", "ſ", "\u212a", "数据", "節",
                                                       "＝", "\u3000", "e\u0301"]),
    max_size=40).map("".join)


@settings(max_examples=500, deadline=None)
@given(text=TEXT)
def test_nfkc_is_unicode_nfkc(text):
    assert identifiers.nfkc(text) == unicodedata.normalize("NFKC", text)


def reference_match_level(ids: list[str], text: str, heading: str = "") -> int:
    """match_level as defined: NFKC, whole-token search, a key line or a heading about it."""
    text = unicodedata.normalize("NFKC", text)
    heading = unicodedata.normalize("NFKC", heading)
    held = about = 0
    for ident in ids:
        pat = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(ident)}(?![A-Za-z0-9_]|\.\d)",
                         re.IGNORECASE)
        if article := re.fullmatch(r"第(\d+)([节章条])", ident):  # 第 12 條 as well
            units = {"节": "节節", "章": "章", "条": "条條"}[article.group(2)]
            pat = re.compile(rf"第\s*{article.group(1)}\s*[{units}]")
        if not pat.search(text) and not pat.search(heading):
            continue
        held += 1
        head = heading.strip().strip("`")
        start = pat.match(head)
        code = re.fullmatch(r"[A-Z]{1,5}-?\d+[A-Z]?|\d+(?:\.\d+)+|第\d+[节章条]", ident)
        # a name: then only its arguments or a note in brackets, or a version (x.y) later
        note = start and re.match(r"\s*[(（\[【<]|.*?(?<![A-Za-z0-9_.])v?\d+\.\d+",
                                  head[start.end():])
        heads = head.casefold() == ident.casefold() or bool(start and (code or note))
        # … or a heading inside the text (a subsection chunked with its section)
        heads = heads or any(reference_match_level([ident], "", line.lstrip("#")) % 2
                             for line in text.splitlines()
                             if re.match(r"#+ ", line))
        about = about or int(heads or any(
            re.fullmatch(rf"[^:：\n]{{1,40}}[:：]\s*[`'\"]?{re.escape(ident)}[`'\"]?",
                         line.strip(), re.IGNORECASE) for line in text.splitlines()))
    return 2 * held + about if held else 0


IDENTS = st.lists(st.sampled_from(["E17", "e17", "ab_e", "SKI", "is_a", "4.3", "[ddl:8204]",
                                   "ſki", "kb:publish", "v2.0.2", "HX-260", "第12条",
                                   "'e17", "e17`", " e17", "e 17"]),
                  max_size=3)
LINE_TEXT = st.lists(st.one_of(TEXT, st.sampled_from([
    "code: E17", "代码：e17", "x: `ab_e`", "E170 E17.5", "ＳＫＩ", "\u212ai", "ıs_a",
    "码：[ddl:8204]", "4.3 节", "scope: 'kb:publish'", "kb:publish", "v2.0.2.1 或 v2.0.2",
    "E17.\u0661", "E17.x", "a:b: E17", ": E17", "x：\u3000\"E17", "键:\t`E17`  ", "x: E17\"\"",
    "hx-260：HX-260", "第 12 條", "依第12条", "k: 'e17", "k: e17``", "k:  e17", "k: e 17",
    "## E17 伺服过载", "### ab_e（已废弃）", "#E17", "## ab_e 示例", "# 4.3 液压"])),
    max_size=5).map("\n".join)


@settings(max_examples=500, deadline=None)
@given(ids=IDENTS, text=LINE_TEXT,
       heading=st.one_of(TEXT, st.sampled_from(["E17", "4.3 x", "e17.5", "`HX-260` 说明",
                                                 "4.3.1", "4.3.x", "İE17", "v2.0.2",
                                                 "ab_e 从 v5.0 版本开始引入", "AB_E（已废弃）",
                                                 "ab_e(t1)", "ab_e 示例 2.1", "ab_e 示例",
                                                 "ab_e2 v5.0", "ab_ev5.0", "is_a 1.2",
                                                 "kb:publish 1.x", "v2.0.2 (rc)"])))
def test_match_level_is_its_definition(ids, text, heading):
    assert identifiers.match_level(ids, text, heading) == reference_match_level(ids, text, heading)


@pytest.mark.parametrize(("ids", "text", "heading"), [
    (["'e17"], "k: 'e17", ""),  # a quote of the identifier's own, not an optional one
    ([" e17"], "k:  e17", ""),  # white space of its own
    (["e17`"], "k: e17``", ""),
    (["kb:publish"], "kb:publish", ""),  # the line's first colon is inside it: not a key line
    (["E17"], "a: E17.\u0661", ""),  # "." and a digit (any script's) after it: not whole
    (["E17"], "x" * 40 + ": E17", ""), (["E17"], "x" * 41 + ": E17", ""),  # 40 before ":"
    (["4.3"], "", "4.3.1 节"), (["HX-260"], "", "`hx-260` 说明"),
    (["ab_e"], "", "ab_e 从 v5.0 版本开始引入"), (["ab_e"], "", "ab_e 示例"),
    (["ab_e"], "", "ſ_ab_e(x)"), (["ſab_e"], "", "ſab_e（已废弃）"),  # by the regex
    (["E17", "e18"], "a\u2028k: E17\x85b：e18\r\nx", ""),  # lines as str.splitlines cuts them
    (["E17", "HX-2"], "## HX-2 泵\nHX-2 E17\n代码：HX-2", "E17"),  # about the first, then held
])
def test_match_level_edges_are_its_definition(ids, text, heading):
    assert identifiers.match_level(ids, text, heading) == reference_match_level(ids, text, heading)


BATCH_TEXT = st.one_of(LINE_TEXT, st.sampled_from([
    "a\x00E17", "E17\x00", "x……E17", "\u2026E17.", "Ｅ１７", "E17：", "ﬁE17", "E17\u0338",
    "\u0301E17", "第 12 條\n依第12条", "e17" * 3, ""]))


@settings(max_examples=500, deadline=None)
@given(ids=st.lists(st.one_of(IDENTS.map(lambda ids: ids[0] if ids else "E17"),
                              st.sampled_from(["a\x00", "ｅ17"])), max_size=3),
       pairs=st.lists(st.tuples(BATCH_TEXT, st.one_of(TEXT, st.sampled_from(
           ["E17", "4.3 x", "`HX-260` 说明", "第 12 條", "İE17", "a\x00"]))), max_size=8))
def test_match_levels_are_each_texts_match_level(ids, pairs):
    texts, headings = [t for t, _ in pairs], [h for _, h in pairs]
    want = [identifiers.match_level(ids, t, h) for t, h in pairs]
    assert identifiers.match_levels(ids, texts, headings) == want


def test_match_levels_look_at_only_the_texts_that_hold_an_identifier(monkeypatch):
    texts = ["三号机 E17 反复报警", "E170 与 XE17 不是它", "代码：E17", "无关的段落"] * 5
    headings = ["", "", "", "E17"] * 5
    want = [identifiers.match_level(["E17"], t, h) for t, h in zip(texts, headings, strict=True)]
    looked = []
    level = identifiers._level
    monkeypatch.setattr(identifiers, "_level", lambda ids, text, *rest: looked.append(text)
                        or level(ids, text, *rest))
    got = identifiers.match_levels(["E17"], texts, headings)
    assert got == want
    assert got[:4] == [2, 0, 3, 3]
    assert len(looked) == 15  # the holders only: not the five E170 texts



@settings(max_examples=200, deadline=None)
@given(asked=st.lists(st.lists(IDENTS.map(lambda ids: ids[0] if ids else "E17"), max_size=3),
                      min_size=1, max_size=4),
       pairs=st.lists(st.tuples(BATCH_TEXT, st.sampled_from(["", "E17", "`HX-260` 说明"])),
                      max_size=6))
def test_a_batch_gives_each_set_of_identifiers_its_match_levels(asked, pairs):
    texts, headings = [t for t, _ in pairs], [h for _, h in pairs]
    batch = identifiers.Batch(texts, headings)
    for ids in asked:  # one batch asked again and again, as a search asks its hits
        assert batch.levels(ids) == [identifiers.match_level(ids, t, h) for t, h in pairs]


def test_a_search_normalises_its_hits_texts_once_for_all_its_identifier_levels(monkeypatch):
    """`identifier_levels` of the hits for a question's identifiers, then of each alone
    (`about_each`): the texts and headings are joined, normalised and lower-cased once
    (it was once per identifier set: ~0.5 ms of 30 texts per set in tidb's slowest
    searches)."""
    from kbtools.query.specific import HitTexts, about_each, identifier_levels
    texts = {n: (f"## E{n} 故障\n代码：E{n} 与 HX-{n}", f"E{n}", ("手册",)) for n in range(12, 20)}
    made = []
    of = identifiers._Joined.of
    monkeypatch.setattr(identifiers._Joined, "of", lambda texts: made.append(1) or of(texts))
    hit_texts = HitTexts(texts)
    assert identifier_levels(["E12", "HX-17"], hit_texts) == {
        n: {12: 3, 17: 2}.get(n, 0) for n in texts}  # about E12 (its heading); HX-17 held
    assert about_each(["E12", "HX-17", "E19"], hit_texts) == {12: "E12", 19: "E19"}
    assert len(made) == 2  # the texts and the headings, once

# --- ranking rows -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Store:
    path: Path = tmp_path_factory.mktemp("store") / "store.sqlite"
    docs = [{"doc": "a.md", "metadata": {"title": "A", "verified": True}, "n_chunks": 3}]
    chunks = [{"id": f"c{i}", "doc": "a.md", "kind": kind, "heading_path": ["A", f"S{i}"],
               "line_start": i, "line_end": i + 1, "text": f"正文 {i}", "embed_text": f"E17 {i}",
               "models": ["use"], "links": [{"to": "b.md"}] if i else [],
               "extra": {"parent": "c0"} if i else {},
               "verification": {"verified": i != 2, "status": "verified"}}
              for i, kind in enumerate(["section", "list_item", "table_row"])]
    write_store(path, docs, chunks, {"tokens": "v3"}, [])
    s = Store(path)
    yield s
    s.close()


def test_ranking_rows_hold_the_ranking_columns_and_read_the_rest_on_demand(store):
    whole = store.chunks([0, 1, 2])
    rows = store.ranking_rows([0, 1, 2])
    assert set(rows) == {0, 1, 2} and all(isinstance(r, RankingRow) for r in rows.values())
    assert "text" not in rows[1] and rows[1]["heading_path"] == ["A", "S1"]
    assert rows[1]["extra"] == {"parent": "c0"}  # decoded on first use
    assert rows[1]["text"] == "正文 1"  # another column: the whole row is read
    assert dict(rows[1]) == whole[1]
    assert rows[2].get("verified") is False and rows[2].get("no such column", 7) == 7
    with pytest.raises(KeyError):
        rows[2]["no such column"]


def test_complete_reads_the_shown_rows_at_once_and_leaves_whole_rows_alone(store):
    rows = store.ranking_rows([0, 2])
    whole = store.chunks([1])[1]
    store.complete([rows[0], rows[2], whole])
    assert dict(rows[0]) == store.chunks([0])[0] and dict(rows[2]) == store.chunks([2])[2]
    by_id = store.ranking_rows_by_id(["c0", "c1"])
    assert set(by_id) == {"c0", "c1"} and by_id["c1"]["num"] == 1
    assert store.ranking_rows([]) == {} and store.ranking_rows([99]) == {}


# --- cold path: OpenCC's changed characters from KB_HOME ---------------------------------


def test_traditional_chars_are_cached_in_kb_home_and_are_what_opencc_changes(tmp_path):
    import opencc

    from kbtools.config import kb_home
    from kbtools.index import tokenize

    chars = tokenize.traditional_chars()
    cached = list((kb_home() / "cache").glob("opencc-t2s-*.txt"))
    assert len(cached) == 1 and cached[0].read_text(encoding="utf-8") == chars
    conv = opencc.OpenCC(tokenize.SCRIPT)
    assert all(conv.convert(c) != c for c in chars) and {"數", "據", "節"} <= set(chars)
    assert not {"数", "据", "节", "a"} & set(chars)
    cached[0].write_text("數", encoding="utf-8")  # read from the cache, not recomputed
    assert tokenize.traditional_chars() == "數"
    cached[0].unlink()
    assert tokenize.traditional_chars() == chars


def test_traditional_chars_without_a_writable_kb_home(tmp_path, monkeypatch):
    from kbtools.index import tokenize

    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("KB_HOME", str(blocker / "home"))  # under a file: nothing can be made
    assert "數" in tokenize.traditional_chars()
    assert tokenize.to_simplified("數據") == "数据"


def test_a_question_loads_no_markdown_yaml_opencc_or_cryptography_module():
    """`kb query` evaluates decision tables from the store and finds Traditional text
    through the cached character list: no parser of the build is imported, nor GitPython
    (the "no index here" hint asks plain git for the repository's knowledge bases)."""
    import subprocess

    probe = ("import sys; import kbtools.commands.query; "
             "from kbtools.index.tokenize import to_simplified; to_simplified('数据'); "
             "print(sorted(m for m in ('markdown_it', 'yaml', 'opencc', 'cryptography', 'git') if m in sys.modules))")
    sys_path = str(Path(__file__).resolve().parents[1])
    subprocess.run([sys.executable, "-c", "from kbtools.index.tokenize import "
                    "traditional_chars; traditional_chars()"], check=True,
                   env={**os.environ, "PYTHONPATH": sys_path})  # the cache
    out = subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": sys_path})
    assert out.stdout.strip() == "[]"


# --- store columns ------------------------------------------------------------------------

PATH_TEXT = st.lists(st.sampled_from(list('ab "\\,[]:{}\n\t') + ["小麦", "\u2028", "\x7f", "é",
                                                                 '", "', '["', '"]']),
                     max_size=6).map("".join)


@settings(max_examples=500, deadline=None)
@given(value=st.one_of(st.lists(PATH_TEXT, max_size=5),
                       st.lists(st.one_of(PATH_TEXT, st.integers(), st.none()), max_size=4)))
def test_heading_path_column_reads_as_the_json_parser_reads_it(value):
    text = _dump(value)
    got = _load_strings(text)
    assert got == json.loads(text) and type(got) is list


@given(st.lists(st.sampled_from([0.0, 0.5, 1.0, 1.5, 2.0]), min_size=1, max_size=60),
       st.integers(1, 20))
def test_top_keeps_the_lowest_chunk_numbers_among_ties_at_the_cut(values, n):
    scores = np.array(values, dtype=np.float32)
    got = top(scores, n)
    want = sorted((i for i in range(len(values)) if values[i] > 0),
                  key=lambda i: (-values[i], i))[:n]  # what the engine's list keeps
    assert got.keys.tolist() == want
    assert got.scores.tolist() == [values[i] for i in want]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from([0.0, 1.0, 2.5]), st.floats(0, 10, width=32)),
                min_size=1, max_size=500),
       st.integers(1, 40))
def test_top_past_the_strided_bound_is_the_definition(values, n):
    """Long lists take the bound from every TOP_STRIDE-th score first: still the definition."""
    scores = np.array(values, dtype=np.float32)
    got = top(scores, n)
    want = sorted((i for i in range(len(values)) if scores[i] > 0),
                  key=lambda i: (-scores[i], i))[:n]
    assert got.keys.tolist() == want
    assert got.scores.tolist() == [float(scores[i]) for i in want]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3999), st.sampled_from([0.5, 1.0, 2.5, 7.0])),
                max_size=300),
       st.integers(1, 60), st.sampled_from([np.float32, np.float64]))
def test_top_of_mostly_zero_scores_is_the_definition(placed, n, dtype):
    """A BM25 list over thousands of chunks of which a few hold the terms: the floor taken
    from every TOP_STRIDE-th positive score (when it has n of them) still keeps the ties
    at the cut by chunk number, and below n sampled positives every positive counts."""
    scores = np.zeros(4000, dtype=dtype)
    for at, value in placed:
        scores[at] = value
    got = top(scores, n)
    want = sorted(np.flatnonzero(scores > 0).tolist(), key=lambda i: (-scores[i], i))[:n]
    assert got.keys.tolist() == want
    assert got.scores.tolist() == [float(scores[i]) for i in want]
