"""kb check runs the formula check and the decision-table analysis on every document."""

from __future__ import annotations

from kbtools.check.engine import check_paths
from kbtools.config import load_config
from tests.kbfixtures import copy_example


def test_decision_gap_and_invalid_latex_are_findings(tmp_path):
    repo = copy_example(tmp_path / "repo", ["knowledge/crops/wheat-scab.md",
                                            "knowledge/crops/pesticide-dilution-and-phi.md",
                                            "knowledge/crops/field-survey-methods.md"])
    doc = repo / "knowledge" / "crops" / "wheat-scab.md"
    cfg = load_config(repo)
    assert [f for f in check_paths([doc], cfg) if f.level == "error"] == []
    text = doc.read_text(encoding="utf-8")
    doc.write_text(text.replace("| 15-20 | <85 |", "| 15-20 | <80 |", 1)
                   + "\n$$ \\frac{a}{b $$\n", encoding="utf-8")
    codes = {(f.code, f.level) for f in check_paths([doc], cfg)}
    assert ("decision-gap", "warning") in codes
    assert ("math-invalid", "error") in codes
