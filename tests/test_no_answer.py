"""The per-index no-answer calibration (`kbtools.query.calibration`): reproducible bytes in
the release, a tiny index that still answers everyday phrasings of its own subject, an
index of one domain that refuses the other domains' questions, and releases without the
record keeping the global rule. Real builds, the shipped models."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import IndexLoadError
from kbtools.index.bm25 import Bm25
from kbtools.index.manifest import load_manifest
from kbtools.index.reader import open_index
from kbtools.query import calibration, fusion
from kbtools.query.quality import load_questions
from kbtools.query.search import calibrated, search
from tests.hostile import built_repo_index, make_repo
from tests.kbfixtures import GOOD_FM, REPO, copy_example

SEAL = GOOD_FM.replace("title: Generated", "title: Seal replacement") + """
# Seal replacement

The mechanical seal wears faster when the pump runs dry. Drain the casing, pull the
impeller and press the new seal in by hand; never hammer the carbon face.
"""

FILTER = GOOD_FM.replace("title: Generated", "title: 水泵过滤器") + """
# 水泵过滤器

灌溉水泵入口过滤器每 200 小时清洗一次，滤网破损时更换。压差超过 0.05 MPa 说明滤网堵塞。
"""


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """Three documents, the shipped models."""
    return built_repo_index(tmp_path_factory.mktemp("tiny") / "repo", {
        "knowledge/seal.md": SEAL, "knowledge/filter.md": FILTER})


def test_calibration_is_in_the_release_and_reproducible(tmp_path):
    """Same knowledge, same bytes; the record is a hashed artifact of the manifest."""
    repo = make_repo(tmp_path / "repo", docs={"knowledge/seal.md": SEAL,
                                              "knowledge/filter.md": FILTER})
    outs = [tmp_path / "a", tmp_path / "b"]
    for out in outs:
        build(load_config(repo), BuildOptions(out=out, progress=False, use_cache=False))
    first, second = ((out / "data" / "no_answer.json").read_bytes() for out in outs)
    assert first == second
    record = json.loads(first)
    assert record["version"] == calibration.CALIBRATION_VERSION
    assert calibration.FLOOR <= record["max_unknown_share"] <= calibration.CEILING
    # three headings, each set in every frame (fewer than MIN_PSEUDO_QUERIES exist)
    assert record["in_scope"]["pseudo_queries"] == 3 * len(calibration.FRAMES["en"])
    manifests = [load_manifest(out) for out in outs]
    assert manifests[0]["artifacts"]["data/no_answer.json"] == \
        manifests[1]["artifacts"]["data/no_answer.json"]
    assert calibration.dump(calibration.calibrate(open_index(outs[0]))) == first


def test_tiny_index_answers_everyday_phrasings_of_its_subject(tiny):
    """A handful of documents lacks everyday words ("how often", "check"): its limit is
    raised above the floor, and questions about its subject are answered."""
    idx = open_index(tiny)
    cal = calibration.load(idx)
    assert cal is not None and cal.max_unknown_share > calibration.FLOOR
    for q in ("how often to replace the pump seal",
              "how do I replace the mechanical seal of the pump?",
              "can the pump run dry?",
              "水泵过滤器多久清洗一次",
              "过滤器压差大是什么原因"):
        res = search(idx, q, k=3)
        assert not res.no_answer and res.results, q
    for q in ("How do I bake sourdough bread?", "红烧肉怎么做才不腻"):
        assert search(idx, q, k=3).no_answer, q


def test_an_index_fusion_parameters_are_made_once_and_are_its_config(tiny):
    """A search read its index's kb.toml ``[query]`` into a new `FusionParams` every time
    (25 fields through `__init__`, ~8 µs); now once per opened index, the same values."""
    idx, other = open_index(tiny), open_index(tiny)
    params = calibration.configured_params(idx)
    assert params == fusion.FusionParams.from_config(idx.manifest["config"]["values"]["query"])
    assert calibration.configured_params(idx) is params
    assert calibration.configured_params(other) is not params
    idx.manifest["config"]["values"]["query"] = {"candidates": 7}  # (another config read)
    assert calibration.configured_params(idx).candidates == 7


def test_release_without_the_record_keeps_the_global_rule(tiny, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(tiny, old)
    (old / "data" / "no_answer.json").unlink()
    idx = open_index(old)
    params = fusion.FusionParams.from_config(idx.manifest["config"]["values"]["query"])
    assert calibration.load(idx) is None and calibrated(idx, params) == params
    assert calibrated(open_index(tiny), params).max_unknown_share != params.max_unknown_share
    (old / "data" / "no_answer.json").write_text('{"version": 999}', encoding="utf-8")
    assert calibration.load(open_index(old)) is None  # another version's limit: not applied
    (old / "data" / "no_answer.json").write_text(
        json.dumps({"version": calibration.CALIBRATION_VERSION, "max_unknown_share": "x"}),
        encoding="utf-8")
    with pytest.raises(IndexLoadError, match="no_answer.json: bad no-answer calibration"):
        search(open_index(old), "pump seal")
    (old / "data" / "no_answer.json").write_text("{", encoding="utf-8")
    with pytest.raises(IndexLoadError, match="not a JSON calibration record"):
        open_index(old)


DOMAINS = ("crops", "equipment", "engineering")


@pytest.fixture(scope="module")
def crops_only(tmp_path_factory) -> Path:
    docs = sorted(str(p.relative_to(REPO)) for p in (REPO / "knowledge" / "crops").glob("*.md"))
    repo = copy_example(tmp_path_factory.mktemp("crops"), docs=docs)
    out = repo / "dist"
    build(load_config(repo), BuildOptions(out=out, progress=False))
    return out


def test_index_of_one_domain_refuses_the_other_domains(crops_only):
    """The example's answerable questions, asked of an index of the crop documents alone:
    the equipment and engineering ones are out of its scope now, the crop ones are not."""
    idx = open_index(crops_only)
    questions = [q for q in load_questions(REPO / "tests" / "data" / "known_answers.jsonl")
                 if q["gold"] and len({g["doc"].split("/")[1] for g in q["gold"]}) == 1]
    by_domain = {d: [q for q in questions if q["gold"][0]["doc"].split("/")[1] == d]
                 for d in DOMAINS}
    refused = {d: [search(idx, q["query"], k=5).no_answer for q in qs]
               for d, qs in by_domain.items()}
    assert all(len(r) >= 10 for r in refused.values()), {d: len(r) for d, r in refused.items()}
    assert sum(refused["crops"]) / len(refused["crops"]) <= 0.05
    other = refused["equipment"] + refused["engineering"]
    assert sum(other) / len(other) >= 0.8


def test_cli_json_shows_the_calibrated_verdict(crops_only):
    runner = CliRunner()
    res = runner.invoke(main, ["query", "HX-260 液压油多久换一次", "--index", str(crops_only),
                               "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert out["no_answer"] is True and out["results"] == []
    res = runner.invoke(main, ["query", "HX-260 液压油多久换一次", "--index", str(crops_only)])
    assert res.exit_code == 0 and "No answer in the knowledge" in res.output
    res = runner.invoke(main, ["query", "小麦赤霉病什么时候打药", "--index", str(crops_only),
                               "--json"])
    assert json.loads(res.output)["no_answer"] is False


def test_calibrating_a_release_does_not_load_the_bm25_search(tiny, tmp_path):
    """The calibration reads terms and idf only: a build's calibration step, in a fresh
    process, imports neither bm25s nor scipy, and gives the record the release holds."""
    import subprocess
    import sys

    release = tmp_path / "release"
    shutil.copytree(tiny, release)
    script = ("import json, sys\n"
              "from pathlib import Path\n"
              "from kbtools.query.calibration import write_release\n"
              "path = write_release(Path(sys.argv[1]))\n"
              "print(json.dumps([path.read_text(encoding='utf-8'),"
              " [m for m in ('bm25s', 'scipy') if m in sys.modules]]))\n")
    out = subprocess.run([sys.executable, "-c", script, str(release)], capture_output=True,
                         text=True, check=True, cwd=REPO)
    record, loaded = json.loads(out.stdout)
    assert loaded == []
    assert record == (tiny / "data" / "no_answer.json").read_text(encoding="utf-8")
    # a terms-only view: the searching one's statistics, and it refuses to score
    index = open_index(release)
    terms = Bm25(index.layout.bm25, index.bm25.tok, scoring=False)
    assert terms.num_docs == index.bm25.num_docs == index.store.count()
    _, ids, _ = terms.query_terms("seal impeller 过滤器 滤网")
    assert len(ids) >= 3 and terms.vocab == index.bm25.vocab
    assert list(terms.idf(ids)) == list(index.bm25.idf(ids))
    with pytest.raises(RuntimeError, match="without scoring"):
        terms.scores([0])
    assert index.bm25.scores([0]) is not None


def test_a_setting_the_knowledge_never_names_is_no_answer(example_index):
    """A setting, key or error name the knowledge never mentions (parts joined by "_", "."
    or ":") is as strong a sign as an unknown fault code (E99): the rest of the question's
    words being the index's own ("ingest", "E17") answered it with a page about something
    else, and a row *about* E17 answered a question about E17's unknown setting."""
    idx = open_index(example_index)
    for q in ("how do I set max_upload_retries for ingest",
              "E17 的 reset_delay_ms 参数怎么设置",
              "HX-260 E17 fault_latch.mode 怎么清除"):
        res = search(idx, q, k=3)
        assert res.no_answer and not res.results, (q, [r.doc for r in res.results])
    for q in ("E17 是什么故障", "What does the token_expired error mean?",
              "What does the token_expired error mean, e.g. after an hour?"):
        assert not search(idx, q, k=3).no_answer, q


def test_unknown_name_shapes():
    assert fusion.unknown_name(["tidb_auto_vacuum_interv"])
    assert fusion.unknown_name(["ecs.z99.mega"]) and fusion.unknown_name(["pd:schedul"])
    assert fusion.unknown_name(["e99"]) and fusion.unknown_name(["hx-900"])
    assert not fusion.unknown_name(["e.g", "u.s", "yap1", "apkcz", "fast-twitch", "v12.3"])


def test_a_value_glued_to_its_unit_is_answered_as_spaced(example_index):
    """"92mm 风扇" and "17.5MPa" were no answer where the knowledge writes "92 mm" and
    "17.5 MPa": the glued value was one token the index never saw, an unknown word of the
    highest idf. "35-50℃" missed the row writing "35～50" the same way."""
    idx = open_index(example_index)
    for q, doc, needle in (("92mm 风扇", "hx260-ch07-spare-parts.md", "FAN-92"),
                           ("17.5MPa", "hx260-ch02-specs.md", "17.5"),
                           ("35-50℃ 油温正常吗", "hx260-ch02-specs.md", "35～50")):
        res = search(idx, q, k=3)
        assert not res.no_answer and not res.filters.unknown_terms, q
        top = res.results[0]
        assert top.doc.endswith(doc) and needle in top.text, (q, top.doc, top.text[:80])


def test_a_unit_character_the_knowledge_never_writes_alone_is_no_unknown_subject(
        example_index):
    """"油温80度怎么办" was no answer where "油温80℃怎么办" is answered: the knowledge writes
    ℃, so 度 was an unknown term and weighed as the rarest word in how much of the question
    a passage holds (the unknown-share rule already counted no single character). A single
    character names no subject; the subject still decides."""
    idx = open_index(example_index)
    for q in ("油温80度怎么办", "油温达到80度", "油温 80 度 怎么办"):
        res = search(idx, q, k=3)
        assert not res.no_answer, q
        assert "4.4 油温过高" in res.results[0].heading_path[-1], (q, res.results[0].heading_path)
    assert search(idx, "红烧肉炖80度", k=3).no_answer


def test_a_value_in_chinese_numerals_is_no_unknown_subject(example_index):
    """"油温八十度怎么办" was no answer where "油温80度怎么办" is answered: jieba makes 八十,
    十度 and 八十度 of it, terms the knowledge never writes, and each weighed as the rarest
    word in how much of the question a passage holds and in the unknown-share rule. The
    terms that only make up a value written in Chinese numerals weigh as values do:
    nothing. The subject still decides, and a subject holding numeral characters is one."""
    idx = open_index(example_index)
    for q in ("油温八十度怎么办", "油温 八十 度 怎么办", "油温八十五度怎么办", "油温80度怎么办"):
        res = search(idx, q, k=3)
        assert not res.no_answer, q
        assert "4.4 油温过高" in res.results[0].heading_path[-1], (q, res.results[0].heading_path)
    for q in ("红烧肉炖八十度", "红烧肉炖三个小时", "一氧化碳中毒怎么办", "七星瓢虫", "三七怎么种"):
        assert search(idx, q, k=3).no_answer, q


def test_a_date_is_a_value_not_an_unknown_subject(example_index):
    """"2026-03-19 液压油更换" was no answer where "液压油更换" is answered: the tokenizer
    keeps a hyphenated date whole (2026/03/19 it splits into numbers), and an unknown one
    weighed in the unknown-share rule as an unknown topic word (over half of the question's
    weight). Dates, times and numbers joined by separators are values, as plain numbers
    always were."""
    assert calibration.content_words(
        ["2026-03-19", "2026.03.19", "2026-03-19t10", "1,200", "3.5%", "10:30", "pump",
         "hx-900", "2026_03_19", "v1.2"]) == ["pump", "hx-900", "2026_03_19", "v1.2"]
    idx = open_index(example_index)
    plain = search(idx, "液压油更换", k=3)
    assert not plain.no_answer
    for q in ("2026-03-19 液压油更换", "2026-03-19T10:30 液压油更换"):
        res = search(idx, q, k=3)
        assert not res.no_answer and res.results[0].doc == plain.results[0].doc, q
    assert search(idx, "2026-03-19 红烧肉怎么做", k=3).no_answer  # the subject still decides


def test_a_front_matter_value_the_question_names_is_known(example_index):
    """"黄淮麦区 赤霉病 风险" was no answer: the scab document's region (front matter
    ``region: [黄淮麦区, 长江中下游麦区]``, a routing field) is in the tokenizer's dictionary but
    in no chunk's text, so BM25 listed it among the unknown terms and the unknown-share rule
    read it as a subject the knowledge does not cover. A value the question names is known,
    held by the chunks of the documents carrying it."""
    idx = open_index(example_index)
    for q, heading in (("黄淮麦区 赤霉病 风险", "3. 发病风险判定"),
                       ("长江中下游麦区 赤霉病", None)):  # (any of the scab document's sections)
        res = search(idx, q, k=3)
        assert not res.no_answer and not res.filters.unknown_terms, q
        assert res.filters.routed and res.results[0].doc.endswith("wheat-scab.md"), q
        assert heading is None or res.results[0].heading_path[-1] == heading, q
    res = search(idx, "黄淮麦区 红烧肉怎么做", k=3)  # the region does not answer another subject
    assert res.no_answer and "红烧肉" in (res.filters.unknown_terms or ())
