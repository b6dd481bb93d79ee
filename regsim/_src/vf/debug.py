"""The debugging functions a VF can call: `printf` and the `asc_dump` family (the printf and asc_dump
pages of the Utils API's debugging chapter, `utils/debug/asc_printf.h` and `utils/debug/asc_dump.h`).

On the 950 a VF's `printf` / `asc_dump_*` calls write records into a 2 KiB UB area reserved for the
`asc_vf_call` (2028 bytes after its header); after the VF returns, the scalar unit copies them out and
the host prints them in call order. regsim prints each record to `sys.stdout` when it is made, in the
same format and order, and keeps the same budget per VF call: a record that does not fit is dropped
with every later one of that call, and the call ends with the library's overflow warning
(docs/decisions/debug.md#debug-buffer).

A loop whose body prints runs in order (a batched loop has no iteration order to print in).
"""

from __future__ import annotations

import math
import re
import sys
import weakref
from typing import Any, overload

import numpy as np

from regsim._src.engine.context import VfContext, vf_context
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.config import current_config
from regsim._src.model.formats import hif8_decode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import RegTensor, check_dtype, host_read
from regsim.errors import (
    AlignmentError,
    DTypeError,
    OutOfBoundsError,
    ParameterError,
    UninitializedReadError,
    UnsupportedError,
    message,
)

__all__ = ["asc_dump", "asc_dump_reg", "asc_dump_ubuf", "printf"]

#: bytes a VF call's debug records may take (ASCENDC_SIMD_VF_PRINTF_UBUF_MAX_SIZE: the 2 KiB reserved
#: UB less the 20-byte header)
BUFFER_BYTES = 2028
PRINT_HEADER = 24  #: sizeof(PrintTlv)
DUMP_HEADER = 72  #: sizeof(DumpTensorTlv)
OVERFLOW_WARNING = "[WARNING]: SIMD VF debug buffer overflow (max limit is 2KB), output was truncated.\n"

#: the dump's `data_type=` names (the DumpTensor page's spellings of the ACL types)
DUMP_TYPES: dict[type[dt.DType], str] = {
    dt.bool_: "bool",
    dt.int8: "int8",
    dt.uint8: "uint8",
    dt.hifloat8: "hifloat8",
    dt.fp8_e8m0: "float8_e8m0",
    dt.fp8_e5m2: "float8_e5m2",
    dt.fp8_e4m3fn: "float8_e4m3fn",
    dt.int16: "int16",
    dt.uint16: "uint16",
    dt.half: "float16",
    dt.bfloat16: "bfloat16",
    dt.int32: "int32",
    dt.uint32: "uint32",
    dt.float32: "float32",
    dt.int64: "int64",
    dt.uint64: "uint64",
}
_DUMP_ACCEPTED = (
    "bool, int8, uint8, hifloat8, fp8_e8m0, fp8_e5m2, fp8_e4m3fn, int16, uint16, half, bfloat16, int32, uint32, "
    "float32, int64, uint64 (the asc_dump page)"
)


class _Budget:
    """One VF call's debug buffer: bytes written, and whether a record was dropped."""

    __slots__ = ("overflow", "used")

    def __init__(self) -> None:
        self.used = 0
        self.overflow = False


_BUDGETS: weakref.WeakKeyDictionary[VfContext, _Budget] = weakref.WeakKeyDictionary()


def _context(api: str) -> VfContext:
    """The running VF (else `VfContextError`); a batched loop's attempt stops here and runs in order."""
    ctx = vf_context(api)
    host_read(api, "prints inside the loop (its output is in iteration order)")
    return ctx


def _reserve(ctx: VfContext, nbytes: int, fits: bool = True) -> bool:
    """Take `nbytes` of the VF call's buffer; False (and nothing printed from now on) when they do not fit."""
    budget = _BUDGETS.get(ctx)
    if budget is None:
        budget = _BUDGETS[ctx] = _Budget()

        def warn() -> None:  # after the VF, as AscVFCallImpl does when the buffer overflowed
            if budget.overflow:
                sys.stdout.write(OVERFLOW_WARNING)

        ctx.exit_checks.append(warn)
    if budget.overflow:
        return False
    if not fits or nbytes > BUFFER_BYTES - budget.used:
        budget.overflow = True
        return False
    budget.used += nbytes
    return True


# --- printf ---------------------------------------------------------------------------------------------
_SPEC = re.compile(r"%(?P<flags>[-+ #0]*)(?P<width>\d+)?(?:\.(?P<prec>\d*))?(?P<len>ll|l)?(?P<conv>[diuxfFsp%])")
_ANY_SPEC = re.compile(r"%[-+ #0]*(?:\d+|\*)?(?:\.(?:\d*|\*))?(?:hh|h|ll|l|j|z|t|L)?.?", re.DOTALL)
_PRINTF_ACCEPTED = (
    "the conversions of the printf page: %d %i %u %x %f %F %s %p (%ld %lld %li %lli %lu %llu %lx %llx) and %%, "
    "with C's flags, width and precision"
)


def _c_float(x: float, flags: str = "", width: str = "", prec: str | None = None, conv: str = "f") -> str:
    """`%f` / `%F` of a double as glibc prints it (a NaN prints its sign, as an infinity does)."""
    if math.isnan(x):
        sign = "-" if math.copysign(1.0, x) < 0 else "+" if "+" in flags else " " if " " in flags else ""
        text = sign + ("NAN" if conv == "F" else "nan")
        return text.ljust(int(width or 0)) if "-" in flags else text.rjust(int(width or 0))
    if math.isinf(x):  # glibc pads an infinity with spaces: the 0 flag is for digits
        flags = flags.replace("0", "")
    return ("%" + flags + width + ("." + prec if prec is not None else "") + conv) % x


def _int_arg(api: str, i: int, value: object, conv: str) -> int:
    if isinstance(value, (bool, np.bool_)):  # C promotes a bool to int
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    raise ParameterError(message(api, f"args[{i}]", repr(value), f"an integer for %{conv}"))


def _format(api: str, fmt: str, args: tuple[object, ...]) -> tuple[str, int]:
    """The text printf prints and the bytes its %s arguments add to the record."""
    out: list[str] = []
    pos = 0
    k = 0
    str_bytes = 0
    while True:
        at = fmt.find("%", pos)
        if at < 0:
            out.append(fmt[pos:])
            break
        out.append(fmt[pos:at])
        m = _SPEC.match(fmt, at)
        if m is None:
            bad = _ANY_SPEC.match(fmt, at)
            spelled = bad.group(0) if bad else fmt[at:]
            raise UnsupportedError(message(api, "fmt", f"{fmt!r} (the conversion {spelled!r})", _PRINTF_ACCEPTED))
        pos = m.end()
        conv, flags, width, prec, length = m["conv"], m["flags"], m["width"] or "", m["prec"], m["len"] or ""
        if conv == "%":
            out.append("%")
            continue
        if k >= len(args):
            raise ParameterError(
                message(api, "args", f"{len(args)} arguments", f"one per conversion of fmt {fmt!r} (at least {k + 1})")
            )
        value = args[k]
        if prec == "":
            prec = "0"  # C: a lone "." is precision 0
        bits = 64 if length else 32
        if conv in "diux":
            n = _int_arg(api, k, value, conv)
            if conv in "di":
                n = ((n + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1))  # int / long, as C converts it
            else:
                n %= 1 << bits  # unsigned int / unsigned long
                flags = flags.replace("+", "").replace(" ", "")  # no sign for an unsigned conversion
                if n == 0:
                    flags = flags.replace("#", "")  # C's %#x of 0 is "0"
            if prec is not None:
                flags = flags.replace("0", "")  # C: a precision turns the 0 flag off
            if prec == "0" and n == 0:  # C: precision 0 prints no digits for 0
                text = ("+" if "+" in flags else " " if " " in flags else "") if conv in "di" else ""
                out.append(text.ljust(int(width or 0)) if "-" in flags else text.rjust(int(width or 0)))
            else:
                spec = "%" + flags + width + ("." + prec if prec is not None else "")
                out.append((spec + ("d" if conv in "diu" else "x")) % n)
        elif conv in "fF":
            if length:
                raise UnsupportedError(message(api, "fmt", f"{fmt!r} (the conversion %{length}{conv})", _PRINTF_ACCEPTED))
            if isinstance(value, (bool, int, np.integer, np.bool_, str, bytes)) or not hasattr(value, "__float__"):
                raise ParameterError(message(api, f"args[{k}]", repr(value), f"a floating-point value for %{conv}"))
            out.append(_c_float(float(value), flags, width, prec, conv))
        elif conv == "s":
            if length:
                raise UnsupportedError(message(api, "fmt", f"{fmt!r} (the conversion %{length}s)", _PRINTF_ACCEPTED))
            if isinstance(value, bytes):
                value = value.decode("utf-8", errors="replace")
            if not isinstance(value, str):
                raise ParameterError(message(api, f"args[{k}]", repr(value), "a str (a C string) for %s"))
            str_bytes += len(value.encode()) + 1
            out.append(("%" + flags.replace("0", "") + width + ("." + prec if prec is not None else "") + "s") % value)
        else:  # p
            if length:
                raise UnsupportedError(message(api, "fmt", f"{fmt!r} (the conversion %{length}p)", _PRINTF_ACCEPTED))
            if value is None:
                addr = 0
            elif isinstance(value, UbPtr):
                addr = int(value.addr)
            else:
                addr = _int_arg(api, k, value, "p") % (1 << 64)
            text = "(nil)" if addr == 0 else f"0x{addr:x}"  # glibc's %p
            out.append(("%" + flags.replace("0", "").replace("#", "").replace("+", "").replace(" ", "") + width + "s") % text)
        k += 1
    return "".join(out), str_bytes


@host_api("printf")
def printf(fmt: str, *args: object) -> None:
    """`printf(fmt, args...)` inside a VF (`__simd_callee__ printf(const __ubuf__ char* fmt, Args&&... args)`):
    C's formatting of the conversions the printf page lists, printed to `sys.stdout`.

    Integers convert to the conversion's type (int / unsigned int, or 64 bits with `l` / `ll`), as C's
    arguments do; `%f` takes a float (a `half` or `float` argument is its exact value); `%s` a str; `%p`
    a `UbPtr` (its UB address), an int or None (`(nil)`). Extra arguments are ignored, as in C.
    """
    api = "printf"
    if isinstance(fmt, bytes):
        fmt = fmt.decode("utf-8", errors="replace")
    if not isinstance(fmt, str):
        raise ParameterError(message(api, "fmt", repr(fmt), "a str (the format string)"))
    bad = next((c for c in fmt if (ord(c) < 32 and c != "\n") or ord(c) == 127), None)
    if bad is not None:
        raise UnsupportedError(
            message(api, "fmt", repr(fmt), "no escape characters but the newline (the printf page), not " + repr(bad))
        )
    ctx = _context(api)
    text, str_bytes = _format(api, fmt, args)
    record = PRINT_HEADER + 8 * len(args) + str_bytes + len(fmt.encode()) + 1
    if _reserve(ctx, ((record + 7) & ~7) + 8):
        sys.stdout.write(text)


# --- asc_dump -----------------------------------------------------------------------------------------
def _element(value: Any, dtype: type[dt.DType]) -> str:
    if dtype is dt.bool_:
        return "1" if value else "0"
    if issubclass(dtype, dt.Floating):
        return _c_float(float(value))
    return str(int(value))


def _dump(ctx: VfContext, api: str, dtype: type[dt.DType], values: Any, desc: int, count: int, addr: int, position: str) -> None:
    nbytes = count * dtype.itemsize
    fits = count <= (BUFFER_BYTES - DUMP_HEADER) // dtype.itemsize  # reserve_dump_tlv's first test
    if not _reserve(ctx, DUMP_HEADER + ((nbytes + 31) & ~31), fits):
        return
    if dtype is dt.hifloat8:
        values = hif8_decode(np.asarray(values))
    body = ", ".join(_element(v, dtype) for v in np.asarray(values).tolist())
    sys.stdout.write(
        f"DumpTensor: desc={desc}, addr=0x{addr:x}, data_type={DUMP_TYPES[dtype]}, position={position}, "
        f"dump_size={count}\n[{body}]\n"
    )


def _dump_type(api: str, dtype: object) -> type[dt.DType]:
    d = check_dtype(api, "T", dtype)
    if d not in DUMP_TYPES:
        raise DTypeError(message(api, "T", d.name, _DUMP_ACCEPTED))
    return d


def _scalars(api: str, desc: object, dump_size: object) -> tuple[int, int]:
    return as_int(api, "desc", desc, 0, 2**32 - 1), as_int(api, "dump_size", dump_size, 0, 2**32 - 1)


@host_api("asc_dump_ubuf")
def asc_dump_ubuf(input: UbPtr[Any], desc: int, dump_size: int) -> None:
    """`asc_dump_ubuf<T>(__ubuf__ T* input, uint32_t desc, uint32_t dump_size)` inside a VF: prints the
    `dump_size` elements at `input` (T is the pointer's dtype) as the DumpTensor page shows them."""
    _dump_ubuf("asc_dump_ubuf", input, desc, dump_size)


def _dump_ubuf(api: str, input: object, desc: object, dump_size: object) -> None:
    if not isinstance(input, UbPtr):
        raise ParameterError(message(api, "input", repr(input), "a UbPtr (a __ubuf__ T* pointer)"))
    ctx = _context(api)
    dtype = _dump_type(api, input.dtype)
    d, n = _scalars(api, desc, dump_size)
    addr = int(input.addr)
    size = dtype.itemsize
    if addr % size:
        raise AlignmentError(message(api, "input", f"UB byte {addr}", f"a multiple of {size} bytes for {dtype.name}"))
    if n:
        if addr < input.lo or addr + n * size > input.hi:
            raise OutOfBoundsError(
                message(
                    api,
                    "dump_size",
                    f"{n} (UB bytes [{addr}, {addr + n * size}))",
                    f"within input's LocalTensor, UB bytes [{input.lo}, {input.hi})",
                )
            )
        st = input.ub.storage
        first = st.first_unwritten(addr, addr + n * size) if current_config().check_uninitialized else None
        if first is not None:
            raise UninitializedReadError(f"{api}: input reads UB byte {first}, which was never written")
    raw = input.ub.storage.data[addr : addr + n * size].copy()
    _dump(ctx, api, dtype, raw.view(dtype.np_dtype), d, n, addr, "UB")


@host_api("asc_dump_reg")
def asc_dump_reg(dtype: type[dt.DType], input: RegTensor[Any], desc: int, dump_size: int) -> None:
    """`asc_dump_reg<T>(input, desc, dump_size)` inside a VF: prints the first `dump_size` elements of
    type `dtype` (C++'s T) of the register `input` (its first hardware register's bytes, as the
    library stores them), position REG, addr 0x0."""
    _dump_reg("asc_dump_reg", dtype, input, desc, dump_size)


def _dump_reg(api: str, dtype: object, input: object, desc: object, dump_size: object) -> None:
    ctx = _context(api)
    d_type = _dump_type(api, dtype)
    if not isinstance(input, RegTensor):
        raise ParameterError(message(api, "input", repr(input), "a Reg.RegTensor"))
    d, n = _scalars(api, desc, dump_size)
    lanes = 256 // d_type.itemsize
    if n > lanes:
        raise ParameterError(message(api, "dump_size", n, f"an int in [0, {lanes}] (one register of {d_type.name})"))
    view = input.reinterpret(d_type)
    if n and current_config().check_uninitialized:
        valid = view._lane_valid()
        if valid is not None and not valid[:n].all():
            lane = int(np.flatnonzero(~valid[:n])[0])
            raise UninitializedReadError(f"{api}: input lane {lane} (as {d_type.name}) is dumped but was never written")
    _dump(ctx, api, d_type, view.numpy()[:n], d, n, 0, "REG")


@overload
def asc_dump(input: UbPtr[Any], desc: int, dump_size: int, /) -> None: ...
@overload
def asc_dump(dtype: type[dt.DType], input: RegTensor[Any], desc: int, dump_size: int, /) -> None: ...
def asc_dump(*args: Any, **kwargs: Any) -> None:
    """`asc_dump<T>(...)` inside a VF, both simd_vf overloads: `asc_dump(ptr, desc, dump_size)` is
    `asc_dump_ubuf`, `asc_dump(T, reg, desc, dump_size)` is `asc_dump_reg`."""
    api = "asc_dump"
    if kwargs:
        raise ParameterError(message(api, next(iter(kwargs)), "a keyword", "positional arguments, as C++ passes them"))
    if len(args) == 3:
        _dump_ubuf(api, *args)
    elif len(args) == 4:
        _dump_reg(api, *args)
    else:
        accepted = "(input: UbPtr, desc, dump_size) or (T, input: RegTensor, desc, dump_size)"
        raise ParameterError(message(api, "args", f"{len(args)} arguments", accepted))
