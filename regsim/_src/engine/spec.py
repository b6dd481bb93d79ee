"""Op specs and the one registry: every Reg operation regsim models, declared once, by role.

An `OpSpec` names each operand with its kind (register, mask, pointer, scalar, enum, ...), its
role (in, out, in-out, returned) and its dtype rule (a set, the same as another operand, ...);
it carries the C++ template parameters (keyword-only operands), the lane semantics, the executor
of its shape, the C API spelling, the legacy names and the documentation page. Everything else
is derived from it: overload dispatch, argument binding, static validation (cached per operand
types), the public docstrings, `docs/ops.md` and the tests' parametrisation.

A call runs as: dispatch (which overload, from the Python types of the arguments, as C++ overload
resolution does) → bind (one value per operand) → plan (static checks, cached per dtypes and
enum values) → the executor of the op's shape (data checks and the work, through the backend).
In order (no trace, no batched loop), a call of a signature seen before is one dictionary look-up
in its face and one closure, made with the plan: the executor's `specialise`d one for the common
shapes (which hands every uncommon call to the generic path before changing anything), else
bind and run. In a rewritten VF loop's in-order body each call of a face is a `Site` remembering the closure of its
last call's signature, so a call of the same one skips even the face's key and look-up.
"""

from __future__ import annotations

import enum
import functools
import inspect
import itertools
import os
import textwrap
import types
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, Final, Protocol, TypeVar

import attrs
import numpy as np

from regsim._src.engine.context import BATCHED_CALLS, Ref, VfContext, vf_context
from regsim._src.engine.per_iteration import Affine, InOrderOnly
from regsim._src.model import dtypes as dt
from regsim._src.model.config import _VF
from regsim._src.model.enums import _Struct, expected_member
from regsim._src.model.memory import LocalTensor, TensorExpr, UbPtr
from regsim._src.model.registers import (
    AddrReg,
    MaskReg,
    RegTensor,
    RegTrait,
    RegTraitNumOne,
    UnalignRegForLoad,
    UnalignRegForStore,
    check_trait,
)
from regsim.errors import DTypeError, ParameterError, UnsupportedError, message

DTypes = frozenset[type[dt.DType]]

DOC = "docs/zh/api/SIMD-API/基础API/Reg矢量计算/"


class Kind(enum.Enum):
    """What an operand is; each kind is one Python type (dispatch matches on it)."""

    REG = "a Reg.RegTensor"
    MASK = "a Reg.MaskReg"  # a predicate as data (carry in/out, mask loads and stores)
    PRED = "a Reg.MaskReg (the predicate governing the lanes)"
    PTR = "an rs.UbPtr (a __ubuf__ T*)"
    INT = "an int"
    SCALAR = "a Python or numpy number (converted to the operand's element type)"
    ADDR = "a Reg.AddrReg"
    ULOAD = "a Reg.UnalignRegForLoad"
    USTORE = "a Reg.UnalignRegForStore"
    REF = "an rs.Ref(count) (C++ takes a reference and updates it)"
    DTYPE = "a regsim dtype class such as rs.float32"
    ENUM = "an enum member"
    TRAIT = "Reg.RegTraitNumOne or Reg.RegTraitNumTwo"
    STRUCT = "an Ascend C struct value such as Reg.CastTrait(...)"


class Role(enum.Enum):
    IN = "in"
    OUT = "out"
    INOUT = "in-out"
    RET = "returned"


# --- dtype rules ---------------------------------------------------------------------------------
@attrs.frozen
class OneOf:
    """The operand's dtype is one of `dtypes` (on Ascend 950)."""

    dtypes: DTypes


@attrs.frozen
class SameAs:
    """The operand has the dtype (and register trait) of operand `other`: one C++ type."""

    other: str


@attrs.frozen
class Paired:
    """The operand's dtype is `pairs[dtype of operand other]`, with the same register trait (a
    per-type table such as the shift amounts' `(uint8_t, int8_t)`, `(uint16_t, int16_t)`, ...)."""

    other: str
    pairs: Mapping[Any, Any]


DTypeRule = OneOf | SameAs | Paired

NO_DEFAULT: Final = object()


@attrs.frozen
class Operand:
    """One C++ parameter: a function argument (positional) or a template parameter (keyword)."""

    name: str  #: the C++ name in snake_case; also the Python keyword
    kind: Kind
    role: Role = Role.IN
    dtypes: DTypeRule | None = None  #: registers, pointers and dtype parameters
    keyword: bool = False  #: a C++ template parameter: keyword-only in Python
    default: object = NO_DEFAULT
    #: ENUM: the enum class and the members accepted (all when empty)
    enum: type[enum.Enum] | None = None
    accepted: frozenset[Any] = frozenset()
    #: INT: the inclusive range; INT, and SCALAR of a fixed type: what it is in C++ (e.g. "uint16_t")
    bounds: tuple[int, int] | None = None
    ctype: str = ""
    #: STRUCT: the struct class (a C++ `const Struct&` template parameter)
    struct: type | None = None

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


def reg(name: str, role: Role = Role.IN, dtypes: DTypeRule | None = None) -> Operand:
    return Operand(name, Kind.REG, role, dtypes)


def pred(name: str = "mask") -> Operand:
    return Operand(name, Kind.PRED)


def mask(name: str, role: Role = Role.IN) -> Operand:
    return Operand(name, Kind.MASK, role)


def scalar(name: str, ctype: str = "") -> Operand:
    """A C++ scalar operand: of the op's element type (e.g. `Adds`'s `scalarValue`), or of the fixed C type `ctype`
    (the executors' `SCALAR_CTYPES`, e.g. the shifts' `int16_t scalarValue`)."""
    return Operand(name, Kind.SCALAR, dtypes=None, ctype=ctype)


def enum_param(name: str, enum_cls: type[enum.Enum], default: object = NO_DEFAULT, accepted: Sequence[Any] = ()) -> Operand:
    return Operand(name, Kind.ENUM, keyword=True, default=default, enum=enum_cls, accepted=frozenset(accepted))


def int_param(name: str, ctype: str, bounds: tuple[int, int], *, keyword: bool = False, default: object = NO_DEFAULT) -> Operand:
    return Operand(name, Kind.INT, keyword=keyword, default=default, bounds=bounds, ctype=ctype)


class Batching(enum.Enum):
    """How an op runs over a batch of loop iterations (the batched-loop backend reads this)."""

    ELEMENTWISE = "lanes are independent: a leading iteration axis is free"
    CROSS_LANE = "reads across lanes: the lane axis stays last"
    MEMORY = "reads or writes the UB: vectorised gathers and scatters of its addresses"
    STATEFUL = "updates a counter or pointer in place: closed form over iterations"
    SEQUENTIAL = "runs in order only (the spec's `sequential_reason` says why)"


@attrs.frozen
class CName:
    """The C API spelling of an op: a name and the order of its parameters (operand names; a
    template operand may be a C parameter, as `asc_create_mask_b16(pat_mode)` passes the pattern).

    `fixed`: operands the C name fixes (`asc_eq` is `Compare` with `mode=CMPMODE.EQ`,
    `asc_float2half_rn` is `Cast` with its `trait`, `asc_storealign_1st` passes a mask it ignores);
    `dtypes`: the element types the C API documents when fewer than the Reg op's (empty: all), of
    the first register operand; `types`: the same for further operands by name (a conversion fixes
    both registers' types). Several CNames of one name are C overloads: the arguments' kinds, then
    these element types, pick one (`asc_loadalign_brc_elem` is `DIST_BRC_B8`, `_B16` or `_B32` by T).
    `displaces`: a pointer operand the C parameter `offset` (`int32_t`, in elements of the pointer's
    type; not a Reg operand) moves: `asc_loadalign(dst, src, offset)` reads at `src + offset`.
    An op whose `T` is neither a C parameter nor fixed has one C function per width
    (`asc_create_mask_b8/_b16/_b32`: T = uint8, uint16, uint32), for the widths T accepts.
    `c_params`: C parameters that are not Reg operands, with their Python type (`asc_mem_bar`'s
    `MEM_TYPE`); `derive(name, args)` gives, from the C arguments by parameter name, the operands the
    C function computes (`asc_update_addr_reg`'s loop indices; `asc_mem_bar`'s pipe pair), or None
    where the call runs no Reg op."""

    name: str
    params: tuple[str, ...]
    fixed: tuple[tuple[str, Any], ...] = ()
    dtypes: DTypes = frozenset()
    types: tuple[tuple[str, DTypes], ...] = ()
    displaces: str = ""
    c_params: tuple[tuple[str, type], ...] = ()
    derive: Callable[[str, Mapping[str, Any]], Mapping[str, Any] | None] | None = None

    #: the C parameter name of the `displaces` offset
    OFFSET: ClassVar[str] = "offset"


# --- plans: what static validation leaves for the executor ------------------------------------------
@attrs.frozen
class Plan:
    """The statically checked shape of one call: operand dtypes/traits and template values."""

    spec: OpSpec
    dtype: Any  #: type[DType]: the dtype of the first register / pointer / T operand
    trait: Any  #: RegTrait: the trait of that register (RegTraitNumOne where there is none)
    values: Mapping[str, Any]  #: the template (keyword) operands' values
    prepared: Any = None  #: what the executor precomputed for this signature
    run: Callable[[VfContext, Plan, Sequence[Any]], Any] | None = None
    #: the fast binding of calls of this signature: positional args, then the keyword operands'
    #: defaults, the given keywords written over them at their `spec.slots`
    tail: tuple[Any, ...] = ()


#: a call of one cached signature on the in-order backend: `call(ctx, args, kwargs)`
Call = Callable[[VfContext, tuple[Any, ...], dict[str, Any]], Any]


class ExecutorLike(Protocol):
    batchable: bool

    def prepare(self, spec: OpSpec, plan: Plan) -> Any: ...
    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> Any: ...
    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None: ...
    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None: ...


@attrs.frozen(eq=False, slots=False)
class OpSpec:
    """One Reg operation (one C++ overload) as the Ascend documentation states it."""

    name: str  #: the Ascend C name, e.g. "Add"
    variant: str  #: "" or which overload, e.g. "carry" for `Add(carry, dst, src0, src1, mask)`
    family: str  #: the chapter / regsim module: "arith", "mask", "datamove", ...
    operands: tuple[Operand, ...]
    executor: ExecutorLike
    equation: str  #: the lane equation, first line of the docstring
    doc: str  #: documentation page (relative to the Ascend C docs root)
    batching: Batching
    lane: Callable[..., Any] | None = None  #: the pure lane function, where the shape has one
    c_api: CName | tuple[CName, ...] | None = None  #: one C spelling, or several (`asc_eq` … `asc_le` of `Compare`)
    aliases: tuple[str, ...] = ()  #: legacy names still compiled by the 950 headers
    #: why regsim refuses this overload (documented, not modelled yet): UnsupportedError
    unmodelled: str = ""
    #: with `batching=Batching.SEQUENTIAL`: why a batched loop meeting this op runs in order
    sequential_reason: str = ""
    #: the op over a batched loop's iterations when one of its inputs is its own output of the
    #: previous iteration (an accumulator, a carry chain): `scan(operands, carried, active, mode, ctrl=)`
    #: gets the lane function's operands with operand `carried` holding the value before the loop,
    #: the active lanes of every iteration, and returns the lane function's outputs for every
    #: iteration, masking applied (None: not exact for these operands)
    scan: Callable[..., Any] | None = None

    @property
    def key(self) -> str:
        return f"{self.name}/{self.variant}" if self.variant else self.name

    @property
    def c_names(self) -> tuple[CName, ...]:
        """The op's C API spellings (none, one or several)."""
        if self.c_api is None:
            return ()
        return self.c_api if isinstance(self.c_api, tuple) else (self.c_api,)

    @property
    def positional(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if not o.keyword)

    @property
    def templates(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if o.keyword)

    def operand(self, name: str) -> Operand:
        return next(o for o in self.operands if o.name == name)

    @property
    def dtypes(self) -> DTypes:
        """The dtypes of the op's first typed operand (its `T`)."""
        for o in self.operands:
            if isinstance(o.dtypes, OneOf):
                return o.dtypes.dtypes
        return frozenset()

    @property
    def modes(self) -> frozenset[Any]:
        """The MaskMergeModes the op accepts (empty: it has no `mode` parameter)."""
        for o in self.templates:
            if o.name == "mode" and o.enum is not None and o.enum.__name__ == "MaskMergeMode":
                return o.accepted
        return frozenset()

    def check_batchable(self) -> None:
        """Before a call of this op on a batched loop's backend: `InOrderOnly` (the loop runs in order) when the op
        has no batching rule."""
        if not self.executor.batchable:
            raise InOrderOnly(f"Reg.{self.name} runs in order only: {self.sequential_reason or 'no batching rule'}")

    def batched(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> Any:
        """Run a call of this op on a batched loop's backend (`check_batchable` first)."""
        self.check_batchable()
        assert plan.run is not None
        return plan.run(ctx, plan, values)

    def signature(self) -> str:
        pos = ", ".join(o.name for o in self.positional)
        kw = ", ".join(o.name + ("" if o.required else "=…") for o in self.templates)
        return f"{self.name}({pos}{', *, ' + kw if kw else ''})"

    def docstring(self) -> str:
        modes = ", ".join(m.name for m in sorted(self.modes, key=lambda m: m.value))
        return (
            f"{self.equation}\n\nAscend C: `{self.signature()}`"
            f"{'  (' + self.variant + ' overload)' if self.variant else ''}.\n"
            f"dtypes on Ascend 950: {dt.names(self.dtypes) or 'n/a'}.\n"
            f"MaskMergeMode: {modes or 'n/a'}.\n"
            f"Doc: {self.doc}"
        )

    # --- binding and static validation -------------------------------------------------------------
    def __attrs_post_init__(self) -> None:
        names = [o.name for o in self.operands]
        assert len(set(names)) == len(names), f"{self.key}: duplicate operand names"

    @functools.cached_property
    def slots(self) -> dict[str, int]:
        """Operand name → its index in the bound values."""
        return {o.name: i for i, o in enumerate(self.operands)}

    def bind(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
        """One value per operand, in operand order (C++-ordered positionals, then templates)."""
        values = [o.default for o in self.operands]
        values[: len(args)] = args
        for name, value in kwargs.items():
            i = self.slots[name]  # the dispatcher admitted only operand names
            if i < len(args):
                raise ParameterError(message(self.name, name, "given twice", "each parameter once"))
            values[i] = value
        for o, v in zip(self.operands, values, strict=True):
            if v is NO_DEFAULT:
                how = f"keyword {o.name}=" if o.keyword else "positional"
                raise ParameterError(message(self.name, o.name, "missing", f"{how} {_describe(o)}: {self.signature()}"))
        return values

    def validate(self, values: Sequence[Any]) -> Plan:
        """Static checks (dtypes, traits, enums, the overload being modelled) → the call's plan."""
        api = self.name
        by_name = dict(zip((o.name for o in self.operands), values, strict=True))
        first: Any = None
        for o, v in zip(self.operands, values, strict=True):
            if o.kind is Kind.ENUM:
                _check_enum(api, o, v)
            elif o.kind is Kind.DTYPE:
                if not dt.is_dtype(v):
                    raise DTypeError(message(api, o.name, repr(v), "a regsim dtype class such as rs.float32"))
            elif o.kind is Kind.STRUCT:
                if not isinstance(v, o.struct):  # type: ignore[arg-type]
                    raise ParameterError(message(api, o.name, _value(v), f"a Reg.{o.struct.__name__ if o.struct else ''}(...)"))
            elif o.kind is Kind.TRAIT:
                check_trait(api, by_name["T"], v)
            if o.dtypes is None:
                continue
            got = _type_of(o, v)
            if isinstance(o.dtypes, OneOf):
                if got[0] not in o.dtypes.dtypes:
                    raise DTypeError(
                        message(
                            api, o.name, _show(o, got), f"{_show(o, (None, None))}of {dt.names(o.dtypes.dtypes)} on Ascend 950"
                        )
                    )
            elif isinstance(o.dtypes, Paired):
                other = _type_of(self.operand(o.dtypes.other), by_name[o.dtypes.other])
                want = (o.dtypes.pairs.get(other[0]), other[1])
                if got[0] is not want[0] or got[1] != want[1]:
                    shown = f"RegTensor[{want[0].name}] ({want[1]!r})" if want[0] else "no such operand"
                    raise DTypeError(message(api, o.name, _show(o, got), f"{shown} with {o.dtypes.other} of {other[0]!r}"))
            else:
                want = _type_of(self.operand(o.dtypes.other), by_name[o.dtypes.other])
                if got[0] is not want[0] or (got[1] is not None and want[1] is not None and got[1] != want[1]):
                    raise DTypeError(
                        message(
                            api,
                            o.name,
                            _show(o, got),
                            f"the type of {o.dtypes.other}: {_show(self.operand(o.dtypes.other), want)}"
                            + (" (C++ static_asserts this; cast with .reinterpret())" if o.kind is Kind.PTR else ""),
                        )
                    )
            if first is None:
                first = got
        if self.unmodelled:
            raise UnsupportedError(message(api, "overload", self.signature(), self.unmodelled))
        templates = {o.name: v for o, v in zip(self.operands, values, strict=True) if o.keyword}
        regs = [v for o, v in zip(self.operands, values, strict=True) if o.kind is Kind.REG and o.dtypes is not None]
        dtype = regs[0].dtype if regs else first[0] if first else by_name.get("T")
        trait = regs[0].trait if regs else by_name.get("trait", RegTraitNumOne)
        plan = Plan(self, dtype, trait, templates)
        n_pos = len(self.positional)
        return attrs.evolve(
            plan,
            prepared=self.executor.prepare(self, plan),
            run=self.executor.run,
            tail=tuple(o.default for o in self.operands[n_pos:]),
        )


#: an argument's part of a call's cache key: `getattr(v, "_sig", type(v))`, mapped in C
_SIGS = itertools.repeat("_sig")


def _key_display(n: int, numbers: frozenset[int], name: str) -> str:
    """The plan-cache key of a call of `n` arguments (the tuple `name`), as the `map` over `_SIGS` makes it, as the
    source of one tuple display (three times cheaper): argument k's `_sig`, or at the `numbers` positions (an INT or
    SCALAR operand: a Python number has no `_sig`) its `_sig` else its type. Another argument without a `_sig` raises
    AttributeError (the caller then maps)."""
    parts = (f"getattr({name}[{k}], '_sig', type({name}[{k}]))" if k in numbers else f"{name}[{k}]._sig" for k in range(n))
    return "(" + "".join(part + ", " for part in parts) + ")"


@functools.cache
def _key_function(n: int, numbers: frozenset[int]) -> Callable[[tuple[Any, ...]], tuple[Any, ...]]:
    """`_key_display` as a function of the arguments, written out as the source of a lambda once per shape."""
    key: Callable[[tuple[Any, ...]], tuple[Any, ...]] = eval(
        f"lambda a: {_key_display(n, numbers, 'a')}", {"getattr": getattr, "type": type}
    )
    return key


def batched_call(plan: Plan, direct: bool) -> Call:
    """A call of `plan`'s signature in a batched loop with no trace, made once per signature: the executor's
    `specialise_batched` closure where it has one for the plan, else binding and `OpSpec.batched`."""
    spec = plan.spec
    run = spec.batched

    def generic(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        return run(ctx, plan, _bind(plan, direct, args, kwargs))

    special = spec.executor.specialise_batched(spec, plan, generic) if direct and spec.executor.batchable else None
    return special or generic


def traced_call(plan: Plan, direct: bool) -> Call:
    """A call of `plan`'s signature handed to the running VF's hook (`rs.trace()`, in order or in a batched loop) with
    its operands bound."""

    def call(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        hook: Any = ctx.hook  # (set: the face hands a call here only then)
        return hook.record(ctx, plan, _bind(plan, direct, args, kwargs))

    return call


def _bind(plan: Plan, direct: bool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
    """One value per operand: the positional arguments, then the keyword operands' defaults with
    the given keywords written over them (a call of the plan's signature binds so)."""
    if not direct:
        return plan.spec.bind(args, kwargs)
    values = [*args, *plan.tail]
    if kwargs:
        slots = plan.spec.slots
        for name, value in kwargs.items():
            values[slots[name]] = value
    return values


def _type_of(o: Operand, v: Any) -> tuple[Any, Any]:
    """(dtype, trait) of a register, (dtype, None) of a pointer or dtype parameter."""
    if o.kind is Kind.REG:
        return v.dtype, v.trait
    if o.kind is Kind.PTR:
        return v.dtype, None
    return v, None


def _show(o: Operand, t: tuple[Any, Any]) -> str:
    if o.kind is Kind.REG:
        return f"RegTensor[{t[0].name}] ({t[1]!r})" if t[0] else "a RegTensor "
    if o.kind is Kind.PTR:
        return f"UbPtr[{t[0].name}]" if t[0] else "a UbPtr "
    return repr(t[0]) if t[0] else ""


def _describe(o: Operand, given: object = None) -> str:
    """What operand `o` accepts (for an enum, the member `given` names, if it names one; for a pointer given a
    LocalTensor, its `GetPhyAddr()`, as C++ passes it)."""
    if o.kind is Kind.PTR and isinstance(given, LocalTensor):
        return f"{Kind.PTR.value}: pass the tensor's pointer, tensor.GetPhyAddr() (+ an element offset)"
    if o.kind is Kind.ENUM and o.enum is not None:
        return expected_member(o.enum, given, "Reg")
    if o.kind is Kind.STRUCT and o.struct is not None:
        return f"a Reg.{o.struct.__name__}(...)"
    return o.kind.value


def _check_enum(api: str, o: Operand, v: object) -> None:
    assert o.enum is not None
    if not isinstance(v, o.enum):
        raise ParameterError(message(api, o.name, repr(v), expected_member(o.enum, v, "Reg")))
    if o.accepted and v not in o.accepted:
        accepted = ", ".join(m.name for m in sorted(o.accepted, key=lambda m: m.value))
        raise UnsupportedError(message(api, o.name, v.name, f"{accepted} (Ascend 950 supports no other here)"))


# --- dispatch: one Python name serves every C++ overload of that name --------------------------------
@functools.cache
def _kind_types() -> dict[Kind, tuple[type, ...]]:
    return {
        Kind.REG: (RegTensor,),
        Kind.MASK: (MaskReg,),
        Kind.PRED: (MaskReg,),
        Kind.PTR: (UbPtr,),
        Kind.INT: (int, np.integer, Affine),  # (Affine: a batched loop's index; executors that take it say so)
        # numbers and numpy's bools (ml_dtypes' scalars, not np.number either: `fits`); an Affine: a value that
        # differs by iteration in a batched loop (the backend makes it a column)
        Kind.SCALAR: (int, float, complex, np.number, np.bool_, Affine),
        Kind.ADDR: (AddrReg,),
        Kind.ULOAD: (UnalignRegForLoad,),
        Kind.USTORE: (UnalignRegForStore,),
        Kind.REF: (Ref,),
        Kind.DTYPE: (type,),
        Kind.ENUM: (enum.Enum,),
        Kind.TRAIT: (RegTrait,),
        Kind.STRUCT: (_Struct,),
    }


@functools.cache
def _element_scalars() -> frozenset[type]:
    """The numpy scalar types of every element type (ml_dtypes' among them: it loads here, model/lazy.py)."""
    return frozenset(d.np_dtype.type for d in dt.ALL_DTYPES)


def fits(kind: Kind, v: object) -> bool:
    """Whether `v` is a value of an operand of `kind` (a bool is no INT; a numpy scalar of an element type,
    an ml_dtypes one too, is a SCALAR)."""
    if isinstance(v, _kind_types()[kind]):
        return not (kind is Kind.INT and isinstance(v, bool))
    return kind is Kind.SCALAR and isinstance(v, np.generic) and type(v) in _element_scalars()


class _Calls(dict[Any, Call]):
    """The in-order calls of one Ascend name by signature, and those of signatures with keywords also under their
    positional part, each with the keywords it was made for (`keyworded`: the face compares a call's keywords with
    those, cheaper than hashing them into its signature); `clear` empties both, and makes the call sites that remember
    one of them (`sites`) forget it."""

    __slots__ = ("keyworded", "sites")

    def __init__(self) -> None:
        super().__init__()
        self.keyworded: dict[Any, list[tuple[dict[str, Any], Call]]] = {}
        self.sites: weakref.WeakSet[Site] = weakref.WeakSet()

    def clear(self) -> None:
        super().clear()
        self.keyworded.clear()
        for site in list(self.sites):
            site.forget()


class Overloads:
    """The public entry of one Ascend name: resolves a call to one of its specs and runs it.

    A call's static signature (each argument's `_sig`: a register's dtype and register count, a
    pointer's dtype, an enum member, a dtype class, else its Python type; and the keywords with
    their values) picks a cached plan: overload resolution, binding shape and static checks are
    done once per signature, together with the call's closure on the in-order backend (the
    executor's `specialise`d one, else binding and `run`), so an in-order call costs a
    dictionary look-up and that closure (the face does the look-up itself, see `face`).
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.specs: list[OpSpec] = []
        #: signature → (plan, whether the call binds directly, its in-order call)
        self._plans: dict[Any, tuple[Plan, bool, Call]] = {}
        #: signature → its in-order call (what the face looks up)
        self._calls = _Calls()
        #: signature → its call in a batched loop with no trace (`batched_call`; the face looks it up too)
        self._batched: dict[Any, Call] = {}
        #: signature → its call handed to the running VF's hook, bound (`traced_call`; the face looks it up too)
        self._traced: dict[Any, Call] = {}

    def add(self, spec: OpSpec) -> None:
        self.specs.append(spec)
        self._plans.clear()
        self._calls.clear()
        self._batched.clear()
        self._traced.clear()

    def in_order_call(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Call | None:
        """The in-order call the face finds for these arguments when no hook is set (None: it finds none, and plans
        one): by the key of their `_sig`s, a call with keywords by the first of those made for its positionals that
        its keywords equal (the face's look-up, written out)."""
        key = tuple(map(getattr, args, _SIGS, map(type, args)))
        if not kwargs:
            return self._calls.get(key)
        try:
            made = next((call for given, call in self._calls.keyworded.get(key, ()) if kwargs == given), None)
            return made or self._calls.get((key, *kwargs.items()))
        except Exception:  # (a keyword value that neither compares nor hashes: the face plans, and names it)
            return None

    def __call__(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        ctx = _VF.get()
        if ctx is None:
            ctx = vf_context(self.name)  # raises, naming the API
        positional = tuple(map(getattr, args, _SIGS, map(type, args)))
        key: Any = positional
        if kwargs:
            key = (key, *kwargs.items())
        try:
            hit = self._plans.get(key)
        except TypeError:  # an unhashable keyword value: resolution names it
            hit, key = None, None
        if hit is None:
            hit = self._plan(args, kwargs)
            if key is not None:
                self._plans[key] = hit
                self._calls[key] = hit[2]
                if kwargs:
                    self._calls.keyworded.setdefault(positional, []).append((dict(kwargs), hit[2]))
                self._traced[key] = traced_call(hit[0], hit[1])
        plan, direct, call = hit
        if ctx.hook is None:
            return call(ctx, args, kwargs)
        if ctx.hook is BATCHED_CALLS:
            batched = self._batched.get(key) if key is not None else None
            if batched is None:
                batched = batched_call(plan, direct)
                if key is not None:
                    self._batched[key] = batched
            return batched(ctx, args, kwargs)
        traced = self._traced.get(key) if key is not None else None
        return (traced or traced_call(plan, direct))(ctx, args, kwargs)

    def _plan(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Plan, bool, Call]:
        """Resolve, bind and check a call of a new signature (raising for a bad one)."""
        spec = self.resolve(args, kwargs)
        plan = spec.validate(spec.bind(args, kwargs))
        direct = len(args) == len(spec.positional)
        run = spec.executor.run

        def generic(ctx: VfContext, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
            return run(ctx, plan, _bind(plan, direct, args, kwargs))

        special = spec.executor.specialise(spec, plan, generic) if direct else None
        return plan, direct, special or generic

    def resolve(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> OpSpec:
        """The overload whose operand kinds match the arguments (C++ overload resolution).

        Among overloads whose positional operands fit, one given all its required keywords is
        preferred (`post_mode=` picks the post-update form); otherwise the first fitting one
        is taken and binding names what is missing.
        """

        def misfit(o: Operand, v: object) -> str | None:
            if fits(o.kind, v):
                return None
            return message(self.name, o.name, _value(v), _describe(o, v))

        fitting: list[OpSpec] = []
        #: positional misfits, one per overload of a fitting arity: (position, extra operands, message)
        errors: list[tuple[int, int, str]] = []
        keyword_errors: list[str] = []  # keyword misfits of overloads whose positionals fit
        for spec in self.specs:
            pos = spec.positional
            if len(args) > len(pos):
                continue
            at = next(((k, m) for k, (o, v) in enumerate(zip(pos, args, strict=False)) if (m := misfit(o, v))), None)
            if at is not None:
                errors.append((at[0], len(pos) - len(args), at[1]))
                continue
            names = {o.name for o in spec.operands}
            extra = next((k for k in kwargs if k not in names), None)
            if extra is not None:
                keyword_errors.append(
                    message(self.name, extra, _value(kwargs[extra]), f"no {extra}= in the overload {spec.signature()}")
                )
                continue
            bad = next((m for k, v in kwargs.items() if (m := misfit(spec.operand(k), v))), None)
            if bad is not None:
                keyword_errors.append(bad)
                continue
            fitting.append(spec)
        fitting.sort(key=lambda s: len(s.positional) != len(args))  # an overload of exactly this arity first
        if len(fitting) > 1:  # overloads told apart by their element types (Abs: real or complex source)
            fitting = [s for s in fitting if _admits(s, args)] or fitting
        if fitting:
            return next((s for s in fitting if all(o.name in kwargs for o in s.templates if o.required)), fitting[0])
        everywhere = {o.name for s in self.specs for o in s.operands}
        unknown = next((k for k in kwargs if k not in everywhere), None)
        if unknown is not None:
            known = sorted({o.name for s in self.specs for o in s.templates})
            accepted = f"the keywords {', '.join(known)}" if known else f"no keywords ({self.name} has no template parameters)"
            raise ParameterError(message(self.name, unknown, f"{_value(kwargs[unknown])} (no such parameter)", accepted))
        if keyword_errors:
            raise ParameterError(keyword_errors[0])
        # the overload that fits furthest, then the one of the closest arity, names the argument that does not fit
        # (`LoadAlign(reg, 0)`: `src_addr = 0; accepted: an rs.UbPtr`), where one does
        best = sorted(errors, key=lambda e: (-e[0], e[1]))
        if best and len({m for k, d, m in best if (k, d) == best[0][:2]}) == 1:
            raise ParameterError(best[0][2])
        shown = ", ".join(_value(a) for a in args)
        forms = "; ".join(s.signature() for s in self.specs if not s.unmodelled)
        raise ParameterError(
            message(self.name, "arguments", f"{len(args)} positional ({shown})", f"one of the overloads {forms}")
        )


def _admits(spec: OpSpec, args: Sequence[Any]) -> bool:
    """Whether the register arguments have dtypes the overload's rules accept."""
    given = {o.name: v for o, v in zip(spec.positional, args, strict=False) if o.kind is Kind.REG}
    for o in spec.positional:
        v = given.get(o.name)
        if v is None:
            continue
        if isinstance(o.dtypes, OneOf) and v.dtype not in o.dtypes.dtypes:
            return False
        if isinstance(o.dtypes, SameAs) and o.dtypes.other in given and v.dtype is not given[o.dtypes.other].dtype:
            return False
    return True


def _value(v: object) -> str:
    """An argument as an error message shows it: scalars by value, objects by type (with their element
    type: `LocalTensor[float32]`), an unevaluated tensor expression in the user's words."""
    if isinstance(v, (int, float, str, enum.Enum, TensorExpr)) or v is None or dt.is_dtype(v):
        return repr(v)
    if isinstance(v, type):  # (a class where its instances go: `Reg.MaskReg` for `Reg.MaskReg()`)
        return f"the class {v.__name__}"
    dtype: Any = getattr(v, "dtype", None)
    return f"{type(v).__name__}[{dtype.name}]" if dt.is_dtype(dtype) else type(v).__name__


class Registry:
    """Every OpSpec, by key, and the public entries (`Overloads`) by Ascend name."""

    def __init__(self) -> None:
        self.specs: dict[str, OpSpec] = {}
        self.entries: dict[str, Overloads] = {}

    def register(self, spec: OpSpec) -> OpSpec:
        assert spec.key not in self.specs, f"duplicate op {spec.key}"
        self.specs[spec.key] = spec
        self.entries.setdefault(spec.name, Overloads(spec.name)).add(spec)
        return spec

    def entry(self, name: str) -> Overloads:
        return self.entries[name]

    def by_family(self, family: str) -> list[OpSpec]:
        return [s for s in self.specs.values() if s.family == family]


REGISTRY: Final = Registry()
register = REGISTRY.register

F = TypeVar("F", bound=Callable[..., Any])


#: the source of a face's call (`face`), `key` its key computation (inline for the arities of its overloads)
_FACE = """
def call(*args, **kwargs):
    # the hot path, inlined: a running VF (in order, in a batched loop, or traced), a signature seen before
    ctx = current()
    if ctx is not None:
        hook = ctx.hook
        try:
            n = len(args)
{key}
        except (IndexError, AttributeError):  # many arguments, or one without a `_sig` where no number goes
            key = tuple(map(getattr, args, _SIGS, map(type, args)))
        if kwargs:
            if hook is None:  # (in order: the keywords compared with those of the calls of these positionals)
                run = None
                try:
                    for made, call_made in keyworded.get(key, ()):
                        if kwargs == made:
                            run = call_made
                            break
                except Exception:  # (a value that neither hashes nor compares: the signature's look-up names it)
                    pass
                if run is not None:
                    return run(ctx, args, kwargs)
            key = (key, *kwargs.items())
        try:
            run = (calls if hook is None else batched if hook is BATCHED_CALLS else traced).get(key)
        except TypeError:  # an unhashable keyword value: the entry names it
            run = None
        if run is not None:
            return run(ctx, args, kwargs)
    return entry(args, kwargs)
"""


def face(name: str) -> Callable[[F], F]:
    """Make the typed stub `f` the public face of the Ascend name `name`.

    At run time the face binds any arguments and hands them to the name's overloads (so a
    keyword typo is a `ParameterError` naming the API, never a bare `TypeError`); `f` keeps
    the static signature mypy checks (`inspect.signature` and `typing.get_overloads` see it).
    Its docstring comes from the specs, lane equation first.
    """

    def make(f: F) -> F:
        entry = REGISTRY.entry(name)
        calls, batched, traced = entry._calls, entry._batched, entry._traced
        numbers = {k for spec in entry.specs for k, o in enumerate(spec.positional) if o.kind in (Kind.INT, Kind.SCALAR)}
        keys = tuple(_key_function(n, frozenset(k for k in numbers if k < n)) for n in range(9))
        # the key of a call of an overload's arity computed in the face itself (no call of `keys[n]`)
        arities = sorted({len(spec.positional) for spec in entry.specs if len(spec.positional) < len(keys)})
        branches = [
            f"{'elif' if i else 'if'} n == {n}:\n    key = {_key_display(n, frozenset(k for k in numbers if k < n), 'args')}"
            for i, n in enumerate(arities)
        ]
        key = "\n".join([*branches, "else:\n    key = keys[n](args)"]) if arities else "key = keys[n](args)"
        scope: dict[str, Any] = {
            "current": _VF.get, "keys": keys, "keyworded": calls.keyworded, "calls": calls, "batched": batched,
            "traced": traced, "entry": entry, "BATCHED_CALLS": BATCHED_CALLS, "_SIGS": _SIGS,
        }  # fmt: skip
        # (named as a file of regsim's: a frame of it is regsim's, never the kernel line a trace or a message names)
        source = _FACE.format(key=textwrap.indent(key, " " * 12))
        exec(compile(source, os.path.join(os.path.dirname(__file__), f"<face of {name}>"), "exec"), scope)
        call: Callable[..., Any] = scope["call"]
        functools.update_wrapper(call, f)
        specs = [s for s in entry.specs if not s.unmodelled] or entry.specs
        call.__doc__ = "\n\n".join([s.docstring() for s in specs] + ([inspect.cleandoc(f.__doc__)] if f.__doc__ else []))
        FACES[name] = call
        _ENTRIES[id(call)] = (call, entry)
        return call  # type: ignore[return-value]

    return make


FACES: Final[dict[str, Callable[..., Any]]] = {}
#: id of a face → (the face, its overloads), for the call sites (`Site`)
_ENTRIES: Final[dict[int, tuple[Callable[..., Any], Overloads]]] = {}


# --- call sites: a rewritten VF loop's in-order calls of the faces, each remembering the last one's call ------------
#: what a call site's remembered call looks like, the arguments' checks and the keywords' names given
_SITE = """
def make(_FACE, _RUN, _current, _miss, _type, _frozen, {consts}):
    # (the keywords a hit passes: each the object the site checks it is, so one read-only mapping, made here, not a
    # new dict at each call)
    _KW = _frozen({{{constkw}}})
    def site(_f, {params}):
        # the hot path: the face remembered, every argument of the static type it had, every keyword the same object,
        # no hook: the call the face would find (`Overloads.in_order_call`), without the face's key and look-up
        # (every name here but the keywords' begins with "_": no keyword a site is made for does)
        try:
            _hit = _f is _FACE and {checks}
        except AttributeError:  # (an argument without a `_sig` where one had it: the face names it)
            _hit = False
        if _hit:
            _ctx = _current()
            if _ctx is not None and _ctx.hook is None:
                return _RUN(_ctx, ({args}), _KW)
        return _miss(_f, ({args}), {{{kwargs}}})
    return site
"""
#: argument types whose instances have no `_sig` (and can get none; numpy's element scalars too): a call's key holds
#: their type
_PLAIN: Final = frozenset({int, float, complex, bool, np.bool_})


@functools.cache
def _site_maker(checks: tuple[str, ...], keywords: tuple[str, ...]) -> Callable[..., Callable[..., Any]]:
    """The maker of a call site's remembering function for positional arguments checked by `checks` ("is": the same
    object, an argument that is its own `_sig` such as an enum member or a dtype class; "sig": its `_sig`; "type": its
    type, a number's) and the keywords `keywords`, compiled once per shape."""
    test = {"is": "_{k} is _S{k}", "sig": "_{k}._sig is _S{k}", "type": "_type(_{k}) is _S{k}"}
    positional = [f"_{k}" for k in range(len(checks))]
    source = _SITE.format(
        consts=", ".join([*(f"_S{k}" for k in range(len(checks))), *(f"_K{j}" for j in range(len(keywords)))]),
        params=", ".join([*positional, *keywords]),
        checks=" and ".join(
            [*(test[c].format(k=k) for k, c in enumerate(checks)), *(f"{w} is _K{j}" for j, w in enumerate(keywords))]
        )
        or "True",
        args="".join(f"{a}, " for a in positional),
        kwargs=", ".join(f"{w!r}: {w}" for w in keywords),
        constkw=", ".join(f"{w!r}: _K{j}" for j, w in enumerate(keywords)),
    )
    scope: dict[str, Any] = {}
    # (a file of regsim's, as the faces: a frame of it is never the kernel line a trace, a message or a store names)
    exec(compile(source, os.path.join(os.path.dirname(__file__), "<call site>"), "exec"), scope)
    made: Callable[..., Callable[..., Any]] = scope["make"]
    return made


class Site:
    """One call of a face in a rewritten VF loop's in-order body (`vf/loops.py`): `Reg.Add(d, a, b, m)` runs as
    `site(Reg.Add, d, a, b, m)`, `site` the content of `cell`. The site remembers the in-order call the face found for
    its last call (a monomorphic inline cache): a call of the same face with arguments of the same static types (the
    same `_sig`s: the face's key), the same keyword objects and no hook set runs that call at once; any other call goes
    through the face (the general path, its errors and hooks) and is remembered in turn, at most `LIMIT` times (then
    the site keeps the call it remembered last). The calls remembered are the face's own, so bits and errors are its."""

    __slots__ = ("__weakref__", "cell", "learned")

    LIMIT: ClassVar[int] = 64

    def __init__(self) -> None:
        self.cell = types.CellType(self.call)
        self.learned = 0

    def call(self, face: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """The general path (what the cell holds until a call is remembered)."""
        return self.miss(face, args, kwargs)

    def miss(self, face: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        out = face(*args, **kwargs)
        ctx = _VF.get()
        if ctx is not None and ctx.hook is None and self.learned < self.LIMIT:
            self._learn(face, args, kwargs)
        return out

    def _learn(self, face: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Remember the call the face finds for these arguments, if it is a face and finds one."""
        known = _ENTRIES.get(id(face))
        if known is None or known[0] is not face:
            return
        entry = known[1]
        run = entry.in_order_call(args, kwargs)
        if run is None:
            return
        checks: list[str] = []
        sigs: list[Any] = []
        for a in args:
            sig = getattr(a, "_sig", _ENTRIES)  # (`_ENTRIES`: none)
            if sig is _ENTRIES:
                if type(a) not in _PLAIN and type(a) not in _element_scalars():
                    return  # (an object whose instances may get a `_sig`: not remembered)
                checks.append("type")
                sigs.append(type(a))
            else:
                checks.append("is" if sig is a else "sig")
                sigs.append(sig)
        make = _site_maker(tuple(checks), tuple(kwargs))
        self.cell.cell_contents = make(face, run, _VF.get, self.miss, type, types.MappingProxyType, *sigs, *kwargs.values())
        self.learned += 1
        entry._calls.sites.add(self)

    def forget(self) -> None:
        """Back to the general path (the face's calls were made anew)."""
        self.cell.cell_contents = self.call
