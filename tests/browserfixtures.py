"""The headless Chromium (Debian's, driven by Selenium) and a real `kb serve` on a free loopback
port that the browser tests share: `serve(index)` runs the server, `browser` the browser, and
`page` checks after each test that no request left the server (the pages work offline)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from servefixtures import free_port, git, make_served_repo, wait_serving

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
REPO = Path(__file__).resolve().parents[1]

# the page's width as laid out, and the width it shows: wider is a sideways scroll
SIDEWAYS = "return [document.documentElement.scrollWidth, document.documentElement.clientWidth]"

needs_chromium = pytest.mark.skipif(
    not (CHROMIUM.exists() and CHROMEDRIVER.exists()),
    reason="Debian chromium + chromium-driver are not installed (scripts/setup.sh installs them)")


def serve(index: Path) -> Iterator[str]:
    """`kb serve --index index` on a free port, as a fixture body: yields its URL once it
    answers its health check, and stops it afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "kbtools", "serve", "--index", str(index),
                             "--port", str(port)], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    wait_serving(proc, url)
    yield url
    proc.terminate()
    proc.wait(timeout=20)


def serve_with(dest: Path, files: dict[str, str]) -> Iterator[str]:
    """`serve` of `make_served_repo(dest)` with `files` (path under it → text) written and
    committed on top, built."""
    from kbtools.build.pipeline import BuildOptions, build
    from kbtools.config import load_config

    root = make_served_repo(dest)
    for rel, text in files.items():
        (root / rel).write_text(text, encoding="utf-8")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "more")
    build(load_config(root), BuildOptions(progress=False))
    yield from serve(root / "dist")


def start_browser(page_load_strategy: str = "normal"):
    """Debian's headless Chromium under Selenium, as a Chinese user's; `page_load_strategy`
    "none": navigating returns at once (a test that holds a page's pictures back)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.page_load_strategy = page_load_strategy
    opts.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--no-first-run", "--disable-background-networking", "--disable-sync",
                "--disable-component-update", "--disable-default-apps",
                "--lang=zh-CN", "--window-size=1024,768"):
        opts.add_argument(arg)
    # a Chinese user's browser: pages follow its Accept-Language (headless chromium sends
    # en-US whatever --lang says)
    opts.add_experimental_option("prefs", {"intl.accept_languages": "zh-CN,zh"})
    opts.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    driver = webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=opts)
    driver.set_page_load_timeout(60)
    return driver


@pytest.fixture(scope="module")
def browser():
    driver = start_browser()
    yield driver
    driver.quit()


@pytest.fixture
def page(browser, server):
    """The browser, with a check after each test that every request went to the server."""
    browser.get_log("performance")  # drop what earlier tests left
    yield browser
    outside = []
    for entry in browser.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] != "Network.requestWillBeSent":
            continue
        url = message["params"]["request"]["url"]
        if urlsplit(url).scheme in ("data", "about", "blob"):
            continue
        if not url.startswith(server + "/"):
            outside.append(url)
    assert outside == [], f"requests outside the server: {outside[:5]}"
