"""`kb watch` as editors save: whatever the steps of a save, once the watcher is quiet its
index is the one a full `--no-cache` build of the same tree writes (data/ and the manifest
byte for byte, the store's rows), and a save that does not build leaves the previous index
serving with the problem named by file and line."""

from __future__ import annotations

import shutil
import threading
import time
from pathlib import Path
from typing import Any

from watchdog.events import FileSystemEventHandler

from kbtools.build.pipeline import BuildOptions, build
from kbtools.config import load_config
from kbtools.embed.hashed import hash_embedder
from kbtools.embed.registry import register_embedder
from kbtools.errors import ModelError
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.kbfixtures import copy_example
from tests.test_incremental import store_rows, tree
from tests.test_watch import ADR, _wait, _watched, _watching

DOCS = [ADR, "knowledge/crops/rice-blast.md", "knowledge/crops/field-survey-methods.md"]
RICE = "knowledge/crops/rice-blast.md"


def _quiet(updates: list, at_least: int, quiet: float = 1.5, timeout: float = 120) -> None:
    """Wait for `at_least` updates and then `quiet` seconds without another."""
    _wait(updates, at_least, timeout)
    seen, since = len(updates), time.time()
    end = time.time() + timeout
    while time.time() - since < quiet and time.time() < end:
        time.sleep(0.05)
        if len(updates) != seen:
            seen, since = len(updates), time.time()


def _as_full_build(repo: Path, tmp: Path) -> None:
    full = tmp / "full"
    shutil.rmtree(full, ignore_errors=True)
    build(load_config(repo), BuildOptions(out=full, progress=False, use_cache=False))
    dist = repo / "dist"
    assert tree(dist, "data") == tree(full, "data")
    assert (dist / "manifest.json").read_bytes() == (full / "manifest.json").read_bytes()
    assert store_rows(dist) == store_rows(full)


def _top(repo: Path, question: str) -> str:
    index = open_index(repo / "dist")
    try:
        hits = search(index, question, k=1).to_dict()["results"]
    finally:
        index.close()
    return hits[0]["text"] if hits else ""


def test_a_burst_of_saves_ends_with_the_last_one_served(tmp_path):
    """Five saves 20 ms apart (an editor's autosave, a formatter after the save): the index
    the watcher ends with holds the last, as a full build does."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / ADR
        text = doc.read_text(encoding="utf-8")
        for i in range(5):
            doc.write_text(text + f"\n## Wombat {i}\n\nWombat burrows number {i}17.\n",
                           encoding="utf-8")
            time.sleep(0.02)
        _quiet(updates, 2)
        assert [u.error for u in updates] == [None] * len(updates)
        assert "Wombat burrows number 417" in _top(repo, "wombat burrows number")
        _as_full_build(repo, tmp_path)



def test_saves_that_never_pause_are_built_while_they_go_on(tmp_path):
    """A save every 20 ms (an autosave on each keystroke, a script logging into knowledge/)
    never left the watcher QUIET_SECONDS of quiet, so nothing was built until it stopped:
    the saves gathered for GATHER_SECONDS are built while the stream goes on, and the
    index the watcher ends with holds the last save, as a full build does."""

    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / ADR
        text = doc.read_text(encoding="utf-8")
        done, saved = threading.Event(), []

        def stream() -> None:
            for i in range(1500):  # 30 s at most
                if done.is_set():
                    return
                doc.write_text(text + f"\n## Quokka\n\nQuokka count {i}.\n", encoding="utf-8")
                saved.append(i)
                time.sleep(0.02)

        writer = threading.Thread(target=stream, daemon=True)
        writer.start()
        try:
            _wait(updates, 2, timeout=60)
            assert writer.is_alive(), "the first update came only after the saves stopped"
        finally:
            done.set()
            writer.join()
        _quiet(updates, 2)
        assert [u.error for u in updates] == [None] * len(updates)
        assert f"Quokka count {saved[-1]}." in _top(repo, "quokka count")
        _as_full_build(repo, tmp_path)

def test_a_save_then_an_immediate_delete_leaves_the_document_out(tmp_path):
    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / RICE
        doc.write_text(doc.read_text(encoding="utf-8") + "\n稻瘟病补充说明。\n", encoding="utf-8")
        doc.unlink()
        _quiet(updates, 2)
        last = updates[-1]
        assert last.error is None and last.stats.documents == 2
        assert RICE in last.changed
        _as_full_build(repo, tmp_path)


def test_an_atomic_save_through_a_temporary_file_and_vim_backups(tmp_path):
    """VS Code/Typora write `x.md.tmp` and rename it over `x.md`; vim renames `x.md` to
    `x.md~`, writes `x.md` anew (its `4913` probe and `.x.md.swp` around it) and removes the
    backup: the document is never absent from the index the watcher ends with."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / ADR
        text = doc.read_text(encoding="utf-8")
        tmp = doc.with_name(doc.name + ".tmp")
        tmp.write_text(text + "\n## Numbat\n\nNumbats eat termites.\n", encoding="utf-8")
        tmp.replace(doc)
        _quiet(updates, 2)
        assert "Numbats eat termites" in _top(repo, "what do numbats eat")
        seen = len(updates)
        swap = doc.with_name("." + doc.name + ".swp")
        swap.write_bytes(b"b0VIM 9.0")
        (doc.parent / "4913").write_text("")
        (doc.parent / "4913").unlink()
        backup = doc.with_name(doc.name + "~")
        doc.rename(backup)
        doc.write_text(text + "\n## Bilby\n\nBilbies dig spiral burrows.\n", encoding="utf-8")
        backup.unlink()
        swap.unlink()
        _quiet(updates, seen + 1)
        assert all(u.error is None for u in updates)
        assert all(u.stats.documents == 3 for u in updates[seen:])
        assert "Bilbies dig spiral burrows" in _top(repo, "bilbies dig spiral burrows")
        _as_full_build(repo, tmp_path)


def test_a_broken_save_names_file_and_line_and_the_index_keeps_serving(tmp_path):
    """A save with a front-matter syntax error, then a formula that does not render, then
    fixed: each error names the file and the line, the previous index answers meanwhile,
    the fix is served as a full build serves it."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / RICE
        text = doc.read_text(encoding="utf-8")
        before = _top(repo, "稻瘟病")
        assert before
        doc.write_text(text.replace("verified: true", "verified: [true", 1), encoding="utf-8")
        broken = _wait(updates, 2)
        assert broken.stats is None and f"{RICE}:7:" in broken.error, broken.error
        assert _top(repo, "稻瘟病") == before
        doc.write_text(text + "\n$$ \\frac{1 $$\n", encoding="utf-8")
        formula = _wait(updates, 3)
        line = len(text.splitlines()) + 2
        assert formula.stats is None and f"{RICE}:{line}:" in formula.error, formula.error
        assert _top(repo, "稻瘟病") == before
        doc.write_text(text, encoding="utf-8")  # undone: the bytes of the first build
        _quiet(updates, 4)
        assert updates[-1].error is None and updates[-1].changed == (RICE,)
        assert _top(repo, "稻瘟病") == before
        _as_full_build(repo, tmp_path)
        seen = len(updates)
        doc.write_text(text + "\n稻瘟病修复后的说明。\n", encoding="utf-8")
        _quiet(updates, seen + 1)
        assert updates[-1].error is None
        _as_full_build(repo, tmp_path)


def test_obsidian_trash_and_a_committed_git_mv(tmp_path):
    """Obsidian deletes a note by moving it into the vault's `.trash/` (`.obsidian/` written
    meanwhile); an author then renames a note with `git mv` and commits: each time the index
    the watcher ends with is the full build's (blame of the new commit included)."""
    import git

    with _watching(tmp_path, DOCS) as (repo, updates):
        vault = repo / "knowledge"
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
        (vault / ".trash").mkdir()
        (repo / RICE).rename(vault / ".trash" / "rice-blast.md")
        _quiet(updates, 2)
        assert updates[-1].error is None and updates[-1].stats.documents == 2
        _as_full_build(repo, tmp_path)
        seen = len(updates)
        r = git.Repo(repo)
        r.git.mv(ADR, "knowledge/engineering/设备上的-sqlite.md")
        r.git.add("-A")
        r.git.commit("-q", "-m", "rename the ADR")
        _quiet(updates, seen + 1)
        assert updates[-1].error is None and updates[-1].stats.documents == 2
        _as_full_build(repo, tmp_path)


def test_a_stream_of_changes_is_gathered_for_a_bounded_time():
    """Changes that never pause (a source whose every `get` has one waiting) are gathered
    for GATHER_SECONDS, not until they stop."""
    import queue

    from kbtools.build import watch

    class Endless(queue.Queue):
        def get(self, block=True, timeout=None):
            time.sleep(0.01)
            return "knowledge/x.md"

    got: list[set[str]] = []
    gatherer = threading.Thread(target=lambda: got.append(watch.gathered(Endless(), "a.md")),
                                daemon=True)
    gatherer.start()
    gatherer.join(timeout=watch.GATHER_SECONDS + 30)
    assert got == [{"a.md", "knowledge/x.md"}], "still gathering a stream that never pauses"


def test_a_dictionary_edit_is_said_as_what_changed(tmp_path, monkeypatch):
    """A word added to the domain dictionary changes no document, only the dictionary (BM25
    re-derived): `kb watch` and `kb build` say so, not "0 embedded, N reused"; a comment
    added to it changes nothing the index holds, and the watcher says that, not "no
    document changed"; BM25's k1 set in kb.toml changes no file of data/, and the watcher
    says the settings changed."""
    from click.testing import CliRunner

    from kbtools.cli import main
    from kbtools.commands.watch import _vectors

    with _watching(tmp_path, DOCS) as (repo, updates):
        dictionary = repo / "knowledge/_dict.txt"
        dictionary.write_text("稻瘟病菌 10 n\n", encoding="utf-8")
        _quiet(updates, 2, timeout=30)
        assert updates[-1].changed == ("knowledge/_dict.txt",)
        assert updates[-1].stats.changed == ["dictionary"]
        assert _vectors(updates[-1]) == "no document changed; dictionary changed"
        dictionary.write_text("# 病菌\n稻瘟病菌 10 n\n", encoding="utf-8")
        _quiet(updates, 3, timeout=30)
        assert _vectors(updates[-1]) == "nothing the index holds changed"
        _as_full_build(repo, tmp_path)
        with (repo / "kb.toml").open("a", encoding="utf-8") as fh:  # BM25's k1: data/ the same
            fh.write("\n[bm25]\nk1 = 1.5\n")
        _quiet(updates, 4, timeout=30)
        assert updates[-1].stats.unchanged
        assert _vectors(updates[-1]) == "no document changed; settings changed"
    monkeypatch.chdir(repo)
    out = tmp_path / "cli"
    assert CliRunner().invoke(main, ["build", "--quiet", "--out", str(out)]).exit_code == 0
    dictionary.write_text("稻瘟病菌 10 n\n叶瘟病斑\n", encoding="utf-8")
    built = CliRunner().invoke(main, ["build", "--quiet", "--out", str(out)])
    assert built.exit_code == 0 and "(no document changed; dictionary changed)" in built.output
    with (repo / RICE).open("a", encoding="utf-8") as fh:
        fh.write("\n叶瘟病斑呈梭形。\n")
    dictionary.write_text("稻瘟病菌 10 n\n", encoding="utf-8")
    built = CliRunner().invoke(main, ["build", "--quiet", "--out", str(out)])
    assert built.exit_code == 0 and " from cache; dictionary changed)" in built.output


HOOKED = "test-hash-save-hook"  # test-hash, saving the document again while a build embeds


class _SavingEmbedder:
    """test-hash's vectors, except that a batch holding `mark` while `armed` makes the save
    `then` (path, text) while the build is running, waits until the watcher's handler has
    taken its first event (`_Dispatched`), and fails the build as a model that cannot be
    read does."""

    def __init__(self, name: str):
        self.base = hash_embedder("test-hash")
        self.key, self.dim, self.model_id = HOOKED, self.base.dim, self.base.model_id
        self.armed, self.mark = threading.Event(), ""
        self.then: tuple[Path, str] | None = None
        self.seen: _Dispatched | None = None

    def fingerprint(self) -> str:
        return self.base.fingerprint()

    def embed_batch(self, texts: list[str]) -> Any:
        if self.armed.is_set() and any(self.mark in t for t in texts):
            self.armed.clear()
            assert self.then is not None and self.seen is not None
            path, text = self.then
            path.write_text(text, encoding="utf-8")
            self.seen.wait_for(path)
            raise ModelError(f"{HOOKED}: the model files could not be read")
        return self.base.embed_batch(texts)


class _Dispatched:
    """The paths watchdog handed to an event handler (its `dispatch`, which calls the
    watcher's `on_any_event`): once one is, the watcher has queued it."""

    def __init__(self) -> None:
        self.paths: set[str] = set()
        self.cond = threading.Condition()

    def spy(self, dispatch: Any) -> Any:
        def dispatched(handler: Any, event: Any) -> None:
            dispatch(handler, event)
            if event.event_type in ("modified", "closed", "created", "moved"):
                with self.cond:
                    self.paths |= {str(event.src_path), str(getattr(event, "dest_path", ""))}
                    self.cond.notify_all()
        return dispatched

    def wait_for(self, path: Path) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: str(path) in self.paths, timeout=60), path


def test_a_failed_build_with_a_save_queued_behind_it_is_said_with_the_next(tmp_path,
                                                                           monkeypatch):
    """A build fails (here its model cannot be read) while the next save is already queued
    (made during the build, and taken by the watcher's handler before the build ends): the
    failure is not reported on its own; its files are reported with the next build's,
    which says what holds (the save, built)."""
    embedder = _SavingEmbedder(HOOKED)
    register_embedder(HOOKED, lambda name: embedder, replace=True)
    seen = _Dispatched()
    monkeypatch.setattr(FileSystemEventHandler, "dispatch",
                        seen.spy(FileSystemEventHandler.dispatch))
    embedder.seen = seen
    repo = copy_example(tmp_path / "repo", [ADR])
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'model = "use"', f'model = "{HOOKED}"\nlanguages = {{ en = "{HOOKED}" }}'),
        encoding="utf-8")
    with _watched(repo) as updates:
        doc = repo / ADR
        text = doc.read_text(encoding="utf-8")
        embedder.mark = "Wombat burrows number 117"
        embedder.then = (doc, text + "\n## Wombat\n\nWombat burrows number 217.\n")
        embedder.armed.set()
        doc.write_text(text + "\n## Wombat\n\nWombat burrows number 117.\n", encoding="utf-8")
        after = _wait(updates, 2)
        assert not embedder.armed.is_set()  # the build that failed ran
        assert after.error is None, after.error
        assert after.changed == (ADR,)
        assert "Wombat burrows number 217" in _top(repo, "wombat burrows number")
