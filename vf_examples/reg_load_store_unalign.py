"""The two scenarios of the reg_load_store_unalign example (ld_st_reg_unalign.asc).

Scenario 1: 128 floats copied from x + 1 to y + 1 (4 bytes off the 32-byte grid) by an unaligned
load stream and an unaligned store stream, flushed by StoreUnAlignPost; the rest of y keeps the
host's zeros. The C++ twin (oneRepeatSize = 64; called as CopyVF(dstAddr + 1, srcAddr + 1, oneRepeatSize)):

    __simd_vf__ static inline void CopyVF(__ubuf__ T* dstAddr, __ubuf__ T* srcAddr, uint16_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> srcReg, dstReg;
        AscendC::Reg::UnalignRegForLoad ureg0;
        AscendC::Reg::UnalignRegForStore ureg1;

        AscendC::Reg::LoadUnAlignPre(ureg0, srcAddr);
        for (uint16_t i = 0; i < 2; ++i) {
            AscendC::Reg::LoadUnAlign(srcReg, ureg0, srcAddr, oneRepeatSize);
            AscendC::Reg::StoreUnAlign(dstAddr, srcReg, ureg1, oneRepeatSize);
        }
        AscendC::Reg::StoreUnAlignPost(dstAddr, ureg1, 0);
    }

Scenario 2: a [14, 255] uint16 matrix, split over 4 cores of 4 rows (the last core 2); each core
copies its rows contiguously into the UB (row m starts at element 255 m, so rows 1.. are unaligned)
and calls one VF per row, which reduces every 16-element DataBlock to its maximum: an unaligned
load stream of 128 elements per repeat, ReduceDataBlock<MAX> under UpdateMask (128 lanes, then 127:
the last block has 15 elements and lane 127 of the second load, the next row's first element or
the core's unfilled pad, is masked off) and an unaligned store stream of 8 results per repeat.
The C++ twin (T = uint16_t, inputSize = 255, oneRepeatInputSize = 128, oneRepeatOutputSize = 8,
repeatTimes = 2; called as ReduceDataBlockVF(dstAddr + m * 16, srcAddr + m * 255, ...)):

    __simd_vf__ static inline void ReduceDataBlockVF(
        __ubuf__ T* dstAddr, __ubuf__ T* srcAddr, uint32_t inputSize, uint32_t oneRepeatInputSize,
        uint32_t oneRepeatOutputSize, uint32_t repeatTimes)
    {
        AscendC::Reg::RegTensor<T> srcReg;
        AscendC::Reg::RegTensor<T> dstReg;
        AscendC::Reg::UnalignRegForLoad uregLoad;
        AscendC::Reg::UnalignRegForStore uregStore;
        AscendC::Reg::MaskReg mask;

        AscendC::Reg::LoadUnAlignPre(uregLoad, srcAddr);
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            mask = AscendC::Reg::UpdateMask<T>(inputSize);
            AscendC::Reg::LoadUnAlign(srcReg, uregLoad, srcAddr, oneRepeatInputSize);
            AscendC::Reg::ReduceDataBlock<AscendC::Reg::ReduceType::MAX>(dstReg, srcReg, mask);
            AscendC::Reg::StoreUnAlign(dstAddr, dstReg, uregStore, oneRepeatOutputSize);
        }
        AscendC::Reg::StoreUnAlignPost(dstAddr, uregStore, 0);
    }

gen_data.py (no seed: `run(seed)` sets one): scenario 1 draws `x = randn(1024)` in float32, golden =
zeros with golden[1:129] = x[1:129]; scenario 2 draws `x = randint(0, 1000, 14 * 255)` in uint16,
golden[16 row + b] = max(x[255 row + 16 b : min(255 row + 16 b + 16, 255 row + 255)]).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

COUNT = 1024
TOTAL_M, SINGLE_CORE_M, INPUT_N, OUTPUT_N = 14, 4, 255, 16  # scenario 2
DATA_BLOCK = 16  # uint16 elements in 32 bytes


@rs.simd_vf
def copy_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], one_repeat_size: int) -> None:
    src_reg = Reg.RegTensor(rs.float32)
    ureg0 = Reg.UnalignRegForLoad()
    ureg1 = Reg.UnalignRegForStore()
    Reg.LoadUnAlignPre(ureg0, src)  # LoadUnAlignPre(ureg0, srcAddr);
    for _ in range(2):
        Reg.LoadUnAlign(src_reg, ureg0, src, one_repeat_size)  # LoadUnAlign(srcReg, ureg0, srcAddr, oneRepeatSize);
        Reg.StoreUnAlign(dst, src_reg, ureg1, one_repeat_size)  # StoreUnAlign(dstAddr, srcReg, ureg1, oneRepeatSize);
    Reg.StoreUnAlignPost(dst, ureg1, 0)  # StoreUnAlignPost(dstAddr, ureg1, 0);


@rs.simd_vf
def reduce_data_block_vf(
    dst: rs.UbPtr[rs.uint16],
    src: rs.UbPtr[rs.uint16],
    input_size: int,
    one_repeat_input_size: int,
    one_repeat_output_size: int,
    repeat_times: int,
) -> None:
    src_reg, dst_reg = Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.uint16)
    ureg_load = Reg.UnalignRegForLoad()
    ureg_store = Reg.UnalignRegForStore()
    n = rs.Ref(input_size)  # UpdateMask takes inputSize by reference
    Reg.LoadUnAlignPre(ureg_load, src)  # LoadUnAlignPre(uregLoad, srcAddr);
    for _ in range(repeat_times):
        mask = Reg.UpdateMask(rs.uint16, n)  # mask = UpdateMask<T>(inputSize);
        Reg.LoadUnAlign(src_reg, ureg_load, src, one_repeat_input_size)  # LoadUnAlign(srcReg, uregLoad, srcAddr, ...);
        Reg.ReduceDataBlock(dst_reg, src_reg, mask, type=Reg.ReduceType.MAX)  # ReduceDataBlock<ReduceType::MAX>(...);
        Reg.StoreUnAlign(dst, dst_reg, ureg_store, one_repeat_output_size)  # StoreUnAlign(dstAddr, dstReg, uregStore, ...);
    Reg.StoreUnAlignPost(dst, ureg_store, 0)  # StoreUnAlignPost(dstAddr, uregStore, 0);


def kernel(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    ub = rs.UnifiedBuffer()
    x_local, y_local = ub.alloc(rs.float32, COUNT), ub.alloc(rs.float32, COUNT)
    x_local.set(x)
    y_local.set(np.zeros(COUNT, np.float32))  # AscendC::Duplicate<T>(yLocal, 0, count);
    rs.asc_vf_call(copy_vf, y_local.GetPhyAddr() + 1, x_local.GetPhyAddr() + 1, 64)
    return y_local.numpy()


def _align_up(a: int, b: int) -> int:
    return (a + b - 1) // b * b


def kernel_2(x: npt.NDArray[np.uint16]) -> npt.NDArray[np.uint16]:
    """Scenario 2's __aicore__ side, once per core (each with its own UB): DataCopyPad of the
    core's rows (the pad up to 32 bytes left unwritten: isPad = false), one VF call per row."""
    align_size = 32 // rs.uint16.itemsize
    one_repeat_input_size = 256 // rs.uint16.itemsize  # GetVecLen() / sizeof(T)
    one_repeat_output_size = 256 // 32  # GetVecLen() / DataBlock
    repeat_times = -(-INPUT_N // one_repeat_input_size)
    m_index = -(-TOTAL_M // SINGLE_CORE_M)
    y = np.empty(TOTAL_M * OUTPUT_N, np.uint16)
    for block_idx in range(m_index):
        rows = min(SINGLE_CORE_M, TOTAL_M - block_idx * SINGLE_CORE_M)
        input_size, output_size = rows * INPUT_N, rows * OUTPUT_N
        ub = rs.UnifiedBuffer()
        x_local = ub.alloc(rs.uint16, _align_up(input_size, align_size))
        y_local = ub.alloc(rs.uint16, _align_up(output_size, align_size))
        first = block_idx * SINGLE_CORE_M
        x_local.set(x[first * INPUT_N : first * INPUT_N + input_size])  # DataCopyPad<T>(xLocal, xGm, ...)
        src_addr, dst_addr = x_local.GetPhyAddr(), y_local.GetPhyAddr()
        for m in range(rows):
            rs.asc_vf_call(
                reduce_data_block_vf,
                dst_addr + m * OUTPUT_N,
                src_addr + m * INPUT_N,
                INPUT_N,
                one_repeat_input_size,
                one_repeat_output_size,
                repeat_times,
            )
        y[first * OUTPUT_N : first * OUTPUT_N + output_size] = y_local.numpy()[:output_size]
    return y


def reference_2(x: npt.NDArray[np.uint16]) -> npt.NDArray[np.uint16]:
    """gen_data.py's golden of scenario 2: the maximum of each DataBlock of each row."""
    golden = np.zeros(TOTAL_M * OUTPUT_N, np.uint16)
    for row in range(TOTAL_M):
        row_start = row * INPUT_N
        for block_idx in range(OUTPUT_N):
            block_start = row_start + block_idx * DATA_BLOCK
            block_end = min(block_start + DATA_BLOCK, row_start + INPUT_N)
            golden[row * OUTPUT_N + block_idx] = np.max(x[block_start:block_end]).astype(np.uint16)
    return golden


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(COUNT).astype(np.float32)
    golden = np.zeros(COUNT, np.float32)
    golden[1:129] = x[1:129]
    x2 = rng.integers(0, 1000, TOTAL_M * INPUT_N).astype(np.uint16)
    y = kernel(x).view(np.uint32)
    want = golden.view(np.uint32)
    return {
        "y[1:129] (streamed)": (y[1:129], want[1:129]),
        "y[0], y[129:] (untouched zeros)": (np.delete(y, np.s_[1:129]), np.delete(want, np.s_[1:129])),
        "scenario 2 y (DataBlock maxima)": (kernel_2(x2), reference_2(x2)),
    }
