"""Names the operator libraries' kernels use that the vendor's build declares, and constructs they use (found by the
inventory, bench/cpp_ops_inventory.py): AscendC's `int4b_t` (a data type regsim does not run: `IsSameType<U,
int4b_t>::value` is false for every element type), AscendC's `Conditional<c, A, B>::type` (std::conditional's), alias
templates (`template <typename T_Y> using YCopyDtype = ...;` used as `YCopyDtype<T_Y>` in a class and a VF), default
arguments of helpers and member functions (a call leaving them out: clang's unexposed default-argument expressions),
a parenthesized call as a statement (`(f(x));` from a macro) and the compiler's mask builtins `pset_b8(PAT_ALL)` and
`plt_b32(count, POST_UPDATE)` (the C API's `asc_create_mask_b8` and `asc_update_mask_b32`). One file, loaded once;
a kernel file: default arguments of a member function, a free helper called where another class has a member of
its name (an unqualified call does not find that member)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from tests.cpp_kernel_support import both_modes

SRC = """
template <typename U>
__simd_vf__ inline void QuantVF(__ubuf__ void* dst, __ubuf__ int32_t* flag)
{
    using yCopyDtype = std::conditional_t<IsSameType<U, int4b_t>::value, uint8_t, U>;
    flag[0] = IsSameType<U, int4b_t>::value ? 1 : 2;
    flag[1] = IsSameType<int4b_t, AscendC::int4b_t>::value ? 3 : 4;
    AscendC::Reg::RegTensor<yCopyDtype> r;
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<yCopyDtype>();
    AscendC::Reg::Duplicate(r, (yCopyDtype)sizeof(yCopyDtype), m);
    AscendC::Reg::StoreAlign((__ubuf__ yCopyDtype*)dst, r, m);
}

__simd_vf__ inline void MaskBuiltinsVF(__ubuf__ float* dst, __ubuf__ uint32_t* left, uint32_t n, uint16_t loops)
{
    AscendC::Reg::RegTensor<float> r;
    vector_bool all = pset_b8(PAT_ALL);
    vector_bool m;
    uint32_t count = n;
    for (uint16_t i = 0; i < loops; i++) {
        m = plt_b32(count, POST_UPDATE);
        AscendC::Reg::Duplicate(r, (float)(i + 1), all);
        AscendC::Reg::StoreAlign(dst + i * 64, r, m);
    }
    left[0] = count;
}

template <typename T_Y>
using YCopy = std::conditional_t<IsSameType<T_Y, int4b_t>::value, uint8_t, T_Y>;
template <typename A, typename B>
using Wider = std::conditional_t<(sizeof(A) > sizeof(B)), A, B>;

template <typename T>
class K {
public:
    using yT = YCopy<T>;
    template <typename U>
    __simd_vf__ static inline void AliasTemplateVF(__ubuf__ yT* dst, __ubuf__ int32_t* sz)
    {
        using W = Wider<U, yT>;
        dst[0] = (yT)sizeof(yT);
        sz[0] = (int32_t)sizeof(W);
    }
};

constexpr uint32_t kStep = 3;
__simd_callee__ inline void Fill(__ubuf__ float* dst, AscendC::Reg::MaskReg& m, uint16_t idx = 2,
    uint32_t stride = kStep * 2, float v = 1.5f, int8_t small = 300, __ubuf__ float* spare = nullptr)
{
    AscendC::Reg::RegTensor<float> r;
    AscendC::Reg::Duplicate(r, v + (float)(idx * stride) + (float)small, m);
    AscendC::Reg::StoreAlign(dst, r, m);
}

#define ONLY_IF(c, e) \\
    if constexpr (c) {  \\
        e;              \\
    }

__simd_vf__ inline void DefaultsVF(__ubuf__ float* dst)
{
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<float>();
    Fill(dst, m);
    Fill(dst + 64, m, 1);
    Fill(dst + 128, m, 1, 1);
    ONLY_IF(sizeof(float) == 4, (Fill(dst + 192, m, 0, 0, 7.0f, 0)));  // (a parenthesized call as a statement)
    ONLY_IF(sizeof(float) == 2, (Fill(dst, m, 0, 0, 9.0f, 0)));
}

template <typename S>
__simd_vf__ inline void ConditionalVF(__ubuf__ float* dst, S s)
{
    using calcT = typename Conditional<AscendC::IsSameType<S, int32_t>::value, int32_t,
        typename AscendC::Conditional<sizeof(S) == 2, half, float>::type>::type;
    calcT v = calcT(s);
    dst[0] = (float)(v / calcT(2));
    dst[1] = (float)sizeof(calcT);
}

__simd_vf__ inline void OtherModeVF(__ubuf__ float* dst, uint32_t n)
{
    uint32_t count = n;
    vector_bool m = plt_b32(count, MODE_ZEROING);
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    path: Path = cpp_source("names.asc", SRC)
    return rs.cpp.load(path)


@pytest.mark.parametrize("dtype", [rs.float32, rs.half, rs.int16, rs.uint8, rs.int32])
def test_int4b_t_is_no_element_type(mod: rs.cpp.CppModule, dtype: object) -> None:
    size = dtype.itemsize  # type: ignore[attr-defined]

    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        dst, flag = ub.alloc(dtype, 256 // size), ub.alloc(rs.int32, 8)
        mod.instantiate("QuantVF", U=dtype)(dst.GetPhyAddr(), flag.GetPhyAddr())
        return [dst.numpy(), flag.numpy()]

    dst, flag = both_modes(run)
    assert flag[:2].tolist() == [2, 3]  # U is not int4b_t; int4b_t is AscendC::int4b_t
    assert dst.tolist() == [size] * (256 // size)  # yCopyDtype is U: sizeof(U) in every lane


@pytest.mark.parametrize(("n", "loops"), [(100, 3), (64, 2), (0, 1), (200, 4)])
def test_the_compilers_mask_builtins(mod: rs.cpp.CppModule, n: int, loops: int) -> None:
    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        dst, left = ub.alloc(rs.float32, 64 * loops), ub.alloc(rs.uint32, 8)
        dst.set(np.full(64 * loops, -1, np.float32))
        mod.MaskBuiltinsVF(dst.GetPhyAddr(), left.GetPhyAddr(), n, loops)
        return [dst.numpy(), left.numpy()]

    dst, left = both_modes(run)
    # lane j of iteration i: written (i + 1) while fewer than n lanes came before it; the count drops 64 a step, to 0
    want = [float(i + 1) if i * 64 + j < n else -1.0 for i in range(loops) for j in range(64)]
    assert dst.tolist() == want
    assert int(left[0]) == max(n - 64 * loops, 0)


def test_another_mode_of_plt_is_refused(mod: rs.cpp.CppModule) -> None:
    dst = rs.UnifiedBuffer().alloc(rs.float32, 64)
    line = SRC[: SRC.index("plt_b32(count, MODE_ZEROING)")].count("\n") + 1
    want = rf"OtherModeVF does not parse:\n.*names\.asc:{line}: .*'__regsim_plt_b32_MODE_ZEROING'"
    with pytest.raises(rs.cpp.CppError, match=want):
        mod.OtherModeVF(dst.GetPhyAddr(), 3)


@pytest.mark.parametrize(
    ("dtype", "s", "want"), [(rs.int32, 7, [3.0, 4.0]), (rs.float32, 7.0, [3.5, 4.0]), (rs.half, 5.0, [2.5, 2.0])]
)
def test_ascendc_conditional(mod: rs.cpp.CppModule, dtype: object, s: float, want: list[float]) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.float32, 8)
        mod.instantiate("ConditionalVF", S=dtype)(dst.GetPhyAddr(), s)
        return dst.numpy()

    # calcT: int32_t for an int32 S (7 / 2 is 3), else half for a 2-byte S, float for another (exact halves)
    assert both_modes(run)[:2].tolist() == want


@pytest.mark.parametrize(("t", "u"), [(rs.int16, rs.float32), (rs.int32, rs.uint8), (rs.half, rs.int64)])
def test_alias_templates(mod: rs.cpp.CppModule, t: object, u: object) -> None:
    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        dst, sz = ub.alloc(t, 16), ub.alloc(rs.int32, 8)
        mod.instantiate("AliasTemplateVF", T=t, U=u)(dst.GetPhyAddr(), sz.GetPhyAddr())
        return [dst.numpy(), sz.numpy()]

    dst, sz = both_modes(run)
    size_t, size_u = t.itemsize, u.itemsize  # type: ignore[attr-defined]
    assert dst[0] == size_t  # yT = YCopy<T> is T
    assert sz[0] == max(size_t, size_u)  # Wider<U, yT>: the larger


def test_default_arguments(mod: rs.cpp.CppModule) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.float32, 256)
        mod.DefaultsVF(dst.GetPhyAddr())
        return dst.numpy()

    small = 300 - 256  # int8_t small = 300: converted to the parameter's type (wraps to 44)
    want = [1.5 + 2 * 6 + small, 1.5 + 1 * 6 + small, 1.5 + 1 * 1 + small, 7.0]  # idx * stride + v + small
    assert both_modes(run).reshape(4, 64).tolist() == [[w] * 64 for w in want]


KERNEL = """
using namespace AscendC;
template <typename T>
__aicore__ inline void LoadT(Reg::RegTensor<T>& dst, __ubuf__ T* src, Reg::MaskReg& m, uint32_t off)
{
    Reg::LoadAlign(dst, src + off);
}
template <typename T_SRC>
class Other {
public:
    template <typename T>
    __aicore__ inline void LoadT(Reg::RegTensor<T>& dst, __ubuf__ T* src, Reg::MaskReg& m, uint32_t off)
    {
        Reg::Duplicate(dst, (T)5, m);
    }
};


template <typename T>
class Shift {
public:
    __aicore__ inline void Run(GM_ADDR x, GM_ADDR y)
    {
        pipe.InitBuffer(buf, 64 * sizeof(T));
        xg.SetGlobalBuffer((__gm__ T*)x);
        yg.SetGlobalBuffer((__gm__ T*)y);
        LocalTensor<T> t = buf.template Get<T>();
        DataCopy(t, xg, 64);
        PipeBarrier<PIPE_ALL>();
        AddTo(t);
        AddTo(t, 0.5f, 16);
        PipeBarrier<PIPE_ALL>();
        DataCopy(yg, t, 64);
    }
    __aicore__ inline void AddTo(LocalTensor<T>& t, float a = 2.0f, uint32_t n = 48)
    {
        __ubuf__ T* p = (__ubuf__ T*)t.GetPhyAddr();
        __VEC_SCOPE__
        {
            uint32_t cnt = n;
            Reg::RegTensor<T> r;
            Reg::MaskReg m = Reg::UpdateMask<T>(cnt);
            LoadT<T>(r, p, m, 0);
            Reg::Adds(r, r, (T)a, m);
            Reg::StoreAlign(p, r, m);
        }
    }

private:
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    GlobalTensor<T> xg;
    GlobalTensor<T> yg;
};

__global__ __aicore__ void shifted(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    Shift<float> op;
    op.Run(x, y);
}
"""


def test_default_arguments_of_a_member_function_and_a_free_helper_not_another_classs_member() -> None:
    path = cpp_source("shift.cpp", KERNEL)
    k = rs.cpp.load(path).kernel("shifted")
    x = np.arange(64, dtype=np.float32)

    def run() -> np.ndarray:
        y = np.zeros_like(x)
        rs.launch(k, 1, x, y, np.zeros(32, np.uint8), np.zeros(32, np.uint8))
        return y

    # (LoadT<T>(...) in the class template: the free function, not Other's member of that name)
    # AddTo(t): 2.0 added to the first 48 lanes; AddTo(t, 0.5f, 16): 0.5 more to the first 16; the copy of 64 back
    want = x + np.where(np.arange(64) < 48, 2.0, 0.0) + np.where(np.arange(64) < 16, 0.5, 0.0)
    assert both_modes(run).tolist() == want.tolist()


SAME_NAME = """
template <typename T>
using RegTensor = AscendC::Reg::RegTensor<T>;

__simd_vf__ inline void SameNameVF(__ubuf__ float* dst)
{
    RegTensor<float> r;
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<float>();
    AscendC::Reg::Duplicate(r, 2.5f, m);
    AscendC::Reg::Adds(r, r, 1.0f, m);
    AscendC::Reg::StoreAlign(dst, r, m);
}
"""


def test_an_alias_template_named_as_the_type_it_aliases() -> None:
    """`template <typename T> using RegTensor = AscendC::Reg::RegTensor<T>;` (ops-nn's grouped_dynamic_mx_quant):
    the name inside the alias is the Reg type, not the alias again (it once recursed without end)."""
    path = cpp_source("same.asc", SAME_NAME)
    mod = rs.cpp.load(path)

    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.float32, 64)
        mod.SameNameVF(dst.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run).tolist() == [3.5] * 64
