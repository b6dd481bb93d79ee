"""`rs.strategies` is typed by dtype: a strategy of registers of `T` draws `RegTensor[T]`."""

from typing import Any, assert_type

import numpy.typing as npt
from hypothesis import given
from hypothesis.strategies import SearchStrategy

import regsim as rs
from regsim import Reg
from regsim import strategies as rst

assert_type(rst.registers(rs.int32), SearchStrategy[Reg.RegTensor[rs.int32]])
assert_type(rst.registers(rs.uint64, Reg.RegTraitNumTwo, allow_nan=False), SearchStrategy[Reg.RegTensor[rs.uint64]])
assert_type(rst.dtypes([rs.half]), SearchStrategy[type[rs.half]])
assert_type(rst.dtypes(), SearchStrategy[type[rs.DType]])
assert_type(rst.masks(rs.float32, fill="noise"), SearchStrategy[Reg.MaskReg])
assert_type(rst.lanes(rs.int8), SearchStrategy[npt.NDArray[Any]])
assert_type(rst.counts(rs.uint32), SearchStrategy[int])
assert_type(rst.ub_layouts(), SearchStrategy[rst.UbLayout])


@given(rst.registers(rs.float32), rst.masks(rs.float32))
def add_is_typed(a: Reg.RegTensor[rs.float32], mask: Reg.MaskReg) -> None:
    dst = Reg.RegTensor(rs.float32)
    with rs.VEC_SCOPE():
        Reg.Add(dst, a, a, mask)
