"""`kb serve`: the web app and JSON API over the served release."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import INDEX_DEFAULT, alias_option, refuse_engine_mix


@click.command("serve")
@click.option("--index", type=click.Path(path_type=Path), default=None,
              help=f"Index to serve: a device dir (follows its current release), a git "
                   f"checkout of a release (follows its HEAD), a dist/ dir or a release dir "
                   f"({INDEX_DEFAULT}).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but loopback needs --token-file or --open.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True,
              help="Port to listen on.")
@click.option("--token-file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="File holding the access token; every request must then carry it "
                   "(Authorization: Bearer TOKEN, or open a page once with ?token=TOKEN).")
@click.option("--open", "open_network", is_flag=True,
              help="Allow a non-loopback --host without a token (everyone on the network can "
                   "read the knowledge; a warning is printed).")
@click.option("--workers", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Threads that search (searches on one release still run one at a time), "
                   "and as many that render documents, tables and files, which never wait "
                   "behind searches; for more throughput run replicas, see docs/serve.md.")
@click.option("--engine", "engine", metavar="milvus://HOST:PORT[/DB]", default=None,
              help="Serve the release published in this Milvus (kbtools[milvus]) instead of "
                   "local files; follows its alias as a device's current release is followed.")
@click.option("--engine-token-file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="File holding the engine's token (user:password or API key).")
@alias_option("With --engine: the alias to read (one `kb publish --alias` moved).")
def serve(index: Path | None, host: str, port: int, token_file: Path | None,
          open_network: bool, workers: int, engine: str | None,
          engine_token_file: Path | None, alias: str) -> None:
    """Serve the web app (search, documents, decision tables, releases) and the JSON API
    under /api/ from the current release, offline. See docs/serve.md."""
    from kbtools.serve.app import run

    refuse_engine_mix(engine, local_only=("index",), engine_only=("engine_token_file", "alias"))
    run(index, host=host, port=port, token_file=token_file, open_network=open_network,
        workers=workers, engine=engine, engine_token_file=engine_token_file, engine_alias=alias)
