#!/usr/bin/env bash
# Install kbtools into ./.venv (idempotent) plus the system packages formula rendering needs.
# Usage: bash scripts/setup.sh [test]
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
extra=${1:-}

# LaTeX + dvisvgm + CJK fonts for formula SVGs (docs/formulas.md).
need_apt=()
command -v latex >/dev/null || need_apt+=(texlive-latex-base texlive-latex-recommended)
command -v dvisvgm >/dev/null || need_apt+=(dvisvgm)
kpsewhich CJKutf8.sty >/dev/null 2>&1 || need_apt+=(latex-cjk-chinese latex-cjk-chinese-arphic-gbsn00lp)
# Headless Chromium + its driver for the `kb serve` browser tests, and a CJK font for its pages.
command -v chromium >/dev/null || need_apt+=(chromium)
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
[ -n "$(fc-list :lang=zh 2>/dev/null)" ] || need_apt+=(fonts-wqy-microhei)
if [ ${#need_apt[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null && sudo -n true 2>/dev/null && sudo="sudo -n"; }
  if command -v apt-get >/dev/null && { [ "$(id -u)" = 0 ] || [ -n "$sudo" ]; }; then
    echo "setup: installing ${need_apt[*]}" >&2
    $sudo apt-get update -qq >/dev/null
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      "${need_apt[@]}" >/dev/null
  else
    echo "setup: formula rendering needs: apt-get install ${need_apt[*]}" >&2
  fi
fi

[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1
# torch first and pinned: the local CPU wheel, not a multi-GB CUDA build.
.venv/bin/python -m pip install -q "torch==2.13.0"
if [ "$extra" = test ]; then
  .venv/bin/python -m pip install -q -e ".[test]"
else
  .venv/bin/python -m pip install -q -e .
fi
