"""Every `kb` command line the workflows, CI scripts and pre-commit configs run exists.

The workflows run only on GitHub, after a push: a renamed command or option there (`kb
relase`, `--sign-keys`) would first fail on a release day. Each `kb` invocation is read out
of the shell text (bash arrays such as `args+=(--sign-key "$K")` expanded) and resolved
against the click command tree: the subcommands must exist and every option must be one the
command declares.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import click
import pytest
import yaml

from kbtools.cli import main
from kbtools.scaffold import TEMPLATES

REPO = Path(__file__).resolve().parents[1]
# how the texts call kb: on PATH, from the venv, or through the scripts' $KB
KB_WORDS = {"kb", ".venv/bin/kb", "$KB", "${KB}"}


def shell_texts() -> dict[str, str]:
    """name -> shell text: every `run:` of every workflow (ours and `kb init`'s), the CI
    scripts, and every pre-commit hook `entry:`."""
    texts: dict[str, str] = {}
    flows = [*sorted((REPO / ".github" / "workflows").glob("*.yml")),
             *sorted((TEMPLATES / "workflows").glob("*.yml"))]
    for flow in flows:
        data = yaml.safe_load(flow.read_text(encoding="utf-8"))
        for job_name, job in data["jobs"].items():
            for n, step in enumerate(job["steps"]):
                if "run" in step:
                    texts[f"{flow.name}:{job_name}:{n}"] = step["run"]
    for script in sorted((REPO / "scripts").glob("ci_*.sh")):
        texts[script.name] = script.read_text(encoding="utf-8")
    for config in (REPO / ".pre-commit-config.yaml", REPO / ".pre-commit-hooks.yaml",
                   TEMPLATES / "pre-commit-config.yaml"):
        data = yaml.safe_load(config.read_text(encoding="utf-8"))
        hooks = data if isinstance(data, list) else [h for r in data["repos"]
                                                     for h in r["hooks"]]
        for hook in hooks:
            texts[f"{config.name}:{hook['id']}"] = hook["entry"]
    return texts


def kb_calls(text: str) -> list[list[str]]:
    """The argument lists of the `kb` invocations in shell `text`, one per line.
    GitHub expressions and variables become a placeholder word; `"${name[@]}"` becomes
    every word any assignment to the array `name` in the same text gives it."""
    text = re.sub(r"\$\{\{.*?\}\}", "VALUE", text)
    arrays: dict[str, list[str]] = {}
    for name, words in re.findall(r"\b(\w+)\+?=\(([^)]*)\)", text):
        arrays.setdefault(name, []).extend(shlex.split(words))
    calls = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0]
        for part in re.split(r"&&|\|\||;|\||\$\(", line):
            try:
                words = shlex.split(part, posix=False)
            except ValueError:
                continue
            words = [w.strip('"') for w in words]
            if words[:1] == ["exec"]:  # the hook's `exec kb check "$@"`
                words = words[1:]
            if words[1:3] == ["-m", "kbtools"]:  # `"$python" -m kbtools check`
                words = ["kb", *words[3:]]
            if not words or words[0] not in KB_WORDS:
                continue
            args: list[str] = []
            for word in words[1:]:
                if re.match(r"\d*[<>]", word):  # a redirection: the command ends here
                    break
                array = re.fullmatch(r"\$\{(\w+)\[@\]\}", word)
                args.extend(arrays[array.group(1)] if array else [word])
            calls.append(args)
    return calls


def unknown(args: list[str]) -> str | None:
    """What in the `kb` argument list `args` the CLI does not have, or None."""
    cmd: click.Command = main
    path = ["kb"]
    rest = list(args)
    while isinstance(cmd, click.Group):
        if not rest:
            return f"{' '.join(path)}: no subcommand"
        word = rest.pop(0)
        sub = cmd.get_command(click.Context(cmd), word)
        if sub is None:
            return f"{' '.join(path)}: no command {word!r}"
        cmd, path = sub, [*path, word]
    options = {o for p in cmd.params if isinstance(p, click.Option)
               for o in (*p.opts, *p.secondary_opts)} | {"--help"}
    for word in rest:
        if word.startswith("-") and word != "-" and word.split("=", 1)[0] not in options:
            return f"{' '.join(path)}: no option {word!r}"
    return None


def test_the_texts_call_kb_where_expected():
    """The reader finds the calls it must check (a reader finding none would pass)."""
    calls = {name: kb_calls(text) for name, text in shell_texts().items()}
    found = [args for args_list in calls.values() for args in args_list]
    assert ["release", "--json", "--remote", "$REMOTE", "--sign-key", "$KB_SIGN_KEY"] in found
    assert ["release", "--remote", "$KB_ARTIFACTS_REMOTE", "--sign-key",
            "$RUNNER_TEMP/release.key"] in found  # kb init's release job, its array expanded
    assert ["review", "check", "--base", "origin/VALUE"] in found
    # kb init's hooks: kb from PATH, else by the Python that `pre-commit install` recorded
    assert calls["pre-commit-config.yaml:kb-check"] == [["check", "$@"]] * 2
    assert {"check", "build", "release", "review", "bundle", "sync", "publish"} <= {
        args[0] for args in found}


@pytest.mark.parametrize("args,problem", [
    (["relase", "--remote", "x"], "kb: no command 'relase'"),
    (["release", "--sign-keys", "k"], "kb release: no option '--sign-keys'"),
    (["review"], "kb review: no subcommand"),
    (["build", "--cache-from=x", "-q"], None),
])
def test_a_misspelt_call_is_found(args, problem):
    assert unknown(args) == problem


def test_every_kb_call_in_workflows_scripts_and_hooks_exists():
    problems = [f"{name}: {problem}" for name, text in shell_texts().items()
                for args in kb_calls(text) if (problem := unknown(args))]
    assert problems == []


def test_every_secret_the_workflows_read_is_named_in_the_docs():
    """A secret a workflow reads under a name the docs do not give is never set: the job
    then stops (no artifacts repository) or silently skips (no signing key)."""
    flows = [*sorted((REPO / ".github" / "workflows").glob("*.yml")),
             *sorted((TEMPLATES / "workflows").glob("*.yml"))]
    secrets = {name for flow in flows
               for name in re.findall(r"secrets\.(\w+)", flow.read_text(encoding="utf-8"))}
    assert {"KB_ARTIFACTS_REMOTE", "KB_SIGNING_KEY"} <= secrets
    docs = "\n".join(p.read_text(encoding="utf-8") for p in sorted((REPO / "docs").glob("*.md")))
    assert sorted(s for s in secrets if f"`{s}`" not in docs) == []
