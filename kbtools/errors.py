"""One error hierarchy for the whole library.

Library code raises these; the CLI root (`kbtools.cli`) turns them into one line on
stderr and an exit code. Messages name the file (and line where known) and what to do.
"""

from __future__ import annotations


class KbError(Exception):
    """An expected failure: bad input, missing files, policy violations. Exit code 1."""

    exit_code = 1

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        self.message = message
        super().__init__(self.format())

    def format(self) -> str:
        if self.path and self.line:
            return f"{self.path}:{self.line}: {self.message}"
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message


class UsageError(KbError):
    """The command was called wrongly (unknown filter key, bad option value). Exit code 2."""

    exit_code = 2


class ConfigError(KbError):
    """kb.toml is missing a value, has a wrong type, or cannot be parsed."""


class FindingsError(KbError):
    """`kb check` (or a build gate) found errors; the findings were already printed."""


class IndexLoadError(KbError):
    """An index is missing, corrupted, or incompatible (format version, model)."""


class ModelError(KbError):
    """An embedding model cannot be loaded offline."""


class RenderError(KbError):
    """A formula or table could not be rendered."""


class ReleaseError(KbError):
    """Making or publishing a release failed."""


class SyncError(KbError):
    """A sync was refused or failed; the served release is unchanged."""


class ReviewError(KbError):
    """A review action was refused (not a reviewer, self-review, ...)."""


class TableError(KbError):
    """A decision table is malformed or cannot be evaluated."""
