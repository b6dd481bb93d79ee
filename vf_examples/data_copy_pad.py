"""data_copy_pad_custom of the asc-devkit example `03_basic_api/00_data_movement/data_copy_pad_gm2ub_ub2gm`
(data_copy_pad.asc): rows copied GM -> UB with DataCopyPad, padded to 32 bytes, and the padded UB copied back to GM,
ported line by line (the kernel class `KernelDataCopyPad<T, srcRows, srcCols, dstCols, dstTotalLength>`, its
template parameters the constructor's), scenarios 1-3 of SCENARIO_NUM:

    1: half [1, 20] -> [1, 32]: rightPadding 12, isPad false, SetPadValue(1) the padding
    2: float [32, 59] -> [32, 64]: rightPadding 5, isPad true, paddingValue 0
    3: half [3, 24] -> [1, 80]: PaddingMode::Compact, the three rows packed and their end padded to 32 bytes

Scenarios 4-6 set a loop mode first (`SetLoopModePara`), which regsim does not model. gen_data.py (seeded with 9):
`np.random.uniform(-10, 10, [srcRows, srcCols])` in the scenario's type; golden: the rows, then the padding (1 in
scenario 1, 0 in 2 and 3).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs

A = rs.AscendC
HE = A.HardEvent

#: scenario -> (T, srcRows, srcCols, dstCols, dstTotalLength) (main's constants)
SCENARIOS: Final = {1: (rs.half, 1, 20, 32, 32), 2: (rs.float32, 32, 59, 64, 32 * 64), 3: (rs.half, 3, 24, 80, 80)}


class KernelDataCopyPad:
    def __init__(
        self, dtype: Any, *, src_rows: int, src_cols: int, dst_cols: int, dst_total_length: int, scenario_num: int
    ) -> None:
        self.T, self.src_rows, self.src_cols, self.dst_cols, self.dst_total_length = (
            dtype,
            src_rows,
            src_cols,
            dst_cols,
            dst_total_length,
        )
        self.scenario_num = scenario_num
        self.src_global, self.dst_global = A.GlobalTensor(dtype), A.GlobalTensor(dtype)

    def Init(self, x: rs.GmPtr[rs.uint8], z: rs.GmPtr[rs.uint8]) -> None:
        self.src_global.SetGlobalBuffer(x.reinterpret(self.T))
        self.dst_global.SetGlobalBuffer(z.reinterpret(self.T))

    def Process(self) -> None:
        ub_allocator = A.LocalMemAllocator(hard=A.Hardware.UB)
        src_local = ub_allocator.Alloc(self.T, self.dst_total_length)
        self.CopyIn(src_local)
        A.SetFlag(A.EVENT_ID0, event=HE.MTE2_MTE3)
        A.WaitFlag(A.EVENT_ID0, event=HE.MTE2_MTE3)
        copy_params = A.DataCopyExtParams(1, self.dst_total_length * self.T.itemsize, 0, 0, 0)
        A.DataCopyPad(self.dst_global, src_local, copy_params)

    def CopyIn(self, src_local: rs.LocalTensor[Any]) -> None:
        if self.scenario_num == 1:
            # 场景1：使用SetPadValue进行自定义填充
            copy_params = A.DataCopyExtParams(1, self.src_cols * self.T.itemsize, 0, 0, 0)
            pad_params = A.DataCopyPadExtParams(self.T, isPad=False, leftPadding=0, rightPadding=self.dst_cols - self.src_cols)
            A.SetPadValue(self.T, 1)
            A.DataCopyPad(src_local, self.src_global, copy_params, pad_params)
        elif self.scenario_num == 2:
            # 场景2：使用rightPadding进行默认填充
            copy_params = A.DataCopyExtParams(self.src_rows, self.src_cols * rs.float32.itemsize, 0, 0, 0)
            pad_params = A.DataCopyPadExtParams(self.T, isPad=True, leftPadding=0, rightPadding=self.dst_cols - self.src_cols)
            A.DataCopyPad(src_local, self.src_global, copy_params, pad_params)
        elif self.scenario_num == 3:
            # 场景3：使用Compact模式进行紧凑填充（仅支持 Ascend 950PR/Ascend 950DT）
            copy_params = A.DataCopyExtParams(self.src_rows, self.src_cols * self.T.itemsize, 0, 0, 0)
            pad_params = A.DataCopyPadExtParams(
                self.T, isPad=True, leftPadding=0, rightPadding=self.dst_cols - self.src_cols * self.src_rows
            )
            A.DataCopyPad(src_local, self.src_global, copy_params, pad_params, mode=A.PaddingMode.Compact)


@rs.kernel
def data_copy_pad_custom(
    x: rs.GmPtr[rs.uint8],
    z: rs.GmPtr[rs.uint8],
    *,
    src_rows: int,
    src_cols: int,
    dst_cols: int,
    dst_total_length: int,
    scenario_num: int,
) -> None:
    A.InitSocState()
    dtype = SCENARIOS[scenario_num][0]  # (the kernel class is instantiated for half, or float in scenario 2)
    op = KernelDataCopyPad(
        dtype,
        src_rows=src_rows,
        src_cols=src_cols,
        dst_cols=dst_cols,
        dst_total_length=dst_total_length,
        scenario_num=scenario_num,
    )
    op.Init(x, z)
    op.Process()
    A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(9 + seed)
    out = {}
    for scenario, (dtype, rows, cols, dst_cols, total) in SCENARIOS.items():
        x = rng.uniform(-10, 10, [rows, cols]).astype(dtype.np_dtype)
        z = np.zeros(total, dtype.np_dtype)
        data_copy_pad_custom[1](
            x, z, src_rows=rows, src_cols=cols, dst_cols=dst_cols, dst_total_length=total, scenario_num=scenario
        )  # data_copy_pad_custom<SRC_ROWS, SRC_COLS, DST_COLS, DST_TOTAL_LENGTH><<<numBlocks, 0, stream>>>(xDevice, zDevice);
        if scenario == 3:  # the rows packed, then zeros to the end
            golden = np.zeros(total, dtype.np_dtype)
            golden[: rows * cols] = x.reshape(-1)
        else:  # each row, then its padding: 1 (SetPadValue) or 0 (paddingValue)
            golden = np.full([rows, dst_cols], 1 if scenario == 1 else 0, dtype.np_dtype)
            golden[:, :cols] = x
        out[f"scenario {scenario}: z ({np.dtype(dtype.np_dtype).name} [{rows}, {cols}] -> {total})"] = (z, golden.reshape(-1))
    return out
