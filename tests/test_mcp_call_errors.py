"""What an agent reads when a call to `kb mcp` is wrong: one line that names the tools it
can call, or the argument and the JSON types it takes, not the schema's internal names."""

from __future__ import annotations

import pytest
from mcpfixtures import committed_repo, error_text, session

RISK = "knowledge/crops/risk.md"


@pytest.fixture(scope="module")
def answers(tmp_path_factory) -> dict[str, str]:
    repo = committed_repo(tmp_path_factory.mktemp("errors") / "repo")
    calls = {
        "unknown tool": ("serach", {"query": "x"}),
        "where a number": ("search", {"query": "x", "where": 5}),
        # an object is a filter per key (session 48), each a value, a number or a list
        "where an object of objects": ("search", {"query": "x", "where": {"category": {}}}),
        "where a list of lists": ("search", {"query": "x", "where": [["category=x"]]}),
        "heading_path a number": ("read", {"doc": RISK, "heading_path": 3}),
        # a list is a heading path (session 35), of strings
        "table a list": ("evaluate_table", {"doc": RISK, "inputs": {"温度": 1}, "table": [1]}),
        "table an object": ("evaluate_table", {"doc": RISK, "inputs": {"温度": 1},
                                               "table": {"n": 1}}),
        "input a list": ("evaluate_table", {"doc": RISK, "inputs": {"温度": [18]}}),
        "days a word": ("recent", {"days": "seven"}),
        # an argument of one type: pydantic said "Input should be a valid string", naming
        # neither the value nor its type
        "doc a number": ("read", {"doc": 5}),
        "query a list": ("search", {"query": ["赤霉病"]}),
        "quick a word": ("status", {"quick": "maybe"}),
        "flag a list": ("search", {"query": "x", "verified_only": [True]}),
        "inputs a string": ("evaluate_table", {"doc": RISK, "inputs": "温度=18"}),
        "policy a number": ("evaluate_table", {"doc": RISK, "inputs": {"温度": 1}, "policy": 1}),
        "title a number": ("draft_report", {"category": "field-report", "title": 123,
                                            "body": "正文", "location": "P2"}),
        "photo a number": ("draft_report", {"category": "field-report", "title": "T",
                                            "body": "正文", "location": "P2", "photos": [1]}),
    }

    async def scenario(c):
        return {label: error_text(await c.call_tool(name, args))
                for label, (name, args) in calls.items()}

    return session(repo, "--allow-write", scenario=scenario)


def test_an_unknown_tool_is_named_with_the_tools_there_are(answers):
    text = answers["unknown tool"]
    assert "serach" in text and "search, read, recent, evaluate_table" in text


@pytest.mark.parametrize("label, said", [
    ("where a number", "where: expected a list, a string or an object, not a number"),
    ("where an object of objects", "where.category: expected a string, a whole number, a "
                                   "number, a boolean or a list, not an object"),
    ("where a list of lists", "where.0: expected a string, not a list"),
    ("heading_path a number", "heading_path: expected a list or a string, not a number"),
    ("table a list", "table.0: expected a string, not a number (1)"),
    ("table an object", "table: expected a list, a string or a whole number, not an object"),
    ("input a list", "inputs.温度: expected a string, a whole number or a number, not a list"),
    ("days a word", 'days: must be a whole number, 0 or more, not "seven"'),
    ("doc a number", "doc: expected a string, not a number (5)"),
    ("query a list", "query: expected a string, not a list"),
    ("quick a word", 'quick: expected true or false, not a string ("maybe")'),
    ("flag a list", "verified_only: expected true or false, not a list"),
    ("inputs a string", 'inputs: expected an object, not a string ("温度=18")'),
    ("policy a number", "policy: expected 'first' or 'all', not a number (1)"),
    ("title a number", "title: expected a string, not a number (123)"),
    ("photo a number", "photos.0: expected an object, not a number (1)"),
])
def test_a_wrong_type_names_the_types_the_argument_takes(answers, label, said):
    text = answers[label]
    assert said in text, text
    assert "\n" not in text
    for internal in ("constrained-str", "list[", "function-", "int]", "str]"):
        assert internal not in text, text
