"""`rs.testing`: bit-exact assertions on registers, masks and UB tensors, for kernel tests.

    import regsim as rs

    rs.testing.assert_reg_equal(dst, expected_lanes, inputs={"a": a, "b": b})
    rs.testing.assert_mask_equal(carry, expected_carries, dtype=rs.uint32)
    rs.testing.assert_ub_equal(dst_tensor, expected_array)

Every comparison is of bits: a NaN equals only a NaN with the same payload, -0.0 differs from
+0.0. On a mismatch the `AssertionError` lists the first differing lanes with both values in
hex, and the inputs' lanes where `inputs` are given.

`lane_count(dtype, trait)` is the number of lanes of `dtype` in one register, what Ascend C
writes `GetVecLen() / sizeof(T)` (`rs.GetVecLen()` is 256). `reference` holds the independent
per-lane oracles regsim's own tests compare it with.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_api
from regsim._src.model.memory import LocalTensor
from regsim._src.model.registers import MaskReg, RegTensor, RegTrait, RegTraitNumOne, check_dtype, check_trait, to_lanes
from regsim._src.model.registers import lane_count as _lane_count
from regsim.errors import ParameterError, message
from regsim.testing import reference

__all__ = ["assert_mask_equal", "assert_reg_equal", "assert_ub_equal", "lane_count", "reference"]

Lanes = RegTensor[Any] | npt.ArrayLike


@host_api("testing.lane_count")
def lane_count(dtype: type[dt.DType], trait: RegTrait = RegTraitNumOne) -> int:
    """Lanes of `dtype` in one `RegTensor`: `GetVecLen() / sizeof(T)` (256 / itemsize), twice
    that for a b64 or complex32 `RegTraitNumTwo` register."""
    check_dtype("testing.lane_count", "dtype", dtype)
    check_trait("testing.lane_count", dtype, trait)
    return _lane_count(dtype, trait)


def _lanes_of(api: str, param: str, value: object, dtype: type[dt.DType]) -> npt.NDArray[Any]:
    """A register's lanes, or an array's values as `dtype` (they must fit it exactly)."""
    if isinstance(value, RegTensor):
        if value.dtype is not dtype:
            raise AssertionError(f"{api}: {param} is a RegTensor of {value.dtype!r}, expected one of {dtype!r}")
        return value.numpy()
    if isinstance(value, LocalTensor):
        return _lanes_of(api, param, value.numpy(), dtype)
    return to_lanes(api, dtype, np.ravel(np.asarray(value)))


def _assert_bits(api: str, got: npt.NDArray[Any], want: npt.NDArray[Any], inputs: Mapping[str, Any] | None) -> None:
    if got.shape != want.shape:
        raise AssertionError(f"{api}: {got.size} lanes, expected {want.size}")
    shown = None if inputs is None else {k: np.ravel(v.numpy() if hasattr(v, "numpy") else v) for k, v in inputs.items()}
    reference.assert_lanes(got, want, what=api, inputs=shown)


@host_api("testing.assert_reg_equal")
def assert_reg_equal(actual: RegTensor[Any], expected: Lanes, *, inputs: Mapping[str, Lanes] | None = None) -> None:
    """`actual`'s lanes equal `expected`'s bit for bit: a `RegTensor` of the same dtype, or
    values (one per lane) that `actual.dtype` holds exactly. `inputs` (name → register or
    lanes) are shown beside each differing lane."""
    if not isinstance(actual, RegTensor):
        raise ParameterError(message("testing.assert_reg_equal", "actual", type(actual).__name__, "a RegTensor"))
    want = _lanes_of("assert_reg_equal", "expected", expected, actual.dtype)
    _assert_bits("assert_reg_equal", actual.numpy(), want, inputs)


@host_api("testing.assert_mask_equal")
def assert_mask_equal(
    actual: MaskReg,
    expected: MaskReg | npt.ArrayLike,
    dtype: type[dt.DType] | None = None,
    trait: RegTrait = RegTraitNumOne,
    *,
    inputs: Mapping[str, Lanes] | None = None,
) -> None:
    """`actual` equals `expected`: all 256 bits, or with `dtype` only the lanes a consumer of
    `dtype` (and `trait`) reads. `expected` is a `MaskReg`, or 0/1 or bool values, one per bit
    (no `dtype`) or per lane."""
    api = "testing.assert_mask_equal"
    if not isinstance(actual, MaskReg):
        raise ParameterError(message(api, "actual", type(actual).__name__, "a MaskReg"))

    def read(m: MaskReg) -> npt.NDArray[np.bool_]:
        return m.bits() if dtype is None else m.lanes(dtype, trait)

    if isinstance(expected, MaskReg):
        want = read(expected)
    else:
        want = to_lanes(api, dt.bool_, np.ravel(np.asarray(expected)))
    _assert_bits("assert_mask_equal", read(actual).view(np.uint8), want.view(np.uint8), inputs)


@host_api("testing.assert_ub_equal")
def assert_ub_equal(tensor: LocalTensor[Any], expected: LocalTensor[Any] | npt.ArrayLike) -> None:
    """`tensor`'s elements equal `expected`'s bit for bit: a `LocalTensor` of the same dtype, or
    values (as many as the tensor's `GetSize()`) its dtype holds exactly."""
    if not isinstance(tensor, LocalTensor):
        raise ParameterError(message("testing.assert_ub_equal", "tensor", type(tensor).__name__, "a LocalTensor"))
    if isinstance(expected, LocalTensor) and expected.dtype is not tensor.dtype:
        raise AssertionError(f"assert_ub_equal: expected is a LocalTensor of {expected.dtype!r}, not {tensor.dtype!r}")
    _assert_bits("assert_ub_equal", tensor.numpy(), _lanes_of("assert_ub_equal", "expected", expected, tensor.dtype), None)
