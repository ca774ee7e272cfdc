"""Ref names are the source's text: a hand-made bundle (or a hostile server) may list tags
named with terminal escape sequences, a bell or thousands of them. `kb sync` warns of refs
named as release tags that are none, each as one printable line (escaped, never obeyed by
the operator's terminal), and of a few of them by name only. A real bundle made by git, its
list of refs edited as an attacker would."""

from __future__ import annotations

import subprocess
from pathlib import Path

from click.testing import CliRunner
from test_sync_hostile import World

from kbtools.cli import main
from kbtools.ship import device
from kbtools.ship.git import IGNORED_SHOWN

NAMES = [b"refs/tags/kb-r9\x1b[2J\x1b[31mEVIL", b"refs/tags/kb-r7\x07",
         b"refs/tags/kb-r6\x1b]52;c;ZXZpbA==\x07", b"refs/tags/kb-r8..x"]


def hostile_bundle(w: World, names: list[bytes]) -> Path:
    """A bundle of the artifacts repository whose list of refs also names `names`, each
    at kb-r2's tag object."""
    plain = w.tmp / "plain.bundle"
    subprocess.run(["git", "--git-dir", str(w.art), "bundle", "create", str(plain),
                    "kb-index", "--tags"], check=True, capture_output=True)
    head, _, pack = plain.read_bytes().partition(b"\n\n")
    lines = head.split(b"\n")
    oid = next(line.split(b" ")[0] for line in lines if line.endswith(b"refs/tags/kb-r2"))
    out = w.tmp / "hostile.bundle"
    out.write_bytes(b"\n".join([*lines, *(oid + b" " + n for n in names)]) + b"\n\n" + pack)
    return out


def test_ref_names_with_escape_sequences_are_shown_escaped(tmp_path: Path) -> None:
    w = World(tmp_path)
    res = CliRunner().invoke(main, ["sync", str(hostile_bundle(w, NAMES)), "--to", str(w.dev)])
    assert res.exit_code == 0, res.stderr
    assert "\x1b" not in res.stderr and "\x07" not in res.stderr, repr(res.stderr)
    warned = [line for line in res.stderr.splitlines() if " ignored: " in line]
    assert len(warned) == len(NAMES), res.stderr
    assert any("kb-r9\\x1b[2J\\x1b[31mEVIL" in line for line in warned), warned
    assert device.served_tag(w.dev) == "kb-r2"


def test_a_flood_of_ref_names_is_warned_of_in_a_few_lines(tmp_path: Path) -> None:
    w = World(tmp_path)
    names = [f"refs/tags/kb-r0{i}".encode() for i in range(1, 2001)]
    res = CliRunner().invoke(main, ["sync", str(hostile_bundle(w, names)), "--to", str(w.dev)])
    assert res.exit_code == 0, res.stderr
    warned = [line for line in res.stderr.splitlines() if "ignored" in line]
    assert len(warned) == IGNORED_SHOWN + 1, res.stderr
    assert f"{2000 - IGNORED_SHOWN} more refs named as release tags ignored" in warned[-1]
    zh = CliRunner().invoke(main, ["status", "--to", str(w.dev), "--quick"], env={
        "LANG": "zh_CN.UTF-8", "LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None}).stdout
    said = [line for line in zh.splitlines() if line.startswith("  警告：")]
    assert len(said) == IGNORED_SHOWN + 1 and said[0].endswith(
        "已忽略 refs/tags/kb-r01：kb-r01 不是发布版本标签（kb-r<序号>：序号由数字 0-9 组成，从 1 开始，"
        "不带前导零；kb-r1 才是）") and said[-1].endswith(
        f"：另有 {2000 - IGNORED_SHOWN} 个按发布版本标签命名的引用已忽略（不是发布版本标签）"), zh
