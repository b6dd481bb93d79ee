"""The binding rule of host-side public functions and constructors (docs/cpp-to-python.md):
calls that do not bind and arguments of the wrong type are `rs.errors` errors naming the API and
the parameter; numpy integers are ints, bools are not counts; values must fit their dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import DTypeError, ParameterError, VfContextError

UB = rs.UnifiedBuffer(1024)
T32 = UB.alloc(rs.int32, 64)
LANES = [True] * 64


# --- calls that do not bind --------------------------------------------------------------------
MISUSES: dict[str, tuple[Callable[[], object], str]] = {
    "UnifiedBuffer unknown keyword": (lambda: rs.UnifiedBuffer(sise=1024), "UnifiedBuffer: sise = 1024 (an unknown keyword)"),
    "UnifiedBuffer extra": (lambda: rs.UnifiedBuffer(1024, 32), "UnifiedBuffer: arguments = 32 (extra positional)"),
    "alloc missing": (lambda: UB.alloc(rs.int32), "UnifiedBuffer.alloc: count = missing"),
    "alloc keyword": (lambda: UB.alloc(rs.int32, 8, positon=None), "UnifiedBuffer.alloc: positon = None (an unknown keyword)"),
    "alloc twice": (lambda: UB.alloc(rs.int32, 8, count=8), "UnifiedBuffer.alloc: count = given twice"),
    "set keyword": (lambda: T32.set([1], cats=True), "LocalTensor.set: cats = True"),
    "GetPhyAddr extra": (lambda: T32.GetPhyAddr(0), "LocalTensor.GetPhyAddr: arguments = 0 (extra positional)"),
    "RegTensor keyword": (lambda: Reg.RegTensor(rs.int32, trit=Reg.RegTraitNumOne), "RegTensor: trit = RegTraitNumOne"),
    "RegTensor missing": (lambda: Reg.RegTensor(), "RegTensor: dtype = missing"),
    "from_numpy keyword": (lambda: Reg.RegTensor.from_numpy(np.zeros(64, np.int32), dtyp=rs.int32), "RegTensor.from_numpy: dtyp"),
    "reinterpret keyword": (lambda: Reg.RegTensor(rs.int32).reinterpret(dtype=rs.uint32, trai=1), "RegTensor.reinterpret: trai"),
    "MaskReg extra": (lambda: Reg.MaskReg(1), "MaskReg: arguments = 1 (extra positional)"),
    "from_bits missing": (lambda: Reg.MaskReg.from_bits(), "MaskReg.from_bits: bits = missing"),
    "from_lanes keyword": (lambda: Reg.MaskReg.from_lanes(rs.int32, LANES, trat=None), "MaskReg.from_lanes: trat"),
    "lanes missing": (lambda: Reg.MaskReg().lanes(), "MaskReg.lanes: dtype = missing"),
    "Ref missing": (lambda: rs.Ref(), "Ref: value = missing"),
    "Ref extra": (lambda: rs.Ref(1, 2), "Ref: arguments = 2 (extra positional)"),
    "configure keyword": (lambda: rs.configure(mask_fil="group"), "configure: mask_fil = 'group' (an unknown keyword)"),
    "configure positional": (lambda: rs.configure(True), "configure: arguments = True (extra positional)"),
    "simd_vf missing": (lambda: rs.simd_vf(), "simd_vf: f = missing"),
    "configure type": (lambda: rs.configure(check_uninitialized="no").__enter__(), "configure: check_uninitialized = 'no'"),
    "LocalTensor missing": (lambda: rs.LocalTensor(UB, rs.int32), "LocalTensor: addr = missing"),
    "GetVecLen extra": (lambda: rs.GetVecLen(4), "GetVecLen: arguments = 4"),
    "assert_reg_equal keyword": (
        lambda: rs.testing.assert_reg_equal(Reg.RegTensor(rs.int32), [0] * 64, input={}),
        "testing.assert_reg_equal: input",
    ),
    "strategies keyword": (lambda: rst.registers(rs.int32, allow_nans=False), "strategies.registers: allow_nans"),
}


@pytest.mark.parametrize("case", MISUSES, ids=list(MISUSES))
def test_a_call_that_does_not_bind_is_a_parameter_error(case: str) -> None:
    call, start = MISUSES[case]
    with pytest.raises(ParameterError) as info:
        call()
    assert str(info.value).startswith(start), str(info.value)


def test_the_message_lists_the_parameters() -> None:
    with pytest.raises(ParameterError) as info:
        UB.alloc(rs.int32, 8, positon=None)  # type: ignore[call-arg]
    assert str(info.value) == (
        "UnifiedBuffer.alloc: positon = None (an unknown keyword); accepted: the parameters (dtype, count, position)"
        " (did you mean position=?)"
    )


def test_a_type_error_inside_a_call_that_binds_stays_what_it_is() -> None:
    from regsim._src.model.binding import host_api

    @host_api("f")
    def f(x: int) -> None:
        raise TypeError("from the body")

    with pytest.raises(TypeError, match="from the body") as info:
        f(1)
    assert not isinstance(info.value, ParameterError)
    with pytest.raises(ParameterError, match="f: x = missing"):
        f()  # type: ignore[call-arg]


# --- ints, numpy ints and bools ----------------------------------------------------------------
def test_numpy_integers_are_ints() -> None:
    ub = rs.UnifiedBuffer(np.int32(1024))
    t = ub.alloc(rs.uint32, np.int64(8))
    assert t.GetSize() == 8 and ub.size == 1024
    assert t[np.uint8(2)].addr == t.addr + 8
    p = t.GetPhyAddr()
    assert (p + np.int16(3)).addr == p.addr + 12 and (np.int64(3) + p).addr == p.addr + 12
    p[np.int64(1)] = 5
    assert p[np.uint64(1)] == 5
    assert Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo).reg[np.int8(1)].dtype is rs.uint64


@pytest.mark.parametrize(
    ("call", "start"),
    [
        (lambda: UB.alloc(rs.uint8, True), "UnifiedBuffer.alloc: count = True; accepted: an int in [1, inf]"),
        (lambda: UB.alloc(rs.uint8, 8.0), "UnifiedBuffer.alloc: count = 8.0"),
        (lambda: UB.alloc(rs.uint8, "8"), "UnifiedBuffer.alloc: count = '8'"),
        (lambda: UB.alloc(rs.uint8, 0), "UnifiedBuffer.alloc: count = 0"),
        (lambda: rs.UnifiedBuffer(True), "UnifiedBuffer: size = True"),
        (lambda: T32.GetPhyAddr() + True, "UbPtr +: n = True"),
        (lambda: T32.GetPhyAddr() + 1.0, "UbPtr +: n = 1.0"),
        (lambda: T32.GetPhyAddr() - "x", "UbPtr -: n = 'x'"),
        (lambda: T32.GetPhyAddr()[False], "UbPtr[]: index = False"),
        (lambda: T32["1"], "LocalTensor[]: offset = '1'"),
        (lambda: T32[64], "LocalTensor[]: offset = 64; accepted: an int in [0, 63]"),
        (lambda: rst.counts(rs.int32, max_value=-1), "strategies.counts: max_value = -1"),
    ],
)
def test_counts_are_ints_not_bools(call: Callable[[], object], start: str) -> None:
    with pytest.raises(ParameterError) as info:
        call()
    assert str(info.value).startswith(start), str(info.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: UB.alloc(np.float32, 8),
        lambda: Reg.RegTensor(np.int32),
        lambda: Reg.MaskReg.from_lanes("int32", LANES),
        lambda: Reg.MaskReg().lanes(int),
        lambda: T32.GetPhyAddr().reinterpret(np.uint8),
        lambda: T32.ReinterpretCast(np.float32),
    ],
)
def test_a_dtype_that_is_not_a_regsim_dtype_is_a_dtype_error(call: Callable[[], object]) -> None:
    with pytest.raises(DTypeError, match="a regsim dtype class"):
        call()


def test_a_trait_that_is_not_a_trait_is_a_parameter_error() -> None:
    with pytest.raises(ParameterError, match="RegTensor: trait = 2"):
        Reg.RegTensor(rs.int32, 2)  # type: ignore[arg-type]


# --- the registers of a tensor -----------------------------------------------------------------
@pytest.mark.parametrize("k", [2, -1, slice(0, 1), "0"])
def test_reg_index_out_of_range_is_a_parameter_error(k: Any) -> None:
    r = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    with pytest.raises(ParameterError, match=r"RegTensor\.reg\[\]: k = .*; accepted: an int in \[0, 1\]"):
        r.reg[k]
    with pytest.raises(ParameterError, match=r"accepted: an int in \[0, 0\]"):
        Reg.RegTensor(rs.uint32).reg[1]


# --- pointer arithmetic ------------------------------------------------------------------------
def test_pointer_difference_is_the_element_count_between_them() -> None:
    p = T32.GetPhyAddr()
    assert (p + 4) - p == 4 and p - (p + 4) == -4 and (p + 64) - p == 64
    assert (p - 2).addr == p.addr - 8 and (p + 5 - 5) == p
    assert T32[10].GetPhyAddr() - p == 10
    other = UB.alloc(rs.int32, 8).GetPhyAddr()
    assert other - p == 64  # two tensors of one UB: their distance in elements, as in C


def test_reinterpret_cast_views_the_same_bytes_as_another_type() -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.float32, 6)
    t.set(np.array([1.0, -2.0, 0.5, 3.0, 0.0, -0.0], np.float32))
    h = t[1].ReinterpretCast(rs.half)  # dstTensor[1].ReinterpretCast<half>(): 5 floats = 10 halves
    assert (h.dtype, h.addr, h.GetSize()) == (rs.half, t.addr + 4, 10)
    assert h.numpy().tobytes() == t.numpy()[1:].tobytes()
    assert t.ReinterpretCast(rs.uint8).GetSize() == 24 and t.ReinterpretCast(rs.float32).GetPhyAddr() == t.GetPhyAddr()
    u = ub.alloc(rs.int8, 7).ReinterpretCast(rs.int32)  # the bytes over sizeof(int32_t), rounded down
    assert u.GetSize() == 1
    h.set(np.array([0, 0x3C00], np.uint16).view(np.float16).astype(np.float32), cast=True)  # writes reach t
    assert t.numpy()[1] == np.array([0, 0x3C00], np.uint16).view(np.float32)[0]


@pytest.mark.parametrize(
    "q",
    [
        lambda p: p.reinterpret(rs.uint32) + 4,  # another type
        lambda p: rs.UnifiedBuffer(1024).alloc(rs.int32, 8).GetPhyAddr(),  # another UB
        lambda p: p.reinterpret(rs.uint8).__add__(2).reinterpret(rs.int32),  # not whole elements apart
    ],
    ids=["dtype", "ub", "partial element"],
)
def test_pointer_difference_refuses_pointers_of_another_type_or_ub(q: Callable[[Any], Any]) -> None:
    p = T32.GetPhyAddr()
    with pytest.raises(ParameterError, match=r"UbPtr -: other = .*a pointer of rs\.u?int32 into the same UB"):
        q(p) - p


# --- values that do not fit their dtype --------------------------------------------------------
@pytest.mark.parametrize(
    ("dtype", "values", "bad"),
    [
        (rs.half, [1.0, 70000.0], "70000.0"),  # beyond half's largest finite value, 65504
        (rs.float32, [1 + 2j], r"\(1\+2j\)"),  # an imaginary part
        (rs.float32, [0.1], "0.1"),  # a float64 that float32 rounds
        (rs.int8, [127, 128], "128"),
        (rs.uint16, [-1], "-1"),
        (rs.int32, [2**31], "2147483648"),
    ],
)
def test_set_refuses_values_the_dtype_does_not_hold(dtype: type[rs.DType], values: list[Any], bad: str) -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(dtype, 4)
    with pytest.raises(ParameterError, match=rf"LocalTensor\.set: value = {bad}; accepted: "):
        t.set(values)
    assert not ub.storage.data.any() and not ub.storage.valid.any()  # nothing written
    with pytest.raises(ParameterError, match=rf"RegTensor\.from_numpy: value = {bad}"):
        Reg.RegTensor.from_numpy(np.resize(np.array(values), 256 // dtype.itemsize), dtype=dtype)


def test_set_with_cast_converts_as_numpy_astype_does() -> None:
    t = rs.UnifiedBuffer(1024).alloc(rs.half, 3)
    t.set([70000.0, 0.1, -1e-9], cast=True)
    assert t.numpy().view(np.uint16).tolist() == [0x7C00, 0x2E66, 0x8000]  # inf, 0.1 rounded, -0.0
    f = rs.UnifiedBuffer(1024).alloc(rs.float32, 1)
    f.set([1 + 2j], cast=True)
    assert f.numpy().tolist() == [1.0]
    b = rs.UnifiedBuffer(1024).alloc(rs.int8, 2)
    b.set([128, -129], cast=True)
    assert b.numpy().tolist() == [-128, 127]  # wrapped modulo 2**8
    r = Reg.RegTensor.from_numpy([0.1] * 64, dtype=rs.float32, cast=True)
    assert r.numpy().view(np.uint32)[0] == 0x3DCCCCCD


def test_set_accepts_exact_values_of_any_type() -> None:
    t = rs.UnifiedBuffer(1024).alloc(rs.float32, 4)
    t.set([0.5, 2**24, -0.0, np.nan])
    assert t.numpy().view(np.uint32).tolist() == [0x3F000000, 0x4B800000, 0x80000000, 0x7FC00000]
    c = rs.UnifiedBuffer(1024).alloc(rs.complex64, 1)
    c.set([1.5 - 2j])
    assert c.numpy().tolist() == [1.5 - 2j]


@pytest.mark.parametrize("bits", [[2] + [0] * 255, [-1] + [0] * 255, [0.5] + [0] * 255])
def test_mask_bits_are_bools_or_0_and_1(bits: list[Any]) -> None:
    with pytest.raises(ParameterError, match=r"MaskReg\.from_bits: value = .*; accepted: bools, or the ints 0 and 1"):
        Reg.MaskReg.from_bits(bits)
    with pytest.raises(ParameterError, match=r"MaskReg\.from_lanes: value = "):
        Reg.MaskReg.from_lanes(rs.uint8, bits)
    ok = Reg.MaskReg.from_bits([1, 0] * 128)
    assert ok.bits().tolist() == [True, False] * 128


def test_from_bits_copies_the_callers_array() -> None:
    bits = np.zeros(256, np.bool_)
    m = Reg.MaskReg.from_bits(bits)
    bits[0] = True
    assert not m.bits().any()


# --- the UB size -------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [2**40, 2**31 + 32, 0, 1000])
def test_ub_size_is_bounded(size: int) -> None:
    with pytest.raises(ParameterError, match=rf"UnifiedBuffer: size = {size}; accepted: "):
        rs.UnifiedBuffer(size=size)


# --- running a VF ------------------------------------------------------------------------------
def test_asc_vf_call_of_a_plain_function_is_a_vf_context_error() -> None:
    def plain() -> None: ...

    with pytest.raises(VfContextError, match=r"asc_vf_call: F = .*plain; accepted: a function decorated with @rs\.simd_vf"):
        rs.asc_vf_call(plain)
    with pytest.raises(VfContextError, match="VF_CALL: F = "):
        rs.AscendC.VF_CALL(plain)
    ran = []
    rs.asc_vf_call(rs.simd_vf(lambda: ran.append(1)))
    assert ran == [1]


@pytest.mark.parametrize("values", ["abc", None, [object()]])
def test_values_that_are_not_numbers_are_a_dtype_error(values: Any) -> None:
    with pytest.raises(DTypeError, match=r"LocalTensor\.set: values\.dtype = .*; accepted: numbers for rs\.float32"):
        rs.UnifiedBuffer(1024).alloc(rs.float32, 4).set(values)
