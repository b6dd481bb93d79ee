"""add_custom of the asc-devkit example `00_introduction/01_add/add`: z = x + y with the memory-level `AscendC::Add`.

The C++ twin (add.asc; 8 cores, blockLength = 2048 floats each):

    template <uint32_t blockLength>
    __vector__ __global__ void add_custom(__gm__ float* x, __gm__ float* y, __gm__ float* z)
    {
        ...
        AscendC::LocalTensor<float> xLocal = ubAllocator.Alloc<float, blockLength>();
        AscendC::LocalTensor<float> yLocal = ubAllocator.Alloc<float, blockLength>();
        AscendC::LocalTensor<float> zLocal = ubAllocator.Alloc<float, blockLength>();
        AscendC::DataCopy(xLocal, xGm, blockLength);
        AscendC::DataCopy(yLocal, yGm, blockLength);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::Add(zLocal, xLocal, yLocal, blockLength);
        AscendC::PipeBarrier<PIPE_ALL>();
        AscendC::DataCopy(zGm, zLocal, blockLength);
    }

On 950 `AscendC::Add(zLocal, xLocal, yLocal, blockLength)` is the library's VF
`BinaryContinuousImplTemplate` over `Reg::Add`; regsim runs the same lowering (`rs.lower` shows it).
The host (`main`) fills x[i] = i * 0.1f, y[i] = i * 0.2f for 8 * 2048 elements and checks
golden[i] = x[i] + y[i] (float32) exactly. Each core's block runs here in turn, on its own UB.
The memory-level mask/repeat form (`Add(z, x, y, 64, repeat, {1, 1, 1, 8, 8, 8})`) is run too, on the
same data (not in the example): the same sums.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs

NUM_BLOCKS = 8
BLOCK_LENGTH = 2048
TOTAL_LENGTH = NUM_BLOCKS * BLOCK_LENGTH
A = rs.AscendC


def gen_data() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """main(): x[i] = i * 0.1f, y[i] = i * 0.2f (float32 products), golden[i] = x[i] + y[i] in float32."""
    i = np.arange(TOTAL_LENGTH, dtype=np.float32)
    x = i * np.float32(0.1)
    y = i * np.float32(0.2)
    return x, y, x + y


def add_custom(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], block_idx: int, *, repeat_form: bool = False) -> Any:
    """One core's add_custom<2048>: its block of z."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, BLOCK_LENGTH)
    y_local = ub.alloc(rs.float32, BLOCK_LENGTH)
    z_local = ub.alloc(rs.float32, BLOCK_LENGTH)
    block = slice(block_idx * BLOCK_LENGTH, (block_idx + 1) * BLOCK_LENGTH)
    x_local.set(x[block])  # DataCopy(xLocal, xGm, blockLength);
    y_local.set(y[block])  # DataCopy(yLocal, yGm, blockLength);
    if repeat_form:  # Add(zLocal, xLocal, yLocal, 64, blockLength / 64, {1, 1, 1, 8, 8, 8});
        A.Add(z_local, x_local, y_local, 64, BLOCK_LENGTH // 64, A.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    else:
        A.Add(z_local, x_local, y_local, BLOCK_LENGTH)  # Add(zLocal, xLocal, yLocal, blockLength);
    return z_local.numpy()  # DataCopy(zGm, zLocal, blockLength);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    """`seed` is unused: the example's data are fixed."""
    x, y, golden = gen_data()
    z = np.concatenate([add_custom(x, y, b) for b in range(NUM_BLOCKS)])
    z_repeat = np.concatenate([add_custom(x, y, b, repeat_form=True) for b in range(NUM_BLOCKS)])
    return {"z = x + y (count form)": (z, golden), "z = x + y (mask/repeat form)": (z_repeat, golden)}
