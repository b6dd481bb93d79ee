"""C++ the operator libraries' 950 kernels use, found by the inventory (bench/cpp_ops_inventory.py): AscendC's scalar
bit counts (`ScalarCountLeadingZero`, `GetBitCount<1>` ...), a helper of one name and signature in two namespaces called
unqualified from a `__VEC_SCOPE__` block of a class in one of them (`GenDivisor` of avg_pool_v2_grad). One file, loaded
once; each VF run in both loop modes against per-lane Python ints."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from tests.cpp_kernel_support import both_modes

SRC = """
__simd_vf__ inline void BitCountVF(__ubuf__ int64_t* dst, __ubuf__ uint64_t* src, uint16_t n)
{
    for (uint16_t i = 0; i < n; i++) {
        uint64_t v = src[i];
        dst[5 * i] = AscendC::ScalarCountLeadingZero(v);
        dst[5 * i + 1] = CountLeadingZero(v);
        dst[5 * i + 2] = AscendC::GetBitCount<1>(v);
        dst[5 * i + 3] = ScalarGetCountOfValue<0>(v);
        dst[5 * i + 4] = 64 - ScalarCountLeadingZero(i);  // (an int, converted to uint64_t: the loop index's bits)
    }
}

__simd_vf__ inline void AbsVF(__ubuf__ int64_t* dst, int32_t x, int64_t y)
{
    dst[0] = __builtin_abs(x);  // (what the standard library's std::abs of an integer calls)
    dst[1] = __builtin_labs(y);
    dst[2] = __builtin_llabs(y - 1);
}

__simd_vf__ inline void NarrowBitCountVF(__ubuf__ int64_t* dst, int32_t x)
{
    dst[0] = ScalarCountLeadingZero(x);  // (a negative int32_t converts to uint64_t modulo 2**64)
    dst[1] = GetBitCount<1>(x);
}
"""


SRC += """
namespace Base {
template <typename T>
__simd_callee__ inline void Fill(Reg::RegTensor<T>& r, Reg::MaskReg& m) { Reg::Duplicate(r, (T)1, m); }
}  // namespace Base
namespace Nhwc {
using namespace Base;
template <typename T>
__simd_callee__ inline void Fill(Reg::RegTensor<T>& r, Reg::MaskReg& m) { Reg::Duplicate(r, (T)2, m); }

template <typename T>
class Pool {
public:
    __aicore__ inline void Run(__ubuf__ T* dst)
    {
        __VEC_SCOPE__
        {
            Reg::RegTensor<T> r;
            Reg::MaskReg m = Reg::CreateMask<T>();
            Fill<T>(r, m);  // Nhwc::Fill: the innermost namespace's hides Base's (C++'s unqualified lookup)
            Reg::StoreAlign(dst, r, m);
        }
    }
};
}  // namespace Nhwc

"""


SRC += """
template <typename T>
__simd_vf__ inline void AutoVF(__ubuf__ T* dst, __ubuf__ T* src, uint32_t n)
{
    auto* p = src + n;  // (a pointer C++ deduces: its element type T)
    const auto& k = n;
    auto q = p + k;
    Reg::RegTensor<T> r;
    Reg::MaskReg m = Reg::CreateMask<T>();
    Reg::LoadAlign(r, q);
    auto copy = r;  // (a copy of the register, not a second name of it)
    auto& same = r;  // (a second name of it)
    Reg::Adds(same, r, (T)1, m);
    Reg::Add(r, r, copy, m);
    Reg::StoreAlign(dst, r, m);
}

template <typename T>
__simd_vf__ inline void AutoRefAssignedVF(__ubuf__ T* dst, __ubuf__ T* src)
{
    Reg::RegTensor<T> r;
    Reg::RegTensor<T> s;
    Reg::MaskReg m = Reg::CreateMask<T>();
    Reg::LoadAlign(r, src);
    Reg::Adds(s, r, (T)1, m);
    auto& same = r;
    same = s;  // (assigned through the reference: s's value copied into r's register)
    Reg::StoreAlign(dst, r, m);
}

template <typename T>
__simd_vf__ inline void AutoNotPointerVF(__ubuf__ T* dst, uint32_t n)
{
    auto* p = (T)n;
}

template <typename T>
__simd_vf__ inline void AutoRefOfChangedVF(__ubuf__ T* dst, T x)
{
    const auto& k = x;
    x += (T)1;
    dst[0] = k;
}

template <typename U>
__simd_callee__ inline U Same(U x) { return x; }

template <typename T>
__simd_vf__ inline void AutoOfACallVF(__ubuf__ T* dst, T x)
{
    auto y = Same(x);  // (the type of a helper's result is not inferred)
    dst[0] = y;
}

template <typename U>
__simd_callee__ inline uint16_t Width(U x) { return (uint16_t)(sizeof(U) * 8); }

template <typename T>
__simd_vf__ inline void AutoOfKnownCallsVF(__ubuf__ int64_t* dst, T x)
{
    auto lz = 64 - ScalarCountLeadingZero(x);  // (an int64_t, also where clang left the call dependent)
    auto w = Width(x) * 1000;  // (uint16_t, promoted to int)
    dst[0] = lz;
    dst[1] = w;
}

template <typename ID_T>
using IdxReg = typename std::conditional<IsSameType<ID_T, int64_t>::value,
    Reg::RegTensor<int64_t, Reg::RegTraitNumTwo>, Reg::RegTensor<int32_t>>::type;
template <typename T>
using Wide = std::conditional_t<sizeof(T) <= 2, int32_t, int64_t>;

template <typename T>
__simd_vf__ inline void AliasTemplateVF(__ubuf__ int64_t* dst64, __ubuf__ int32_t* dst32, __ubuf__ int32_t* wide)
{
    IdxReg<T> r;  // (an alias template: a register pair for int64_t, one int32_t register otherwise)
    if constexpr (IsSameType<T, int64_t>::value) {
        Reg::MaskReg m = Reg::CreateMask<int64_t, Reg::MaskPattern::ALL, Reg::RegTraitNumTwo>();
        Reg::Arange(r, (int64_t)3);
        Reg::StoreAlign(dst64, r, m);
    } else {
        Reg::MaskReg m = Reg::CreateMask<int32_t>();
        Reg::Arange(r, (int32_t)3);
        Reg::StoreAlign(dst32, r, m);
    }
    Wide<T> w = (Wide<T>)sizeof(Wide<T>);
    wide[0] = (int32_t)w;
}

template <typename T, typename RegT>
__simd_callee__ inline void Twice(Reg::RegTensor<T>& dst, RegT& src, Reg::MaskReg& m)
{
    RegT tmp;  // (RegT: the argument's register type)
    Reg::Add(tmp, src, src, m);
    Reg::Muls(dst, tmp, (T)1, m);
}

template <typename T>
__simd_vf__ inline void DeducedRegVF(__ubuf__ T* dst, __ubuf__ T* src)
{
    Reg::RegTensor<T> r, out;
    Reg::MaskReg m = Reg::CreateMask<T>();
    Reg::LoadAlign(r, src);
    Twice<T>(out, r, m);
    Reg::StoreAlign(dst, out, m);
}

#include "../inc/platform.h"
__aicore__ inline constexpr uint32_t BlockBytes() { return 32U; }

template <typename T>
class PoolBase {
public:
    constexpr static uint32_t VecLen_ = platform::GetVRegSize() / sizeof(T);
    constexpr static uint32_t blocks_ = BlockBytes() / 8;  // (a helper of the file returning a constant: folded)
    using Wide = int64_t;
    constexpr static Wide big_ = (Wide)1 << 40;
    T scale_ = 3;
    uint32_t n_;
    __aicore__ inline void Half() { this->n_ = this->VecLen_ / 2; }
};

template <typename T>
class Derived : public PoolBase<T> {
public:
    __aicore__ inline void Run(__ubuf__ T* dst)
    {
        this->Half();  // (a member function of the base)
        uint32_t n = this->n_;
        __VEC_SCOPE__
        {
            Reg::RegTensor<T> r;
            uint32_t k = (uint32_t)this->VecLen_;
            uint32_t left = n;
            Reg::MaskReg m = Reg::UpdateMask<T>(left);
            Reg::Duplicate(r, this->scale_ + (T)k + (T)(this->big_ >> 40) + (T)this->blocks_, m);
            Reg::StoreAlign(dst, r, m);
        }
    }
};

// both classes' kernels in one: Nhwc::Pool<int32_t> writes y, Derived<int16_t> z
extern "C" __global__ __aicore__ void classes(GM_ADDR y, GM_ADDR z)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> bufY, bufZ;
    pipe.InitBuffer(bufY, 256);
    pipe.InitBuffer(bufZ, 256);
    AscendC::LocalTensor<int32_t> ty = bufY.Get<int32_t>();
    AscendC::LocalTensor<int16_t> tz = bufZ.Get<int16_t>();
    AscendC::Duplicate(tz, (int16_t)0, 128);
    AscendC::PipeBarrier<PIPE_ALL>();
    Nhwc::Pool<int32_t> pool;
    pool.Run((__ubuf__ int32_t*)ty.GetPhyAddr());
    Derived<int16_t> derived;
    derived.Run((__ubuf__ int16_t*)tz.GetPhyAddr());
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::GlobalTensor<int32_t> yGm;
    AscendC::GlobalTensor<int16_t> zGm;
    yGm.SetGlobalBuffer((__gm__ int32_t*)y);
    zGm.SetGlobalBuffer((__gm__ int16_t*)z);
    AscendC::DataCopy(yGm, ty, 64);
    AscendC::DataCopy(zGm, tz, 128);
}
"""


SRC += """
__simd_callee__ inline void Bump(__ubuf__ float* dst, Reg::RegTensor<float>& r, Reg::MaskReg& m)
{
    Reg::Adds(r, r, 1.0f, m);
    Reg::StoreAlign(dst, r, m);
}
__simd_callee__ inline void Bump(__ubuf__ int16_t* dst, Reg::RegTensor<int16_t>& r, Reg::MaskReg& m)
{
    Reg::Adds(r, r, (int16_t)2, m);
    Reg::StoreAlign(dst, r, m);
}
template <typename T>
__simd_callee__ inline void Bump(__ubuf__ T* dst, Reg::MaskReg& r, Reg::MaskReg& m) {}
__simd_callee__ inline void Scale(__ubuf__ float* dst, float x) { dst[0] = x; }
__simd_callee__ inline void Scale(__ubuf__ float* dst, int32_t x) { dst[0] = (float)(x + 1); }

template <typename T>
__simd_vf__ inline void OverloadByTypeVF(__ubuf__ T* dst, __ubuf__ T* src)
{
    Reg::RegTensor<T> r;
    Reg::MaskReg m = Reg::CreateMask<T>();
    Reg::LoadAlign(r, src);
    Bump(dst, r, m);  // (clang leaves it unresolved: the overload whose parameters take a RegTensor<T>)
}

template <typename T>
__simd_vf__ inline void AmbiguousVF(__ubuf__ float* dst, T x)
{
    Scale(dst, x);
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    path: Path = cpp_source("auto.asc", SRC)
    return rs.cpp.load(path)


def _clz(v: int) -> int:
    """The leading zero bits of a 64-bit value: counted one bit at a time from the top."""
    v &= (1 << 64) - 1
    n = 0
    while n < 64 and not v >> (63 - n) & 1:
        n += 1
    return n


def _ones(v: int) -> int:
    return sum(v >> k & 1 for k in range(64))


def test_the_scalar_bit_counts(mod: rs.cpp.CppModule) -> None:
    rng = np.random.default_rng(7)
    x = [0, 1, 2**63, 2**64 - 1, 0xFFFF, 0x0100000000000020, *(int(v) >> int(s) for v, s in zip(
        rng.integers(0, 2**63, 10, dtype=np.uint64) * 2 + 1, rng.integers(0, 64, 10), strict=True))]  # fmt: skip

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(rs.uint64, len(x)), ub.alloc(rs.int64, 5 * len(x))
        src.set(np.array(x, np.uint64))
        mod.instantiate("BitCountVF")(dst.GetPhyAddr(), src.GetPhyAddr(), len(x))
        return dst.numpy()

    want = [w for i, v in enumerate(x) for w in (_clz(v), _clz(v), _ones(v), 64 - _ones(v), 64 - _clz(i))]
    assert both_modes(run).tolist() == want


@pytest.mark.parametrize("x", [-1, -(2**31), 5, 2**31 - 1])
def test_a_scalar_bit_count_of_a_narrower_signed_int(mod: rs.cpp.CppModule, x: int) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.int64, 4)
        mod.instantiate("NarrowBitCountVF")(dst.GetPhyAddr(), x)
        return dst.numpy()

    assert both_modes(run)[:2].tolist() == [_clz(x % 2**64), _ones(x % 2**64)]


@pytest.mark.parametrize(("x", "y"), [(-5, -(2**40)), (7, 3), (-(2**31) + 1, 2**62)])
def test_the_integer_abs_builtins(mod: rs.cpp.CppModule, x: int, y: int) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.int64, 4)
        mod.instantiate("AbsVF")(dst.GetPhyAddr(), x, y)
        return dst.numpy()

    assert both_modes(run)[:3].tolist() == [x if x >= 0 else -x, y if y >= 0 else -y, (y - 1) if y >= 1 else 1 - y]


def test_a_bit_count_of_a_bit_value_other_than_0_or_1_is_refused() -> None:
    path = cpp_source("bad.asc", "__simd_vf__ inline void BadVF(__ubuf__ int64_t* dst) { dst[0] = GetBitCount<2>(5); }\n")
    with pytest.raises(rs.cpp.CppError, match=r"bad\.asc:1: GetBitCount<2> \(its countValue is 0 or 1\)"):
        rs.cpp.load(path).instantiate("BadVF")


def _classes(mod: rs.cpp.CppModule) -> list[np.ndarray]:
    y, z = np.zeros(64, np.int32), np.zeros(128, np.int16)
    rs.launch(mod.kernel("classes"), 1, y, z)
    return [y, z]


def test_a_helper_hidden_by_the_enclosing_namespaces_one_in_a_vec_scope(mod: rs.cpp.CppModule) -> None:
    assert both_modes(lambda: _classes(mod))[0].tolist() == [2] * 64  # Nhwc::Fill's 2, not Base::Fill's 1


@pytest.mark.parametrize("dtype", [rs.float32, rs.int16])
def test_auto_pointers_references_and_a_register_copy(mod: rs.cpp.CppModule, dtype: object) -> None:
    lanes = 256 // np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]
    x = (np.arange(2 * lanes) % 97 - 40).astype(dtype.name)  # type: ignore[attr-defined]

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(dtype, 2 * lanes), ub.alloc(dtype, lanes)
        src.set(x)
        mod.instantiate("AutoVF", T=dtype)(dst.GetPhyAddr(), src.GetPhyAddr(), 16)
        return dst.numpy()

    want = [2 * int(v) + 1 for v in x[32 : 32 + lanes]]  # src + 16 + 16; (r + 1, through its reference) + its copy
    assert both_modes(run).tolist() == want


@pytest.mark.parametrize("dtype", [rs.float32, rs.int16])
def test_an_auto_reference_to_a_register_assigned_copies_into_that_register(mod: rs.cpp.CppModule, dtype: object) -> None:
    lanes = 256 // np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]
    x = (np.arange(lanes) % 97 - 40).astype(dtype.name)  # type: ignore[attr-defined]

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(dtype, lanes), ub.alloc(dtype, lanes)
        src.set(x)
        mod.instantiate("AutoRefAssignedVF", T=dtype)(dst.GetPhyAddr(), src.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run).tolist() == [int(v) + 1 for v in x]  # r = s = src + 1, as C++'s operator= through `same`


def test_an_auto_pointer_of_a_scalar_is_refused(mod: rs.cpp.CppModule) -> None:
    want = r"auto\.asc:\d+: the variable p of type auto \* initialized with T \(not a pointer\)"
    with pytest.raises(rs.cpp.CppError, match=want):
        mod.instantiate("AutoNotPointerVF", T=rs.float32)


def test_a_const_auto_reference_to_a_variable_the_function_changes_is_refused(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(
        rs.cpp.CppError, match=r"auto\.asc:\d+: the reference k of type const auto & to x, which the function changes"
    ):
        mod.instantiate("AutoRefOfChangedVF", T=rs.float32)


def test_an_auto_whose_initializers_type_is_not_known_names_what_it_reads(mod: rs.cpp.CppModule) -> None:
    want = r"auto\.asc:\d+: a variable of type auto whose initializer's type is not known here \(it reads x\)"
    with pytest.raises(rs.cpp.CppError, match=want):
        mod.instantiate("AutoOfACallVF", T=rs.float32)


@pytest.mark.parametrize(("dtype", "x"), [(rs.int32, 5), (rs.int16, -1), (rs.uint8, 200)])
def test_auto_of_calls_whose_return_type_is_known(mod: rs.cpp.CppModule, dtype: object, x: int) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.int64, 4)
        mod.instantiate("AutoOfKnownCallsVF", T=dtype)(dst.GetPhyAddr(), x)
        return dst.numpy()

    bits = 8 * np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]
    assert both_modes(run)[:2].tolist() == [64 - _clz(x % 2**64), bits * 1000]


@pytest.mark.parametrize("dtype", [rs.float32, rs.int32])
def test_a_type_parameter_deduced_from_a_register_argument(mod: rs.cpp.CppModule, dtype: object) -> None:
    x = (np.arange(64) * 3 - 50).astype(dtype.name)  # type: ignore[attr-defined]

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(dtype, 64), ub.alloc(dtype, 64)
        src.set(x)
        mod.instantiate("DeducedRegVF", T=dtype)(dst.GetPhyAddr(), src.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run).tolist() == [2 * int(v) for v in x]


def test_members_of_a_dependent_base_class(mod: rs.cpp.CppModule) -> None:
    lanes = 256 // 2  # VecLen_ for int16_t; Half() sets n_ to half of it
    want = [3 + lanes + 1 + 4] * (lanes // 2) + [0] * (lanes // 2)  # scale_ + VecLen_ + (big_ >> 40) + blocks_
    assert both_modes(lambda: _classes(mod))[1].tolist() == want


@pytest.mark.parametrize(("dtype", "bump"), [(rs.float32, 1), (rs.int16, 2)])
def test_an_overload_picked_by_the_arguments_types(mod: rs.cpp.CppModule, dtype: object, bump: int) -> None:
    lanes = 256 // np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]
    x = (np.arange(lanes) * 5 - 100).astype(dtype.name)  # type: ignore[attr-defined]

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(dtype, lanes), ub.alloc(dtype, lanes)
        src.set(x)
        mod.instantiate("OverloadByTypeVF", T=dtype)(dst.GetPhyAddr(), src.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run).tolist() == [int(v) + bump for v in x]  # Bump's float overload adds 1, its int16_t one 2


def test_overloads_the_arguments_types_do_not_tell_apart_are_refused(mod: rs.cpp.CppModule) -> None:
    want = r"auto\.asc:\d+: the call of Scale, which has 2 overloads \(lines \d+, \d+\) .* the arguments' types tell apart"
    with pytest.raises(rs.cpp.CppError, match=want):  # (any scalar converts to float and to int32_t)
        mod.instantiate("AmbiguousVF", T=rs.float32)


@pytest.mark.parametrize(("dtype", "size"), [(rs.int64, 8), (rs.int16, 4)])
def test_alias_templates(mod: rs.cpp.CppModule, dtype: object, size: int) -> None:
    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        d64, d32, wide = ub.alloc(rs.int64, 64), ub.alloc(rs.int32, 64), ub.alloc(rs.int32, 8)
        mod.instantiate("AliasTemplateVF", T=dtype)(d64.GetPhyAddr(), d32.GetPhyAddr(), wide.GetPhyAddr())
        return [d64.numpy(), d32.numpy(), wide.numpy()]

    d64, d32, wide = both_modes(run)
    ramp = [3 + i for i in range(64)]
    assert (d64.tolist(), d32.tolist()) == ((ramp, [0] * 64) if dtype is rs.int64 else ([0] * 64, ramp))
    assert wide[0] == size  # sizeof(Wide<T>): int64_t for an 8-byte T, int32_t for a 2-byte one
