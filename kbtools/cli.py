"""The `kb` command line: a thin click shell over the library.

Every command lives in `kbtools/commands/<name>.py` and is registered below. Errors are
translated in exactly one place, `KbGroup.invoke`: KbError -> its exit code and one line
on stderr; anything unexpected -> exit 3, traceback written to a log file.
"""

from __future__ import annotations

import importlib
import sys
import traceback
from datetime import UTC, datetime
from typing import Any

import click

from kbtools import __version__
from kbtools.config import kb_home
from kbtools.errors import KbError

# (module under kbtools.commands, click command attribute). Imported lazily per command.
COMMANDS: dict[str, tuple[str, str]] = {
    "build": ("build", "build_cmd"),
    "check": ("check", "check"),
    "chunks": ("chunks", "chunks"),
    "eval": ("eval", "eval_cmd"),
    "query": ("query", "query_cmd"),
    "watch": ("watch", "watch_cmd"),
    "init": ("init", "init"),
    "table": ("table", "table"),
    "recent": ("recent", "recent"),
    "mcp": ("mcp", "mcp"),
    "release": ("release", "release"),
    "sync": ("sync", "sync"),
    "keygen": ("keygen", "keygen"),
    "trust": ("trust", "trust"),
    "releases": ("releases", "releases"),
    "status": ("status", "status"),
    "rollback": ("rollback", "rollback"),
    "bundle": ("bundle", "bundle"),
    "review": ("review", "review"),
    "history": ("history", "history"),
    "draft": ("draft", "draft"),
}


class KbGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attr = COMMANDS[name]
        command: click.Command = getattr(importlib.import_module(f"kbtools.commands.{module}"), attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KbError as exc:
            click.echo(f"kb: error: {exc.format()}", err=True)
            ctx.exit(exc.exit_code)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException):
            raise
        except KeyboardInterrupt:
            click.echo("kb: interrupted", err=True)
            ctx.exit(130)
        except BrokenPipeError:
            ctx.exit(1)
        except Exception as exc:  # the one place unexpected errors are caught
            log = write_crash_log()
            click.echo(f"kb: unexpected error: {type(exc).__name__}: {exc} (traceback in {log})",
                       err=True)
            ctx.exit(3)


def write_crash_log() -> str:
    home = kb_home()
    try:
        home.mkdir(parents=True, exist_ok=True)
        path = home / "kb-crash.log"
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"--- {datetime.now(UTC).isoformat()} kb {__version__}\n")
            fh.write(" ".join(sys.argv) + "\n")
            fh.write(traceback.format_exc())
        return str(path)
    except OSError:
        return "(log unwritable)"


@click.group(cls=KbGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kb")
def main() -> None:
    """kb: a Git-native knowledge repository for AI agents.

    Check Markdown knowledge, build reproducible hybrid-search index releases, sync them
    to offline devices, query them with citations, and serve them to agents over MCP.
    """
