"""The six scenarios of the asc-devkit example `03_basic_api/01_memory_vector_compute/reduce_computation`:
the memory-level `ReduceMax`, `ReduceMin` (with calIndex) and `ReduceSum` on half, in both interfaces.

The C++ twin (reduce_computation.asc; one core; dstDataSize = 16, repStride = 8, mask = 128 halves):

    if constexpr (scenarioNum == 1) {          // srcDataSize = 288
        AscendC::ReduceMax<half>(dstLocal, srcLocal, sharedTmpBuffer, srcDataSize, true);
    } else if constexpr (scenarioNum == 2) {   // srcDataSize = 512, repeat = 4
        AscendC::ReduceMax<half>(dstLocal, srcLocal, sharedTmpBuffer, mask, repeat, repStride, true);
    } else if constexpr (scenarioNum == 3) {
        AscendC::ReduceMin<half>(dstLocal, srcLocal, sharedTmpBuffer, srcDataSize, true);
    } else if constexpr (scenarioNum == 4) {
        AscendC::ReduceMin<half>(dstLocal, srcLocal, sharedTmpBuffer, mask, repeat, repStride, true);
    } else if constexpr (scenarioNum == 5) {   // srcDataSize = 288
        AscendC::ReduceSum<half>(dstLocal, srcLocal, sharedTmpBuffer, srcDataSize);
        ... SetFlag / WaitFlag<HardEvent::V_S> ...
        half val = AscendC::GetReduceRepeatSumSpr<half>();
        dstLocal.SetValue(1, val);
    } else if constexpr (scenarioNum == 6) {   // srcDataSize = 8320, repeat = 65
        AscendC::ReduceSum<half>(dstLocal, srcLocal, sharedTmpBuffer, mask, repeat, repStride);
    }

The work tensor is the example's `workSize` (ReduceMax / ReduceMin: the two rounds the page's formula
counts; ReduceSum: the first round's repeats rounded up to a DataBlock). On 950 the library lowers each
call to Reg ops (`rs.lower` shows them; ReduceMax / ReduceMin do not use the work tensor).

gen_data.py (unseeded; `run(seed)` seeds numpy's global generator): scenarios 1-4 draw
`np.random.uniform(finfo(half).min, finfo(half).max, n).astype(half)` and the golden is
[max or min, its argmax / argmin as uint16 bits, 0 ...]; scenarios 5 and 6 sum ones: [288, 288, 0 ...]
and [8320, 0 ...]. dst is allocated, not written by the kernel past the results, so its other 14
elements are whatever the UB held: we zero it before the call (as the golden's zeros assume). Every
scenario is compared bit for bit (the maxima and minima are exact, numpy's argmax / argmin take the
first index as the page's "最小索引" does, and the sums of ones are exact in half).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs

A = rs.AscendC
DST_DATA_SIZE = 16
REP_STRIDE = 8
ELE_PER_REPEAT = 256 // 2  # 256 / sizeof(half)
ELE_PER_BLOCK = 32 // 2
SRC_DATA_SIZE = {1: 288, 2: 512, 3: 288, 4: 512, 5: 288, 6: 8320}
WORK_SIZE_FACTOR = {1: 2, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1}


def work_size(scenario: int) -> int:
    """The example's workSize (elements)."""
    repeat = -(-SRC_DATA_SIZE[scenario] // ELE_PER_REPEAT)
    iter1_output_count = repeat * WORK_SIZE_FACTOR[scenario]
    if scenario <= 4:  # ReduceMax / ReduceMin
        iter2_align_start = -(-iter1_output_count // ELE_PER_BLOCK) * ELE_PER_BLOCK
        iter2_output_count = -(-iter1_output_count // ELE_PER_REPEAT) * WORK_SIZE_FACTOR[scenario]
        iter2_align_end = -(-iter2_output_count // ELE_PER_BLOCK) * ELE_PER_BLOCK
        return iter2_align_start + iter2_align_end
    return -(-iter1_output_count // ELE_PER_BLOCK) * ELE_PER_BLOCK


def reduce_computation_custom(x: npt.NDArray[np.float16], scenario: int) -> npt.NDArray[np.float16]:
    """The kernel for one scenario: x in, the 16 halves of z out."""
    src_data_size = SRC_DATA_SIZE[scenario]
    mask = ELE_PER_REPEAT
    repeat = -(-src_data_size // mask)
    ub = rs.UnifiedBuffer()
    src_local = ub.alloc(rs.half, src_data_size)  # pipe.InitBuffer(inQueueSrc, 1, srcDataSize * sizeof(half));
    shared_tmp_buffer = ub.alloc(rs.half, work_size(scenario))  # pipe.InitBuffer(workQueue, 1, workSize * ...);
    dst_local = ub.alloc(rs.half, DST_DATA_SIZE)  # pipe.InitBuffer(outQueueDst, 1, dstDataSize * sizeof(half));
    dst_local.set(np.zeros(DST_DATA_SIZE, np.float16))  # (what the golden assumes of the untouched elements)
    src_local.set(x)  # DataCopy(srcLocalIn, srcGlobal, srcDataSize);
    if scenario == 1:
        A.ReduceMax(dst_local, src_local, shared_tmp_buffer, src_data_size, True)
    elif scenario == 2:
        A.ReduceMax(dst_local, src_local, shared_tmp_buffer, mask, repeat, REP_STRIDE, True)
    elif scenario == 3:
        A.ReduceMin(dst_local, src_local, shared_tmp_buffer, src_data_size, True)
    elif scenario == 4:
        A.ReduceMin(dst_local, src_local, shared_tmp_buffer, mask, repeat, REP_STRIDE, True)
    elif scenario == 5:
        A.ReduceSum(dst_local, src_local, shared_tmp_buffer, src_data_size)
        val = A.GetReduceRepeatSumSpr(rs.half)  # half val = GetReduceRepeatSumSpr<half>();
        dst_local.GetPhyAddr()[1] = val  # dstLocal.SetValue(1, val);
    else:
        A.ReduceSum(dst_local, src_local, shared_tmp_buffer, mask, repeat, REP_STRIDE)
    return dst_local.numpy()  # DataCopy(dstGlobal, dstLocalOut, dstDataSize);


def gen_golden_data(scenario: int) -> tuple[npt.NDArray[np.float16], npt.NDArray[np.float16]]:
    """gen_data.py's gen_golden_data(scenarioNum): (input_x, golden)."""
    n = SRC_DATA_SIZE[scenario]
    golden = np.zeros(DST_DATA_SIZE, np.float16)
    if scenario <= 4:
        info = np.finfo(np.float16)
        input_x = np.random.uniform(info.min, info.max, [n]).astype(np.float16)
        if scenario in (1, 2):
            golden[0] = np.max(input_x)
            index = np.uint16(np.argmax(input_x))
        else:
            golden[0] = np.min(input_x)
            index = np.uint16(np.argmin(input_x))
        golden[1] = np.float16(index.view(np.float16))
    else:
        input_x = np.ones([n]).astype(np.float16)
        golden[0] = np.sum(input_x)
        if scenario == 5:
            golden[1] = golden[0]
    return input_x, golden


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    names = {
        1: "ReduceMax first-n, calIndex",
        2: "ReduceMax mask/repeat, calIndex",
        3: "ReduceMin first-n, calIndex",
        4: "ReduceMin mask/repeat, calIndex",
        5: "ReduceSum first-n + GetReduceRepeatSumSpr",
        6: "ReduceSum mask/repeat",
    }
    out: dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]] = {}
    for scenario, name in names.items():
        x, golden = gen_golden_data(scenario)
        got = reduce_computation_custom(x, scenario)
        out[f"scenario {scenario}: {name}"] = (got.view(np.uint16), golden.view(np.uint16))
    return out
