"""More C++ the operator libraries' kernels use: constants computed by lambdas called where they are defined
(`static constexpr CastTrait t = [] { if constexpr (...) return ...; }();`), local integer constants as template
arguments (a block's constants end with it), class specializations used as type maps (`typename Map<U>::T`), and
in kernel class templates: member calls, member variables and traits clang leaves dependent (`q.template DeQue<T>()`,
`this->cfg_.count`), `auto` of their results, the enclosing function's constants in a `__VEC_SCOPE__` block; a
namespace alias of Reg (`namespace MA = AscendC::Reg;`). One file, loaded once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs

LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])

SRC = """
using namespace AscendC;
using namespace AscendC::Reg;

template <uint32_t N>
__simd_callee__ inline uint32_t Id()
{
    return N;
}

template <int MODE>
__simd_vf__ inline void RoundVF(__ubuf__ int32_t* dst, __ubuf__ float* src)
{
    static constexpr CastTrait trait = []() {
        if constexpr (MODE == 0) {
            return CastTrait{RegLayout::UNKNOWN, SatMode::SAT, MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_RINT};
        } else if constexpr (MODE == 1) {
            return CastTrait{RegLayout::UNKNOWN, SatMode::SAT, MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_FLOOR};
        } else {
            return CastTrait{RegLayout::UNKNOWN, SatMode::SAT, MaskMergeMode::ZEROING, AscendC::RoundMode::CAST_CEIL};
        }
    }();
    constexpr uint32_t kLanes = [] { return 256 / sizeof(float); }();
    RegTensor<float> x;
    RegTensor<int32_t> y;
    MaskReg m = CreateMask<float>();
    LoadAlign(x, src);
    Cast<int32_t, float, trait>(y, x, m);
    StoreAlign(dst, y, m);
    constexpr uint32_t k = 3;
    {
        constexpr uint32_t k = 5;
        dst[kLanes] = Id<k>();
    }
    dst[kLanes + 1] = Id<k>();  // the outer k again
}

template <int MODE>
__simd_vf__ inline void NoValueVF(__ubuf__ int32_t* dst)
{
    constexpr uint32_t k = []() {
        if constexpr (MODE == 0) {
            return 1u;
        }
    }();
    dst[0] = k;
}

template <typename T>
__simd_vf__ inline void NsAliasVF(__ubuf__ T* dst)
{
    namespace MA = AscendC::Reg;
    MA::RegTensor<T> r;
    MA::MaskReg m = MA::CreateMask<T>();
    MA::Duplicate(r, (T)3, m);
    MA::StoreAlign(dst, r, m);
}

template <typename U>
struct VciTypeGet;
template <>
struct VciTypeGet<uint32_t> {
    using T = int32_t;
};
template <>
struct VciTypeGet<uint16_t> {
    using T = int16_t;
};
template <typename U>
struct Twice {
    using T = U;
};

template <typename U>
__simd_vf__ inline void MapVF(__ubuf__ U* dst)
{
    using regType = typename VciTypeGet<U>::T;
    using same = typename Twice<U>::T;
    AscendC::Reg::RegTensor<regType> r;
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<regType>();
    AscendC::Reg::Arange(r, (regType)-3);
    AscendC::Reg::StoreAlign((__ubuf__ regType*)dst, r, m);
    dst[0] = (same)sizeof(regType);
}

struct RoundCfg {
    uint32_t count;
    float bias;
};

template <typename T, int MODE>
class KernelRound {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, uint32_t count)
    {
        cfg_.count = count;
        cfg_.bias = 0.5f;
        xGm.SetGlobalBuffer((__gm__ T*)x);
        yGm.SetGlobalBuffer((__gm__ int32_t*)y);
        pipe.InitBuffer(inQ, 1, 256);
        pipe.InitBuffer(outQ, 1, 256);
    }
    __aicore__ inline void Process()
    {
        auto xl = inQ.template AllocTensor<T>();
        DataCopy(xl, xGm, 64);
        inQ.EnQue(xl);
        auto xin = inQ.template DeQue<T>();
        auto yl = outQ.template AllocTensor<int32_t>();
        auto src = (__ubuf__ T*)xin.GetPhyAddr();
        __ubuf__ int32_t* dst = (__ubuf__ int32_t*)yl.GetPhyAddr();
        static constexpr Reg::CastTrait trait = []() {
            if constexpr (MODE == 0 && std::is_same<T, float>::value) {  // (a trait left dependent)
                return Reg::CastTrait{Reg::RegLayout::UNKNOWN, Reg::SatMode::SAT,
                    Reg::MaskMergeMode::ZEROING, RoundMode::CAST_FLOOR};
            } else {
                return Reg::CastTrait{Reg::RegLayout::UNKNOWN, Reg::SatMode::SAT,
                    Reg::MaskMergeMode::ZEROING, RoundMode::CAST_CEIL};
            }
        }();
        __VEC_SCOPE__
        {
            Reg::RegTensor<T> a;
            Reg::RegTensor<int32_t> b;
            uint32_t n = this->cfg_.count + Id<kExtra>();  // (a class's static constant as a template argument)
            Reg::MaskReg m = Reg::UpdateMask<T>(n);
            Reg::LoadAlign(a, src);
            Reg::Adds(a, a, (T)this->cfg_.bias, m);
            Reg::Cast<int32_t, T, trait>(b, a, m);
            Reg::StoreAlign(dst, b, m);
        }
        inQ.FreeTensor(xin);
        outQ.EnQue(yl);
        auto yout = outQ.template DeQue<int32_t>();
        DataCopy(yGm, yout, this->cfg_.count + kExtra);
        outQ.FreeTensor(yout);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    TQue<QuePosition::VECOUT, 1> outQ;
    GlobalTensor<T> xGm;
    GlobalTensor<int32_t> yGm;
    RoundCfg cfg_;
    constexpr static uint32_t kExtra = 8;
};

extern "C" __global__ __aicore__ void round_floor(GM_ADDR x, GM_ADDR y, uint32_t count)
{
    KernelRound<float, 0> op;
    op.Init(x, y, count);
    op.Process();
}

extern "C" __global__ __aicore__ void round_ceil(GM_ADDR x, GM_ADDR y, uint32_t count)
{
    KernelRound<float, 1> op;
    op.Init(x, y, count);
    op.Process();
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    path: Path = cpp_source("more.asc", SRC)
    return rs.cpp.load(path)


@LOOPS
@pytest.mark.parametrize(("mode", "rounding"), [(0, np.rint), (1, np.floor), (2, np.ceil)])
def test_a_lambda_constant_picks_the_cast_trait(mod: rs.cpp.CppModule, loops: str, mode: int, rounding: object) -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float32, 64), ub.alloc(rs.int32, 72)
    x = np.linspace(-7.5, 7.5, 64).astype(np.float32)  # halves (ties) and fractions of both signs
    src.set(x)
    with rs.configure(loops=loops):
        mod.instantiate("RoundVF", MODE=mode)(dst.GetPhyAddr(), src.GetPhyAddr())
    want = [int(v) for v in rounding(x.astype(np.float64))]  # type: ignore[operator]
    assert dst.numpy()[:64].tolist() == want
    assert dst.numpy()[64:66].tolist() == [5, 3]  # Id<k>() in the inner block, then the outer k


def test_a_lambda_returning_nothing_for_the_arguments_is_refused(mod: rs.cpp.CppModule) -> None:
    mod.instantiate("NoValueVF", MODE=0)  # (its branch returns)
    with pytest.raises(rs.cpp.CppError, match="lambda that returns no value"):
        mod.instantiate("NoValueVF", MODE=1)


@LOOPS
@pytest.mark.parametrize(("dtype", "reg_type"), [(rs.uint32, np.int32), (rs.uint16, np.int16)])
def test_a_class_specialization_as_a_type_map(mod: rs.cpp.CppModule, loops: str, dtype: object, reg_type: type) -> None:
    ub = rs.UnifiedBuffer()
    lanes = 256 // dtype.itemsize  # type: ignore[attr-defined]
    dst = ub.alloc(dtype, lanes)
    with rs.configure(loops=loops):
        mod.instantiate("MapVF", U=dtype)(dst.GetPhyAddr())
    got = dst.numpy().view(reg_type)
    assert got[0] == np.dtype(reg_type).itemsize  # (same)sizeof(regType): VciTypeGet<U>::T, then Twice<U>::T
    assert got[1:].tolist() == [i - 3 for i in range(1, lanes)]  # Arange from -3 in the mapped signed type


@LOOPS
@pytest.mark.parametrize(("kernel", "rounding"), [("round_floor", np.floor), ("round_ceil", np.ceil)])
def test_a_kernel_class_template_with_dependent_members(mod: rs.cpp.CppModule, loops: str, kernel: str, rounding: object) -> None:
    x = np.linspace(-7.5, 7.5, 64).astype(np.float32)
    y = np.full(64, 99, np.int32)
    with rs.configure(loops=loops):
        rs.launch(mod.kernel(kernel), 1, x, y, 32)  # (count 32 + kExtra 8 elements)
    want = rounding(x[:40].astype(np.float64) + 0.5)  # type: ignore[operator]
    assert y[:40].tolist() == [int(v) for v in want]  # x + cfg_.bias, cast with the lambda's trait
    assert y[40:].tolist() == [99] * 24  # cfg_.count elements copied out


@LOOPS
def test_a_namespace_alias_of_reg(mod: rs.cpp.CppModule, loops: str) -> None:
    ub = rs.UnifiedBuffer()
    dst = ub.alloc(rs.int16, 128)
    with rs.configure(loops=loops):
        mod.instantiate("NsAliasVF", T=rs.int16)(dst.GetPhyAddr())
    assert dst.numpy().tolist() == [3] * 128  # MA::Duplicate(r, 3) under MA::CreateMask: every lane
