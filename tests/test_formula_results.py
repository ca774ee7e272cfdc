"""A result whose text holds a display formula names the formula's SVG, whatever its kind: a
small section holding only a `$$` block and a line of text is one chunk (its formula chunk
would repeat the same text), so without `extra.formulas` it showed LaTeX and no picture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from starlette.testclient import TestClient

from kbtools.agents.mcp_server import Context, tool_search
from kbtools.build.pipeline import BuildOptions, build
from kbtools.cli import main
from kbtools.config import load_config
from kbtools.render import formula as fm
from kbtools.render.formula import formula_relpath
from kbtools.serve.app import create_app
from tests.kbfixtures import GOOD_FM

needs_latex = pytest.mark.skipif(fm.backend_problem() is not None,
                                 reason="LaTeX backend not installed (see docs/formulas.md)")

SPEED = r"v = \frac{s}{t}"
DOC = GOOD_FM + "平均速度等于路程除以时间：\n\n$$\n" + SPEED + "\n$$\n\n其中 s 为路程，t 为时间。\n"
LINE = DOC.splitlines().index("$$") + 1  # the formula's first line


def chunks(dist: Path) -> list[dict[str, object]]:
    return [json.loads(line) for shard in sorted((dist / "data" / "chunks").glob("*.jsonl"))
            for line in shard.read_text(encoding="utf-8").splitlines()]


def build_corpus(tmp_path: Path, docs: dict[str, str], lenient: bool = False) -> Path:
    corpus = tmp_path / "corpus"
    corpus.mkdir(exist_ok=True)
    for name, text in docs.items():
        (corpus / name).write_text(text, encoding="utf-8")
    build(load_config(tmp_path), BuildOptions(corpus=corpus, out=tmp_path / "dist",
                                              lenient=lenient, progress=False))
    return tmp_path / "dist"


@needs_latex
def test_a_section_holding_a_formula_names_its_svg_in_every_output(tmp_path):
    dist = build_corpus(tmp_path, {"speed.md": DOC})
    svg = formula_relpath(SPEED)
    assert (dist / "data" / svg).is_file()
    held = [c for c in chunks(dist) if SPEED in str(c["text"])]
    # the formula chunk repeats the section's text, so the section is the only chunk of it
    assert [c["kind"] for c in held] == ["section"]
    assert held[0]["extra"]["formulas"] == [{"svg": svg, "line": LINE}]

    runner = CliRunner()
    out = runner.invoke(main, ["query", "--index", str(dist), "--mode", "bm25", "--no-log",
                               "--json", "平均速度 路程 时间"])
    assert out.exit_code == 0, out.output
    top = json.loads(out.stdout)["results"][0]
    assert top["kind"] == "section" and top["extra"]["formulas"] == [{"svg": svg, "line": LINE}]
    out = runner.invoke(main, ["query", "--index", str(dist), "--mode", "bm25", "--no-log",
                               "平均速度 路程 时间"])
    assert out.exit_code == 0, out.output
    assert f"[formula SVG: {svg}] (line {LINE})" in out.stdout

    ctx = Context(index=dist, query_log=False)  # MCP: the same result object
    top = tool_search(ctx, "平均速度 路程 时间", 1)["results"][0]
    assert top["extra"]["formulas"] == [{"svg": svg, "line": LINE}]
    with TestClient(create_app(dist), base_url="http://127.0.0.1") as c:
        api = c.get("/api/search", params={"q": "平均速度 路程 时间"}).json()
        assert api["results"][0]["extra"]["formulas"] == [{"svg": svg, "line": LINE}]
        page = c.get("/", params={"q": "平均速度 路程 时间"}).text  # the picture, not LaTeX
        assert f'<img class="formula display" src="/{svg}"' in page
        assert c.get(f"/{svg}").content == (dist / "data" / svg).read_bytes()


@needs_latex
def test_a_formula_that_did_not_render_is_named_by_no_chunk(tmp_path):
    bad = r"\nosuchmacro{x}"
    text = DOC + f"\n$$\n{bad}\n$$\n"
    for _ in range(2):  # the second build keeps the first one's shards
        dist = build_corpus(tmp_path, {"speed.md": text}, lenient=True)
        held = [c for c in chunks(dist) if bad in str(c["text"]) and c["kind"] != "formula"]
        assert held and all(c["extra"].get("formulas") ==
                            ([{"svg": formula_relpath(SPEED), "line": LINE}]
                             if SPEED in str(c["text"]) else None) for c in held)



@needs_latex
def test_one_formula_in_two_documents_and_a_table_is_one_svg_and_a_row_is_cited_alone(tmp_path):
    """The same formula in two documents (once as a `$$` block, once in a table cell) is
    one SVG, which both name; a search for the table's row cites exactly the row's line.
    (The hash is over the formula as written, whitespace runs collapsed: `v=\frac{s}{t}`
    spaced otherwise is a second, identical-looking SVG; docs/formulas.md.)"""
    table = (GOOD_FM + "# 速度表\n\n| 量 | 公式 |\n|---|---|\n| 速度 | $" + SPEED + "$ |\n"
             "| 动能 | $E_k=\\frac{1}{2}mv^2$ |\n")
    dist = build_corpus(tmp_path, {"speed.md": DOC, "table.md": table})
    assert sorted(p.name for p in (dist / "data" / "formulas").glob("*.svg")) == sorted(
        formula_relpath(latex).split("/")[1] for latex in (SPEED, r"E_k=\frac{1}{2}mv^2"))
    named = {c["extra"].get("svg") for c in chunks(dist) if c["kind"] == "formula"}
    named |= {f["svg"] for c in chunks(dist) for f in c["extra"].get("formulas") or []}
    assert named == {formula_relpath(SPEED)}  # display formulas; the cell's is inline
    out = CliRunner().invoke(main, ["query", "--index", str(dist), "--mode", "bm25", "--no-log",
                                    "--json", "动能 公式"])
    assert out.exit_code == 0, out.output
    row_line = table.splitlines().index("| 动能 | $E_k=\\frac{1}{2}mv^2$ |") + 1
    top = json.loads(out.stdout)["results"][0]
    assert (top["kind"], top["line_start"], top["line_end"]) == ("table_row", row_line, row_line)
    assert top["citation"] == f"table.md:{row_line}-{row_line} § 速度表"
