"""C++ the operator libraries' kernels use: local type aliases (`std::conditional_t`, nested, `typedef`), `auto`,
functional casts `T(x)`, constant arrays (local and global), `using namespace` and local struct definitions inside
a function, `.reg[k]` of a two-register tensor, explicit specializations each running its own body."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs

LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])

SRC = """
constexpr int32_t kSteps[4] = {1, 2, 4, 8};

template <typename T>
__simd_vf__ inline void ConstructsVF(__ubuf__ T* dst, __ubuf__ int32_t* out, uint32_t n)
{
    using namespace AscendC::Reg;
    using RT = std::conditional_t<sizeof(T) <= sizeof(int16_t), int16_t,
        typename std::conditional<std::is_same_v<T, float>, uint32_t, int64_t>::type>;
    typedef T VT;
    struct Unused { uint32_t a; };
    constexpr uint32_t kTable[3] = {3, 5, 7};
    auto k = n + T(2);
    dst[0] = T(k) + VT(kTable[n]);
    for (uint16_t i = 0; i < 4; i++) {
        out[i] = kSteps[i] * (int32_t)sizeof(RT);
    }
    RegTensor<RT> r;
    MaskReg m = CreateMask<RT>();
    Duplicate(r, (RT)7, m);
    StoreAlign((__ubuf__ RT*)(dst + 32 / sizeof(T)), r, m);
}

__simd_vf__ inline void TwoVF(__ubuf__ uint64_t* src, __ubuf__ uint32_t* dst)
{
    AscendC::Reg::RegTensor<uint64_t, AscendC::Reg::RegTraitNumTwo> x;
    AscendC::Reg::RegTensor<uint32_t> y;
    AscendC::Reg::MaskReg m = AscendC::Reg::CreateMask<uint32_t>();
    AscendC::Reg::LoadAlign(x, src);
    AscendC::Reg::Adds(y, (AscendC::Reg::RegTensor<uint32_t>&)x.reg[1], 1u, m);
    AscendC::Reg::StoreAlign(dst, y, m);
}

template <typename T>
__simd_vf__ inline void FillVF(__ubuf__ T* dst);
template <>
__simd_vf__ inline void FillVF<float>(__ubuf__ float* dst)
{
    for (uint16_t i = 0; i < 4; i++) {
        dst[i] = 1.0f;
    }
}
template <>
__simd_vf__ inline void FillVF<half>(__ubuf__ half* dst)
{
    for (uint16_t i = 0; i < 4; i++) {
        dst[i] = (half)2.0f;
    }
}
"""


@pytest.fixture
def mod() -> rs.cpp.CppModule:
    path = cpp_source("constructs.asc", SRC)
    return rs.cpp.load(path)


@LOOPS
@pytest.mark.parametrize(("dtype", "rt", "rt_np"), [(rs.float32, rs.uint32, np.uint32), (rs.int16, rs.int16, np.int16)])
def test_aliases_auto_casts_and_arrays(mod: rs.cpp.CppModule, loops: str, dtype: object, rt: object, rt_np: type) -> None:
    vf = mod.instantiate("ConstructsVF", T=dtype)
    ub = rs.UnifiedBuffer()
    elems = 256 // dtype.itemsize  # type: ignore[attr-defined]
    dst, out = ub.alloc(dtype, elems * 2), ub.alloc(rs.int32, 8)
    dst.set(np.zeros(elems * 2, dtype.np_dtype))  # type: ignore[attr-defined]
    out.set(np.zeros(8, np.int32))
    with rs.configure(loops=loops):
        vf(dst.GetPhyAddr(), out.GetPhyAddr(), 1)
    got = dst.numpy()
    assert got[0] == (1 + 2) + 5  # T(n + T(2)) + T(kTable[1])
    size = rt.itemsize  # type: ignore[attr-defined]
    assert out.numpy()[:4].tolist() == [s * size for s in (1, 2, 4, 8)]
    tail = got.view(np.uint8)[32 : 32 + 256].view(rt_np)
    assert tail.tolist() == [7] * (256 // size)  # RT's register: Duplicate(7) under an all-true mask


@LOOPS
def test_reg_k_of_a_two_register_tensor(mod: rs.cpp.CppModule, loops: str) -> None:
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.uint64, 64), ub.alloc(rs.uint32, 64)
    words = (np.arange(64, dtype=np.uint64) << np.uint64(32)) + np.uint64(5)
    src.set(words)
    with rs.configure(loops=loops):
        mod.TwoVF(src.GetPhyAddr(), dst.GetPhyAddr())
    assert dst.numpy().tolist() == [int(w >> 32) + 1 for w in words]  # reg[1]: the high words


@LOOPS
def test_explicit_specializations_each_run_their_own_body(mod: rs.cpp.CppModule, loops: str) -> None:
    ub = rs.UnifiedBuffer()
    f, h = ub.alloc(rs.float32, 8), ub.alloc(rs.half, 16)
    f.set(np.zeros(8, np.float32))
    h.set(np.zeros(16, np.float16))
    with rs.configure(loops=loops):
        mod.FillVF[rs.float32](f.GetPhyAddr())
        mod.FillVF[rs.half](h.GetPhyAddr())
    assert f.numpy()[:4].tolist() == [1.0] * 4
    assert h.numpy()[:4].tolist() == [2.0] * 4


ALIASES = """
using Flt = float;
template <typename T>
class Kern {
public:
    using RangeType = std::conditional_t<sizeof(T) <= sizeof(int16_t), int16_t, int32_t>;
    typedef T DataT;
    template <typename U>
    __simd_vf__ static inline void AliasVF(__ubuf__ RangeType* dst, __ubuf__ Flt* f, __ubuf__ DataT* d)
    {
        for (uint16_t i = 0; i < 2; i++) {
            dst[i] = (RangeType)sizeof(RangeType);
            f[i] = (Flt)1.5f;
            d[i] = (Kern::DataT)DataT(3);  // (a class alias spelled with its class)
        }
    }
};
"""


@LOOPS
@pytest.mark.parametrize(("dtype", "range_type"), [(rs.float32, rs.int32), (rs.half, rs.int16)])
def test_the_type_aliases_of_a_class_and_a_namespace(loops: str, dtype: Any, range_type: Any) -> None:
    path = cpp_source("aliases.asc", ALIASES)
    vf = rs.cpp.load(path).instantiate("AliasVF", T=dtype, U=rs.int32)
    ub = rs.UnifiedBuffer()
    r, f, d = ub.alloc(range_type, 16), ub.alloc(rs.float32, 8), ub.alloc(dtype, 16)
    with rs.configure(loops=loops):
        vf(r.GetPhyAddr(), f.GetPhyAddr(), d.GetPhyAddr())
    assert r.numpy()[:2].tolist() == [range_type.itemsize] * 2
    assert f.numpy()[:2].tolist() == [1.5, 1.5]
    assert d.numpy()[:2].tolist() == [3, 3]


DEDUCED = """
#define IS_TENS ((N % 10) == 0)
template <typename T>
__simd_callee__ inline void Put(__ubuf__ T* p, uint32_t i)
{
    p[i] = (T)sizeof(T);
}

template <typename U, int N>
__simd_vf__ inline void DeduceVF(__ubuf__ U* a, __ubuf__ int8_t* b)
{
    for (uint16_t i = 0; i < 2; i++) {
        Put(a, i);  // T deduced from the pointer: U here, int8_t below
        Put(b, i);
    }
    if constexpr (IS_TENS) {
        a[2] = (U)1;
    } else {
        a[2] = (U)2;
    }
}
"""


@LOOPS
@pytest.mark.parametrize("n", [20, 21])
def test_deduced_helper_template_arguments_and_a_macro_condition(loops: str, n: int) -> None:
    path = cpp_source("deduce.asc", DEDUCED)
    vf = rs.cpp.load(path).instantiate("DeduceVF", U=rs.int32, N=n)
    ub = rs.UnifiedBuffer()
    a, b = ub.alloc(rs.int32, 8), ub.alloc(rs.int8, 32)
    with rs.configure(loops=loops):
        vf(a.GetPhyAddr(), b.GetPhyAddr())
    assert a.numpy()[:3].tolist() == [4, 4, 1 if n % 10 == 0 else 2]
    assert b.numpy()[:2].tolist() == [1, 1]


MORE = """
#define INFINITY (__builtin_inff())
const uint16_t XOR_B16 = (uint16_t(1) << 15);
const float kHalf = 0.5f;
template <typename T>
__simd_vf__ inline void MoreVF(__ubuf__ T* src, __ubuf__ uint16_t* out, __ubuf__ float32_t* f)
{
    auto p = (__ubuf__ T*)src;
    for (uint16_t i = 0; i < 2; i++) {
        auto q = p + i + 1;  // an auto pointer from an auto pointer
        out[i] = (uint16_t)q[0];
    }
    out[2] = XOR_B16;  // constants of non-int types, folded where they are read
    f[0] = INFINITY;
    f[1] = kHalf;
}
"""


@LOOPS
def test_constants_builtins_and_auto_pointers(loops: str) -> None:
    path = cpp_source("more.asc", MORE)
    ub = rs.UnifiedBuffer()
    src, out, f = ub.alloc(rs.int32, 8), ub.alloc(rs.uint16, 16), ub.alloc(rs.float32, 8)
    src.set(np.arange(8, dtype=np.int32) + 10)
    with rs.configure(loops=loops):
        rs.cpp.load(path).instantiate("MoreVF", T=rs.int32)(src.GetPhyAddr(), out.GetPhyAddr(), f.GetPhyAddr())
    assert out.numpy()[:3].tolist() == [11, 12, 1 << 15]
    assert f.numpy()[:2].tolist() == [float("inf"), 0.5]


TRAITS = """
template <typename T>
__simd_vf__ inline void TraitsVF(__ubuf__ int32_t* out)
{
    out[0] = std::is_integral_v<T> ? 1 : 0;
    out[1] = std::is_integral<T>::value ? 1 : 0;
    out[2] = std::is_floating_point_v<T> ? 1 : 0;
    if constexpr (std::is_integral_v<T>) {
        out[3] = 7;
    } else {
        out[3] = 9;
    }
    out[4] = std::is_integral_v<uint8_t> && !std::is_floating_point_v<int32_t> ? 1 : 0;
}
"""


@pytest.mark.parametrize(
    ("dtype", "want"),
    [(rs.int32, [1, 1, 0, 7, 1]), (rs.uint8, [1, 1, 0, 7, 1]), (rs.float32, [0, 0, 1, 9, 1]), (rs.half, [0, 0, 0, 9, 1])],
)
def test_integral_and_floating_point_traits(dtype: Any, want: list[int]) -> None:
    """`std::is_integral(_v)` and `std::is_floating_point(_v)` as the standard has them (half is neither: not one of
    its floating-point types), dependent (decided per instantiation) and not."""
    path = cpp_source("traits.asc", TRAITS)
    vf = rs.cpp.load(path).instantiate("TraitsVF", T=dtype)
    ub = rs.UnifiedBuffer()
    out = ub.alloc(rs.int32, 8)
    out.set(np.zeros(8, np.int32))
    vf(out.GetPhyAddr())
    assert out.numpy()[:5].tolist() == want
