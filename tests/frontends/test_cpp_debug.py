"""printf and asc_dump from C++ VF source (regsim.cpp onto regsim._src.vf.debug).

The quoted kernels are regsim's own (they run without the devkit); the vendor's two examples,
simd_vf_printf.asc and simd_vf_dump.asc, run from their unmodified files when REGSIM_ASC_DEVKIT
names an asc-devkit checkout. Expected texts are written out by hand (the examples' README output,
C's printf and the DumpTensor page's format). Every kernel runs in both loop modes.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim.cpp import CppError

DEVKIT = os.environ.get("REGSIM_ASC_DEVKIT")
UTILS = "examples/01_simd_cpp_api/01_utilities/"
LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])

SOURCE = r"""
#include "kernel_operator.h"
#include "utils/debug/asc_printf.h"
#include "utils/debug/asc_dump.h"

template <typename T>
__simd_callee__ inline void Report(__ubuf__ T* p, uint32_t k)
{
    __ubuf__ const char* fmt = "callee: k=%u" " (%s)\n";
    printf(fmt, k, "two literals");
    asc_dump<T>(p + k, k, 2);
}

__simd_vf__ inline void PrintVF(__ubuf__ float* x, __ubuf__ half* h, uint32_t n)
{
    __ubuf__ const char* fmt = "int=%d, uint=%u, hex=%x, ptr=%p, float=%f, half=%f, str=%s\n";
    int32_t neg = -5;
    uint8_t small = 250;
    small += 10;  // wraps to 4
    printf(fmt, neg, small, -1, (void*)(uintptr_t)0x40, x[1], h[0], "ok");
    printf("long=%ld %llu, tab\\t%%, quote=\"\n", (int64_t)-3, (uint64_t)0xFFFFFFFFFFFFFFFFull);
    printf("no arguments\n");
    AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<float>();
    for (uint16_t i = 0; i < n; i++) {
        AscendC::Reg::RegTensor<float> r;
        AscendC::Reg::LoadAlign(r, x + i * 64);
        AscendC::Reg::Muls(r, r, 2.0f, mask);
        AscendC::Reg::StoreAlign(x + i * 64, r, mask);
        printf("repeat %u\n", i);
        asc_dump_reg<float>(r, i, 3);
    }
}

__simd_vf__ inline void DumpVF(__ubuf__ float* x, __ubuf__ int16_t* y)
{
    asc_dump_ubuf<float>(x, 1, 4);
    asc_dump<int16_t>(y, 2, 3);
    AscendC::Reg::RegTensor<int16_t> r;
    AscendC::Reg::Duplicate<int16_t>(r, (int16_t)-2);
    asc_dump<int16_t>(r, 3, 2);
    asc_dump_reg<uint32_t>(r, 4, 1);
    Report<float>(x, 1);
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    path = cpp_source("debug.asc", SOURCE)
    return rs.cpp.load(path)


@LOOPS
def test_printf_from_cpp_prints_as_c(mod: rs.cpp.CppModule, loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    ub = rs.UnifiedBuffer()
    x, h = ub.alloc(rs.float32, 128), ub.alloc(rs.half, 16)
    x.set(np.arange(128, dtype=np.float32) / 2)
    h.set(np.full(16, 0.1, np.float16))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        how = rs.explain(mod.instantiate("PrintVF").vf, x.GetPhyAddr(), h.GetPhyAddr(), 2)
    want = (
        "int=-5, uint=4, hex=ffffffff, ptr=0x40, float=0.500000, half=0.099976, str=ok\n"
        'long=-3 18446744073709551615, tab\\t%, quote="\n'
        "no arguments\n"
        "repeat 0\n"
        "DumpTensor: desc=0, addr=0x0, data_type=float32, position=REG, dump_size=3\n"
        "[0.000000, 1.000000, 2.000000]\n"
        "repeat 1\n"
        "DumpTensor: desc=1, addr=0x0, data_type=float32, position=REG, dump_size=3\n"
        "[64.000000, 65.000000, 66.000000]\n"
    )
    assert capsys.readouterr().out == want
    np.testing.assert_array_equal(x.numpy(), np.arange(128, dtype=np.float32))
    assert "sequential (2 iterations)" in how
    if loops == "auto":
        assert "printf prints inside the loop" in how


@LOOPS
def test_asc_dump_from_cpp_both_overloads_and_a_callee(
    mod: rs.cpp.CppModule, loops: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ub = rs.UnifiedBuffer()
    x, y = ub.alloc(rs.float32, 8), ub.alloc(rs.int16, 16)
    x.set([0.25, -1.5, 2.0, 1e6, 0, 0, 0, 0])
    y.set(np.array([-32768, 7, 32767] + [0] * 13, np.int16))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.DumpVF(x.GetPhyAddr(), y.GetPhyAddr())
    want = (
        "DumpTensor: desc=1, addr=0x0, data_type=float32, position=UB, dump_size=4\n"
        "[0.250000, -1.500000, 2.000000, 1000000.000000]\n"
        "DumpTensor: desc=2, addr=0x20, data_type=int16, position=UB, dump_size=3\n"
        "[-32768, 7, 32767]\n"
        "DumpTensor: desc=3, addr=0x0, data_type=int16, position=REG, dump_size=2\n"
        "[-2, -2]\n"
        "DumpTensor: desc=4, addr=0x0, data_type=uint32, position=REG, dump_size=1\n"
        "[4294901758]\n"  # two int16 -2 (0xFFFE) as one little-endian uint32: 0xFFFEFFFE
        "callee: k=1 (two literals)\n"
        "DumpTensor: desc=1, addr=0x4, data_type=float32, position=UB, dump_size=2\n"
        "[-1.500000, 2.000000]\n"
    )
    assert capsys.readouterr().out == want


def test_the_lowering_calls_the_public_functions(mod: rs.cpp.CppModule) -> None:
    source = mod.instantiate("DumpVF").source
    assert "rs.asc_dump_ubuf(v_x, _u32(1), _u32(4))" in source  # desc and dump_size are uint32_t
    assert "rs.asc_dump(rs.int16, v_r, _u32(3), _u32(2))" in source
    assert "rs.asc_dump_reg(rs.uint32, v_r, _u32(4), _u32(1))" in source


def test_a_dump_of_something_else_is_refused() -> None:
    path = cpp_source(
        "bad.asc",
        "__simd_vf__ inline void BadVF(__ubuf__ float* x)\n{\n    uint32_t k = 3;\n    asc_dump<uint32_t>(k, 1, 1);\n}\n",
    )
    with pytest.raises(CppError, match=r"bad\.asc:4: asc_dump of uint32_t \(a __ubuf__ pointer or a RegTensor\)"):
        rs.cpp.load(path).instantiate("BadVF")


# --- the vendor's examples, from their unmodified files ---------------------------------------------------
devkit = pytest.mark.skipif(not DEVKIT, reason="set REGSIM_ASC_DEVKIT to an asc-devkit checkout")


@devkit
@LOOPS
def test_simd_vf_printf_example_prints_its_readme_output(loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    mod = rs.cpp.load(Path(DEVKIT or ".") / UTILS / "00_printf/simd_vf_printf/simd_vf_printf.asc")
    # the kernel's host code: fixed inputs, AscendC::Add on the scalar side, PRINT_COUNT = 1
    ub = rs.UnifiedBuffer()
    x, y, z = (ub.alloc(rs.float32, 16) for _ in range(3))
    x.set(np.full(16, 1.25, np.float32))
    y.set(np.full(16, 10.0, np.float32))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        rs.AscendC.Add(z, x, y, 16)
        mod.SimdVfPrintFormat()
        mod.SimdVfPrintHexPtr()
        mod.SimdVfPrintStr()
        mod.SimdVfPrintAdd(x.GetPhyAddr(), y.GetPhyAddr(), z.GetPhyAddr(), 1)
    # the README's "执行结果" without its aicore-side AscendC::printf lines
    assert capsys.readouterr().out == (
        "[simd_vf] int=10, uint=20, float=3.140000, string=hello\n"
        "[simd_vf] hex=ff, ptr=0x12ff\n"
        "[simd_vf] This is a simd_vf printf demo string.\n"
        "[simd_vf] add[0]: 1.250000 + 10.000000 = 11.250000\n"
    )
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.SimdVfPrintAdd(x.GetPhyAddr(), y.GetPhyAddr(), z.GetPhyAddr(), 3)  # every element, in order
    assert capsys.readouterr().out == "".join(f"[simd_vf] add[{i}]: 1.250000 + 10.000000 = 11.250000\n" for i in range(3))


@devkit
@LOOPS
@pytest.mark.parametrize("seed", [0, 1])
def test_simd_vf_dump_example_dumps_its_input_and_registers(seed: int, loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    mod = rs.cpp.load(Path(DEVKIT or ".") / UTILS / "02_dump/simd_vf_dump/simd_vf_dump.asc")
    x = np.random.default_rng(seed).uniform(-10, 10, 32).astype(np.float32)  # gen_data.py's shape and dtype
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.float32, 32)
    t.set(x)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        mod.DumpUbufData(t.GetPhyAddr())
        mod.DumpRegData(t.GetPhyAddr())
        mod.DumpModifiedUbuf(t.GetPhyAddr())
        rs.AscendC.Adds(t, t, 1.0, 32)  # step 4 of the kernel: the output verify_result.py checks

    def values(v: np.ndarray) -> str:
        return "[" + ", ".join(f"{float(e):f}" for e in v) + "]\n"

    def header(n: int, pos: str) -> str:
        return f"DumpTensor: desc=5, addr=0x0, data_type=float32, position={pos}, dump_size={n}\n"

    assert capsys.readouterr().out == (
        header(32, "UB") + values(x)
        + header(16, "UB") + values(x[:16])
        + header(32, "REG") + values(np.full(32, 3.0))
        + header(16, "REG") + values(np.full(16, 4.0))
        + header(32, "UB") + values(x)
    )  # fmt: skip
    np.testing.assert_array_equal(t.numpy(), x + np.float32(1))  # gen_data.py's golden: x + 1
