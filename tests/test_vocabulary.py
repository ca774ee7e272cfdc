"""The domain vocabulary is data: kb.toml [vocabulary] names the facet, routing and dictionary
fields, so a new knowledge domain with fields the code has never heard of works end to end
(check → build → query --where → routed boost) without a code change."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import git
import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.config import DEFAULT_VOCABULARY, Vocabulary, load_config
from kbtools.errors import ConfigError
from kbtools.schemas import PACKAGE_SCHEMAS

KB_TOML = """\
[embedding]
model = "test-hash"          # no model files: fast and deterministic
languages = { en = "test-hash" }

[vocabulary]
facets = ["category", "hull_class", "port", "author"]
routing = ["port"]
dictionary = ["port"]
"""

VESSELS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Vessel maintenance",
    "type": "object",
    "required": ["hull_class", "port"],
}

FRONT = """---
title: {title}
category: vessels
source: fleet technical office
author: harbour.master@example.org
timestamp: "2026-03-14T09:30:00+01:00"
verified: false
hull_class: {hull_class}
port: {port}
---
"""

DOCS = {
    "knowledge/vessels/ballast-pump-panamax.md": (
        "Ballast pump (Panamax)", "panamax", "Rotterdam",
        "# Ballast pump (Panamax)\n\n## Seal inspection\n\n"
        "Inspect the ballast pump seals and clean the suction strainer every week. Replace a "
        "seal that weeps sea water; log the running hours of the ballast pump.\n"),
    "knowledge/vessels/ballast-pump-handysize.md": (
        "Ballast pump (Handysize)", "handysize", "Hamburg",
        "# Ballast pump (Handysize)\n\n## Seal inspection\n\n"
        "Inspect the ballast pump seals and clean the suction strainer every week. A seal that "
        "weeps sea water is replaced at the next call; log the ballast pump running hours.\n"),
    "knowledge/vessels/mooring-lines.md": (
        "Mooring lines", "panamax", "Singapore",
        "# Mooring lines\n\n## Inspection\n\n"
        "Check mooring lines for chafe and broken strands before arrival; turn end for end "
        "after six months of service.\n"),
}


def make_vessels_repo(root: Path) -> Path:
    """A knowledge repo for ships: its own category, base schema and kb.toml; committed."""
    (root / "schemas" / "categories").mkdir(parents=True)
    base = json.loads((PACKAGE_SCHEMAS / "frontmatter.schema.json").read_text(encoding="utf-8"))
    base["properties"] |= {"hull_class": {"enum": ["panamax", "handysize"]},
                           "port": {"type": "string", "minLength": 2}}
    (root / "schemas" / "frontmatter.schema.json").write_text(json.dumps(base, indent=2))
    (root / "schemas" / "categories" / "vessels.schema.json").write_text(json.dumps(VESSELS_SCHEMA))
    (root / "kb.toml").write_text(KB_TOML, encoding="utf-8")
    for rel, (title, hull_class, port, body) in DOCS.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(FRONT.format(title=title, hull_class=hull_class, port=port) + "\n" + body,
                        encoding="utf-8")
    repo = git.Repo.init(root)
    repo.index.add([str(p.relative_to(root)) for p in root.rglob("*")
                    if p.is_file() and ".git" not in p.parts])
    repo.index.commit("vessel knowledge")
    return root


def kb(*args: str):
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="module")
def vessels(tmp_path_factory):
    """The vessels repo, checked and built once for the module (cwd is the repo)."""
    root = make_vessels_repo(tmp_path_factory.mktemp("vessels"))
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(root)
        mp.setenv("KB_HOME", str(tmp_path_factory.mktemp("kbhome")))
        check = kb("check")
        assert check.exit_code == 0, check.output
        assert "3 documents, 0 errors" in check.stderr
        build = kb("build")
        assert build.exit_code == 0, build.output
        yield root


def query(*args: str) -> dict:
    result = kb("query", "--json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_new_domain_builds_with_its_vocabulary_recorded(vessels):
    manifest = json.loads((vessels / "dist" / "manifest.json").read_text(encoding="utf-8"))
    assert list(manifest["models"]) == ["test-hash"]
    assert manifest["config"]["values"]["vocabulary"] == {
        "facets": ["category", "hull_class", "port", "author"], "routing": ["port"],
        "dictionary": ["port"]}
    assert "-v" in manifest["config"]["fingerprint"]


def test_where_filters_on_a_field_the_code_never_heard_of(vessels):
    res = query("--where", "hull_class=handysize", "ballast pump seals")
    assert res["results"], res
    assert {r["doc"] for r in res["results"]} == {"knowledge/vessels/ballast-pump-handysize.md"}
    assert all(r["metadata"]["hull_class"] == "handysize" for r in res["results"])
    other = query("--where", "hull_class=panamax", "ballast pump seals")
    assert "knowledge/vessels/ballast-pump-handysize.md" not in {r["doc"] for r in other["results"]}


def test_a_port_in_the_question_routes_a_boost(vessels):
    res = query("how often are the ballast pump seals inspected in Hamburg")
    assert res["filters"]["routed"] == [{"field": "port", "value": "Hamburg", "effect": "boost"}]
    top = res["results"][0]
    assert top["doc"] == "knowledge/vessels/ballast-pump-handysize.md"
    assert top["why"]["boost"] == 1.0
    assert all("boost" not in r["why"] for r in res["results"]
               if r["metadata"]["port"] != "Hamburg")
    explained = kb("query", "--explain", "ballast pump seals in Hamburg")
    assert explained.exit_code == 0, explained.output
    assert "routed=['port=Hamburg']" in explained.stdout


def test_routing_follows_the_index_not_the_local_kb_toml(vessels, tmp_path, monkeypatch):
    """A device queries with the vocabulary its release was built with."""
    (tmp_path / "kb.toml").write_text("[vocabulary]\nrouting = []\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["query", "--json", "--index", str(vessels / "dist"),
                                       "ballast pump seals in Hamburg"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["filters"]["routed"][0]["value"] == "Hamburg"


def test_facet_table_holds_the_declared_fields(vessels):
    from kbtools.index.reader import open_index

    index = open_index(vessels / "dist")
    try:
        facets = index.facets()
    finally:
        index.close()
    assert facets == {"category": {"vessels"}, "hull_class": {"panamax", "handysize"},
                      "port": {"Rotterdam", "Hamburg", "Singapore"},
                      "author": {"harbour.master@example.org"}}


def test_a_device_rederives_the_same_store_from_the_release(vessels, tmp_path):
    """materialize (what a device runs after a sync) reads the vocabulary from the manifest."""
    from kbtools.index.materialize import materialize

    copy = tmp_path / "release"
    shutil.copytree(vessels / "dist", copy)
    shutil.rmtree(copy / "index")
    materialize(copy)
    store = "index/store.sqlite"
    assert (copy / store).read_bytes() == (vessels / "dist" / store).read_bytes()


# the Vocabulary value ----------------------------------------------------------------------
def test_builtin_vocabulary_is_not_recorded():
    vocab = Vocabulary.from_values({})
    assert vocab.recorded() is None
    assert list(vocab.facets) == DEFAULT_VOCABULARY["facets"]
    assert set(vocab.routing) <= set(vocab.facets)
    assert vocab.collected == vocab.facets


def test_routing_fields_are_collected_even_when_not_facets():
    vocab = Vocabulary.from_values({"vocabulary": {"facets": ["category"], "routing": ["port"]}})
    assert vocab.collected == ("category", "port")
    assert vocab.dictionary == tuple(DEFAULT_VOCABULARY["dictionary"])
    assert vocab.recorded() == {"facets": ["category"], "routing": ["port"],
                                "dictionary": DEFAULT_VOCABULARY["dictionary"]}


def test_kb_toml_vocabulary_is_validated(tmp_path):
    (tmp_path / "kb.toml").write_text('[vocabulary]\nfacets = "port"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"vocabulary\.facets: 'port' is not of type 'array'"):
        load_config(tmp_path)
    (tmp_path / "kb.toml").write_text('[vocabulary]\nboost = ["port"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="vocabulary: Additional properties"):
        load_config(tmp_path)
    (tmp_path / "kb.toml").write_text('[vocabulary]\nrouting = ["port", "port"]\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="vocabulary.routing"):
        load_config(tmp_path)
    (tmp_path / "kb.toml").write_text('[vocabulary]\nrouting = ["port"]\n', encoding="utf-8")
    assert load_config(tmp_path).vocabulary.routing == ("port",)


def test_a_port_only_the_front_matter_names_is_no_unknown_term(vessels):
    """Rotterdam is the panamax pump's port in its front matter only: a question naming it
    listed it among the unknown terms (a word the knowledge never saw)."""
    res = query("Rotterdam ballast pump seals")
    assert res["filters"]["routed"] == [{"field": "port", "value": "Rotterdam", "effect": "boost"}]
    assert res["filters"]["unknown_terms"] == [] and not res["no_answer"]
    assert res["results"][0]["doc"] == "knowledge/vessels/ballast-pump-panamax.md"
