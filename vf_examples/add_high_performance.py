"""The add_high_performance best-practice walkthrough (05_best_practices/00_vector_compute/add_high_performance,
add.asc): z = x + y on half matrices, its seven cases from a scalar loop to multi-core double-buffered:

    case 0  ProcessScalar                    one core, GetValue / SetValue in a loop
    case 1  ProcessSingle                    one core, AscendC::Add
    case 2  Process                          splitM cores, dataCopyLen 4096
    case 3  Process                          splitM cores, dataCopyLen 21760 (the 950's largeDataCopyLen)
    case 4  ProcessDoubleBuffer              ping-pong buffers, EVENT_ID0 / EVENT_ID1
    case 5  ProcessDoubleBufferL2Bypass      case 4 with SetL2CacheHint(CACHE_MODE_DISABLE) on x and y
    case 6  ProcessDoubleBufferBankConflict  case 5 with y's buffers 256 bytes after x's, dataCopyLen 21632

ported line by line: the kernel class `KernelAdd<totalM, totalN, splitM, splitN, dataCopyLen>` (its template
parameters the constructor's keywords), `Init` / `Process*`, the flags as written, the kernel
`add_custom` (`SCENARIO` a keyword, as the macro picks the method) launched on splitM cores. The constants are
the __NPU_ARCH__ 3510 branch: MAX_DATA_COPY_LEN 21840, BANK_CONFLICT_DATA_COPY_LEN 21632; main's CaseConfig for
3510 (`CASES`): splitM 64, dataCopyLen 4096 / 21760 / 21632.

The UB: the double-buffered cases place six buffers of MAX_DATA_COPY_LEN halves (262080 bytes), more than the
248 KiB a 950 kernel has by default; the vendor's build must give the kernel the 8 KiB the compiler and library
reserve (the page "NPU架构版本3510": 248 KiB + 6 KiB + 2 KiB with --cce-disable-vf-stack-reserved-ubuf and
--cce-disable-asc-reserved-ubuf). `run` runs every case in a 256 KiB UB (`UB_SIZE`).

gen_data.py: `np.random.uniform(1, 100, [8192, 8192]).astype(np.float16)` for x and y, golden `x + y` in half.
`run(seed)` runs the cases on smaller matrices (`SHAPES`: the same code, fewer rows and columns, four cores for
the multi-core cases) against numpy's half sum; bench/bench_kernels.py runs cases 2-6 on 8192 x 8192.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs

A = rs.AscendC
half = rs.half
HE = A.HardEvent
UB_SIZE: Final = 256 * 1024

MAX_DATA_COPY_LEN: Final = 21840  # (__NPU_ARCH__ == 3510)
BANK_CONFLICT_DATA_COPY_LEN: Final = 21632
SIZEOF_HALF: Final = 2
#: main's CaseConfig for NPU_ARCH 3510: case -> (splitM, splitN, dataCopyLen)
CASES: Final = {
    0: (1, 1, 4096),
    1: (1, 1, 4096),
    2: (64, 1, 4096),
    3: (64, 1, 21760),
    4: (64, 1, 21760),
    5: (64, 1, 21760),
    6: (64, 1, 21632),
}


class KernelAdd:
    def __init__(self, *, total_m: int, total_n: int, split_m: int, split_n: int, data_copy_len: int) -> None:
        self.total_m, self.total_n, self.split_m, self.split_n, self.data_copy_len = (
            total_m,
            total_n,
            split_m,
            split_n,
            data_copy_len,
        )
        self.x_gm, self.y_gm, self.z_gm = A.GlobalTensor(half), A.GlobalTensor(half), A.GlobalTensor(half)
        self.single_core_m = self.single_core_n = self.total_elements_per_core = 0

    def Init(self, x: rs.GmPtr[rs.uint8], y: rs.GmPtr[rs.uint8], z: rs.GmPtr[rs.uint8]) -> None:
        assert self.split_n == 1, "This optimized sample expects splitN == 1 for contiguous row-wise DataCopy."
        block_idx = A.GetBlockIdx()
        block_idx_m = block_idx
        base_core_m = self.total_m // self.split_m
        remainder_m = self.total_m % self.split_m
        if block_idx_m < remainder_m:
            actual_core_m = base_core_m + 1
            start_m = block_idx_m * actual_core_m
        else:
            actual_core_m = base_core_m
            start_m = remainder_m * (base_core_m + 1) + (block_idx_m - remainder_m) * base_core_m
        self.single_core_m = actual_core_m
        self.single_core_n = self.total_n
        self.total_elements_per_core = self.single_core_m * self.single_core_n
        self.x_gm.SetGlobalBuffer(x.reinterpret(half) + start_m * self.total_n, self.total_elements_per_core)
        self.y_gm.SetGlobalBuffer(y.reinterpret(half) + start_m * self.total_n, self.total_elements_per_core)
        self.z_gm.SetGlobalBuffer(z.reinterpret(half) + start_m * self.total_n, self.total_elements_per_core)

    def Process(self) -> None:
        # VECCALC 在硬件上映射为 UB
        x_local = A.LocalTensor(half, A.TPosition.VECCALC, X_ADDR, MAX_DATA_COPY_LEN)
        y_local = A.LocalTensor(half, A.TPosition.VECCALC, Y_ADDR, MAX_DATA_COPY_LEN)
        z_local = A.LocalTensor(half, A.TPosition.VECCALC, Z_ADDR, MAX_DATA_COPY_LEN)

        total_blocks = self.GetTotalBlocks()

        for loop_idx in range(total_blocks):
            start_element = loop_idx * self.data_copy_len
            remain_elements = self.total_elements_per_core - start_element
            cur_len = self.data_copy_len if remain_elements > self.data_copy_len else remain_elements

            if loop_idx != 0:
                A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE2)

            A.DataCopy(x_local, self.x_gm[start_element], cur_len)
            A.DataCopy(y_local, self.y_gm[start_element], cur_len)

            A.SetFlag(A.EVENT_ID0, event=HE.MTE2_V)
            A.WaitFlag(A.EVENT_ID0, event=HE.MTE2_V)

            if loop_idx != 0:
                A.WaitFlag(A.EVENT_ID0, event=HE.MTE3_V)

            A.Add(z_local, x_local, y_local, cur_len)

            if loop_idx != (total_blocks - 1):
                A.SetFlag(A.EVENT_ID0, event=HE.V_MTE2)
            A.SetFlag(A.EVENT_ID0, event=HE.V_MTE3)
            A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE3)

            A.DataCopy(self.z_gm[start_element], z_local, cur_len)

            if loop_idx != (total_blocks - 1):
                A.SetFlag(A.EVENT_ID0, event=HE.MTE3_V)

    def ProcessScalar(self) -> None:
        # VECCALC 在硬件上映射为 UB
        x_local = A.LocalTensor(half, A.TPosition.VECCALC, X_ADDR, MAX_DATA_COPY_LEN)
        y_local = A.LocalTensor(half, A.TPosition.VECCALC, Y_ADDR, MAX_DATA_COPY_LEN)
        z_local = A.LocalTensor(half, A.TPosition.VECCALC, Z_ADDR, MAX_DATA_COPY_LEN)

        total_loop = self.GetTotalBlocks()

        for loop_idx in range(total_loop):
            start_element = loop_idx * self.data_copy_len
            remain_elements = self.total_elements_per_core - start_element
            cur_len = self.data_copy_len if remain_elements > self.data_copy_len else remain_elements

            if loop_idx != 0:
                A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE2)

            A.DataCopy(x_local, self.x_gm[start_element], cur_len)
            A.DataCopy(y_local, self.y_gm[start_element], cur_len)
            A.SetFlag(A.EVENT_ID0, event=HE.MTE2_V)
            A.WaitFlag(A.EVENT_ID0, event=HE.MTE2_V)

            if loop_idx != 0:
                A.WaitFlag(A.EVENT_ID0, event=HE.MTE3_V)

            for i in range(cur_len):
                x_val = np.float32(x_local.GetValue(i))  # float xVal = (float)xLocal.GetValue(i);
                y_val = np.float32(y_local.GetValue(i))
                z_local.SetValue(i, np.float16(x_val + y_val))  # zLocal.SetValue(i, (half)(xVal + yVal));

            if loop_idx != (total_loop - 1):
                A.SetFlag(A.EVENT_ID0, event=HE.V_MTE2)
            A.SetFlag(A.EVENT_ID0, event=HE.V_MTE3)
            A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE3)

            A.DataCopy(self.z_gm[start_element], z_local, cur_len)
            if loop_idx != (total_loop - 1):
                A.SetFlag(A.EVENT_ID0, event=HE.MTE3_V)

    def ProcessSingle(self) -> None:
        # (the same body as Process, on one core)
        self.Process()

    def ProcessDoubleBuffer(self, addrs: tuple[int, ...] | None = None) -> None:
        # VECCALC 在硬件上映射为 UB
        x_ping_addr, y_ping_addr, z_ping_addr, x_pong_addr, y_pong_addr, z_pong_addr = addrs or PING_PONG_ADDRS
        x_ping = A.LocalTensor(half, A.TPosition.VECCALC, x_ping_addr, MAX_DATA_COPY_LEN)
        y_ping = A.LocalTensor(half, A.TPosition.VECCALC, y_ping_addr, MAX_DATA_COPY_LEN)
        z_ping = A.LocalTensor(half, A.TPosition.VECCALC, z_ping_addr, MAX_DATA_COPY_LEN)
        x_pong = A.LocalTensor(half, A.TPosition.VECCALC, x_pong_addr, MAX_DATA_COPY_LEN)
        y_pong = A.LocalTensor(half, A.TPosition.VECCALC, y_pong_addr, MAX_DATA_COPY_LEN)
        z_pong = A.LocalTensor(half, A.TPosition.VECCALC, z_pong_addr, MAX_DATA_COPY_LEN)

        total_blocks = self.GetTotalBlocks()

        A.SetFlag(A.EVENT_ID0, event=HE.V_MTE2)
        A.SetFlag(A.EVENT_ID1, event=HE.V_MTE2)
        A.SetFlag(A.EVENT_ID0, event=HE.MTE3_V)
        A.SetFlag(A.EVENT_ID1, event=HE.MTE3_V)

        for loop_idx in range(total_blocks):
            start_element = loop_idx * self.data_copy_len
            remain_elements = self.total_elements_per_core - start_element
            cur_len = self.data_copy_len if remain_elements > self.data_copy_len else remain_elements

            event_id = A.EVENT_ID0 if (loop_idx & 1) == 0 else A.EVENT_ID1
            x_local = x_ping if (loop_idx & 1) == 0 else x_pong
            y_local = y_ping if (loop_idx & 1) == 0 else y_pong
            z_local = z_ping if (loop_idx & 1) == 0 else z_pong

            A.WaitFlag(event_id, event=HE.V_MTE2)

            A.DataCopy(x_local, self.x_gm[start_element], cur_len)
            A.DataCopy(y_local, self.y_gm[start_element], cur_len)

            A.SetFlag(event_id, event=HE.MTE2_V)
            A.WaitFlag(event_id, event=HE.MTE2_V)

            A.WaitFlag(event_id, event=HE.MTE3_V)

            A.Add(z_local, x_local, y_local, cur_len)

            A.SetFlag(event_id, event=HE.V_MTE2)

            A.SetFlag(event_id, event=HE.V_MTE3)
            A.WaitFlag(event_id, event=HE.V_MTE3)

            A.DataCopy(self.z_gm[start_element], z_local, cur_len)

            A.SetFlag(event_id, event=HE.MTE3_V)

        A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE2)
        A.WaitFlag(A.EVENT_ID1, event=HE.V_MTE2)
        A.WaitFlag(A.EVENT_ID0, event=HE.MTE3_V)
        A.WaitFlag(A.EVENT_ID1, event=HE.MTE3_V)

    def ProcessDoubleBufferL2Bypass(self) -> None:
        self.x_gm.SetL2CacheHint(A.CacheMode.CACHE_MODE_DISABLE)
        self.y_gm.SetL2CacheHint(A.CacheMode.CACHE_MODE_DISABLE)
        self.ProcessDoubleBuffer()

    def ProcessDoubleBufferBankConflict(self) -> None:
        self.x_gm.SetL2CacheHint(A.CacheMode.CACHE_MODE_DISABLE)
        self.y_gm.SetL2CacheHint(A.CacheMode.CACHE_MODE_DISABLE)
        # (the body of ProcessDoubleBuffer, on the bank-conflict-free addresses)
        self.ProcessDoubleBuffer(BANK_CONFLICT_ADDRS)

    def GetTotalBlocks(self) -> int:
        return -(-self.total_elements_per_core // self.data_copy_len)  # DivCeil(totalElementsPerCore, dataCopyLen)


X_ADDR: Final = 0
Y_ADDR: Final = MAX_DATA_COPY_LEN * SIZEOF_HALF
Z_ADDR: Final = Y_ADDR + MAX_DATA_COPY_LEN * SIZEOF_HALF

X_ADDR_PING: Final = 0
Y_ADDR_PING: Final = MAX_DATA_COPY_LEN * SIZEOF_HALF
Z_ADDR_PING: Final = Y_ADDR_PING + MAX_DATA_COPY_LEN * SIZEOF_HALF
X_ADDR_PONG: Final = Z_ADDR_PING + MAX_DATA_COPY_LEN * SIZEOF_HALF
Y_ADDR_PONG: Final = X_ADDR_PONG + MAX_DATA_COPY_LEN * SIZEOF_HALF
Z_ADDR_PONG: Final = Y_ADDR_PONG + MAX_DATA_COPY_LEN * SIZEOF_HALF
PING_PONG_ADDRS: Final = (X_ADDR_PING, Y_ADDR_PING, Z_ADDR_PING, X_ADDR_PONG, Y_ADDR_PONG, Z_ADDR_PONG)

X_ADDR_PING_BC: Final = 0
Y_ADDR_PING_BC: Final = BANK_CONFLICT_DATA_COPY_LEN * SIZEOF_HALF
X_ADDR_PONG_BC: Final = MAX_DATA_COPY_LEN * SIZEOF_HALF * 2
Y_ADDR_PONG_BC: Final = X_ADDR_PONG_BC + BANK_CONFLICT_DATA_COPY_LEN * SIZEOF_HALF
Z_ADDR_PING_BC: Final = MAX_DATA_COPY_LEN * SIZEOF_HALF * 4
Z_ADDR_PONG_BC: Final = Z_ADDR_PING_BC + BANK_CONFLICT_DATA_COPY_LEN * SIZEOF_HALF
BANK_CONFLICT_ADDRS: Final = (X_ADDR_PING_BC, Y_ADDR_PING_BC, Z_ADDR_PING_BC, X_ADDR_PONG_BC, Y_ADDR_PONG_BC, Z_ADDR_PONG_BC)


@rs.kernel
def add_custom(
    x: rs.GmPtr[rs.uint8],
    y: rs.GmPtr[rs.uint8],
    z: rs.GmPtr[rs.uint8],
    *,
    total_m: int,
    total_n: int,
    split_m: int,
    split_n: int,
    data_copy_len: int,
    scenario: int,
) -> None:
    A.InitSocState()
    op = KernelAdd(total_m=total_m, total_n=total_n, split_m=split_m, split_n=split_n, data_copy_len=data_copy_len)
    op.Init(x, y, z)
    if scenario == 0:
        op.ProcessScalar()
    elif scenario == 1:
        op.ProcessSingle()
    elif scenario == 4:
        op.ProcessDoubleBuffer()
    elif scenario == 5:
        op.ProcessDoubleBufferL2Bypass()
    elif scenario == 6:
        op.ProcessDoubleBufferBankConflict()
    else:
        op.Process()
    A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)


def run_case(
    scenario: int,
    x: npt.NDArray[np.float16],
    y: npt.NDArray[np.float16],
    split_m: int,
    data_copy_len: int,
    workers: int | None = None,
) -> npt.NDArray[np.float16]:
    """main() for one case: z from add_custom<M, N, splitM, 1, dataCopyLen><<<splitM>>>(x, y, z), in a 256 KiB UB."""
    total_m, total_n = x.shape
    z = np.zeros_like(x)
    with rs.configure(ub_size=UB_SIZE):
        rs.launch(
            add_custom,
            split_m,
            x,
            y,
            z,
            total_m=total_m,
            total_n=total_n,
            split_m=split_m,
            split_n=1,
            data_copy_len=data_copy_len,
            scenario=scenario,
            workers=workers,
        )
    return z


#: run()'s shapes: case -> (rows, columns, splitM): the multi-core cases on 4 cores of 4 rows of 8192, so that
#: each core copies 8 tiles of 4096 or 2 of 21760 (ping and pong)
SHAPES: Final = {
    0: (2, 256, 1),
    1: (4, 4096, 1),
    2: (16, 8192, 4),
    3: (16, 8192, 4),
    4: (16, 8192, 4),
    5: (16, 8192, 4),
    6: (16, 8192, 4),
}


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    out = {}
    for scenario, (rows, cols, split_m) in SHAPES.items():
        x = rng.uniform(1, 100, [rows, cols]).astype(np.float16)
        y = rng.uniform(1, 100, [rows, cols]).astype(np.float16)
        z = run_case(scenario, x, y, split_m, CASES[scenario][2])
        out[f"case {scenario}: z = x + y ({rows} x {cols}, {split_m} cores)"] = (z, x + y)
    return out
