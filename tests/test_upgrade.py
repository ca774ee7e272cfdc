"""A newer kbtools on what an older one wrote: releases, derived indexes and caches.

Old artefacts are made here, in the form the older code wrote them (no old tree is run)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from device_fixtures import ADDED, DOCS, NEW_DOC, make_device, second_release
from kbfixtures import copy_example
from starlette.testclient import TestClient
from test_release_helpers import git

import kbtools
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.decision import DecisionTable, build_table, match_rules
from kbtools.embed.cache import EmbeddingCache
from kbtools.errors import TableError
from kbtools.index.layout import ReleaseLayout, shard_of
from kbtools.index.manifest import file_entry, load_manifest, write_manifest
from kbtools.index.materialize import derive_full
from kbtools.index.reader import open_index
from kbtools.index.tokenize import TOKENS_VERSION
from kbtools.query.search import search
from kbtools.serve.app import create_app
from kbtools.serve.staticfiles import STATIC, static_url

SCAB_DOC = "knowledge/crops/wheat-scab.md"
SCAB_QUESTION = "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？"
# 温度(℃) written in °F, as builds before the unit rule shipped it (it passed their check):
# now such a table is malformed, and 22 ℃ must never be compared with 59 °F
FAHRENHEIT = {"<15": "<59°F", "15-20": "59°F-68°F", ">20": ">68°F"}


def _ship_decision_record(root, doc, edit):
    """Rewrite the decision record a build shipped on `doc`'s table chunk (data/chunks/, the
    manifest's entry), then derive index/ again: the release an older build made."""
    layout = ReleaseLayout(root)
    shard = layout.chunk_shard(shard_of(doc))
    rows = [json.loads(line) for line in shard.read_text(encoding="utf-8").splitlines()]
    for row in rows:
        if row["doc"] == doc and "decision" in row.get("extra", {}):
            edit(row["extra"]["decision"])
    shard.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                     encoding="utf-8")
    manifest = load_manifest(root)
    manifest["artifacts"][shard.relative_to(root).as_posix()] = file_entry(shard)
    write_manifest(root, manifest)
    derive_full(root)


def test_an_older_builds_decision_record_is_read_by_todays_rules(example_index, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(example_index, old)

    def fahrenheit(record):
        record["rows"] = [[FAHRENHEIT.get(c, c) if i == 0 else c for i, c in enumerate(r)]
                          for r in record["rows"]]

    _ship_decision_record(old, SCAB_DOC, fahrenheit)
    res = search(open_index(old), SCAB_QUESTION, k=3).to_dict()
    # not evaluated (22 is < 59 would answer 低): the table is no rule, as a build says now
    scab = [r for r in res["results"] if r["doc"] == SCAB_DOC]
    assert scab and not any(r["evaluated"] for r in scab)
    fresh = search(open_index(example_index), SCAB_QUESTION, k=3).to_dict()
    assert fresh["results"][0]["evaluation"]["outputs"][0]["风险等级"] == "极高"


def test_record_numeric_columns_and_inputs_are_decided_again():
    table = build_table(["环境温度(℃)", "报警级别"], [["超过40", "红色"], ["不超过40", "无"]],
                        decision="inputs=环境温度(℃); outputs=报警级别")
    assert table is not None and table.numeric == (0,)
    assert DecisionTable.from_record(table.to_record()) == table
    # an older build read 超过40 as text: the column was not numeric, and 104°F passed
    older = table.to_record() | {"numeric": []}
    again = DecisionTable.from_record(older)
    assert again == table
    # (numeric again: 104°F is 40 °C, converted since session 45, no text compared)
    assert match_rules(again, {"环境温度": "104°F"}).outputs == ({"报警级别": "无"},)
    # an inferred table whose leading column an older build read otherwise: inferred again
    inferred = build_table(["运行小时", "保养项目"], [["≥2,000", "换油"], ["<2,000", "继续"]])
    assert inferred is not None and inferred.inputs == (0,)
    assert DecisionTable.from_record(inferred.to_record() | {"inputs": [0, 1],
                                                             "outputs": []}) == inferred
    # a record whose cells are no decision table now is refused (search does not evaluate it)
    units = table.to_record() | {"rows": [[">104°F", "红色"], ["≤104°F", "无"]]}
    with pytest.raises(TableError, match="°F"):
        DecisionTable.from_record(units)
    plain = inferred.to_record() | {"rows": [["小麦", "换油"], ["水稻", "继续"]]}
    with pytest.raises(TableError, match="not a decision table"):
        DecisionTable.from_record(plain)


# ------------------------------------------------ a device's index derived by an older kbtools


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    d = make_device(tmp_path_factory.mktemp("upgrade"))
    second_release(d)
    return d


def _as_derived_before_the_tokens_record(release):
    """index/ as a kbtools before the tokenizer record derived it: its store names no
    tokenizer (the terms of the example's Simplified text are the same)."""
    con = sqlite3.connect(ReleaseLayout(release).store)
    with con:
        con.execute("DELETE FROM info WHERE key = 'tokens'")
    con.close()


def kb(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


def test_a_served_index_of_an_older_tokenizer_is_derived_again_by_sync(device, tmp_path):
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    _as_derived_before_the_tokens_record(dev / "releases" / "kb-r2")
    code, out, err = kb("query", "--index", dev, "wheat scab")
    assert code == 1 and out == ""
    assert "tokenizer v2 or older, this kb makes" in err and "run `kb sync`" in err
    code, out, err = kb("status", "--to", dev)
    assert code == 1 and "tokenizer v2 or older" in err
    # the release is the newest: sync keeps it and derives its index again from data/
    code, out, err = kb("sync", device.art, "--to", dev)
    assert code == 0, err
    assert out.splitlines()[:2] == [
        "up to date: serving kb-r2",
        "re-derived the index of kb-r2 from its verified data/: it failed its check (index/ "
        f"holds BM25 terms of tokenizer v2 or older, this kb makes {TOKENS_VERSION})"]
    assert kb("query", "--index", dev, "wheat scab")[0] == 0
    assert kb("status", "--to", dev)[0] == 0


def test_an_offline_sync_derives_the_served_index_of_an_older_tokenizer(device, tmp_path):
    """A field device upgraded while offline: `kb query` refuses the index an older kbtools
    derived and says to run `kb sync`, which failed at the unreachable source and left the
    device answering nothing until it was back online (`kb rollback` to the served release:
    "already served"). The failed sync derives it again from its verified data/."""
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    _as_derived_before_the_tokens_record(dev / "releases" / "kb-r2")
    code, out, err = kb("sync", tmp_path / "unreachable.git", "--to", dev)
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    assert "unreachable.git" in err and err.strip().endswith(
        "; the index of the served kb-r2 was derived again from its verified data/ (it failed "
        f"its check: index/ holds BM25 terms of tokenizer v2 or older, this kb makes "
        f"{TOKENS_VERSION})")
    assert not list((dev / "releases").glob("*.staging"))
    code, out, _ = kb("query", "--index", dev, "wheat scab")
    assert code == 0 and "kb-r2" in out
    code, out, err = kb("sync", tmp_path / "unreachable.git", "--to", dev)
    assert code == 1 and "derived again" not in err  # nothing left to repair
    assert json.loads((dev / "state.json").read_text())["last_sync"]["ok"] is False


def test_rollback_to_a_release_of_an_older_tokenizer_derives_its_index(device, tmp_path):
    dev = tmp_path / "device"
    shutil.copytree(device.dev, dev, symlinks=True)
    _as_derived_before_the_tokens_record(dev / "releases" / "kb-r1")
    code, out, err = kb("rollback", "kb-r1", "--to", dev)
    assert code == 0, err
    assert out.splitlines() == [
        "serving kb-r1 (was kb-r2)",
        "re-derived the index of kb-r1 from its verified data/: it failed its check (index/ "
        f"holds BM25 terms of tokenizer v2 or older, this kb makes {TOKENS_VERSION})"]
    assert not list((dev / "releases").glob("*.staging"))
    code, out, _ = kb("query", "--index", dev, "wheat scab")
    assert code == 0 and "kb-r1" in out


# ------------------------------------------------------------ caches written by another kbtools


@pytest.mark.parametrize("planted", ["vec (model TEXT, key TEXT, vec BLOB)", "not a database"])
def test_an_embedding_cache_kbtools_cannot_read_is_made_anew(tmp_path, planted):
    repo = copy_example(tmp_path / "kr", DOCS)
    (repo / ADDED).parent.mkdir(parents=True, exist_ok=True)
    (repo / ADDED).write_text(NEW_DOC, encoding="utf-8")  # English: a second model embeds it
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "an English page")
    cache = load_config(repo).path("cache") / "embeddings.sqlite"
    cache.parent.mkdir(parents=True)
    if planted.startswith("vec"):  # another layout of the vectors table
        con = sqlite3.connect(cache)
        con.execute(f"CREATE TABLE {planted}")
        con.commit()
        con.close()
    else:
        cache.write_bytes(b"kbtools embedding cache v0\n" * 200)
    first = build(load_config(repo), BuildOptions(out=repo / "a", progress=False))
    assert first.embedded > 0 and first.reused == 0
    # made anew and filled by both models' threads: the next build embeds nothing
    again = build(load_config(repo), BuildOptions(out=repo / "b", progress=False))
    assert (again.embedded, again.reused) == (0, first.embedded)
    assert load_manifest(repo / "a")["artifacts"] == load_manifest(repo / "b")["artifacts"]


@pytest.mark.parametrize("planted", ["vec (model TEXT, key TEXT, vec BLOB)", "not a database"])
def test_threads_opening_an_unreadable_embedding_cache_keep_every_vector(tmp_path, planted):
    # the embed stage opens one connection per model thread: each must write to the file
    # that stays, not to one another thread replaced
    path = tmp_path / "embeddings.sqlite"
    if planted.startswith("vec"):
        con = sqlite3.connect(path)
        con.execute(f"CREATE TABLE {planted}")
        con.commit()
        con.close()
    else:
        path.write_bytes(b"kbtools embedding cache v0\n" * 200)
    start = threading.Barrier(8)

    def put(n):
        start.wait()
        cache = EmbeddingCache(path)
        cache.put_many(f"model-{n}", {"k": np.ones(4, dtype=np.float16)})
        cache.close()

    threads = [threading.Thread(target=put, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    cache = EmbeddingCache(path)
    assert all(cache.get_many(f"model-{n}", ["k"]) for n in range(8))
    cache.close()


# ------------------------------------------------- kb serve while pip replaces the package

SERVER_UNDER_UPGRADE = """
import json
import sys
from pathlib import Path
from starlette.testclient import TestClient
import kbtools.serve.app
client = TestClient(kbtools.serve.app.create_app(None), base_url="http://127.0.0.1",
                    raise_server_exceptions=False)
def look():
    page, css = client.get("/nope"), client.get("/static/style.css")
    return [page.status_code, page.text, css.status_code, css.text]
before = look()
package = Path(kbtools.serve.app.__file__).parent
assert package.is_relative_to(sys.argv[1]), package  # the copy, never the tree under test
# what `pip install -U kbtools` leaves on disk: a newer template calling what this code does
# not pass it, a newer stylesheet
(package / "templates" / "base.html").write_text("{{ given_by_a_newer_kbtools() }}")
(package / "static" / "style.css").write_text("/* a newer kbtools */")
print(json.dumps([before, look()]))
"""


def _run_installed(tmp_path: Path, script: str) -> str:
    """Run `script` on a copy of this kbtools installed in `tmp_path` (its folder is the
    script's argument; the script may replace the copy's files, as pip would): its output."""
    site = tmp_path / "site"
    shutil.copytree(Path(kbtools.__file__).parent, site / "kbtools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return subprocess.run([sys.executable, "-P", "-c", script, str(site)],
                          capture_output=True, text=True, cwd=tmp_path, check=True,
                          env=os.environ | {"PYTHONPATH": str(site)}).stdout


def test_a_running_server_keeps_its_own_pages_when_the_package_is_replaced(tmp_path):
    """A newer kbtools installed under a running `kb serve`: the server read each template
    again once its file changed, so the newer template, calling a helper the running code
    does not give, made every page a 500 until a restart (and the newer stylesheet styled
    the older pages). The server keeps what it started with."""
    before, after = json.loads(_run_installed(tmp_path, SERVER_UNDER_UPGRADE))
    assert before[0] == 404 and before[2] == 200 and "kb serve" in before[3]
    assert after == before


def test_the_stylesheet_is_asked_for_again_after_an_upgrade():
    """It was sent with its modification time and no cache rule, so a browser kept the
    stylesheet of the kbtools before an upgrade for days (a tenth of its age) on the newer
    pages; now it asks again each time and gets a 304 while it is unchanged."""
    with TestClient(create_app(None), base_url="http://127.0.0.1") as client:
        css = client.get("/static/style.css")
        assert css.status_code == 200 and css.headers["content-type"] == "text/css; charset=utf-8"
        assert css.headers["cache-control"] == "no-cache" and "last-modified" not in css.headers
        again = client.get("/static/style.css", headers={"if-none-match": css.headers["etag"]})
        assert again.status_code == 304 and again.content == b""
        assert client.head("/static/style.css").headers["etag"] == css.headers["etag"]
        assert client.get("/static/nope.css").status_code == 404


UPGRADED_SERVER = """
import json
import re
import sys
from pathlib import Path
import kbtools
package = Path(kbtools.__file__).parent / "serve"
assert package.is_relative_to(sys.argv[1]), package
# the newer kbtools installed (and the server restarted): a newer stylesheet
(package / "static" / "style.css").write_text("/* a newer kbtools */ body { color: #111 }")
from starlette.testclient import TestClient
import kbtools.serve.app
client = TestClient(kbtools.serve.app.create_app(None), base_url="http://127.0.0.1",
                    raise_server_exceptions=False)
link = re.search(r'href="(/static/style.css[^"]*)"', client.get("/nope").text).group(1)
css = client.get(link)
older = client.get("/static/style.css?v=" + sys.argv[2])
print(json.dumps([link, css.text, css.headers["cache-control"], older.text,
                  older.headers["cache-control"]]))
"""


def test_after_an_upgrade_pages_link_the_new_stylesheet_not_the_kept_one(tmp_path):
    """The stylesheet and script are kept by the browser for a year under an address naming
    their version: the newer kbtools' pages name another address, so the browser fetches
    the newer files and never styles (or scripts) newer pages with the older ones; the
    older address is answered with the newer file, not to be kept under it."""
    ours = STATIC["style.css"][1]
    site = tmp_path / "site"
    shutil.copytree(Path(kbtools.__file__).parent, site / "kbtools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    out = subprocess.run([sys.executable, "-P", "-c", UPGRADED_SERVER, str(site), ours],
                         capture_output=True, text=True, cwd=tmp_path, check=True,
                         env=os.environ | {"PYTHONPATH": str(site)}).stdout
    link, css, cache, older, older_cache = json.loads(out)
    assert link == static_url("style.css").replace(ours, link.rsplit("=", 1)[1])
    assert link != static_url("style.css") and "a newer kbtools" in css
    assert cache == "public, max-age=31536000, immutable"
    assert "a newer kbtools" in older and older_cache == "no-cache"


SCHEMAS_UNDER_UPGRADE = """
import json
import shutil
import sys
from kbtools.schemas import PACKAGE_SCHEMAS, validator_for
assert PACKAGE_SCHEMAS.is_relative_to(sys.argv[1]), PACKAGE_SCHEMAS
ours = [validator_for(n).schema for n in ("manifest", "kb", "categories/engineering")]
(PACKAGE_SCHEMAS / "manifest.schema.json").write_text('{"type": "string"}')  # a newer kb's
newer = [validator_for(n).schema for n in ("manifest", "kb", "categories/engineering")]
shutil.rmtree(PACKAGE_SCHEMAS)  # pip between removing the older files and writing the newer
gone = [validator_for(n).schema for n in ("manifest", "kb", "categories/engineering")]
print(json.dumps([ours == newer == gone, ours[0].get("type")]))
"""


def test_a_running_process_keeps_its_own_schemas_when_the_package_is_replaced(tmp_path):
    """The package's schemas were read again when their files changed: a `kb serve` running
    while `pip install -U` replaced the package validated the next release's manifest with
    the newer kbtools' schema, and while pip had removed the files its switch to that release
    failed (`no schema named 'manifest'`, a 400 on every page)."""
    assert json.loads(_run_installed(tmp_path, SCHEMAS_UNDER_UPGRADE)) == [True, "object"]


WORKERS_UNDER_UPGRADE = """
import json
import os
import sys
from pathlib import Path
import numpy as np
from kbtools.embed import hashed, parallel
assert Path(hashed.__file__).is_relative_to(sys.argv[1]), hashed.__file__
os.environ["KB_EMBED_WORKERS"] = "2"
class Pooled(hashed.HashEmbedder):  # embedded by worker processes, as USE is
    processes = True
    threads = 1
emb = Pooled()
parts = [[f"text {i} {j}" for j in range(3)] for i in range(parallel.MIN_BATCHES)]
mine = np.vstack([emb.embed_batch(p) for p in parts])
for f in Path(sys.argv[1], "kbtools").rglob("*.py"):  # pip writes every file anew
    text = f.read_text(encoding="utf-8")
    if f.name == "hashed.py":  # the newer kbtools' vectors differ
        text = text.replace("return normalise(out)", "return normalise(-out)")
    f.unlink()
    f.write_text(text, encoding="utf-8")
got = np.vstack([v for _, v in parallel.embed_parts(emb, parts)])
print(json.dumps(bool(np.array_equal(got, mine))))
"""


def test_worker_processes_never_run_a_newer_kbtools(tmp_path):
    """A worker process imports kbtools from disk: a long-lived `kb watch` whose kbtools
    `pip install -U` replaced had its chunks embedded by the newer code (stored as its own
    model revision's vectors). A worker of other code refuses to start; the parent embeds."""
    assert json.loads(_run_installed(tmp_path, WORKERS_UNDER_UPGRADE)) is True
