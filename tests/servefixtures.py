"""A small real knowledge repo, built with the real embedding model, for the `kb serve` tests.

Holds the wheat-scab SOP (decision table, photo, formulas, cross references), the dilution
SOP (formulas), a few neighbours its links need, and a hostile field report (script tags,
an HTML event handler, a javascript: link) whose text must reach pages only escaped, and
whose long unbroken URL and log line must wrap on a phone and on paper.
"""

from __future__ import annotations

import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from kbfixtures import GOOD_FM, copy_example
from starlette.testclient import TestClient

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.app import create_app, server_config
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync
from tests.ports import free_port

DOCS = ["knowledge/crops/wheat-scab.md", "knowledge/crops/pesticide-dilution-and-phi.md",
        "knowledge/crops/sprayer-calibration.md", "knowledge/crops/rice-blast.md",
        "knowledge/crops/field-survey-methods.md", "knowledge/crops/pesticide-operator-safety.md",
        "knowledge/equipment/hx260-ch05-fault-codes.md"]

# a new document for a second release (the tests that switch releases under a running app)
NEW_DOC = """---
title: 小麦条锈病夏季巡查补充说明
category: crop-protection
source: 第二次发布的测试文档
author: 测试员
timestamp: "2026-04-01T09:00:00+08:00"
verified: false
lang: zh
crop: [小麦]
disease: [条锈病]
---

# 小麦条锈病夏季巡查补充说明

条锈病夏孢子堆呈鲜黄色、沿叶脉排列成虚线状，巡查时重点看旗叶。
"""

HOSTILE = """---
title: "现场报告 <script>alert('title')</script>"
category: field-report
source: 移动端提交
author: 农技员 测试
timestamp: "2026-03-01T10:00:00+08:00"
verified: false
lang: zh
location: "试验田 <img src=x onerror=alert(1)>"
reported_at: "2026-03-01T09:00:00+08:00"
crop: [小麦]
summary: 含有恶意标记的报告。
---

# 夜蛾诱捕记录

<script>alert('xss')</script>

诱捕器编号 K-77 的夜蛾数量异常 <img src="../../assets/images/wheat-scab-ear.png" onerror="alert(2)"> 请复核。

[点我](javascript:alert(3))

诱捕器上传地址 `http://gateway.field.local:8080/api/v1/traps/K-77/uploads?since=2026-03-01T09:00:00+08:00`，日志如下：

```
2026-03-01T09:00:00+08:00 trap=K-77 count=412 threshold=150 status=ALERT battery=3.61V rssi=-97dBm upload=retry(3/5) next=2026-03-01T09:15:00+08:00
```
"""


def zh_doc(title: str, body: str, tags: str = "crop: [小麦]\ndisease: [赤霉病]") -> str:
    """A valid Chinese crop-protection document titled `title` (front matter only: `body`
    holds its headings), with `tags` as its last front-matter lines."""
    return f"""---
title: {title}
category: crop-protection
source: 测试
author: 测试员
timestamp: "2026-04-01T09:00:00+08:00"
verified: false
lang: zh
{tags}
---

{body}
"""


def en_doc(title: str, body: str) -> str:
    """A valid English engineering note titled `title` (kbfixtures.GOOD_FM, `lang: en`), its
    Markdown `body` (headings and text) right after the front matter."""
    return GOOD_FM.replace("Generated", title).replace("verified: false\n",
                                                       "verified: false\nlang: en\n") + body


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def make_served_repo(dest: Path) -> Path:
    """The knowledge repo (committed) with its dist/ built."""
    root = copy_example(dest, DOCS)
    report = root / "knowledge" / "field_reports" / "k77-hostile.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(HOSTILE, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m",
        "hostile report")
    build(load_config(root), BuildOptions(progress=False))
    return root



def wait_serving(proc: subprocess.Popen[bytes], base: str, seconds: float = 120) -> None:
    """Until `kb serve` (`proc`) at `base` answers its health check; its stderr's tail in an
    AssertionError (the process killed) when it exits or `seconds` pass first."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(base + "/api/healthz", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"kb serve did not start: {proc.communicate()[1].decode()[-2000:]}")
        time.sleep(0.3)


def navigate(driver, selector: str) -> None:
    """Click what `selector` finds and wait until the page it leads to has loaded: a click
    returns before the navigation it starts, so on a loaded machine the next lookup could
    otherwise still read the old page."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    # the old page's window carries a mark a new page's does not (asking whether the old
    # <html> element went stale raced with the navigation itself: chromium answered
    # "node does not belong to the document" instead of "stale" on a loaded machine)
    driver.execute_script("window.kbOldPage = true")
    driver.find_element(By.CSS_SELECTOR, selector).click()
    WebDriverWait(driver, 60).until(lambda d: d.execute_script(
        "return window.kbOldPage !== true && document.readyState === 'complete'"))


def img_size(driver, selector: str) -> list[float]:
    return driver.execute_script(
        "const i = document.querySelector(arguments[0]);"
        "if (!i) return null;"
        "const r = i.getBoundingClientRect();"
        "return [i.complete ? i.naturalWidth : 0, r.width, r.height];", selector)


def contrast(a: list[float], b: list[float]) -> float:
    """The WCAG contrast ratio of two sRGB colours (0-255 channels)."""
    def lum(c: list[float]) -> float:
        v = [x / 255 for x in c[:3]]
        v = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in v]
        return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.fixture(scope="module", name="repo")
def served_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A served knowledge repo built once per test module (`make_served_repo`): for the
    JSON API's tests, which read it and never change it. A module takes it as ``repo`` by
    importing `served_repo` (and `served_client` as ``client``)."""
    return make_served_repo(tmp_path_factory.mktemp("serve") / "kr")


@pytest.fixture(scope="module", name="client")
def served_client(repo: Path) -> Iterator[TestClient]:
    """A test client of `kb serve`'s app over `repo`'s index (`app_client`)."""
    yield from app_client(repo / "dist")


def app_client(dist: Path, base_url: str = "http://127.0.0.1") -> Iterator[TestClient]:
    """A test client of the app over the release `dist` (a module fixture yields from it)."""
    with TestClient(create_app(dist), base_url=base_url) as client:
        yield client


def threaded_server(app: Any, **config: Any) -> Iterator[tuple[uvicorn.Server, int]]:
    """`app` served by a real uvicorn server (`server_config(…, **config)`) on a free
    loopback port, in a thread of this process: (server, port) until the fixture ends."""
    port = free_port()
    srv = uvicorn.Server(server_config(app, "127.0.0.1", port, **config))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        assert thread.is_alive(), "the server did not start"
        time.sleep(0.05)
    yield srv, port
    srv.should_exit = True
    thread.join(timeout=30)


def error_of(resp: Any, status: int) -> str:
    """The one-line message of an API error response of `status` (its JSON shape checked)."""
    assert resp.status_code == status, resp.text
    body = resp.json()
    assert set(body) == {"error"} and body["error"]["status"] == status
    message = body["error"]["message"]
    assert message and "\n" not in message and "Traceback" not in message
    return message


def synced_device(base: Path) -> tuple[Path, Path, Path]:
    """The served repo (`make_served_repo`) released to a bare artifacts repository and a
    device synced to that release, under `base`: (repo, artifacts, device)."""
    root = make_served_repo(base / "kr")
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    make_release(root, load_config(root).path("dist"), remote=str(art))
    dev = base / "device"
    sync(str(art), dev)
    return root, art, dev


NOTE = "knowledge/crops/stripe-rust-note.md"  # the document `second_release` adds (NEW_DOC)


def second_release(root: Path, art: Path, extra: dict[str, str] | None = None) -> str:
    """The served repo's next release: NEW_DOC added at `NOTE` (and `extra`'s files, by path
    under the repo), committed, built and released to `art`; its tag. A device syncs it."""
    (root / NOTE).write_text(NEW_DOC, encoding="utf-8")
    for rel, text in (extra or {}).items():
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "note")
    build(load_config(root), BuildOptions(progress=False))
    return make_release(root, load_config(root).path("dist"), remote=str(art)).tag


class _TableHeaders(HTMLParser):
    """What a screen reader could not say of a page's tables (see `unread_headers`)."""

    def __init__(self, page: str):
        super().__init__()
        self.faults: list[str] = []
        self.tables = 0
        self.part = ""  # "thead", "tbody" or "" (a row straight under <table>)
        self.first = False  # the next cell is its row's first
        self.feed(page)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        scope = dict(attrs).get("scope")
        if tag == "table":
            self.tables += 1
            self.part = ""
        elif tag in ("thead", "tbody"):
            self.part = tag
        elif tag == "tr":
            self.first = True
            if not self.part:
                self.faults.append(f"table {self.tables}: a row outside <thead>/<tbody>")
        elif tag in ("th", "td"):
            if self.part == "thead" and (tag, scope) != ("th", "col"):
                self.faults.append(f"table {self.tables}: a header cell not <th scope=col>")
            elif self.part == "tbody" and self.first and (tag, scope) != ("th", "row"):
                self.faults.append(f"table {self.tables}: a row's first cell not <th scope=row>")
            elif tag == "th" and scope not in ("col", "row"):
                self.faults.append(f"table {self.tables}: a <th> without a scope")
            self.first = False


def unread_headers(page: str, *, row_headers: bool = True) -> tuple[int, list[str]]:
    """The number of tables on `page`, and each fault that makes a screen reader read a
    header as data: a row outside <thead>/<tbody>, a <thead> cell not `<th scope="col">`, a
    <th> without a scope and (`row_headers`) a body row not begun by `<th scope="row">`."""
    found = _TableHeaders(page)
    faults = found.faults if row_headers else [f for f in found.faults if "first cell" not in f]
    return found.tables, faults
