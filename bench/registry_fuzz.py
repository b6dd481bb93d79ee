"""Nothing stray, nothing hung: a registry-driven fuzz of regsim's public calls.

Random, mostly valid and deliberately invalid calls of every Reg op of the registry (`rs.registry`:
operands drawn from each op's operand kinds and dtype rules, then wrong dtypes, register traits (RegTraitNumTwo),
enum values, out-of-range scalars, misaligned and out-of-bounds pointers, never-written registers, complex and
fp8 / hifloat8 / fp4 types, missing and extra arguments), some inside small VF loops, in both loop modes
(`loops="sequential"` and the default); of every memory-level `rs.AscendC` API (`MEMORY_FORMS`: its interfaces'
argument shapes, then random values, counter mode, the vector mask set or not, junk arguments); and of every
`rs.capi` function with random argument lists. A call may succeed or raise an `rs.errors.RegsimError`; any other
exception is *stray*, and a call that runs longer than the time limit is a *hang*.

Run: `python bench/registry_fuzz.py [--calls N] [--seed S] [--jobs J] [--limit SECONDS]`; it prints every kind
of stray exception and hang it met (with one example call each) and, last, `N calls, S stray exceptions,
H hangs`. tests/engine/test_registry_fuzz.py runs a small tier of it.
"""

from __future__ import annotations

import argparse
import collections
import enum
import inspect
import multiprocessing
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

import regsim as rs
from regsim import Reg
from regsim._src.frontends import capi as _capi
from regsim.errors import RegsimError
from regsim.registry import OneOf, Operand, Overload, Paired, SameAs

A = rs.AscendC
SPECS: list[Overload] = list(rs.registry.overloads())
FACES = {op.name: op.face for op in rs.registry.ops()}
DTYPES = list(rs.registry.DTYPES)
COMMON = [rs.half, rs.float32, rs.int16, rs.int32, rs.uint8, rs.int64, rs.bfloat16, rs.uint16, rs.uint32]
TWO = (rs.int64, rs.uint64, rs.float64, rs.complex64, rs.complex32)
JUNK: tuple[Any, ...] = (None, 1.5, "x", [1, 2], (), object(), np.zeros(3), -1, 2**70, True, rs.float32, Reg.MaskReg)

#: the argument shapes of each memory-level API's interfaces (first-n, mask/repeat, ...): tokens `Fuzzer.token`
#: turns into values; a trailing dict holds keyword arguments. Every name of `rs.AscendC` that runs a lowering is here.
_BIN = [("dst", "src", "src", "count"), ("dst", "src", "src", "mask", "repeat", "bparams")]
_UN = [("dst", "src", "count"), ("dst", "src", "mask", "repeat", "uparams")]
_SCAL = [("dst", "src", "scalar", "count"), ("dst", "src", "scalar", "mask", "repeat", "uparams")]
_RED = [("dst", "src", "src", "count"), ("dst", "src", "src", "mask", "repeat", "stride")]
_NEW_RED = [("dst", "src", "mask", "repeat", "stride", "stride", "stride", {"reduce_type": "rtype"})]
_WHOLE_RED = [("dst", "src", "mask", "repeat", "stride", "stride", "stride")]
_OLD_RED = [("dst", "src", "repeat", "mask", "stride", "stride", "stride")]
MEMORY_FORMS: dict[str, list[tuple[Any, ...]]] = {
    **{n: _BIN for n in "Add Sub Mul Max Min And Or AddRelu SubRelu FusedMulAdd MulAddRelu MulAddDst AbsSub Prelu Div".split()},
    **{n: _UN for n in "Abs Relu Not Neg Exp Ln Sqrt Rsqrt Reciprocal".split()},
    **{n: _SCAL for n in "Adds Muls Maxs Mins Subs Divs Ands Ors LeakyRelu ShiftLeft ShiftRight Axpy".split()},
    "Compare": [
        ("u8", "src", "src", "cmp", "count"),
        ("u8", "src", "src", "cmp", "mask", "repeat", "bparams"),
        ("src", "src", "cmp", "mask", "bparams"),
    ],
    **{
        n: [("u8", "src", "scalar", "cmp", "count"), ("u8", "src", "scalar", "cmp", "mask", "repeat", "uparams")]
        for n in ("Compares", "CompareScalar")
    },
    "Select": [
        ("dst", "u8", "src", "src", "selmode", "count"),
        ("dst", "u8", "src", "src", "selmode", "mask", "repeat", "bparams"),
        ("dst", "u8", "src", "scalar", "selmode", "count"),
        ("dst", "src", "src", "repeat", "bparams"),
    ],
    "Duplicate": [("dst", "scalar", "count"), ("dst", "src", "count"), ("dst", "scalar", "mask", "repeat", "stride", "stride")],
    "Cast": [("other", "src", "round", "count"), ("other", "src", "round", "mask", "repeat", "uparams")],
    "Gather": [("dst", "src", "u32", "base", "count"), ("dst", "src", "u32", "base", "mask", "repeat", "stride")],
    "Scatter": [("dst", "src", "u32", "base", "count"), ("dst", "src", "u32", "base", "mask", "repeat", "stride")],
    "Gatherb": [("dst", "src", "u32", "repeat", "gparams")],
    "GatherMask": [("dst", "src", "pattern", "bool", "mask", "gmparams", "ref")],
    "Brcb": [("dst", "src", "repeat", "brcbparams")],
    "CreateVecIndex": [("dst", "scalar", "count"), ("dst", "scalar", "mask", "repeat", "stride", "stride")],
    **{n: _RED for n in ("ReduceSum", "ReduceMax", "ReduceMin")},
    **{n: _NEW_RED for n in ("ReduceRepeat", "ReduceDataBlock", "ReducePairElem")},
    **{n: _WHOLE_RED for n in ("WholeReduceSum", "WholeReduceMax", "WholeReduceMin")},
    **{n: _OLD_RED for n in ("BlockReduceSum", "BlockReduceMax", "BlockReduceMin", "PairReduceSum")},
    "RepeatReduceSum": [("dst", "src", "repeat", "mask", "stride", "stride", "stride", "stride")],
    "Mull": [("dst", "dst", "src", "src", "count")],
    "Truncate": [("dst", "src", "count", {"round_mode": "round"})],
    "GetCmpMask": [("dst",)],
    "Log": [("dst", "src", "count")],  # (the high-level math APIs: calCount, and a sharedTmpBuffer of bytes)
    "Trunc": [("dst", "src", "count"), ("dst", "src", "u8", "count")],
    "Fma": [("dst", "src", "src", "src", "count"), ("dst", "src", "src", "src", "u8", "count")],
    "SetCmpMask": [("src",)],
}
CAPI_NAMES = [n for n in _capi.public_names() if callable(getattr(rs.capi, n)) and not isinstance(getattr(rs.capi, n), enum.Enum)]


class Hang(BaseException):
    """Raised by the time limit's alarm inside a call that runs too long."""


def _alarm(signum: int, frame: Any) -> None:
    raise Hang


class Fuzzer:
    """Draws and runs random calls; counts outcomes, stray exceptions and hangs (by kind, one example each)."""

    def __init__(self, seed: int, limit: float = 10.0, unbound: bool = True) -> None:
        self.rng = np.random.default_rng(seed)
        self.limit = limit
        #: draw memory-level and C API calls whose arguments do not bind (missing, extra, unknown keyword)
        self.unbound = unbound
        self.calls = 0
        self.outcomes: collections.Counter[str] = collections.Counter()
        self.strays: collections.Counter[str] = collections.Counter()
        self.hangs: collections.Counter[str] = collections.Counter()
        self.examples: dict[str, str] = {}
        self.new_ub()

    # --- random values -------------------------------------------------------------------------------------------
    def chance(self, p: float) -> bool:
        return bool(self.rng.random() < p)

    def pick(self, seq: Any) -> Any:
        return seq[int(self.rng.integers(len(seq)))]

    def dtype(self) -> Any:
        return self.pick(COMMON) if self.chance(0.6) else self.pick(DTYPES)

    def new_ub(self) -> None:
        """A fresh core of small tensors of random dtypes, most written, some partly, some never."""
        self.ub = rs.UnifiedBuffer(size=16384)
        self.tensors: list[rs.LocalTensor[Any]] = []
        while True:
            d, n = self.dtype(), int(self.pick([16, 64, 128, 256, 512, 1024, int(self.rng.integers(1, 700))]))
            if self.ub._next + n * d.itemsize > self.ub.size - 512:
                break
            self.tensors.append(self.tensor(d, n))

    def tensor(self, dtype: Any, n: int) -> rs.LocalTensor[Any]:
        t = self.ub.alloc(dtype, n)
        r = self.rng.random()
        if r < 0.9:
            k = n if r < 0.8 else int(self.rng.integers(1, n + 1))
            raw = self.rng.integers(0, 256, k * dtype.itemsize, dtype=np.uint8)
            self.ub.storage.write(t.addr, raw)
        return t

    def reg(self, dtype: Any, trait: Any, written: bool = True) -> Any:
        if not written or self.chance(0.05):
            return Reg.RegTensor(dtype, trait)
        raw = self.rng.integers(0, 256, 256 * trait.REG_NUM, dtype=np.uint8)
        return Reg.RegTensor.from_numpy(raw.view(dtype.np_dtype), dtype=dtype, trait=trait, cast=True)

    def mask(self) -> Any:
        """A predicate at a lane-count boundary (all, none, one active, one inactive) or random; sometimes never set."""
        if self.chance(0.03):
            return Reg.MaskReg()
        kind = int(self.rng.integers(6))
        bits = self.rng.random(256) < self.rng.random()
        if kind < 2:
            bits[:] = kind == 0
        if kind in (2, 3):
            bits[:] = kind == 3
            bits[int(self.rng.integers(256))] = kind == 2
        return Reg.MaskReg.from_bits(bits)

    def ptr(self, dtype: Any) -> Any:
        t = self.pick(self.tensors)
        p = t.GetPhyAddr().reinterpret(dtype) if dtype.itemsize and t.nbytes >= dtype.itemsize else t.GetPhyAddr()
        r = self.rng.random()
        span = t.nbytes // max(dtype.itemsize, 1)
        off = (
            0
            if r < 0.5
            else int(self.rng.integers(0, 8)) * (32 // max(dtype.itemsize, 1))
            if r < 0.8
            else int(self.rng.integers(-8, span + 64))
        )
        try:
            return p + off
        except RegsimError:
            return p

    def integer(self, bounds: tuple[int, int] | None) -> Any:
        lo, hi = bounds or (0, 2**31 - 1)
        r = self.rng.random()
        if r < 0.75:
            return int(self.pick([lo, hi, lo + 1, min(hi, lo + 8), int(self.rng.integers(lo, min(hi, lo + 300) + 1))]))
        if r < 0.95:
            return int(self.pick([lo - 1, hi + 1, -(2**40), 2**40, 2**64]))
        return self.pick([True, 1.0, np.int64(3), np.uint8(200), "3"])

    def scalar(self, dtype: Any) -> Any:
        r = self.rng.random()
        if r < 0.5 and dtype is not None and dtype.np_dtype.kind in "iu":
            info = np.iinfo(dtype.np_dtype)
            return int(self.pick([0, 1, -1, info.min, info.max, int(self.rng.integers(-300, 300))]))
        if r < 0.8:
            return float(self.pick([0.0, -0.0, 1.5, -3.25, 1e30, -1e-30, float("nan"), float("inf"), 65504.0, 65520.0]))
        return self.pick([2**63, -(2**70), 1 + 2j, np.float16(2), np.int8(-5), np.uint64(2**64 - 1), np.float64(1e300)])

    def enum_value(self, o: Operand) -> Any:
        assert o.enum is not None
        if len(o.accepted) < len(o.enum) and self.chance(0.85):  # a restricted enum: mostly its accepted members
            return self.pick(sorted(o.accepted, key=lambda m: m.value))
        if self.chance(0.95):
            return self.pick(list(o.enum))
        return self.pick([0, "NORM", Reg.MaskMergeMode.MERGING, Reg.LoadDist.DIST_NORM])

    def struct(self, cls: Any) -> Any:
        fields = {f.name: self.pick(list(type(f.default))) for f in attrs.fields(cls) if isinstance(f.default, enum.Enum)}
        return cls(**{k: v for k, v in fields.items() if self.chance(0.7)})

    # --- Reg ops ---------------------------------------------------------------------------------------------------
    def operand_dtype(self, o: Operand, values: dict[str, Any]) -> Any:
        rule = o.dtypes
        if self.chance(0.08) or rule is None:
            return self.dtype()
        if isinstance(rule, OneOf):
            return self.pick(sorted(rule.dtypes, key=lambda d: d.name))
        other = values.get(rule.other)
        other_dtype = getattr(other, "dtype", other if isinstance(other, type) else None)
        if isinstance(rule, SameAs):
            return other_dtype if other_dtype is not None else self.dtype()
        assert isinstance(rule, Paired)
        return rule.get(other_dtype) or self.dtype()

    def trait(self, dtype: Any) -> Any:
        two = (dtype in TWO and self.chance(0.5)) or self.chance(0.04)
        return Reg.RegTraitNumTwo if two else Reg.RegTraitNumOne

    def operand(self, spec: Overload, o: Operand, values: dict[str, Any]) -> Any:
        k = o.kind
        if k == "reg":
            d = self.operand_dtype(o, values)
            other = values.get(o.dtypes.other) if isinstance(o.dtypes, (SameAs, Paired)) else None
            trait = getattr(other, "trait", None) if other is not None and self.chance(0.9) else None
            return self.reg(d, trait or self.trait(d), written=o.role in ("in", "in-out"))
        if k == "mask":
            return Reg.MaskReg() if o.role in ("out", "returned") else self.mask()
        if k == "pred":
            return self.mask()
        if k == "ptr":
            return self.ptr(self.operand_dtype(o, values))
        if k == "int":
            return self.integer(o.bounds)
        if k == "scalar":
            regs = [v for v in values.values() if isinstance(v, Reg.RegTensor)]
            return self.scalar(regs[0].dtype if regs else None)
        if k == "addr":
            d = self.pick(DTYPES)
            strides = [int(self.rng.integers(0, 70)) for _ in range(2 * int(self.rng.integers(1, 5)))]
            return Reg.CreateAddrReg(d, *strides)
        if k == "uload":
            return Reg.UnalignRegForLoad()
        if k == "ustore":
            return Reg.UnalignRegForStore()
        if k == "ref":
            return rs.Ref(self.integer((0, 600)))
        if k == "dtype":
            return self.operand_dtype(o, values)
        if k == "enum":
            return self.enum_value(o)
        if k == "trait":
            return self.pick([Reg.RegTraitNumOne, Reg.RegTraitNumTwo])
        assert k == "struct" and o.struct is not None
        return self.struct(o.struct)

    def reg_call(self, spec: Overload) -> tuple[Callable[..., Any], list[Any], dict[str, Any]]:
        """Inside a VF (the address registers are made there): the op's face and random operands."""
        values: dict[str, Any] = {}
        for o in spec.operands:
            values[o.name] = self.operand(spec, o, values)
        args = [values[o.name] for o in spec.positional]
        kwargs = {o.name: values[o.name] for o in spec.templates if o.required or self.chance(0.6)}
        self.mutate(args, kwargs)
        return FACES[spec.name], args, kwargs

    def mutate(self, args: list[Any], kwargs: dict[str, Any], binds: bool = False) -> None:
        """Now and then: an argument replaced by junk, one missing, one too many, an unknown keyword (not with
        `binds`: the arguments still bind)."""
        r = self.rng.random()
        if binds and 0.04 <= r < 0.09:
            return
        if r < 0.04 and args:
            args[int(self.rng.integers(len(args)))] = self.pick(JUNK)
        elif r < 0.06 and args:
            args.pop()
        elif r < 0.08:
            args.append(self.pick(JUNK))
        elif r < 0.09:
            kwargs["no_such_parameter"] = 1
        elif r < 0.10 and kwargs:
            kwargs[self.pick(sorted(kwargs))] = self.pick(JUNK)

    # --- memory-level APIs and the C API ---------------------------------------------------------------------------
    def lanes(self, dtype: Any) -> int:
        return 256 // max(int(dtype.itemsize), 1)

    def token(self, tok: str, dtype: Any) -> Any:
        """One argument of a memory-level form (`MEMORY_FORMS`)."""
        r = self.rng.random()
        if tok in ("dst", "src"):
            return self.tensor(dtype if r < 0.92 else self.dtype(), int(self.pick([64, 128, 256, 512, 1024, 40])))
        if tok == "other":
            return self.tensor(self.dtype(), int(self.pick([128, 256, 512, 1024])))
        if tok == "u8":
            return self.tensor(rs.uint8 if r < 0.9 else self.dtype(), int(self.pick([32, 64, 128, 256, 512])))
        if tok == "u32":
            t = self.ub.alloc(rs.uint32, 512)
            step = dtype.itemsize if r < 0.85 else 1
            t.set((self.rng.integers(0, 256, 512) * step).astype(np.uint32))
            return t
        if tok == "count":
            return int(self.pick([0, 1, 7, 64, 128, 200, 256, 512, 1024, 1025, -1, 2**32])) if r < 0.97 else self.pick(JUNK)
        if tok == "mask":
            lanes = self.lanes(dtype)
            if r < 0.4:
                return int(self.pick([1, lanes // 2, lanes, min(lanes, 128), 3]))
            if r < 0.75:
                return [int(self.pick([0xF0F0, 2**64 - 1, 1, 2**32 - 1, 0])), int(self.pick([0, 0, 2**64 - 1, 5]))]
            return self.pick([0, lanes + 1, 129, 2**32 - 1, 2**32, -1, [1], [1, 2, 3], 1.5, A.MASK_PLACEHOLDER])
        if tok == "repeat":
            return int(self.pick([0, 1, 1, 2, 3, 4, 8, 255, 256, -1]))
        if tok == "stride":
            return int(self.pick([0, 1, 1, 8, 8, 2, 16, 255, 256, 65536, -1]))
        if tok == "base":
            return int(self.pick([0, 0, 32, 64, 2, -32, 2**32]))
        if tok in ("bparams", "uparams", "gparams", "brcbparams", "gmparams"):
            cls = {
                "bparams": A.BinaryRepeatParams,
                "uparams": A.UnaryRepeatParams,
                "gparams": A.GatherRepeatParams,
                "brcbparams": A.BrcbRepeatParams,
                "gmparams": A.GatherMaskParams,
            }[tok]
            n = len(attrs.fields(cls))
            if r < 0.5:
                return cls()
            try:
                return cls(*(int(self.pick([0, 1, 1, 2, 8, 8, 16, 255])) for _ in range(n)))
            except (RegsimError, TypeError):  # (a struct of fewer constructor arguments than fields)
                return cls()
        if tok == "scalar":
            return self.scalar(dtype)
        if tok == "cmp":
            return self.pick(list(A.CMPMODE)) if r < 0.95 else 3
        if tok == "selmode":
            return self.pick(list(A.SELMODE)) if r < 0.95 else 1
        if tok == "round":
            return self.pick(list(A.RoundMode)) if r < 0.95 else "CAST_RINT"
        if tok == "rtype":
            return self.pick(list(A.ReduceType))
        if tok == "pattern":
            return int(self.pick([1, 2, 3, 4, 5, 6, 7, 0, 8])) if r < 0.7 else self.tensor(self.pick([rs.uint16, rs.uint32]), 256)
        if tok == "bool":
            return bool(r < 0.5)
        if tok == "ref":
            return rs.Ref(0)
        raise AssertionError(tok)

    def memory_call(self, name: str) -> tuple[Callable[..., Any], list[Any], dict[str, Any]]:
        form = self.pick(MEMORY_FORMS[name])
        dtype = self.dtype()
        kw_form = form[-1] if isinstance(form[-1], dict) else {}
        args = [self.token(t, dtype) for t in form if isinstance(t, str)]
        kwargs = {k: self.token(v, dtype) for k, v in kw_form.items()}
        api = getattr(A, name)
        takes = "is_set_mask" in inspect.signature(api if inspect.isfunction(api) else api.__call__).parameters
        if "mask" in form and (takes or self.unbound) and self.chance(0.15):
            kwargs["is_set_mask"] = False
            args[form.index("mask")] = A.MASK_PLACEHOLDER
        self.mutate(args, kwargs, binds=not self.unbound)
        return api, args, kwargs

    def capi_call(self, name: str) -> tuple[Callable[..., Any], list[Any], dict[str, Any]]:
        """A C API function with a random argument list (pointers, registers, masks, integers, ...)."""
        d = self.dtype()
        pool: list[Callable[[], Any]] = [
            lambda: self.ptr(d),
            lambda: self.reg(d, Reg.RegTraitNumOne),
            self.mask,
            lambda: self.integer((0, 255)),
            lambda: self.scalar(d),
            lambda: self.pick(list(rs.capi.MEM_TYPE)) if hasattr(rs.capi, "MEM_TYPE") else 0,
            lambda: self.pick(JUNK),
        ]
        weights = np.array([4, 4, 3, 4, 1, 0.3, 0.3])
        n = int(self.rng.integers(0, 11))
        if not self.unbound:  # only argument counts some overload of the function takes
            n = (
                len(inspect.signature(getattr(rs.capi, name)).parameters)
                if name in ("asc_get_cmp_mask", "asc_set_cmp_mask")
                else n
            )
        picks = self.rng.choice(len(pool), size=n, p=weights / weights.sum())
        return getattr(rs.capi, name), [pool[int(i)]() for i in picks], {}

    # --- running ---------------------------------------------------------------------------------------------------
    def core_state(self) -> None:
        """Now and then: counter or normal mask mode, a vector mask set (or left at its reset value), CTRL bits."""
        r = self.rng.random()
        if r < 0.05:
            A.SetMaskCount()
        elif r < 0.15:
            A.SetMaskNorm()
        elif r < 0.2:
            A.SetVectorMask(rs.half, int(self.pick([0, 1, 64, 128, 300, 4096])))
        elif r < 0.22:
            A.ResetMask()
        elif r < 0.23:
            bit = int(self.pick([48, 53, 59, 60]))
            A.SetCtrlSpr(int(self.rng.integers(2)), start_bit=bit, end_bit=bit)

    def run(self, what: str, call: Callable[[], Any]) -> None:
        """One call under the time limit; sorts its outcome."""
        self.calls += 1
        signal.setitimer(signal.ITIMER_REAL, self.limit)
        try:
            call()
            self.outcomes["ok"] += 1
        except RegsimError:
            self.outcomes["refused"] += 1
        except Hang:
            self.hangs[what] += 1
            self.examples.setdefault(f"hang {what}", f"seed call {self.calls}")
            self.new_ub()
        except Exception as e:
            key = f"{what}: {type(e).__name__}: {str(e).splitlines()[0][:120] if str(e) else ''}"
            self.strays[key] += 1
            self.examples.setdefault(key, f"  args: ({_LAST[0]})\n" + "".join(traceback.format_exception(e)[-4:]))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    def step(self) -> None:
        """One drawn call: a Reg op (in a VF or a small VF loop), a memory-level API, or a C API function."""
        r = self.rng.random()
        sequential = self.chance(0.3)
        with rs.configure(loops="sequential" if sequential else "auto"):
            if r < 0.8:
                spec = self.pick(SPECS)
                if self.chance(0.25):
                    k = int(self.rng.integers(1, 4))
                    self.run(f"Reg.{spec.key} (loop)", lambda: _loop_vf(self, spec, k))
                else:
                    self.run(f"Reg.{spec.key}", lambda: _scoped(self, spec))
            elif r < 0.92:
                name = self.pick(sorted(MEMORY_FORMS))
                self.run("core state", self.core_state)
                if self.chance(0.5):
                    self.new_ub()
                self.run(f"AscendC.{name}", lambda: _call(*self.memory_call(name)))
            else:
                name = self.pick(CAPI_NAMES)
                self.run(f"capi.{name}", lambda: _scoped_capi(self, name))
        if self.calls % 400 == 0:
            self.new_ub()


#: the arguments of the call running (shown with a stray exception)
_LAST: list[str] = [""]


def _call(f: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    _LAST[0] = _show(args, kwargs)
    return f(*args, **kwargs)


def _show(args: list[Any], kwargs: dict[str, Any]) -> str:
    def one(v: Any) -> str:
        text = repr(v) if isinstance(v, (int, float, str, enum.Enum, type)) or v is None else type(v).__name__
        dtype = getattr(v, "dtype", None)
        return f"{text}[{getattr(dtype, 'name', dtype)}]" if dtype is not None and not isinstance(v, type) else text

    return ", ".join([*map(one, args), *(f"{k}={one(v)}" for k, v in kwargs.items())])


def _scoped(fz: Fuzzer, spec: Overload) -> None:
    with rs.VEC_SCOPE():
        _call(*fz.reg_call(spec))


def _scoped_capi(fz: Fuzzer, name: str) -> None:
    with rs.VEC_SCOPE():
        _call(*fz.capi_call(name))


@rs.simd_vf
def _loop_vf(fz: Fuzzer, spec: Overload, k: int) -> None:
    face, args, kwargs = fz.reg_call(spec)
    _LAST[0] = _show(args, kwargs)
    for _ in range(k):
        face(*args, **kwargs)


def fuzz(calls: int, seed: int, limit: float = 10.0, unbound: bool = True) -> Fuzzer:
    signal.signal(signal.SIGALRM, _alarm)
    fz = Fuzzer(seed, limit, unbound)
    while fz.calls < calls:
        fz.step()
    return fz


def _worker(job: tuple[int, int, float, bool]) -> tuple[int, dict[str, int], dict[str, int], dict[str, str], dict[str, int]]:
    fz = fuzz(*job)
    return fz.calls, dict(fz.strays), dict(fz.hangs), fz.examples, dict(fz.outcomes)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--calls", type=int, default=10**6)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=float, default=10.0, help="seconds: a call running longer is a hang")
    ap.add_argument("--bound-only", action="store_true", help="memory-level and C API arguments always bind")
    a = ap.parse_args()
    per = -(-a.calls // a.jobs)
    jobs = [(min(per, a.calls - i * per), a.seed * 1000 + i, a.limit, not a.bound_only) for i in range(a.jobs)]
    start = time.time()
    with multiprocessing.Pool(a.jobs) as pool:
        results = pool.map(_worker, jobs)
    calls = sum(r[0] for r in results)
    strays: collections.Counter[str] = collections.Counter()
    hangs: collections.Counter[str] = collections.Counter()
    outcomes: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    for _, s, h, ex, out in results:
        strays.update(s)
        hangs.update(h)
        outcomes.update(out)
        for k, v in ex.items():
            examples.setdefault(k, v)
    for key, n in strays.most_common():
        print(f"{n:7d}  stray  {key}\n{examples.get(key, '')}")
    for key, n in hangs.most_common():
        print(f"{n:7d}  hang   {key}")
    print(f"{outcomes['ok']} succeeded, {outcomes['refused']} refused with a RegsimError, {time.time() - start:.0f} s")
    print(f"{calls} calls, {sum(strays.values())} stray exceptions, {sum(hangs.values())} hangs")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
