"""Author Markdown that tries to inject into the web app or leave the release, and draft
inputs that try to leave knowledge/'s draft folder (session 33, issue 12). Each was found
already refused; these tests keep it so, through a real built release served by the real
app and real drafts committed to a real repository.

- links with `javascript:`, `vbscript:`, `data:` schemes, entity-encoded, mixed-case or with
  a tab or leading space inside, reach no ``href``; links to ``../../.git/config`` and
  ``/etc/passwd`` lead nowhere; an image on another host (a tracking pixel) is no ``<img>``
  (the device is offline, and the page loads nothing from elsewhere: CSP ``img-src 'self'``);
- raw HTML with a ``style`` attribute or an event handler comes out as escaped text;
- an author's SVG asset (which may hold a script) is neither shipped nor shown;
- a draft title or front matter with ``../`` or a path writes only under the category's
  folder on a ``draft/`` branch, and never ``verified: true``.
"""

from __future__ import annotations

import re
from pathlib import Path

import git
import pytest
from hostile import make_repo
from starlette.testclient import TestClient

from kbtools.agents.draft import create_draft
from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.serve.app import create_app

BASE = "http://127.0.0.1:8080"

HOSTILE = """---
title: Hostile links 恶意链接
category: engineering
project: demo
source: test
author: mallory@example.org
timestamp: "2026-03-14T09:30:00+08:00"
verified: false
---

# Hostile links 恶意链接

Scheme links 协议链接: [s1](jav&#x61;script:alert(1)) [s2](JaVaScRiPt:alert(2))
[s3](vbscript:msgbox(3)) [s4](data:text/html;base64,PHNjcmlwdD5hbGVydCg0KTwvc2NyaXB0Pg==)
<a href="&#x6A;avascript&colon;alert(5)">s5</a> <a href=" java\tscript:alert(6)">s6</a>
<a href="https://example.org/" onclick="alert(7)" style="color:red">s7</a>

Outside the release 发布之外: [o1](../../.git/config) [o2](/etc/passwd)
[o3](../../../../../etc/passwd) [o4](file:///etc/passwd) [o5](%2e%2e/%2e%2e/.git/config)

Tracking pixel 跟踪像素: ![p1](https://tracker.example/p1.gif)
<img src="http://tracker.example/p2.gif" onerror="alert(8)"> ![p3](//tracker.example/p3.gif)

<div style="background:url(https://tracker.example/css)" onmouseover="alert(9)">css</div>

![diagram 示意图](../assets/evil.svg)
"""

EVIL_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(10)"><script>alert(11)'
            '</script><rect width="10" height="10"/></svg>\n')


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> tuple[TestClient, str]:
    root = tmp_path_factory.mktemp("hostile")
    repo = make_repo(root / "kr", docs={"knowledge/hostile.md": HOSTILE,
                                        "assets/evil.svg": EVIL_SVG})
    # `kb check` refuses these links: a hostile or careless publisher builds leniently
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False, lenient=True))
    dist = repo / "dist"
    with TestClient(create_app(dist), base_url=BASE) as client:
        page = client.get("/doc/knowledge/hostile.md")
        assert page.status_code == 200, page.text[:300]
        yield client, page.text


def test_no_hostile_link_reaches_an_href(served):
    _, page = served
    body = page[page.index("Scheme links"):]
    hrefs = re.findall(r'href="([^"]*)"', body)
    assert all(not re.match(r"\s*(?:javascript|vbscript|data|file):", h, re.I) for h in hrefs)
    assert not [h for h in hrefs if "passwd" in h or ".git" in h], hrefs
    assert not re.search(r"<[a-z]+[^>]*\s(?:on[a-z]+|style)=", body), "handler or style"
    assert "s7</a>" in body  # the https link itself stays, without its handler


def test_no_picture_from_another_host(served):
    _, page = served
    srcs = re.findall(r'<img[^>]*\ssrc="([^"]*)"', page)
    assert not [s for s in srcs if "tracker.example" in s or s.startswith(("http", "//"))]


def test_an_authors_svg_is_not_shipped_or_shown(served):
    """An SVG may carry script: a release ships only the sanitised formula SVGs
    (`kbtools.render.images`), so the author's drawing is a placeholder, not a load."""
    client, page = served
    assert "evil.svg" not in "".join(re.findall(r'<img[^>]*>', page))
    assert '<span class="missing-image">[diagram 示意图]</span>' in page
    assert client.get("/asset/assets/evil.svg").status_code == 404


@pytest.fixture
def repo(tmp_path: Path) -> git.Repo:
    root = tmp_path / "kb"
    r = git.Repo.init(root, initial_branch="main")
    (root / "kb.toml").write_text('[categories.engineering]\nfolder = "knowledge/eng"\n')
    (root / "knowledge").mkdir()
    (root / "knowledge" / "a.md").write_text("committed\n")
    r.index.add(["kb.toml", "knowledge/a.md"])
    r.index.commit("init")
    return r


@pytest.mark.parametrize("title", ["../../../etc/passwd", "knowledge/../../x", "..\\..\\x",
                                   "../../.git/hooks/pre-commit", "／etc／passwd 覆盖"])
def test_a_draft_title_stays_a_name_in_the_draft_folder(repo: git.Repo, title: str):
    body = "---\nverified: true\nverified_by: boss@example.org\n---\nSeal leak on line 3.\n"
    d = create_draft(Path(repo.working_tree_dir), "field-report", title, body,
                     author="Tech Wu", location="Plant 2")
    assert d.branch.startswith("draft/") and ".." not in d.branch
    assert d.path.startswith("knowledge/") and ".." not in d.path.split("/")
    files = repo.git.ls_tree("-r", "--name-only", d.branch).splitlines()
    assert sorted(files) == ["kb.toml", "knowledge/a.md", d.path]
    text = repo.git.show(f"{d.branch}:{d.path}")
    assert "verified: false" in text and "verified: true" not in text.split("---")[1]
    assert repo.head.ref.name == "main" and len(list(repo.iter_commits("main"))) == 1


@pytest.mark.parametrize("path", [
    "/asset/../../../../etc/passwd", "/asset/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    "/asset/..%2f..%2f..%2fmanifest.json", "/asset/data/../manifest.json",
    "/doc/..%2f..%2f.git/config", "/doc/knowledge/../../../../etc/passwd",
    "/formulas/..%2fmanifest.json", "/asset/assets/%2e%2e%5c%2e%2e%5cmanifest.json",
])
def test_addresses_that_climb_out_of_the_release_find_nothing(served, path: str):
    client, _ = served
    got = client.get(path)
    assert got.status_code in (400, 404), (path, got.status_code)
    assert "root:" not in got.text and '"artifacts"' not in got.text
