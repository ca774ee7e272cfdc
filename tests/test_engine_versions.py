"""What a reader of a release in Milvus must agree with (a real `milvus-lite server`): the
BM25 terms were made by the tokenizer version this kb makes of a question. The version is
recorded with the release's collection (``kb.tokens``); a reader making other terms
refuses the release in one line naming the engine (as the local index refuses such an
index/), and publishing the release again with the other kb loads it anew instead of
calling it already published."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine import expr
from kbtools.engine import publish as engine_publish
from kbtools.engine.milvus import ALIAS, META_SUFFIX, connect_url
from kbtools.engine.parts import read_parts
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.engine.remote import EngineReader
from kbtools.errors import EngineError
from kbtools.index import selfcheck
from kbtools.index.layout import ReleaseLayout
from kbtools.index.store import stored_infos
from kbtools.index.tokenize import TOKENS_VERSION
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.milvus_server import milvus, replace_manifest  # noqa: F401 - fixture

QUESTION = "how often to replace the pump seal"
P_TOKENS = "kb.tokens"  # the collection property (docs/scale.md)
NEWER = "v99"  # the tokenizer version of a kb released after this one


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    kr = make_repo(tmp_path_factory.mktemp("versions") / "kr")
    build(load_config(kr), BuildOptions(progress=False))
    return kr / "dist"


def _set_tokens(eng, collection: str, tokens: str | None) -> None:
    """Record `tokens` as the version of a published release's terms (None: no record, as
    a release published before it was recorded has)."""
    if tokens is None:
        eng.client.drop_collection_properties(collection, [P_TOKENS])
    else:
        eng.client.alter_collection_properties(collection, {P_TOKENS: tokens})


def _refused(url: str, words: str) -> None:
    eng = connect_url(url)
    with pytest.raises(EngineError, match=words) as err:
        EngineReader(eng).current()
    assert err.value.path == url and "publish the release again" in err.value.message
    res = CliRunner().invoke(main, ["query", "--engine", url, QUESTION])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1
    assert words.replace("\\", "") in res.output and url in res.output


def test_terms_of_another_tokenizer_are_refused(dist, milvus):  # noqa: F811
    url = milvus.url("tokens")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(dist))
    assert search(EngineReader(eng).current(), QUESTION).results

    _set_tokens(eng, r1.collection, "v2")  # published by a kb of another tokenizer
    _refused(url, f"holds BM25 terms of tokenizer v2, this kb makes {TOKENS_VERSION}")
    assert eng.properties(r1.collection)[P_TOKENS] == "v2"

    _set_tokens(eng, r1.collection, None)  # published before the version was recorded:
    assert P_TOKENS not in eng.properties(r1.collection)
    assert search(EngineReader(eng).current(), QUESTION).results  # the manifest's word
    old = json.loads(read_parts(eng, r1.collection)["manifest"])
    old["tokenizer"]["version"] = old["tokenizer"]["version"].rsplit(";", 1)[0]
    replace_manifest(eng, r1.collection, old)  # a manifest of the old tokenizer (no suffix)
    _refused(url, f"holds BM25 terms of tokenizer v2 or older, this kb makes {TOKENS_VERSION}")


def test_a_kb_making_other_terms_publishes_the_release_anew(dist, milvus, tmp_path,  # noqa: F811
                                                           monkeypatch):
    url = milvus.url("newer")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(dist))
    # the same release as a device with a newer kb has it: index/ derived again, its terms
    # of the newer tokenizer (a device derives index/ itself; the manifest is unchanged)
    newer = tmp_path / "dist"
    shutil.copytree(dist, newer)
    con = sqlite3.connect(ReleaseLayout(newer).store)
    con.execute("UPDATE info SET value = ? WHERE key = 'tokens'", (NEWER,))
    con.commit()
    con.close()
    for module in (selfcheck, engine_publish):  # the rule every reader applies, the name
        monkeypatch.setattr(module, "TOKENS_VERSION", NEWER)
    r2 = publish(eng, check_release(newer))  # not "already published": other terms
    assert r2.changed and r2.collection == f"{r1.collection}_{NEWER}"
    assert r2.previous == r1.collection and eng.alias_target(ALIAS) == r2.collection
    assert eng.properties(r1.collection)[P_TOKENS] == TOKENS_VERSION
    assert eng.properties(r2.collection)[P_TOKENS] == NEWER
    assert not publish(eng, check_release(newer)).changed  # now it is published
    assert search(EngineReader(eng).current(), QUESTION).results  # the newer kb reads it
    monkeypatch.undo()  # this kb again: the served release's terms are not its own
    _refused(url, f"holds BM25 terms of tokenizer {NEWER}, this kb makes {TOKENS_VERSION}")


def test_rollback_serves_only_terms_this_kb_reads(dist, milvus, tmp_path):  # noqa: F811
    """`kb rollback --engine` took the collection published before the served one: the
    served release itself as a kb of another tokenizer had published it, or an older
    release only such a kb published, so every reader of this kb then refused the alias.
    It takes an older release, in the collection of this kb's terms, or moves nothing."""
    url = milvus.url("rollback")
    eng = connect_url(url, create_db=True)
    older = publish(eng, check_release(dist))
    _set_tokens(eng, older.collection, "v2")  # published by a kb of an older tokenizer
    newer = tmp_path / "dist"
    shutil.copytree(dist, newer)
    manifest = json.loads(ReleaseLayout(newer).manifest.read_text(encoding="utf-8"))
    manifest["source"]["dirty"] = not manifest["source"]["dirty"]  # another release
    ReleaseLayout(newer).manifest.write_text(json.dumps(manifest), encoding="utf-8")
    served = publish(eng, check_release(newer)).collection
    words = f"holds BM25 terms of tokenizer v2, this kb makes {TOKENS_VERSION}"
    for tag in (None, older.collection):
        with pytest.raises(EngineError, match=words + ", so its readers would refuse it; "
                           "the alias was not moved"):
            rollback(eng, tag)
        assert eng.alias_target(ALIAS) == served
    res = CliRunner().invoke(main, ["rollback", "--engine", url])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1 and words in res.output
    again = publish(eng, check_release(dist))  # this kb publishes the older release again
    assert again.collection == f"{older.collection}_{TOKENS_VERSION}"
    assert rollback(eng)["to"] == served  # published before it (local builds carry no serial)
    assert rollback(eng) == {"engine": url, "from": served, "to": again.collection, "tag": None}
    assert search(EngineReader(eng).current(), QUESTION).results
    for n in (served, served + META_SUFFIX):  # by hand (milvus-lite drops what an alias serves)
        eng.client.drop_collection(n)
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng)  # never to the served release as another kb published it
    assert eng.alias_target(ALIAS) == again.collection


P_DERIVATION, P_TOKENIZER = "kb.derivation", "kb.tokenizer"  # (docs/scale.md)


def test_a_release_derived_by_other_rules_is_refused_and_published_anew(
        dist, milvus, monkeypatch):  # noqa: F811
    """A local index/ derived by other derivation rules or tokenizer libraries is stale
    (`selfcheck.derivation_problem`); the engine recorded only the tokenizer version, so a
    release published by an older kbtools or with other tokenizer libraries was served as
    current. Its collection records both; a reader of other rules refuses it in one line
    naming the release, publishing it again loads it anew, rollback does not serve it."""
    url = milvus.url("derivation")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(dist))
    props = eng.properties(r1.collection)
    assert props[P_DERIVATION] == selfcheck.DERIVATION
    assert props[P_TOKENIZER] == stored_infos(ReleaseLayout(dist).store)["tokenizer"]

    monkeypatch.setattr(selfcheck, "DERIVATION", "99")  # a newer kbtools reads it
    derived = props[P_DERIVATION]  # (2 since documents' inline tags are stored)
    _refused(url, f"release {r1.collection} in the engine was derived by the rules of "
                  f"kbtools derivation {derived}, this kb derives 99")
    with pytest.raises(EngineError, match=f"derivation {derived}, this kb derives 99, so its "
                       "readers would refuse it; the alias was not moved"):
        rollback(eng, r1.collection)
    monkeypatch.undo()

    old_libs = props[P_TOKENIZER].split("==", 1)[0] + "==0.1;pystemmer==1.0;opencc==1.0:t2s"
    eng.client.alter_collection_properties(r1.collection, {P_TOKENIZER: old_libs})
    _refused(url, f"release {r1.collection} in the engine holds BM25 terms cut by "
                  f"{old_libs}, this kb cuts with {props[P_TOKENIZER]}")
    r2 = publish(eng, check_release(dist))  # not "already published": other libraries
    assert r2.changed and r2.collection == f"{r1.collection}_{TOKENS_VERSION}"
    assert eng.properties(r2.collection)[P_TOKENIZER] == props[P_TOKENIZER]
    assert search(EngineReader(eng).current(), QUESTION).results
    assert not publish(eng, check_release(dist)).changed
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng)  # never to the stale collection of the same release

    # a release published before either was recorded: derivation 1, libraries not known;
    # refused since derivation 2 (its documents' inline tags are not stored)
    eng.client.drop_collection_properties(r2.collection, [P_DERIVATION, P_TOKENIZER])
    assert selfcheck.DERIVATION == "2"
    _refused(url, f"release {r2.collection} in the engine was derived by the rules of "
                  "kbtools derivation 1, this kb derives 2")


P_FILTERS = "kb.filters"  # (docs/scale.md)


def test_filter_fields_stored_by_other_rules_are_refused_and_published_anew(
        dist, milvus):  # noqa: F811
    """A release's rows carry its filter fields (`expr.filter_fields`); one published by a
    kbtools that stored them otherwise (rules 1: no numbers in ``f_num``, so ``size=1``
    missed ``size: 1.0`` in Milvus only) answered filters otherwise than the local index,
    silently. Its collection records the rules (``kb.filters``); a reader of other rules
    refuses it naming the release, rollback does not serve it, publishing loads it anew."""
    url = milvus.url("filters")
    eng = connect_url(url, create_db=True)
    r1 = publish(eng, check_release(dist))
    assert eng.properties(r1.collection)[P_FILTERS] == expr.FILTER_RULES == "23"
    assert search(EngineReader(eng).current(), QUESTION).results

    eng.client.drop_collection_properties(r1.collection, [P_FILTERS])  # an older kbtools's
    said = (f"release {r1.collection} in the engine holds filter fields stored by kbtools "
            f"filter rules 1, this kb filters by rules {expr.FILTER_RULES}")
    _refused(url, said)
    with pytest.raises(EngineError, match=f"{said}, so its readers would refuse it"):
        rollback(eng, r1.collection)
    r2 = publish(eng, check_release(dist))  # not "already published": other filter fields
    assert r2.changed and r2.collection == f"{r1.collection}_{TOKENS_VERSION}"
    assert eng.properties(r2.collection)[P_FILTERS] == expr.FILTER_RULES
    assert search(EngineReader(eng).current(), QUESTION, where=["verified=false"]).results
    assert not publish(eng, check_release(dist)).changed
    with pytest.raises(EngineError, match="no older published release"):
        rollback(eng)  # never to the collection of other filter rules
