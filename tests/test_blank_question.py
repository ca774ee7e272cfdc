"""A blank question, and other questions with nothing to search, alike on every surface.

`kb query "  "` and MCP `search` with a blank `query` answered "no answer: empty question" and
succeeded (exit 0, no error), where /api/search refused it: an agent or a script took "the
knowledge does not know" for an answer to a question never asked. A question is blank when
nothing is left once it is cleaned (`kbtools.query.question.is_blank`): empty, spaces (a
full-width one, line breaks), control characters (a NUL), invisible characters (a zero-width
space). Each surface refuses it in one line naming its argument: `kb query`'s QUESTION (exit 2),
a questions file's "query" at FILE:LINE (`--batch`, `kb eval`), MCP's 'query', the API's 'q'
or 'query'. A question of marks, emoji, stop words or a script no model reads holds something:
it is searched, and every surface answers it the same. Real build, real server over stdio."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from mcpfixtures import built, data, error_text, session  # noqa: F401 (a fixture)
from servefixtures import app_client, error_of

from kbtools.cli import main

BLANK = ["", "   ", "\u3000\n\t", "\x01\x02\x1b", "\u200b\u2060", " \x00 "]
# nothing to refuse: each is searched and answered (or not) the same way everywhere
ODD = ["？！。…", "🌾🐛😀", "的了吗", "the of and", "ما هو مرض القمح", "что такое ржавчина"]


@pytest.fixture(scope="module")
def client(built):  # noqa: F811 (the fixture above)
    yield from app_client(built / "dist")


def _cli(*args: str):
    return CliRunner().invoke(main, ["query", "--no-log", *args])


@pytest.mark.parametrize("question", [q for q in BLANK if "\x00" not in q])  # argv holds no NUL
def test_kb_query_refuses_a_blank_question_naming_it(built, question):  # noqa: F811
    result = _cli("--index", str(built / "dist"), question)
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and "QUESTION is" in result.output, result.output
    assert "ask something" in result.output and "Traceback" not in result.output


def test_a_blank_question_in_a_questions_file_names_the_file_and_line(built, tmp_path):  # noqa: F811
    """`kb query --batch` answers the lines before it; `kb eval` refuses the file."""
    for n, blank in enumerate(BLANK):
        path = tmp_path / f"q{n}.jsonl"
        path.write_text(json.dumps({"id": "a", "query": "霜霉病", "gold": ["crops/risk.md"]})
                        + "\n" + json.dumps({"id": "b", "query": blank}) + "\n",
                        encoding="utf-8")
        batch = _cli("--index", str(built / "dist"), "--json", "--batch", str(path))
        assert batch.exit_code == 2, batch.output
        first, refusal = batch.output.strip().split("\n")
        assert json.loads(first)["id"] == "a"
        assert refusal.endswith(f'{path}:2: "query" is {"empty" if not blank else "blank"}'
                                f' (only spaces, control or invisible characters): ask '
                                f'something' if blank else f'{path}:2: "query" is empty: '
                                f'ask something'), refusal
        ev = CliRunner().invoke(main, ["eval", str(path), "--index", str(built / "dist")])
        assert ev.exit_code == 2 and f'{path}:2: "query" is' in ev.output, ev.output


def test_the_json_api_and_the_search_page_read_a_blank_question_as_the_cli(client):
    for blank in BLANK:
        said = error_of(client.post("/api/search", json={"query": blank}), 400)
        assert said.startswith("'query' (the question) is "), said
        said = error_of(client.get("/api/search", params={"q": blank}), 400)
        assert said.startswith("'q' (the question) is "), said
        page = client.get("/", params={"q": blank})  # the form, nothing searched
        assert page.status_code == 200 and "Traceback" not in page.text


def test_mcp_search_refuses_a_blank_query_as_an_error_naming_it(built):  # noqa: F811
    async def scenario(c):
        return [await c.call_tool("search", {"query": q}) for q in BLANK] + \
            [await c.call_tool("search", {"query": "霜霉病", "k": 1})]

    *refused, answered = session(built, scenario=scenario)
    for res in refused:
        said = error_text(res)
        assert "'query' (the question) is " in said and "ask something" in said, said
        assert "\n" not in said.strip()
    assert data(answered)["results"]


def test_questions_with_nothing_to_refuse_are_answered_alike_everywhere(built, client):  # noqa: F811
    """Marks, emoji, stop words, Arabic, Cyrillic: never an error nor a traceback; the CLI,
    the JSON API and MCP give the same verdict and reason."""
    async def scenario(c):
        return [await c.call_tool("search", {"query": q, "k": 3}) for q in ODD]

    over_mcp = [data(r) for r in session(built, scenario=scenario)]
    for q, mcp in zip(ODD, over_mcp, strict=True):
        cli = _cli("--index", str(built / "dist"), "--json", "-k", "3", q)
        assert cli.exit_code == 0, cli.output
        api = client.post("/api/search", json={"query": q, "k": 3})
        assert api.status_code == 200, api.text
        verdicts = [(r["no_answer"], r.get("reason"), [x["chunk_id"] for x in r["results"]])
                    for r in (json.loads(cli.output), api.json(), mcp)]
        assert verdicts[0] == verdicts[1] == verdicts[2], (q, verdicts)


def test_a_question_too_long_is_one_line_everywhere(built, client):  # noqa: F811
    """A 100 KB paste: refused in one line naming the bound (the API's on a request body,
    then on a question), not searched nor a traceback."""
    long = "小麦霜霉病 " * 17_000
    cli = _cli("--index", str(built / "dist"), long)
    assert cli.exit_code == 2 and cli.output.count("\n") == 1, cli.output[:300]
    assert "larger than" in error_of(client.post("/api/search", json={"query": long}), 413)
    assert "longer than 10000 characters" in error_of(
        client.post("/api/search", json={"query": long[:12_000]}), 400)
