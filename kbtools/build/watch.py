"""`kb watch`: keep the local index in step with the knowledge while authors edit.

A watchdog observer collects changes to the files a build reads — knowledge/ (documents,
synonyms), assets/ (the images documents show), schemas/, kb.toml and the domain
dictionary, each folder also when it is created, removed or moved back while watching,
never an editor's or a vault's own files (`_relevant`); an edited kb.toml is loaded
again before the next build (one that does not load is reported, and the previous index keeps serving until it is fixed; the old settings
are never built with) — and after a short quiet period the index is rebuilt in-process with every
cache warm — parsed models stay loaded, unchanged documents keep their parse and chunks
(`kbtools.build.memo`), unchanged chunks reuse their cached vectors, index/ is derived from
the previous one redoing only changed shards, formula
SVGs come from the cache, only the saved document is blamed and, when it claims a review,
judged against the history again (`kbtools.build.history`) — and swapped in atomically, so
a query right after the save sees the change. The index is the one `kb build` makes of the
same tree, each chunk's provenance and `verified` included. HEAD and the branch refs are
watched too (`kbtools.build.watch_git`, from before the first commit on, with or without a
reflog), and what git ignores besides `.gitignore` files (`info/exclude`,
`core.excludesFile`): a commit, checkout or pull rebuilds (every document blamed and judged again, as a
build does), so an approved review is served as verified without a save; it is reported in
words ("commit 1a2b3c4 on main: …") with the documents it changed. A document with errors is reported and the previous
index keeps serving. After the first build, before reporting it, the base embedding model
is loaded (a build whose vectors are all cached loads none), so the first save does not
wait for it to load. After each report, what the watcher keeps (the memo's documents,
chunks and records, the models) is collected once and frozen (`index.reader.settle`), so
the collections during the next save do not walk it (a full collection of a 54k-chunk
watcher: 0.12–0.13 s of CPU, in 2 saves of 6 measured); the full collection runs while the
watcher waits.
"""

from __future__ import annotations

import json
import queue
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kbtools.build.history import HistoryMemo
from kbtools.build.memo import BuildMemo
from kbtools.build.pipeline import BuildOptions, BuildStats, build
from kbtools.build.watch_git import (
    GitAppearing,
    GitFiles,
    HeadState,
    describe,
    git_files,
    head_state,
)
from kbtools.build.watch_links import LinkTargets
from kbtools.config import CONFIG_NAME, Config, load_config
from kbtools.docfiles import editor_markdown
from kbtools.embed.registry import get_reference_embedder
from kbtools.errors import KbError
from kbtools.findings import error_named_as_findings
from kbtools.index.layout import ReleaseLayout
from kbtools.index.reader import settle

QUIET_SECONDS = 0.15
# ... but no longer than this after the first change: under a stream of writes closer than
# QUIET_SECONDS (an autosave on every keystroke, a sync client, a script writing a log into
# knowledge/) the saves so far are built, and those after them by the next update
GATHER_SECONDS = 2.0
# How long watchdog (inotify) holds a file moved away, waiting for where it went, before it
# says it deleted: a document moved into a folder made in the same moment arrives there
# (from the new folder's first listing) at once, its leaving that much later. After a
# folder is made the gathering waits that long, so the move is one change.
MOVE_PAIRING_SECONDS = 0.5
FOLDER_MADE = "\0folder made"  # queued for a folder made in a watched one (no path built)


@dataclass(frozen=True)
class Update:
    changed: tuple[str, ...]  # the files changed, relative to the root
    stats: BuildStats | None
    error: str | None
    seconds: float
    git: str | None = None  # what moved HEAD, in words ("commit 1a2b3c4 on main: …")


def _relevant(path: str, cfg: Config) -> bool:
    """Whether a change of `path` can change the build: a file of the knowledge, assets or
    schemas folders (documents, the images they show, the synonyms), the settings, the
    user dictionary, a Markdown file of the root (a document may link to it), Git's
    `.gitignore` and `.mailmap` (`_git_setting`) and those folders themselves; not hidden
    files or folders (below the folder watched: an Obsidian vault's `.obsidian/plugins/*/data.json`, its `.trash/`, `.git`) nor editors' swap,
    backup, autosave, lock and probe files (`_editor_noise`)."""
    p = Path(path)
    if p in (cfg.root / CONFIG_NAME, cfg.root / str(cfg.get("bm25.user_dict"))):
        return True
    if p.name in (".gitignore", ".mailmap"):
        return _git_setting(p, cfg)
    if _editor_noise(p.name):
        return False
    for folder in (cfg.path(f) for f in _FOLDERS):
        if p.is_relative_to(folder):
            return not any(part.startswith(".") for part in p.relative_to(folder).parts)
    return p.suffix.lower() == ".md" or _anchor(p, cfg)


def _git_setting(path: Path, cfg: Config) -> bool:
    """Whether `path` (a `.gitignore` or `.mailmap`) is a file of Git's that changes what a
    build reads: a `.gitignore` in a folder that is not hidden (what Git ignores is no part
    of the repository, `kbtools.ignored`: an untracked document left out or taken back), the
    root's `.mailmap` (the authors every line's blame names; Git reads no other)."""
    if not path.is_relative_to(cfg.root):
        return False
    folders = path.relative_to(cfg.root).parts[:-1]
    if path.name == ".mailmap":
        return not folders
    return not any(part.startswith(".") for part in folders)


# suffixes of the files editors and tools write beside a document and rename into place or
# remove (`x.md.tmp`, Chrome's `x.md.crswap`, a swap or backup, a merge's leftovers)
_NOISE_SUFFIXES = frozenset({".tmp", ".temp", ".crswap", ".part", ".swp", ".swo", ".swx",
                             ".bak", ".orig", ".rej"})
# a temporary copy named after the document: `x.md.tmp1234`, Node's write-file-atomic
# `x.md.2819498416`, `x.md.tmp.1234`
_NOISE_COPY = re.compile(r".+\.md\.(?:\d+|tmp\w*)(?:\.\w+)?", re.IGNORECASE)


def _editor_noise(name: str) -> bool:
    """An editor's file beside the one it saves, never a build's input: hidden (vim's
    `.x.md.swp`, gedit's `.goutputstream-*`), a backup `x.md~`, Emacs's autosave `#x.md#`,
    an Office lock `~$x.docx` or temporary `~WRL0001.tmp`, JetBrains' safe-write
    `x.md___jb_tmp___`/`___jb_old___`, Typora's `x~.md` and git mergetool's
    `x_LOCAL_1234.md` (`docfiles.editor_markdown`: the build does not read them either), a
    temporary file renamed into place (`x.md.tmp`, `x.md.tmp.1234`, `x.md.2819498416`,
    `x.md.crswap`), a swap, backup or merge leftover (`.swp`, `.bak`, `.orig`), or the file
    vim creates and removes to test a folder's permissions (`4913`, then 123 further each
    time that name is taken)."""
    return (name.startswith((".", "~$")) or name.endswith(("~", "___jb_tmp___", "___jb_old___"))
            or (len(name) > 1 and name.startswith("#") and name.endswith("#"))
            or editor_markdown(name) or Path(name).suffix.lower() in _NOISE_SUFFIXES
            or _NOISE_COPY.fullmatch(name) is not None
            or (name.isascii() and name.isdigit() and int(name) >= 4913
                and (int(name) - 4913) % 123 == 0))


def _anchor(path: Path, cfg: Config) -> bool:
    """Whether `path` is a watched folder or a folder below the root holding one (created,
    removed or moved while watching: what is watched changes)."""
    return path != cfg.root and path.is_relative_to(cfg.root) and any(
        folder.is_relative_to(path) for folder in _watched_paths(cfg))


# folders watched recursively (when they exist), besides the root itself
_FOLDERS = ("knowledge", "assets", "schemas")


def _watched_paths(cfg: Config) -> list[Path]:
    """The folders to watch recursively and the user dictionary's folder (wherever it is)."""
    return [*(cfg.path(f) for f in _FOLDERS),
            (cfg.root / str(cfg.get("bm25.user_dict"))).parent]


def _links(cfg: Config, out: Path | None, memo: BuildMemo | None = None) -> LinkTargets:
    """Where the symlinks in the knowledge, assets and schemas folders lead, the files
    outside them the build at `out` shipped and those its documents name that are missing
    (`kbtools.build.watch_links`)."""
    return LinkTargets.find(cfg.root, _folders(cfg), _manifest(cfg, out), _missing(memo))


def _missing(memo: BuildMemo | None) -> list[str]:
    """The root-relative files the documents the last build checked link or show that
    no file is (`path-missing`)."""
    if memo is None:
        return []
    return sorted({m.path for _, result in memo.checked.values() for m in result.missing
                   if not m.wikilink})


def _folders(cfg: Config) -> list[Path]:
    return [cfg.path(f) for f in _FOLDERS]


def _manifest(cfg: Config, out: Path | None) -> Path:
    return ReleaseLayout(out or cfg.path("dist")).manifest


def _schedule(observer: Any, handler: Any, cfg: Config, gitf: GitFiles | None = None,
              links: LinkTargets | None = None) -> None:
    """Watch `cfg`'s folders with `handler` (anything watched before is dropped); one that
    does not exist yet is watched for through the nearest folder below the root holding
    it (or the root). `gitf`: the repository's HEAD and refs, watched too (a commit or a
    checkout changes every document's blame and review); `links`: where the symlinks in
    those folders lead, watched too (`kbtools.build.watch_links`)."""
    observer.unschedule_all()
    root = cfg.root
    for folder, deep in gitf.folders() if gitf is not None else []:
        observer.schedule(handler, str(folder), recursive=deep)
    watched: dict[Path, bool] = {root: False}  # folder -> recursive
    for i, folder in enumerate(_watched_paths(cfg)):
        recursive = i < len(_FOLDERS)
        while not folder.is_dir() and folder != root and folder.is_relative_to(root):
            folder, recursive = folder.parent, False
        if folder.is_dir():
            watched[folder] = watched.get(folder, False) or recursive
    for folder, recursive in (links.watch_folders() if links is not None else {}).items():
        watched[folder] = watched.get(folder, False) or recursive
    for folder, recursive in watched.items():
        if not any(deep and folder.is_relative_to(w) and folder != w
                   for w, deep in watched.items()):
            observer.schedule(handler, str(folder), recursive=recursive)


def rebuild(cfg: Config, out: Path | None, changed: tuple[str, ...],
            lenient: bool = False, memo: BuildMemo | None = None,
            skip_invalid: bool = False) -> Update:
    t0 = time.perf_counter()
    try:
        stats = build(cfg, BuildOptions(out=out, progress=False, lenient=lenient,
                                        skip_invalid=skip_invalid, memo=memo))
        return Update(changed, stats, None, time.perf_counter() - t0)
    except KbError as exc:
        return Update(changed, None, error_named_as_findings(exc, cfg.root).format(),
                      time.perf_counter() - t0)


def watch(cfg: Config, out: Path | None, report: Callable[[Update], None],
          stop: threading.Event | None = None, initial: bool = True,
          lenient: bool = False, skip_invalid: bool = False) -> None:
    """Block, rebuilding after each burst of changes, until `stop` is set; with
    `skip_invalid`, documents with errors are left out of each build (its stats list
    them) instead of keeping the previous index."""
    from watchdog.events import FileSystemEvent, FileSystemEventHandler
    from watchdog.observers import Observer

    events: queue.Queue[str] = queue.Queue()

    class Handler(FileSystemEventHandler):
        def on_any_event(self, event: FileSystemEvent) -> None:
            if event.is_directory and event.event_type == "created" and \
                    Path(str(event.src_path)).is_relative_to(cfg.root):
                events.put(FOLDER_MADE)  # a move into it may be said after it: wait for it
            if event.event_type in ("opened", "closed_no_write") or (
                    event.is_directory and event.event_type not in ("deleted", "moved")
                    and not (event.event_type == "created"
                             and (_anchor(Path(str(event.src_path)), cfg)
                                  or links.awaits(Path(str(event.src_path)))
                                  or (gitf is not None
                                      and gitf.awaits(Path(str(event.src_path))))))):
                return  # a folder moved out of knowledge/ (a file manager's trash) or
                # removed whole has no event of its own files; a watched folder created
                # (or one holding it) is to be watched
            for path in (event.src_path, getattr(event, "dest_path", "")):
                if path and (_relevant(str(path), cfg)
                             or ((links.holds(Path(str(path))) or links.awaits(Path(str(path))))
                                 and not _editor_noise(Path(str(path)).name))
                             or (gitf is not None and (gitf.moves_head(Path(str(path)))
                                                       or gitf.reads_ignores(Path(str(path)))
                                                       or gitf.awaits(Path(str(path)))))):
                    events.put(str(path))

    stop = stop or threading.Event()
    # unchanged documents are parsed, chunked, blamed and judged once per watcher
    memo = BuildMemo(history=HistoryMemo())
    observer = Observer()  # watching starts before the first build: no save is missed
    handler = Handler()
    gitf = git_files(cfg.root)  # HEAD moved (a commit, a checkout): blame and reviews change
    links = _links(cfg, out)  # where a linked document really is, pictures elsewhere
    _schedule(observer, handler, cfg, gitf, links)
    observer.start()
    head = head_state(cfg.root) if gitf is not None else None
    appearing = GitAppearing(cfg.root) if gitf is None else None
    config_file = (cfg.root / CONFIG_NAME).resolve()
    config_error: str | None = None
    unsaid: tuple[str, ...] = ()  # the files of a failed build not reported (a save came)
    try:
        # the models are loaded before the first report: a watcher that says it is ready
        # embeds the first save without loading one (a save meanwhile waits in `events`)
        first_update = rebuild(cfg, out, (), lenient, memo, skip_invalid) if initial else None
        warm_models(out or cfg.path("dist"), str(cfg.get("embedding.model")))
        if (found_links := _links(cfg, out, memo)) != links:
            links = found_links
            _schedule(observer, handler, cfg, gitf, links)
        if first_update is not None:
            report(first_update)
        settle()
        while not stop.is_set():
            if appearing is not None and (found := appearing.look()) is not None:
                # `git init` after the watcher started: watch it; a commit made meanwhile
                # is built as HEAD moving from no commit on its branch
                gitf, appearing = found, None
                head = HeadState((head_state(cfg.root) or HeadState(None, "")).branch, "")
                _schedule(observer, handler, cfg, gitf, links)
                events.put(str(gitf.git_dir / "HEAD"))
            try:
                first = events.get(timeout=0.2)
            except queue.Empty:
                continue
            changed = gathered(events, first)
            if not changed:
                continue  # a folder made, nothing in it for the build
            files = {p for p in changed if gitf is None or not gitf.moves_head(Path(p))}
            moved, head = _head_moved(cfg, head, files != changed)
            if gitf is not None and any(gitf.awaits(Path(p)) for p in files):
                # the folder of git's ignore or settings file made: watch it (and the file
                # it names, if one came with it); the build reads what it lists
                gitf = git_files(cfg.root) or gitf
                _schedule(observer, handler, cfg, gitf, links)
            elif gitf is not None and any(gitf.names_excludes(Path(p)) for p in files):
                # git's settings saved: another core.excludesFile is watched and rebuilds;
                # the same one, nothing the build reads changed
                found_gitf = git_files(cfg.root) or gitf
                if found_gitf.excludes_file == gitf.excludes_file:
                    files = {p for p in files if not gitf.names_excludes(Path(p))}
                else:
                    gitf = found_gitf
                    _schedule(observer, handler, cfg, gitf, links)
            if moved is None and not files:
                continue  # a branch made, a ref packed: HEAD is where it was
            rels = tuple(sorted({_rel(p, cfg.root) for p in files}
                                | set(moved[1] if moved else ())))
            event = moved[0] if moved else None
            if any(_anchor(Path(p), cfg) or links.names_link(Path(p)) or links.awaits(Path(p))
                   for p in files):
                # a watched folder came, went or moved, a symlink was made or removed, or a
                # folder a missing picture is to be in was made
                links = _links(cfg, out, memo)
                _schedule(observer, handler, cfg, gitf, links)
            if config_error or any(Path(p).resolve() == config_file for p in changed):
                # the settings changed: build with the new ones (and watch their folders)
                try:
                    new_cfg = load_config(cfg.root)
                except KbError as exc:
                    config_error = error_named_as_findings(exc, cfg.root).format()
                    report(Update(rels, None, config_error, 0.0, event))
                    continue
                config_error = None
                if _watched_paths(new_cfg) != _watched_paths(cfg):
                    links = _links(new_cfg, out, memo)
                    _schedule(observer, handler, new_cfg, gitf, links)
                cfg = new_cfg
            rels = tuple(sorted(set(rels) | set(unsaid)))
            update = replace(rebuild(cfg, out, rels, lenient, memo, skip_invalid), git=event)
            unsaid = ()
            if update.error is None or events.empty():
                report(update)
            else:  # a save came while it built (an editor writing a file in place, read
                unsaid = rels  # half written: "file is empty"): the next build says what holds
            found_links = links.shipped(cfg.root, _folders(cfg), _manifest(cfg, out),
                                        _missing(memo))
            if found_links != links:  # a picture elsewhere shown or no longer, or missing
                links = found_links
                _schedule(observer, handler, cfg, gitf, links)
            settle()  # after the report: the full collection runs while the watcher waits
    finally:
        observer.stop()
        observer.join()


def gathered(events: queue.Queue[str], first: str) -> set[str]:
    """`first` and the changes queued after it until QUIET_SECONDS pass without one (editors
    save in several steps) or GATHER_SECONDS after `first` (a stream that never pauses);
    after a folder is made (`FOLDER_MADE`, not a change itself), nothing is built before
    MOVE_PAIRING_SECONDS pass (a document moved into it is said to have left that late)."""
    changed = {first}
    start = time.monotonic()
    until, made = start + GATHER_SECONDS, 0.0
    while (left := until - time.monotonic()) > 0:
        made = time.monotonic() if FOLDER_MADE in changed and not made else made
        wait = max(QUIET_SECONDS, made + MOVE_PAIRING_SECONDS + QUIET_SECONDS - time.monotonic()) \
            if made else QUIET_SECONDS
        try:
            changed.add(events.get(timeout=min(wait, left)))
        except queue.Empty:
            break
    changed.discard(FOLDER_MADE)
    return changed


def _head_moved(cfg: Config, head: HeadState | None, touched: bool
                ) -> tuple[tuple[str, list[str]] | None, HeadState | None]:
    """When git's HEAD or ref files were `touched`: what moved HEAD since `head` (in words,
    with the build's files it changed; None when HEAD stayed) and HEAD now."""
    if not touched:
        return None, head
    now = head_state(cfg.root)
    if now is None or now == head:
        return None, head
    words, paths = describe(cfg.root, head, now)
    return (words, [p for p in paths if _relevant(str(cfg.root / p), cfg)]), now


def warm_models(out: Path, model: str) -> list[str]:
    """Load the settings' base embedding model `model` (every chunk has its vector) when the
    index at `out` holds vectors of it (its manifest's "models"), so that the next build
    embeds an edited chunk without loading it first; returns the names loaded. A language's
    extra model (MiniLM: the torch import) is left to the first save that needs it: loaded
    in the watcher, it slowed the rebuilds after it (bench_incremental --model use).
    Anything that stops a model loading is left for a build to report."""
    try:
        held = json.loads(ReleaseLayout(out).manifest.read_text(encoding="utf-8"))["models"]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    names = [model] if model in held else []
    warmed = []
    for name in names:
        try:
            get_reference_embedder(name).embed_batch(["warm"])
        except (KbError, OSError, ImportError):
            continue
        warmed.append(name)
    return warmed


def _rel(path: str, root: Path) -> str:
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path
