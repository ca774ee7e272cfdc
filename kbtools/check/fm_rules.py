"""What a front-matter value breaks of a schema rule, in the words `kb check` says it: a
jsonschema error's message with a long value cut short and a `const` as YAML writes it
(`short_message`), what to write instead (`value_hint`), the rule of a `oneOf`/`anyOf` the value
breaks (`alternatives`), and the condition of an `if`/`then`/`else` rule (`condition`)."""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from typing import Any

from jsonschema.exceptions import ValidationError


def short_message(err: ValidationError) -> str:
    """jsonschema's message with a long value it quotes cut short (a 5,000-character title
    filled the finding and its reason, "is too long", was cut off)."""
    if err.validator == "const":  # as YAML writes it: `false`, not Python's `False`
        return f"expected {json.dumps(err.validator_value, ensure_ascii=False)}"
    message, shown = str(err.message), repr(err.instance)
    if len(shown) <= 80:
        return message
    return message.replace(shown, shown[:60] + f"…' ({len(str(err.instance))} characters)")


def value_hint(err: ValidationError) -> str:
    """What to write for a value of the wrong length or outside the allowed ones: the
    closest allowed value (`Draft` → `draft`), the length asked, the key's `description`
    in the schema (`the reviewer's email`)."""
    described = err.schema.get("description") if isinstance(err.schema, dict) else None
    about = f" ({described})" if isinstance(described, str) and described else ""
    if err.validator == "enum" and isinstance(err.instance, str):
        allowed = [v for v in err.validator_value if isinstance(v, str)]
        same = [v for v in allowed if v.casefold() == err.instance.strip().casefold()]
        close = same or difflib.get_close_matches(err.instance, allowed, n=1, cutoff=0.6)
        return f"; did you mean {close[0]!r}?" if close else about
    if err.validator == "minLength":
        return f": write at least {err.validator_value} characters{about}"
    if err.validator == "maxLength":  # as `kb draft new` says it; the limit was not named
        return f" (at most {err.validator_value} characters){about}"
    return about


def condition(schema: Mapping[str, Any] | None, err: ValidationError,
               meta: Mapping[str, Any]) -> tuple[str, str] | None:
    """(the key the `if` reads, why the rule applies) when `err` breaks a rule of a schema's
    `then` or `else` (`required since urgency is
    "critical"`); None otherwise. Why: a key required only under a condition was "required
    key 'valid_until' is missing" at the first line, as if every document needed it."""
    where = list(err.schema_path)
    at = max((i for i, p in enumerate(where) if p in ("then", "else")), default=None)
    if schema is None or at is None:
        return None
    node: Any = schema
    for part in where[:at]:
        node = node[part] if isinstance(node, Mapping | list) else None
    cond = node.get("if") if isinstance(node, Mapping) else None
    props = cond.get("properties") if isinstance(cond, Mapping) else None
    said = []
    for key, rule in (props or {}).items():
        if isinstance(rule, Mapping) and "const" in rule:
            said.append(f"{key} is {json.dumps(rule['const'], ensure_ascii=False)}")
        elif isinstance(rule, Mapping) and isinstance(rule.get("enum"), list):
            said.append(f"{key} is one of "
                        + ", ".join(json.dumps(v, ensure_ascii=False) for v in rule["enum"]))
    key = next((k for k in (props or {}) if k in meta), "")
    if not said:
        return key, f"by the schema's {where[at]}"
    how = " and ".join(said)
    return key, (f"since {how}" if where[at] == "then" else f"unless {how}")


def alternatives(err: ValidationError) -> str:
    """What a value that fits none of a `oneOf`/`anyOf`'s alternatives breaks: the rule of
    the alternative whose type it has (`'x' is too short`, `item 2: 3 is not of type
    'string'`), else the types the alternatives take (`expected string or array, got
    int`). Why: jsonschema says "'x' is not valid under any of the given schemas", which
    names neither the rule broken nor what to write."""
    branches: dict[object, list[ValidationError]] = {}
    for sub in err.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    for subs in branches.values():
        if any(e.validator == "type" and not e.relative_path for e in subs):
            continue  # the value is not of this alternative's type
        sub = min(subs, key=lambda e: len(e.relative_path))
        at = "".join(f"item {p + 1}: " if isinstance(p, int) else f"{p}: "
                     for p in sub.relative_path)
        return f"{at}{short_message(sub)}{value_hint(sub)}"
    types: list[str] = []
    for branch in err.validator_value:
        kinds = branch.get("type") if isinstance(branch, dict) else None
        for kind in kinds if isinstance(kinds, list) else [kinds] if kinds else []:
            types += [] if kind in types else [str(kind)]
    if not types:
        return short_message(err)
    return f"expected {' or '.join(types)}, got {type(err.instance).__name__}"
