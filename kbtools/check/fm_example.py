"""What to write when a document has no front matter: the smallest block this repository's
schemas accept, as one line for a finding.

    example_block(schemas_dir, categories)
    # '--- / title: … / category: engineering / … / verified: false / project: … / ---'

The keys are the base schema's `required` ones, then those of one category's schema (the
category asking the fewest, by name on a tie), each with a value its property accepts: the
category's name, `false` for a boolean, an ISO 8601 timestamp for a `date-time`, an enum's
first value, `[…]` for a list, `…` for text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kbtools.schemas import validator_for

EXAMPLE_TIMESTAMP = "2026-03-14T09:30:00+08:00"  # a value every `date-time` key accepts
PLACEHOLDER = "…"  # text the author replaces


def example_block(schemas_dir: Path | None, categories: frozenset[str]) -> str:
    """The minimal front matter, its lines joined by " / " (fences included)."""
    base = validator_for("frontmatter", schemas_dir).schema
    keys = [str(k) for k in base.get("required", [])]
    properties: dict[str, Any] = dict(base.get("properties", {}))
    category, extra = _simplest_category(schemas_dir, categories)
    keys += [k for k in extra if k not in keys]
    lines = [f"{key}: {category if key == 'category' and category else _value(properties.get(key))}"
             for key in keys]
    return " / ".join(["---", *lines, "---"])


def _simplest_category(schemas_dir: Path | None,
                       categories: frozenset[str]) -> tuple[str, list[str]]:
    """The category whose schema requires the fewest keys (by name on a tie), and those."""
    best: tuple[int, str, list[str]] | None = None
    for name in sorted(categories):
        schema = validator_for(f"categories/{name}", schemas_dir).schema
        required = [str(k) for k in schema.get("required", [])]
        cost = len(required) + sum(1 for k in ("anyOf", "oneOf", "allOf") if k in schema)
        if best is None or cost < best[0]:
            best = (cost, name, required)
    return (best[1], best[2]) if best is not None else ("", [])


def _value(prop: Any) -> str:
    """A value `prop` (a property's schema) accepts, as YAML."""
    if not isinstance(prop, dict):
        return PLACEHOLDER
    if prop.get("enum"):
        return str(prop["enum"][0])
    kind = prop.get("type")
    if kind == "boolean":
        return "false"
    if kind == "array":
        return f"[{PLACEHOLDER}]"
    if prop.get("format") == "date-time":
        return EXAMPLE_TIMESTAMP
    return PLACEHOLDER
