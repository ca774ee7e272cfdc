"""The web app's words that belong to the knowledge, not the product: its name and the search
box's example question come from kb.toml ``[serve]`` (shipped in the release's manifest as
``config.serve``); unset, neutral words without any domain's in both interface languages."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from servefixtures import app_client, git

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.serve.i18n import knowledge_words, translator
from kbtools.ship.release import make_release
from kbtools.ship.sync import sync
from tests.hostile import make_repo

SERVE = """
[serve]
title = { zh = "泵站知识库", en = "Pump station knowledge" }
example = "P-101 vibration alarm after restart"
"""

# the words of the site's name and the search box, per interface language
OWN = {"zh": ("泵站知识库", "输入问题，例如：P-101 vibration alarm after restart"),
       "en": ("Pump station knowledge", "Ask a question, e.g. P-101 vibration alarm after restart")}
NEUTRAL = {"zh": ("知识库", "输入问题"), "en": ("Knowledge base", "Ask a question")}
DOMAIN_WORDS = ("Field", "现场", "wheat", "小麦", "赤霉病", "humidity", "湿度")


@pytest.fixture(scope="module")
def device(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A knowledge base setting its name and example, released and synced to a device."""
    base = tmp_path_factory.mktemp("own-words")
    root = make_repo(base / "kr", commit=False)
    with (root / "kb.toml").open("a", encoding="utf-8") as toml:
        toml.write(SERVE)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "kb")
    build(load_config(root), BuildOptions(progress=False))
    art = base / "art.git"
    subprocess.run(["git", "init", "-q", "--bare", str(art)], check=True)
    make_release(root, load_config(root).path("dist"), remote=str(art))
    sync(str(art), base / "device")
    return base / "device"


@pytest.fixture(scope="module")
def plain_dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A knowledge base setting neither, built."""
    root = make_repo(tmp_path_factory.mktemp("plain") / "kr")
    build(load_config(root), BuildOptions(progress=False))
    return root / "dist"


def _name_and_box(page: str) -> tuple[str, str, str]:
    """The header's name, the page's <title> and the question box's placeholder."""
    brand = re.search(r'<a class="brand"[^>]*>([^<]*)</a>', page)
    title = re.search(r"<title>([^<]*)</title>", page)
    box = re.search(r'<textarea class="question"[^>]*placeholder="([^"]*)"', page)
    assert brand and title and box, page[:2000]
    return brand[1], title[1], box[1]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_synced_device_shows_the_knowledges_own_name_and_example(device, lang):
    """A pump maker's device showed "Field knowledge" and a wheat-disease example."""
    name, example = OWN[lang]
    for client in app_client(device):
        brand, title, box = _name_and_box(client.get(f"/?lang={lang}").text)
        assert brand == name
        assert title.endswith(f" · {name}")
        assert box == example
        for missing in ("/doc/knowledge/none.md", "/no-such-page"):  # error pages too
            page = client.get(f"{missing}?lang={lang}")
            assert page.status_code == 404
            assert re.search(rf"<title>[^<]* · {name}</title>", page.text), missing


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_unset_the_name_and_example_are_neutral(plain_dist, lang):
    name, box_words = NEUTRAL[lang]
    for client in app_client(plain_dist):
        page = client.get(f"/?lang={lang}").text
        brand, title, box = _name_and_box(page)
        assert (brand, box) == (name, box_words)
        assert title.endswith(f" · {name}")
        assert not [w for w in DOMAIN_WORDS if w in brand + title + box]


@pytest.mark.parametrize(("serve", "lang", "expected"), [
    ({"title": {"zh": "泵站知识库", "en": "Pumps"}}, "en", {"app": "Pumps"}),
    ({"title": {"en": "Pumps"}}, "zh", {"app": "Pumps"}),  # a language left out: the other's
    ({"title": "Acme", "example": {"zh": "泵 振动"}}, "en",
     {"app": "Acme", "search_placeholder": "Ask a question, e.g. 泵 振动"}),
    ({}, "zh", {}),
])
def test_the_knowledges_words_per_interface_language(serve, lang, expected):
    assert knowledge_words(serve, lang) == expected
    t = translator(lang, expected)
    assert all(t(key) == words for key, words in expected.items())


@pytest.mark.parametrize(("toml", "line", "key"), [
    ('[serve]\ntitle = 3\n', 2, "serve.title"),
    ('[serve]\nexample = { de = "Pumpe" }\n', 2, "serve.example"),
    ('[serve]\ntitel = "Pumps"\n', 2, "(did you mean 'title'?)"),
])
def test_a_wrong_serve_setting_is_refused_at_its_line(tmp_path, monkeypatch, toml, line, key):
    (tmp_path / "kb.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "knowledge").mkdir()
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["check"])
    assert result.exit_code == 1
    [message] = result.stderr.splitlines()
    assert message.startswith(f"kb: error: kb.toml:{line}: ")
    assert key in message, message
