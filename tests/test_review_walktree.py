"""`walktree.walk_tree`: each commit reads a document's name from its first child in the
walk, and `within` says in constant time whether it reads it through another commit."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kbtools.review.walktree import walk_tree


@st.composite
def histories(draw: st.DrawFn) -> list[list[int]]:
    """Rows in topological order (row 0 the head): each row's parents are later rows, and
    every row but the head is some earlier row's parent (all reachable from the head)."""
    n = draw(st.integers(1, 40))
    parents: list[list[int]] = [[] for _ in range(n)]
    for row in range(1, n):  # a child among the rows before it
        child = draw(st.integers(0, row - 1))
        parents[child].append(row)
    for row in range(n):  # more parents: merges (a parent number may come in any order)
        for _ in range(draw(st.integers(0, 2))):
            if row + 1 < n:
                up = draw(st.integers(row + 1, n - 1))
                if up not in parents[row]:
                    parents[row].insert(draw(st.integers(0, len(parents[row]))), up)
    return parents


@settings(max_examples=600, deadline=None)
@given(histories())
def test_a_commit_reads_its_name_through_its_first_child_in_the_walk(
        parents: list[list[int]]) -> None:
    tree = walk_tree(parents)
    for row in range(1, len(parents)):
        first = min(child for child, ups in enumerate(parents) if row in ups)
        assert tree.parent[row] == (first, parents[first].index(row))
        assert tree.reached(row, first, parents[first].index(row))
    assert tree.parent[0] is None
    for row in range(len(parents)):
        above = {row}
        got = tree.parent[row]
        while got is not None:
            above.add(got[0])
            got = tree.parent[got[0]]
        assert {top for top in range(len(parents)) if tree.within(row, top)} == above


def test_a_missing_parent_is_left_out() -> None:
    tree = walk_tree([[1, -1], []])
    assert tree.parent == (None, (0, 0)) and tree.within(1, 0) and not tree.within(0, 1)
