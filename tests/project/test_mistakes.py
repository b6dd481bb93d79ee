"""A kernel author's mistakes, each one clear error: the `rs.errors` class, a message naming the
parameter and what to write instead; never a bare Python exception, never a silent result.

The list covers the Python API (Reg level and host side), the memory-level APIs (`rs.AscendC`), the
C API (`rs.capi`) and the `regsim` command (Python kernel files and C++ files run with `--vf`). Every
public memory-level and C API callable is also probed for a missing argument and an unknown keyword.
"""

from __future__ import annotations

import enum
import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg, capi
from regsim._src.frontends import cli
from regsim.errors import (
    AlignmentError,
    DTypeError,
    OutOfBoundsError,
    ParameterError,
    RegsimError,
    UninitializedReadError,
    UnsupportedError,
    VfContextError,
)

A = rs.AscendC
HERE = Path(__file__).resolve().parents[1]  # tests/


class K:
    """What a mistake works on: a fresh UB with written float32, int32, half and uint8 tensors, pointers
    to them and registers (made fresh for each mistake)."""

    def __init__(self) -> None:
        self.ub = rs.UnifiedBuffer(64 * 1024)
        self.f = self.ub.alloc(rs.float32, 256)
        self.g = self.ub.alloc(rs.float32, 256)
        self.i = self.ub.alloc(rs.int32, 256)
        self.h = self.ub.alloc(rs.half, 256)
        self.u8 = self.ub.alloc(rs.uint8, 256)
        self.small = self.ub.alloc(rs.float32, 8)
        self.unwritten = self.ub.alloc(rs.float32, 256)
        self.out = self.ub.alloc(rs.float32, 256)
        for t in (self.f, self.g, self.i, self.h, self.u8, self.small):
            t.set(np.arange(t.GetSize()) % 7)
        self.off = self.ub.alloc(rs.uint32, 64)
        self.off.set(np.arange(64) * 4)
        self.fr, self.gr = Reg.RegTensor.from_numpy(np.ones(64, np.float32)), Reg.RegTensor(rs.float32)
        self.ir = Reg.RegTensor.from_numpy(np.ones(64, np.int32))
        self.i16 = Reg.RegTensor.from_numpy(np.ones(128, np.int16))
        self.full = Reg.MaskReg.from_bits([True] * 256)


@dataclass(frozen=True)
class Mistake:
    """A mistake: `call(k)` must raise `error` (a RegsimError) whose message contains every string of `says`
    (the parameter, and what is accepted or what to write)."""

    call: Callable[[K], object]
    error: type[RegsimError]
    says: tuple[str, ...]
    in_vf: bool = False  #: run the call inside `with rs.VEC_SCOPE():`


@rs.simd_vf
def scale_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], count: int) -> None:
    r = Reg.RegTensor(rs.float32)
    n = rs.Ref(count)
    for i in range(-(-count // 64)):
        m = Reg.UpdateMask(rs.float32, n)
        Reg.LoadAlign(r, src + i * 64)
        Reg.Muls(r, r, 2.0, m)
        Reg.StoreAlign(dst + i * 64, r, m)


@rs.simd_callee
def twice(r: Reg.RegTensor[rs.float32], m: Reg.MaskReg) -> None:
    Reg.Add(r, r, r, m)


@rs.simd_vf
def calls_callee_badly(src: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    Reg.LoadAlign(r, src)
    twice(r)  # type: ignore[call-arg]


# --- the Python API: registers, VFs, the host side ----------------------------------------------------------------
PYTHON_API: dict[str, Mistake] = {
    "Reg op outside a VF": Mistake(lambda k: Reg.Add(k.gr, k.fr, k.fr, k.full), VfContextError, ("outside", "@rs.simd_vf")),
    "operands of two dtypes": Mistake(
        lambda k: Reg.Add(k.gr, k.fr, k.ir, k.full), DTypeError, ("src_reg1", "RegTensor[int32]", "float32"), in_vf=True
    ),
    "merge mode as a string": Mistake(
        lambda k: Reg.Add(k.gr, k.fr, k.fr, k.full, mode="MERGING"),
        ParameterError,
        ("mode", "write Reg.MaskMergeMode.MERGING"),
        in_vf=True,
    ),
    "compare mode as a string": Mistake(
        lambda k: Reg.Compare(Reg.MaskReg(), k.fr, k.fr, k.full, mode="GT"),
        ParameterError,
        ("mode", "write Reg.CMPMODE.GT"),
        in_vf=True,
    ),
    "compare mode as a number": Mistake(
        lambda k: Reg.Compare(Reg.MaskReg(), k.fr, k.fr, k.full, mode=1),
        ParameterError,
        ("mode", "write Reg.CMPMODE.GT"),
        in_vf=True,
    ),
    "LoadAlign from a LocalTensor": Mistake(
        lambda k: Reg.LoadAlign(k.gr, k.f), ParameterError, ("src_addr", "LocalTensor[float32]", ".GetPhyAddr()"), in_vf=True
    ),
    "StoreAlign to a LocalTensor": Mistake(
        lambda k: Reg.StoreAlign(k.out, k.fr, k.full), ParameterError, ("dst_addr", ".GetPhyAddr()"), in_vf=True
    ),
    "UpdateMask on a plain int": Mistake(
        lambda k: Reg.UpdateMask(rs.float32, 64), ParameterError, ("scalar_value", "rs.Ref"), in_vf=True
    ),
    "UpdateMask without its count": Mistake(
        lambda k: Reg.UpdateMask(rs.float32), ParameterError, ("scalar_value", "missing"), in_vf=True
    ),
    "CreateMask pattern as mode=": Mistake(
        lambda k: Reg.CreateMask(rs.float32, mode=Reg.MaskPattern.ALL), ParameterError, ("mode", "pattern"), in_vf=True
    ),
    "a numpy dtype for a regsim one": Mistake(lambda k: Reg.CreateMask(np.float32), DTypeError, ("T", "rs.float32"), in_vf=True),
    "a float scalar for an int32 register": Mistake(
        lambda k: Reg.Muls(k.ir, k.ir, 2.5, k.full), ParameterError, ("scalar_value", "an int"), in_vf=True
    ),
    "a scalar out of the element range": Mistake(
        lambda k: Reg.Adds(k.i16, k.i16, 70000, k.full), ParameterError, ("scalar_value", "[-32768, 32767]"), in_vf=True
    ),
    "an unaligned LoadAlign": Mistake(
        lambda k: Reg.LoadAlign(k.gr, k.f.GetPhyAddr() + 3), AlignmentError, ("src_addr", "multiple of 32"), in_vf=True
    ),
    "a store past its tensor": Mistake(
        lambda k: Reg.StoreAlign(k.small.GetPhyAddr(), k.fr, k.full),
        OutOfBoundsError,
        ("dst_addr", "within its LocalTensor"),
        in_vf=True,
    ),
    "a register read before it is written": Mistake(
        lambda k: Reg.Add(k.gr, Reg.RegTensor(rs.float32), k.fr, k.full), UninitializedReadError, ("src_reg0",), in_vf=True
    ),
    "a mode the op does not have": Mistake(
        lambda k: Reg.Sub(k.gr, k.fr, k.fr, k.full, mode=Reg.MaskMergeMode.MERGING),
        UnsupportedError,
        ("mode", "ZEROING"),
        in_vf=True,
    ),
    "a keyword the op does not have": Mistake(
        lambda k: Reg.Add(k.gr, k.fr, k.fr, k.full, mod=Reg.MaskMergeMode.ZEROING),
        ParameterError,
        ("mod", "no such parameter", "mode"),
        in_vf=True,
    ),
    "an int for a pointer": Mistake(lambda k: Reg.LoadAlign(k.gr, 0), ParameterError, ("src_addr", "UbPtr"), in_vf=True),
    "Duplicate without its value": Mistake(lambda k: Reg.Duplicate(k.gr), ParameterError, ("scalar_value",), in_vf=True),
    "a SUM of int16 into int16": Mistake(
        lambda k: Reg.Reduce(Reg.RegTensor(rs.int16), k.i16, k.full), DTypeError, ("dst_reg", "int32"), in_vf=True
    ),
    "RegTensor of a numpy dtype": Mistake(lambda k: Reg.RegTensor(np.float32), DTypeError, ("dtype", "rs.float32")),
    "RegTensor with a bad trait": Mistake(lambda k: Reg.RegTensor(rs.float32, trait=2), ParameterError, ("trait",)),
    "Ref without a value": Mistake(lambda k: rs.Ref(), ParameterError, ("value", "missing")),
    "alloc past the UB": Mistake(
        lambda k: k.ub.alloc(rs.float32, 100_000), ParameterError, ("count", "at most", "ub_size", "--ub-size")
    ),
    "alloc of nothing": Mistake(lambda k: k.ub.alloc(rs.float32, 0), ParameterError, ("count", "[1, inf]")),
    "alloc at a string position": Mistake(
        lambda k: k.ub.alloc(rs.float32, 8, position="VECIN"), ParameterError, ("position", "write rs.AscendC.TPosition.VECIN")
    ),
    "a UB not a multiple of 32": Mistake(lambda k: rs.UnifiedBuffer(1000), ParameterError, ("size", "multiple of 32")),
    "configure with an unknown loop mode": Mistake(
        lambda k: rs.configure(loops="fast"), ParameterError, ("loops", '"sequential"')
    ),
    "configure with a bad UB size": Mistake(lambda k: rs.configure(ub_size=100), ParameterError, ("ub_size", "multiple of 32")),
    "configure with a typo": Mistake(lambda k: rs.configure(loop="sequential"), ParameterError, ("loop", "did you mean loops=")),
    "set more values than the tensor holds": Mistake(
        lambda k: k.small.set(np.zeros(9)), ParameterError, ("len(values)", "GetSize() = 8")
    ),
    "set a value the dtype cannot hold": Mistake(lambda k: k.h.set([70000.0]), ParameterError, ("cast=True",)),
    "a view past the tensor": Mistake(lambda k: k.small[8], ParameterError, ("offset", "[0, 7]")),
    "reinterpret as a numpy type": Mistake(lambda k: k.f.GetPhyAddr().reinterpret(np.int32), DTypeError, ("dtype", "rs.float32")),
    "a pointer plus a float": Mistake(lambda k: k.f.GetPhyAddr() + 1.0, ParameterError, ("n", "an int")),
    "a VF called without an argument": Mistake(
        lambda k: scale_vf(k.out.GetPhyAddr(), k.f.GetPhyAddr()), ParameterError, ("count = missing", "scale_vf(dst, src, count)")
    ),
    "a VF called with an argument too many": Mistake(
        lambda k: scale_vf(k.out.GetPhyAddr(), k.f.GetPhyAddr(), 64, 1),
        ParameterError,
        ("extra positional", "at most 3"),
    ),
    "a VF called with a misspelt keyword": Mistake(
        lambda k: scale_vf(k.out.GetPhyAddr(), k.f.GetPhyAddr(), cout=64),
        ParameterError,
        ("cout", "did you mean count="),
    ),
    "a VF run through asc_vf_call without an argument": Mistake(
        lambda k: rs.asc_vf_call(scale_vf, k.out.GetPhyAddr(), k.f.GetPhyAddr()), ParameterError, ("count = missing",)
    ),
    "a callee called without an argument": Mistake(
        lambda k: calls_callee_badly(k.f.GetPhyAddr()), ParameterError, ("twice", "m = missing")
    ),
    "a callee called outside a VF": Mistake(lambda k: twice(k.fr, k.full), VfContextError, ("twice", "outside")),
    "asc_vf_call of a plain function": Mistake(lambda k: rs.asc_vf_call(lambda: None), VfContextError, ("F", "@rs.simd_vf")),
    "asc_vf_call of nothing": Mistake(lambda k: rs.asc_vf_call(), ParameterError, ("asc_vf_call", "f = missing")),
    "a VEC_SCOPE inside a VF": Mistake(lambda k: rs.VEC_SCOPE().__enter__(), VfContextError, ("VEC_SCOPE",), in_vf=True),
    "a tensor expression with a number": Mistake(
        lambda k: k.out.__setitem__(slice(None), k.i & 3), ParameterError, ("src1", "a LocalTensor")
    ),
    "a tensor expression passed as a tensor": Mistake(
        lambda k: A.Add(k.out, k.f & k.g, k.g, 64), ParameterError, ("src0", "dst[:] = src0 & src1")
    ),
    "a tensor expression assigned to a slice": Mistake(
        lambda k: k.out.__setitem__(slice(0, 4), k.f + k.g), ParameterError, ("dst[:] = src0 <op> src1",)
    ),
    "assert_reg_equal on a tensor": Mistake(
        lambda k: rs.testing.assert_reg_equal(k.f, [0] * 64), ParameterError, ("actual", "a RegTensor")
    ),
}

# --- the memory-level APIs ----------------------------------------------------------------------------------------
MEMORY_LEVEL: dict[str, Mistake] = {
    "Add without src1": Mistake(lambda k: A.Add(k.out, k.f), ParameterError, ("Add", "src1 = missing")),
    "Add with isSetMask spelt as in C++": Mistake(
        lambda k: A.Add(k.out, k.f, k.g, 64, isSetMask=False), ParameterError, ("isSetMask", "did you mean is_set_mask=")
    ),
    "Add of more elements than the tensors hold": Mistake(
        lambda k: A.Add(k.out, k.f, k.small, 64), ParameterError, ("count", "[0, 8]", "src1")
    ),
    "Add of two dtypes": Mistake(lambda k: A.Add(k.out, k.f, k.i, 64), DTypeError, ("src1", "float32")),
    "Add on a misaligned view": Mistake(lambda k: A.Add(k.out, k.f[3], k.g, 64), AlignmentError, ("src0", "32 bytes")),
    "Add on pointers": Mistake(
        lambda k: A.Add(k.out.GetPhyAddr(), k.f.GetPhyAddr(), k.g.GetPhyAddr(), 64), ParameterError, ("dst", "a LocalTensor")
    ),
    "Add with a mask out of range": Mistake(
        lambda k: A.Add(k.out, k.f, k.g, 65, 1, A.BinaryRepeatParams()), ParameterError, ("mask", "64")
    ),
    "And on int64 through the repeat interface": Mistake(
        lambda k: A.And(*(k.ub.alloc(rs.int64, 64) for _ in range(3)), 32, 1, A.BinaryRepeatParams()),
        DTypeError,
        ("dst", "int16"),
    ),
    "Compare mode as a string": Mistake(
        lambda k: A.Compare(k.u8, k.f, k.g, "GT", 64), ParameterError, ("cmp_mode", "write rs.AscendC.CMPMODE.GT")
    ),
    "Gather offsets past src": Mistake(
        lambda k: A.Gather(k.out, k.small, k.off, 0, 64), OutOfBoundsError, ("src_offset", "inside src", "8 float32")
    ),
    "Gather offsets not element-aligned": Mistake(
        lambda k: (k.off.set(np.arange(64) * 4 + 2), A.Gather(k.out, k.f, k.off, 0, 64)),
        ParameterError,
        ("src_offset", "multiples of 4"),
    ),
    "Gather offsets of float32": Mistake(
        lambda k: A.Gather(k.out, k.f, k.g, 0, 64), DTypeError, ("src_offset", "LocalTensor[uint32]")
    ),
    "Gather without its count": Mistake(lambda k: A.Gather(k.out, k.f, k.off, 0), ParameterError, ("Gather", "count")),
    "Cast round mode as a string": Mistake(
        lambda k: A.Cast(k.h, k.f, "CAST_RINT", 64), ParameterError, ("round_mode", "write rs.AscendC.RoundMode.CAST_RINT")
    ),
    "GetCmpMask at a misaligned address": Mistake(
        lambda k: A.GetCmpMask(k.u8[3]), AlignmentError, ("dst", "aligned to 16 bytes")
    ),
    "ReduceMax of unwritten data": Mistake(
        lambda k: A.ReduceMax(k.out, k.unwritten, k.g, 64), UninitializedReadError, ("ReduceMax",)
    ),
    "WholeReduceSum given a reduce_type": Mistake(
        lambda k: A.WholeReduceSum(k.out, k.f, 64, 1, 1, 1, 8, reduce_type=A.ReduceType.MAX),
        ParameterError,
        ("WholeReduceSum", "reduce_type", "order, is_set_mask"),
    ),
    "Muls on int32 with a float": Mistake(lambda k: A.Muls(k.i, k.i, 2.5, 64), ParameterError, ("scalar_value", "an int")),
    "Duplicate of a float into int32": Mistake(lambda k: A.Duplicate(k.i, 1.5, 64), ParameterError, ("scalar_value", "an int")),
    "Select mode as a string": Mistake(
        lambda k: A.Select(k.out, k.u8, k.f, k.g, "VSEL_TENSOR_TENSOR_MODE", 64),
        ParameterError,
        ("sel_mode", "write rs.AscendC.SELMODE.VSEL_TENSOR_TENSOR_MODE"),
    ),
    "Add inside a VF": Mistake(lambda k: A.Add(k.out, k.f, k.g, 64), VfContextError, ("Add",), in_vf=True),
    "Truncate with a round mode it has not": Mistake(
        lambda k: A.Truncate(k.out, k.f, 8, round_mode=A.RoundMode.CAST_NONE), ParameterError, ("round_mode", "CAST_FLOOR")
    ),
    "Exp with a config of the wrong type": Mistake(
        lambda k: A.Exp(k.out, k.f, 64, config=A.DivConfig()), ParameterError, ("config", "ExpConfig")
    ),
    "SetVectorMask without its type": Mistake(lambda k: A.SetVectorMask(0, 0xFF), DTypeError, ("T", "rs.float32")),
    "Exp with an unknown keyword": Mistake(
        lambda k: A.Exp(k.out, k.f, 64, algo=A.ExpAlgo.INTRINSIC), ParameterError, ("algo", "config")
    ),
}

# --- the C API ----------------------------------------------------------------------------------------------------
C_API: dict[str, Mistake] = {
    "asc_add without its mask": Mistake(
        lambda k: capi.asc_add(k.gr, k.fr, k.fr),
        ParameterError,
        ("mask = missing", "asc_add(dst_reg, src_reg0, src_reg1, mask)"),
        in_vf=True,
    ),
    "asc_add with the mask by keyword": Mistake(
        lambda k: capi.asc_add(k.gr, k.fr, k.fr, mask=k.full), ParameterError, ("mask", "by position"), in_vf=True
    ),
    "asc_add of two dtypes": Mistake(
        lambda k: capi.asc_add(k.gr, k.fr, k.ir, k.full), DTypeError, ("src_reg1", "float32"), in_vf=True
    ),
    "asc_add outside a VF": Mistake(lambda k: capi.asc_add(k.gr, k.fr, k.fr, k.full), VfContextError, ("outside",)),
    "a pattern as a string": Mistake(
        lambda k: capi.asc_create_mask_b32("PAT_ALL"), ParameterError, ("pattern", "write capi.PAT_ALL"), in_vf=True
    ),
    "a pattern as a number": Mistake(
        lambda k: capi.asc_create_mask_b16(0), ParameterError, ("pattern", "rs.capi constants", "PAT_VL1"), in_vf=True
    ),
    "a memory-barrier type as a string": Mistake(
        lambda k: capi.asc_mem_bar("VV_ALL"), ParameterError, ("mem_type", "write capi.VV_ALL"), in_vf=True
    ),
    "asc_update_mask on a plain int": Mistake(
        lambda k: capi.asc_update_mask_b32(64), ParameterError, ("scalar_value", "rs.Ref(count)"), in_vf=True
    ),
    "asc_eq with too few arguments": Mistake(
        lambda k: capi.asc_eq(k.f, k.g), ParameterError, ("(repeat or src1 missing)", "(src0, src1, repeat, dst_block_stride")
    ),
    "asc_eq on int32 into the register": Mistake(
        lambda k: capi.asc_eq(k.i, k.i, 1, 1, 1, 1, 8, 8, 8), DTypeError, ("src0", "__ubuf__ float32*")
    ),
    "asc_eq at a misaligned address": Mistake(
        lambda k: capi.asc_eq(k.f.GetPhyAddr() + 1, k.g, 1, 1, 1, 1, 8, 8, 8), AlignmentError, ("src0", "32 bytes")
    ),
    "asc_eq with a repeat past uint8_t": Mistake(
        lambda k: capi.asc_eq(k.u8, k.f, k.g, 256, 1, 1, 1, 8, 8, 8), ParameterError, ("repeat", "[0, 2**8 - 1]")
    ),
    "asc_eq of a tensor expression": Mistake(
        lambda k: capi.asc_eq(k.f & k.g, k.g, 1, 1, 1, 1, 8, 8, 8), ParameterError, ("src0", "dst[:] = src0 & src1")
    ),
    "asc_eq with a keyword": Mistake(
        lambda k: capi.asc_eq(k.f, k.g, repeat=1), ParameterError, ("repeat", "by position", "asc_eq(src0, src1, repeat")
    ),
    "asc_eq_scalar of a float against int32": Mistake(
        lambda k: capi.asc_eq_scalar(k.u8, k.i, 2.5, 1, 1, 1, 8, 8), ParameterError, ("value", "int")
    ),
    "asc_eq_sync in the register form": Mistake(
        lambda k: capi.asc_eq_sync(Reg.MaskReg(), k.fr, k.fr, k.full),
        ParameterError,
        ("arguments", "no register form", "call asc_eq"),
        in_vf=True,
    ),
    "asc_get_cmp_mask at a misaligned address": Mistake(
        lambda k: capi.asc_get_cmp_mask(k.u8.GetPhyAddr() + 3), AlignmentError, ("dst", "aligned to 16 bytes")
    ),
    "asc_get_cmp_mask into too little room": Mistake(
        lambda k: capi.asc_get_cmp_mask(k.ub.alloc(rs.uint8, 8)), OutOfBoundsError, ("dst", "within its LocalTensor")
    ),
    "asc_get_cmp_mask by keyword": Mistake(lambda k: capi.asc_get_cmp_mask(dst=k.u8), ParameterError, ("dst", "by position")),
    "asc_set_cmp_mask without its source": Mistake(lambda k: capi.asc_set_cmp_mask(), ParameterError, ("sel_mask = missing",)),
    "asc_set_cmp_mask of unwritten bytes": Mistake(
        lambda k: capi.asc_set_cmp_mask(k.unwritten), UninitializedReadError, ("sel_mask", "written")
    ),
    "asc_eq with a stride past uint8_t": Mistake(
        lambda k: capi.asc_eq(k.u8, k.f, k.g, 1, 1, 1, 1, 300, 8, 8), ParameterError, ("dst_repeat_stride", "[0, 2**8 - 1]")
    ),
}


def _raise(mistake: Mistake) -> RegsimError:
    k = K()
    with pytest.raises(RegsimError) as info:
        if mistake.in_vf:
            with rs.VEC_SCOPE():
                mistake.call(k)
        else:
            mistake.call(k)
    return info.value


@pytest.mark.parametrize(
    "mistake", [*PYTHON_API.values(), *MEMORY_LEVEL.values(), *C_API.values()], ids=[*PYTHON_API, *MEMORY_LEVEL, *C_API]
)
def test_a_mistake_is_one_clear_error(mistake: Mistake) -> None:
    error = _raise(mistake)
    assert type(error) is mistake.error, f"{type(error).__name__}: {error}"
    for part in mistake.says:
        assert part in str(error), f"{part!r} not in: {error}"
    assert "TensorExpr" not in str(error) and "Traceback" not in str(error)


# --- every memory-level and C API callable binds its arguments as the Reg functions do ------------------------------
def _public(namespace: Any) -> list[tuple[str, Callable[..., Any]]]:
    names = getattr(namespace, "__all__", None) or [n for n in dir(namespace) if not n.startswith("_")]
    found = []
    for name in names:
        f = getattr(namespace, name)
        if callable(f) and not inspect.isclass(f) and not inspect.ismodule(f) and not isinstance(f, enum.Enum):
            found.append((name, f))
    return found


PROBED = [(f"AscendC.{n}", f) for n, f in _public(A)] + [(f"capi.{n}", f) for n, f in _public(capi)]


def test_every_memory_level_and_c_api_callable_is_probed() -> None:
    names = {n for n, _ in PROBED}
    assert len(names) > 600 and {"AscendC.Add", "AscendC.Gather", "capi.asc_eq", "capi.asc_add"} <= names


@pytest.mark.parametrize("kind", ["a missing argument", "an unknown keyword"])
def test_a_call_that_does_not_bind_names_the_api_and_the_parameter(kind: str) -> None:
    """No TypeError from Python's own binding: a ParameterError naming the API and the parameter (a
    function of no parameters runs; three register-level C functions of none say they need a VF)."""
    wrong = []
    for name, f in PROBED:
        api = name.partition(".")[2]
        try:
            f() if kind == "a missing argument" else f(bogus_keyword=1)
        except ParameterError as e:
            said = "missing" if kind == "a missing argument" else "bogus_keyword"
            takes_any = any(p.kind is p.VAR_KEYWORD for p in inspect.signature(f).parameters.values())
            if api not in str(e) or (said not in str(e) and not (takes_any and "missing" in str(e))):
                wrong.append(f"{name}: {e}")
        except VfContextError as e:
            if api not in str(e) or kind != "a missing argument":
                wrong.append(f"{name}: {type(e).__name__}: {e}")
        except Exception as e:
            wrong.append(f"{name}: {type(e).__name__}: {e}")
        else:
            if kind != "a missing argument" or inspect.signature(f).parameters:
                wrong.append(f"{name}: no error")
    assert not wrong, "\n".join(wrong[:20])


# --- nothing silent ---------------------------------------------------------------------------------------------------
def test_configure_as_a_statement_changes_the_configuration() -> None:
    """`rs.configure(...)` called as a statement sets the configuration from there on; as a `with`, it
    restores the previous one on exit."""
    before = rs._src.model.config.current_config()
    with rs.configure(loops="batched"):
        rs.configure(ub_size=2048, loops="sequential")  # a statement inside the block
        assert rs._src.model.config.current_config().loops == "sequential" and rs.UnifiedBuffer().size == 2048
    assert rs._src.model.config.current_config() == before  # the block's exit undoes both
    token = rs.configure(mask_fill="group")
    try:
        assert rs._src.model.config.current_config().mask_fill == "group"
        with rs.VEC_SCOPE():
            m = Reg.CreateMask(rs.float32)  # "group": every bit of an element's 4-bit group
        assert m.bits()[:4].tolist() == [True] * 4
    finally:
        token.__exit__(None, None, None)
    assert rs._src.model.config.current_config() == before


def test_the_compare_mask_register_takes_one_alignment_rule() -> None:
    """`asc_get_cmp_mask` / `asc_set_cmp_mask` refuse what `GetCmpMask` / `SetCmpMask` refuse (16-byte aligned) and
    take what they take."""
    k = K()
    for offset in range(16):
        errors = []
        for call, where in (
            (capi.asc_get_cmp_mask, k.u8.GetPhyAddr() + offset),
            (A.GetCmpMask, k.u8[offset]),
            (capi.asc_set_cmp_mask, k.u8.GetPhyAddr() + offset),
            (A.SetCmpMask, k.u8[offset]),
        ):
            try:
                call(where)
                errors.append(None)
            except AlignmentError:
                errors.append(AlignmentError)
        assert errors == [None if offset == 0 else AlignmentError] * 4, offset


@pytest.mark.parametrize("loops", ["auto", "sequential"])
def test_what_a_vf_that_raises_leaves_behind(loops: str) -> None:
    """README: the stores of earlier iterations stay, the failing call writes nothing, nothing after it runs; a
    memory-level call that raises leaves the UB as it was."""

    @rs.simd_vf
    def rows(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], n: int) -> None:
        r = Reg.RegTensor(rs.float32)
        for i in range(n):
            Reg.LoadAlign(r, src + i * 64)
            Reg.StoreAlign(dst + i * 64, r, Reg.CreateMask(rs.float32))

    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.float32, 4 * 64), ub.alloc(rs.float32, 2 * 64 + 8)
    half_written = ub.alloc(rs.float32, 128)
    half_written.set(np.ones(64))
    src.set(np.arange(256) + 1)
    dst.set(np.zeros(dst.GetSize()))
    with rs.configure(loops=loops), pytest.raises(OutOfBoundsError, match="dst_addr"):
        rows(dst.GetPhyAddr(), src.GetPhyAddr(), 4)  # row 2 would cross dst's end
    got = dst.numpy()
    np.testing.assert_array_equal(got[:128], np.arange(128) + 1)  # rows 0 and 1 stored
    np.testing.assert_array_equal(got[128:], np.zeros(8))  # row 2 wrote nothing
    before = ub.storage.data.copy()
    with pytest.raises(UninitializedReadError):
        A.Add(dst, src, half_written, 128)  # the first register's store lands, the second Add reads unwritten bytes
    np.testing.assert_array_equal(ub.storage.data, before)


# --- the regsim command -------------------------------------------------------------------------------------------
GOOD_KERNEL = """
import numpy as np
import regsim as rs
from regsim import Reg


@rs.simd_vf
def copy_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    Reg.LoadAlign(r, src)
    Reg.StoreAlign(dst{offset}, r, Reg.CreateMask(rs.float32))


def run(seed: int = 0):
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.float32, {n}), ub.alloc(rs.float32, 64)
    src.set(np.arange({n}) % 5)
    copy_vf(dst.GetPhyAddr(), src.GetPhyAddr())
    return {{"dst": (dst.numpy(), (np.arange(64) % 5).astype(np.float32))}}
"""


@dataclass(frozen=True)
class Command:
    """A command line with a mistake: exit `status`, one line of output (on stdout for a kernel's ERROR, on
    stderr for a usage error) holding every string of `says`, no traceback."""

    argv: list[str]
    status: int
    says: tuple[str, ...]
    files: dict[str, str] | None = None  #: files to write first (name -> text)


def _kernel(offset: str = "", n: int = 64) -> str:
    return textwrap.dedent(GOOD_KERNEL.format(offset=offset, n=n))


SAXPY = str(HERE / "cpp" / "saxpy.asc")
CARRY = str(HERE / "cpp" / "add_carry.asc")
SAXPY_ARGS = ["float32[64]", "float32[64]", "float32[64]", "2.0", "64"]
CARRY_ARGS = ["uint32[128]=0", "uint32[16]=0", "uint32[100]=iota", "uint32[100]=1", "100", "2", "64"]

COMMANDS: dict[str, Command] = {
    "a kernel whose store is misaligned": Command(
        ["run", "k.py"], 1, ("k.py:11: AlignmentError", "dst_addr", "multiple of 32"), {"k.py": _kernel(" + 1")}
    ),
    "a kernel that allocates past the UB": Command(
        ["run", "k.py"], 1, ("k.py:", "ParameterError", "count", "--ub-size"), {"k.py": _kernel(n=100_000)}
    ),
    "a run() without the seed": Command(
        ["run", "k.py"], 1, ("k.py:1: run()", "def run(seed: int = 0)"), {"k.py": "def run():\n    return {}\n"}
    ),
    "a run() of two parameters": Command(
        ["run", "k.py"], 1, ("k.py:1: run(seed, n)", "def run(seed: int = 0)"), {"k.py": "def run(seed, n):\n    return {}\n"}
    ),
    "a file without run()": Command(["run", "k.py"], 1, ("k.py", "no run(seed)"), {"k.py": "X = 1\n"}),
    "a syntax error": Command(["run", "k.py"], 1, ("k.py:1: SyntaxError",), {"k.py": "def run(seed=0)\n    return {}\n"}),
    "a missing file": Command(["run", "nope.py"], 2, ("nope.py", "no such file")),
    "a UB size not a multiple of 32": Command(["run", "--ub-size", "100", "k.py"], 2, ("--ub-size", "multiple of 32")),
    "a UB size that is not a number": Command(["run", "--ub-size", "big", "k.py"], 2, ("--ub-size", "256K")),
    "lower without its count": Command(["lower", "Gather(half)"], 2, ("count=N", "Gather")),
    "lower of an API that does not exist": Command(["lower", "Nope(half, count=8)"], 2, ("Nope", "Gather", "asc_eq")),
    "a C++ file without --vf": Command(["run", SAXPY], 2, ("--vf NAME",)),
    "a VF the file does not have": Command(["run", SAXPY, "--vf", "Saxpy"], 2, ("--vf Saxpy", "its VFs: SaxpyVF")),
    "--args one too few": Command(["run", SAXPY, "--vf", "SaxpyVF", "--args", *SAXPY_ARGS[:4]], 2, ("takes 5", "add count")),
    "--args one too many": Command(["run", SAXPY, "--vf", "SaxpyVF", "--args", *SAXPY_ARGS, "7"], 2, ("takes 5", "drop 7")),
    "a tensor of abc elements": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "float32[abc]", *SAXPY_ARGS[1:]],
        2,
        ("'float32[abc]'", "for z", "DTYPE[N]", "float32[256]"),
    ),
    "a tensor for a scalar": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", *SAXPY_ARGS[:3], "float32[4]", "64"],
        2,
        ("for alpha (float)", "a scalar parameter takes a number"),
    ),
    "a number for a pointer": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "float32[64]", "3", *SAXPY_ARGS[2:]],
        2,
        ("for x (float *)", "a pointer takes a UB tensor"),
    ),
    "a tensor of the wrong element type": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "int32[64]", *SAXPY_ARGS[1:]], 2, ("for z", "write float32[64]")
    ),
    "a misspelt dtype": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "flot32[64]", *SAXPY_ARGS[1:]], 2, ("'flot32'", "float32")
    ),
    "a tensor of no elements": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "float32[0]", *SAXPY_ARGS[1:]], 2, ("float32[0]", "count", "[1, inf]")
    ),
    "a fill that is not a number": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "float32[64]=x", *SAXPY_ARGS[1:]], 2, ("float32[64]=x", "DTYPE[N]=V")
    ),
    "a scalar that is not a number": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", *SAXPY_ARGS[:4], "abc"], 2, ("for count", "'abc'", "a number")
    ),
    "tensors past the UB": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "float32[100000]", *SAXPY_ARGS[1:]], 2, ("float32[100000]", "--ub-size")
    ),
    "a buffer too small for what the kernel writes": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--args", "float32[8]", *SAXPY_ARGS[1:]],
        1,
        ("OutOfBoundsError", "StoreAlign", "the --args tensors: z at UB bytes [0, 32)"),
    ),
    "a template VF without its template argument": Command(
        ["run", CARRY, "--vf", "AddCarryVF", "--args", *CARRY_ARGS], 2, ("needs the template argument T", "--template T=")
    ),
    "a template argument the VF has not": Command(
        ["run", CARRY, "--vf", "AddCarryVF", "--template", "T=uint32,U=3", "--args", *CARRY_ARGS],
        2,
        ("no template parameter U", "its template parameters are T"),
    ),
    "a template argument that is no dtype": Command(
        ["run", CARRY, "--vf", "AddCarryVF", "--template", "T=flot", "--args", *CARRY_ARGS], 2, ("'flot'", "dtype")
    ),
    "a template argument for a VF that is no template": Command(
        ["run", SAXPY, "--vf", "SaxpyVF", "--template", "T=float", "--args", *SAXPY_ARGS], 2, ("it is not a template",)
    ),
}


@pytest.mark.parametrize("command", COMMANDS.values(), ids=list(COMMANDS))
def test_a_command_line_mistake_is_one_line(
    command: Command, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if any(a.endswith(".asc") for a in command.argv):
        pytest.importorskip("clang.cindex")
    monkeypatch.chdir(tmp_path)
    for name, text in (command.files or {}).items():
        (tmp_path / name).write_text(text)
    assert cli.main(command.argv) == command.status
    captured = capsys.readouterr()
    told = captured.err if command.status == 2 or not captured.out.startswith("ERROR") else captured.out
    lines = told.strip().splitlines()
    if told is captured.out:  # `ERROR name`, then the one line
        assert lines[0].startswith("ERROR") and len(lines) == 2, told
    else:
        assert len(lines) == 1, told
    assert "Traceback" not in captured.out + captured.err
    for part in command.says:
        assert part in told, f"{part!r} not in: {told}"


def test_the_ub_size_option_gives_the_kernel_its_room(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The fix the message names works: --ub-size lets `rs.UnifiedBuffer()` hold what the kernel allocates."""
    (tmp_path / "k.py").write_text(_kernel(n=100_000))
    assert cli.main(["run", str(tmp_path / "k.py"), "--ub-size", "512K"]) == 0
    assert capsys.readouterr().out.startswith("PASS k")


def test_cmpmode_is_one_enum_wherever_c_plus_plus_finds_it() -> None:
    assert rs.CMPMODE is Reg.CMPMODE is A.CMPMODE
    for spec in rs._src.engine.spec.REGISTRY.specs.values():  # every enum a Reg op takes is importable from Reg
        for o in spec.operands:
            if o.enum is not None:
                assert getattr(Reg, o.enum.__name__) is o.enum, (spec.key, o.name)


def test_the_list_is_long() -> None:
    assert len(PYTHON_API) + len(MEMORY_LEVEL) + len(C_API) + len(COMMANDS) >= 100
