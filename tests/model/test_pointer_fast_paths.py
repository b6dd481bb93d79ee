"""The hot paths of pointer arithmetic and `UbPtr.reinterpret` (fields set directly, no `host_api` wrapper), what
`LocalTensor.GetPhyAddr` gives, a one-register `RegTensor.reinterpret` (its views made inline) and a VF's arguments passed by
value (a pointer copied, a plain value kept, without a call). Each is checked against addresses worked out here and
against the general path it skips; every fallback (offsets out of the tensor, negative, not ints; calls that do not
bind; what is not a dtype; two-register tensors) gives what the general path gives."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import binding_error
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import RegTensor
from regsim.errors import DTypeError, ParameterError

UB = rs.UnifiedBuffer(2048)
T32 = UB.alloc(rs.float32, 100)  # (UB bytes [0, 400))
T16 = UB.alloc(rs.int16, 64)  # (UB bytes [416, 544): the next 32-byte block)
OTHER = rs.UnifiedBuffer(1024).alloc(rs.float32, 64)


def fields(p: UbPtr[Any]) -> tuple[Any, ...]:
    return p.ub, p.dtype, p.addr, p.lo, p.hi, p._sig


# --- GetPhyAddr ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("t", [T32, T16, OTHER, T32[7], T16.ReinterpretCast(rs.uint8)])
def test_get_phy_addr_is_the_tensor_start_bounded_by_the_tensor(t: LocalTensor[Any]) -> None:
    p = t.GetPhyAddr()
    size = t.dtype.itemsize
    assert fields(p) == (t.ub, t.dtype, t.addr, t.addr, t.addr + t.size * size, t.dtype._ptr_sig)
    assert p is not t.GetPhyAddr()  # (a new pointer each call: post-updates move one in place)


def test_get_phy_addr_keeps_its_signature_and_refuses_arguments_as_every_host_api() -> None:
    assert list(inspect.signature(LocalTensor.GetPhyAddr).parameters) == ["self"]
    sig = inspect.signature(LocalTensor.GetPhyAddr)
    for args, kwargs in (((1,), {}), ((), {"offset": 1})):
        with pytest.raises(ParameterError) as info:
            T32.GetPhyAddr(*args, **kwargs)
        assert str(info.value).startswith("LocalTensor.GetPhyAddr: ")
        assert str(info.value) == str(binding_error("LocalTensor.GetPhyAddr", sig, (T32, *args), kwargs))


# --- p + n --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 63, 99, 100, 1000, -1, -5, 2**40])  # (in the tensor, past its end, before it)
@pytest.mark.parametrize("t", [T32, T16])
def test_pointer_plus_an_int_moves_whole_elements_and_keeps_the_bounds(t: LocalTensor[Any], n: int) -> None:
    p = t.GetPhyAddr() + 3
    q = p + n
    want_addr = t.addr + (3 + n) * t.dtype.itemsize  # (bounds are checked by an access, not by arithmetic)
    assert fields(q) == (t.ub, t.dtype, want_addr, t.addr, t.addr + t.size * t.dtype.itemsize, t.dtype._ptr_sig)
    assert fields(q) == fields(UbPtr(p.ub, p.dtype, want_addr, p.lo, p.hi))  # (the constructor's pointer)
    assert fields(n + p) == fields(q) and fields(p - -n) == fields(q)
    assert q is not p and p.addr == t.addr + 3 * t.dtype.itemsize


@pytest.mark.parametrize("n", [np.int64(5), np.uint16(2)])
def test_pointer_plus_an_integer_that_is_not_an_int_takes_the_general_path(n: Any) -> None:
    q = T32.GetPhyAddr() + n
    assert type(q) is UbPtr and fields(q) == fields(T32.GetPhyAddr() + int(n))


@pytest.mark.parametrize(("n", "shown"), [(1.5, "1.5"), ("2", "'2'"), (True, "True")])
def test_pointer_plus_what_is_not_an_integer_is_refused(n: Any, shown: str) -> None:
    with pytest.raises(ParameterError) as info:
        T32.GetPhyAddr() + n
    assert str(info.value).startswith(f"UbPtr +: n = {shown}")


def test_a_pointer_difference_is_whole_elements_of_one_ub() -> None:
    p = T32.GetPhyAddr() + 10
    assert (p + 7) - p == 7 and p - (p + 7) == -7
    with pytest.raises(ParameterError, match="UbPtr -: other = "):
        p - OTHER.GetPhyAddr()  # (a pointer into another UB)


# --- UbPtr.reinterpret --------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", dt.EVERY_DTYPE, ids=lambda d: d.name)
def test_reinterpret_is_the_same_address_as_each_dtype(dtype: type[rs.DType]) -> None:
    p = T32.GetPhyAddr() + 5
    q = p.reinterpret(dtype)
    assert fields(q) == (UB, dtype, 20, 0, 400, dtype._ptr_sig)
    assert fields(q) == fields(p._reinterpret(dtype)) == fields(p.reinterpret(dtype=dtype))
    assert fields(q + 2) == (UB, dtype, 20 + 2 * dtype.itemsize, 0, 400, dtype._ptr_sig)
    assert p.dtype is rs.float32  # (the source unchanged)


@pytest.mark.parametrize("dtype", [np.uint8, "uint8", [1], rs.DType, None])
def test_reinterpret_to_what_is_not_a_dtype_is_refused_by_the_general_path(dtype: Any) -> None:
    with pytest.raises(DTypeError) as info:
        T32.GetPhyAddr().reinterpret(dtype)
    assert str(info.value) == f"UbPtr.reinterpret: dtype = {dtype!r}; accepted: a regsim dtype class such as rs.float32"


@pytest.mark.parametrize(
    ("args", "kwargs", "named"),
    [((), {}, "dtype"), ((rs.uint8, 1), {}, "arguments"), ((), {"dtyp": rs.uint8}, "dtyp"), ((rs.uint8,), {"x": 1}, "x")],
)
def test_reinterpret_calls_that_do_not_bind_are_refused_as_the_general_path(
    args: tuple[Any, ...], kwargs: dict[str, Any], named: str
) -> None:
    p = T32.GetPhyAddr()
    assert list(inspect.signature(UbPtr.reinterpret).parameters) == ["self", "dtype"]
    with pytest.raises(ParameterError) as info:
        p.reinterpret(*args, **kwargs)
    assert str(info.value).startswith(f"UbPtr.reinterpret: {named}")
    assert str(info.value) == str(binding_error("UbPtr.reinterpret", inspect.signature(UbPtr._reinterpret), (p, *args), kwargs))


# --- RegTensor.reinterpret ----------------------------------------------------------------------------
def _register_fields(r: RegTensor[Any]) -> tuple[Any, ...]:
    return r.dtype, r.trait, r._storage, r._whole, r._span, r._sig, r._raw.ctypes.data, r._raw.size, r._bytes.nbytes


ONE = [d for d in dt.EVERY_DTYPE if d is not rs.complex64]  # (complex64 is a two-register type only)


@pytest.mark.parametrize("target", dt.EVERY_DTYPE, ids=lambda d: d.name)
@pytest.mark.parametrize("source", [rs.uint32, rs.int8, rs.half, rs.uint64])
def test_a_one_register_reinterpret_views_the_same_bytes_as_the_general_path(
    source: type[rs.DType], target: type[rs.DType]
) -> None:
    r = Reg.RegTensor(source)
    r._raw[:] = np.arange(256, dtype=np.uint8)  # (bytes 0, 1, ..., 255)
    v = r.reinterpret(target)
    general = r._view_as(target, Reg.RegTraitNumOne, 0)  # (the general path's `_bind`)
    assert _register_fields(v) == _register_fields(general)
    assert v._view is not None and v._rview is not None and not v._rview.flags.writeable
    assert v._view.dtype == target.np_dtype and v._view.size == 256 // target.itemsize
    want = bytes(range(256))  # (lane k: bytes [k * size, (k + 1) * size), little-endian)
    assert v._view.tobytes() == want and v._rview.tobytes() == want
    v._view[...] = np.zeros((), v._view.dtype)  # (the same bytes: writes through it are the source's)
    assert not r._raw.any()


def test_a_reinterpret_of_one_register_of_a_two_register_tensor_is_the_general_paths() -> None:
    r = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    r._raw[:] = np.arange(512) % 251
    for k in (0, 1):
        v = r.reg[k].reinterpret(rs.uint32)
        assert _register_fields(v) == _register_fields(r._view_as(rs.uint32, Reg.RegTraitNumOne, k * 256))
        assert v._view is not None and v._view.tobytes() == bytes(x % 251 for x in range(k * 256, k * 256 + 256))
    whole = r.reinterpret(rs.int64, Reg.RegTraitNumTwo)  # (both registers: the general path)
    assert whole._view is None and whole._span == slice(0, 512) and whole._storage is r._storage
    first = r.reinterpret(rs.int32)  # (the first register)
    assert first._span == slice(0, 256) and not first._whole and first._raw.tobytes() == r._raw[:256].tobytes()


@pytest.mark.parametrize(
    ("args", "error", "text"),
    [
        ((np.int32,), DTypeError, "RegTensor.reinterpret: dtype = <class 'numpy.int32'>; accepted: a regsim dtype class"),
        ((rs.uint64, Reg.RegTraitNumTwo), ParameterError, "RegTensor.reinterpret: trait = RegTraitNumTwo; accepted: at most"),
        ((rs.float32, Reg.RegTraitNumTwo), DTypeError, "RegTensor.reinterpret: trait = RegTraitNumTwo with rs.float32"),
        ((rs.float32, 1), ParameterError, "RegTensor.reinterpret: trait = 1; accepted: Reg.RegTraitNumOne"),
    ],
)
def test_a_reinterpret_that_is_refused_is_refused_as_before(args: tuple[Any, ...], error: type[Exception], text: str) -> None:
    with pytest.raises(error) as info:
        Reg.RegTensor(rs.uint32).reinterpret(*args)
    assert str(info.value).startswith(text)


# --- a VF's arguments ---------------------------------------------------------------------------------
class _Copied:
    """An argument with its own by-value copy (what `_by_value` asks any argument for)."""

    def __init__(self) -> None:
        self.copies = 0

    def _vf_argument_copy(self) -> _Copied:
        self.copies += 1
        return self


@rs.simd_vf
def _look(p: rs.UbPtr[rs.float32], n: int, x: float, flag: bool, name: str, none: None, box: list[Any], c: Any) -> None:
    box.extend([p, n, x, flag, name, none])
    p.advance_bytes(256)  # (the VF's copy moved: the caller's stays)


@pytest.mark.parametrize("by_keyword", [False, True])
def test_vf_arguments_are_passed_by_value(by_keyword: bool) -> None:
    p, c = T32.GetPhyAddr() + 4, _Copied()
    box: list[Any] = []
    before = fields(p)
    args = (p, 7, 2.5, True, "s", None, box, c)
    if by_keyword:
        _look(p, 7, 2.5, True, "s", None, box=box, c=c)
    else:
        _look(*args)
    got, plain = box[0], box[1:]
    assert got is not p and fields(p) == before  # (a copy, moved inside only)
    assert fields(got)[:2] == (UB, rs.float32) and got.addr == p.addr + 256 and (got.lo, got.hi) == (p.lo, p.hi)
    assert plain == [7, 2.5, True, "s", None] and plain[1] is args[2] and plain[4] is None
    assert c.copies == 1  # (asked for its copy once)
