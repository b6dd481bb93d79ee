"""The elementwise memory-level (`LocalTensor`) APIs, lowered onto the Reg layer as the 950 library builds them.

On Ascend 950 the library implements `AscendC::Add(dst, src0, src1, ...)` and its siblings as vector
functions over Reg ops (the "基于指针的C语言编程" guide: "在Memory矢量计算接口内部实现软件封装的Reg矢量计算");
regsim runs the same VFs (`regsim._src.lowerings.skeletons`), so each API here is its Reg op (or a callee of a few
Reg ops) run by a skeleton, never a second numpy implementation: the binary APIs (Add, Sub, Mul, Max, Min, And, Or),
the unary ones (Abs, Relu, Not) and the tensor-scalar ones (Adds, Muls, Maxs, Mins, Subs, Divs, Ands, Ors,
LeakyRelu) with their flexible-scalar overloads; and `lower(api, *args)`, the Reg-op sequence a call becomes.

A call validates every parameter before it runs; should a Reg op inside the lowering still fail, the error is
raised as the high-level call's, the Reg op's message kept as context ("Add: ... (from Reg StoreAlign: ...)"), and
whatever the call changed (UB bytes, the vector mask, CTRL, ...) is put back: every API's entry is
`unchanged_on_error`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, TypeVar

import attrs
import numpy as np

from regsim._src.lowerings.checks import (
    arguments_error,
    check_config,
    check_count,
    check_set_mask,
    check_tensors,
    flexible_operands,
    host_only,
    run_flexible,
    run_lowering,
    unchanged_on_error,
)
from regsim._src.lowerings.skeletons import (
    binary_continuous_vf,
    trait_for,
    unary_continuous_vf,
    vec_binary_vf,
    vec_unary_vf,
)
from regsim._src.lowerings.structs import REPEAT_BYTES, BinaryConfig, BinaryRepeatParams, UnaryRepeatParams
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_method
from regsim._src.model.config import ONE_BLOCK_SIZE, configure
from regsim._src.model.memory import TENSOR_OPERATORS, LocalTensor, UnifiedBuffer
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops import REGISTRY
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee
from regsim._src.vf.trace import trace
from regsim.errors import ParameterError, message

T = TypeVar("T", bound=dt.DType)


@attrs.frozen
class BinaryApi:
    """One memory-level binary API (dst = src0 op src1): its Reg op and its 950 dtype lists per interface."""

    name: str
    op: Callable[..., None]
    count_dtypes: frozenset[type[dt.DType]]  #: the first-n interface (BinaryContinuousImplTemplate's static_assert)
    repeat_dtypes: frozenset[type[dt.DType]]  #: the mask/repeat interfaces (VecBinaryImplTemplate's static_assert)
    dst_input: bool = False  #: dst is an operand too (`BinaryFuncMode::DST_SRC_INPUT`: FusedMulAdd, MulAddDst ...)

    @host_method
    @unchanged_on_error
    def __call__(
        self, dst: LocalTensor[T], src0: LocalTensor[T], src1: LocalTensor[T], *args: Any, is_set_mask: bool = True
    ) -> None:
        host_only(self.name)
        names, ts = ("dst", "src0", "src1"), (dst, src0, src1)
        if len(args) == 1:  # tensor 前n个数据计算: (dst, src0, src1, count)
            check_set_mask(self.name, is_set_mask)
            dtype = check_tensors(self.name, self.count_dtypes, names, ts)
            n = check_count(self.name, args[0], names, ts)
            ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
            run_lowering(self.name, binary_continuous_vf, self.op, *ptrs, n, trait_for(dtype), -1, self.dst_input)
            return
        if len(args) != 3:
            raise arguments_error(
                self.name, len(args) + 3, "(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)"
            )
        dtype = check_tensors(self.name, self.repeat_dtypes, names, ts)
        plan = repeat_plan(self.name, dtype, args[0], args[1], args[2], BinaryRepeatParams, is_set_mask)
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        run_lowering(self.name, vec_binary_vf, self.op, *ptrs, plan[0], plan[1], args[2], plan[2], plan[3], -1, self.dst_input)


@attrs.frozen
class UnaryApi:
    """One memory-level unary API (dst = op(src)), or with `scalar` a tensor-scalar one (dst = op(src, scalarValue))."""

    name: str
    op: Callable[..., None]
    count_dtypes: frozenset[type[dt.DType]]
    repeat_dtypes: frozenset[type[dt.DType]]
    scalar: bool = False
    #: the tensor-tensor Reg op of the flexible-scalar overloads (灵活标量位置): Add for Adds, Mul, Max, Min
    flex_op: Callable[..., None] | None = None
    #: the Reg callee of an immediate scalar first (`Subs(dst, scalar, srcLocal, ...)`: the library's `Subs2`,
    #: `Divs2`); None: the op commutes and the library runs the call as scalar second (`AddsCommon`)
    first_op: Callable[..., None] | None = None
    dst_input: bool = False  #: dst is an operand too (Axpy: dst = src * scalar + dst)

    @host_method
    @unchanged_on_error
    def __call__(
        self, dst: LocalTensor[T], src: LocalTensor[T], *args: Any, is_set_mask: bool = True, config: BinaryConfig | None = None
    ) -> None:
        host_only(self.name)
        if self.flex_op is not None and args and (isinstance(args[0], LocalTensor) or not isinstance(src, LocalTensor)):
            self._flexible(dst, src, args[0], args[1:], is_set_mask, config)
            return
        if config is not None:
            if self.flex_op is None:
                raise ParameterError(message(self.name, "config", repr(config), f"no config ({self.name} has no BinaryConfig)"))
            check_config(self.name, config)  # (C++ ignores config when the scalar is not a LocalTensor element)
        names, ts = ("dst", "src"), (dst, src)
        lead = 1 if self.scalar else 0
        extra: tuple[Any, ...] = tuple(args[:lead])
        rest = args[lead:]
        head = "(dst, src, scalar_value, " if self.scalar else "(dst, src, "
        if len(args) < lead or len(rest) not in (1, 3):
            forms = f"{head}count) or {head}mask, repeat_time, repeat_params)"
            raise arguments_error(self.name, len(args) + 2, forms)
        if len(rest) == 1:
            check_set_mask(self.name, is_set_mask)
            dtype = check_tensors(self.name, self.count_dtypes, names, ts)
            n = check_count(self.name, rest[0], names, ts)
            ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
            run_lowering(self.name, unary_continuous_vf, self.op, *ptrs, extra, n, trait_for(dtype), self.dst_input)
            return
        dtype = check_tensors(self.name, self.repeat_dtypes, names, ts)
        plan = repeat_plan(self.name, dtype, rest[0], rest[1], rest[2], UnaryRepeatParams, is_set_mask)
        ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
        run_lowering(self.name, vec_unary_vf, self.op, *ptrs, extra, plan[0], plan[1], rest[2], plan[2], plan[3], self.dst_input)

    def _flexible(self, dst: Any, src0: Any, src1: Any, rest: tuple[Any, ...], is_set_mask: bool, config: object) -> None:
        """`Adds<T, isSetMask, config>(dst, src0, src1, ...)` and its siblings, the 灵活标量位置 overloads: both sources
        LocalTensors (`config.scalarTensorIndex` says which one's element 0 is the scalar), or the scalar first
        (`Adds(dst, scalar, srcLocal, ...)`), which the library runs as `(dst, srcLocal, scalar)` (the op commutes)."""
        api = self.name
        head = "(dst, src0, src1, "
        if len(rest) not in (1, 3):
            raise arguments_error(api, len(rest) + 3, f"{head}count) or {head}mask, repeat_time, repeat_params)")
        if not isinstance(src0, LocalTensor):  # AddsCommon: `AddsImpl(dst, src1, src0, ...)`
            check_config(api, config)
            if not isinstance(src1, LocalTensor):
                raise ParameterError(message(api, "src1", repr(src1), "a LocalTensor (one of src0 and src1 must be a tensor)"))
            if self.first_op is None:
                self(dst, src1, src0, *rest, is_set_mask=is_set_mask)
            else:  # SubsCommon, DivsCommon: `SubsImpl(dst, src0, src1, ...)`, whose VFs run `Subs2` / `Divs2`
                attrs.evolve(self, op=self.first_op, flex_op=None)(dst, src1, src0, *rest, is_set_mask=is_set_mask)
            return
        if not isinstance(dst, LocalTensor):
            raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor"))
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        assert self.flex_op is not None
        if len(rest) == 1:
            check_set_mask(api, is_set_mask)
            dtype, idx, vec_name, vec = flexible_operands(api, self.count_dtypes, dst, src0, src1, config)
            n = check_count(api, rest[0], ("dst", vec_name), (dst, vec))
            trait = Reg.RegTraitNumTwo if dtype.itemsize == 8 else Reg.RegTraitNumOne  # complex32: one register
            run_flexible(api, (vec_name, vec, n), binary_continuous_vf, self.flex_op, *ptrs, n, trait, idx)
            return
        dtype, idx, _, _ = flexible_operands(api, self.repeat_dtypes, dst, src0, src1, config)
        plan = repeat_plan(api, dtype, rest[0], rest[1], rest[2], UnaryRepeatParams, is_set_mask)
        run_lowering(api, vec_binary_vf, self.flex_op, *ptrs, plan[0], plan[1], rest[2], plan[2], plan[3], idx)


_B16_B32 = frozenset({dt.half, dt.uint16, dt.int16, dt.bfloat16, dt.uint32, dt.int32, dt.float32})
_INTS8 = frozenset({dt.uint8, dt.int8})
_WIDE = frozenset({dt.int64, dt.uint64})
_CPLX = frozenset({dt.complex32, dt.complex64})
#: the tensor-scalar APIs' mask/repeat dtypes (VecBinaryScalarLevel0Template's static_asserts)
_SCALAR_B16_B32 = frozenset({dt.half, dt.bfloat16, dt.float32, dt.int16, dt.int32})

Add = BinaryApi("Add", Reg.Add, _B16_B32 | _INTS8 | _WIDE | _CPLX, _B16_B32)
Sub = BinaryApi("Sub", Reg.Sub, _B16_B32 | _INTS8 | _WIDE | _CPLX, _B16_B32)
Mul = BinaryApi("Mul", Reg.Mul, _B16_B32 | _WIDE | _CPLX, _B16_B32)
Max = BinaryApi("Max", Reg.Max, _B16_B32 | _INTS8 | _WIDE, _B16_B32)
Min = BinaryApi("Min", Reg.Min, _B16_B32 | _INTS8 | _WIDE, _B16_B32)
Abs = UnaryApi(
    "Abs",
    Reg.Abs,
    frozenset({dt.int8, dt.half, dt.int16, dt.float32, dt.int32, dt.int64}),
    frozenset({dt.half, dt.int16, dt.float32, dt.int32}),
)
Relu = UnaryApi(
    "Relu", Reg.Relu, frozenset({dt.half, dt.float32, dt.int32, dt.int64}), frozenset({dt.half, dt.float32, dt.int32})
)
Adds = UnaryApi("Adds", Reg.Adds, _SCALAR_B16_B32 | _INTS8 | _WIDE | _CPLX, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Add)


@simd_callee
def reg_muls(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegMuls::Muls` (kernel_operator_vec_binary_scalar_impl.h): bfloat16 has no Reg Muls, so the library
    broadcasts the scalar (`Duplicate`) and multiplies (`Mul`); other types use `Reg::Muls`."""
    if dst_reg.dtype is dt.bfloat16:
        Reg.Duplicate(dst_reg, scalar_value, mask)
        Reg.Mul(dst_reg, src_reg, dst_reg, mask, mode=mode)
    else:
        Reg.Muls(dst_reg, src_reg, scalar_value, mask, mode=mode)


Muls = UnaryApi("Muls", reg_muls, _SCALAR_B16_B32 | _WIDE | _CPLX, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Mul)
Maxs = UnaryApi("Maxs", Reg.Maxs, _SCALAR_B16_B32 | _INTS8 | _WIDE, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Max)
Mins = UnaryApi("Mins", Reg.Mins, _SCALAR_B16_B32 | _INTS8 | _WIDE, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Min)


# Subs, Divs, Ands, Ors (kernel_operator_vec_binary_scalar_impl.h for dav_3510): the tensor-scalar forms broadcast the
# scalar (`Duplicate`) into dstReg and run the tensor-tensor op; the flexible-scalar forms are Adds' (BinaryScalarOp).
@simd_callee
def reg_subs(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegSubs::Subs`: dst = src - scalar."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Sub(dst_reg, src_reg, dst_reg, mask, mode=mode)  # Reg::Sub(dstReg, srcReg, dstReg, mask);


@simd_callee
def reg_subs2(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegSubs::Subs2` (an immediate scalar first): dst = scalar - src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Sub(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Sub(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_divs(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegDivs::Divs`: dst = src / scalar (`Reg::Div` with its default mode: the INTRINSIC algorithm)."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Div(dst_reg, src_reg, dst_reg, mask, mode=mode)  # Reg::Div(dstReg, srcReg, dstReg, mask);


@simd_callee
def reg_divs2(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegDivs::Divs2` (an immediate scalar first): dst = scalar / src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Div(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Div(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_ands(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegAnds::Ands`: dst = scalar & src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.And(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::And(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_ors(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegOrs::Ors`: dst = scalar | src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Or(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Or(dstReg, dstReg, srcReg, mask);


_HALF_FLOAT = frozenset({dt.half, dt.float32})
_B16_LOGIC = frozenset({dt.int16, dt.uint16})
#: the Subs, Divs, Ands, Ors pages' 950 types ("数据类型"; the 64-bit and complex ones in the first-n interface only)
Subs = UnaryApi(
    "Subs", reg_subs, _SCALAR_B16_B32 | _WIDE | _CPLX, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Sub, first_op=reg_subs2
)
Divs = UnaryApi("Divs", reg_divs, _HALF_FLOAT | _WIDE | _CPLX, _HALF_FLOAT, scalar=True, flex_op=Reg.Div, first_op=reg_divs2)
Ands = UnaryApi("Ands", reg_ands, _B16_LOGIC | _WIDE, _B16_LOGIC, scalar=True, flex_op=Reg.And)
Ors = UnaryApi("Ors", reg_ors, _B16_LOGIC | _WIDE, _B16_LOGIC, scalar=True, flex_op=Reg.Or)
#: `LeakyRelu(dst, src, scalarValue, ...)` (the LeakyRelu page; `RegLeakyRelu::LeakyRelu` is `vlrelu`, Reg::LeakyRelu)
LeakyRelu = UnaryApi("LeakyRelu", Reg.LeakyRelu, _HALF_FLOAT, _HALF_FLOAT, scalar=True)

_LOGIC_COUNT = frozenset({dt.uint8, dt.int8, dt.int16, dt.uint16, dt.uint32, dt.int32, dt.int64, dt.uint64})
_LOGIC_REPEAT = frozenset({dt.int16, dt.uint16, dt.uint32, dt.int32})
And = BinaryApi("And", Reg.And, _LOGIC_COUNT, _LOGIC_REPEAT)
Or = BinaryApi("Or", Reg.Or, _LOGIC_COUNT, _LOGIC_REPEAT)
_NOT_REPEAT = frozenset({dt.half, dt.float32, dt.uint16, dt.int16, dt.uint32, dt.int32})
Not = UnaryApi("Not", Reg.Not, _NOT_REPEAT | {dt.int8, dt.uint8, dt.uint64, dt.int64}, _NOT_REPEAT)

#: every memory-level API by name (the lowering explorer's names)
APIS: Final[dict[str, Any]] = {  # (the other lowering modules add theirs)
    a.name: a
    for a in (Add, Sub, Mul, Max, Min, And, Or, Abs, Relu, Not, Adds, Muls, Maxs, Mins, Subs, Divs, Ands, Ors, LeakyRelu)
}
TENSOR_OPERATORS.update({a.name: a for a in (Add, Sub, Mul, And, Or)})  # dst[:] = src0 + src1 ... (Div: reduce.py)


# --- the lowering explorer ------------------------------------------------------------------------------------
#: `lower_spec` for APIs whose arguments are not those of `APIS`' skeletons (added by the modules that define
#: them): name -> (dtype, keyword arguments) -> the lowering of such a call on fresh tensors
SPEC_BUILDERS: Final[dict[str, Callable[[type[dt.DType], dict[str, Any]], Lowering]]] = {}


@attrs.frozen
class Lowering:
    """The Reg-op sequence one memory-level call became (`rs.lower`)."""

    call: str
    records: tuple[Any, ...]

    def counts(self) -> dict[str, int]:
        """Reg calls per op, in first-call order."""
        out: dict[str, int] = {}
        for r in self.records:
            out[r.api] = out.get(r.api, 0) + 1
        return out

    def bytes(self) -> dict[str, tuple[int, int]]:
        """UB bytes (read, written) per op, summed over its calls."""
        out: dict[str, tuple[int, int]] = {}
        for r in self.records:
            rd, wr = out.get(r.api, (0, 0))
            out[r.api] = (rd + sum(b - a for a, b in r.reads), wr + sum(b - a for a, b in r.writes))
        return out

    def table(self) -> str:
        rows = [("#", "Reg op", "operands", "active", "UB read", "UB written")]
        for i, r in enumerate(self.records):
            active = "-" if r.active is None else f"{r.active}/{r.lanes}"
            rd = " ".join(f"[{a},{b})" for a, b in r.reads) or "-"
            wr = " ".join(f"[{a},{b})" for a, b in r.writes) or "-"
            rows.append((str(i), r.api, r.dtypes, active, rd, wr))
        rows.append(("", "", "", "", "", ""))
        rows.append(("", "op", "calls", "", "UB bytes read", "UB bytes written"))
        for name, n in self.counts().items():
            n_read, n_written = self.bytes()[name]
            rows.append(("", name, str(n), "", str(n_read), str(n_written)))
        widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
        body = "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)
        return f"{self.call}: {len(self.records)} Reg calls\n{body}"

    def __str__(self) -> str:
        return self.table()


def lower(api: Callable[..., None], *args: Any, **kwargs: Any) -> Lowering:
    """`rs.lower(AscendC.Add, dst, src0, src1, 256)`: run the call (it runs for real: its stores land)
    and return the Reg-op sequence it became, with op counts and UB bytes read and written per op
    (its loops run in order, so the sequence is each iteration's)."""

    name = getattr(api, "name", getattr(api, "__name__", repr(api)))
    shown = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    with trace() as t, configure(loops="sequential"):
        api(*args, **kwargs)
    return Lowering(f"{name}({shown})", tuple(t.records))


def lowerable() -> list[str]:
    """The names `regsim lower` lowers: the memory-level APIs and the memory-level C API compares."""
    return sorted({*APIS, *SPEC_BUILDERS})


def reg_op_note(text: str) -> str | None:
    """What `regsim lower` says of a register-level (Reg) op, which is not lowered (it is one Reg call itself):
    its C++ forms and where its semantics are written; None for a name that is not a Reg op (or is lowered)."""

    name = text.partition("(")[0].strip()
    if name in lowerable() or name not in REGISTRY.entries:
        return None
    forms = "; ".join(s.signature() for s in REGISTRY.entries[name].specs if not s.unmodelled)
    return (
        f"{name} is a register-level (Reg) op: it is not lowered, a call is one Reg call ({forms}), whose lanes "
        f"docs/ops.md and help(rs.Reg.{name}) describe. regsim lower shows the Reg calls a memory-level (LocalTensor) "
        f"or C API call becomes: one of {', '.join(lowerable())}."
    )


def lower_spec(text: str) -> Lowering:
    """`regsim lower "Add(int16, count=256)"`: lower a call described by name, dtype and keyword arguments
    (`count=` for the first-n interface; `mask=`, `repeat_time=`, optional `repeat_params=(...)` and
    `is_set_mask=` for the mask/repeat interfaces; `scalar_value=` for the tensor-scalar APIs: Adds, Muls, Maxs, Mins,
    Subs, Divs, Ands, Ors, LeakyRelu, Axpy; `src=half` for sources of another type than dst, MulAddDst's and Axpy's
    half → float rows) on fresh tensors of random data (the tensors are the interface's extent, rounded up to whole
    registers)."""
    import ast

    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise ParameterError(message("lower", "call", repr(text), 'a call like "Add(int16, count=256)"')) from e
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
    ):
        raise ParameterError(message("lower", "call", repr(text), 'a call like "Add(int16, count=256)"'))
    api = APIS.get(node.func.id)
    if api is None and node.func.id not in SPEC_BUILDERS:
        raise ParameterError(message("lower", "API", node.func.id, f"one of {', '.join(lowerable())}"))
    dtype = getattr(dt, node.args[0].id, None)
    if not (isinstance(dtype, type) and issubclass(dtype, dt.DType)):
        raise ParameterError(message("lower", "dtype", node.args[0].id, "a regsim dtype name such as int16 or float32"))
    kw = {  # (a bare name, `dst=half` or `round_mode=CAST_RINT`, is its text)
        str(k.arg): k.value.id if isinstance(k.value, ast.Name) else ast.literal_eval(k.value) for k in node.keywords
    }
    if api is None:
        return Lowering(text.strip(), SPEC_BUILDERS[node.func.id](dtype, kw).records)

    binary = isinstance(api, BinaryApi)
    lead: tuple[Any, ...] = ()
    if isinstance(api, UnaryApi) and api.scalar:
        if "scalar_value" not in kw:
            raise ParameterError(message("lower", "scalar_value", "missing", f"scalar_value=... for {api.name}"))
        lead = (kw.pop("scalar_value"),)
    extra: dict[str, Any] = {"is_set_mask": kw.pop("is_set_mask")} if "is_set_mask" in kw else {}
    src_dtype = dtype
    if "src" in kw:  # `src=half`: sources of another type than dst (MulAddDst's and Axpy's half → float rows, §128)
        name = str(kw.pop("src"))
        found = getattr(dt, name, None)
        if not (isinstance(found, type) and issubclass(found, dt.DType)):
            raise ParameterError(message("lower", "src", name, "a regsim dtype name such as half"))
        src_dtype = found
    if set(kw) == {"count"}:
        nbytes = max(int(kw["count"]), 1) * dtype.itemsize
        rest: tuple[Any, ...] = (kw["count"],)
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
        struct = BinaryRepeatParams if binary else UnaryRepeatParams
        params = struct(*kw.get("repeat_params", ()))
        strides = attrs.astuple(params)
        blk, rep = strides[: len(strides) // 2], strides[len(strides) // 2 :]
        nbytes = (max(rep) * (max(int(kw["repeat_time"]), 1) - 1) + max(*blk, 1) * 7 + 1) * ONE_BLOCK_SIZE
        mask = kw["mask"]
        rest = (list(mask) if isinstance(mask, (list, tuple)) else mask, kw["repeat_time"], params)
    else:
        raise ParameterError(
            message("lower", "arguments", sorted(kw), "count=N, or mask=M, repeat_time=R [, repeat_params] [, is_set_mask]")
        )
    padded = -(-nbytes // REPEAT_BYTES) * REPEAT_BYTES
    ub = UnifiedBuffer(3 * padded + REPEAT_BYTES)
    tensors = [ub.alloc(d, padded // d.itemsize) for d in (dtype, src_dtype, src_dtype)[: 3 if binary else 2]]
    rng = np.random.default_rng(0)
    for t in tensors:
        ub.storage.write(t.addr, rng.integers(0, 256, t.nbytes, dtype=np.uint8))
    low = lower(api, *tensors, *lead, *rest, **extra)
    return Lowering(text.strip(), low.records)
