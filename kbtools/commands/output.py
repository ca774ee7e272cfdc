"""Shared output helpers for commands: JSON on stdout, human text otherwise."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def json_option(f: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def echo_jsonl(data: Any) -> None:
    """One JSON object per line, flushed: a reader on a pipe sees each line as it happens."""
    click.echo(json.dumps(data, ensure_ascii=False, default=str))
    sys.stdout.flush()


def report_findings(findings, summary: str, *, as_json: bool) -> None:
    """Print findings (`path:line:col: level: code: message`, or JSON) and a summary.

    Any error ends the command with exit 1 (FindingsError, translated by the CLI root);
    otherwise the summary goes to stderr.
    """
    from kbtools.errors import FindingsError

    if as_json:
        echo_json([f.to_dict() for f in findings])
    else:
        for f in findings:
            click.echo(f.format())
    errors = sum(f.level == "error" for f in findings)
    line = f"{summary}, {errors} errors, {len(findings) - errors} warnings"
    if errors:
        raise FindingsError(line)
    click.echo(f"kb {line}", err=True)
