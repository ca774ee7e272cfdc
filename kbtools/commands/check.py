"""`kb check`: validate knowledge documents (front matter, paths, content)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kbtools.check.untouched import untouched
from kbtools.commands.output import (
    echo_json,
    from_here,
    json_option,
    named_from_here,
    report_findings,
)
from kbtools.config import Config, load_config, load_kb_config
from kbtools.corpus import MIN_MAX_BYTES
from kbtools.errors import KbError, UsageError, plural
from kbtools.findings import here_prefix
from kbtools.knowledge_dir import knowledge_folder

if TYPE_CHECKING:
    from kbtools.check.engine import CheckContext


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@json_option
@click.option("--fix", is_flag=True,
              help="Repair mechanical problems in place (absolute -> relative, "
                   "backslashes -> '/', wrong case -> real case, Obsidian [[wikilinks]] and "
                   "![[embeds]] naming one file -> standard links, ##heading -> ## heading, a "
                   "space in a link's path -> %20, blank lines above the front matter "
                   "deleted), then check again. Each change is one line on stderr (at most "
                   "20 of a file, then one line counting the rest; with --json every one).")
@click.option("--lenient", is_flag=True,
              help="Report front-matter problems as warnings (for foreign corpora).")
@click.option("--no-schema", "no_schema", is_flag=True,
              help="Skip JSON Schema validation of front matter.")
@click.option("--max-size", "max_size", type=click.IntRange(min=MIN_MAX_BYTES), default=None,
              help="Largest allowed document in bytes, at least 1024 as in kb.toml (default: "
                   "kb.toml [check] max_bytes, else 2 MB).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None,
              help="Worker processes (default: automatic for large corpora).")
@click.option("--no-cache", "no_cache", is_flag=True,
              help="Parse every document again instead of reusing parses of unchanged "
                   "documents from the cache folder (.kb-cache/).")
@click.option("--staged", is_flag=True, envvar="PRE_COMMIT",
              help="Check what the next commit holds (inside Git): documents found in "
                   "folders, and link and image targets, count only when they are in the Git "
                   "index (an untracked or unstaged-deleted file is missing). On when run by "
                   "pre-commit (it sets PRE_COMMIT=1 and stashes unstaged changes).")
def check(paths: tuple[Path, ...], as_json: bool, fix: bool, lenient: bool, no_schema: bool,
          max_size: int | None, jobs: int | None, no_cache: bool, staged: bool) -> None:
    """Check Markdown knowledge documents.

    PATHS are files or directories (default: the knowledge folder from kb.toml). Prints one
    line per finding, `path:line:col: level: code: message`, sorted (at most 20 of one code
    in one file, then one line saying how many more; --json lists every one); exits 1 if any
    finding is an error. Front matter is validated against schemas/ (base schema plus the
    category's schema); links and images must be relative, existing, inside the repo and
    match the file's case exactly; Obsidian `[[wikilinks]]` and `![[embeds]]` are errors
    (plain text to kbtools). An image the release would leave out (a Git LFS pointer, a
    HEIC photo, an SVG, over 20 MiB, no picture) gets a warning. Inside Git, a verified
    document whose lines changed after its review gets a `verification-lapsed` warning
    (the build serves them as unverified).
    """
    start = _start(paths)
    cfg = load_config(start) if paths else load_kb_config(start)
    missing = [p for p in paths if not p.exists() and not p.is_symlink()]
    for p in missing:
        # the knowledge folder named (a monorepo's hook: `kb check docs/kb/knowledge`) is
        # gone with its last document when Git agrees (`knowledge_folder`): none to check
        if p.resolve() != cfg.path("knowledge").resolve() or knowledge_folder(cfg) is not None:
            raise UsageError(f"no such file or directory: {p}")
    # no folder: its last document deleted (Git keeps no empty folder), checked as empty
    targets = ([p for p in paths if p not in missing] if paths
               else [f for f in [knowledge_folder(cfg)] if f is not None])
    with named_from_here(cfg.root):
        _check(cfg, paths, targets, as_json, fix, lenient, no_schema, max_size, jobs,
               no_cache, staged)


def _check(cfg: Config, paths: tuple[Path, ...], targets: list[Path], as_json: bool,
           fix: bool, lenient: bool, no_schema: bool, max_size: int | None, jobs: int | None,
           no_cache: bool, staged: bool) -> None:
    if staged and not fix and untouched(cfg, targets):
        # a commit of code alone: the check stack is not even imported (0.3 instead of
        # 0.8 s of CPU on 29 documents)
        if as_json:
            echo_json([])
        click.echo("kb check: skipped: the commit only adds or edits files kb check never "
                   "reads (no document, asset, schema, kb.toml, dictionary, picture or PDF, "
                   "and no deletion or rename)", err=True)
        return
    # imported here: the quick way out above imports none of the check stack
    from kbtools.check.engine import check_results, make_context
    from kbtools.check.fix import fix_lines, fix_paths
    from kbtools.check.vocabulary import is_data_file

    def ctx_factory() -> CheckContext:
        return make_context(cfg, lenient=lenient, schema_checks=not no_schema,
                            max_bytes=max_size, cache=not no_cache, history=True,
                            staged=staged)

    if fix:
        changes, results, findings = fix_paths(targets, ctx_factory, jobs)
        prefix = here_prefix(cfg.root)
        shown = [dataclasses.replace(change, path=prefix + change.path) for change in changes]
        for line in ([c.format() for c in shown] if as_json else fix_lines(shown)):
            click.echo(line, err=True)
    else:
        results, findings = check_results(targets, ctx_factory(), jobs)
    ctx_user_dict = cfg.root / str(cfg.get("bm25.user_dict"))
    if not results and not staged and not any(is_data_file(t, ctx_user_dict) for t in targets):
        if paths and any(t.resolve() != cfg.path("knowledge").resolve() for t in targets):
            raise KbError("no Markdown documents found in: " + " ".join(map(str, targets)))
        # a new knowledge base's own folder, still empty: nothing is wrong with it (the
        # build makes an empty release of it); say what to do, as kb init's next step
        folder = cfg.path("knowledge")
        named = (here_prefix(cfg.root) + folder.relative_to(cfg.root).as_posix()
                 if folder.is_relative_to(cfg.root) else str(folder))
        click.echo(f"kb check: no document in {named}/ yet: write one there (a .md file that "
                   "starts with front matter, like the example kb init writes), or run kb "
                   "draft new --category CATEGORY --title TITLE", err=True)
    report_findings(from_here(findings, cfg.root), f"check: {plural(len(results), 'document')}",
                    as_json=as_json)


def _start(paths: tuple[Path, ...]) -> Path:
    """Where to look for kb.toml: the first path's folder, else the current directory."""
    if not paths:
        return Path.cwd()
    first = paths[0].absolute()
    return first if first.is_dir() else first.parent
