"""The bank_conflict_3510 best-practice sample (05_best_practices/04_memory_access/bank_conflict_3510: vf_func.h,
config.h, bank_conflict.asc): fourteen cases of UB bank conflicts on the 950, each a VF over three LocalTensors
placed at fixed UB addresses (config.h's SCENARIO_NUM branches).

    case 1-5, 7  AddWithUnRollVF        dst = src0 + src1, two repeats an iteration (4 loads, 2 stores)
    case 6       AddWithoutUnRollVF     dst = src0 + src1, one repeat an iteration
    case 8       ComputeBoundVF         case 6 with 1000 Adds an iteration (`INNER` here)
    case 9, 10   GatherAndScatterVF     index load, Gather, Adds 1, Scatter (indices 0..255 / 0 and 128 alternating)
    case 11      AddsByRowVF            DATA_BLOCK_COPY loads and stores, DataBlock stride 1
    case 12      AddsByColVF            DataBlock stride 8 (a column of blocks 256 B apart)
    case 13      AddsWithBlockOverlap   load DataBlock stride 0 (eight copies of one block)
    case 14      AddsWithRepeatOverlap  every iteration loads the same 256 B

ported line by line. The sample's kernel copies x and y in, runs the VF 1000 times between two
GetSystemCycle calls and copies z out; here the VF runs once (`kernel(case, x, y)`), which is what the
conflicts and `rs.profile` need. `EXPECTED` is what the sample's README says of each case: the conflicts
(读读 / 读写 / 写写; the gather cases' subbank conflict) and its measured cycles for 1000 runs.

gen_data.py: `np.random.uniform(1, 100, N)` float32 x and y (N = 4096, or 512 for cases 11-14; the gather cases
256 values of y and the indices); `run(seed)` draws them with `seed`.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

A = rs.AscendC
f32 = rs.float32
ONE_REP: Final = 256 // 4  # oneRepSize = 256 / sizeof(float)
INNER: Final = 1000  # ComputeBoundVF's inner Adds

#: config.h: case -> (TOTAL_LENGTH, x, y, z UB addresses)
CASES: Final = {
    1: (4096, 0x0000, 0x5000, 0xA100),
    2: (4096, 0x0000, 0x5100, 0xA000),
    3: (4096, 0x0000, 0x5100, 0x0000),
    4: (4096, 0x0000, 0x5100, 0xA100),
    5: (4096, 0x0000, 0x5100, 0x5100),
    6: (4096, 0x0000, 0x5000, 0xA000),
    7: (4096, 0x0000, 0x5000, 0xA000),
    8: (4096, 0x0000, 0x5000, 0xA000),
    9: (256, 0x0000, 0x0400, 0x0400),
    10: (256, 0x0000, 0x0400, 0x0400),
    11: (512, 0x0000, 0x0800, 0x4100),
    12: (512, 0x0000, 0x0800, 0x4100),
    13: (512, 0x0000, 0x0800, 0x4100),
    14: (512, 0x0000, 0x0800, 0x4100),
}
#: the README's table: case -> (the conflicts it names, cycles of 1000 runs)
EXPECTED: Final = {
    1: ({"read-read", "read-write"}, 1332802),
    2: ({"read-write"}, 1470520),
    3: ({"read-write"}, 1470753),
    4: ({"read-write"}, 1440590),
    5: ({"read-write"}, 1440708),
    6: ({"read-read", "read-write"}, 1420560),
    7: ({"read-read", "read-write"}, 1330688),
    8: ({"read-read", "read-write"}, 1810355431),
    9: (set(), 650670),
    10: ({"read-read", "write-write"}, 750707),  # the gather's and the scatter's subbank conflicts
    11: (set(), 443135),
    12: ({"write-write"}, 1510497),  # STU conflict 53.5 %
    13: (set(), 440911),
    14: (set(), 440847),
}


@rs.simd_vf
def add_with_unroll_vf(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32], repeat_times: int) -> None:
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1, reg2 = Reg.RegTensor(f32), Reg.RegTensor(f32), Reg.RegTensor(f32)
    reg3, reg4, reg5 = Reg.RegTensor(f32), Reg.RegTensor(f32), Reg.RegTensor(f32)
    main_repeat_times = repeat_times // 2
    for i in range(main_repeat_times):
        Reg.LoadAlign(reg0, src0 + ONE_REP * i)
        Reg.LoadAlign(reg1, src1 + ONE_REP * i)
        Reg.LoadAlign(reg3, src0 + ONE_REP * (main_repeat_times + i))
        Reg.LoadAlign(reg4, src1 + ONE_REP * (main_repeat_times + i))
        Reg.Add(reg2, reg0, reg1, mask)
        Reg.Add(reg5, reg3, reg4, mask)
        Reg.StoreAlign(dst + ONE_REP * i, reg2, mask)
        Reg.StoreAlign(dst + ONE_REP * (main_repeat_times + i), reg5, mask)


@rs.simd_vf
def add_without_unroll_vf(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32], repeat_times: int) -> None:
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1, reg2 = Reg.RegTensor(f32), Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(repeat_times):
        Reg.LoadAlign(reg0, src0 + ONE_REP * i)
        Reg.LoadAlign(reg1, src1 + ONE_REP * i)
        Reg.Add(reg2, reg0, reg1, mask)
        Reg.StoreAlign(dst + ONE_REP * i, reg2, mask)


@rs.simd_vf
def compute_bound_vf(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32], repeat_times: int, inner: int) -> None:
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1, reg2 = Reg.RegTensor(f32), Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(repeat_times):
        Reg.LoadAlign(reg0, src0 + ONE_REP * i)
        Reg.LoadAlign(reg1, src1 + ONE_REP * i)
        for _ in range(inner):
            Reg.Adds(reg0, reg0, 1.0, mask)
        Reg.Add(reg2, reg0, reg1, mask)
        Reg.StoreAlign(dst + ONE_REP * i, reg2, mask)


@rs.simd_vf
def adds_by_row_vf(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32]) -> None:
    # 横着搬运512个数: 8轮×64元素
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1 = Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(8):
        Reg.LoadAlign(reg0, src0 + ONE_REP * i, 1, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)
        Reg.Adds(reg1, reg0, 0.0, mask)
        Reg.StoreAlign(dst + ONE_REP * i, reg1, 1, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@rs.simd_vf
def adds_by_col_vf(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32]) -> None:
    # stride=8, 竖着搬运: 分8块×64列, 每次加载1个DataBlock(8元素), 64轮拼满一行
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1 = Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(8):
        Reg.LoadAlign(reg0, src0 + i * 8, 8, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)
        Reg.Adds(reg1, reg0, 0.0, mask)
        Reg.StoreAlign(dst + i * 8, reg1, 8, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@rs.simd_vf
def adds_with_block_overlap(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32]) -> None:
    # 测试BlockStride为0
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1 = Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(8):
        Reg.LoadAlign(reg0, src0 + ONE_REP * i, 0, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)
        Reg.Adds(reg1, reg0, 0.0, mask)
        Reg.StoreAlign(dst + ONE_REP * i, reg1, 1, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@rs.simd_vf
def adds_with_repeat_overlap(src0: rs.UbPtr[f32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32]) -> None:
    # 测试srcRepeatStride为0
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    reg0, reg1 = Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(8):
        Reg.LoadAlign(reg0, src0, 1, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)
        Reg.Adds(reg1, reg0, 0.0, mask)
        Reg.StoreAlign(dst + ONE_REP * i, reg1, 1, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@rs.simd_vf
def gather_and_scatter_vf(src0: rs.UbPtr[rs.uint32], src1: rs.UbPtr[f32], dst: rs.UbPtr[f32], repeat_times: int) -> None:
    mask = Reg.CreateMask(f32, pattern=Reg.MaskPattern.ALL)
    index_reg = Reg.RegTensor(rs.uint32)
    reg0, reg1 = Reg.RegTensor(f32), Reg.RegTensor(f32)
    for i in range(repeat_times):
        Reg.LoadAlign(index_reg, src0 + ONE_REP * i)  # load index
        Reg.Gather(reg0, src1, index_reg, mask)
        Reg.Adds(reg1, reg0, 1.0, mask)
        Reg.Scatter(dst, reg1, index_reg, mask)


def setup(case: int, x: npt.NDArray[Any], y: npt.NDArray[Any]) -> tuple[rs.LocalTensor[Any], tuple[Any, ...], Any]:
    """A UB holding x and y at the case's addresses: (z's tensor, the VF's arguments, the VF)."""
    n, xa, ya, za = CASES[case]
    ub = rs.UnifiedBuffer()
    xt = rs.LocalTensor(ub, rs.uint32 if case in (9, 10) else f32, xa, n, A.TPosition.VECCALC)
    yt = rs.LocalTensor(ub, f32, ya, n, A.TPosition.VECCALC)
    zt = rs.LocalTensor(ub, f32, za, n, A.TPosition.VECCALC)
    xt.set(x)
    yt.set(y)
    if za not in (xa, ya):
        zt.set(np.zeros(n, np.float32))
    ptrs = (xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr())
    repeat_times = n // ONE_REP
    vf: Any
    extra: tuple[int, ...]
    if case in (1, 2, 3, 4, 5, 7):
        vf, extra = add_with_unroll_vf, (repeat_times,)
    elif case == 6:
        vf, extra = add_without_unroll_vf, (repeat_times,)
    elif case == 8:
        vf, extra = compute_bound_vf, (repeat_times, INNER)
    elif case in (9, 10):
        vf, extra = gather_and_scatter_vf, (repeat_times,)
    else:
        vf, extra = {11: adds_by_row_vf, 12: adds_by_col_vf, 13: adds_with_block_overlap, 14: adds_with_repeat_overlap}[case], ()
    return zt, (*ptrs, *extra), vf


def inputs(case: int, rng: np.random.Generator) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """gen_data.py's inputs for `case`."""
    n = CASES[case][0]
    if case in (9, 10):
        index = np.arange(n, dtype=np.uint32) if case == 9 else np.tile(np.array([0, 128], np.uint32), n // 2)
        return index, rng.uniform(1, 100, n).astype(np.float32)
    return rng.uniform(1, 100, n).astype(np.float32), rng.uniform(1, 100, n).astype(np.float32)


def golden(case: int, x: npt.NDArray[Any], y: npt.NDArray[Any], inner: int = INNER) -> npt.NDArray[np.float32]:
    """One run of the case's VF, in numpy."""
    return np.asarray(_golden(case, x, y, inner), np.float32)


def _golden(case: int, x: npt.NDArray[Any], y: npt.NDArray[Any], inner: int) -> Any:
    if case in (9, 10):
        out = y.copy()
        for rep in x.reshape(-1, ONE_REP):  # each repeat gathers what the previous ones scattered
            out[rep] = out[rep] + np.float32(1)  # (the lanes of one index scatter the same value)
        return out
    if case in (11, 12):
        return x.copy()
    if case == 13:
        return np.repeat(x.reshape(8, 8, 8)[:, 0, :], 8, axis=0).reshape(-1)
    if case == 14:
        return np.tile(x[:64], 8)
    if case == 8:
        acc = x.copy()
        for _ in range(inner):
            acc = acc + np.float32(1)
        return acc + y
    return x + y


def kernel(case: int, x: npt.NDArray[Any], y: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    zt, args, vf = setup(case, x, y)
    rs.asc_vf_call(vf, *args)
    return zt.numpy()


def profile(case: int, x: npt.NDArray[Any], y: npt.NDArray[Any]) -> rs.Profile:
    """`rs.profile` of the case's VF on the case's UB."""
    _, args, vf = setup(case, x, y)
    return rs.profile(vf, *args)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    out = {}
    for case in CASES:
        if case == 8:
            continue  # (64 x 1000 Adds: the tests run it with fewer)
        x, y = inputs(case, rng)
        out[f"case {case} z"] = (kernel(case, x, y).view(np.uint32), golden(case, x, y).view(np.uint32))
    return out
