"""Fresh calls for the lowering explorer (`regsim lower "Add(int16, count=256)"`): tensors of random data in a new
UnifiedBuffer, and the explorer's words for masks, structs, enum members and dtypes. An API whose call needs more than
tensors of its interface's extent (offsets inside a tensor, a selection mask, a pattern) has its own builder
(`Api.explore`), written beside it with these helpers."""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from regsim._src.lowerings.structs import REPEAT_BYTES
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.memory import LocalTensor, UnifiedBuffer
from regsim.errors import ParameterError, message

#: a builder's call on fresh tensors: (positional arguments, keyword arguments)
FreshCall = tuple[tuple[Any, ...], dict[str, Any]]


def fresh(tensors: Sequence[tuple[type[dt.DType], int]]) -> list[LocalTensor[Any]]:
    """Tensors of (dtype, elements), each rounded up to whole registers, of random bytes in one fresh UB."""
    sizes = [-(-max(n, 1) * d.itemsize // REPEAT_BYTES) * REPEAT_BYTES for d, n in tensors]
    ub = UnifiedBuffer(sum(sizes) + 2 * REPEAT_BYTES)
    rng = np.random.default_rng(0)
    out = []
    for (d, _), nbytes in zip(tensors, sizes, strict=True):
        t = ub.alloc(d, nbytes // d.itemsize)
        ub.storage.write(t.addr, rng.integers(0, 256, nbytes, dtype=np.uint8))
        out.append(t)
    return out


def mask_arg(value: Any) -> Any:
    """A mask as the explorer's text gives it: a list for bit mode (`mask=[3, 0]`), an int for continuous mode."""
    return list(value) if isinstance(value, (list, tuple)) else value


def repeat_extent(dtype: type[dt.DType], kw: Mapping[str, Any], struct: type) -> tuple[int, tuple[Any, ...]]:
    """Elements a mask/repeat call reaches, and its (mask, repeat_time, repeat_params) arguments (`repeat_params=(...)`:
    the struct's fields, default its C++ defaults)."""
    params = struct(*kw.get("repeat_params", ()))
    strides = attrs.astuple(params)
    half = len(strides) // 2
    repeats = max(int(kw["repeat_time"]), 1)
    e = ONE_BLOCK_SIZE // dtype.itemsize
    n = max(strides[half:]) * (repeats - 1) * e + max(*strides[:half], 1) * 8 * e
    return n, (mask_arg(kw["mask"]), kw["repeat_time"], params)


def member(name: str, cls: type[enum.Enum], text: object) -> Any:
    """An enum member of the explorer's text (`cmp_mode=LT`, `order=ORDER_ONLY_INDEX`)."""
    if isinstance(text, cls):
        return text
    if isinstance(text, str) and text in cls.__members__:
        return cls[text]
    raise ParameterError(message("lower", name, repr(text), f"one of {', '.join(cls.__members__)}"))


def dtype_named(name: str, text: object) -> type[dt.DType]:
    """The dtype the explorer's text names (`dst=half`)."""
    found: Any = getattr(dt, str(text), None)
    if not dt.is_dtype(found):
        raise ParameterError(message("lower", name, repr(text), "a regsim dtype name such as half or float32"))
    return found  # type: ignore[no-any-return]


def arguments(kw: Mapping[str, Any], accepted: str) -> ParameterError:
    """The explorer's error for keywords that make no call of the API."""
    return ParameterError(message("lower", "arguments", sorted(kw), accepted))
