"""An identifier typed with other separators than the knowledge writes (session 31): a
technician types ``pg-terminate-backend`` or ``invalid-client`` for the
``pg_terminate_backend`` and ``invalid_client`` of the knowledge (hyphens for underscores, as
the other way round was already found). The document holding it comes first; an identifier
the knowledge holds in no spelling is still no answer. Real build of the example."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from kbtools.cli import main
from kbtools.query.expansion import spellings


def _ask(index, question):
    result = CliRunner().invoke(main, ["query", "--index", str(index), "--no-log", "--json",
                                       "-k", "3", question])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.mark.parametrize("question, doc", [
    ("pg-terminate-backend", "knowledge/engineering/runbook-ingest-5xx.md"),
    ("什么时候用 pg-terminate-backend", "knowledge/engineering/runbook-ingest-5xx.md"),
    ("invalid-client error", "knowledge/engineering/api-authentication.md"),
    ("queued.observations", "knowledge/engineering/runbook-ingest-5xx.md"),
])
def test_an_identifier_with_other_separators_finds_its_document(example_index, question, doc):
    out = _ask(example_index, question)
    assert not out["no_answer"], out.get("reason")
    assert out["results"][0]["doc"] == doc


@pytest.mark.parametrize("question", ["pg-terminate-frontend", "invalid-clients-token"])
def test_an_identifier_held_in_no_spelling_is_no_answer(example_index, question):
    assert _ask(example_index, question)["no_answer"]


def test_the_spellings_of_a_token_with_separators():
    assert "pg_terminate_backend" in spellings("pg-terminate-backend")
    assert "server.port" in spellings("server_port")
    assert "rs-485" in spellings("rs_485")


@pytest.mark.parametrize("question", ["ENC-5M", "enc-5m", "ENC5M", "Ｅｎｃ－５Ｍ", "ENC-5M?"])
def test_a_part_number_alone_finds_a_document_holding_it_first(example_index, question):
    """A question that is a part number and nothing else: the passages holding it come
    first, whether or not one is keyed by it (the spare-parts list and the fault-code row
    only mention ENC-5M; a passage holding none of it ranked above them by its vector)."""
    out = _ask(example_index, question)
    assert not out["no_answer"], out.get("reason")
    assert out["results"][0]["doc"] in ("knowledge/equipment/hx260-ch07-spare-parts.md",
                                        "knowledge/equipment/hx260-ch05-fault-codes.md")
    assert "ENC-5M" in out["results"][0]["text"]


@pytest.mark.parametrize("question", ["adr-0002", "ADR-2", "adr0002", "ADR-0002 decision"])
def test_a_code_the_knowledge_writes_apart_and_zero_padded_is_found(example_index, question):
    """``ADR 0002`` in the knowledge, typed joined, hyphenated or without its zeros: the
    number is looked for zero-padded too (its unpadded 2 is in too many chunks to look in)."""
    out = _ask(example_index, question)
    assert not out["no_answer"], out.get("reason")
    assert out["results"][0]["doc"] == "knowledge/engineering/adr-0002-short-lived-tokens.md"


def test_a_code_written_in_no_spelling_is_still_named(example_index):
    out = _ask(example_index, "ADR-0009")
    assert out["no_answer"] and out["not_in_knowledge"] == ["ADR-0009"]
