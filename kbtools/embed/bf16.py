"""Matrix products for one question on bfloat16 units (AMX tiles, AVX-512 BF16), through numkong.

A warm query embeds one short text: a handful of (tokens × in) by (in × out) products with
10-30 rows. numpy's float32 OpenBLAS spends most of such a product re-packing the weight
matrix, every call. numkong (usearch's own dependency, so already installed) multiplies
against weights packed once, and on CPUs with bfloat16 matrix units (Intel AMX) about 8×
faster, in bfloat16 with float32 results; CPUs with AVX-512 BF16 dot products but no matrix
units (AMD Zen 4) gain 1.6-2.5× per product (`dot`), more the other way round (`dot_t`:
the weights streamed against the question's rows packed). The encoders that use it
(`use_question`; `bert_question` for `bert.NumpyBert.encode_question`; USE's build path,
`use_windows.WindowEncoder`, for its per-token layers) keep their vectors within cosine
0.999 of their float32 paths (tested). A row of `dot`'s result is the same bits whatever
the other rows of its left operand (tested), so a build's vectors stay independent of their
batch and reproducible.

Used only where numkong reports such hardware (`available`); ``KB_USE_BF16=0`` in the
environment turns it off.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

# numkong capabilities where this path is the faster one: bfloat16 matrix units (Intel AMX,
# ~8× a float32 product), and AVX-512 BF16 dot products (``genoa``: AMD Zen 4 and later;
# measured on an EPYC, one question: USE 2.1 → 1.3 ms, MiniLM 16.5 → 8.6 ms of CPU)
BF16_UNITS = ("sapphireamx", "graniteamx", "genoa")
# … of them, the matrix units (AMX tiles): there a question's few rows multiply fastest
# against weights packed once (`dot`), elsewhere the other way round (`dot_t`)
TILE_UNITS = ("sapphireamx", "graniteamx")
# the kinds of unit a build's vectors are named by (`kind`), most specific first: AMD Zen 5
# (``turin``) also reports ``genoa`` and may run other kernels
KINDS = ("sapphireamx", "graniteamx", "turin", "genoa")
ENV_SWITCH = "KB_USE_BF16"


def available() -> bool:
    """Whether this CPU has bfloat16 units numkong uses (and the switch is not 0)."""
    if os.environ.get(ENV_SWITCH, "1") == "0":
        return False
    try:
        import numkong
    except ImportError:  # pragma: no cover - installed with usearch
        return False
    caps = numkong.get_capabilities()
    return any(caps.get(unit) for unit in BF16_UNITS)


def chosen(setting: bool | None) -> bool:
    """Whether an encoder with this `bfloat16` setting runs on bfloat16 units: as set, or
    (None) where the CPU has them (`available`)."""
    return available() if setting is None else setting


def kind() -> str:
    """The numkong capability whose bfloat16 kernels `dot` runs on this CPU (the best of
    `KINDS` it has; "" when `available` is false): what a build's vectors computed
    with them are named by (`kbtools.embed.use.UseEmbedder.revision`), since another kind
    of unit may sum a product in another order."""
    if not available():
        return ""
    import numkong

    caps = numkong.get_capabilities()
    return next(unit for unit in KINDS if caps.get(unit))


def has_tiles() -> bool:
    """Whether `dot` runs on matrix units here (`kind` is one of TILE_UNITS)."""
    return kind() in TILE_UNITS


def pack(rows: np.ndarray) -> Any:
    """A weight matrix stored as (out, in), packed for `dot` in bfloat16."""
    import numkong

    return numkong.dots_pack(numkong.astype(np.ascontiguousarray(rows), "bf16"), dtype="bf16")


def dot(a: np.ndarray, packed: Any) -> np.ndarray:
    """a @ rows.T for `packed` = pack(rows): float32 in and out, bfloat16 products."""
    import numkong

    return np.asarray(numkong.dots_packed(numkong.astype(np.ascontiguousarray(a), "bf16"),
                                          packed))


def matrix(rows: np.ndarray) -> Any:
    """A weight matrix stored as (out, in), in bfloat16 for `dot_t`."""
    import numkong

    return numkong.astype(np.ascontiguousarray(rows), "bf16")


def dot_t(matrix_bf16: Any, a: np.ndarray) -> np.ndarray:
    """(a @ rows.T).T = rows @ a.T, shape (out, len(a)), for `matrix_bf16` = matrix(rows):
    float32 in and out, bfloat16 products. For a few rows of `a` this is the
    faster way round: the weights stream through once as the left operand, against `a`
    packed small, where `dot` walks the packed weights once per block of `a`'s rows."""
    import numkong

    return np.asarray(numkong.dots_packed(
        matrix_bf16,
        numkong.dots_pack(numkong.astype(np.ascontiguousarray(a), "bf16"), dtype="bf16")))


def question_weights(rows: np.ndarray, tiles: bool) -> Any:
    """A weight matrix stored as (out, in), in bfloat16 for `columns`: packed for `dot` on
    matrix units (`tiles`, `has_tiles`), else plain for `dot_t`."""
    return pack(rows) if tiles else matrix(rows)


def columns(weights: Any, a: np.ndarray, tiles: bool) -> np.ndarray:
    """rows @ a.T, shape (out, len(a)), for `weights` = question_weights(rows, tiles): the way
    round a question's few rows multiply fastest on this kind of unit, against the weights
    packed (`dot`, on AMX tiles; its rows' transposed view) or streaming them against `a`
    packed (`dot_t`, elsewhere). The same products to float32 summation order (the same bits
    on the CPUs measured)."""
    return dot(a, weights).T if tiles else dot_t(weights, a)


def warm(matrix_bf16: Any) -> None:
    """Read `matrix_bf16` (from `matrix`) once, as fast as memory streams, so that the
    `dot_t` after it finds the weights in this core's cache: its kernel reads them slower
    than a plain sequential pass does."""
    halves = np.asarray(matrix_bf16).reshape(-1)  # bfloat16 as uint16, read 4 at a time
    np.bitwise_or.reduce(halves[:halves.size // 4 * 4].view(np.uint64))
