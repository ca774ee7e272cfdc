"""kb.toml: knowledge-repo settings with documented defaults.

Every value has a default so an empty (or missing) kb.toml works. The file is validated
against `schemas/kb.schema.json` (shipped inside the package as well).
"""

from __future__ import annotations

import copy
import difflib
import hashlib
import json
import os
import posixpath
import re
import subprocess
import tomllib
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kbtools.errors import ConfigError, UsageError
from kbtools.fsutil import atomic_write_bytes

CONFIG_NAME = "kb.toml"
# written into the cache folder when it is made: Git leaves the folder out wherever it lies
# (a repository without kb init's .gitignore, a kb.toml naming another cache folder)
CACHE_GITIGNORE = b"# made by kbtools: this cache folder stays out of Git\n*\n"

# Front-matter fields with a role in the index ([vocabulary] in kb.toml; see "Vocabulary" in
# docs/knowledge-authoring.md). These built-in lists fit the bundled knowledge; a repo with other
# fields lists its own. The order of `facets` is the order the chunk store records them in.
DEFAULT_VOCABULARY: dict[str, list[str]] = {
    # values collected per field into the index's facet table
    "facets": ["category", "crop", "disease", "pest", "equipment", "tags", "region",
               "fault_codes", "project", "component", "lang", "urgency", "status", "author"],
    # a value of one of these fields found in the question boosts the documents carrying it
    "routing": ["category", "crop", "disease", "pest", "equipment", "tags", "region",
                "fault_codes", "project", "component"],
    # values become words of the tokenizer dictionary (data/dictionary.txt)
    "dictionary": ["crop", "disease", "pest", "equipment", "tags", "component", "region",
                   "fault_codes", "aliases"],
}

# Results one search returns at most, on every surface: `kb query -k`, `kb eval -k`, kb.toml
# `[query] k` (schemas/kb.schema.json), the JSON API, the web app and the MCP tools.
MAX_K = 100

# Defaults. Chunk sizes are in characters (CJK characters count one each).
DEFAULTS: dict[str, Any] = {
    "paths": {
        "knowledge": "knowledge",
        "assets": "assets",
        "schemas": "schemas",
        "dist": "dist",
        "cache": ".kb-cache",
        "drafts": "knowledge/field_reports",
    },
    "chunk": {
        "target_chars": 700,
        "max_chars": 1200,
        "min_chars": 40,
        "overlap_chars": 80,
    },
    "embedding": {
        # "use" = Universal Sentence Encoder multilingual (numpy, ships its weights).
        # Any sentence-transformers model name or local path is accepted too.
        "model": "use",
        # extra model per chunk/question language: English chunks are also embedded with
        # all-MiniLM-L6-v2 and English questions search those vectors (docs/retrieval.md)
        "languages": {"en": "minilm"},
        "batch_size": 64,
        # finer chunks inside their section share its vector ("parent") or get their own
        # ("own": about three times the embedding work; kbtools.build.vector_plan)
        "fine_vectors": "parent",
    },
    "index": {
        "metric": "cos",
        "connectivity": 16,
        "expansion_add": 128,
        "expansion_search": 128,
        "dtype": "f16",
    },
    "bm25": {
        "k1": 1.2,
        "b": 0.75,
        "user_dict": "knowledge/_dict.txt",
        "tokenizer": "rjieba",
    },
    "query": {
        "k": 5,  # at most MAX_K
        "candidates": 50,
        "rrf_k": 60,
        "verified_only": False,
        "reranker": "",
    },
    "release": {
        "branch": "kb-index",
        "remote": "",
        "keep": 5,
        "max_age_days": 30,
    },
    # a device's limits on a source that stops answering (stall_seconds, stall_bytes,
    # list_timeout) or sends too much (max_fetch_bytes): unset, the constants of
    # kbtools.ship.gitrun (60 s, 1000 bytes/s, 240 s, 4 GiB)
    "sync": {},
    "review": {
        "reviewers": {},
        "non_content_fields": ["tags", "urgency", "valid_until"],
    },
    "categories": {},
    "vocabulary": DEFAULT_VOCABULARY,
}


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


@dataclass(frozen=True)
class Vocabulary:
    """Which front-matter fields are facets, routing terms and dictionary terms."""

    facets: tuple[str, ...]
    routing: tuple[str, ...]
    dictionary: tuple[str, ...]

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Vocabulary:
        """The vocabulary of config values: `Config.data`, or a manifest's `config.values`,
        where no `vocabulary` entry means the built-in one (see `recorded`)."""
        given = {**DEFAULT_VOCABULARY, **(values.get("vocabulary") or {})}
        return cls(facets=tuple(given["facets"]), routing=tuple(given["routing"]),
                   dictionary=tuple(given["dictionary"]))

    @property
    def collected(self) -> tuple[str, ...]:
        """Fields whose values the chunk store collects: the facets, then any routing field
        that is not a facet (routing reads its values from the store)."""
        return self.facets + tuple(f for f in self.routing if f not in self.facets)

    def recorded(self) -> dict[str, list[str]] | None:
        """What a build records in its manifest: nothing for the built-in vocabulary (so those
        indexes keep the bytes they had before the vocabulary was configurable), else the lists."""
        if self == Vocabulary.from_values({}):
            return None
        return {"facets": list(self.facets), "routing": list(self.routing),
                "dictionary": list(self.dictionary)}


@dataclass(frozen=True)
class Config:
    root: Path
    data: dict[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> dict[str, Any]:
        section: dict[str, Any] = self.data.get(name, {})
        return section

    def get(self, dotted: str) -> Any:
        node: Any = self.data
        for part in dotted.split("."):
            node = node[part]
        return node

    def path(self, name: str) -> Path:
        """A configured path (knowledge, assets, dist, cache, ...) resolved against the root."""
        return self.root / str(self.data["paths"][name])

    def cache_dir(self) -> Path:
        """The cache folder (kb.toml paths.cache), made if missing, with a `.gitignore`
        ignoring everything in it (`git add -A` committed the caches' SQLite files where no
        .gitignore of the repository named the folder). A folder that cannot be made or
        written is returned as it is: a cache that cannot be opened only costs time."""
        path = self.path("cache")
        ignore = path / ".gitignore"
        try:
            path.mkdir(parents=True, exist_ok=True)
            if not ignore.exists() and not ignore.is_symlink():
                atomic_write_bytes(ignore, CACHE_GITIGNORE)
        except OSError:
            pass
        return path

    @property
    def vocabulary(self) -> Vocabulary:
        return Vocabulary.from_values(self.data)

    def fingerprint(self, *sections: str) -> str:
        """Stable hash of the named sections (all when none named)."""
        names = sections or tuple(sorted(self.data))
        payload = {n: self.data.get(n) for n in names}
        blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def find_root(start: Path | None = None) -> Path:
    """The nearest directory at or above `start` holding kb.toml (its real path), else
    `start` itself. The folders above `start` as written are looked in first: a path through
    a symbolic link (knowledge/ext → a folder outside the repository) lies in the knowledge
    base it is named in, which says the link leads out; its target's folders hold none."""
    here = (start or Path.cwd()).resolve()
    written = Path(os.path.abspath(start or Path.cwd()))
    for candidate in (written, *written.parents, here, *here.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate.resolve()
    return here


def path_start(arg: str | os.PathLike[str] | None) -> Path:
    """Where to look for kb.toml for a command given path `arg` (a document, a folder; as
    typed, relative to the current directory): the folder it names or lies in when that
    exists, else the current directory. Run from a monorepo's root, `kb history
    docs/kb/knowledge/a.md` so finds docs/kb/kb.toml, as `cd docs/kb` would."""
    if arg is None:
        return Path.cwd()
    p = Path(arg).absolute()
    for folder in (p, p.parent):
        if folder.is_dir():
            return folder
    return Path.cwd()


def load_kb_config(start: Path | None = None) -> Config:
    """The configuration of the knowledge base at or above `start` (default: the current
    directory), for the commands that work on one (review, history, watch, check and build
    without paths). Refused in one line when there is none, no kb.toml there or in any
    folder above and no knowledge folder: run from a monorepo's root, whose kb.toml lies in
    a subfolder (docs/kb), the defaults' `knowledge/` there does not exist, and a review gate
    found no documents to judge and passed, `pending` listed none, `approve` found no
    reviewers and `watch` watched a folder that is not there."""
    cfg = load_config(start)
    if not (cfg.root / CONFIG_NAME).is_file() and not cfg.path("knowledge").is_dir():
        raise UsageError(
            f"no {CONFIG_NAME} here or in any folder above, and no "
            f"{cfg.data['paths']['knowledge']}/ folder: run kb in the knowledge base's folder "
            f"(the one holding {CONFIG_NAME}; in a repository with other code, e.g. "
            "`cd docs/kb`) or name a path inside it; none yet? `kb init .` makes one here",
            path=str(cfg.root))
    return cfg


def load_config_near(path: Path | None) -> Config:
    """The configuration at or above the current directory; where no kb.toml is found there,
    the one at or above `path` (the dist/ or repository a command was given) when it has
    one. Run from a monorepo's root, `kb release --dist docs/kb/dist` so keeps docs/kb's
    [release] remote and branch (they were the defaults: nothing pushed, another branch)."""
    cfg = load_config()
    if path is None or (cfg.root / CONFIG_NAME).is_file():
        return cfg
    near = load_config(path_start(path))
    return near if (near.root / CONFIG_NAME).is_file() else cfg


def load_config(root: Path | None = None, overrides: dict[str, Any] | None = None) -> Config:
    root = find_root(root)
    path = root / CONFIG_NAME
    user: dict[str, Any] = {}
    if path.is_file():
        data_bytes = path.read_bytes()
        try:
            text = data_bytes.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"cannot parse: not UTF-8 (byte 0x{data_bytes[exc.start]:02x})",
                              path=str(path),
                              line=data_bytes.count(b"\n", 0, exc.start) + 1) from None
        text = text.removeprefix(BOM)
        try:
            user = parse_toml(text)
        except tomllib.TOMLDecodeError as exc:
            message, line = toml_error(exc, text)
            raise ConfigError(f"cannot parse: {message}", path=str(path), line=line) from None
        _validate(user, path, text)
    data = _merge(DEFAULTS, user)
    data["paths"] = {name: portable_path(str(value)) for name, value in data["paths"].items()}
    data["bm25"]["user_dict"] = str(data["bm25"]["user_dict"]).replace("\\", "/")
    if not path.is_file():  # a folder that is no knowledge repository: its caches elsewhere
        data = _merge(data, {"paths": {"cache": str(foreign_cache(root))}})
    if overrides:
        data = _merge(data, overrides)
    return Config(root=root, data=data)


def foreign_cache(root: Path) -> Path:
    """Where kb keeps the caches of a folder without kb.toml (`kb check some/folder`, a
    checkout of someone else's Markdown, read-only media): under `kb_home`, one directory
    per folder, so checking or building it never writes into it."""
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:16]
    return kb_home() / "caches" / f"{root.name or 'root'}-{digest}"


def portable_path(value: str) -> str:
    """A kb.toml path as every machine reads it: written on Windows (`docs\\kb`, `.\\docs\\kb\\`)
    it named a folder called `docs\\kb` on Linux CI ("knowledge folder not found"), and the
    review and provenance code, which match it against Git's `/` paths, never matched it.
    A backslash is a separator (no file name a Windows checkout holds has one); `.` and
    trailing separators go (`./docs/kb/` is `docs/kb`)."""
    value = value.replace("\\", "/")
    return posixpath.normpath(value) if value else value


BOM = "\ufeff"


def parse_toml(text: str) -> dict[str, Any]:
    """kb.toml's text as TOML, a UTF-8 byte-order mark before it dropped (Windows Notepad
    writes one; tomllib refuses it as "Invalid statement" at line 1), as a document's is."""
    return tomllib.loads(text.removeprefix(BOM))


_TOML_AT = re.compile(r"\s*\(at (?:line (\d+), column (\d+)|end of document)\)$")


def toml_error(exc: tomllib.TOMLDecodeError, text: str) -> tuple[str, int | None]:
    """tomllib's message for `text` without its "(at line 23, column 7)" and the line apart,
    so the error reads `kb.toml:23: …` as every other (the column stays in the message; the
    end of the document is its last line)."""
    message = str(exc)
    found = _TOML_AT.search(message)
    if found is None:
        return message, None
    head = message[:found.start()]
    if found.group(1) is None:
        return f"{head} (at the end of the file)", max(len(text.splitlines()), 1)
    return f"{head} (column {found.group(2)})", int(found.group(1))


def _validate(user: dict[str, Any], path: Path, text: str) -> None:
    from kbtools.schemas import validator_for

    errors = sorted(validator_for("kb").iter_errors(user), key=lambda e: list(e.absolute_path))
    if errors:
        err = errors[0]
        keys = [str(p) for p in err.absolute_path]
        where = ".".join(keys) or "(top level)"
        hint = ""
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            known = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
            unknown = sorted(k for k in err.instance if k not in known)[:1]
            keys += unknown  # its line, not the table's
            hint = did_you_mean(unknown[0], sorted(known)) if unknown else ""
        raise ConfigError(f"{where}: {err.message}{hint}", path=str(path),
                          line=key_line(text, keys))
    _check_chunk_sizes(user.get("chunk", {}), path, text)
    _check_reviewers(user.get("review", {}).get("reviewers", {}), path, text)
    _check_name(user.get("release", {}).get("knowledge_base"), path, text)
    _check_branch(user.get("release", {}).get("branch"), path, text)


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")

RELEASE_TAG_PREFIX = "kb-r"  # release tags are kb-r<serial> (`kbtools.ship.git.TAG_PREFIX`)
# exactly what `kbtools.ship.git.tag_name` writes: the serial in ASCII digits, from 1, no
# leading zeros (`kbtools.ship.git.parse_serial` reads it)
RELEASE_TAG_RE = re.compile(rf"^{RELEASE_TAG_PREFIX}([1-9][0-9]*)\Z")
MAX_BRANCH_BYTES = 200  # the ref is a file (<branch>.lock while written) on every device
_NOT_IN_REFS = frozenset(" ~^:?*[\\")  # what git refuses in a ref name besides controls


def branch_problem(name: str) -> str | None:
    """Why `name` cannot be the artifacts branch (kb.toml ``[release] branch``, `kb
    release --branch`), in words, or None: git's rules for a branch name (`git
    check-ref-format --branch`, which the first git command would otherwise refuse in its
    own words, or half-way: a space split an update-ref line), and kbtools' own: no
    whitespace or invisible character of any script (a full-width space looks like none),
    no leading "-" (an option to git), not a ref or a release tag's name (`git checkout
    kb-r3` would be ambiguous), at most `MAX_BRANCH_BYTES` bytes. Full-width or other
    non-ASCII letters are taken (``发布／现场`` is one component, not two)."""
    size = len(name.encode("utf-8", "surrogatepass"))
    shown = repr(name) if size <= 80 else f"{name[:40]!r}…"
    parts = name.split("/")
    why = next((why for bad, why in (
        (not name, "is empty"),
        (any(c.isspace() for c in name), "holds whitespace"),
        (any(unicodedata.category(c)[0] == "C" for c in name),
         "holds a control or invisible character"),
        (bool(_NOT_IN_REFS.intersection(name)) or "@{" in name or name == "@",
         "holds a character git refuses in a branch name (~ ^ : ? * [ \\ @{)"),
        (name.startswith("-"), "begins with '-' (git would read it as an option)"),
        (".." in name or any(not p or p.startswith(".") or p.endswith(".lock") for p in parts)
         or name.endswith("."), "is no git branch name (an empty part, '..', a part "
         "beginning with '.' or ending in '.lock', or a trailing '.')"),
        (name in ("HEAD", "FETCH_HEAD") or name.startswith("refs/"),
         "names a git ref, not a branch (write the branch's own name, e.g. kb-index)"),
        (name.startswith(RELEASE_TAG_PREFIX) and name[len(RELEASE_TAG_PREFIX):].isdigit(),
         "is a release tag's name (kb-r<serial>): `git checkout` would be ambiguous"),
        (size > MAX_BRANCH_BYTES, f"is {size} bytes long (at most {MAX_BRANCH_BYTES})"),
    ) if bad), None)
    return None if why is None else f"artifacts branch {shown} {why}"


def _check_branch(name: str | None, path: Path, text: str) -> None:
    problem = branch_problem(name) if isinstance(name, str) else None
    if problem is not None:
        raise ConfigError(f"release.branch: {problem}", path=str(path),
                          line=key_line(text, ["release", "branch"]))


def _check_name(name: str | None, path: Path, text: str) -> None:
    """``[release] knowledge_base`` names a knowledge base as written (`kbtools.base_identity`):
    space around it or a control character would make a name that looks like another's."""
    if name is None or (name == name.strip() and not _CONTROL.search(name)):
        return
    raise ConfigError(f"release.knowledge_base: {name!r} has space around it or a control "
                      "character; write the name alone (\"作物-华北\")", path=str(path),
                      line=key_line(text, ["release", "knowledge_base"]))



def _check_reviewers(reviewers: dict[str, list[str]], path: Path, text: str) -> None:
    """Each `[review.reviewers]` entry names one person by one address (`rita@x`, or
    `Name <rita@x>`): an entry without one (`"李明"`) or with two (`"a@x, b@y"`) matched no
    reviewer, silently, and every review it was meant for was refused."""
    for pattern, entries in reviewers.items():
        for entry in entries:
            at = entry.count("@")
            if at == 1:
                continue
            what = ("names no email address" if at == 0 else
                    f"names {at} addresses: list each reviewer as an item of its own")
            raise ConfigError(f"review.reviewers.{pattern}: {entry!r} {what} (reviewers are "
                              "known by their address: write \"li.ming@example.org\" or "
                              "\"李明 <li.ming@example.org>\")", path=str(path),
                              line=key_line(text, ["review", "reviewers", pattern]))


def did_you_mean(key: str, known: list[str]) -> str:
    """`` (did you mean 'paths'?)`` for a kb.toml key or table `key` close to one of `known`
    (a mistyped `[path]` or `[embeddings]` table was refused with the schema's words only,
    which name the key but not the one meant), else ``""``."""
    close = difflib.get_close_matches(key.lower(), known, n=2, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(k) for k in close)}?)" if close else ""


def _check_chunk_sizes(chunk: dict[str, Any], path: Path, text: str) -> None:
    """The [chunk] sizes against each other, the defaults filling what kb.toml leaves out
    (a `target_chars` above the default `max_chars` is refused here, at its line, not by
    whichever command first cuts a document)."""
    sizes = {**DEFAULTS["chunk"], **chunk}
    lo, target, hi = sizes["min_chars"], sizes["target_chars"], sizes["max_chars"]
    if not 0 < lo <= target <= hi:
        keys = [k for k in ("min_chars", "target_chars", "max_chars") if k in chunk]
        raise ConfigError("chunk: needs 0 < min_chars <= target_chars <= max_chars, got "
                          f"{lo}, {target}, {hi} (unset keys take their defaults)",
                          path=str(path), line=key_line(text, ["chunk", *keys[:1]]))
    if sizes["overlap_chars"] >= target:
        raise ConfigError(f"chunk: overlap_chars ({sizes['overlap_chars']}) must be below "
                          f"target_chars ({target})", path=str(path),
                          line=key_line(text, ["chunk", "overlap_chars"]))


def key_line(text: str, keys: list[str]) -> int | None:
    """The line of kb.toml `text` that sets the deepest of the keys `keys` (a table path:
    `["check", "max_bytes"]`) found: a `key = …` line in its table, or the table's `[…]`
    header; None when none is (a key set inside an inline table is found by its table)."""
    best: int | None = None
    depth, table = 0, list[str]()
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line.startswith("["):
            table = _key_path(line.strip("[]"))
            path = table
        elif "=" in line:
            path = table + _key_path(line.split("=", 1)[0])
        else:
            continue
        if keys[:len(path)] == path and len(path) > depth:
            best, depth = number, len(path)
    return best


def _key_path(key: str) -> list[str]:
    return [part.strip().strip("\"'") for part in key.split(".")]


def kb_home() -> Path:
    """Per-user data dir (device index, logs). KB_HOME overrides it (tests use a temp dir)."""
    env = os.environ.get("KB_HOME")
    if env:
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "kbtools"


def kb_configs_in_repository(start: Path) -> list[Path]:
    """The kb.toml files of the Git work tree holding `start`, tracked or not (those
    .gitignore leaves out excepted), sorted; [] outside a work tree or without git. Plain
    `git` (no GitPython): a `kb query` that found no index asks it, and imports stay light."""
    try:
        top = subprocess.run(["git", "-C", str(start), "rev-parse", "--show-toplevel"],
                             capture_output=True, check=True).stdout.strip()
        out = subprocess.run(["git", "-C", top, "-c", "core.quotePath=false", "ls-files", "-z",
                              "--cached", "--others", "--exclude-standard", "--",
                              f":(glob)**/{CONFIG_NAME}"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return []
    root = Path(os.fsdecode(top))
    return [root / os.fsdecode(p) for p in sorted(set(out.split(b"\0")) - {b""})]
