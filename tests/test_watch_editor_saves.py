"""More of the ways a save reaches the disk under `kb watch` (`test_watch_saves.py` has the
atomic rename, vim's backup dance, bursts on one file and broken saves): a file truncated
and then written, deleted and made again, a folder renamed and its documents saved after,
and a burst of saves across many files. Once the watcher is quiet its index is the one a
full `--no-cache` build of the same tree writes."""

from __future__ import annotations

import time

from tests.test_watch import ADR, _watching
from tests.test_watch_saves import DOCS, RICE, _as_full_build, _quiet, _top

SURVEY = "knowledge/crops/field-survey-methods.md"


def test_a_truncate_then_write_save_ends_as_the_written_file(tmp_path):
    """Editors that save in place open the file with O_TRUNC and write it after: the
    watcher may see the empty file (a document without front matter) before the text."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / ADR
        text = doc.read_text(encoding="utf-8")
        for pause in (0.0, 0.5):  # written at once, and after the empty file was built
            seen = len(updates)
            with doc.open("w", encoding="utf-8") as fh:
                fh.flush()
                time.sleep(pause)
                fh.write(text + f"\n## Echidna {pause}\n\nEchidnas lay eggs ({pause}).\n")
            _quiet(updates, seen + 1)
            if pause:  # the empty file was reported by name, then the written one built
                assert any(ADR in (u.error or "") for u in updates[seen:-1]), updates[seen:]
            assert updates[-1].error is None and updates[-1].stats.documents == 3
            assert f"Echidnas lay eggs ({pause})" in _top(repo, "echidnas lay eggs")
            _as_full_build(repo, tmp_path)


def test_a_document_deleted_then_made_again(tmp_path):
    """Some editors and sync clients remove the file and create it anew (another inode):
    the document is back, with its new text, in the index the watcher ends with."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        doc = repo / RICE
        text = doc.read_text(encoding="utf-8")
        doc.unlink()
        _quiet(updates, 2)
        assert updates[-1].error is None and updates[-1].stats.documents == 2
        doc.write_text(text + "\n稻瘟病重新保存的说明：叶片出现梭形病斑。\n", encoding="utf-8")
        _quiet(updates, 3)
        assert updates[-1].error is None and updates[-1].stats.documents == 3
        assert "梭形病斑" in _top(repo, "叶片出现梭形病斑")
        _as_full_build(repo, tmp_path)


def test_a_renamed_folder_is_followed(tmp_path):
    """knowledge/crops renamed (a file manager, `git mv` of a folder): its documents are
    indexed under the new paths, and a save in the renamed folder is seen."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        (repo / "knowledge/crops").rename(repo / "knowledge/农作物")
        _quiet(updates, 2)
        assert updates[-1].error is None and updates[-1].stats.documents == 3
        _as_full_build(repo, tmp_path)
        seen = len(updates)
        moved = repo / "knowledge/农作物/rice-blast.md"
        moved.write_text(moved.read_text(encoding="utf-8") + "\n改名文件夹后的补充：穗颈变褐。\n",
                         encoding="utf-8")
        _quiet(updates, seen + 1)
        assert updates[-1].error is None
        assert "knowledge/农作物/rice-blast.md" in updates[-1].changed
        assert "穗颈变褐" in _top(repo, "改名文件夹后的补充 穗颈变褐")
        _as_full_build(repo, tmp_path)


def test_a_burst_of_saves_across_many_files(tmp_path):
    """A formatter or a `git checkout` of a branch writes 40 documents in a burst, then
    rewrites a few and removes others: the watcher ends with the full build's index."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        seen = len(updates)
        folder = repo / "knowledge/engineering/notes"
        folder.mkdir()
        template = (repo / ADR).read_text(encoding="utf-8")
        for i in range(40):
            word = f"kangaroo{i:02}" if i % 2 else f"袋鼠{i:02}号"
            (folder / f"note-{i:02}.md").write_text(
                template.replace("\n## ", f"\nThis note is about {word}.\n\n## ", 1),
                encoding="utf-8")
        for i in range(0, 40, 7):
            (folder / f"note-{i:02}.md").unlink()
        (folder / "note-03.md").write_text(
            template.replace("\n## ", "\nThis note is about wallabies.\n\n## ", 1),
            encoding="utf-8")
        _quiet(updates, seen + 1, quiet=3.0)
        assert updates[-1].error is None
        assert updates[-1].stats.documents == 3 + 40 - 6
        assert "wallabies" in _top(repo, "note about wallabies")
        _as_full_build(repo, tmp_path)


SCAB = "knowledge/crops/wheat-scab.md"
LINKED = [SCAB, RICE, SURVEY, "knowledge/crops/pesticide-dilution-and-phi.md",
          "knowledge/crops/pesticide-operator-safety.md"]


def test_a_save_that_breaks_another_documents_link_then_both_fixed(tmp_path):
    """A heading another document links to (`field-survey-methods.md#2-病情指数`) renamed,
    then the linked document renamed: the unchanged document that links is judged again
    (its link is named by file and line) and, once its link is fixed, the index is the
    full build's."""
    with _watching(tmp_path, LINKED) as (repo, updates):
        assert updates[-1].error is None, updates[-1].error
        survey, scab = repo / SURVEY, repo / SCAB
        survey.write_text(survey.read_text(encoding="utf-8").replace(
            "## 2. 病情指数", "## 2. 病情指数与分级"), encoding="utf-8")
        _quiet(updates, 2)
        assert updates[-1].error and f"{SCAB}:100" in updates[-1].error, updates[-1].error
        scab.write_text(scab.read_text(encoding="utf-8").replace(
            "#2-病情指数)", "#2-病情指数与分级)"), encoding="utf-8")
        _quiet(updates, 3)
        assert updates[-1].error is None, updates[-1].error
        _as_full_build(repo, tmp_path)
        seen = len(updates)
        survey.rename(survey.with_name("调查方法.md"))
        _quiet(updates, seen + 1)
        assert updates[-1].error and SCAB in updates[-1].error and RICE in updates[-1].error
        for doc in (scab, repo / RICE):
            doc.write_text(doc.read_text(encoding="utf-8").replace(
                "(field-survey-methods.md", "(调查方法.md"), encoding="utf-8")
        _quiet(updates, seen + 2)
        assert updates[-1].error is None, updates[-1].error
        _as_full_build(repo, tmp_path)


def test_a_document_moved_into_a_folder_made_that_moment_is_one_change(tmp_path):
    """Obsidian's "move file to" a new folder, `mkdir x && mv a.md x/`: the document
    appeared in the new folder at once (watchdog lists a folder it starts watching) and left
    its old place only when watchdog gave up pairing the move (0.5 s later), so the
    watcher built and reported two changes, the first without the document's old path."""
    with _watching(tmp_path, DOCS) as (repo, updates):
        seen = len(updates)
        folder = repo / "knowledge/engineering/决策"
        folder.mkdir()
        (repo / ADR).rename(folder / "adr.md")
        _quiet(updates, seen + 1)
        assert len(updates) == seen + 1, [u.changed for u in updates[seen:]]
        assert set(updates[-1].changed) == {ADR, "knowledge/engineering/决策/adr.md"}
        assert updates[-1].error is None and updates[-1].stats.documents == 3
        _as_full_build(repo, tmp_path)
