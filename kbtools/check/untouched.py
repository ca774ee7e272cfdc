"""Whether the commit being made leaves what `kb check` reads of a knowledge base as it was:
the pre-commit hook's quick way out for a commit of code alone.

The hook runs `kb check --staged` on every commit (a commit that deletes or renames a
document passes no file to a hook, so it cannot wait for a Markdown file), and each one paid
about a second, most of it importing the check stack. A commit passes untouched when each
of its changes adds or edits a regular file outside the knowledge base's folders (its
knowledge, assets and schemas folders, kb.toml, the tokenizer dictionary, the folders the
hook names) that no document can show or open (Markdown anywhere: a link's `#anchor` names
its headings; pictures, PDFs) and is no `.gitignore` or `.gitattributes`. Any deletion or
rename, a symlink, a submodule, or a first commit is checked as before: a link to a file the
commit deletes is still caught. For a knowledge base in a subfolder (docs/kb), changes
outside it count for nothing but Git's own files (a link leaving the knowledge base is an
error whatever it names): a monorepo's commit to docs/a passes docs/b's hook at once.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from kbtools.config import CONFIG_NAME, Config
from kbtools.docfiles import OTHER_MARKDOWN_SUFFIXES
from kbtools.gitobjects import staged_changes
from kbtools.markdown.spaced import LINKED
from kbtools.provenance import open_repo

READ_ANYWHERE = LINKED | OTHER_MARKDOWN_SUFFIXES  # what a document links, shows or is
GIT_FILES = frozenset({".gitignore", ".gitattributes", ".gitmodules"})
REGULAR = frozenset({"100644", "100755"})


def untouched(cfg: Config, targets: list[Path]) -> bool:
    """Whether the commit being made (the Git index against HEAD) changes nothing `kb check
    --staged` of `targets` in the knowledge base `cfg` reads (module docstring)."""
    repo = open_repo(cfg.root)
    if repo is None or repo.working_tree_dir is None:
        return False
    with repo:
        top = Path(repo.working_tree_dir).resolve()
        changes = staged_changes(repo)
    if not changes or not cfg.root.resolve().is_relative_to(top):  # a first commit, git failing, or nothing staged (a merge's own check)
        return False
    watched = [cfg.path("knowledge"), cfg.path("assets"), cfg.path("schemas"),
               cfg.root / CONFIG_NAME, cfg.root / str(cfg.get("bm25.user_dict")), *targets]
    folders = []
    for path in watched:
        try:
            folders.append(PurePosixPath(path.resolve().relative_to(top).as_posix()))
        except ValueError:  # outside the work tree: nothing a commit changes
            continue
    base = PurePosixPath(cfg.root.resolve().relative_to(top).as_posix())
    for old_mode, new_mode, status, name in changes:
        changed = PurePosixPath(name)
        if changed.name not in GIT_FILES and base != PurePosixPath(".") \
                and not changed.is_relative_to(base):
            continue  # outside a knowledge base in a subfolder: a link there is an error
        if status not in ("A", "M") or new_mode not in REGULAR \
                or old_mode not in REGULAR | {"000000"} \
                or changed.suffix.lower() in READ_ANYWHERE or changed.name in GIT_FILES \
                or any(folder == PurePosixPath(".") or changed.is_relative_to(folder)
                       for folder in folders):
            return False
    return True
