"""`kb serve --engine`: the web app and JSON API over releases published in a real Milvus
(`milvus-lite server`), against the same app over the local release.

Covers: search, the JSON API (equal to `kb query --engine … --json`), the decision-table form
and API, the document view with a formula SVG and a photo served byte for byte from the
engine's copy, the release page; a publish and a rollback showing up while the app runs;
and the failures — nothing published, the engine down at start (one line) and while running
(JSON 503 and an error page, never a traceback) and recovering when it is back.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from servefixtures import NEW_DOC, error_of, git, make_served_repo, unread_headers, wait_serving
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.engine.cache import FILES_DONE, cache_dir
from kbtools.engine.milvus import connect_url
from kbtools.engine.parts import read_parts
from kbtools.engine.publish import check_release, publish, rollback
from kbtools.serve import i18n
from kbtools.serve.app import create_app, open_source
from kbtools.ship.device import served_release
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync
from tests.milvus_server import MilvusLite, free_port, milvus, replace_manifest  # noqa: F401
from tests.ports import refusing_port

pytestmark = pytest.mark.slow

BASE = "http://127.0.0.1"
SCAB = "knowledge/crops/wheat-scab.md"
NEW = "knowledge/crops/wheat-stripe-rust-summer.md"
QUESTIONS = ["小麦扬花期 温度 22 度 湿度 90% 连续降雨 4 天 风险多高", "施药后多久可以收获",
             "how to calibrate a sprayer", "赤霉病 防治 药剂"]
NEW_QUESTION = "条锈病夏孢子堆 旗叶 巡查"
RECONNECT_SECONDS = 60


@pytest.fixture(scope="module")
def devices(tmp_path_factory):
    """Two real releases (kb-r1; kb-r2 adds NEW) of the served repo, each synced onto a
    device directory."""
    base = tmp_path_factory.mktemp("serve-engine")
    root = make_served_repo(base / "kr")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    out = []
    for n in (1, 2):
        if n == 2:
            (root / NEW).write_text(NEW_DOC, encoding="utf-8")
            git(root, "add", "-A")
            git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q",
                "-m", "second")
            build(load_config(root), BuildOptions(progress=False))
        make_release(root, load_config(root).path("dist"), remote=str(art))
        dev = base / f"dev{n}"
        assert sync(str(art), dev).tag == f"kb-r{n}"
        out.append(dev)
    return out


@pytest.fixture(scope="module")
def url(devices, milvus):  # noqa: F811
    """The engine's URL, with kb-r1 published there."""
    u = milvus.url("serve")
    publish(connect_url(u, create_db=True), check_release(devices[0]))
    return u


@pytest.fixture(scope="module")
def client(url):
    with TestClient(create_app(None, source=open_source(None, url)), base_url=BASE) as c:
        yield c


@pytest.fixture(scope="module")
def local(devices):
    with TestClient(create_app(devices[0]), base_url=BASE) as c:
        yield c


def without_scores(body: dict) -> tuple[dict, list[float]]:
    """`body` without took_ms and the scores (cosine of float16 vectors locally, float32 in
    Milvus) and the bonuses of linked pages and anchor text (differences of such scores),
    and those. The page-vector bonus (``why.page``) stays: both sides read the same
    published page vectors."""
    body = json.loads(json.dumps(body))
    body.pop("took_ms")
    scores = [v for r in body["results"] for v in (
        r.pop("score"), r["why"].pop("vector_score", None), r["why"].pop("bm25_score", None),
        r["why"].pop("linked", None), r["why"].pop("anchor", None))]
    return body, scores


def test_search_api_matches_the_local_app_and_kb_query_engine(client, local, url):
    for q in QUESTIONS:
        got = client.get("/api/search", params={"q": q, "k": 5})
        assert got.status_code == 200, got.text
        want = local.get("/api/search", params={"q": q, "k": 5}).json()
        a, sa = without_scores(got.json())
        b, sb = without_scores(want)
        assert a == b and a["release"]["tag"] == "kb-r1"
        assert sa == pytest.approx(sb, abs=2e-3)
    q = QUESTIONS[0]
    cli = CliRunner().invoke(main, ["query", "--engine", url, "--json", "-k", "3", q])
    assert cli.exit_code == 0, cli.output
    printed = json.loads(cli.output)
    api = client.get("/api/search", params={"q": q, "k": 3}).json()
    printed.pop("took_ms"), api.pop("took_ms")
    assert printed == api  # the same engine, the same pipeline: identical to the last digit
    assert api["results"][0]["heading_path"][-1] == "3.2 风险等级判定表"
    filtered = client.post("/api/search", json={"query": "施药", "where": ["crop=水稻"],
                                                "verified_only": True}).json()
    assert filtered["results"] and all("水稻" in r["metadata"]["crop"] and r["verified"]
                                       for r in filtered["results"])


def test_search_page_document_view_formula_and_photo(client, local, devices):
    page = client.get("/", params={"q": QUESTIONS[0]})
    assert page.status_code == 200 and "3.2 风险等级判定表" in page.text
    doc = client.get(f"/doc/{SCAB}", params={"lines": "60-62", "q": "风险"})
    assert doc.status_code == 200
    assert doc.text == local.get(f"/doc/{SCAB}", params={"lines": "60-62", "q": "风险"}).text
    assert 'id="cited"' in doc.text and '<span class="badge ok">已审核</span>' in doc.text
    data = served_release(devices[0]) / "data"
    photo = client.get("/asset/assets/images/wheat-scab-ear.png")
    assert photo.status_code == 200 and photo.headers["content-type"] == "image/png"
    assert photo.content == (data / "source/assets/images/wheat-scab-ear.png").read_bytes()
    formulas = set(re.findall(r'src="/formulas/([0-9a-f]{64}\.svg)"', doc.text + client.get(
        "/doc/knowledge/crops/pesticide-dilution-and-phi.md").text))
    assert formulas
    for name in formulas:
        svg = client.get(f"/formulas/{name}")
        assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
        assert svg.content == (data / "formulas" / name).read_bytes()
        assert hashlib.sha256(svg.content).hexdigest() in json.loads(
            (data.parent / "manifest.json").read_text())["artifacts"][f"data/formulas/{name}"][
                "sha256"]
    assert client.get("/formulas/" + "0" * 64 + ".svg").status_code == 404
    section = client.get("/api/read", params={"doc": SCAB, "heading_path": "3.2"}).json()
    assert "极高" in section["markdown"] and section["release"]["tag"] == "kb-r1"


def test_decision_table_form_and_api(client):
    form = client.get(f"/table/{SCAB}", params={"table": "1", "go": "1", "in.0": "22",
                                                "in.1": "90", "in.2": "4"})
    assert form.status_code == 200 and 'class="outcome match"' in form.text and "极高" in form.text
    body = client.post("/api/table/evaluate", json={
        "doc": SCAB, "inputs": {"温度": 22, "相对湿度": "90", "连续降雨天数": 4}}).json()
    assert body["status"] == "match" and body["outputs"][0]["风险等级"] == "极高"


def test_publish_and_rollback_show_up_while_the_app_runs(client, devices, url):
    eng = connect_url(url)
    assert "kb-r1 (" in client.get("/release").text
    assert client.get(f"/doc/{NEW}").status_code == 404
    r2 = publish(eng, check_release(devices[1]))
    release = client.get("/release").text
    assert 'class="served-tag">kb-r2<' in release and "kb-r1" in release  # both listed
    assert unread_headers(release) == (1, [])  # the releases' table says its headers
    assert client.get("/api/healthz").json()["release"]["tag"] == "kb-r2"
    found = client.get("/api/search", params={"q": NEW_QUESTION}).json()
    assert found["release"]["tag"] == "kb-r2" and found["results"][0]["doc"] == NEW
    assert "夏孢子堆" in client.get(f"/doc/{NEW}").text
    assert (cache_dir(eng, r2.collection) / FILES_DONE).is_file()
    listed = client.get("/api/releases").json()
    assert listed["engine"] == url and [r["tag"] for r in listed["releases"]] == ["kb-r2",
                                                                                   "kb-r1"]
    assert [r["current"] for r in listed["releases"]] == [True, False]
    rollback(eng)
    assert 'class="served-tag">kb-r1<' in client.get("/release").text
    assert client.get(f"/doc/{NEW}").status_code == 404
    again = client.get("/api/search", params={"q": NEW_QUESTION}).json()
    assert again["release"]["tag"] == "kb-r1" and all(r["doc"] != NEW for r in again["results"])


def test_nothing_published_and_engine_down_at_start_are_one_line(milvus, tmp_path):  # noqa: F811
    connect_url(milvus.url("empty"), create_db=True)
    with refusing_port() as down:  # nothing listens there
        cases = ((milvus.url("empty"), "no release is published here"),
                 (f"milvus://127.0.0.1:{down}/kb", "connecting failed"))
        for engine, words in cases:
            proc = subprocess.run([sys.executable, "-m", "kbtools", "serve", "--engine",
                                   engine, "--port", str(free_port())], capture_output=True,
                                  text=True, timeout=120)
            assert proc.returncode == 1 and proc.stdout == ""
            lines = proc.stderr.strip().splitlines()
            assert len(lines) == 1 and words in lines[0] and engine in lines[0], proc.stderr
    res = CliRunner().invoke(main, ["serve", "--engine", milvus.url("empty"), "--index",
                                    str(tmp_path)])
    assert res.exit_code == 2 and "not both" in res.output
    with TestClient(create_app(None, source=open_source(None, milvus.url("empty"))),
                    base_url=BASE) as c:  # a Chinese page says it in Chinese, English below
        page = c.get("/", params={"q": QUESTIONS[0], "lang": "zh"})
        assert page.status_code == 503 and i18n.ERRORS["engine_no_release"] in page.text
        assert "no release is published here" in page.text


def test_another_model_in_the_engine_is_one_line_at_start_and_a_503(devices, milvus):  # noqa: F811
    u = milvus.url("othermodel")
    eng = connect_url(u, create_db=True)
    r1 = publish(eng, check_release(devices[0]))
    manifest = json.loads(read_parts(eng, r1.collection)["manifest"])
    model = next(iter(manifest["models"]))
    manifest["models"][model]["fingerprint"] = f"{model}:another-build"
    replace_manifest(eng, r1.collection, manifest)
    res = CliRunner().invoke(main, ["serve", "--engine", u, "--port", str(free_port())])
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1
    assert f"vectors of model {model}:another-build" in res.output and u in res.output
    with TestClient(create_app(None, source=open_source(None, u)), base_url=BASE) as c:
        assert "another-build" in error_of(c.get("/api/search", params={"q": "赤霉病"}), 503)
        assert c.get(f"/doc/{SCAB}").status_code == 503
        zh = c.get("/", params={"q": "赤霉病", "lang": "zh"})  # its own words, not "出错"
        assert zh.status_code == 503
        assert i18n.ERRORS["model_mismatch"].format(model=model) in html.unescape(zh.text)


def test_engine_down_while_running_is_a_503(devices, tmp_path):
    server = MilvusLite(tmp_path / "data")
    try:
        u = server.url("down")
        publish(connect_url(u, create_db=True), check_release(devices[0]))
        with TestClient(create_app(None, source=open_source(None, u)), base_url=BASE) as c:
            assert c.get("/api/search", params={"q": QUESTIONS[0]}).status_code == 200
            assert c.get("/api/healthz").status_code == 200
            server.stop()
            message = error_of(c.get("/api/search", params={"q": QUESTIONS[0]}), 503)
            assert u in message and "is the server running" in message
            error_of(c.get("/api/healthz"), 503)
            error_of(c.get("/api/releases"), 503)
            page = c.get("/", params={"q": QUESTIONS[0]})
            assert page.status_code == 503 and 'class="message"' in page.text
            assert u in page.text and "Traceback" not in page.text
            zh = c.get("/", params={"q": QUESTIONS[0], "lang": "zh"})
            assert zh.status_code == 503 and i18n.ERRORS["engine_unreachable"] in zh.text
            assert u in zh.text and "is the server running" in zh.text  # the English below
            assert c.get(f"/doc/{SCAB}").status_code == 503
            assert c.get("/asset/assets/images/wheat-scab-ear.png").status_code == 503
            server = MilvusLite(tmp_path / "data", server.port)  # back, with its data
            deadline = time.monotonic() + RECONNECT_SECONDS  # gRPC reconnects with backoff
            while (again := c.get("/api/search", params={"q": QUESTIONS[0]})).status_code == 503:
                assert time.monotonic() < deadline, again.text
                time.sleep(0.5)
            assert again.status_code == 200 and again.json()["release"]["tag"] == "kb-r1"
    finally:
        if server.proc.poll() is None:
            server.stop()


CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.mark.skipif(not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
                    reason="Debian chromium + chromium-driver are not installed")
def test_in_a_browser_through_a_real_server(url):
    """A real `kb serve --engine` (uvicorn) in headless Chromium: the Chinese search shows the
    cited section, and the document's photo and formula SVG load with a non-zero size."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "serve", "--engine", url,
                             "--port", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    opts = webdriver.ChromeOptions()
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--no-first-run", "--window-size=1024,768"):
        opts.add_argument(arg)
    driver = None
    try:
        wait_serving(proc, base)
        driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
        driver.get(base + "/?q=" + quote(QUESTIONS[0]))
        first = driver.find_element(By.CSS_SELECTOR, "article.result")
        assert first.get_attribute("data-doc") == SCAB
        assert "3.2 风险等级判定表" in first.find_element(By.CSS_SELECTOR, ".where").text
        driver.get(f"{base}/doc/{quote(SCAB)}")
        for selector in ("img.photo", "img.formula"):
            natural, width = driver.execute_script(
                "const i = document.querySelector(arguments[0]);"
                "return i ? [i.complete ? i.naturalWidth : 0, i.getBoundingClientRect().width]"
                " : [0, 0];", selector)
            assert natural > 0 and width > 0, selector
    finally:
        if driver is not None:
            driver.quit()
        proc.terminate()
        proc.wait(timeout=20)
