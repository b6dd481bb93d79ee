"""C++ references and bit casts the operator libraries' helpers use, found by the inventory (bench/cpp_ops_inventory.py):
a register reference parameter assigned (a helper's result, a Reg function's mask, a view of one register of a pair),
passed on to a nested helper, a local register reference, a register taken by value and written (the helper's own
copy), scalar reference parameters read, written and passed on; bit casts of scalars through their address
(`*reinterpret_cast<const float*>(&FLOAT32_NEG_INF)`, `*(uint32_t*)&x`), and what C++ or regsim refuses. Each
against per-lane Python or numpy, in both loop modes. One file, loaded once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from tests.cpp_kernel_support import both_modes

SRC = """
using namespace AscendC;
using namespace AscendC::Reg;

__simd_callee__ inline void Bump(uint32_t& n, uint32_t k)
{
    n += k;
    n = n * 3u;
    n++;
}

__simd_callee__ inline void BumpTwice(uint32_t& n)
{
    Bump(n, 1);
    Bump(n, 0xFFFFFFFFu);
}

template <typename T>
__simd_callee__ inline RegTensor<T> Scaled(RegTensor<T>& x, T s, MaskReg& m)
{
    RegTensor<T> t;
    Muls(t, x, s, m);
    return t;
}

template <typename T>
__simd_callee__ inline void Head(MaskReg& m, uint32_t& count)
{
    m = UpdateMask<T>(count);
}

template <typename T>
__simd_callee__ inline void Scale(RegTensor<T>& dst, RegTensor<T>& x, MaskReg& m, T s)
{
    dst = Scaled<T>(x, s, m);
}

template <typename T>
__simd_callee__ inline void Pass(RegTensor<T>& dst, RegTensor<T>& x, MaskReg& m, T s)
{
    Scale<T>(dst, x, m, s);
}

template <typename T>
__simd_callee__ inline void Twice(RegTensor<T>& acc, RegTensor<T> v, MaskReg& m)
{
    Add(v, v, v, m);
    acc = v;
}

template <typename T>
__simd_vf__ inline void RefVF(__ubuf__ T* dst, __ubuf__ T* dst2, __ubuf__ T* src, __ubuf__ uint32_t* out,
    uint32_t count, uint16_t repeats, T s, uint32_t k)
{
    constexpr uint32_t VL = 256 / sizeof(T);
    RegTensor<T> x, y, z;
    MaskReg m;
    for (uint16_t i = 0; i < repeats; i++) {
        Head<T>(m, count);
        LoadAlign(x, src + i * VL);
        Pass<T>(y, x, m, s);
        RegTensor<T>& r = z;
        Twice<T>(r, y, m);
        StoreAlign(dst + i * VL, z, m);
        StoreAlign(dst2 + i * VL, y, m);
    }
    BumpTwice(k);
    out[0] = count;
    out[1] = k;
}

__simd_callee__ inline void LowHalf(RegTensor<int32_t>& dst, RegTensor<int64_t, RegTraitNumTwo>& wide)
{
    dst = (RegTensor<int32_t>&)wide.reg[0];
}

__simd_vf__ inline void PairVF(__ubuf__ int32_t* dst, __ubuf__ int64_t* src)
{
    RegTensor<int64_t, RegTraitNumTwo> w;
    RegTensor<int32_t> lo;
    MaskReg m = CreateMask<int32_t>();
    LoadAlign(w, src);
    LowHalf(lo, w);
    StoreAlign(dst, lo, m);
}

__simd_callee__ inline void NewAddr(AddrReg& a, uint16_t i)
{
    a = CreateAddrReg<float>(i, 64);
}

__simd_vf__ inline void AddrVF(uint16_t i)
{
    AddrReg a = CreateAddrReg<float>(i, 64);
    NewAddr(a, i);
}

__simd_callee__ inline void Accumulate(float& total, const float& v, const uint32_t& k)
{
    total += v * (float)k;
}

__simd_vf__ inline void ConstRefVF(__ubuf__ float* out, float x, uint32_t k)
{
    float total = 0.5f;
    Accumulate(total, x, k);
    Accumulate(total, x + 1.0f, k * 2u);
    out[0] = total;
}

constexpr uint32_t FLOAT32_NEG_INF = 0xFF800000;
const uint16_t HALF_NEG_INF = 0xFC00;
constexpr int32_t NEG_BITS = -2139095040;

template <typename T, typename U>
__simd_vf__ inline void BitsVF(__ubuf__ float* f, __ubuf__ uint32_t* u, __ubuf__ half* h, __ubuf__ U* w,
    float x, uint32_t b, uint16_t n)
{
    f[0] = *reinterpret_cast<const float*>(&FLOAT32_NEG_INF);
    f[1] = *(float*)&b;
    f[2] = *((const float*)(&NEG_BITS));
    u[0] = *reinterpret_cast<uint32_t*>(&x);
    float y = x * 3.0f;
    u[1] = *(uint32_t*)&y;
    u[2] = *(uint16_t*)&x;
    h[0] = *reinterpret_cast<const half*>(&HALF_NEG_INF);
    T t = (T)x;
    w[0] = *reinterpret_cast<U*>(&t);
    RegTensor<float> r;
    MaskReg m = CreateMask<float>();
    for (uint16_t i = 0; i < n; i++) {
        uint32_t bits = 0x3F800000u + i * 0x00100000u;
        Duplicate(r, *(float*)&bits, m);
        Adds(r, r, *reinterpret_cast<const float*>(&FLOAT32_NEG_INF), m);
        StoreAlign(f + 64 + i * 128, r, m);
        Duplicate(r, *(float*)&bits, m);
        StoreAlign(f + 128 + i * 128, r, m);
    }
}

__simd_callee__ inline void Keep(__ubuf__ uint32_t* p, uint32_t* q) {}

__simd_vf__ inline void AddressVF(__ubuf__ uint32_t* p, uint32_t b)
{
    Keep(p, &b);
}

__simd_vf__ inline void WideVF(__ubuf__ uint64_t* p, float x)
{
    p[0] = *(uint64_t*)&x;
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    path: Path = cpp_source("ref.asc", SRC)
    return rs.cpp.load(path)


def _bump(n: int, k: int) -> int:
    return ((n + k) % 2**32 * 3 + 1) % 2**32


@pytest.mark.parametrize(("dtype", "s"), [(rs.float32, 1.75), (rs.int32, -3)])
@pytest.mark.parametrize(("count", "repeats"), [(1200, 20), (5000, 17)])
def test_register_and_scalar_references_seen_by_the_caller(
    mod: rs.cpp.CppModule, dtype: object, s: float, count: int, repeats: int
) -> None:
    """Head assigns the caller's mask (UpdateMask through the caller's count, a scalar reference passed on), Pass
    hands y on to Scale, which assigns it a helper's result; Twice writes its by-value copy of y (the caller's y
    stays x * s) and assigns it to the caller's z through a local reference; BumpTwice's scalar reference wraps."""
    vl = 256 // dtype.itemsize  # type: ignore[attr-defined]
    npt = dtype.np_dtype  # type: ignore[attr-defined]
    src = ((np.arange(vl * repeats) * 7919) % 201 - 100).astype(npt)
    k = 0xFFFFFFF0

    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        d, d2, a, o = (
            ub.alloc(dtype, vl * repeats),
            ub.alloc(dtype, vl * repeats),
            ub.alloc(dtype, vl * repeats),
            ub.alloc(rs.uint32, 8),
        )
        d.set(np.full(vl * repeats, 9, npt))
        d2.set(np.full(vl * repeats, 9, npt))
        a.set(src)
        mod.instantiate("RefVF", T=dtype)(d.GetPhyAddr(), d2.GetPhyAddr(), a.GetPhyAddr(), o.GetPhyAddr(), count, repeats, s, k)
        return [d.numpy(), d2.numpy(), o.numpy()]

    dst, dst2, out = both_modes(run)
    for i in range(vl * repeats):
        active = i < count
        x = float(src[i]) if dtype is rs.float32 else int(src[i])
        y = npt.type(np.float32(np.float64(x) * s)) if dtype is rs.float32 else ((x * s + 2**31) % 2**32 - 2**31)
        z = npt.type(np.float32(np.float64(y) * 2)) if dtype is rs.float32 else ((y * 2 + 2**31) % 2**32 - 2**31)
        assert dst2[i] == (y if active else 9), i
        assert dst[i] == (z if active else 9), i
    assert out[0] == max(0, count - vl * repeats)
    assert out[1] == _bump(_bump(k, 1), 0xFFFFFFFF)


def test_a_reference_assigned_a_view_of_one_register_of_a_pair(mod: rs.cpp.CppModule) -> None:
    src = (np.arange(64, dtype=np.int64) - 30) * 0x1_0000_0003

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        d, a = ub.alloc(rs.int32, 64), ub.alloc(rs.int64, 64)
        a.set(src)
        mod.PairVF(d.GetPhyAddr(), a.GetPhyAddr())
        return d.numpy()

    want = [((int(v) & 0xFFFFFFFF) ^ 2**31) - 2**31 for v in src]  # each lane's low word (reg[0]), as int32
    assert both_modes(run).tolist() == want


def test_an_address_register_reference_assigned_is_refused(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(rs.cpp.CppError, match=r"ref\.asc:\d+: assigning the AddrReg reference a \(only RegTensor and MaskReg"):
        mod.AddrVF(1)


def test_a_float_reference_and_constant_references_bound_to_values(mod: rs.cpp.CppModule) -> None:
    """`float& total` is the caller's (written through); `const float& v` and `const uint32_t& k` take a variable or
    any value (`x + 1.0f`, `k * 2u`), as C++ binds a reference to a constant."""
    x, k = np.float32(1.3), 7
    out = rs.UnifiedBuffer().alloc(rs.float32, 8)
    mod.ConstRefVF(out.GetPhyAddr(), float(x), k)
    f = np.float32
    total = f(f(0.5) + f(x * f(k)))  # float32 after each operation
    total = f(total + f(f(x + f(1)) * f(2 * k)))
    assert out.numpy()[0] == total


def test_bit_casts_through_an_address(mod: rs.cpp.CppModule) -> None:
    x, b, n = np.float32(-1.3), 0x40490FDB, 17

    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        f, u, h, w = ub.alloc(rs.float32, 64 + 128 * n), ub.alloc(rs.uint32, 8), ub.alloc(rs.half, 16), ub.alloc(rs.int16, 16)
        mod.instantiate("BitsVF", T=rs.half, U=rs.int16)(
            f.GetPhyAddr(), u.GetPhyAddr(), h.GetPhyAddr(), w.GetPhyAddr(), float(x), b, n
        )
        return [f.numpy(), u.numpy(), h.numpy(), w.numpy()]

    f, u, h, w = both_modes(run)
    bits = lambda v, t: np.array([v]).astype(np.dtype(t)).view  # noqa: E731
    assert f[0] == -np.inf and f[1] == np.array([b], np.uint32).view(np.float32)[0]
    assert f[2].tobytes() == np.array([-2139095040], np.int32).tobytes()
    assert u[0] == np.array([x], np.float32).view(np.uint32)[0]
    assert u[1] == np.array([np.float32(np.float64(x) * 3)], np.float32).view(np.uint32)[0]
    assert u[2] == np.array([x], np.float32).view(np.uint16)[0]  # the low half of its bytes (little-endian)
    assert h[0] == -np.inf
    assert w[0] == bits(x, np.float16)(np.int16)[0]  # (T)x rounded to half once, its bits as int16
    each = (0x3F800000 + np.arange(n, dtype=np.uint32) * 0x00100000).astype(np.uint32).view(np.float32)  # per iteration
    lanes = f[64:].reshape(n, 2, 64)
    assert (lanes[:, 1] == each[:, None]).all() and (lanes[:, 0] == -np.inf).all()  # (each + -inf: -inf)


def test_an_address_kept_or_read_wider_is_refused(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(rs.cpp.CppError, match=r"ref\.asc:\d+: taking an address \(&\) other than for a bit cast"):
        mod.instantiate("AddressVF")
    with pytest.raises(rs.cpp.CppError, match=r"ref\.asc:\d+: the bit cast of float to the wider uint64_t"):
        mod.instantiate("WideVF")
