#!/bin/sh
# Runs a Python tool of kbtools' environment for this repository's pre-commit hooks
# (.pre-commit-config.yaml), from a terminal or from a Git app (GitHub Desktop, VS Code)
# whose PATH lacks the virtualenv: `sh scripts/hook.sh MODULE ARGS…` runs MODULE's command
# from PATH (`kb` for kbtools), else `python -m MODULE` with the Python `pre-commit install`
# recorded in .git/hooks, else with the repository's .venv (scripts/setup.sh makes it),
# else says in one line what to run. pre-commit runs hooks from the repository's root.
# Its lookup is kb init's hook entry's (kbtools/data/init/pre-commit-config.yaml) plus the
# .venv step: tests/test_hook_launchers.py runs both and fails when they diverge.
module=$1
shift
case $module in
  kbtools) cmd=kb ;;
  *) cmd=$module ;;
esac
command -v "$cmd" >/dev/null 2>&1 && exec "$cmd" "$@"
for t in pre-commit pre-merge-commit; do
  h=$(git rev-parse --git-path "hooks/$t") && [ -f "$h" ] \
    && p=$(tr -d '\r' <"$h" | sed -n 's/^INSTALL_PYTHON=//p') \
    && eval "p=$p" && [ -n "$p" ] && "$p" -c "import $module" 2>/dev/null \
    && exec "$p" -m "$module" "$@"
done
for p in .venv/bin/python .venv/Scripts/python.exe; do
  [ -x "$p" ] && "$p" -c "import $module" 2>/dev/null && exec "$p" -m "$module" "$@"
done
echo "$cmd: not on PATH ($PATH), nor importable by the Python of .git/hooks/pre-commit or" \
  "by .venv: run bash scripts/setup.sh test, then .venv/bin/python -m pre_commit install" >&2
exit 1
