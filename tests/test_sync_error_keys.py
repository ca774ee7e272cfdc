"""Every error a sync can end with names what failed (`KbError.key`), and every such key has
Chinese words. The Chinese release page said a release refused for an altered manifest, an
unsigned one or a bad signature as a release signed by an untrusted key, or in the generic
words of a failure without a key: the errors raised in `verify`, `signing` and `trust`
carried none. The words are `sync_record.FAILURES_ZH`; the raise sites are read from the source,
so a new error without a key, or a key without words, fails here."""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from kbtools.ship.sync_record import FAILURES_ZH

SHIP = Path(__file__).resolve().parents[1] / "kbtools" / "ship"
# the modules whose errors end a sync (`sync`: a release checked, its signature, the keys
# pinned; its fetch, the device's lock, the clone a device directory may lie in); their
# SyncErrors each carry a key
CHECKED = ("verify.py", "signing.py", "trust.py", "sync.py", "install.py", "git.py",
           "fetching.py", "devicelock.py", "worktree.py")
ERRORS = {"SyncError", "Untrusted", "MissingHistory", "TransientSyncError",
          "UnchangedSyncError"}
# functions of those modules a sync never runs (`kb rollback` refusing a release)
NOT_A_SYNC = {"check_signer"}


def _calls(name: str):
    """(function, call) of each error raised or made in module `name`."""
    tree = ast.parse((SHIP / name).read_text(encoding="utf-8"))
    for fn in ast.walk(tree):
        if isinstance(fn, ast.FunctionDef):
            for node in ast.walk(fn):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                        node.func.id in ERRORS:
                    yield fn.name, node


def _keys():
    """(module, line, key, the names of the values given, None when not a dict literal) of
    every ``key="sync_…"`` in kbtools/ship."""
    for path in sorted(SHIP.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            kw = {k.arg: k.value for k in node.keywords if k.arg}
            key = kw.get("key")
            if isinstance(key, ast.Constant) and str(key.value).startswith("sync_"):
                values = kw.get("values")
                names = {k.value for k in values.keys if isinstance(k, ast.Constant)} \
                    if isinstance(values, ast.Dict) else (set() if values is None else None)
                yield path.name, node.lineno, key.value, names


@pytest.mark.parametrize("module", CHECKED)
def test_every_error_a_sync_ends_with_names_what_failed(module):
    missing = [f"{module}:{call.lineno} in {fn}" for fn, call in _calls(module)
               if fn not in NOT_A_SYNC and not any(k.arg == "key" for k in call.keywords)]
    assert not missing, f"errors without a key (KbError.key): {missing}"


def test_every_key_of_a_failed_sync_has_chinese_words_naming_only_its_values():
    found = list(_keys())
    assert len({key for _, _, key, _ in found}) >= 25, found
    for module, line, key, names in found:
        assert key in FAILURES_ZH, f"{module}:{line}: {key} has no Chinese words"
        wants = {f for _, f, _, _ in string.Formatter().parse(FAILURES_ZH[key]) if f}
        assert names is None or wants <= names, (module, line, key, wants, names)
