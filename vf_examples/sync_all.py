"""sync_all_custom of the asc-devkit example `03_basic_api/05_sync_control/sync_all` (sync_all.asc): 8 cores double
their 32 floats, exchange them through a GM workspace, and each adds every other core's share to its own, with
`SyncAll()` between the writes and the reads; ported line by line (the kernel class `KernelSyncAll`, `Init` /
`Process`, the flags and barriers as written). gen_data.py: x = ones(256), work and sync zeros; golden
`x * 2 * 8`.

Without the `SyncAll`, a core would read the workspace another core is still writing: a launch reports that as a
`RaceError` naming both cores' accesses (tests/kernel).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs

A = rs.AscendC
HE = A.HardEvent
F32 = rs.float32

DEFAULT_SYNCALL_NEED_SIZE: Final = 8
TOTAL_LENGTH: Final = 256
TILE_LENGTH: Final = 32


class KernelSyncAll:
    def __init__(self) -> None:
        self.src_global, self.dst_global, self.work_global = A.GlobalTensor(F32), A.GlobalTensor(F32), A.GlobalTensor(F32)
        self.sync_global = A.GlobalTensor(rs.int32)
        self.block_num = 0
        self.block_idx = 0

    def Init(
        self, src_gm: rs.GmPtr[rs.uint8], dst_gm: rs.GmPtr[rs.uint8], work_gm: rs.GmPtr[rs.uint8], sync_gm: rs.GmPtr[rs.uint8]
    ) -> None:
        self.block_num = A.GetBlockNum()  # 获取核总数
        self.block_idx = A.GetBlockIdx()  # 获取当前工作的核ID
        self.src_global.SetGlobalBuffer((src_gm + self.block_idx * TILE_LENGTH * F32.itemsize).reinterpret(F32), TILE_LENGTH)
        self.dst_global.SetGlobalBuffer((dst_gm + self.block_idx * TILE_LENGTH * F32.itemsize).reinterpret(F32), TILE_LENGTH)
        self.work_global.SetGlobalBuffer(work_gm.reinterpret(F32), TOTAL_LENGTH)
        self.sync_global.SetGlobalBuffer(sync_gm.reinterpret(rs.int32), self.block_num * DEFAULT_SYNCALL_NEED_SIZE)

    def Process(self) -> None:
        ub_allocator = A.LocalMemAllocator(hard=A.Hardware.UB)
        src_local1 = ub_allocator.Alloc(F32, 32)
        dst_local = ub_allocator.Alloc(F32, 32)

        A.DataCopy(src_local1, self.src_global, TILE_LENGTH)
        A.SetFlag(A.EVENT_ID0, event=HE.MTE2_V)
        A.WaitFlag(A.EVENT_ID0, event=HE.MTE2_V)

        self.FirstCompute(src_local1, dst_local)
        self.CopyToWorkGlobal(dst_local)  # 当前工作核计算后的数据先保存到外部工作空间
        # 等待所有核都完成计算
        A.SyncAll()
        # 最终累加结果需要等所有核都计算完成，dstLocal保留当前核计算结果。
        for i in range(self.block_num):
            if i != self.block_idx:
                self.CopyFromOtherCore(i, src_local1)  # 从外部工作空间读取数据
                self.Accumulate(dst_local, src_local1)  # 所有数据都累加到目的空间

        A.SetFlag(A.EVENT_ID0, event=HE.V_MTE3)
        A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE3)
        A.DataCopy(self.dst_global, dst_local, TILE_LENGTH)

    def CopyToWorkGlobal(self, dst_local: rs.LocalTensor[rs.float32]) -> None:
        A.SetFlag(A.EVENT_ID0, event=HE.V_MTE3)
        A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE3)
        A.DataCopy(self.work_global[self.block_idx * TILE_LENGTH], dst_local, TILE_LENGTH)

    def CopyFromOtherCore(self, index: int, src_local: rs.LocalTensor[rs.float32]) -> None:
        A.SetFlag(A.EVENT_ID0, event=HE.V_MTE2)
        A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE2)
        A.DataCopy(src_local, self.work_global[index * TILE_LENGTH], TILE_LENGTH)
        A.SetFlag(A.EVENT_ID0, event=HE.MTE2_V)
        A.WaitFlag(A.EVENT_ID0, event=HE.MTE2_V)

    def Accumulate(self, dst_local: rs.LocalTensor[rs.float32], src_local: rs.LocalTensor[rs.float32]) -> None:
        A.Add(dst_local, dst_local, src_local, TILE_LENGTH)
        A.PipeBarrier(pipe=A.PIPE.PIPE_V)

    def FirstCompute(self, src_local1: rs.LocalTensor[rs.float32], dst_local: rs.LocalTensor[rs.float32]) -> None:
        scalar_value = np.float32(2.0)
        A.Muls(dst_local, src_local1, scalar_value, TILE_LENGTH)
        A.PipeBarrier(pipe=A.PIPE.PIPE_V)


@rs.kernel
def sync_all_custom(
    src_gm: rs.GmPtr[rs.uint8], dst_gm: rs.GmPtr[rs.uint8], work_gm: rs.GmPtr[rs.uint8], sync_gm: rs.GmPtr[rs.uint8]
) -> None:
    A.InitSocState()
    op = KernelSyncAll()
    op.Init(src_gm, dst_gm, work_gm, sync_gm)
    op.Process()
    A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)


def launch(x: npt.NDArray[np.float32], workers: int | None = None) -> npt.NDArray[np.float32]:
    """main(): sync_all_custom<<<numBlocks, 0, stream>>>(x, z, work, sync) on TOTAL_LENGTH / TILE_LENGTH cores."""
    num_blocks = TOTAL_LENGTH // TILE_LENGTH
    z = np.zeros_like(x)
    work = np.zeros(TOTAL_LENGTH, np.float32)
    sync_ws = np.zeros(num_blocks * DEFAULT_SYNCALL_NEED_SIZE, np.int32)
    rs.launch(sync_all_custom, num_blocks, x, z, work, sync_ws, workers=workers)
    return z


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    """gen_data.py's inputs (ones; `seed` is unused) and golden, and, beyond the example, random inputs: each core's
    share doubled, plus every other core's share doubled (the float32 sum in the kernel's order: its own first,
    then the others by index)."""
    x = np.ones(TOTAL_LENGTH, np.float32)
    out = {"z = x * 2 * 8 (gen_data)": (launch(x), x * 2 * 8)}
    rng = np.random.default_rng(seed)
    x = rng.uniform(-10, 10, TOTAL_LENGTH).astype(np.float32)
    shares = (x * np.float32(2)).reshape(-1, TILE_LENGTH)
    expected = shares.copy()
    for core in range(shares.shape[0]):
        for other in range(shares.shape[0]):
            if other != core:
                expected[core] += shares[other]
    out["z: each share doubled plus the others' (random x)"] = (launch(x), expected.reshape(-1))
    return out
