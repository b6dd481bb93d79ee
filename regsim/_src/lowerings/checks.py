"""The parameter checks every memory-level API makes, and its call boundary.

- checks in the caller's terms (`check_tensors`, `check_count`, `check_repeat`, `as_uint`, `check_written`, the
  flexible-scalar operands' `flexible_operands`), each raising the `rs.errors` class with the API's name, the
  parameter, the value and what is accepted;
- `unchanged_on_error`: a memory-level call that raises leaves everything as it was (UB bytes, written flags, the
  core's special registers, `Ref`s); `run_lowering`: a Reg error inside the lowering is raised as the API's.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.structs import DEFAULT_BINARY_CONFIG, MAX_REPEAT, BinaryConfig
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure, current_config, in_vf
from regsim._src.model.core import current_core
from regsim._src.model.memory import Journal, LocalTensor, UnifiedBuffer
from regsim.errors import (
    AlignmentError,
    DTypeError,
    ParameterError,
    RegsimError,
    UninitializedReadError,
    VfContextError,
    message,
)


def host_only(api: str) -> None:
    if in_vf():
        raise VfContextError(f"{api}: called inside a vector function; accepted: scalar (__aicore__) code, outside any VF")


def as_uint(api: str, name: str, value: object, bits: int) -> int:
    if type(value) is not int and not isinstance(value, np.integer):
        raise ParameterError(message(api, name, repr(value), f"an unsigned {bits}-bit int"))
    v = int(value)
    if not 0 <= v < 1 << bits:
        raise ParameterError(message(api, name, v, f"an unsigned {bits}-bit int in [0, 2**{bits} - 1]"))
    return v


# --- errors in the caller's terms, and "a refused call changes nothing" ------------------------------------
#: how many memory-level calls are running: the calls one makes of other memory-level APIs are part of it (one journal)
_DEPTH: Final[contextvars.ContextVar[int]] = contextvars.ContextVar("regsim_memory_call", default=0)
F = TypeVar("F", bound=Callable[..., Any])


def journal(values: Sequence[object]) -> tuple[Callable[[], None], Callable[[], None]]:
    """What a memory-level call may change, journalled: the UBs an argument lives in (or an item of a list or tuple
    argument: the C API's), each with its core's special registers (`Journal`: the bytes and written flags a write
    changes, saved before its first write), the special registers of the current core and the values of `Ref`
    arguments. Returns (restore: puts it all back, close: stops the journals)."""
    values = [*values, *(x for v in values if isinstance(v, (list, tuple)) for x in v)]
    ubs = {id(u): u for u in (getattr(v, "ub", None) for v in values) if isinstance(u, UnifiedBuffer)}
    journals = [Journal(u) for u in ubs.values()]
    core = current_core()
    registers = None if any(u.core is core for u in ubs.values()) else core.snapshot()
    refs = [(v, v.value) for v in values if isinstance(v, Ref)]

    def restore() -> None:
        for j in journals:
            j.restore()
        if registers is not None:
            core.restore(registers)
        for ref, value in refs:
            ref.value = value

    def close() -> None:
        for j in reversed(journals):
            j.close()

    return restore, close


def unchanged_on_error(f: F) -> F:
    """A memory-level function's entry (`keep_unchanged` of its arguments): should the call raise, everything it
    changed is put back first."""

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        return keep_unchanged([*args, *kwargs.values()], f, *args, **kwargs)

    return call  # type: ignore[return-value]


def keep_unchanged(values: Sequence[object], f: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`f(*args, **kwargs)`, a memory-level call on `values`: should it raise (a parameter check, or a Reg op inside
    its lowering), everything it changed is put back first (`journal`): a refused call changes no UB byte, no written
    flag, no special register (vector mask, mask mode, compare mask, AR, CTRL) and no `Ref`. The memory-level calls a
    call makes are part of it (one journal); its cost is that of the bytes it writes, not of the UB's size."""
    depth = _DEPTH.get()
    token = _DEPTH.set(depth + 1)
    if depth:
        try:
            return f(*args, **kwargs)
        finally:
            _DEPTH.reset(token)
    restore, close = journal(values)
    try:
        return f(*args, **kwargs)
    except BaseException:
        restore()
        raise
    finally:
        close()
        _DEPTH.reset(token)


def in_memory_call() -> bool:
    """Whether a memory-level call is running (this one would be part of it, in its journal)."""
    return _DEPTH.get() > 0


def outermost() -> bool:
    """Whether the running memory-level call is no part of another: its journal is its own, so a write it makes as its
    last act, after its last check, needs no record (nothing after it can fail and put bytes back)."""
    return _DEPTH.get() == 1


def run_lowering(api: str, vf: Callable[..., None], *args: Any) -> None:
    """Run the lowering VF; a Reg-level error is raised as `api`'s, the Reg op's message kept as context (the API's
    entry, `unchanged_on_error`, has put back what the call changed)."""
    try:
        vf(*args)
    except RegsimError as e:
        raise type(e)(f"{api}: the call fails in its Reg lowering (from Reg {e})") from e


# --- parameter checks -------------------------------------------------------------------------------------
def check_tensors(api: str, dtypes: frozenset[type[dt.DType]], names: Sequence[str], tensors: Sequence[Any]) -> type[dt.DType]:
    for name, t in zip(names, tensors, strict=True):
        if not isinstance(t, LocalTensor):
            raise ParameterError(message(api, name, repr(t), "a LocalTensor"))
    dtype: type[dt.DType] = tensors[0].dtype
    if dtype not in dtypes:
        accepted = f"one of {', '.join(sorted(d.name for d in dtypes))}" if dtypes else "none (the first-n interface only)"
        raise DTypeError(message(api, names[0], f"a LocalTensor[{dtype.name}]", f"{accepted} for this interface"))
    for name, t in zip(names[1:], tensors[1:], strict=True):
        if t.dtype is not dtype:
            raise DTypeError(message(api, name, f"a LocalTensor[{t.dtype.name}]", f"the dtype of {names[0]} ({dtype.name})"))
        if t.ub is not tensors[0].ub:
            raise ParameterError(message(api, name, repr(t), f"a LocalTensor in the same UnifiedBuffer as {names[0]}"))
    for name, t in zip(names, tensors, strict=True):
        if t.addr % ONE_BLOCK_SIZE:
            raise AlignmentError(message(api, name, f"UB byte {t.addr}", "a start address aligned to 32 bytes"))
    return dtype


def check_range(api: str, name: str, value: object, hi: int) -> int:
    """An int in [0, hi] (the reductions' repeat counts and strides)."""
    if type(value) is not int and not isinstance(value, np.integer):
        raise ParameterError(message(api, name, repr(value), f"an int in [0, {hi}]"))
    v = int(value)
    if not 0 <= v <= hi:
        raise ParameterError(message(api, name, v, f"an int in [0, {hi}]"))
    return v


def check_count(api: str, count: object, names: Sequence[str], tensors: Sequence[LocalTensor[Any]]) -> int:
    if type(count) is not int and not isinstance(count, np.integer):
        raise ParameterError(message(api, "count", repr(count), "an int"))
    n = int(count)
    limit = min(t.size for t in tensors)
    if not 0 <= n <= limit:
        smallest = names[[t.size for t in tensors].index(limit)]
        raise ParameterError(message(api, "count", n, f"an int in [0, {limit}] (the size of {smallest})"))
    return n


def check_repeat(api: str, repeat_time: object) -> int:
    if type(repeat_time) is not int and not isinstance(repeat_time, np.integer):
        raise ParameterError(message(api, "repeat_time", repr(repeat_time), "a uint8_t in [0, 255]"))
    r = int(repeat_time)
    if not 0 <= r <= MAX_REPEAT:
        raise ParameterError(message(api, "repeat_time", r, "a uint8_t in [0, 255]"))
    return r


# --- the flexible-scalar overloads (灵活标量位置, Ascend 950): the scalar is a LocalTensor's element 0 -----------
def check_config(api: str, config: object) -> BinaryConfig:
    """The `config` keyword (`BinaryConfig`; None: `DEFAULT_BINARY_CONFIG`)."""
    cfg = DEFAULT_BINARY_CONFIG if config is None else config
    if not isinstance(cfg, BinaryConfig):
        raise ParameterError(message(api, "config", repr(cfg), "a BinaryConfig (BinaryConfig(0) or BinaryConfig(1))"))
    return cfg


def check_scalar_element(
    api: str, name: str, t: LocalTensor[Any], like: tuple[str, LocalTensor[Any]], dst: LocalTensor[Any]
) -> None:
    """A LocalTensor whose element 0 is a flexible-scalar call's scalar: of the dtype and UB of `like` (name, tensor),
    aligned to its element (the broadcast load's alignment; `src1Local[idx]` may be any element of a tensor), not
    inside dst (the pages: "不支持源操作数和目的操作数地址重叠"), and written (when the uninitialised-read check is on)."""
    if t.dtype is not like[1].dtype:
        raise DTypeError(message(api, name, f"a LocalTensor[{t.dtype.name}]", f"the dtype of {like[0]} ({like[1].dtype.name})"))
    if t.ub is not like[1].ub:
        raise ParameterError(message(api, name, repr(t), f"a LocalTensor in the same UnifiedBuffer as {like[0]}"))
    w = t.dtype.itemsize
    if t.addr % w:
        raise AlignmentError(message(api, name, f"UB byte {t.addr}", f"a start address aligned to {w} bytes (its element)"))
    if t.size < 1:
        raise ParameterError(message(api, name, repr(t), "a LocalTensor of at least one element (the scalar)"))
    if dst.addr < t.addr + w and t.addr < dst.addr + dst.nbytes:
        accepted = "a scalar element outside dst (the source and dst must not overlap)"
        raise ParameterError(message(api, name, f"UB bytes [{t.addr}, {t.addr + w}) inside dst", accepted))
    if current_config().check_uninitialized and not t.ub.storage.all_written(t.addr, t.addr + w):
        raise UninitializedReadError(f"{api}: {name} element 0 (the scalar) is read but was never written")


def check_written(api: str, name: str, t: LocalTensor[Any], nbytes: int) -> None:
    """The first `nbytes` of `t` were written (when the uninitialised-read check is on)."""
    st = t.ub.storage
    if not st.partial() or not current_config().check_uninitialized:
        return
    first = st.first_unwritten(t.addr, t.addr + nbytes)
    if first is not None:
        raise UninitializedReadError(
            f"{api}: {name} element {(first - t.addr) // t.dtype.itemsize} is read but was never written"
        )


def run_flexible(api: str, vec: tuple[str, LocalTensor[Any], int], vf: Callable[..., None], *args: Any) -> None:
    """`_run_lowering` of a flexible-scalar call. For b64 the scalar's register load (`load_scalar`) reads a whole
    register past the element, bytes that never reach the result: such a call checks the first `vec[2]` elements
    of the vector source `vec[1]` itself (the scalar element was checked) and runs with the uninitialised-read
    check off."""
    if vec[1].dtype.itemsize != 8:
        run_lowering(api, vf, *args)
        return
    check_written(api, vec[0], vec[1], vec[2] * vec[1].dtype.itemsize)
    with configure(check_uninitialized=False):
        run_lowering(api, vf, *args)


def flexible_operands(
    api: str,
    dtypes: frozenset[type[dt.DType]],
    dst: Any,
    src0: LocalTensor[Any],
    src1: LocalTensor[Any],
    config: object,
    dst_typed: bool = True,
) -> tuple[type[dt.DType], int, str, LocalTensor[Any]]:
    """Check a flexible-scalar call whose sources are both LocalTensors: returns (dtype, scalarTensorIndex, the vector
    source's name, the vector source). `dst_typed`: dst has the sources' dtype (checked here); else (Compares) the
    caller checks dst, and the vector source's dtype is the reference."""
    idx = check_config(api, config).scalarTensorIndex
    names = ("src0", "src1")
    vec, scalar = (src1, src0) if idx == 0 else (src0, src1)
    vec_name = names[1 - idx]
    if dst_typed:
        dtype = check_tensors(api, dtypes, ("dst", vec_name), (dst, vec))
        like = ("dst", dst)
    else:
        dtype = check_tensors(api, dtypes, (vec_name,), (vec,))
        like = (vec_name, vec)
        if not isinstance(dst, LocalTensor):
            raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor"))
    check_scalar_element(api, names[idx], scalar, like, dst)
    return dtype, idx, vec_name, vec
