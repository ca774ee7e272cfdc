"""kb.toml settings the docs name take effect where they say (a setting the schema accepts
and nothing reads leaves a user wondering why their kb.toml changes nothing)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from hostile import make_repo
from kbfixtures import PAGE

from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.errors import ConfigError
from kbtools.index.reader import open_index
from kbtools.query.search import search

SEALS = {f"knowledge/seal-{n}.md": PAGE.format(
    title=f"Pump seal {n}", source="test",
    body=f"## Seal {n}\n\nReplace the pump seal of line {n} every {n}000 hours.\n")
    for n in range(1, 5)}


def test_query_k_in_kb_toml_is_the_number_of_results(tmp_path):
    repo = make_repo(tmp_path / "repo", docs=SEALS)
    with (repo / "kb.toml").open("a", encoding="utf-8") as f:
        f.write("\n[query]\nk = 2\n")
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))

    def results(*args: str) -> int:
        out = CliRunner().invoke(main, ["query", "--index", str(repo / "dist"), "--json",
                                        "--no-log", *args, "replace the pump seal"])
        assert out.exit_code == 0, out.output
        return len(json.loads(out.output)["results"])

    assert results() == 2
    assert results("-k", "3") == 3  # the option still wins
    index = open_index(repo / "dist")
    try:
        assert len(search(index, "replace the pump seal").results) == 2
    finally:
        index.close()


def test_paths_dist_is_where_build_writes_and_query_reads(tmp_path, monkeypatch):
    """`kb build --out` and `kb watch --out` said "default: dist/"; the default is kb.toml
    paths.dist, which build, query and release all use."""
    repo = make_repo(tmp_path / "repo", docs=SEALS)
    with (repo / "kb.toml").open("a", encoding="utf-8") as f:
        f.write('\n[paths]\ndist = "out/idx"\n')
    monkeypatch.chdir(repo)
    assert CliRunner().invoke(main, ["build", "-q"]).exit_code == 0
    assert (repo / "out" / "idx" / "manifest.json").is_file() and not (repo / "dist").exists()
    out = CliRunner().invoke(main, ["query", "--json", "--no-log", "replace the pump seal"])
    assert out.exit_code == 0 and json.loads(out.output)["results"]
    for command in ("build", "watch"):
        help_text = CliRunner().invoke(main, [command, "--help"]).output
        assert "(default: kb.toml paths.dist, else dist/)" in " ".join(help_text.split())


def test_a_category_setting_nothing_reads_is_refused_at_its_line(tmp_path):
    """kb.toml's schema took `[categories.<name>] schema`, which nothing read (the category's
    schema is always schemas/categories/<name>.schema.json): a user pointing it elsewhere
    was never told. `folder` (where `kb draft new` writes) is the one setting there."""
    (tmp_path / "kb.toml").write_text('[categories.engineering]\nfolder = "knowledge/eng"\n'
                                      'schema = "schemas/eng.json"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="'schema' was unexpected") as exc:
        load_config(tmp_path)
    assert exc.value.line == 3
    (tmp_path / "kb.toml").write_text('[categories.engineering]\nfolder = "knowledge/eng"\n',
                                      encoding="utf-8")
    assert load_config(tmp_path).section("categories") == {"engineering": {"folder": "knowledge/eng"}}
