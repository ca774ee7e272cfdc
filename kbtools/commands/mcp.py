"""`kb mcp`: serve the knowledge to agents over MCP (stdio)."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import (
    INDEX_DEFAULT,
    alias_option,
    engine_options,
    refuse_engine_mix,
)
from kbtools.engine.milvus import connect_url
from kbtools.engine.remote import EngineReader


@click.command("mcp")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help=f"Index to serve: dist/ dir, device dir or git checkout of a release "
                   f"({INDEX_DEFAULT}).")
@click.option("--allow-write", is_flag=True,
              help="Also offer draft_report, which commits unverified drafts on new branches.")
@click.option("--no-log", "no_log", is_flag=True,
              help="Do not record searches in the device's query log (see `kb log`).")
@engine_options
@alias_option("With --engine: the alias to read (one `kb publish --alias` moved).")
def mcp(index: Path | None, allow_write: bool, no_log: bool, engine: str | None,
        token_file: Path | None, alias: str) -> None:
    """Run an MCP server over stdio: search, read, recent, evaluate_table and status tools.

    stdout carries the protocol; logs go to stderr. Register it with an MCP client as the
    command `kb mcp` (see docs/agents.md).
    """
    from kbtools.agents.mcp_server import serve

    refuse_engine_mix(engine, local_only=("index",), engine_only=("token_file", "alias"))
    opener = EngineReader(connect_url(engine, token_file), alias).current if engine else None
    serve(index=index, allow_write=allow_write, query_log=not no_log, opener=opener)
