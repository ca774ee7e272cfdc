"""The file system's clock as `kbtools.index.stamps` reads it: a file changed before
`clock_past` returned has a change time below the value, one changed after it does not."""

from __future__ import annotations

from pathlib import Path

from kbtools.index.stamps import MISSING, changed_before, clock_past, signature


def test_clock_past_separates_changes_before_it_from_changes_after(tmp_path: Path):
    f = tmp_path / "a"
    f.write_bytes(b"one")
    tick = clock_past(tmp_path)
    before = signature(f)
    assert changed_before(before, tick)
    f.write_bytes(b"two")  # at once: within the same tick of a coarse clock, if any
    after = signature(f)
    assert not changed_before(after, tick) and after != before
    assert list(tmp_path.iterdir()) == [f]  # the probe files are gone
    assert not changed_before(MISSING, tick)
