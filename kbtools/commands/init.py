"""`kb init DIR`: scaffold a new knowledge repository."""

from __future__ import annotations

import os
from pathlib import Path

import click

from kbtools.commands.output import echo_json, json_option
from kbtools.errors import plural
from kbtools.scaffold import (
    AT_GIT_ROOT,
    BRANCH,
    LAYOUT,
    enclosing_root,
    ignored,
    scaffold,
    workflow_branch,
)


@click.command("init")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite the files of the skeleton that already exist "
              "(a .gitignore is merged, never overwritten), and replace kb's hooks in "
              ".pre-commit-config.yaml that the project edited (its other hooks are kept).")
@json_option
def init(directory: Path, force: bool, as_json: bool) -> None:
    """Create a new knowledge repository in DIRECTORY.

    Writes kb.toml, schemas/, knowledge/ with one example document, assets/,
    .pre-commit-config.yaml (runs `kb check`), .github/workflows/ and .gitignore, and
    runs `git init` when DIRECTORY is not inside a Git repository (on branch main, the one
    the workflows run on; in an existing repository they run on its origin's default
    branch, else its current one). Inside a bigger repository the hooks and workflows are
    written for its root, with paths under DIRECTORY, to be moved there (those the root has
    already are left to it, its .pre-commit-config.yaml holding kb's hooks brought up to
    date as below). Existing files are never overwritten unless --force is given: they are
    refused, nothing written, or, in a knowledge base already (a kb.toml and its knowledge
    folder), left as they are and named in one line (one already as kb init writes it is
    left alone: kb init again in its own repository writes nothing). An existing .gitignore gets the lines it lacks, and an
    existing .pre-commit-config.yaml kb's hook added to its own; the hooks an earlier kb
    init wrote there (`kb check` from PATH, or a staged-files hook beside a whole-folder one)
    are brought to the current hook in place, saying so in one line, the project's other
    hooks, comments and formatting kept; a kb hook the project edited is kept unless --force.
    Over hooks that are current, the comment lines an earlier kb init wrote about them are
    replaced by today's (said in one line); the project's own comment lines stay.
    """
    branch = workflow_branch(directory)  # before `git init`, which starts on BRANCH
    written, git_ran, notes = scaffold(directory, force)
    rels = [Path(os.path.relpath(p, directory)).as_posix() for p in written]
    outer = enclosing_root(directory)
    at_root = {directory / LAYOUT[template] for template in AT_GIT_ROOT}
    inert = (f"{directory} lies inside the Git repository {outer}: its .pre-commit-config.yaml "
             f"and .github/workflows/ take effect only at that repository's root: they are "
             f"written for it (paths under {directory.resolve().relative_to(outer.resolve())}/"
             f"): move them there, merging the hooks into its own .pre-commit-config.yaml if "
             f"it has one"
             if outer is not None and at_root & set(written) else None)
    warnings = [inert] if inert else []
    hidden = [Path(os.path.relpath(p, directory)).as_posix()
              for p in ignored(directory, written)]
    if hidden:
        more = f" and {len(hidden) - 4} more" if len(hidden) > 5 else ""
        named = ", ".join(hidden[:4] if more else hidden) + more
        warnings.append(f"Git ignores {named} (a .gitignore of the project): "
                        f"they would never be committed, and CI and other clones would lack "
                        f"them; un-ignore them (`git check-ignore -v PATH` names the line)")
    if as_json:
        echo_json({"directory": str(directory), "files": rels, "git_init": git_ran,
                   "branch": branch, "warnings": warnings, "changed": notes})
        return
    for warning in warnings:
        click.echo(f"kb init: warning: {warning}", err=True)
    for note in notes:
        click.echo(f"kb init: {note}", err=True)
    for rel in rels:
        click.echo(rel)
    note = " (git init)" if git_ran else ""
    if branch != BRANCH:
        note += f" (the workflows run on pushes to {branch}, this repository's branch)"
    click.echo(f"kb init: {plural(len(rels), 'file')} written in {directory}{note}; next: kb check",
               err=True)
