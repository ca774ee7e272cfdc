"""kb watch: a save becomes queryable; a broken save keeps the previous index."""

from __future__ import annotations

import contextlib
import json
import queue
import threading
import time

import pytest

from kbtools.build.watch import _relevant, watch
from kbtools.config import load_config
from kbtools.embed.base import model_loads
from kbtools.index.reader import open_index
from kbtools.query.search import search
from tests.kbfixtures import copy_example


def _wait(updates, n, timeout=120):
    end = time.time() + timeout
    while len(updates) < n and time.time() < end:
        time.sleep(0.05)
    assert len(updates) >= n, f"no update after {timeout}s"
    return updates[n - 1]


def test_watch_picks_up_a_save(tmp_path):
    repo = copy_example(tmp_path / "repo", ["knowledge/engineering/adr-0001-sqlite-on-devices.md"])
    cfg = load_config(repo)
    out = repo / "dist"
    updates = []
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(cfg, out, updates.append, stop), daemon=True)
    thread.start()
    try:
        first = _wait(updates, 1)
        assert first.error is None and first.stats.documents == 1
        # the watcher loaded the base model before its first report
        models = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["models"]
        assert "use" in models and model_loads().get("use")
        doc = repo / "knowledge" / "engineering" / "adr-0001-sqlite-on-devices.md"
        doc.write_text(doc.read_text(encoding="utf-8") +
                       "\n## Quokka retention\n\nQuokka telemetry is kept for 17 days.\n",
                       encoding="utf-8")
        second = _wait(updates, 2)
        assert second.error is None
        assert "knowledge/engineering/adr-0001-sqlite-on-devices.md" in second.changed
        assert 1 <= second.stats.embedded <= 3
        res = search(open_index(out), "how long is quokka telemetry kept", k=1).to_dict()
        assert "Quokka telemetry is kept for 17 days" in res["results"][0]["text"]

        doc.write_text("---\ntitle: [broken\n---\n", encoding="utf-8")
        third = _wait(updates, 3)
        assert third.error and "adr-0001" in third.error
        res = search(open_index(out), "how long is quokka telemetry kept", k=1).to_dict()
        assert "17 days" in res["results"][0]["text"]  # the previous index still serves
    finally:
        stop.set()
        thread.join(timeout=10)


def _kb() -> str:
    import sys
    from pathlib import Path

    return str(Path(sys.executable).parent / "kb")


def test_watch_cli_json_lines_and_bad_config(tmp_path):
    import json
    import os
    import subprocess

    repo = copy_example(tmp_path / "repo", ["knowledge/engineering/adr-0001-sqlite-on-devices.md"])
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    proc = subprocess.Popen([_kb(), "watch", "--json"], cwd=repo, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    try:
        first = json.loads(lines.get(timeout=180))
        assert first["error"] is None and first["stats"]["documents"] == 1
        doc = repo / "knowledge" / "engineering" / "adr-0001-sqlite-on-devices.md"
        doc.write_text(doc.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
        second = json.loads(lines.get(timeout=180))
        assert second["changed"] == ["knowledge/engineering/adr-0001-sqlite-on-devices.md"]
        assert second["error"] is None and second["stats"]["embedded"] >= 1
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    (repo / "kb.toml").write_text("[chunk]\nmin_chars = 'lots'\n", encoding="utf-8")
    res = subprocess.run([_kb(), "watch"], cwd=repo, env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 1 and "kb.toml" in res.stderr and "Traceback" not in res.stderr


def test_watch_builds_with_edited_settings_and_sees_assets(tmp_path):
    """kb.toml edited while watching: the next build uses the new settings (the chunks of a
    build started with them), a broken kb.toml is reported and keeps the index serving
    until it is fixed; an image the documents show, replaced in assets/, is shipped anew;
    a folder moved away takes its documents out of the index."""
    import sqlite3

    from kbtools.build.pipeline import BuildOptions, build

    repo = copy_example(tmp_path / "repo")
    toml = repo / "kb.toml"
    settings = toml.read_text(encoding="utf-8").replace(
        'model = "use"', 'model = "test-hash"\nlanguages = { en = "test-hash" }')
    toml.write_text(settings, encoding="utf-8")
    out = repo / "dist"
    updates: list = []
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(load_config(repo), out, updates.append, stop),
                              daemon=True)
    thread.start()
    try:
        before = _wait(updates, 1).stats.chunks
        toml.write_text(settings + "\n[chunk]\ntarget_chars = 200\nmax_chars = 300\n",
                        encoding="utf-8")
        smaller = _wait(updates, 2)
        full = build(load_config(repo), BuildOptions(out=tmp_path / "full", progress=False,
                                                     use_cache=False))
        assert smaller.error is None and smaller.stats.chunks == full.chunks > before
        assert (out / "manifest.json").read_bytes() == (tmp_path / "full/manifest.json").read_bytes()

        toml.write_text(settings + "\n[chunk]\nmin_chars = 'lots'\n", encoding="utf-8")
        broken = _wait(updates, 3)
        assert broken.stats is None and "kb.toml" in broken.error
        doc = repo / "knowledge/crops/rice-blast.md"
        doc.write_text(doc.read_text(encoding="utf-8") + "\n稻瘟病补充说明。\n", encoding="utf-8")
        still = _wait(updates, 4)
        assert still.stats is None and "kb.toml" in still.error  # not the old settings
        toml.write_text(settings, encoding="utf-8")
        assert _wait(updates, 5).stats.chunks == before  # the default settings again
        con = sqlite3.connect(out / "index/store.sqlite")
        assert con.execute("SELECT COUNT(*) FROM chunks WHERE text LIKE '%稻瘟病补充说明%'"
                           ).fetchone()[0] >= 1  # with the line added meanwhile
        con.close()

        image = repo / "assets/images/wheat-scab-ear.png"
        image.write_bytes((repo / "assets/images/rice-blast-leaf.png").read_bytes())
        shown = _wait(updates, 6)
        assert shown.changed == ("assets/images/wheat-scab-ear.png",)
        assert (out / "data/source/assets/images/wheat-scab-ear.png").read_bytes() == \
            image.read_bytes()

        # a folder moved out of knowledge/ (a file manager's trash) takes its documents
        (repo / "knowledge/engineering").rename(tmp_path / "trash")
        moved = _wait(updates, 7)
        assert moved.changed == ("knowledge/engineering",)
        assert moved.stats.documents == len(list((repo / "knowledge").rglob("*.md")))
    finally:
        stop.set()
        thread.join(timeout=10)


def _start(repo, updates):
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(load_config(repo), repo / "dist", updates.append,
                                                  stop), daemon=True)
    thread.start()
    return stop, thread


def _hashed(repo):
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'model = "use"', 'model = "test-hash"\nlanguages = { en = "test-hash" }'), encoding="utf-8")


ADR = "knowledge/engineering/adr-0001-sqlite-on-devices.md"


@contextlib.contextmanager
def _watched(repo):
    """`repo` watched on a thread into repo/dist: its updates once the first build is in;
    the watcher stopped after."""
    updates: list = []
    stop, thread = _start(repo, updates)
    try:
        _wait(updates, 1)
        yield updates
    finally:
        stop.set()
        thread.join(timeout=10)


@contextlib.contextmanager
def _watching(tmp_path, docs=(ADR,)):
    """The example repository's `docs` (test-hash vectors) watched on a thread: (repo,
    updates) once its first build is in; the watcher stopped after."""
    repo = copy_example(tmp_path / "repo", list(docs))
    _hashed(repo)
    with _watched(repo) as updates:
        yield repo, updates


@pytest.mark.parametrize("rel,relevant", [
    (ADR, True),
    ("knowledge/a/b/c/d/deep.md", True),
    ("knowledge/_synonyms.txt", True),
    ("assets/images/new.png", True),
    ("schemas/categories/x.schema.json", True),
    ("kb.toml", True),
    ("README.md", True),  # a document may link to it
    ("knowledge/.obsidian/workspace.json", False),
    ("knowledge/.obsidian/plugins/remember-cursor-position/cursor-positions.json", False),
    ("knowledge/.trash/crops/old/notes.md", False),
    ("knowledge/crops/.rice-blast.md.swp", False),
    ("knowledge/crops/rice-blast.md~", False),
    ("knowledge/crops/#rice-blast.md#", False),
    ("knowledge/crops/~$report.docx", False),
    ("knowledge/crops/rice-blast.md___jb_tmp___", False),
    ("knowledge/crops/4913", False),
    ("knowledge/crops/5036", False),
    ("knowledge/crops/4914", True),
    ("knowledge/crops/rice-blast~.md", False),  # Typora's copy, written before the save
    ("knowledge/crops/rice-blast.md.tmp", False),  # written, then renamed into place
    ("knowledge/crops/rice-blast.md.tmp.4711", False),
    ("knowledge/crops/rice-blast.md.2819498416", False),  # Node's write-file-atomic
    ("knowledge/crops/rice-blast.md.crswap", False),  # Chrome's File System Access
    ("knowledge/crops/~WRL0001.tmp", False),  # Word
    ("knowledge/crops/rice-blast.md.orig", False),  # git mergetool's backup
    ("knowledge/crops/rice-blast_LOCAL_4711.md", False),  # git mergetool during a rebase
    ("knowledge/crops/v1.tmp.md", True),  # a document, whatever its name holds
    ("knowledge/crops/rice.2024.md", True),
    ("dist/index/store.sqlite", False),
])
def test_which_changes_rebuild(tmp_path, rel, relevant):
    repo = copy_example(tmp_path / "repo", [ADR])
    cfg = load_config(repo)
    assert _relevant(str(cfg.root / rel), cfg) is relevant


def test_watch_ignores_vault_and_editor_noise(tmp_path):
    """An Obsidian plugin rewriting `.obsidian/plugins/<name>/data.json` (the path's
    hidden folder was looked for in its last three parts only), Emacs's autosave, an Office
    lock and vim's `4913` probe each rebuilt the index, over and over."""
    with _watching(tmp_path) as (repo, updates):
        k = repo / "knowledge"
        plugin = k / ".obsidian" / "plugins" / "remember-cursor-position"
        plugin.mkdir(parents=True)
        for i in range(3):
            (plugin / "cursor-positions.json").write_text(json.dumps({"line": i}), encoding="utf-8")
            (k / ".obsidian" / "workspace.json.tmp").write_text("{}", encoding="utf-8")
            (k / ".obsidian" / "workspace.json.tmp").replace(k / ".obsidian" / "workspace.json")
            (k / "engineering" / "#adr-0001-sqlite-on-devices.md#").write_text("draft")
            (k / "engineering" / "~$notes.docx").write_text("lock")
            (k / "engineering" / "4913").write_text("")
            (k / "engineering" / "4913").unlink()
        doc = repo / ADR
        doc.write_text(doc.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
        saved = _wait(updates, 2)
        assert saved.changed == (ADR,) and saved.error is None
        assert len(updates) == 2


def test_a_save_by_typora_or_through_a_renamed_temporary_file_is_one_change(tmp_path):
    """Typora writes `x~.md`, then `x.md`, then removes `x~.md` (slowly, on a network drive):
    the copy was built as a second document and each step reported as a change; a save
    written to `x.md.tmp` and renamed into place listed the temporary file as changed."""
    with _watching(tmp_path) as (repo, updates):
        doc = repo / ADR
        text = doc.read_text(encoding="utf-8")
        copy = doc.with_name(doc.stem + "~.md")
        copy.write_text(text + "\nTypora's save.\n", encoding="utf-8")
        doc.write_text(text + "\nTypora's save.\n", encoding="utf-8")
        saved = _wait(updates, 2)  # built while the copy is still there
        assert saved.changed == (ADR,) and saved.error is None
        assert saved.stats.documents == 1
        copy.unlink()
        tmp = doc.with_name(doc.name + ".tmp")
        tmp.write_text(text + "\nRenamed into place.\n", encoding="utf-8")
        tmp.replace(doc)
        renamed = _wait(updates, 3)
        assert renamed.changed == (ADR,) and renamed.error is None
        assert renamed.stats.documents == 1


def test_watch_follows_folders_that_come_and_go(tmp_path):
    """schemas/ created while watching (the package's schemas served until then), the
    knowledge folder moved away and back, the user dictionary in a folder of its own: each
    was missed (only folders that existed at the start were watched, and not the user
    dictionary's)."""
    import shutil

    repo = copy_example(tmp_path / "repo", [ADR])
    _hashed(repo)
    shutil.move(repo / "schemas", tmp_path / "schemas")
    toml = repo / "kb.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '\n[bm25]\nuser_dict = "dict/domain.txt"\n',
                    encoding="utf-8")
    (repo / "dict").mkdir()
    (repo / "dict" / "domain.txt").write_text("石英表 5 n\n", encoding="utf-8")
    with _watched(repo) as updates:
        assert updates[0].error is None
        engineering = tmp_path / "schemas" / "categories" / "engineering.schema.json"
        body = json.loads(engineering.read_text(encoding="utf-8"))
        body["required"] = [*body.get("required", []), "zebra_field"]
        engineering.write_text(json.dumps(body), encoding="utf-8")
        shutil.copytree(tmp_path / "schemas", repo / "schemas")
        created = _wait(updates, 2)
        assert created.error and "zebra_field" in created.error

        shutil.rmtree(repo / "schemas" / "categories")  # the package's categories again
        assert _wait(updates, 3).error is None

        (repo / "dict" / "domain.txt").write_text("石英表 5 n\n斑马事实 5 n\n", encoding="utf-8")
        edited = _wait(updates, 4)
        assert edited.changed == ("dict/domain.txt",) and edited.error is None
        assert "斑马事实" in (repo / "dist" / "data" / "dictionary.txt").read_text(encoding="utf-8")

        shutil.move(repo / "knowledge", tmp_path / "knowledge")
        assert "knowledge folder not found" in _wait(updates, 5).error
        shutil.move(tmp_path / "knowledge", repo / "knowledge")
        assert _wait(updates, 6).error is None
        doc = repo / ADR
        doc.write_text(doc.read_text(encoding="utf-8") + "\n## Quokka\n\nQuokka line.\n",
                       encoding="utf-8")
        saved = _wait(updates, 7)
        assert saved.changed == (ADR,) and saved.stats.embedded >= 1


def test_watch_skip_invalid_updates_without_the_broken_document(tmp_path):
    """Every rejected save told the author to "use --skip-invalid", an option `kb watch`
    did not have; with it, a broken save leaves that document out and lists it."""
    from click.testing import CliRunner

    from kbtools.cli import main

    help_text = CliRunner().invoke(main, ["watch", "--help"]).output
    assert "--skip-invalid" in help_text
    repo = copy_example(tmp_path / "repo", [ADR, "knowledge/engineering/api-authentication.md",
                                            "knowledge/engineering/adr-0003-signed-knowledge-releases.md"])
    _hashed(repo)
    updates: list = []
    stop = threading.Event()
    thread = threading.Thread(target=watch, args=(load_config(repo), repo / "dist", updates.append,
                                                  stop), kwargs={"skip_invalid": True},
                              daemon=True)
    thread.start()
    try:
        first = _wait(updates, 1).stats
        assert ADR not in [s["doc"] for s in first.skipped]
        (repo / ADR).write_text("---\ntitle: [broken\n---\n", encoding="utf-8")
        saved = _wait(updates, 2)
        assert saved.error is None and saved.stats.documents == first.documents - 1
        assert ADR in [s["doc"] for s in saved.stats.skipped]
    finally:
        stop.set()
        thread.join(timeout=10)
