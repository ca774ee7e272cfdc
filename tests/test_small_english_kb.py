"""A new user's small English knowledge base: a question whose words a table row holds only
through its section's heading is answered by the passage under that heading that says them,
not by the row; a formula's subscripted symbol ($p_{max}$, $$\\sigma_{y}$$) is found by the
ways a user types it (p_max, pmax, p max, sigma_y)."""

from __future__ import annotations

import pytest

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.hostile import make_repo
from tests.kbfixtures import titled_page

COMPRESSOR = titled_page("Air compressor AC-40 maintenance", """## Oil change

Change the oil every 2,000 operating hours or every 12 months, whichever comes first.
Use ISO VG 46 compressor oil. Capacity: 4.5 L.

1. Stop the compressor and lock out power.
2. Drain the oil while warm (above 40 °C).
3. Refill to the sight glass midline.

## Pressure relief valve

| Symptom | Cause | Action |
|---|---|---|
| Valve hisses below 8 bar | Worn seat | Replace valve |
| Valve does not open at 11 bar | Stuck spring | Replace valve immediately |

The relief pressure $p_r = 1.1 \\times p_{max}$ where $p_{max}$ is 10 bar.""")
STRESS = titled_page("Tensile test", """## Yield stress

The yield limit of the tested bar is

$$\\sigma_{y} = \\frac{F_{y}}{A_0}$$

with $A_0$ its first cross-section.""")
FORMULA_LINE = COMPRESSOR.splitlines().index(
    next(line for line in COMPRESSOR.splitlines() if line.startswith("The relief"))) + 1


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory):
    repo = make_repo(tmp_path_factory.mktemp("newkb"),
                     docs={"knowledge/compressor.md": COMPRESSOR,
                           "knowledge/stress.md": STRESS})
    build(load_config(repo), BuildOptions(out=repo / "dist", progress=False))
    ix = open_index(repo / "dist")
    yield ix
    ix.close()


def _top(index, question: str) -> dict:
    response = search(index, question, k=3)
    assert not response.no_answer, question
    return response.results[0].to_dict()


def test_a_row_matched_by_its_heading_alone_gives_way_to_the_passage_saying_it(index):
    top = _top(index, "relief pressure formula")
    assert top["doc"] == "knowledge/compressor.md"
    assert top["line_start"] <= FORMULA_LINE <= top["line_end"]
    assert top["kind"] != "table_row"


def test_a_row_matching_in_its_own_text_stays_first(index):
    top = _top(index, "valve does not open stuck spring")
    assert top["kind"] == "table_row" and "Stuck spring" in top["text"]


@pytest.mark.parametrize("question", ["what is p_max", "what is pmax", "what is p max",
                                      "what is P_max?"])
def test_a_subscripted_symbol_is_found_as_the_user_types_it(index, question):
    top = _top(index, question)
    assert top["doc"] == "knowledge/compressor.md"
    assert top["line_start"] <= FORMULA_LINE <= top["line_end"]


def test_a_display_formula_symbol_is_found_as_the_user_types_it(index):
    top = _top(index, "what is sigma_y")
    assert top["doc"] == "knowledge/stress.md" and "\\sigma_{y}" in top["text"]


def test_a_subscripted_symbol_is_cited_and_shown_where_it_is_written(index):
    """The symbol's section of the small page is cited (not the page whole), and the
    result lists the symbol as the text writes it, which a display highlights."""
    top = _top(index, "what is pmax")
    lines = COMPRESSOR.splitlines()
    assert top["line_start"] == lines.index("## Pressure relief valve") + 1
    assert "p_{max}" in top["why"]["matched_terms"]
