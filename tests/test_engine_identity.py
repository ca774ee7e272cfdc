"""Which knowledge base a release is of, when first commits mislead (issue 14): two knowledge
bases that share a first commit (a repository copied and split in two, two started from one
template) were one knowledge base to a Milvus database, so the second's publish took the
first's alias; and a rewritten history (filter-repo, a squash of the first commits) made a
knowledge base another one, whose publish was refused with no way forward but another alias.
kb.toml's ``[release] knowledge_base`` names a knowledge base (`kbtools.base_identity`), and
``kb publish --same-knowledge-base`` takes a rewritten history's releases over."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_search
from kbtools.base_identity import base_of, same_base
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.milvus import P_BASE, connect_url
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.errors import EngineError
from kbtools.index.manifest import load_manifest
from kbtools.serve.app import create_app, open_source
from tests.hostile import git, make_repo
from tests.milvus_server import milvus  # noqa: F401 - fixture
from tests.test_engine_asked import _MetaReads
from tests.test_engine_failures import signed_device
from tests.test_engine_prune import zh_page


def _named(repo: Path, name: str) -> None:
    with (repo / "kb.toml").open("a", encoding="utf-8") as f:
        f.write(f'\n[release]\nknowledge_base = "{name}"\n')


def _commit(repo: Path, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text, encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


def _built(repo: Path, out: str) -> Path:
    """The repository built into `out` (a folder of its own per release)."""
    build(load_config(repo), BuildOptions(out=repo / out, progress=False))
    return repo / out


def _base(dist: Path) -> str | None:
    base: str | None = load_manifest(dist)["source"].get("base")
    return base


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """Two knowledge bases cloned from one template repository, each with a page of its own:
    their unnamed builds, and their builds once each is named (作物, plant)."""
    top = tmp_path_factory.mktemp("twins")
    template = make_repo(top / "template")
    out = {}
    for kb, page in (("crops", zh_page("小麦", "小麦赤霉病在抽穗期防治。")),
                     ("plant", zh_page("过滤器", "过滤器每月拆开清洗一次。"))):
        repo = top / kb
        git(top, "clone", "-q", str(template), str(repo))
        _commit(repo, {f"knowledge/{kb}.md": page}, f"{kb} page")
        out[kb] = _built(repo, "dist-unnamed")
        _named(repo, "作物" if kb == "crops" else "plant")
        _commit(repo, {}, "name the knowledge base")
        out[kb + "-named"] = _built(repo, "dist-named")
    return out


def test_a_template_s_two_knowledge_bases_are_told_apart_by_their_names(twins):
    """Both start at the template's first commit: unnamed, their bases are one; named,
    they differ, and each named base is still the same knowledge base as its own unnamed
    releases (published before the name was given)."""
    crops, plant = _base(twins["crops"]), _base(twins["plant"])
    assert crops and crops == plant  # what a first commit alone can tell
    named_crops, named_plant = _base(twins["crops-named"]), _base(twins["plant-named"])
    assert named_crops == json.dumps(["作物", crops], ensure_ascii=False)
    assert named_crops and named_plant and not same_base(named_crops, named_plant)
    assert same_base(named_crops, crops) and same_base(named_plant, plant)


def test_a_named_knowledge_base_never_takes_its_twin_s_alias(twins, milvus):  # noqa: F811
    """The plant knowledge base's publish into the database serving the crops one moved
    kb_current: they shared a first commit. Both named, it is refused before anything is
    written. The crops one's named release took the alias from its unnamed one, which a
    rollback still serves as its own. (An unnamed release may be either's: both are named
    to be told apart, docs/scale.md.)"""
    eng = connect_url(milvus.url("twins"), create_db=True)
    first = publish(eng, check_release(twins["crops"]))
    second = publish(eng, check_release(twins["crops-named"]), keep=2)
    assert second.moved and eng.alias_target() == second.collection
    before = sorted(eng.client.list_collections())
    with pytest.raises(EngineError, match=r'another knowledge base \("作物" \(first commit .*'
                                          r'this release is of "plant" \(first commit'):
        publish(eng, check_release(twins["plant-named"]))
    assert sorted(eng.client.list_collections()) == before
    assert eng.alias_target() == second.collection
    plant = publish(eng, check_release(twins["plant-named"]), alias="plant")
    assert plant.moved and eng.alias_target() == second.collection
    with pytest.MonkeyPatch.context() as mp:  # its repository shows it is its history
        mp.chdir(twins["crops-named"].parent)
        assert rollback(eng)["to"] == first.collection  # its unnamed release is its own
    eng.close()


def test_a_shallow_clone_of_a_named_knowledge_base_knows_its_base(twins, tmp_path):
    """A shallow clone (CI's default checkout) cannot tell its first commit, so its
    release was of no known knowledge base; named, it is its knowledge base's."""
    repo = twins["plant-named"].parent
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    base = _base(_built(shallow, "dist"))
    assert base == base_of(None, "plant")
    assert same_base(base, _base(twins["plant-named"]) or "")


def test_a_rewritten_history_is_taken_over_with_same_knowledge_base(tmp_path, milvus):  # noqa: F811
    """The history squashed into a new first commit: its publish was refused as another
    knowledge base's, saying only to use another alias or database. The message names
    --same-knowledge-base, which moves the alias and makes the old releases this
    knowledge base's: a rollback goes back to them and keep counts them."""
    repo = make_repo(tmp_path / "kr")
    old = _built(repo, "dist-old")
    _commit(repo, {"knowledge/滴灌.md": zh_page("滴灌", "滴灌管每周冲洗一次。")}, "drip")
    git(repo, "checkout", "-q", "--orphan", "squashed")
    git(repo, "commit", "-q", "-m", "squashed history")
    git(repo, "branch", "-q", "-M", "main")
    new = _built(repo, "dist-new")
    assert not same_base(_base(old) or "", _base(new) or "")
    url = milvus.url("rewritten")
    eng = connect_url(url, create_db=True)
    first = publish(eng, check_release(old))
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(new)])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1, res.output
    assert "--same-knowledge-base" in res.output and "history rewritten" in res.output
    assert eng.alias_target() == first.collection
    res = CliRunner().invoke(main, ["publish", "--engine", url, "--index", str(new),
                                    "--same-knowledge-base", "--json"])
    assert res.exit_code == 0, res.output
    moved = json.loads(res.output)["collection"]
    assert eng.alias_target() == moved
    assert eng.properties(first.collection)[P_BASE] == _base(new)
    assert rollback(eng)["to"] == first.collection
    eng.point_alias(moved)
    again = publish(eng, check_release(new), keep=1)  # served already: nothing to do
    assert not again.changed
    eng.close()


def test_a_named_twin_never_takes_its_unnamed_twin_s_alias(twins, milvus, tmp_path,  # noqa: F811
                                                          monkeypatch):
    """The plant knowledge base, still unnamed, serves kb_current; the crops one, named
    since, shares its first commit (both cloned from one template), so its publish took
    the alias: a named release and an unnamed one of one first commit were one knowledge
    base's. The commits tell them apart: plant's is not in crops' history, so the takeover
    is refused before anything is written, naming both; so it is when the repository that
    could show it is not at hand. --same-knowledge-base is the operator's word that it is."""
    eng = connect_url(milvus.url("twins_unnamed"), create_db=True)
    plant = publish(eng, check_release(twins["plant"]))
    before = sorted(eng.client.list_collections())
    with pytest.raises(EngineError, match=r"alias kb_current serves kb_build_\w+ \(first "
                                          r"commit \w{12}\), which shares this release's "
                                          r"first commit but may be another knowledge "
                                          r"base's \(its commit \w{12} is not in this "
                                          r"release's history\); this release is of "
                                          r'"作物" \(first commit \w{12}\); nothing was '
                                          "written"):
        publish(eng, check_release(twins["crops-named"]))
    away = tmp_path / "away"
    shutil.copytree(twins["crops-named"], away)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(EngineError, match="the repository this release was built from "
                                          r"\(commit \w{12}\) is not here to show it is"):
        publish(eng, check_release(away))
    assert sorted(eng.client.list_collections()) == before
    assert eng.alias_target() == plant.collection
    taken = publish(eng, check_release(twins["crops-named"]), same_base=True)
    assert taken.moved and eng.alias_target() == taken.collection
    assert eng.properties(plant.collection)[P_BASE] == _base(twins["crops-named"])
    eng.close()


def test_a_named_twin_s_keep_never_drops_its_unnamed_twin_s_releases(twins, milvus,  # noqa: F811
                                                                       monkeypatch):
    """plant's unnamed release, replaced behind its own alias by its named one, is its
    rollback target. crops, named, publishes into the same database with --keep 1: its
    keep counted plant's unnamed release as its own (one first commit) and dropped it. The
    commits show it is not crops' history, so it stays, and plant rolls back to it."""
    eng = connect_url(milvus.url("twins_keep"), create_db=True)
    old = publish(eng, check_release(twins["plant"]), alias="plant")
    new = publish(eng, check_release(twins["plant-named"]), alias="plant")
    assert new.moved and eng.alias_target("plant") == new.collection
    crops = publish(eng, check_release(twins["crops-named"]), keep=1)
    assert crops.moved and old.collection not in crops.pruned
    assert old.collection in eng.client.list_collections()
    monkeypatch.chdir(twins["plant-named"].parent)  # its repository shows it is its own
    assert rollback(eng, alias="plant")["to"] == old.collection
    eng.close()


def test_a_named_knowledge_base_never_rolls_back_to_its_unnamed_twin_s_release(twins, milvus,  # noqa: F811
                                                                            monkeypatch):
    """plant, unnamed, serves behind its own alias; crops, named, serves kb_current. `kb
    rollback --engine` of kb_current went back to plant's release (the only older one of
    crops' first commit) and crops' readers got plant's answers. Run in crops' repository,
    the commits show it is not crops' history; run elsewhere nothing shows it is: either
    way it is no rollback target, and the line says why; named, the collection is served."""
    eng = connect_url(milvus.url("twins_rollback"), create_db=True)
    plant = publish(eng, check_release(twins["plant"]), alias="plant")
    crops = publish(eng, check_release(twins["crops-named"]))
    assert crops.moved
    for where in (twins["crops-named"].parent, twins["crops-named"].parent.parent):
        monkeypatch.chdir(where)
        with pytest.raises(EngineError, match=rf"no older published release to roll back to "
                                              rf"\({plant.collection}: not named"):
            rollback(eng)
        assert eng.alias_target() == crops.collection
    assert rollback(eng, plant.collection)["to"] == plant.collection
    eng.close()


def test_the_served_release_page_lists_its_own_releases_not_an_unnamed_twin_s(
        twins, milvus, monkeypatch):  # noqa: F811
    """`kb serve --engine`'s release page listed the releases of the served knowledge base
    by first commit: crops, named and serving kb_current, listed plant's unnamed release
    (behind plant's own alias) as one of its own. It lists what `kb rollback --engine` run
    there may go back to: crops' own unnamed release where crops' repository shows it is
    its history, plant's never."""
    url = milvus.url("twins_page")
    eng = connect_url(url, create_db=True)
    publish(eng, check_release(twins["plant"]), alias="plant")
    publish(eng, check_release(twins["crops"]))
    assert publish(eng, check_release(twins["crops-named"])).moved
    eng.close()
    # a row names its release by its manifest's sha256
    plant, own, crops = (hashlib.sha256((twins[d] / "manifest.json").read_bytes()
                                        ).hexdigest()[:12]
                         for d in ("plant", "crops", "crops-named"))
    for where, listed in ((twins["crops-named"].parent, {crops, own}),
                          (twins["crops-named"].parent.parent, {crops})):
        monkeypatch.chdir(where)
        with TestClient(create_app(None, source=open_source(None, url)),
                        base_url="http://127.0.0.1") as client:
            page = client.get("/release")
        assert page.status_code == 200, page.text
        shown = {sha for sha in (plant, own, crops) if f"<code>{sha}</code>" in page.text}
        assert shown == listed, page.text


@pytest.fixture(scope="module")
def signed_named(tmp_path_factory):
    """A knowledge base's signed releases synced onto a device: kb-r1 before kb.toml named
    it, kb-r2 once named 作物; and its twin (cloned from it before it was named, with a key
    of its own),
    whose kb-r2 is named too. Returns (the device, the twin's device)."""
    top = tmp_path_factory.mktemp("signed_named")
    out = []
    for name in ("crops", "twin"):
        repo = make_repo(top / name) if name == "crops" else top / name
        if name == "twin":
            git(top, "clone", "-q", str(top / "crops"), str(repo))
            git(repo, "reset", "-q", "--hard", "HEAD~1")  # before crops was named
        toml = (repo / "kb.toml").read_text(encoding="utf-8")
        named = toml + f'\n[release]\nknowledge_base = "{"作物" if name == "crops" else "plant"}"\n'
        out.append(signed_device(top / f"{name}-ship", repo, [{"kb.toml": named}]))
    return out[0], out[1]


def test_a_first_named_release_published_away_from_its_repository_takes_the_alias(
        signed_named, milvus, tmp_path, monkeypatch):  # noqa: F811
    """A knowledge base named since its last release publishes its first named release from
    the device it was synced to (no repository there): refused ("the repository this release
    was built from … is not here to show it is"), so every first named publish outside CI's
    checkout needed --same-knowledge-base. Signed by the key that signed the served release,
    it is that publisher's next release: the alias moves, and keep counts the unnamed one
    as this knowledge base's. A twin's named release (its own key) is still refused."""
    dev, twin = signed_named
    monkeypatch.chdir(tmp_path)  # no repository here
    eng = connect_url(milvus.url("signed_named"), create_db=True)
    try:
        first = publish(eng, check_release(dev / "releases" / "kb-r1"))
        before = sorted(eng.client.list_collections())
        with pytest.raises(EngineError, match="is not here to show it is, nor a signature"):
            publish(eng, check_release(twin / "releases" / "kb-r2"))
        assert sorted(eng.client.list_collections()) == before
        named = publish(eng, check_release(dev / "releases" / "kb-r2"), keep=1)
        assert named.moved and eng.alias_target() == named.collection
        assert named.pruned == (first.collection,)  # its own release, counted by keep
    finally:
        eng.close()


def test_the_served_release_is_read_once_per_publication(twins, milvus, monkeypatch):  # noqa: F811
    """crops, named, serves kb_current beside its own unnamed release and plant's (one
    first commit). Each look at its releases (the release page, a search asking for an
    earlier release) read the served release's manifest and signer, and each other
    release's commit, from its ``__meta`` again. They are read once per publication: the
    second look reads no ``__meta``; a release published again is read anew, and a
    release the alias moved to is the one the list is of."""
    url = milvus.url("twins_seen")
    eng = connect_url(url, create_db=True)
    publish(eng, check_release(twins["plant"]), alias="plant")
    own = publish(eng, check_release(twins["crops"]))
    named = publish(eng, check_release(twins["crops-named"]))
    assert named.moved
    eng.close()
    monkeypatch.chdir(twins["crops-named"].parent)  # its repository shows crops' history
    source = open_source(None, url)
    counted = source.reader.engine.client = _MetaReads(source.reader.engine.client)
    ctx = Context(opener=source.reader.current)

    def listed() -> set[str]:
        return {r["collection"] for r in source.published() or []}

    def asked() -> str:
        return str(tool_search(ctx, "小麦", release=own.collection)["release"]["tag"] or "")

    mine = {own.collection, named.collection}
    assert listed() == mine
    asked()
    first = counted.reads
    assert first > 0
    for _ in range(3):
        assert listed() == mine
        asked()
    assert counted.reads == first  # nothing read again
    source.reader.engine.call("dropping", "drop_collection", own.collection + "__meta")
    assert listed() == {named.collection}
    eng = connect_url(url)
    try:
        assert publish(eng, check_release(twins["crops"])).changed  # loaded again
    finally:
        eng.close()
    source.reader.engine.point_alias(named.collection)
    before = counted.reads
    assert listed() == mine
    assert counted.reads > before  # its new publication read anew
    monkeypatch.chdir(twins["crops-named"].parent.parent)  # nothing here shows it
    assert listed() == {named.collection}
    source.reader.engine.point_alias(own.collection)  # the alias moves: the list is of it
    assert own.collection in listed() and named.collection not in listed()
