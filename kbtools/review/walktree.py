"""Which child each commit of a history reads a document's name from (`walk_tree`).

A document may have another name in each commit: a commit renaming it on the main line
leaves its old name in that commit's first parent, and a branch forked before that rename
still holds the old name when it is merged. Its name in a commit is the name it had in one
of that commit's children, through that child's rename (first parent) or the file of that
parent the merge made it from (another parent). The child chosen is the first of them in
`git log --topo-order` (which lists a merge's other parents' commits before its first
parent's, so a fork point reads its name through the branch merged last): every commit has
one name, and a branch's own commits read it through the merge that brought them in. The
children of one commit name the same file of it unless two lines of history made one
document of different files (a copy on one, an edit on the other): then the order decides.

The chosen children make a tree over the history; `Tree.within` answers in constant time
whether a commit lies below another in it (its name comes through that one), so a
document's names are found from the few commits that rename it, never by a walk of every
commit per document.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Tree:
    """The tree of chosen children over the rows of a history walked in topological order
    (row 0 the head)."""

    parent: tuple[tuple[int, int] | None, ...]  # row → (child row, which parent of it) or None
    first: tuple[int, ...]  # row → its place in a depth-first walk of the tree
    last: tuple[int, ...]  # row → the last place of its subtree in that walk

    def within(self, row: int, top: int) -> bool:
        """Whether `row` is `top` or lies below it (reads its name through it)."""
        return self.first[top] <= self.first[row] <= self.last[top]

    def reached(self, row: int, child: int, k: int) -> bool:
        """Whether `row` reads its name from `child`, of which it is parent number `k`."""
        return self.parent[row] == (child, k)


def walk_tree(parents: Sequence[Sequence[int]]) -> Tree:
    """The tree of `parents` (row → its parents' rows, first parent first, -1 for one not
    in the history), rows in topological order (children before parents, row 0 the head)."""
    n = len(parents)
    chosen: list[tuple[int, int] | None] = [None] * n
    for row, ups in enumerate(parents):  # every child of a row comes before it
        for k, up in enumerate(ups):
            if up > 0 and chosen[up] is None:
                chosen[up] = (row, k)
    children: list[list[int]] = [[] for _ in range(n)]
    for row, got in enumerate(chosen):
        if got is not None:
            children[got[0]].append(row)
    first, last = [0] * n, [0] * n
    place = 0
    for root in (row for row in range(n) if chosen[row] is None):
        stack = [(root, False)]
        while stack:
            row, done = stack.pop()
            if done:
                last[row] = place - 1
                continue
            first[row] = place
            place += 1
            stack.append((row, True))
            stack.extend((c, False) for c in reversed(children[row]))
    return Tree(tuple(chosen), tuple(first), tuple(last))
