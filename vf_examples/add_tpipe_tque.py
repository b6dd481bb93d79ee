"""add_custom of the asc-devkit example `00_introduction/01_add/add_tpipe_tque` (add_tpipe_tque.asc): z = x + y on 8
cores with the TPipe-TQue framework, ported line by line:

    __global__ __vector__ void add_custom(__gm__ uint8_t* x, __gm__ uint8_t* y, __gm__ uint8_t* z, uint32_t totalLength)
    {
        AscendC::TPipe pipe;
        AscendC::TQue<AscendC::TPosition::VECIN, 1> inQueueX;
        ...
        pipe.InitBuffer(inQueueX, 1, blockLength * sizeof(float));
        ...
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm, blockLength);
        inQueueX.EnQue(xLocal);
        ...
        xLocal = inQueueX.DeQue<float>();
        AscendC::Add(zLocal, xLocal, yLocal, blockLength);
        ...
    }

The queues order the pipes (no SetFlag / WaitFlag): EnQue / DeQue of a VECIN queue is MTE2 -> V, of the VECOUT
queue V -> MTE3; FreeTensor / AllocTensor the way back. main: numBlocks 8, totalLength 8 * 2048 floats;
gen_data.py: `np.random.uniform(1, 10, [8, 2048]).astype(np.float32)` for x and y, golden `x + y`.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs

A = rs.AscendC
NUM_BLOCKS: Final = 8
TOTAL_LENGTH: Final = 8 * 2048


@rs.kernel
def add_custom(x: rs.GmPtr[rs.uint8], y: rs.GmPtr[rs.uint8], z: rs.GmPtr[rs.uint8], total_length: int) -> None:
    pipe = A.TPipe()
    in_queue_x = A.TQue(pos=A.TPosition.VECIN, depth=1)
    in_queue_y = A.TQue(pos=A.TPosition.VECIN, depth=1)
    out_queue_z = A.TQue(pos=A.TPosition.VECOUT, depth=1)
    x_gm = A.GlobalTensor(rs.float32)
    y_gm = A.GlobalTensor(rs.float32)
    z_gm = A.GlobalTensor(rs.float32)

    # totalLength 表示全局输入长度；GetBlockNum() 返回本次启动的核数，这里按核数均分每个 block 的处理区间。
    block_length = total_length // A.GetBlockNum()
    # 根据 block_idx 计算当前核在 GM 中的起始地址，确保各核访问互不重叠的数据分片。
    x_gm.SetGlobalBuffer(x.reinterpret(rs.float32) + block_length * A.GetBlockIdx(), block_length)
    y_gm.SetGlobalBuffer(y.reinterpret(rs.float32) + block_length * A.GetBlockIdx(), block_length)
    z_gm.SetGlobalBuffer(z.reinterpret(rs.float32) + block_length * A.GetBlockIdx(), block_length)
    # 为输入和输出队列申请与 blockLength 对应的 UB 缓冲，保持 TPipe/TQue 的编程范式。
    pipe.InitBuffer(in_queue_x, 1, block_length * rs.float32.itemsize)
    pipe.InitBuffer(in_queue_y, 1, block_length * rs.float32.itemsize)
    pipe.InitBuffer(out_queue_z, 1, block_length * rs.float32.itemsize)

    # 使用 DataCopy 将输入从 GM 搬运到 UB，并通过 EnQue 将 LocalTensor 入队，供后续计算阶段 DeQue 取用。
    x_local = in_queue_x.AllocTensor(rs.float32)
    y_local = in_queue_y.AllocTensor(rs.float32)
    A.DataCopy(x_local, x_gm, block_length)
    A.DataCopy(y_local, y_gm, block_length)
    in_queue_x.EnQue(x_local)
    in_queue_y.EnQue(y_local)

    # DeQue 取出输入张量，在 UB 内执行 Add，并将结果 EnQue 到输出队列，供后续写回 GM。
    x_local = in_queue_x.DeQue(rs.float32)
    y_local = in_queue_y.DeQue(rs.float32)
    z_local = out_queue_z.AllocTensor(rs.float32)
    A.Add(z_local, x_local, y_local, block_length)
    out_queue_z.EnQue(z_local)
    in_queue_x.FreeTensor(x_local)
    in_queue_y.FreeTensor(y_local)

    # 从输出队列取出结果，并写回当前核负责的 GM 分片。
    z_local = out_queue_z.DeQue(rs.float32)
    A.DataCopy(z_gm, z_local, block_length)
    out_queue_z.FreeTensor(z_local)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(1, 10, [8, 2048]).astype(np.float32)
    y = rng.uniform(1, 10, [8, 2048]).astype(np.float32)
    z = np.zeros_like(x)
    add_custom[NUM_BLOCKS](x, y, z, TOTAL_LENGTH)  # add_custom<<<numBlocks, 0, stream>>>(xDevice, yDevice, zDevice, totalLength);
    z_workers = np.zeros_like(x)
    rs.launch(add_custom, NUM_BLOCKS, x, y, z_workers, TOTAL_LENGTH, workers=2)  # (the blocks in two processes)
    return {"z = x + y (8 cores, TPipe/TQue)": (z, x + y), "z, the cores in 2 worker processes": (z_workers, x + y)}
