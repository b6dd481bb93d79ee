"""C++ the operator libraries' helpers use, found by the inventory (bench/cpp_ops_inventory.py): `__ubuf__ void*`
parameters cast to a typed pointer inside the helper, a namespace alias of an element type (`using computeType =
float;`) as a parameter's pointee and a register's element, and the standard library's logical traits
(`std::negation`, `std::conjunction`, `std::disjunction`) in `if constexpr`, helpers of one name in two namespaces
or with two arities called from a template (clang leaves those calls unresolved), default template arguments of
helpers (`template <bool NEED_MAX = true>`, `typename U = T`), local aliases of register types, a class's type
aliases in its member functions defined outside it, `auto` of a mask or address register a Reg function returns in
a template, a file's own traits (`IsSame<T, U>::value` by a partial specialization and integral-constant bases, explicit
specializations with a `value`), a cast of `r.reg[k]` whose type clang left dependent. One file, loaded once."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("clang.cindex")

from cpp_source_support import cpp_source

import regsim as rs
from regsim import errors
from tests.cpp_kernel_support import both_modes

SRC = """
using namespace AscendC;
namespace Pool {
using computeType = float;
}
using namespace Pool;
constexpr Reg::CastTrait kToHalf = {Reg::RegLayout::ZERO, Reg::SatMode::NO_SAT, Reg::MaskMergeMode::ZEROING,
    RoundMode::CAST_RINT};

template <typename T>
__simd_callee__ inline void StoreAs(__ubuf__ void* out, Reg::RegTensor<computeType>& src, Reg::MaskReg& m, uint32_t offset)
{
    if constexpr (std::is_same<T, half>::value) {
        Reg::RegTensor<half> h;
        Reg::Cast<half, float, kToHalf>(h, src, m);
        Reg::StoreAlign((__ubuf__ half*)out + offset, h, m);
    } else {
        Reg::StoreAlign(((__ubuf__ computeType*)(out)) + offset, src, m);
    }
}

__simd_callee__ inline void LoadIn(__ubuf__ computeType* in, Reg::RegTensor<computeType>& r)
{
    Reg::LoadAlign(r, in);
}

template <typename T>
__simd_vf__ inline void VoidVF(__ubuf__ T* dst, __ubuf__ computeType* src, uint32_t offset)
{
    Reg::RegTensor<computeType> r;
    Reg::MaskReg m = Reg::CreateMask<computeType>();
    LoadIn(src, r);
    Reg::Muls(r, r, (computeType)2.0f, m);
    StoreAs<T>(dst, r, m, offset);
}

__simd_vf__ inline void VoidEntryVF(__ubuf__ void* dst, __ubuf__ uint8_t* src)
{
    ((__ubuf__ uint8_t*)dst)[1] = src[0];
}

__simd_vf__ inline void VoidArithmeticVF(__ubuf__ void* dst)
{
    __ubuf__ void* p = dst + 4;
}

template <typename T>
__simd_vf__ inline void TraitsVF(__ubuf__ int32_t* dst)
{
    if constexpr (std::negation<std::is_same<T, float>>::value) {
        dst[0] = 1;
    } else {
        dst[0] = 2;
    }
    dst[1] = std::conjunction<std::is_same<T, half>, std::negation<std::is_same<T, float>>>::value ? 3 : 4;
    dst[2] = std::disjunction_v<std::is_same<T, int32_t>, std::is_same<T, half>> ? 5 : 6;
}
"""


SRC += """
namespace ops {
template <typename T>
__simd_callee__ inline void Put(__ubuf__ T* dst, uint32_t i) { dst[i] = (T)1; }
template <typename T>
__simd_callee__ inline void Put(__ubuf__ T* dst, uint32_t i, uint32_t k) { dst[i] = (T)k; }
}  // namespace ops
namespace ops_vf {
template <typename T>
__simd_callee__ inline void Put(__ubuf__ T* dst, uint32_t i) { dst[i] = (T)2; }
template <typename T>
__simd_vf__ inline void InnerVF(__ubuf__ T* dst)
{
    Put(dst, 0);  // ops_vf::Put: the caller's namespace
}
}  // namespace ops_vf
template <bool NEED_MAX = true, typename T = float, typename U = T>
__simd_callee__ inline void Pick(__ubuf__ T* dst, uint32_t i, T a, T b)
{
    U x = (U)(NEED_MAX ? (a > b ? a : b) : (a < b ? a : b));
    dst[i] = (T)sizeof(U) * (T)10 + (T)x;
}

template <typename U = float>
__simd_callee__ inline void Half(__ubuf__ int32_t* dst, U a) { dst[0] = (int32_t)(a / 2); }
__simd_vf__ inline void DeducedScalarVF(__ubuf__ int32_t* dst)
{
    Half(dst, 3);  // C++ deduces U = int (1), not the default float (1.5)
}

template <typename T>
__simd_vf__ inline void OverloadVF(__ubuf__ T* dst)
{
    ops::Put(dst, 0);
    ops_vf::Put(dst, 1);
    ops::Put(dst, 2, 7u);
    Pick(dst, 3, T(3), T(5));  // (T deduced from the pointer, U defaults to it)
    Pick<false>(dst, 4, T(3), T(5));
    Pick<false, T, int8_t>(dst, 5, T(3), T(5));
}
"""


SRC += """
template <typename T>
struct SignedOf {
    using type = typename std::conditional<std::is_same<T, uint32_t>::value, int32_t,
        typename std::conditional<std::is_same<T, uint16_t>::value, int16_t, T>::type>::type;
};

template <typename T>
__simd_vf__ inline void RegAliasVF(__ubuf__ T* dst, __ubuf__ T* signs)
{
    using RegT = typename std::conditional<sizeof(T) == sizeof(int64_t), Reg::RegTensor<T, Reg::RegTraitNumTwo>,
        Reg::RegTensor<T>>::type;
    using S = typename SignedOf<T>::type;
    RegT r;
    Reg::MaskReg m;
    if constexpr (sizeof(T) == sizeof(int64_t)) {
        m = Reg::CreateMask<T, Reg::MaskPattern::ALL, Reg::RegTraitNumTwo>();
    } else {
        m = Reg::CreateMask<T>();
    }
    Reg::Duplicate(r, (T)5, m);
    Reg::Adds((RegT&)r, r, (T)2, m);
    Reg::StoreAlign(dst, r, m);
    Reg::RegTensor<S> s;
    Reg::Arange(s, (S)-2);
    Reg::StoreAlign((__ubuf__ S*)signs, s, m);
}
"""


SRC += """
template <typename T>
__simd_vf__ inline void AutoAddrVF(__ubuf__ T* dst, __ubuf__ T* src, uint16_t n)
{
    Reg::RegTensor<T> r;
    auto m = Reg::CreateMask<T>();
    for (uint16_t i = 0; i < n; i++) {
        auto areg = Reg::CreateAddrReg<T>(i, 2 * 256 / sizeof(T));
        Reg::LoadAlign(r, src, areg);
        Reg::StoreAlign(dst, r, areg, m);
    }
}

template <typename T>
class Widen {
public:
    __aicore__ inline void Run(__ubuf__ T* dst);

private:
    using WideT = std::conditional_t<sizeof(T) <= sizeof(int16_t), int32_t, int64_t>;
};

template <typename T>
__aicore__ inline void Widen<T>::Run(__ubuf__ T* dst)
{
    __VEC_SCOPE__
    {
        Reg::RegTensor<WideT> w;
        Reg::MaskReg m = Reg::CreateMask<WideT>();
        Reg::Duplicate(w, (WideT)sizeof(WideT), m);
        Reg::StoreAlign((__ubuf__ WideT*)dst, w, m);
    }
}

extern "C" __global__ __aicore__ void widen_i16(GM_ADDR y)
{
    AscendC::TPipe pipe;
    AscendC::TBuf<AscendC::TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 256);
    AscendC::LocalTensor<int16_t> t = buf.Get<int16_t>();
    Widen<int16_t> op;
    op.Run((__ubuf__ int16_t*)t.GetPhyAddr());
    AscendC::PipeBarrier<PIPE_ALL>();
    AscendC::GlobalTensor<int16_t> yGm;
    yGm.SetGlobalBuffer((__gm__ int16_t*)y);
    AscendC::DataCopy(yGm, t, 128);
}
"""


SRC += """
namespace ops {
template <typename Tp, Tp v>
struct IntegralConstant {
    static constexpr Tp value = v;
};
using trueType = IntegralConstant<bool, true>;
using falseType = IntegralConstant<bool, false>;
template <typename, typename>
struct IsSame : public falseType {};
template <typename Tp>
struct IsSame<Tp, Tp> : public trueType {};
template <typename T>
struct IsFloat {
    static constexpr bool value = false;
};
template <>
struct IsFloat<float> {
    static constexpr bool value = true;
};
}  // namespace ops

template <typename T>
__simd_vf__ inline void UserTraitsVF(__ubuf__ int32_t* dst)
{
    dst[0] = ops::IsSame<T, half>::value ? 1 : 0;
    dst[1] = ops::IsFloat<T>::value ? 1 : 0;
    if constexpr (ops::IsSame<T, int32_t>::value) {
        dst[2] = 7;
    } else {
        dst[2] = 8;
    }
    dst[3] = std::negation<ops::IsSame<T, float>>::value ? 1 : 0;
}
"""


SRC += """
template <typename T>
__simd_vf__ inline void PairHalfVF(__ubuf__ int32_t* dst, __ubuf__ T* src)
{
    Reg::RegTensor<T, Reg::RegTraitNumTwo> pair;
    Reg::RegTensor<int32_t> lo;
    Reg::MaskReg m = Reg::CreateMask<int32_t>();
    Reg::LoadAlign(pair, src);
    lo = (Reg::RegTensor<int32_t>&)pair.reg[0];
    Reg::StoreAlign(dst, lo, m);
}

__simd_vf__ inline void Float16VF(__ubuf__ half* dst)
{
    Reg::RegTensor<float16_t> h;
    Reg::MaskReg m = Reg::CreateMask<float16_t>();
    Reg::Duplicate(h, (float16_t)1.5f, m);
    Reg::StoreAlign((__ubuf__ float16_t*)dst, h, m);
}
"""


@pytest.fixture(scope="module")
def mod() -> rs.cpp.CppModule:
    path: Path = cpp_source("inv.asc", SRC)
    return rs.cpp.load(path)


X = (np.arange(64, dtype=np.float32) - 20.5) / 3


def _run_void(mod: rs.cpp.CppModule, dtype: object, offset: int) -> np.ndarray:
    ub = rs.UnifiedBuffer()
    lanes = 128 if dtype is rs.half else 64
    src, dst = ub.alloc(rs.float32, 64), ub.alloc(dtype, lanes + offset)
    src.set(X)
    mod.instantiate("VoidVF", T=dtype)(dst.GetPhyAddr(), src.GetPhyAddr(), offset)
    return dst.numpy()


@pytest.mark.parametrize("offset", [0, 64])
def test_a_void_pointer_parameter_cast_to_float(mod: rs.cpp.CppModule, offset: int) -> None:
    got = both_modes(lambda: _run_void(mod, rs.float32, offset))
    assert got[offset:].tobytes() == (X.astype(np.float64) * 2).astype(np.float32).tobytes()  # exact: doubling
    assert not got[:offset].any()


def test_a_void_pointer_parameter_cast_to_half(mod: rs.cpp.CppModule) -> None:
    got = both_modes(lambda: _run_void(mod, rs.half, 0))
    want = (X.astype(np.float64) * 2).astype(np.float16)  # one rounding (to nearest even) of the exact double
    assert got[0::2].tobytes() == want.tobytes()  # RegLayout::ZERO: the even lanes, the odd ones zero
    assert not got[1::2].any()


def test_a_void_pointer_parameter_takes_any_pointer_but_no_scalar(mod: rs.cpp.CppModule) -> None:
    ub = rs.UnifiedBuffer()
    vf = mod.instantiate("VoidEntryVF")
    src = ub.alloc(rs.uint8, 32)
    src.set(np.full(32, 0x3C, np.uint8))
    for dtype in (rs.half, rs.int32):
        dst = ub.alloc(dtype, 32)
        vf(dst.GetPhyAddr(), src.GetPhyAddr())
        assert dst.numpy().view(np.uint8)[:3].tolist() == [0, 0x3C, 0]  # its byte 1, whatever the pointer's type
    with pytest.raises(errors.ParameterError, match=r"dst.*UbPtr\[any dtype\]"):
        vf(3, src.GetPhyAddr())


def test_arithmetic_on_a_void_pointer_is_refused(mod: rs.cpp.CppModule) -> None:
    with pytest.raises(rs.cpp.CppError, match=r"inv\.asc:\d+: arithmetic on a pointer to void"):  # (C++ refuses it)
        mod.instantiate("VoidArithmeticVF")


@pytest.mark.parametrize(("dtype", "want"), [(rs.float32, [2, 4, 6]), (rs.half, [1, 3, 5]), (rs.int32, [1, 4, 5])])
def test_the_logical_traits(mod: rs.cpp.CppModule, dtype: object, want: list[int]) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.int32, 8)
        mod.instantiate("TraitsVF", T=dtype)(dst.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run)[:3].tolist() == want  # decided per C++'s definitions, for each T


@pytest.mark.parametrize("dtype", [rs.int32, rs.int16])
def test_overloads_in_namespaces_and_default_template_arguments(mod: rs.cpp.CppModule, dtype: object) -> None:
    def run(vf: str) -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(dtype, 16)
        mod.instantiate(vf, T=dtype)(dst.GetPhyAddr())
        return dst.numpy()

    size = np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]
    assert both_modes(lambda: run("OverloadVF"))[:6].tolist() == [1, 2, 7, 10 * size + 5, 10 * size + 3, 13]
    assert both_modes(lambda: run("InnerVF"))[0] == 2


def test_a_default_is_not_used_for_a_parameter_cpp_deduces(mod: rs.cpp.CppModule) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.int32, 8)
        mod.instantiate("DeducedScalarVF")(dst.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run)[0] == 3 // 2  # U deduced as int from the argument 3: C's integer division


@pytest.mark.parametrize(("dtype", "signed"), [(rs.uint32, np.int32), (rs.uint16, np.int16), (rs.int64, np.int64)])
def test_register_type_aliases_and_a_member_alias_of_nested_conditionals(
    mod: rs.cpp.CppModule, dtype: object, signed: type
) -> None:
    lanes = 64 if dtype is rs.int64 else 256 // np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]

    def run() -> list[np.ndarray]:
        ub = rs.UnifiedBuffer()
        dst, signs = ub.alloc(dtype, lanes), ub.alloc(dtype, lanes)
        mod.instantiate("RegAliasVF", T=dtype)(dst.GetPhyAddr(), signs.GetPhyAddr())
        return [dst.numpy(), signs.numpy()]

    dst, signs = both_modes(run)
    assert dst.tolist() == [7] * lanes  # a two-register tensor for 8-byte T (std::conditional), one otherwise
    one = 256 // np.dtype(signed).itemsize  # (RegTensor<S>: one register)
    assert signs.view(signed)[:one].tolist() == [i - 2 for i in range(one)]  # SignedOf<T>::type: nested conditionals
    assert not signs[one:].any()


@pytest.mark.parametrize("dtype", [rs.float32, rs.int16])
def test_auto_of_a_mask_and_an_address_register(mod: rs.cpp.CppModule, dtype: object) -> None:
    size = np.dtype(dtype.name).itemsize  # type: ignore[attr-defined]
    lanes = 256 // size
    x = np.arange(4 * lanes).astype(dtype.name)  # type: ignore[attr-defined]

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(dtype, 4 * lanes), ub.alloc(dtype, 4 * lanes)
        src.set(x)
        mod.instantiate("AutoAddrVF", T=dtype)(dst.GetPhyAddr(), src.GetPhyAddr(), 2)
        return dst.numpy()

    got = both_modes(run)
    want = np.zeros_like(x)
    want[:lanes], want[2 * lanes : 3 * lanes] = x[:lanes], x[2 * lanes : 3 * lanes]  # every other register's lanes
    assert got.tobytes() == want.tobytes()


def test_a_class_alias_in_a_member_function_defined_outside_the_class(mod: rs.cpp.CppModule) -> None:
    def run() -> np.ndarray:
        y = np.zeros(128, np.int16)
        rs.launch(mod.kernel("widen_i16"), 1, y)
        return y

    assert both_modes(run).view(np.int32).tolist() == [4] * 64  # WideT: int32_t for a 2-byte T


@pytest.mark.parametrize(("dtype", "want"), [(rs.float32, [0, 1, 8, 0]), (rs.half, [1, 0, 8, 1]), (rs.int32, [0, 0, 7, 1])])
def test_a_files_own_traits(mod: rs.cpp.CppModule, dtype: object, want: list[int]) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.int32, 8)
        mod.instantiate("UserTraitsVF", T=dtype)(dst.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run)[:4].tolist() == want  # as C++ picks the specialization for each T


def test_a_cast_of_one_register_of_a_pair_in_a_template(mod: rs.cpp.CppModule) -> None:
    x = (np.arange(64, dtype=np.int64) - 20) * 0x1_0000_0003  # the high and low words differ

    def run() -> np.ndarray:
        ub = rs.UnifiedBuffer()
        src, dst = ub.alloc(rs.int64, 64), ub.alloc(rs.int32, 64)
        src.set(x)
        mod.instantiate("PairHalfVF", T=rs.int64)(dst.GetPhyAddr(), src.GetPhyAddr())
        return dst.numpy()

    want = [((int(v) & 0xFFFFFFFF) ^ 0x80000000) - 0x80000000 for v in x]  # reg[0]: each lane's low word, as int32
    assert both_modes(run).tolist() == want


def test_float16_t_is_half(mod: rs.cpp.CppModule) -> None:
    def run() -> np.ndarray:
        dst = rs.UnifiedBuffer().alloc(rs.half, 128)
        mod.instantiate("Float16VF")(dst.GetPhyAddr())
        return dst.numpy()

    assert both_modes(run).tobytes() == np.full(128, 1.5, np.float16).tobytes()
