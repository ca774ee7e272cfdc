#!/usr/bin/env bash
# Install everything and run the whole test suite (what CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/ruff check kbtools tests benchmarks
.venv/bin/mypy  # strict, on kbtools/ (pyproject.toml [tool.mypy])
# Two pytest workers (pytest-xdist) where the machine has two cores: the suite is mostly
# git, builds and servers waiting on one core each (48 -> 31 min on a 2-core machine).
# KB_TEST_WORKERS=0 runs in one process; an -n/--numprocesses given here wins.
workers=${KB_TEST_WORKERS:-$(( $(nproc) >= 2 ? 2 : 0 ))}
case " $* " in *" -n"*|*" --numprocesses"*|*" -p no:xdist "*) workers=0 ;; esac
parallel=()
[ "$workers" -gt 0 ] && parallel=(-n "$workers")
set +e
.venv/bin/python -m pytest -q -p no:cacheprovider "${parallel[@]}" "$@"
rc=$?
set -e
[ "$rc" = 5 ] && { echo "no tests collected" >&2; exit 1; }
exit "$rc"
