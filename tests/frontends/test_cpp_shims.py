"""What kernels of the operator libraries take from headers regsim does not have: the aliases and constants of
the Reg headers (`Reg::UnalignReg`, `AscendC::VECTOR_REG_WIDTH`, `__local_mem__`, `mem_bar`, `float32_t`) and
the stand-ins of the libraries' helper headers (`Ops::Base::GetVRegSize()`, `platform::GetVRegSize()`,
`Ops::Base::CeilDiv`, `ops::CeilAlign`), in constants and at run time."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs

SRC = """
#include "kernel_operator.h"
#include "op_kernel/platform_util.h"
#include "op_kernel/math_util.h"
#include "../inc/platform.h"
#include "../inc/kernel_utils.h"
constexpr uint32_t VL_FP32 = Ops::Base::GetVRegSize() / sizeof(float32_t);
constexpr static uint32_t BLOCK = platform::GetUbBlockSize();

// copies n elements from src + 1 to dst + 1 (both off the 32-byte grid), through one UnalignReg each way
template <typename T>
__simd_vf__ inline void ShimVF(__local_mem__ T* dst, __local_mem__ T* src, __local_mem__ uint32_t* out, uint32_t n)
{
    constexpr uint32_t vl = AscendC::VECTOR_REG_WIDTH / sizeof(T);
    uint16_t loops = Ops::Base::CeilDiv(n, vl);
    AscendC::Reg::UnalignReg uin;
    AscendC::MicroAPI::UnalignReg uout;
    AscendC::Reg::RegTensor<T> x;
    __local_mem__ T* s = src + 1;
    __local_mem__ T* d = dst + 1;
    AscendC::Reg::LoadUnAlignPre(uin, s);
    for (uint16_t i = 0; i < loops; i++) {
        AscendC::Reg::LoadUnAlign(x, uin, s, vl);
        AscendC::Reg::StoreUnAlign(d, x, uout, vl);
    }
    AscendC::Reg::StoreUnAlignPost(d, uout, 0);
    mem_bar(VST_VLD);
    out[0] = loops;
    out[1] = VL_FP32 + BLOCK;
    out[2] = ops::CeilAlign(n, 32u) + Ops::Base::FloorDiv(n, 0u);  // a zero divisor gives the dividend back
    out[3] = AscendC::ONE_BLK_SIZE + platform::GetVRegSize();
}
"""


@pytest.mark.parametrize("loops", ["auto", "sequential"])
@pytest.mark.parametrize("n", [64, 100])
def test_header_aliases_constants_and_helper_stand_ins(loops: str, n: int) -> None:
    path = cpp_source("arch35/shim.h", SRC)
    vf = rs.cpp.load(path).instantiate("ShimVF", T=rs.float32)
    ub = rs.UnifiedBuffer()
    dst, src, out = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256), ub.alloc(rs.uint32, 8)
    x = np.arange(256, dtype=np.float32)
    src.set(x)
    dst.set(np.full(256, -1, np.float32))
    out.set(np.zeros(8, np.uint32))
    with rs.configure(loops=loops):
        vf(dst.GetPhyAddr(), src.GetPhyAddr(), out.GetPhyAddr(), n)
    copies = -(-n // 64) * 64  # whole registers of 64 floats: CeilDiv(n, 64) of them
    want = np.full(256, -1, np.float32)
    want[1 : 1 + copies] = x[1 : 1 + copies]
    np.testing.assert_array_equal(dst.numpy(), want)
    assert out.numpy()[:4].tolist() == [-(-n // 64), 64 + 32, -(-n // 32) * 32 + n, 32 + 256]
