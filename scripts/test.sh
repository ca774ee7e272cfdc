#!/usr/bin/env bash
# Install everything and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check kbtools tests benchmarks
.venv/bin/mypy  # strict, on kbtools/ (pyproject.toml [tool.mypy])
set +e
.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
rc=$?
set -e
[ "$rc" = 5 ] && { echo "no tests collected" >&2; exit 1; }
exit "$rc"
