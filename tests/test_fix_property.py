"""`kb check --fix` over link shapes: one run leaves links `kb check` accepts, touches nothing
but the destinations, and a second run changes nothing. A backslash path naming a file in
another Unicode form (`..\\docs\\café.md`, decomposed) got only its '/' from one run. A
destination `--fix` cannot locate as written (a character reference) is left as it is, with
one `not fixed` line saying what to write by hand, which `kb check` then accepts."""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.check.engine import make_context
from kbtools.check.fix import Change, NotFixed, fix_paths
from kbtools.config import load_config
from tests.kbfixtures import GOOD_FM

NAME = "café 说明"  # composed (NFC) on disk
WRAPS = {
    "inline": ("前 [t]({}) 后\n", ""),
    "angle": ("前 [t](<{}>) 后\n", ""),
    "cell": ("| a | b |\n|---|---|\n| 前 [t]({}) | 后 |\n", ""),
    "reference": ("前 [t][r] 后\n", "\n[r]: {}\n"),
}


def _destination(sep: str, form: str, upper: bool, absolute: bool, anchor: str) -> str:
    name = unicodedata.normalize(form, NAME)
    folder = "Docs" if upper else "docs"
    parts = ["", "knowledge", folder, f"{name}.md"] if absolute else ["..", folder, f"{name}.md"]
    path = sep.join(parts)
    if " " in path:
        path = path.replace(" ", "%20")
    return path + anchor


def _fix(root: Path) -> tuple[list[str], list[str]]:
    cfg = load_config(root)
    changes, _, findings = fix_paths([root / "knowledge"], lambda: make_context(cfg))
    return ([c.format() for c in changes if isinstance(c, Change)],
            [f.format() for f in findings])


def _target_kb(root: Path) -> Path:
    """A kb at `root` whose one document, knowledge/docs/NAME.md, has headings Steps, Other."""
    (root / "kb.toml").write_text("")
    for folder in ("knowledge/docs", "knowledge/sub", "assets"):
        (root / folder).mkdir(parents=True)
    (root / "knowledge" / "docs" / f"{NAME}.md").write_text(
        GOOD_FM + "# C\n\n## Steps\n\n## Other\n", encoding="utf-8")
    return root


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["/", "\\"]), st.sampled_from(["NFC", "NFD"]), st.booleans(),
       st.booleans(), st.sampled_from(["", "#steps", "#step", "#zzzz"]),
       st.sampled_from(sorted(WRAPS)))
def test_one_fix_run_reaches_a_fixed_point(sep, form, upper, absolute, anchor, wrap):
    with tempfile.TemporaryDirectory() as tmp:
        root = _target_kb(Path(tmp))
        line, tail = WRAPS[wrap]
        dest = _destination(sep, form, upper, absolute, anchor)
        doc = root / "knowledge" / "sub" / "a.md"
        doc.write_text(GOOD_FM + "# T\n\n" + line.format(dest) + tail.format(dest),
                       encoding="utf-8")
        _, after = _fix(root)
        if sep == "/" and form == "NFC" and not upper and not absolute:
            # no path to fix: a wrong anchor is the author's to choose, and `--fix` says nothing
            assert all("link-anchor" in f and "--fix" not in f for f in after)
            assert len(after) == (anchor in ("#step", "#zzzz"))
        else:
            assert after == []
        text = doc.read_text(encoding="utf-8")
        assert text.startswith(GOOD_FM + "# T\n\n") and "前 [t]" in text and "后" in text
        again, _ = _fix(root)
        assert again == [] and doc.read_text(encoding="utf-8") == text


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["/", "\\"]), st.sampled_from(["NFC", "NFD"]), st.booleans(),
       st.booleans(), st.sampled_from(["", "#steps", "#step", "#zzzz"]),
       st.sampled_from(["inline", "cell"]))
def test_a_destination_not_written_as_it_reads_is_left_for_the_author(sep, form, upper,
                                                                      absolute, anchor, wrap):
    """Its `.md` written `&#46;md`: every path finding's fix is one `--fix` cannot write. The
    findings promise no `--fix`, the file keeps its bytes, and each such link gets one `not
    fixed` line whose path, written by hand, leaves nothing to fix."""
    with tempfile.TemporaryDirectory() as tmp:
        root = _target_kb(Path(tmp))
        dest = _destination(sep, form, upper, absolute, anchor).replace(".md", "&#46;md")
        doc = root / "knowledge" / "sub" / "a.md"
        text = GOOD_FM + "# T\n\n" + WRAPS[wrap][0].format(dest)
        doc.write_text(text, encoding="utf-8")
        cfg = load_config(root)
        changes, _, findings = fix_paths([root / "knowledge"], lambda: make_context(cfg))
        assert doc.read_text(encoding="utf-8") == text
        assert not [f for f in findings if f.code.startswith("path-") and "--fix" in f.message]
        assert not [c for c in changes if not isinstance(c, NotFixed)]
        if sep == "/" and form == "NFC" and not upper and not absolute:
            assert changes == []
            return
        assert len(changes) == 1 and changes[0].reason.endswith(" by hand")
        by_hand = changes[0].reason.rsplit(" ", 3)[1].strip("'")
        doc.write_text(text.replace(dest, by_hand), encoding="utf-8")
        assert _fix(root) == ([], [])


EMBED_WRAPS = {"inline": "前 {} 后\n", "alone": "{}\n", "cell": "| a | b |\n|---|---|\n| {} | 后 |\n"}
PICTURE = "叶 片 & (1).png"


@settings(max_examples=40, deadline=None)
# (no `>`: a label holding an HTML tag, `![[p.png|<a>]]`, is read as inline HTML first and
# is no embed here — a known limit, not what this property is about)
@given(st.text(st.sampled_from("ab 叶&\"'<\\|*_#"), max_size=6),
       st.sampled_from(["", "300", "300x200", " 64 "]), st.sampled_from(sorted(EMBED_WRAPS)))
def test_one_fix_run_of_an_embed_keeps_its_size_and_reaches_a_fixed_point(alt, size, wrap):
    """`![[picture|alt|300]]` becomes `<img … width="300">`, a picture `kb check` accepts,
    whatever the label holds and wherever the embed stands; a second run changes nothing."""
    # (a label ending in a backslash escapes the `]` after it: `![[p.png|\]]` closes no embed)
    label = "|".join(p for p in (alt.replace("|", "").strip().rstrip("\\ "), size) if p)
    embed = f"![[{PICTURE}{'|' + label if label else ''}]]"
    if wrap == "cell":
        embed = embed.replace("|", "\\|")
    with tempfile.TemporaryDirectory() as tmp:
        root = _target_kb(Path(tmp))
        (root / "assets" / PICTURE).write_bytes(b"\x89PNG\r\n\x1a\n")
        doc = root / "knowledge" / "sub" / "a.md"
        doc.write_text(GOOD_FM + "# T\n\n" + EMBED_WRAPS[wrap].format(embed), encoding="utf-8")
        changes, after = _fix(root)
        assert after == [] and len(changes) == 1
        text = doc.read_text(encoding="utf-8")
        width = size.strip().partition("x")[0]
        assert (f'width="{width}"' in text) == bool(width) and "![[" not in text
        again, _ = _fix(root)
        assert again == [] and doc.read_text(encoding="utf-8") == text
