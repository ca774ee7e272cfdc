"""What to write when a document has no front matter: the smallest block this repository's
schemas accept, as one line for a finding.

    example_block(schemas_dir, categories)
    # '--- / title: … / category: engineering / … / verified: false / project: … / ---'

The keys are the base schema's `required` ones, then those of one category's schema; then,
while the base and category schemas refuse the block, the keys they ask for: a `required`
key missing (an `if`/`then` asks this way too), else, for an `anyOf`/`oneOf` refused, the
keys of its first branch the block then satisfies. Each key gets a value its properties
accept (the category's name for `category`; else the first that validates of: a `const`,
an enum's first value, an ISO 8601 timestamp for a `date-time`, a date for a `date`, `…`
for text, `false`, `[…]`, 0). The category giving the fewest keys is shown (by name on a
tie); one whose schemas no such block satisfies only when none does.

`opening_problem` says, before that block, why a file that has a front matter of sorts has
none kbtools reads: TOML between `+++` lines (Hugo's), an opening line of more dashes than
three, or a `---` block below a line of text (an HTML comment, a title). Why: each was only
"no front matter block: begin the file with these lines …", as if there were none.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from kbtools.corpus import load_yaml
from kbtools.schemas import FORMAT_CHECKER, validator_for

EXAMPLE_TIMESTAMP = "2026-03-14T09:30:00+08:00"  # a value every `date-time` key accepts
EXAMPLE_DATE = "2026-03-14"
PLACEHOLDER = "…"  # text the author replaces
MAX_ROUNDS = 32  # keys added to satisfy the schemas, at most (a schema that never settles)
Block = dict[str, Any]


def example_block(schemas_dir: Path | None, categories: frozenset[str]) -> str:
    """The minimal front matter, its lines joined by " / " (fences included)."""
    base = validator_for("frontmatter", schemas_dir)
    best: tuple[bool, int, Block] | None = None
    for name in sorted(categories) or [""]:
        validators = [base]
        if name:
            validators.append(validator_for(f"categories/{name}", schemas_dir))
        block, valid = minimal_block(validators, name)
        if best is None or (not valid, len(block)) < (not best[0], len(best[2])):
            best = (valid, len(block), block)
    assert best is not None
    lines = [f"{key}: {_yaml(value)}" for key, value in best[2].items()]
    return " / ".join(["---", *lines, "---"])


def minimal_block(validators: Sequence[Draft202012Validator],
                  category: str) -> tuple[Block, bool]:
    """The keys and values `validators` (base, then category) ask for, and whether the
    block found satisfies them all."""
    schemas = [v.schema for v in validators]
    block: Block = {}
    for schema in schemas:
        for key in schema.get("required", []):
            _add(block, str(key), schemas, category)
    for _ in range(MAX_ROUNDS):
        errors = [e for v in validators for e in v.iter_errors(block)]
        if not errors:
            return block, True
        if not _repair(block, errors, schemas, category):
            return block, False
    return block, False


def _repair(block: Block, errors: list[ValidationError], schemas: Sequence[dict[str, Any]],
            category: str) -> bool:
    """Add the keys one error asks for; False when none can be added."""
    for error in errors:
        if error.validator == "required" and not error.path:
            missing = [str(k) for k in error.validator_value if k not in block]
            if missing:
                for key in missing:
                    _add(block, key, schemas, category)
                return True
    for error in errors:
        if error.validator in ("anyOf", "oneOf") and not error.path:
            for branch in error.validator_value:
                if not isinstance(branch, dict):
                    continue
                trial = dict(block)
                for key in branch.get("required", []):
                    if key not in trial:
                        _add(trial, str(key), [*schemas, branch], category)
                alone = {str(error.validator): error.validator_value}  # the rest: later
                if trial != block and Draft202012Validator(
                        alone, format_checker=FORMAT_CHECKER).is_valid(trial):
                    block.update(trial)
                    return True
    return False


def _add(block: Block, key: str, schemas: Sequence[dict[str, Any]], category: str) -> None:
    if key not in block:
        props = [s.get("properties", {}).get(key) for s in schemas]
        block[key] = category if key == "category" and category else \
            _value([p for p in props if isinstance(p, dict)])


def _value(props: list[dict[str, Any]]) -> Any:
    """The first value every schema of `props` (a key's, in each schema) accepts."""
    tried: list[Any] = []
    for prop in props:
        if "const" in prop:
            tried.append(prop["const"])
        if prop.get("enum"):
            tried.append(prop["enum"][0])
        if prop.get("format") == "date-time":
            tried.append(EXAMPLE_TIMESTAMP)
        if prop.get("format") == "date":
            tried.append(EXAMPLE_DATE)
    tried += [PLACEHOLDER, False, [PLACEHOLDER], EXAMPLE_TIMESTAMP, EXAMPLE_DATE, 0]
    checks = [Draft202012Validator(p, format_checker=FORMAT_CHECKER) for p in props]
    for value in tried:
        if all(c.is_valid(value) for c in checks):
            return value
    return PLACEHOLDER


def _yaml(value: Any) -> str:
    """`value` as YAML that reads back as it: text quoted only when YAML would read it as
    something else (`yes`, `1.0`, `a: b`); a timestamp or date as written."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if not isinstance(value, str):
        return json.dumps(value)
    try:
        read = yaml.safe_load(f"k: {value}")
    except yaml.YAMLError:
        read = None
    shown = read.get("k") if isinstance(read, dict) else None
    if shown == value or (isinstance(shown, datetime.date) and value[:4].isdigit()):
        return value
    return json.dumps(value, ensure_ascii=False)


SEEN_LINES = 40  # how far below line 1 a `---` block is looked for under a line of text


def opening_problem(text: str) -> tuple[str, bool]:
    """Why the front matter that `text` seems to open with is not read, as an `fm-missing`
    message ("" when it opens with none of: `+++` TOML, a line of four or more dashes, a
    `---` block holding a YAML mapping within `SEEN_LINES` lines below a line of text, and
    after a blank line, a heading or an HTML comment, not a paragraph's line), and
    whether the smallest block to write should follow it (not for a block to move)."""
    lines = text.split("\n")
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return "", True
    head = lines[first].strip()
    if head == "+++":
        return (f"line {first + 1} opens TOML front matter (+++, as Hugo writes it), which "
                "kbtools does not read: write it as YAML (key: value lines) between '---' "
                "lines"), True
    if len(head) > 3 and set(head) == {"-"}:
        return (f"line {first + 1} is {len(head)} dashes: a front matter block opens and "
                "closes with a line of exactly three, '---'"), False
    fences = [n for n in range(first + 1, min(len(lines), first + SEEN_LINES))
              if lines[n].rstrip() == "---"]
    above = lines[fences[0] - 1].strip() if fences else ""
    if len(fences) < 2 or not _mapping("\n".join(lines[fences[0] + 1:fences[1]])) \
            or above and not above.startswith("#") \
            and not (above.startswith("<!--") and above.endswith("-->")):
        return "", True  # (below a paragraph's line, `---` underlines a heading)
    shown = head if len(head) <= 40 else head[:40] + "…"
    return (f"the front matter block at lines {fences[0] + 1}-{fences[1] + 1} is below text "
            f"({shown!r} at line {first + 1}), so it is read as text: move it to the top of "
            "the file"), False


def _mapping(text: str) -> bool:
    """Whether `text` is YAML holding a mapping of at least one key (front matter), read
    as the corpus reads front matter (`corpus.load_yaml`)."""
    data, _, errors = load_yaml(text, 1)  # bounded: an alias bomb is an error, not a hang
    return not errors and isinstance(data, dict) and bool(data)
