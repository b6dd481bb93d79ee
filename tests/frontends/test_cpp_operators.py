"""Operators of the 950 operator libraries run whole from their unmodified kernel files (GM to GM) against numpy
references of what the operator means, in both loop modes with identical bits. Skipped without the libraries'
sources (REGSIM_OPS_MATH=/path/to/ops-math, REGSIM_OPS_NN=/path/to/ops-nn) or libclang."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cpp_kernel_support import both_modes

import regsim as rs
from regsim._src.frontends.cpp import module as cpp_module
from regsim._src.frontends.cpp.kernels import tiling_structs

pytest.importorskip("clang.cindex")

MATH, NN = os.environ.get("REGSIM_OPS_MATH"), os.environ.get("REGSIM_OPS_NN")
F32_KEY, F16_KEY, BF16_KEY = 300000000000100, 200000000000100, 100000000000100


def _load(root: str | None, op: str, kernel: str, host: str, struct: str, tmp: Path) -> Any:
    if root is None or not Path(root, op).is_dir():
        pytest.skip("the operator library's sources are absent (REGSIM_OPS_MATH / REGSIM_OPS_NN)")
    header = tmp / f"{struct}.h"
    header.write_text(tiling_structs(Path(root, op, host).read_text()))
    return cpp_module.load(Path(root, op, kernel), args=("-include", str(header), f"-DREGSIM_TILING_DATA={struct}"))


def _split_tiling(mod: Any, struct: str, n: int, blocks: int, ub: int) -> np.ndarray:
    """The tiling of the generated elementwise kernels (a block's `blockFormer` elements in `ubFormer` pieces,
    the last block and the last piece shorter), as their host tiling computes it."""
    t = np.zeros(1, mod.struct_dtype(struct))
    former = -(-n // blocks)
    tail = n - former * (blocks - 1)
    t["dim0"], t["blockFormer"], t["ubFormer"], t["elemNum"] = n, former, ub, ub
    t["ubLoopOfFormerBlock"], t["ubTailOfFormerBlock"] = -(-former // ub), former - (-(-former // ub) - 1) * ub
    t["ubLoopOfTailBlock"], t["ubTailOfTailBlock"] = -(-tail // ub), tail - (-(-tail // ub) - 1) * ub
    return t.view(np.uint8)


def _as(d: Any, x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=d.np_dtype)


@pytest.mark.parametrize("dtype,key", [(rs.float32, F32_KEY), (rs.half, F16_KEY), (rs.bfloat16, BF16_KEY)])
def test_floor(dtype: Any, key: int, tmp_path: Path) -> None:
    """ops-math Floor: y = floor(x), bit for bit (signed zeros included) for each element type."""
    host = "op_host/arch35/floor_tiling_arch35.h"
    mod = _load(MATH, "math/floor", "op_kernel/floor_apt.cpp", host, "FloorTilingData", tmp_path)
    n, blocks = 3000, 3
    x = _as(dtype, np.random.default_rng(1).uniform(-300, 300, n))
    x[:4] = _as(dtype, [-0.5, 0.5, -0.0, 2.0])
    tiling = _split_tiling(mod, "FloorTilingData", n, blocks, 512)

    def run() -> np.ndarray:
        y = np.zeros_like(x)
        rs.launch(mod.kernel("floor"), blocks, x, y, np.zeros(32, np.uint8), tiling, tiling_key=key)
        return y

    y = both_modes(run)
    expect = _as(dtype, np.floor(x.astype(np.float64)))
    assert y.view(np.uint8).tobytes() == expect.view(np.uint8).tobytes()


#: SigmoidGrad's tiling keys (sigmoid_grad_apt.cpp numbers its dtypes f16, bf16, f32; Floor's order differs)
SIGMOID_GRAD_KEYS = {rs.half: 100000000000100, rs.bfloat16: 200000000000100, rs.float32: 300000000000100}


@pytest.mark.parametrize("dtype", list(SIGMOID_GRAD_KEYS), ids=lambda d: d.name)
def test_sigmoid_grad(dtype: Any, tmp_path: Path) -> None:
    """ops-nn SigmoidGrad: z = dy * (1 - y) * y, each step rounded to float32 (the half and bfloat16 kernels
    widen their inputs to float32, exactly, and round the result once to their type, to nearest even)."""
    mod = _load(
        NN,
        "activation/sigmoid_grad",
        "op_kernel/sigmoid_grad_apt.cpp",
        "op_host/arch35/sigmoid_grad_tiling_arch35.h",
        "SigmoidGradTilingData",
        tmp_path,
    )
    n, blocks = 2500, 2
    rng = np.random.default_rng(2)
    y, dy = _as(dtype, rng.uniform(0, 1, n)), _as(dtype, rng.standard_normal(n))
    tiling = _split_tiling(mod, "SigmoidGradTilingData", n, blocks, 1024)

    def run() -> np.ndarray:
        z = np.zeros_like(y)
        rs.launch(
            mod.kernel("sigmoid_grad"), blocks, y, dy, z, np.zeros(32, np.uint8), tiling, tiling_key=SIGMOID_GRAD_KEYS[dtype]
        )
        return z

    z = both_modes(run)
    y64, dy64 = y.astype(np.float64), dy.astype(np.float64)
    one_minus = (np.float64(1) - y64).astype(np.float32)
    expect = ((dy64 * one_minus).astype(np.float32).astype(np.float64) * y64).astype(np.float32)
    assert z.view(np.uint8).tobytes() == _as(dtype, expect).view(np.uint8).tobytes()
