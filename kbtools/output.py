"""Shared output helpers for commands: JSON on stdout, human text otherwise."""

from __future__ import annotations

import json
from typing import Any

import click


def json_option(f):
    return click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")(f)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def echo_jsonl(data: Any) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, default=str))
