"""What a review still covers, line by line (`kbtools.review.lapse`): `diff_lines`, the
lines of a document changed or deleted since its reviewed text, and `ReviewCoverage`'s
reasons for a range. Properties and small cases, no build (the built scenarios are in
tests/test_verified.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.provenance import LineProvenance
from kbtools.review.lapse import Change, ReviewCoverage
from kbtools.review.verification import diff_lines, text_lines

LINES = st.lists(st.sampled_from(["", "a", "b", "| x | 1 |", "| y | 2 |", "## H", "c"]),
                 max_size=40)


@settings(deadline=2000, max_examples=200)
@given(old=LINES, new=LINES)
def test_diff_lines_unchanged_lines_are_the_reviewed_ones_in_order(old, new):
    a, b = "\n".join(old), "\n".join(new)
    changed, deleted = diff_lines(a, b)
    blines = text_lines(b)  # numbered as an editor does (no line after a final newline)
    kept = [blines[i] for i in range(len(blines)) if i + 1 not in changed]
    it = iter(text_lines(a))
    assert all(any(x == y for y in it) for x in kept)  # an in-order subsequence of old
    if a == b:
        assert changed == set() and deleted == ()
    assert all(1 <= p <= len(blines) + 1 for p in deleted)


@settings(deadline=2000, max_examples=200)
@given(old=st.lists(st.text(alphabet="abc|", max_size=6), min_size=1, max_size=30),
       data=st.data())
def test_diff_lines_finds_every_single_edit(old, data):
    i = data.draw(st.integers(0, len(old) - 1))
    new = list(old)
    new[i] = old[i] + "X"  # a line the old text never had
    changed, _ = diff_lines("\n".join(old), "\n".join(new))
    assert i + 1 in changed
    a, gone = "\n".join(old), "\n".join(old[:i] + old[i + 1:])
    changed, deleted = diff_lines(a, gone)
    assert changed == set()  # one line removed changes no other ([x] -> []: x deleted)
    assert len(deleted) == (0 if text_lines(a) == text_lines(gone) else 1)


def test_diff_lines_is_fast_on_a_pathological_document():
    old = "\n".join(["", "|---|"] * 50000)
    new = "\n".join(["", "|---|", "x"] * 33000)
    t0 = datetime.now()
    diff_lines(old, new)
    assert datetime.now() - t0 < timedelta(seconds=10)


def test_coverage_reasons_for_lines_and_deletions():
    cov = ReviewCoverage("d.md", deleted=(10,))
    assert cov.line_reason(1, 9) is None and cov.line_reason(10, 12) is None
    assert cov.line_reason(9, 10) == "changed after review"


def test_the_newest_of_changes_made_in_one_second_is_the_later_authored():
    """A rebase stamps its commits with one commit time: the reason names the later author
    time as an instant (07:00+00:00 is after 08:00+08:00, though its text sorts first)."""
    def line(n: int, sha: str, authored: str) -> LineProvenance:
        at = datetime.fromisoformat(authored)
        return LineProvenance(n, sha, "Alice", "alice@ex.org", authored, 1_800_000_000,
                              int(at.timestamp()))
    changes = {1: Change.of_line(line(1, "a" * 40, "2026-02-02T08:00:00+08:00")),
               2: Change.of_line(line(2, "b" * 40, "2026-02-02T07:00:00+00:00"))}
    reason = ReviewCoverage("d.md", changed=changes).line_reason(1, 2)
    assert reason == ("changed after review on 2026-02-02 by Alice <alice@ex.org> "
                      f"(commit {'b' * 10})")


def test_a_paragraph_appended_at_the_end_is_those_lines_only():
    """The newline ending a document starts no line: appending a paragraph to an 18-line
    document changed "lines 17-19" (19 does not exist); Chinese and English alike."""
    reviewed = "# Rust\n\nSpray at first sign.\n"
    for more in ("And again after a week.", "一周后再喷一次。"):
        changed, deleted = diff_lines(reviewed, reviewed + "\n" + more + "\n")
        assert (changed, deleted) == ({4, 5}, ())
    assert diff_lines(reviewed, reviewed.rstrip("\n")) == (set(), ())  # only the newline
    assert diff_lines(reviewed, "# Rust\n\n") == (set(), (3,))  # the last line deleted
    assert text_lines("a\nb\n") == text_lines("a\nb") == ["a", "b"]
    assert text_lines("") == [] and text_lines("\n") == [""]
