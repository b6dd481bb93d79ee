"""The __aicore__ side shared by the gelu_high_performance and gelu_eltwise_high_performance examples (their
`KernelGelu` / `KernelGeluEltwise` classes: `Init`, `InitGMOffsets`, `Process`), the VF computation passed in:

    uint32_t mIterIdx = blockIdx % mIndex;
    uint32_t nIterIdx = blockIdx / mIndex;
    actualSingleCoreM = (mIterIdx == (mIndex - 1)) ? tailSingleCoreM : singleCoreM;
    actualSingleCoreN = (nIterIdx == (nIndex - 1)) ? tailSingleCoreN : singleCoreN;
    uint64_t gmOffset = mIterIdx * singleCoreM * totalN + nIterIdx * singleCoreN;
    ...
    constexpr uint32_t tileRow = tileLen / singleCoreN;
    uint32_t loopNum = (actualSingleCoreM + tileRow - 1) / tileRow;
    uint32_t tailRow = actualSingleCoreM - (loopNum - 1) * tileRow;
    for (uint32_t loopIdx = 0; loopIdx < loopNum; loopIdx++) {
        uint32_t copyRows = (loopIdx == (loopNum - 1)) ? tailRow : tileRow;
        AscendC::LocalTensor<float>& xLocal = ((loopIdx & 1) == 0 ? xPing : xPong);
        AscendC::LocalTensor<float>& yLocal = ((loopIdx & 1) == 0 ? yPing : yPong);
        ... DataCopyPad<float>(xLocal, xGm[loopIdx * tileRow * totalN], {copyRows, actualSingleCoreN * 4,
                                (totalN - actualSingleCoreN) * 4, 0, 0}, {false, 0, 0, 0});
        Compute(xLocal, yLocal, copyRows * singleCoreN);
        ... DataCopyPad<float>(yGm[loopIdx * tileRow * totalN], yLocal, {copyRows, ..., 0, srcStride, 0});
    }

with xPing, xPong, yPing, yPong at UB bytes 0, tileLen·4, 2·tileLen·4, 3·tileLen·4. The set/wait flags order the
pipes; regsim runs the copies and the VF in program order. Each core has its own UB.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

import regsim as rs


@attrs.frozen
class Tiling:
    """The template parameters <totalM, totalN, singleCoreM, singleCoreN, tileLen>."""

    total_m: int
    total_n: int
    single_core_m: int
    single_core_n: int
    tile_len: int

    @property
    def num_blocks(self) -> int:
        m_tiles = -(-self.total_m // self.single_core_m)
        n_tiles = -(-self.total_n // self.single_core_n)
        return m_tiles * n_tiles


Compute = Callable[[rs.LocalTensor[Any], rs.LocalTensor[Any], int], None]


def run_cores(x: npt.NDArray[np.float32], t: Tiling, compute: Compute) -> npt.NDArray[np.float32]:
    """gelu_custom on every core: x and y are the [totalM, totalN] GM matrices (flattened)."""
    y = np.zeros(t.total_m * t.total_n, np.float32)
    m_index = -(-t.total_m // t.single_core_m)
    n_index = -(-t.total_n // t.single_core_n)
    tail_m = t.total_m - (m_index - 1) * t.single_core_m
    tail_n = t.total_n - (n_index - 1) * t.single_core_n
    tile_row = t.tile_len // t.single_core_n
    for block_idx in range(t.num_blocks):
        m_iter, n_iter = block_idx % m_index, block_idx // m_index
        actual_m = tail_m if m_iter == m_index - 1 else t.single_core_m
        actual_n = tail_n if n_iter == n_index - 1 else t.single_core_n
        gm_offset = m_iter * t.single_core_m * t.total_n + n_iter * t.single_core_n
        ub = rs.UnifiedBuffer()
        x_ping, x_pong = ub.alloc(rs.float32, t.tile_len), ub.alloc(rs.float32, t.tile_len)
        y_ping, y_pong = ub.alloc(rs.float32, t.tile_len), ub.alloc(rs.float32, t.tile_len)
        loop_num = -(-actual_m // tile_row)
        tail_row = actual_m - (loop_num - 1) * tile_row
        for loop_idx in range(loop_num):
            copy_rows = tail_row if loop_idx == loop_num - 1 else tile_row
            x_local, y_local = (x_ping, y_ping) if loop_idx % 2 == 0 else (x_pong, y_pong)
            rows = [gm_offset + (loop_idx * tile_row + r) * t.total_n for r in range(copy_rows)]
            x_local.set(np.concatenate([x[s : s + actual_n] for s in rows]))  # DataCopyPad(xLocal, xGm[...], ...)
            compute(x_local, y_local, copy_rows * t.single_core_n)
            out = y_local.numpy()
            for r, s in enumerate(rows):  # DataCopyPad(yGm[...], yLocal, ...): dstStride = srcStride
                y[s : s + actual_n] = out[r * actual_n : (r + 1) * actual_n]
    return y
