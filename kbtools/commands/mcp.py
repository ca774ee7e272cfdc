"""`kb mcp`: serve the knowledge to agents over MCP (stdio)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("mcp")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help="Index to serve: dist/ dir, device dir or git checkout of a release "
                   "(default: KB_INDEX, ./dist of "
                   "the repo, or the device directory).")
@click.option("--allow-write", is_flag=True,
              help="Also offer draft_report, which commits unverified drafts on new branches.")
@click.option("--no-log", "no_log", is_flag=True,
              help="Do not record searches in the device's query log (see `kb log`).")
def mcp(index: Path | None, allow_write: bool, no_log: bool) -> None:
    """Run an MCP server over stdio with search, read, recent and evaluate_table tools.

    stdout carries the protocol; logs go to stderr. Register it with an MCP client as the
    command `kb mcp` (see docs/agents.md).
    """
    from kbtools.agents.mcp_server import serve

    serve(index=index, allow_write=allow_write, query_log=not no_log)
