"""`kb publish`: load a verified release into a search engine (Milvus) behind an alias."""

from __future__ import annotations

from pathlib import Path

import click

from kbtools.commands.output import (
    alias_option,
    echo_json,
    engine_options,
    json_option,
    terminate_interrupts,
)
from kbtools.engine.milvus import ALIAS, Engine, connect_url
from kbtools.engine.publish import check_release, publish
from kbtools.errors import EngineError, Interrupted, UsageError
from kbtools.ship.release import release_settings


@click.command("publish")
@engine_options
@click.option("--index", "index_path", type=click.Path(path_type=Path), default=None,
              help="Release to publish: dist/, a release dir or a device dir (default: "
                   "KB_INDEX, ./dist of the repo, or the device directory).")
@click.option("--trusted-key", "trusted", multiple=True,
              type=click.Path(dir_okay=False, path_type=Path),
              help="Public key the release must be signed by (default: kb.toml "
                   "release.trusted_keys; a device's pinned keys always apply). Repeatable.")
@click.option("--keep", type=click.IntRange(1), default=None,
              help="Releases to keep in the engine (default: kb.toml release.keep).")
@alias_option("Alias to point at the release (readers follow the default one; another, e.g. a staging alias or the knowledge base's own name, is read with --alias; a name Milvus does not take, such as 农业知识, is made one).")
@click.option("--same-knowledge-base", "same_base", is_flag=True,
              help="The alias serves this release's knowledge base under its old identity "
                   "(its history was rewritten: filter-repo, squashed first commits; or it "
                   "was not named yet and neither a repository here nor a signature by the "
                   "key that signed the served release shows its commit is this "
                   "one's history): move the alias anyway and make its releases this "
                   "one's, so keep and rollback count them.")
@json_option
def publish_cmd(engine: str | None, token_file: Path | None, index_path: Path | None,
                trusted: tuple[Path, ...], keep: int | None, alias: str, same_base: bool,
                as_json: bool) -> None:
    """Publish a release into a Milvus engine and point the alias at it.

    The release is verified first (manifest hashes, release.json, the signature when keys
    are configured); nothing is written before that. Then its collection is loaded,
    indexed, loaded into memory and counted, and only then the alias moves, in one call.
    Publishing the same release again changes nothing. A release older than the served one
    is loaded (when the engine does not hold it already) but the alias stays: `kb rollback
    --engine … TAG` serves it.
    """
    if engine is None:
        raise UsageError("give --engine milvus://HOST:PORT[/DB]")
    settings = release_settings()
    checked = check_release(index_path, trusted or settings.trusted_keys)
    eng = connect_url(engine, token_file, create_db=True)
    try:
        say = None if as_json else (lambda m: click.echo(f"kb publish: {m}", err=True))
        before = eng.alias_target(alias)
        with terminate_interrupts():  # SIGTERM as Ctrl-C: the same line on the way out
            try:
                res = publish(eng, checked, keep=keep or settings.keep, alias=alias,
                              progress=say, same_base=same_base)
            except KeyboardInterrupt:
                raise _stopped(eng, alias, before) from None
    finally:
        eng.close()
    for warning in res.warnings:
        click.echo(f"kb publish: warning: {warning}", err=True)
    if as_json:
        echo_json(res.to_dict())
    elif not res.moved and res.changed:
        click.echo(f"loaded {res.tag} as {res.collection} ({res.chunks} chunks, "
                   f"{res.seconds}s); it is older than the served release, so alias {alias} "
                   f"still points at {res.previous}: `kb rollback --engine {eng.url}"
                   f"{'' if alias == ALIAS else ' --alias ' + alias} {res.tag}` serves it")
    elif res.changed:
        click.echo(f"published {res.tag or 'local build'} as {res.collection} "
                   f"({res.chunks} chunks, {res.seconds}s); alias {alias} moved"
                   + (f"; dropped {', '.join(res.pruned)}" if res.pruned else ""))
    else:
        click.echo(f"{res.collection} is already published and served by alias {alias}; "
                   f"nothing written, loaded and warmed ({res.seconds}s)")


def _stopped(eng: Engine, alias: str, before: str | None) -> Interrupted:
    """The one line of a publish stopped (Ctrl-C, SIGTERM), read from the engine: what the
    alias serves now, which a half-loaded collection never is."""
    stopped = f"publishing into {eng.url} stopped"
    try:
        now = eng.alias_target(alias)
    except EngineError as exc:
        return Interrupted(f"{stopped}; what alias {alias} serves could not be read "
                           f"({exc.message}); run `kb publish` again", path=str(eng.url))
    if now != before:  # stopped after the alias moved: the release is served
        return Interrupted(f"{stopped} after alias {alias} moved to {now}: it is served; run "
                           "`kb publish` again to prune old releases", path=str(eng.url))
    served = f"still serves {now}" if now else "serves nothing yet"
    return Interrupted(f"{stopped} before the release was served: alias {alias} {served}; "
                       "what was loaded is never served, and `kb publish` again drops it and "
                       "loads the release anew", path=str(eng.url))
