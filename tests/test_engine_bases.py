"""Two knowledge bases published into one Milvus database (issue 14): each release records
the knowledge base it is of (the manifest's ``source.base``, the collection's ``kb.base``),
so the second's publish never takes the first's alias, `keep` prunes only a knowledge
base's own releases, and a rollback never serves another's release, though both are
tagged kb-r1, kb-r2, … alike. A release whose base is not known (published before it was
recorded, built from a shallow clone) is still found and replaced as before, and prunes or
rolls back to none whose base is known."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import ALIAS, P_BASE, check_alias, connect_url
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.index.manifest import load_manifest
from kbtools.query.search import search
from kbtools.serve.app import open_source
from tests.hostile import git, make_repo
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_failures import QUESTION, _engine, _rel, signed, signed_device  # noqa: F401 - fixture
from tests.test_engine_prune import ZH_DOC, zh_page
from tests.test_engine_races import Interposed, _once

PLANT_QUESTION = "滴灌管多久冲洗一次"
PLANT_DOC = "knowledge/灌溉.md"


@pytest.fixture(scope="module")
def plant(tmp_path_factory):
    """A second knowledge base (its own repository, key and device): kb-r1 and kb-r2."""
    base = tmp_path_factory.mktemp("plant")
    kr = make_repo(base / "kr", docs={PLANT_DOC: ZH_DOC})
    later = {"knowledge/过滤器.md": zh_page("过滤器", "过滤器每月拆开清洗一次。")}
    return signed_device(base, kr, [later])


def _cited(eng, question: str, alias: str = ALIAS) -> set[str]:
    res = search(EngineReader(eng, alias).current(), question, keep_results=True)
    return {r.citation.doc for r in res.results}


def test_a_release_records_its_knowledge_base(signed, plant, tmp_path):  # noqa: F811
    """Releases of one repository share their base however its history grows; another
    repository's differ, and so does a knowledge base in a folder of a repository."""
    dev, _ = signed
    bases = [load_manifest(_rel(dev, n))["source"].get("base") for n in (1, 3)]
    other = load_manifest(_rel(plant, 2))["source"].get("base")
    assert bases[0] and bases[0] == bases[1] and other and other != bases[0]
    mono = tmp_path / "mono"
    make_repo(mono / "crops", commit=False)
    git(mono, "init", "-q", "-b", "main")
    git(mono, "add", "-A")
    git(mono, "commit", "-q", "-m", "two knowledge bases")
    build(load_config(mono / "crops"), BuildOptions(progress=False))
    root = git(mono, "rev-parse", "HEAD").strip()
    assert load_manifest(mono / "crops" / "dist")["source"]["base"] == f"{root}:crops"
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{mono}", str(shallow))
    build(load_config(shallow / "crops"), BuildOptions(progress=False))
    assert "base" not in load_manifest(shallow / "crops" / "dist")["source"]  # not known


def test_a_second_knowledge_base_never_takes_the_first_ones_alias(signed, plant, milvus):  # noqa: F811
    """The plant knowledge base's kb-r2 published into the database serving the crops
    one's kb-r1: it moved kb_current, and every reader of the crops knowledge base got the
    plant one's answers. It is refused before anything is written, naming --alias; behind
    an alias of its own it is served beside the first, each answering from its own."""
    dev, _ = signed
    url = milvus.url("twokbs")
    eng = _engine(milvus, "twokbs")
    first = publish(eng, check_release(_rel(dev, 1)))
    before = sorted(eng.client.list_collections())
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(_rel(plant, 2))])
    assert res.exit_code == 1, res.output
    assert "another knowledge base" in res.output and "--alias" in res.output, res.output
    assert len(res.output.strip().splitlines()) == 1, res.output
    assert sorted(eng.client.list_collections()) == before  # nothing written
    assert eng.alias_target() == first.collection
    assert PLANT_DOC not in _cited(eng, PLANT_QUESTION)
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(_rel(plant, 2)),
                                    "--alias", "plant", "--json"])
    assert res.exit_code == 0, res.output
    assert eng.alias_target() == first.collection
    res = CliRunner().invoke(main, ["query", "--engine", url, "--alias", "plant", "--json",
                                    PLANT_QUESTION])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["results"][0]["doc"] == PLANT_DOC
    assert PLANT_DOC not in _cited(eng, PLANT_QUESTION)
    # the web app's release list (/release, /api/releases): its own knowledge base's only
    for alias, want in ((ALIAS, first.collection), ("plant", eng.alias_target("plant"))):
        listed = open_source(None, url, engine_alias=alias).published()
        assert [(r["collection"], r["current"]) for r in listed or []] == [(want, True)]
    eng.close()


def test_a_publish_does_not_take_an_alias_another_knowledge_base_took_while_it_loaded(
        signed, plant, milvus):  # noqa: F811
    """The plant knowledge base's first publish took kb_current while the crops one's was
    loading (minutes for a large release): the crops publish then moved the alias over it.
    It checks the alias again before moving it and leaves it to the plant one."""
    dev, _ = signed
    url = milvus.url("tookmeanwhile")
    eng, other = _engine(milvus, "tookmeanwhile"), connect_url(url)
    took: list[str] = []
    eng.client = Interposed(eng.client, {"load_collection": _once(lambda: took.append(
        publish(other, check_release(_rel(plant, 1))).collection))})
    with pytest.raises(EngineError, match="another knowledge base.*is loaded but the alias "
                                          "was not moved"):
        publish(eng, check_release(_rel(dev, 1)))
    assert took and other.alias_target() == took[0]
    assert PLANT_DOC in _cited(other, PLANT_QUESTION)
    eng.close()
    other.close()


def test_a_reader_without_the_alias_of_its_knowledge_base_is_told_which_there_are(
        plant, milvus):  # noqa: F811
    """A database holding one knowledge base behind `--alias plant`: `kb query --engine`
    without --alias said "no release is published here". It names the aliases there."""
    url = milvus.url("onlyplant")
    publish(_engine(milvus, "onlyplant"), check_release(_rel(plant, 1)), alias="plant")
    res = CliRunner().invoke(main, ["query", "--engine", url, PLANT_QUESTION])
    assert res.exit_code == 1
    assert "alias kb_current is missing" in res.output and "--alias plant" in res.output, \
        res.output


def test_keep_and_rollback_stay_within_their_knowledge_base(signed, plant, milvus):  # noqa: F811
    """Both tagged kb-r1, kb-r2: the plant knowledge base's publish with `keep 1` dropped
    the crops one's kb-r1 (the release its rollback goes back to), and a rollback of the
    plant alias served the crops one's kb-r1. Now each counts and rolls back among its own."""
    dev, _ = signed
    eng = _engine(milvus, "twokeep")
    a1 = publish(eng, check_release(_rel(dev, 1)))
    a2 = publish(eng, check_release(_rel(dev, 2)))
    b1 = publish(eng, check_release(_rel(plant, 1)), alias="plant")
    b2 = publish(eng, check_release(_rel(plant, 2)), alias="plant", keep=1)
    assert b2.pruned == (b1.collection,)
    assert eng.client.has_collection(a1.collection)
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng, alias="plant")
    with pytest.raises(EngineError, match="another knowledge base"):
        rollback(eng, "kb-r1", alias="plant")
    assert eng.alias_target("plant") == b2.collection
    assert rollback(eng, "kb-r2", alias="plant")["to"] == b2.collection
    with pytest.raises(EngineError, match="several knowledge bases"):
        rollback(eng, "kb-r2", alias="fresh")  # an alias serving none: whose kb-r2?
    assert rollback(eng, b2.collection, alias="fresh")["to"] == b2.collection
    assert rollback(eng)["to"] == a1.collection
    assert rollback(eng, "kb-r2")["to"] == a2.collection
    assert PLANT_DOC in _cited(eng, PLANT_QUESTION, "plant")
    a3 = publish(eng, check_release(_rel(dev, 3)), keep=1)
    assert set(a3.pruned) == {a1.collection, a2.collection}
    assert eng.alias_target("plant") == b2.collection
    eng.close()


def test_a_release_published_before_bases_were_recorded_is_still_found(signed, milvus):  # noqa: F811
    """A collection without ``kb.base`` (published by an earlier kbtools) is any knowledge
    base's: it is still served and replaced by its knowledge base's next release, and
    rolled back to, as before; the new release records its base."""
    dev, _ = signed
    eng = _engine(milvus, "legacybase")
    old = publish(eng, check_release(_rel(dev, 1)))
    eng.client.drop_collection_properties(old.collection, [P_BASE])
    assert search(EngineReader(eng).current(), QUESTION).release.tag == "kb-r1"
    new = publish(eng, check_release(_rel(dev, 2)))
    assert new.moved and eng.properties(new.collection)[P_BASE]
    assert rollback(eng)["to"] == old.collection
    eng.close()


def test_a_release_not_knowing_its_base_is_published_as_before(signed, milvus, tmp_path):  # noqa: F811
    """A build from a shallow clone records no base: publishing it onto a knowledge base's
    alias is not refused (it cannot be told apart), but its `keep 1` drops no release whose
    knowledge base is known (it may be another's), and a rollback from it serves one only
    when its collection is named."""
    dev, kr = signed
    eng = _engine(milvus, "nobase")
    r1 = publish(eng, check_release(_rel(dev, 1)))
    r2 = publish(eng, check_release(_rel(dev, 2)))
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{kr}", str(shallow))
    shutil.rmtree(shallow / "dist", ignore_errors=True)
    build(load_config(shallow), BuildOptions(progress=False))
    res = publish(eng, check_release(shallow / "dist"), keep=1)
    assert res.moved and P_BASE not in eng.properties(res.collection)
    assert res.pruned == ()
    assert {r["collection"] for r in eng.releases()} == {r1.collection, r2.collection,
                                                         res.collection}
    with pytest.raises(EngineError, match="give the collection"):
        rollback(eng, "kb-r2")
    assert rollback(eng, r2.collection)["to"] == r2.collection
    eng.close()


def _named_build(root, name: str, doc: dict[str, str]):
    """A repository whose kb.toml names its knowledge base `name`, built: its dist/."""
    repo = make_repo(root, docs=doc, commit=False)
    with (repo / "kb.toml").open("a", encoding="utf-8") as f:
        f.write(f'\n[release]\nknowledge_base = "{name}"\n')
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "knowledge")
    build(load_config(repo), BuildOptions(progress=False))
    return repo / "dist"


def test_two_knowledge_bases_named_in_chinese_publish_to_one_server_apart(milvus, tmp_path):  # noqa: F811
    """农业知识 and 设备维护 in one database: the second is refused kb_current and told to
    publish behind an alias of its own name; `--alias 设备维护` was refused too (Milvus
    names are ASCII), so neither could use its own name, and any `_`-for-each-character
    name would make both `____`. Each name is now an alias of its own, distinct and the
    same for every command: each knowledge base's readers get its own release."""
    agri = _named_build(tmp_path / "agri", "农业知识", {PLANT_DOC: ZH_DOC})
    equip = _named_build(tmp_path / "equip", "设备维护", {
        "knowledge/过滤器.md": zh_page("过滤器", "过滤器每月拆开清洗一次。")})
    url = milvus.url("named_zh")

    def run(*args: str) -> tuple[int, str]:
        res = CliRunner().invoke(main, [*args, "--engine", url])
        return res.exit_code, res.output

    assert run("publish", "--index", str(agri))[0] == 0
    code, out = run("publish", "--index", str(equip))
    assert code == 1 and "--alias '设备维护'" in out, out
    for dist, name in ((equip, "设备维护"), (agri, "农业知识")):
        code, out = run("publish", "--index", str(dist), "--alias", name)
        assert code == 0, out
    eng = connect_url(url)
    try:
        served = {eng.alias_target(a) for a in (ALIAS, check_alias("农业知识"))}
        other = eng.alias_target(check_alias("设备维护"))
    finally:
        eng.close()
    assert len(served) == 1 and other is not None and other not in served
    for dist, name in ((equip, "设备维护"), (agri, "农业知识")):
        code, out = run("query", "--json", "--no-log", "--alias", name, PLANT_QUESTION)
        assert code == 0, out
        want = load_manifest(dist)["source"]["commit"]
        assert json.loads(out)["release"]["source_commit"] == want
    # a reader of a database holding it alone, without --alias, is told which alias is
    # which knowledge base's (the alias alone, kb_8720d64d15, said nothing of 设备维护)
    alone = milvus.url("named_zh_alone")
    res = CliRunner().invoke(main, ["publish", "--index", str(equip), "--engine", alone,
                                    "--alias", "设备维护"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(main, ["query", "--engine", alone, PLANT_QUESTION])
    assert res.exit_code == 1
    assert f"served behind {check_alias('设备维护')} (设备维护): give --alias " in res.output, \
        res.output
