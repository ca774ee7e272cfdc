"""`kb status` in the terminal speaks the reader's language: a Chinese technician's device
said everything in English, where `kb serve`'s pages speak Chinese. The locale names the
language (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, the first set); a locale naming none (C,
C.UTF-8, unset: a service, a container, a script) keeps English.
`--json` stays English. A real device synced from signed releases (`device_fixtures`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from device_fixtures import copy_of, make_device

from kbtools.cli import main
from kbtools.ship.signing import keygen
from kbtools.ship.status_words import locale_language

pytestmark = pytest.mark.slow
UNSET = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}


@pytest.fixture(scope="module")
def device(tmp_path_factory):
    return make_device(tmp_path_factory.mktemp("statuslang"))


def status(dev: Path, *args: str, **env: str | None) -> tuple[int, str]:
    res = CliRunner().invoke(main, ["status", "--to", str(dev), *args], env={**UNSET, **env})
    return res.exit_code, res.stdout


@pytest.mark.parametrize("env", [{"LANG": "zh_CN.UTF-8"},
                                 {"LANG": "en_US.UTF-8", "LC_ALL": "zh_TW.UTF-8"},
                                 {"LANG": "C", "LC_MESSAGES": "zh_HK"}],
                         ids=["zh_CN", "lc_all", "lc_messages"])
def test_a_chinese_locale_reads_status_in_chinese(device, env):
    code, out = status(device.dev, **env)
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == f"设备 {device.dev}"
    assert lines[1].startswith("正在提供 kb-r1（源提交 ") and "；文件校验通过；签名密钥 " in lines[1]
    assert "  审核：没有失效的审核" in lines
    assert any(line.startswith("固定密钥 ") for line in lines)
    assert lines[-1].startswith("上次同步 ") and lines[-1].endswith("：成功，已换用 kb-r1")
    assert not any(word in out for word in ("serving", "verified", "last sync", "pinned"))


@pytest.mark.parametrize("env", [{"LANG": "en_US.UTF-8"}, {"LANG": "de_DE.UTF-8"},
                                 {"LANG": "zh_CN.UTF-8", "LC_ALL": "en_GB.UTF-8"},
                                 {"LANG": "C.UTF-8"}, {"LANG": "POSIX"}, {}],
                         ids=["en_US", "de_DE", "lc_all", "C", "posix", "unset"])
def test_another_locale_or_none_reads_status_in_english(device, env):
    """A locale naming no language (a service, a container, a script) keeps English,
    whatever the served knowledge's language (the example is Chinese)."""
    code, out = status(device.dev, **env)
    assert code == 0, out
    assert out.startswith(f"device {device.dev}\nserving kb-r1 (source ")
    assert "  verified: no lapsed reviews\n" in out and "last sync " in out


def test_json_stays_english(device):
    zh = json.loads(status(device.dev, "--json", LANG="zh_CN.UTF-8")[1])
    en = json.loads(status(device.dev, "--json", LANG="en_US.UTF-8")[1])
    assert zh == en and zh["served"]["tag"] == "kb-r1" and zh["health"]["state"] == "ok"


def test_the_language_a_locale_names():
    assert locale_language({"LANG": "zh_CN.UTF-8"}) == "zh"
    assert locale_language({"LANGUAGE": "zh_TW:en", "LANG": "en_US.UTF-8"}) == "zh"
    assert locale_language({"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}) is None
    assert locale_language({"LANG": "POSIX"}) is None and locale_language({}) is None
    assert locale_language({"LANG": "yue_HK"}) == "zh"
    assert locale_language({"LANG": "fr_FR@euro"}) == "en"


def test_a_pinned_keys_reason_and_problem_are_said_in_chinese(device):
    """A Chinese `kb status` said a pinned key's reason ("release kb-r1") and a pinned key
    it cannot read in the library's English: each keeps what it says (`status_words.Keyed`)
    and is said in Chinese; English and `--json` keep the English words."""
    code, out = status(device.dev, LANG="zh_CN.UTF-8")
    [line] = [x for x in out.splitlines() if x.startswith("固定密钥 ")]
    assert code == 0 and line.endswith("：首次同步时随发布版本 kb-r1 固定）"), line
    code, out = status(device.dev, LANG="en_US.UTF-8")
    assert "first use, release kb-r1)" in out
    junk = device.dev / "trusted_keys" / "0000junk.pub"
    junk.write_text("not a key\n", encoding="utf-8")
    try:
        _, zh = status(device.dev, LANG="zh_CN.UTF-8")
        _, js = status(device.dev, "--json", LANG="zh_CN.UTF-8")
    finally:
        junk.unlink()
    [line] = [x for x in zh.splitlines() if x.startswith("固定密钥")]
    assert line.startswith(f"固定密钥：无法读取本设备固定的密钥 {junk}，在修复之前不会同步"), line
    problem = json.JSONDecoder().raw_decode(js)[0]["trusted_keys_problem"]
    assert problem.startswith("pinned key 0000junk cannot be read"), problem


def test_a_served_files_problem_is_said_in_chinese(device):
    """The `problem:` lines under a Chinese locale were the library's English: a release.json
    changed on the device since its sync is said in Chinese, and stays English in --json."""
    rel = device.dev / "releases" / "kb-r1" / "release.json"
    kept = rel.read_bytes()
    rel.write_bytes(kept + b"\n")
    try:
        _, zh = status(device.dev, LANG="zh_CN.UTF-8")
        _, js = status(device.dev, "--json", LANG="zh_CN.UTF-8")
    finally:
        rel.write_bytes(kept)
    assert "  问题：release.json：同步校验之后被改动过（`kb sync` 会恢复它）" in zh.splitlines(), zh
    problems = json.JSONDecoder().raw_decode(js)[0]["served"]["problems"]
    assert problems == ["release.json: changed since it was verified at sync (`kb sync` "
                        "restores it)"]


def test_a_served_data_files_problem_is_said_in_chinese(device):
    """A document edited on the device after its sync said `data/…: sha256 mismatch` (the
    manifest check's English) inside a Chinese report: its problem keeps a key where it is
    found (`index.manifest.file_problem`) and is said in Chinese; --json keeps the English."""
    rdir = device.dev / "releases" / "kb-r1"
    doc = sorted((rdir / "data").rglob("*.md"))[0]
    rel, kept = doc.relative_to(rdir).as_posix(), doc.read_bytes()
    said = {}
    try:
        for edit, case in ((bytes([kept[0] ^ 1]) + kept[1:], "same_size"), (kept + b"x", "longer")):
            doc.write_bytes(edit)
            said[case] = (status(device.dev, LANG="zh_CN.UTF-8")[1],
                          status(device.dev, "--json", LANG="zh_CN.UTF-8")[1])
    finally:
        doc.write_bytes(kept)
    zh, js = said["same_size"]
    assert f"  问题：{rel}：sha256 与清单记录的不符（文件被改动过）" in zh.splitlines(), zh
    assert "mismatch" not in zh
    assert f"{rel}: sha256 mismatch" in json.JSONDecoder().raw_decode(js)[0]["served"]["problems"]
    zh, js = said["longer"]
    size = len(kept)
    assert f"  问题：{rel}：大小为 {size + 1} 字节，清单记录为 {size} 字节" in zh.splitlines(), zh
    problems = json.JSONDecoder().raw_decode(js)[0]["served"]["problems"]
    assert f"{rel}: size {size + 1} != {size}" in problems


def test_a_damaged_index_and_an_untrusted_release_are_said_in_chinese(device):
    """Two more lines of the library's English in a Chinese report: a derived index failing
    its own check (`index/…usearch: not a usearch index`) and the served release no pinned
    key vouches for (`trust:`); each is keyed where it is made and said in Chinese, with
    what to run; --json keeps the English."""
    rdir = device.dev / "releases" / "kb-r1"
    vectors = next((rdir / "index").glob("vectors-*.usearch"))
    sig = rdir / "release.sig"
    kept_vectors, kept_sig = vectors.read_bytes(), sig.read_bytes()
    try:
        vectors.write_bytes(kept_vectors[:1000])
        index_zh = status(device.dev, LANG="zh_CN.UTF-8")[1]
        index_js = status(device.dev, "--json", LANG="zh_CN.UTF-8")[1]
        vectors.write_bytes(kept_vectors)
        sig.unlink()
        trust_zh = status(device.dev, LANG="zh_CN.UTF-8")[1]
        trust_js = status(device.dev, "--json", LANG="zh_CN.UTF-8")[1]
    finally:
        vectors.write_bytes(kept_vectors)
        sig.write_bytes(kept_sig)
    name = f"index/{vectors.name}"
    assert f"  问题：{name}：索引没有通过自检，查询可能失败（`kb sync` 会从 data/ 重新生成它）" \
        in index_zh.splitlines(), index_zh
    served = json.JSONDecoder().raw_decode(index_js)[0]["served"]
    assert served["problems"] == [f"{name}: not a usearch index"]
    trust = next(line for line in trust_zh.splitlines() if line.startswith("  信任："))
    assert trust.startswith("  信任：正在提供的发布版本 kb-r1 没有签名（现固定：") and "is not" not in trust
    served = json.JSONDecoder().raw_decode(trust_js)[0]["served"]
    assert served["signer_unpinned"].startswith("the served release kb-r1 is not signed")


def test_a_damaged_state_file_is_said_in_chinese(device):
    """state.json cut short (a power cut) was said in the library's English inside a Chinese
    report: keyed where it is read (`devicestate.load_state`) and said in Chinese."""
    state = device.dev / "state.json"
    kept = state.read_bytes()
    state.write_bytes(kept[:5])
    try:
        zh = status(device.dev, LANG="zh_CN.UTF-8")[1]
        en = status(device.dev, LANG="en_US.UTF-8")[1]
    finally:
        state.write_bytes(kept)
    assert any(line.startswith("state.json 无法读取（not JSON: ") and "请恢复它" in line
               for line in zh.splitlines()), zh
    assert "it records the releases rolled back" not in zh
    assert "state.json cannot be read (not JSON: " in en


def test_any_byte_of_the_derived_index_changed_since_sync_fails_the_check(device):
    """A byte appended to index/store.sqlite (or a file cut short, added, or the record
    of the index's bytes removed) passed the device's self-check, which reads what queries
    read: `kb status` said the files verified. Every file of index/ is now held to the size
    and sha256 recorded when it was derived and checked, said in the status's language;
    `kb sync` derives it again."""
    index = device.dev / "releases" / "kb-r1" / "index"
    store, record, extra = index / "store.sqlite", index / "files.json", index / "bm25" / "x.npy"
    kept_store, kept_record = store.read_bytes(), record.read_bytes()
    bm25 = next((index / "bm25").glob("*.npy"))
    kept_bm25 = bm25.read_bytes()
    try:
        store.write_bytes(kept_store + b"\0")
        zh = status(device.dev, LANG="zh_CN.UTF-8")
        en = status(device.dev, LANG="en_US.UTF-8")
        store.write_bytes(kept_store)
        bm25.write_bytes(kept_bm25[:-1])
        cut = status(device.dev, "--json")[1]
        bm25.write_bytes(kept_bm25)
        extra.write_bytes(b"x")
        added = status(device.dev, "--json")[1]
        extra.unlink()
        record.unlink()
        gone = status(device.dev, "--json")[1]
    finally:
        store.write_bytes(kept_store)
        bm25.write_bytes(kept_bm25)
        record.write_bytes(kept_record)
        extra.unlink(missing_ok=True)
    assert zh[0] == 1 and "文件校验失败" in zh[1] and "文件校验通过" not in zh[1], zh
    assert "  问题：index/store.sqlite：索引没有通过自检，查询可能失败（`kb sync` 会从 data/ " \
        "重新生成它）" in zh[1].splitlines(), zh
    assert en[0] == 1 and "  problem: index/store.sqlite: size" in en[1], en

    def problems(out: str) -> list[str]:
        return list(json.JSONDecoder().raw_decode(out)[0]["served"]["problems"])
    assert problems(cut), cut  # (the check's own words when it sees the damage)
    assert problems(added) == ["index/bm25/x.npy: not a file the index was derived with"]
    assert problems(gone) == ["index/files.json: missing"]
    assert status(device.dev)[0] == 0


def test_the_last_syncs_warnings_are_said_in_chinese_old_records_as_written(device, tmp_path):
    """The last sync's warnings were kept in state.json as English lines, so a Chinese `kb
    status` said `警告：key … is not pinned on this device …`. They keep their key and values
    beside the lines now (`devicestate.warnings_record`), said in the status's language;
    --json and the lines stay English, and a record written before (no keys) is said as
    written."""
    d = copy_of(device, tmp_path)
    other = tmp_path / "other.key"
    keygen(other)
    code, out = d.kb("sync", str(d.art), "--to", str(d.dev), "--trusted-key", f"{other}.pub")
    assert code == 0, out
    zh, en = status(d.dev, LANG="zh_CN.UTF-8")[1], status(d.dev, LANG="en_US.UTF-8")[1]
    said = [line for line in zh.splitlines() if line.startswith("  警告：")]
    assert len(said) == 1 and said[0].startswith("  警告：密钥 ") and \
        f"（{other}.pub）没有在本设备固定，未被使用" in said[0], zh
    english = next(line for line in en.splitlines() if line.startswith("  warning: "))
    assert "is not pinned on this device and was not used" in english
    last = json.JSONDecoder().raw_decode(status(d.dev, "--json")[1])[0]["last_sync"]
    assert last["warnings"] == [english.removeprefix("  warning: ")]
    assert "warning_keys" not in last
    state_file = d.dev / "state.json"
    state = json.loads(state_file.read_text(encoding="utf-8"))
    del state["last_sync"]["warning_keys"]  # as kb wrote it before
    state_file.write_text(json.dumps(state), encoding="utf-8")
    old = status(d.dev, LANG="zh_CN.UTF-8")[1]
    assert f"  警告：{english.removeprefix('  warning: ')}" in old.splitlines(), old
