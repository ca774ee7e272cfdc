"""Operating a real device: `kb diff` and `diff_releases`, `kb sync` showing what changed and
what it skipped, `kb status`/`kb releases` finding the device and marking releases.

One device per module (tests/device_fixtures.py): real builds, signed releases in a bare
artifacts repo, synced with the key trusted on first use. kb-r2 edits a verified section
after its review, removes a document and adds one. Tests that roll back work on a copy.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import (
    ADDED,
    EDITED,
    EDITED_SECTION,
    REMOVED,
    Device,
    copy_of,
    make_device,
    second_release,
)
from test_release_helpers import git

from kbtools.build import pipeline
from kbtools.cli import main
from kbtools.errors import SyncError
from kbtools.index.manifest import file_entry
from kbtools.ship.changes import diff_dirs, diff_releases
from kbtools.ship.device import served_tag
from kbtools.ship.release import age_days

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def device(tmp_path_factory) -> tuple[Device, str]:
    d = make_device(tmp_path_factory.mktemp("ops"))
    return d, second_release(d)


def kb(*args: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    res = CliRunner().invoke(main, list(args), env=env)
    return res.exit_code, res.output


# ------------------------------------------------------------------ diff_releases


def test_diff_served_against_previous(device):
    d, _ = device
    diff = diff_releases(d.dev)
    assert diff.old is not None and (diff.old.tag, diff.new.tag) == ("kb-r1", "kb-r2")
    assert (diff.old.serial, diff.new.serial) == (1, 2)
    assert diff.documents_added == (ADDED,) and diff.documents_removed == (REMOVED,)
    assert [c.doc for c in diff.documents_changed] == [EDITED]
    change = diff.documents_changed[0]
    assert change.sections_changed == (EDITED_SECTION,)
    assert change.sections_added == change.sections_removed == ()
    assert diff.verification_gained == ()
    [lost] = diff.verification_lost
    assert (lost.doc, lost.heading_path, lost.before, lost.after) == (
        EDITED, EDITED_SECTION, "verified", "lapsed")
    assert lost.reason and lost.reason.startswith("changed after review")
    assert diff.summary() == ("documents: 1 added, 1 removed, 1 changed (1 section); "
                              "verification: 1 section lost")
    out = json.loads(json.dumps(diff.to_dict(), ensure_ascii=False))
    assert out["new"]["tag"] == "kb-r2" and out["old"]["source_commit"]
    assert out["documents"]["added"] == [{"doc": ADDED, "title": "Pump seals"}]
    assert out["documents"]["changed"][0]["sections_changed"] == [list(EDITED_SECTION)]
    assert out["verification"]["lost"][0]["after"] == "lapsed"


def test_diff_backwards_gains_verification_and_same_release_is_empty(device):
    d, _ = device
    back = diff_releases(d.dev, "kb-r2", "kb-r1")
    assert back.documents_added == (REMOVED,) and back.documents_removed == (ADDED,)
    [gained] = back.verification_gained
    assert (gained.heading_path, gained.before, gained.after) == (EDITED_SECTION, "lapsed",
                                                                 "verified")
    assert back.verification_lost == ()
    same = diff_releases(d.dev, "kb-r2", "kb-r2")
    assert same.empty and same.summary() == "no changes"


def test_diff_of_the_first_release_lists_everything_as_added(device):
    d, _ = device
    first = diff_releases(d.dev, new="kb-r1")
    assert first.old is None and REMOVED in first.documents_added
    assert first.documents_changed == () and first.documents_removed == ()


def test_diff_of_release_directories(device, tmp_path):
    d, _ = device
    # a build output (dist/) against a device release, by path
    res = diff_dirs(d.dev / "releases" / "kb-r1", d.kr / "dist")
    assert res.documents_added == (ADDED,) and res.new.tag is None
    code, out = kb("diff", str(d.dev / "releases" / "kb-r1"), str(d.kr / "dist"),
                   "--to", str(d.dev))
    assert code == 0 and f"+ {ADDED}" in out, out
    with pytest.raises(SyncError, match=r"release kb-r9 is not on this device: it is newer "
                                        r"than every release here .* \(local: kb-r1, kb-r2\)"):
        diff_releases(d.dev, "kb-r9")


UNCHANGED = "knowledge/crops/pesticide-operator-safety.md"


def rebuilt_by_another_kbtools(release: Path, target: Path) -> Path:
    """`release` as a newer kbtools would build the same sources: another chunker version
    in the config fingerprint, another kbtools version, every chunk's embedded text worded
    otherwise (a new prefix: every content hash differs) and one unchanged document's chunks
    cut and worded otherwise (its text trimmed, its first chunk split in two)."""
    shutil.copytree(release, target, symlinks=True)
    manifest = json.loads((target / "manifest.json").read_text(encoding="utf-8"))
    manifest["config"]["fingerprint"] = manifest["config"]["fingerprint"].replace("-c", "-c9")
    manifest["kbtools_version"] = "9.9.9"
    for shard in sorted((target / "data" / "chunks").glob("*.jsonl")):
        rows = []
        for line in shard.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            row["embed_text"] = "passage: " + row["embed_text"]
            row["content_hash"] = hashlib.sha256(row["embed_text"].encode()).hexdigest()
            if row["doc"] == UNCHANGED:
                row["text"] = row["text"].strip() + "\n"
                if not any(r["doc"] == UNCHANGED for r in rows):
                    half = len(row["text"]) // 2
                    rows.append({**row, "text": row["text"][:half]})
                    row = {**row, "text": row["text"][half:]}
            rows.append(row)
        shard.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows),
                         encoding="utf-8")
        manifest["artifacts"][shard.relative_to(target).as_posix()] = file_entry(shard)
    (target / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return target


def test_diff_between_builds_of_different_kbtools_lists_content_changes_only(device, tmp_path):
    """A release built by a newer kbtools (another chunker) against one an older one built:
    every chunk's content hash differs, so `kb diff` listed every document and section as
    changed. Sections are compared by what a reader sees, a document whose source and front
    matter are unchanged is not listed, and the diff says once that the builds differ."""
    d, _ = device
    newer = rebuilt_by_another_kbtools(d.dev / "releases" / "kb-r2", tmp_path / "newer")
    same = diff_dirs(d.dev / "releases" / "kb-r2", newer)
    assert same.empty and same.summary() == "no changes"
    assert same.builds_differ.startswith("chunker ") and "kbtools 0.1.0 → 9.9.9" in \
        same.builds_differ
    res = diff_dirs(d.dev / "releases" / "kb-r1", newer)
    assert res.documents_added == (ADDED,) and res.documents_removed == (REMOVED,)
    assert [(c.doc, c.sections_changed, c.sections_added, c.sections_removed)
            for c in res.documents_changed] == [(EDITED, (EDITED_SECTION,), (), ())]
    assert [v.heading_path for v in res.verification_lost] == [EDITED_SECTION]
    assert res.to_dict()["builds_differ"] == res.builds_differ
    code, out = kb("diff", str(d.dev / "releases" / "kb-r1"), str(newer), "--to", str(d.dev))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0].endswith("documents: 1 added, 1 removed, 1 changed (1 section); "
                             "verification: 1 section lost")
    assert lines[1] == (f"note: the two releases were built differently ({res.builds_differ}): "
                        "sections are compared by their text, documents whose source and "
                        "front matter are unchanged are not listed")
    assert sum("built differently" in line for line in lines) == 1
    # releases of one build say nothing of it
    assert diff_releases(d.dev).builds_differ == "" and "note:" not in kb(
        "diff", "--to", str(d.dev))[1]


def test_a_tag_never_names_a_directory_of_the_working_directory(device, tmp_path, monkeypatch):
    """`/api/diff?old=kb-r9` used a release directory named kb-r9 in the server's working
    directory when the device had no kb-r9: a tag only ever names a release of the device."""
    d, _ = device
    shutil.copytree(d.dev / "releases" / "kb-r1", tmp_path / "kb-r9", symlinks=True)
    monkeypatch.chdir(tmp_path)
    for paths in (True, False):
        with pytest.raises(SyncError, match=r"release kb-r9 is not on this device"):
            diff_releases(d.dev, "kb-r9", "kb-r2", paths=paths)
    # the web API takes tags only, whatever the value looks like
    with pytest.raises(SyncError, match=r"is not on this device"):
        diff_releases(d.dev, str(tmp_path / "kb-r9"), "kb-r2", paths=False)
    # the command line still takes a path, written as one
    res = diff_releases(d.dev, "./kb-r9", "kb-r2")
    assert res.documents_added == (ADDED,)


def test_kb_diff_cli_text_json_and_errors(device):
    d, _ = device
    code, out = kb("diff", "--to", str(d.dev))
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == ("kb-r1 → kb-r2: documents: 1 added, 1 removed, 1 changed (1 section); "
                        "verification: 1 section lost")
    assert f"+ {ADDED}  “Pump seals”" in lines and f"- {REMOVED}  “施药器械校准操作规程”" in lines
    assert f"    ~ § {' › '.join(EDITED_SECTION)}" in lines
    assert "verification lost:" in lines
    lost = lines[lines.index("verification lost:") + 1]
    assert "verified → lapsed — changed after review" in lost
    assert "((" not in out and "))" not in out
    # the device found as `kb query` finds it: $KB_INDEX, here naming its `current`
    code, js = kb("diff", "kb-r1", "kb-r2", "--json", env={"KB_INDEX": str(d.dev / "current")})
    assert code == 0, js
    data = json.loads(js)
    assert (data["old"]["tag"], data["new"]["tag"]) == ("kb-r1", "kb-r2")
    assert data["summary"].startswith("documents: 1 added")
    code, out = kb("diff", "kb-r7", "--to", str(d.dev))
    assert code == 1 and len(out.splitlines()) == 1 and out.startswith("kb: error: ")
    assert "release kb-r7 is not on this device" in out


@pytest.mark.parametrize("given", ["kb-r1 ", " kb-r1", "kb-r1\n", "KB-R1", "Kb-r1",
                                   "ｋｂ－ｒ１", "ＫＢ－Ｒ１", "kb-r１", "\u3000kb-r1"])
def test_rollback_and_diff_take_what_spells_one_release_tag(device, tmp_path, given):
    """`kb rollback "kb-r1 "` (pasted with a blank), KB-R1, a full-width ｋｂ－ｒ１ (a Chinese
    input method) were refused as "not a release tag", the first with no tag named: each
    reads as kb-r1 and no other tag, so each names it. `r1`, `1` are refused, asking
    (test_rollback_or_diff_to_what_is_no_release_tag_says_so)."""
    d = copy_of(device[0], tmp_path)
    code, out = kb("diff", given, "kb-r2", "--json", "--to", str(d.dev))
    assert code == 0 and json.loads(out)["old"]["tag"] == "kb-r1", out
    code, out = kb("rollback", given, "--to", str(d.dev), "--json")
    assert code == 0 and (json.loads(out)["from"], json.loads(out)["to"]) == (
        "kb-r2", "kb-r1"), out
    assert served_tag(d.dev) == "kb-r1"


@pytest.mark.parametrize("given, meant", [
    ("nonsense", ""), ("latest", ""), ("上一个版本", ""), ("v1.0", ""),
    ("12", ""), ("1", "; did you mean kb-r1?"), ("r2", "; did you mean kb-r2?"),
    ("kb_r2", "; did you mean kb-r2?"), ("KB-R 1", "; did you mean kb-r1?"),
    ("第１版", "; did you mean kb-r1?"), ("refs/tags/kb-r1", "; did you mean kb-r1?"),
])
def test_rollback_or_diff_to_what_is_no_release_tag_says_so(device, given, meant):
    """`kb rollback nonsense` said "release nonsense is not on this device", as if such a
    release could arrive: a name that is no release tag at all is named as one, with the
    tag form and the releases kept, and the kept tag a serial in it names when there is one."""
    d, _ = device
    says = (f"{given} is not a release tag (kb-r<serial>, e.g. kb-r12){meant} "
            "(local: kb-r1, kb-r2)")
    code, out = kb("rollback", given, "--to", str(d.dev))
    assert code == 1 and out == f"kb: error: {d.dev}: {says}\n", out
    code, out = kb("diff", given, "--to", str(d.dev))  # which also takes a path
    assert code == 1 and out == (f"kb: error: {d.dev}: {says}; give a local tag or the path "
                                 "of a release directory\n"), out
    with pytest.raises(SyncError) as caught:  # the web API's /api/diff?old=
        diff_releases(d.dev, given, "kb-r2", paths=False)
    assert caught.value.message == says
    assert (d.dev / "current").resolve().name == "kb-r2"  # nothing rolled back


# ------------------------------------------------------------------ sync output


def test_sync_prints_the_changes_after_a_switch(device):
    _, out = device
    lines = out.splitlines()
    assert lines[0].startswith("serving kb-r2 (was kb-r1); fetched ") and lines[0].endswith(" bytes")
    assert lines[1] == ("changes since kb-r1: documents: 1 added, 1 removed, 1 changed "
                        "(1 section); verification: 1 section lost")
    assert lines[2:5] == [f"  + {ADDED}", f"  - {REMOVED}", f"  ~ {EDITED}"]


def test_sync_says_when_the_new_release_was_built_by_another_kbtools(device, tmp_path,
                                                                    monkeypatch):
    """A release built by another kbtools: `kb diff` said its "what changed" lists content
    only (and why), `kb sync`'s summary of the same switch did not."""
    d = copy_of(device[0], tmp_path)  # with its own knowledge and artifacts repos
    for name in ("kr", "art.git"):
        shutil.copytree(getattr(device[0], name.split(".")[0]), tmp_path / name, symlinks=True)
    d = Device(tmp_path / "kr", tmp_path / "art.git", d.dev, d.key)
    doc = d.kr / ADDED
    doc.write_text(doc.read_text(encoding="utf-8") + "\nCheck the seal faces for scoring.\n",
                   encoding="utf-8")
    git(d.kr, "commit", "-qam", "pump seals: one more line")
    monkeypatch.setattr(pipeline, "__version__", "9.9.9")
    assert d.publish() == "kb-r3"
    code, out = d.sync()
    assert code == 0, out
    _, diffed = kb("diff", "--to", str(d.dev))
    note = next(line for line in diffed.splitlines() if line.startswith("note: "))
    assert "kbtools 0.1.0 → 9.9.9" in note
    lines = out.splitlines()
    assert lines[1].startswith("changes since kb-r2: documents: 1 changed")
    assert lines[2] == note and sum(line == note for line in lines) == 1
    code, out = kb("sync", "--to", str(d.dev))
    assert code == 0 and "note:" not in out  # no switch, nothing compared


def test_sync_json_carries_the_changes(device, tmp_path):
    d, _ = device
    code, out = kb("sync", "--to", str(d.dev), "--json")
    assert code == 0, out
    data = json.loads(out)
    assert data["changed"] is False and data["changes"] is None and data["skipped"] == []


def test_rollback_then_sync_says_newer_release_skipped_and_releases_marks_it(device, tmp_path):
    d = copy_of(device[0], tmp_path)
    assert kb("rollback", "--to", str(d.dev)) == (0, "serving kb-r1 (was kb-r2)\n")
    code, out = kb("sync", "--to", str(d.dev))
    assert code == 0, out
    assert out.splitlines() == [
        "up to date: serving kb-r1",
        "skipped kb-r2: newer, but rolled back from on purpose (`kb rollback kb-r2` serves it "
        "again)"]
    code, out = kb("releases", "--to", str(d.dev), "--local")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == f"device {d.dev}"
    assert lines[1].split() == ["TAG", "SERIAL", "WHERE", "SOURCE", "CREATED", "SIZE", "NOTE"]
    assert lines[2].split()[0] == "kb-r2" and lines[2].endswith("rolled back from (sync skips it)")
    assert lines[3].startswith("*  kb-r1") and lines[3].endswith("served")
    rows = json.loads(kb("releases", "--to", str(d.dev), "--local", "--json")[1])
    assert [(r["tag"], r["current"], r["rolled_back"]) for r in rows] == [
        ("kb-r2", False, True), ("kb-r1", True, False)]
    code, out = kb("status", "--to", str(d.dev), "--quick")
    assert code == 0 and "rolled back from kb-r2 (`kb sync` skips it)" in out, out
    # the operator takes it back explicitly; sync no longer skips anything
    assert kb("rollback", "kb-r2", "--to", str(d.dev))[0] == 0
    assert kb("sync", "--to", str(d.dev))[1] == "up to date: serving kb-r2\n"


# ------------------------------------------------------------------ finding the device


def test_status_and_releases_find_the_device_like_query(device, tmp_path):
    d, _ = device
    for where in (d.dev, d.dev / "current", d.dev / "releases" / "kb-r2"):
        code, out = kb("status", "--quick", env={"KB_INDEX": str(where)})
        assert code == 0, out
        assert out.splitlines()[0] == f"device {d.dev}" and "serving kb-r2" in out
        code, out = kb("releases", "--local", env={"KB_INDEX": str(where)})
        assert code == 0 and out.splitlines()[0] == f"device {d.dev}", out
    # nothing synced at the default place: the message names the directory it looked at
    code, out = kb("status", env={"KB_HOME": str(tmp_path / "home")})
    assert code == 1 and out.splitlines() == [  # answers nothing: exit 1 since session 40
        f"device {tmp_path / 'home' / 'device'}: serving nothing yet (run `kb sync SOURCE`)",
        "pinned keys: none (unsigned releases are accepted until a key is pinned)",
        f"kb: error: {tmp_path / 'home' / 'device'}: serves nothing yet: no question is "
        f"answered until `kb sync SOURCE --to {tmp_path / 'home' / 'device'}` installs a "
        "release"]
    code, out = kb("releases", "--local", env={"KB_HOME": str(tmp_path / "home")})
    assert code == 0 and out == (f"device {tmp_path / 'home' / 'device'}: no releases yet "
                                 "(run `kb sync SOURCE`)\n")
    # a build's dist/ is not a device: one line saying what to pass
    for cmd in ("status", "releases", "diff", "log"):
        code, out = kb(cmd, "--to", str(d.kr / "dist"))
        assert code == 1 and out.startswith("kb: error: ") and len(out.splitlines()) == 1
        assert "is a build output, not a device directory" in out, (cmd, out)


def test_a_release_created_time_without_offset_is_utc_not_a_crash(device, tmp_path):
    """release.json's ``created`` is read in one place (`age_days`): a time without an offset
    is UTC, as `kb release` writes it; `kb status`, the web app and `kb sync`'s staleness
    warning then agree instead of `kb status` failing with exit 3."""
    d = copy_of(device[0], tmp_path)
    rel = d.dev / "releases" / "kb-r2" / "release.json"
    data = json.loads(rel.read_text(encoding="utf-8"))
    data["created"] = "2026-06-01T08:00:00"
    rel.write_text(json.dumps(data), encoding="utf-8")
    code, out = kb("status", "--quick", "--json", "--to", str(d.dev))
    assert code == 4, out  # read, not a crash (3): stale, degraded
    served = json.JSONDecoder().raw_decode(out)[0]["served"]  # its warning follows
    assert served["created"] == "2026-06-01T08:00:00" and served["age_days"] > 0
    now = datetime(2026, 6, 2, 8, tzinfo=UTC)
    assert age_days("2026-06-01T08:00:00", now) == 1.0
    assert age_days("2026-06-01T16:00:00+08:00", now) == 1.0
    assert age_days("2026-06-01T08:00:00Z", now) == 1.0
    assert age_days("yesterday", now) is None and age_days(None, now) is None


class Listing(list):
    """What `os.scandir` returns, from entries already read: an iterator and a context."""

    def __iter__(self):
        return self

    def __next__(self):
        if not self:
            raise StopIteration
        return self.pop(0)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


def test_releases_listed_while_a_sync_prunes_one(device, tmp_path, monkeypatch):
    """`kb serve`'s release page and /api/releases list the device's releases while a
    `kb sync` prunes the oldest (renamed away, then removed): walking a directory that
    vanished under the walk failed with FileNotFoundError (a 500), and one pruned before it
    was measured was listed as an empty release with no commit."""
    import os

    from kbtools.ship import operate

    d = copy_of(device[0], tmp_path)
    old = d.dev / "releases" / "kb-r1"
    scandir = os.scandir

    def pruned_midway(path):  # the sync prunes kb-r1 once its data/ has been listed
        with scandir(path) as it:
            entries = list(it)
        if isinstance(path, (str, os.PathLike)) and Path(path) == old / "data":
            shutil.rmtree(old)
        return Listing(entries)
    monkeypatch.setattr(os, "scandir", pruned_midway)
    rows = operate.local_releases(d.dev)
    monkeypatch.undo()
    assert [(r["tag"], r["current"]) for r in rows] == [("kb-r2", True)]
    assert rows[0]["size"] == sum(p.stat().st_size for p in (d.dev / "releases" / "kb-r2")
                                  .rglob("*") if p.is_file() and not p.is_symlink())


def test_a_rollback_forward_says_plainly_that_it_undoes_a_rollback(device, tmp_path):
    """`kb rollback kb-r2` on a device that rolled back from kb-r2 to kb-r1 serves kb-r2
    again, the only way back to it (`kb sync` skips it): said as a rollback forward that
    undoes the one before, in the text and in --json."""
    d = copy_of(device[0], tmp_path)
    assert kb("rollback", "--to", str(d.dev))[0] == 0
    code, out = kb("rollback", "kb-r2", "--to", str(d.dev))
    assert code == 0 and out.splitlines() == [
        "serving kb-r2 (was kb-r1)",
        "kb-r2 is newer than kb-r1 (a rollback forward): the rollback from kb-r2 is undone, "
        "`kb sync` no longer skips it"], out
    assert kb("rollback", "--to", str(d.dev), "--json")[0] == 0  # back to kb-r1 again
    back = json.loads(kb("rollback", "--to", str(d.dev), "kb-r2", "--json")[1])
    assert (back["from"], back["to"], back["forward"], back["undone"], back["skipped"]) == (
        "kb-r1", "kb-r2", True, True, [])
    # a rollback back is no rollback forward, and names what a sync now skips
    down = json.loads(kb("rollback", "--to", str(d.dev), "--json")[1])
    assert (down["forward"], down["undone"], down["skipped"]) == (False, False, ["kb-r2"])
    code, out = kb("rollback", "--to", str(d.dev), "kb-r2")
    assert code == 0 and "(a rollback forward)" in out
