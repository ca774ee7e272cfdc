"""`kb query --json` is documented field by field (docs/retrieval.md) and carries its format
version: every key the real output holds, for a hit, a no-answer, an evaluated decision table,
filters (routed, expanded, where), a condensed pasted log and `--batch`, is named there."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kbtools.cli import main
from kbtools.query.results import QUERY_FORMAT

DOCS = Path(__file__).resolve().parents[1] / "docs" / "retrieval.md"
# objects whose keys are the knowledge's own (front matter, per-kind extras) or an open
# explanation: documented as such, not key by key
OPEN = {"metadata", "extra", "source", "links", "why", "inputs", "outputs", "conflicts",
        "approximate"}


def _documented() -> set[str]:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("## `kb query --json`")
    section = text[start:text.index("\n## ", start + 1)]
    return set(re.findall(r"`([a-z_]+)`", section))


def _keys(value: Any, found: set[str]) -> set[str]:
    if isinstance(value, dict):
        for k, v in value.items():
            found.add(k)
            if k not in OPEN:
                _keys(v, found)
    elif isinstance(value, list):
        for v in value:
            _keys(v, found)
    return found


def _query(index: Path, *args: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(main, ["query", "--index", str(index), "--no-log", "--json", *args])
    assert res.exit_code == 0, res.output
    text = res.stdout
    if "--batch" in args:
        return [json.loads(line) for line in text.splitlines()]
    return [json.loads(text)]


def test_every_field_of_kb_query_json_is_documented(example_index, tmp_path):
    log = "\n".join(f"2026-11-0{i % 9 + 1} 10:0{i % 10}:00 pump P{i} running, pressure "
                    f"{i}.{i} bar, reading {i * 7}" for i in range(120))
    log += "\n2026-11-05 10:41:02 alarm E17 servo overload, stopped\n"
    batch = tmp_path / "q.jsonl"
    batch.write_text(json.dumps({"id": "b", "query": "E17 复位", "where": ["kind!=formula"]})
                     + "\n", encoding="utf-8")
    outputs = [
        *_query(example_index, "-k", "3", "E17 报警后怎么复位？"),
        *_query(example_index, "What is the capital of France?"),
        *_query(example_index, "E99 报警怎么处理"),
        *_query(example_index, "-k", "2", "温度 22 度、湿度 90%、连续降雨 4 天，小麦赤霉病风险多高？"),
        *_query(example_index, "温度 22 度，小麦赤霉病风险多高？"),
        *_query(example_index, "--where", "crop=小麦", "--verified-only", "赤霉病"),
        *_query(example_index, log),
        *_query(example_index, "--batch", str(batch)),
    ]
    assert any(o.get("condensed") for o in outputs)  # the cases reach the optional fields
    assert any(r.get("evaluation") for o in outputs for r in o["results"])
    assert any(o["no_answer"] for o in outputs) and any(o.get("not_in_knowledge") for o in outputs)
    keys: set[str] = set()
    for o in outputs:
        assert o["format"] == QUERY_FORMAT == 1
        _keys(o, keys)
    missing = keys - _documented()
    assert not missing, f"fields of `kb query --json` not in docs/retrieval.md: {sorted(missing)}"


def test_batch_lines_carry_their_id_then_the_format(example_index, tmp_path):
    batch = tmp_path / "q.jsonl"
    batch.write_text('{"query": "E17 复位"}\r\n\r\n{"id": 7, "query": "如何烤蛋糕"}\r\n',
                     encoding="utf-8")
    first, second = _query(example_index, "--batch", str(batch))
    assert list(first)[:2] == ["id", "format"] and first["id"] == 1 and not first["no_answer"]
    assert second["id"] == 7 and second["no_answer"] and second["format"] == QUERY_FORMAT


def test_exit_status_is_as_the_help_says_in_every_mode(example_index, tmp_path):
    """Answer and no answer exit 0 for one question, --json and --batch alike; a bad line
    exits 2 naming FILE:LINE; `kb query --help` says so."""
    help_text = CliRunner().invoke(main, ["query", "--help"]).output
    assert "Exit 0 when the search ran, answered or not" in help_text
    good = tmp_path / "good.jsonl"
    good.write_text('{"query": "E17 复位"}\n{"query": "What is the capital of France?"}\n',
                    encoding="utf-8")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "E17 复位"}\n# a comment\n', encoding="utf-8")
    base = ["query", "--index", str(example_index), "--no-log"]
    for extra in ([], ["--json"]):
        for args in (["E17 报警后怎么复位？"], ["如何烤蛋糕"], ["--batch", str(good)]):
            assert CliRunner().invoke(main, [*base, *extra, *args]).exit_code == 0
        res = CliRunner().invoke(main, [*base, *extra, "--batch", str(bad)])
        assert res.exit_code == 2 and res.stderr.strip() == \
            f"kb: error: {bad}:2: not JSON: expected a JSON object with \"query\" on each line"
