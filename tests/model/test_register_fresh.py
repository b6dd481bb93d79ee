"""A one-register `RegTensor` made inline (`RegTensor.__init__`'s common case) is the register the general path
(`Storage.fresh` then `_bind`) makes, field for field, for every dtype; one made before and after ml_dtypes loaded
alike; two registers and refused types still go the general way."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.model import dtypes as dt
from regsim._src.model.registers import RegTensor, Storage
from regsim.errors import DTypeError, ParameterError


def _general(dtype: type[dt.DType]) -> RegTensor[Any]:
    r: RegTensor[Any] = object.__new__(RegTensor)
    r.dtype, r.trait = dtype, Reg.RegTraitNumOne
    r._bind(Storage.fresh(256))
    return r


@pytest.mark.parametrize("dtype", dt.EVERY_DTYPE, ids=lambda d: d.name)
def test_an_inline_register_is_the_general_paths(dtype: type[dt.DType]) -> None:
    fast, slow = Reg.RegTensor(dtype), _general(dtype)
    made = (fast.dtype, fast.trait, fast._sig, fast._whole, fast._span)
    assert made == (dtype, Reg.RegTraitNumOne, slow._sig, True, slice(0, 256))
    fs, ss = fast._storage, slow._storage
    assert type(fs) is Storage and (fs.origin, fs.until) == (ss.origin, ss.until) == ("", 0)
    assert fs.data.dtype == np.uint8 and fs.data.shape == (256,) and not fs.data.any() and fs.data.flags.writeable
    assert fs.valid is not None and fs.valid.dtype == np.bool_ and fs.valid.shape == (256,) and not fs.valid.any()
    assert fast._raw is fs.data and fast._bytes.obj is fs.data and fs.buffer.obj is fs.data and fast._bytes is fs.buffer
    assert fast._view is not None and fast._rview is not None and slow._view is not None
    assert fast._view.dtype == slow._view.dtype == dtype.np_dtype and fast._view.shape == slow._view.shape
    assert fast._view.flags.writeable and not fast._rview.flags.writeable
    assert np.shares_memory(fast._view, fs.data) and np.shares_memory(fast._rview, fs.data)
    other = Reg.RegTensor(dtype)._storage
    assert not np.shares_memory(fs.data, other.data) and not np.shares_memory(fs.valid, other.valid)  # (each its own)
    assert {s: type(getattr(fast, s)) for s in RegTensor.__slots__} == {s: type(getattr(slow, s)) for s in RegTensor.__slots__}


def test_a_register_written_after_an_inline_make_reads_back() -> None:
    with rs.VEC_SCOPE():
        ub = rs.UnifiedBuffer(1024)
        t = ub.alloc(rs.int16, 128)
        t.set(np.arange(128, dtype=np.int16) - 64)
        r = Reg.RegTensor(rs.int16)
        Reg.LoadAlign(r, t.GetPhyAddr())
        assert r._storage.valid is None
        assert np.array_equal(r.numpy(), np.arange(128) - 64)


def test_two_registers_and_refused_types_take_the_general_path() -> None:
    two = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    assert two._view is None and two._raw.size == 512 and two._storage.valid is not None
    for bad in ([1], np.float32, rs.DType, "float32"):
        with pytest.raises(DTypeError, match="RegTensor: T = "):
            Reg.RegTensor(bad)  # type: ignore[arg-type]


def test_a_call_that_does_not_bind_is_refused_as_the_general_path_refuses_it() -> None:
    """The inline case takes the dtype alone; any other call goes through the general path (`host_api`'s binding
    rule): the parameter named, the trait given by keyword or position alike."""
    for kwargs, named in (({"foo": 1}, "foo"), ({"dtype": rs.int8, "trait": Reg.RegTraitNumOne, "x": 0}, "x")):
        with pytest.raises(ParameterError, match=rf"^RegTensor: {named} = .*an unknown keyword"):
            Reg.RegTensor(**kwargs)
    with pytest.raises(ParameterError, match=r"^RegTensor: dtype = missing"):
        Reg.RegTensor()  # type: ignore[call-arg]
    with pytest.raises(ParameterError, match=r"^RegTensor: arguments = 3 \(extra positional"):
        Reg.RegTensor(rs.int8, Reg.RegTraitNumOne, 3)  # type: ignore[call-arg]
    one = Reg.RegTraitNumOne
    for made in (Reg.RegTensor(rs.int8, one), Reg.RegTensor(dtype=rs.int8), Reg.RegTensor(rs.int8, trait=one)):
        assert (made.dtype, made.trait, made._storage.valid.size) == (rs.int8, one, 256)
        assert made._view is not None and made._view.dtype == np.int8
