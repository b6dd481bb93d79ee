"""Helpers shared by the arithmetic and compound op tests: lanes as the oracle's Python values and
back, one VF call, and the bit-exact comparison."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import regsim as rs
from regsim import Reg
from regsim.testing import reference as O

FULL = np.ones(256, bool)


def values(arr: np.ndarray, name: str) -> list[Any]:
    """Lanes as Python values for the oracle: ints, floats, or complex."""
    if name in O.COMPLEX:
        comps = arr.view(O.COMPLEX[name]).reshape(-1, 2)
        return [complex(float(r), float(i)) for r, i in comps]
    if name in O.FLOATS:
        return [float(x) for x in arr]
    return [int(x) for x in arr]


def old_form(arr: np.ndarray, name: str) -> list[Any]:
    """Old dst lanes in the form the oracle returns lanes (kept bit for bit)."""
    if name in O.COMPLEX:
        return list(arr.view(O.COMPLEX[name]).reshape(-1, 2))
    if name in O.FLOATS:
        return list(arr)
    return [int(x) for x in arr]


def expected(lanes: list[Any], name: str, like: np.ndarray) -> np.ndarray:
    """Oracle lanes as an array with the bits of `like`'s dtype (complex as component pairs)."""
    if name in O.COMPLEX:
        return np.array([c for pair in lanes for c in pair], O.COMPLEX[name]).view(like.dtype)
    if name in O.FLOATS:
        return np.array(lanes, O.FLOATS[name])
    size = like.dtype.itemsize
    return np.array([O.wrap(v, 8 * size, False) for v in lanes], f"u{size}").view(like.dtype)


def compare(got: np.ndarray, want: np.ndarray, name: str, what: str, inputs: dict[str, Any]) -> None:
    """Bit-exact, except that any NaN equals any NaN (payloads are not documented)."""
    if name in O.COMPLEX:
        comp = O.COMPLEX[name]
        O.assert_lanes(got.view(comp), want.view(comp), what=what + " (components)", nan_type=comp)
    else:
        O.assert_lanes(got, want, what=what, inputs=inputs, nan_type=O.FLOATS.get(name))


def run(op: Callable[..., None], dst: Reg.RegTensor[Any], *args: Any, **kwargs: Any) -> np.ndarray:
    """dst after `op(dst, *args, **kwargs)` in its own VF."""
    with rs.VEC_SCOPE():
        op(dst, *args, **kwargs)
    return dst.numpy()


def reg_of(dtype: Any, lanes: Any, trait: Any = Reg.RegTraitNumOne) -> Reg.RegTensor[Any]:
    return Reg.RegTensor.from_numpy(np.asarray(lanes, dtype.np_dtype), trait=trait)


def scalar_of(arr: np.ndarray, name: str) -> Any:
    """Lane 0 of `arr` as the Python scalar a kernel would pass (exactly representable)."""
    return values(arr[:1], name)[0]


@contextlib.contextmanager
def ctrl_bit(bit: int, value: int) -> Iterator[None]:
    """CTRL[bit] = value for the block (set from scalar code, as a kernel does), then restored."""
    saved = rs.AscendC.GetCtrlSpr(start_bit=bit, end_bit=bit)
    rs.AscendC.SetCtrlSpr(value, start_bit=bit, end_bit=bit)
    try:
        yield
    finally:
        rs.AscendC.SetCtrlSpr(saved, start_bit=bit, end_bit=bit)
