"""The VF debugging functions: `rs.printf`, `rs.asc_dump_ubuf`, `rs.asc_dump_reg`, `rs.asc_dump`.

Expected texts are written out by hand from the printf page (C's conversions), the DumpTensor
page's format and the library's record sizes (docs/decisions/debug.md#debug-buffer), not produced by regsim.
Every kernel runs in both loop modes.
"""

from __future__ import annotations

import math
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim.errors import (
    AlignmentError,
    DTypeError,
    OutOfBoundsError,
    ParameterError,
    UninitializedReadError,
    UnsupportedError,
    VfContextError,
)

LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])


def _in_vf(loops: str, body: object, *args: object) -> None:
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        rs.asc_vf_call(body, *args)  # type: ignore[arg-type]


@rs.simd_vf
def print_formats() -> None:
    rs.printf("[simd_vf] int=%d, uint=%u, float=%f, string=%s\n", 10, 20, 3.14, "hello")
    rs.printf("[simd_vf] hex=%x, ptr=%p\n", 255, 0x12FF)
    rs.printf("[simd_vf] This is a simd_vf printf demo string.\n")
    rs.printf("%d %i %u %x %ld %lu %lx %lld %llu %llx\n", -1, -2, -1, -1, -1, -1, -1, 2**40, 2**64 - 1, 2**63)
    ints = (42, 42, 42, 42, 42, 7, 0, 0, 255)
    rs.printf("[%5d|%-5d|%05d|%+d|% d|%.3d|%.0d|%#x|%#x|%8.3f|%-8.2f|%+.1f|%.3s|%6s]\n", *ints, 2.5, 2.5, 1.0, "abcdef", "ab")
    rs.printf("%f %f %f %F %f %%\n", math.inf, -math.inf, math.nan, math.inf, -math.nan)
    rs.printf("%d %u %f %p %p\n", True, np.uint8(200), np.float16(0.1), None, 0)


EXPECTED_FORMATS = (
    "[simd_vf] int=10, uint=20, float=3.140000, string=hello\n"  # the example README's output
    "[simd_vf] hex=ff, ptr=0x12ff\n"
    "[simd_vf] This is a simd_vf printf demo string.\n"
    "-1 -2 4294967295 ffffffff -1 18446744073709551615 ffffffffffffffff 1099511627776 18446744073709551615 8000000000000000\n"
    "[   42|42   |00042|+42| 42|007||0|0xff|   2.500|2.50    |+1.0|abc|    ab]\n"
    "inf -inf nan INF -nan %\n"
    "1 200 0.099976 (nil) (nil)\n"  # half 0.1 is 0.0999755859375
)


@LOOPS
def test_printf_formats_as_c_does(loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    _in_vf(loops, print_formats)
    assert capsys.readouterr().out == EXPECTED_FORMATS


@rs.simd_vf
def print_loop(x: rs.UbPtr[rs.float32], out: rs.UbPtr[rs.float32], n: int) -> None:
    mask = Reg.CreateMask(rs.float32)
    for i in range(n):
        r = Reg.RegTensor(rs.float32)
        Reg.LoadAlign(r, x + i * 64)
        Reg.Adds(r, r, 1.0, mask)
        Reg.StoreAlign(out + i * 64, r, mask)
        rs.printf("iteration %u of %u\n", i, n)
        rs.asc_dump_reg(rs.float32, r, i, 2)


@LOOPS
def test_a_loop_that_prints_prints_in_iteration_order(loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    ub = rs.UnifiedBuffer()
    x, out = ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
    x.set(np.arange(256, dtype=np.float32))
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        how = rs.explain(print_loop, x.GetPhyAddr(), out.GetPhyAddr(), 4)
    want = "".join(
        f"iteration {i} of 4\nDumpTensor: desc={i}, addr=0x0, data_type=float32, position=REG, dump_size=2\n"
        f"[{64 * i + 1}.000000, {64 * i + 2}.000000]\n"
        for i in range(4)
    )
    assert capsys.readouterr().out == want
    np.testing.assert_array_equal(out.numpy(), np.arange(256, dtype=np.float32) + 1)
    assert "sequential (4 iterations)" in how
    if loops == "auto":
        assert "printf prints inside the loop" in how


@rs.simd_vf
def dump_all(x: rs.UbPtr[rs.float32], h: rs.UbPtr[rs.half], b: rs.UbPtr[rs.uint8]) -> None:
    rs.asc_dump_ubuf(x, 5, 4)
    rs.asc_dump(x + 2, 6, 2)
    rs.asc_dump(h, 7, 3)
    rs.asc_dump_ubuf(b.reinterpret(rs.int8), 0xFFFFFFFF, 4)
    rs.asc_dump(b.reinterpret(rs.bool_), 1, 4)
    rs.asc_dump(b.reinterpret(rs.hifloat8), 2, 2)
    rs.asc_dump_ubuf(x, 3, 0)
    r = Reg.RegTensor(rs.int32)
    Reg.Duplicate(r, -7)
    rs.asc_dump_reg(rs.int32, r, 8, 3)
    rs.asc_dump(rs.uint16, r, 9, 2)  # T is how the register's bytes are read
    rs.asc_dump(rs.int64, r, 10, 1)


def test_dumps_print_the_dumptensor_format(capsys: pytest.CaptureFixture[str]) -> None:
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 8)  # UB byte 0
    h = ub.alloc(rs.half, 16)  # UB byte 32
    b = ub.alloc(rs.uint8, 32)  # UB byte 64
    x.set([1.5, -2.25, 1e-3, 3.0e10, 0, 0, 0, 0], cast=True)
    h.set([0.5, -1.0, 65504.0] + [0.0] * 13)
    b.set([0x08, 0xC0, 0x80, 0x7F] + [0] * 28)
    for loops in ("auto", "sequential"):
        _in_vf(loops, dump_all, x.GetPhyAddr(), h.GetPhyAddr(), b.GetPhyAddr())
        want = (
            "DumpTensor: desc=5, addr=0x0, data_type=float32, position=UB, dump_size=4\n"
            "[1.500000, -2.250000, 0.001000, 30000001024.000000]\n"  # 3e10 as a float32
            "DumpTensor: desc=6, addr=0x8, data_type=float32, position=UB, dump_size=2\n"
            "[0.001000, 30000001024.000000]\n"
            "DumpTensor: desc=7, addr=0x20, data_type=float16, position=UB, dump_size=3\n"
            "[0.500000, -1.000000, 65504.000000]\n"
            "DumpTensor: desc=4294967295, addr=0x40, data_type=int8, position=UB, dump_size=4\n"
            "[8, -64, -128, 127]\n"
            "DumpTensor: desc=1, addr=0x40, data_type=bool, position=UB, dump_size=4\n"
            "[1, 1, 1, 1]\n"
            # HiFloat8 0x08 is 1.0 (dot 0, exponent 0), 0xC0 is -16.0 (sign, dot 3, exponent 4)
            "DumpTensor: desc=2, addr=0x40, data_type=hifloat8, position=UB, dump_size=2\n"
            "[1.000000, -16.000000]\n"
            "DumpTensor: desc=3, addr=0x0, data_type=float32, position=UB, dump_size=0\n"
            "[]\n"
            "DumpTensor: desc=8, addr=0x0, data_type=int32, position=REG, dump_size=3\n"
            "[-7, -7, -7]\n"
            "DumpTensor: desc=9, addr=0x0, data_type=uint16, position=REG, dump_size=2\n"
            "[65529, 65535]\n"
            "DumpTensor: desc=10, addr=0x0, data_type=int64, position=REG, dump_size=1\n"
            "[-25769803783]\n"  # two int32 -7 words as one little-endian int64
        )
        assert capsys.readouterr().out == want


def _float_bits_text(bits: int) -> str:
    """An independent float32 %f: the value from its bits (struct), formatted as C's %f."""
    (value,) = struct.unpack("<f", struct.pack("<I", bits))
    if math.isnan(value):
        return "-nan" if bits >> 31 else "nan"
    return f"{value:f}"


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=16), st.integers(0, 2**32 - 1))
def test_dump_ubuf_prints_every_float32_bit_pattern_as_c(words: list[int], desc: int) -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.uint32, 16)
    t.set(words + [0] * (16 - len(words)))
    p = t.GetPhyAddr().reinterpret(rs.float32)
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rs.asc_vf_call(lambda_free_dump, p, desc, len(words))
    want = (
        f"DumpTensor: desc={desc}, addr=0x0, data_type=float32, position=UB, dump_size={len(words)}\n"
        f"[{', '.join(_float_bits_text(w) for w in words)}]\n"
    )
    assert buf.getvalue() == want


@rs.simd_vf
def lambda_free_dump(p: rs.UbPtr[rs.float32], desc: int, n: int) -> None:
    rs.asc_dump_ubuf(p, desc, n)


@rs.simd_vf
def overflow(x: rs.UbPtr[rs.float32], n: int) -> None:
    for i in range(n):
        rs.printf("record %d\n", i)  # 24 + 8 + 11 bytes: 48 with the alignment, 8 more: 56 a record
    rs.asc_dump_ubuf(x, 1, 1)


@LOOPS
def test_the_2kb_buffer_of_a_vf_call_drops_what_does_not_fit(loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 8)
    x.set([1.0] * 8)
    # 36 records of 56 bytes fill 2016 of the 2028 bytes; the 37th and the dump (72 + 32) are dropped
    _in_vf(loops, overflow, x.GetPhyAddr(), 40)
    warning = "[WARNING]: SIMD VF debug buffer overflow (max limit is 2KB), output was truncated.\n"
    assert capsys.readouterr().out == "".join(f"record {i}\n" for i in range(36)) + warning
    _in_vf(loops, overflow, x.GetPhyAddr(), 2)  # a new VF call has the whole buffer again
    dump = "DumpTensor: desc=1, addr=0x0, data_type=float32, position=UB, dump_size=1\n[1.000000]\n"
    assert capsys.readouterr().out == "record 0\nrecord 1\n" + dump


@rs.simd_vf
def big_dump(x: rs.UbPtr[rs.float32], n: int) -> None:
    rs.asc_dump_ubuf(x, 1, n)
    rs.printf("after\n")


@LOOPS
def test_a_dump_larger_than_the_buffer_is_dropped_with_what_follows(loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 600)
    x.set(np.ones(600, np.float32))
    _in_vf(loops, big_dump, x.GetPhyAddr(), 489)  # (2028 - 72) // 4 = 489 floats: 72 + 1984 > 2028, dropped
    warning = "[WARNING]: SIMD VF debug buffer overflow (max limit is 2KB), output was truncated.\n"
    assert capsys.readouterr().out == warning
    _in_vf(loops, big_dump, x.GetPhyAddr(), 486)  # 72 + 1952 = 2024 bytes fit; the printf (40) does not
    out = capsys.readouterr().out
    assert out.startswith("DumpTensor: desc=1, addr=0x0, data_type=float32, position=UB, dump_size=486\n[1.000000, ")
    assert out.endswith("1.000000]\n" + warning)


@rs.simd_vf
def bad_call(which: int, x: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    calls = {
        0: lambda: rs.printf("%d\n", 1.5),
        1: lambda: rs.printf("%f\n", 1),
        2: lambda: rs.printf("%d %d\n", 1),
        3: lambda: rs.printf("%e\n", 1.0),
        4: lambda: rs.printf("tab\there\n"),
        5: lambda: rs.printf("%s\n", 3),
        6: lambda: rs.asc_dump_ubuf(x + 6, 1, 4),
        7: lambda: rs.asc_dump_ubuf(x, -1, 4),
        8: lambda: rs.asc_dump_reg(rs.float32, r, 1, 65),
        9: lambda: rs.asc_dump_reg(rs.complex64, r, 1, 1),
        10: lambda: rs.asc_dump_ubuf(x + 8, 1, 1),
        11: lambda: rs.asc_dump_reg(rs.float32, r, 1, 1),
        12: lambda: rs.asc_dump(x, 1),
        13: lambda: rs.asc_dump_reg(rs.float32, x, 1, 1),
        14: lambda: rs.printf(7),
        15: lambda: rs.printf("%hd\n", 1),
        16: lambda: rs.printf(),  # type: ignore[call-arg]
        17: lambda: rs.asc_dump_ubuf(x, 1, 2, 3),  # type: ignore[call-arg]
    }
    calls[which]()


@pytest.mark.parametrize(
    ("which", "error", "text"),
    [
        (0, ParameterError, r"printf: args\[0\] = 1\.5; accepted: an integer for %d"),
        (1, ParameterError, r"printf: args\[0\] = 1; accepted: a floating-point value for %f"),
        (2, ParameterError, r"printf: args = 1 arguments; accepted: one per conversion"),
        (3, UnsupportedError, r"printf: fmt = .*the conversion '%e'.*accepted: the conversions of the printf page"),
        (4, UnsupportedError, r"printf: fmt = .*no escape characters but the newline"),
        (5, ParameterError, r"printf: args\[0\] = 3; accepted: a str"),
        (6, OutOfBoundsError, r"asc_dump_ubuf: dump_size = 4 \(UB bytes \[24, 40\)\); accepted: within input's LocalTensor"),
        (7, ParameterError, r"asc_dump_ubuf: desc = -1; accepted: an int in \[0, 4294967295\]"),
        (8, ParameterError, r"asc_dump_reg: dump_size = 65; accepted: an int in \[0, 64\]"),
        (9, DTypeError, r"asc_dump_reg: T = complex64; accepted: bool, int8"),
        (10, OutOfBoundsError, r"asc_dump_ubuf: dump_size = 1"),
        (11, UninitializedReadError, r"asc_dump_reg: input lane 0 \(as float32\) is dumped but was never written"),
        (12, ParameterError, r"asc_dump: args = 2 arguments"),
        (13, ParameterError, r"asc_dump_reg: input = UbPtr.*accepted: a Reg.RegTensor"),
        (14, ParameterError, r"printf: fmt = 7; accepted: a str"),
        (15, UnsupportedError, r"printf: fmt = .*the conversion '%hd'"),
        (16, ParameterError, r"printf: fmt = missing"),
        (17, ParameterError, r"asc_dump_ubuf: arguments = 3 \(extra positional\)"),
    ],
)
@LOOPS
def test_bad_calls_raise_naming_the_parameter_and_print_nothing(
    which: int, error: type[Exception], text: str, loops: str, capsys: pytest.CaptureFixture[str]
) -> None:
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 8)
    x.set(np.zeros(8, np.float32))
    with pytest.raises(error, match=text):
        _in_vf(loops, bad_call, which, x.GetPhyAddr())
    assert capsys.readouterr().out == ""


def test_an_unwritten_ub_byte_and_an_unaligned_pointer_are_reported() -> None:
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 8)
    x.set([1.0, 2.0])
    with pytest.raises(UninitializedReadError, match=r"asc_dump_ubuf: input reads UB byte 8, which was never written"):
        rs.asc_vf_call(lambda_free_dump, x.GetPhyAddr(), 1, 3)
    with pytest.raises(AlignmentError, match=r"asc_dump_ubuf: input = UB byte 2; accepted: a multiple of 4 bytes"):
        rs.asc_vf_call(lambda_free_dump, x.GetPhyAddr().reinterpret(rs.uint8).__add__(2).reinterpret(rs.float32), 1, 1)
    with rs.configure(check_uninitialized=False):
        rs.asc_vf_call(lambda_free_dump, x.GetPhyAddr(), 1, 3)  # never-written bytes read 0


def test_the_functions_run_only_inside_a_vf() -> None:
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 8)
    with pytest.raises(VfContextError, match="printf: called outside a vector function"):
        rs.printf("hello\n")
    with pytest.raises(VfContextError, match="asc_dump_ubuf: called outside a vector function"):
        rs.asc_dump_ubuf(x.GetPhyAddr(), 1, 1)
    with pytest.raises(VfContextError, match="asc_dump: called outside a vector function"):
        rs.asc_dump(rs.float32, Reg.RegTensor(rs.float32), 1, 1)


# --- C's own printf as the oracle: glibc's snprintf through ctypes ---------------------------------------
libc = None
try:
    import ctypes
    import ctypes.util

    _name = ctypes.util.find_library("c")
    libc = ctypes.CDLL(_name) if _name else None
except OSError:  # pragma: no cover - no C library to compare with
    libc = None


def _c_snprintf(fmt: str, arg: object) -> str:
    assert libc is not None
    buf = ctypes.create_string_buffer(512)
    libc.snprintf(buf, 512, fmt.encode(), arg)
    return buf.value.decode()


@rs.simd_vf
def print_one(fmt: str, value: object) -> None:
    rs.printf(fmt, value)


_C_ARG = {
    "d": ctypes.c_int,
    "i": ctypes.c_int,
    "u": ctypes.c_uint,
    "x": ctypes.c_uint,
    "ld": ctypes.c_long,
    "li": ctypes.c_long,
    "lu": ctypes.c_ulong,
    "lx": ctypes.c_ulong,
    "lld": ctypes.c_longlong,
    "llu": ctypes.c_ulonglong,
    "llx": ctypes.c_ulonglong,
}


@pytest.mark.skipif(libc is None or ctypes.sizeof(ctypes.c_long) != 8, reason="needs an LP64 C library")
@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([*_C_ARG, "f", "F", "s", "p"]),
    st.lists(st.sampled_from("-+ #0"), max_size=3, unique=True),
    st.one_of(st.none(), st.integers(0, 20)),
    st.one_of(st.none(), st.integers(0, 12)),
    st.data(),
)
def test_printf_matches_the_c_librarys_printf(
    conv: str, flags: list[str], width: int | None, prec: int | None, data: st.DataObject
) -> None:
    if conv in ("s", "p"):
        flags = [f for f in flags if f == "-"]  # other flags are undefined for %s and %p in C
    if conv == "p":
        prec = None
    spec = "%" + "".join(flags) + ("" if width is None else str(width)) + ("" if prec is None else f".{prec}") + conv
    if conv in _C_ARG:
        value: object = data.draw(st.integers(-(2**64), 2**64 - 1))
        c_arg: object = _C_ARG[conv](value)  # C's conversion of the argument to the parameter's type
    elif conv in "fF":
        value = data.draw(st.floats(allow_nan=True, allow_infinity=True, width=32) | st.floats(-1e12, 1e12))
        c_arg = ctypes.c_double(value)
    elif conv == "s":
        value = data.draw(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=12))
        c_arg = ctypes.c_char_p(value.encode())
    else:
        value = data.draw(st.integers(0, 2**48))
        c_arg = ctypes.c_void_p(value)
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rs.asc_vf_call(print_one, f"<{spec}>", value)
    assert buf.getvalue() == _c_snprintf(f"<{spec}>", c_arg)


@rs.simd_vf
def print_post_update(x: rs.UbPtr[rs.float32], n: int) -> None:
    p = x + 0
    for i in range(n):
        r = Reg.RegTensor(rs.float32)
        Reg.LoadAlign(r, p, 64, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
        rs.printf("%u: %f\n", i, 0.5)
        rs.asc_dump_reg(rs.float32, r, i, 1)


@LOOPS
def test_a_loop_with_a_post_update_pointer_prints_each_iteration_once(loops: str, capsys: pytest.CaptureFixture[str]) -> None:
    # (auto: iteration 0 runs in order to learn the pointer's stride, then the printf stops the batch)
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 256)
    x.set(np.arange(256, dtype=np.float32))
    _in_vf(loops, print_post_update, x.GetPhyAddr(), 4)
    want = "".join(
        f"{i}: 0.500000\nDumpTensor: desc={i}, addr=0x0, data_type=float32, position=REG, dump_size=1\n[{64 * i}.000000]\n"
        for i in range(4)
    )
    assert capsys.readouterr().out == want
