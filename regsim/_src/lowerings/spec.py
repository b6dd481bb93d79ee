"""The spec of the memory-level layer: what one `rs.AscendC` API is, and the one binder of its calls.

An `Api` is one row of the spec table (`regsim._src.lowerings.table`): its name and deprecated aliases, its
interfaces (the C++ overloads: first-n `count`; mask/repeat with a bit-mode mask `uint64_t mask[2]` or a
continuous mask `uint64_t mask`; the flexible-scalar and compare-mask register forms; ...), each with the dtypes
Ascend 950 accepts for it (a named set of `regsim._src.lowerings.dtype_sets`), the Reg callees of its lowering, the
skeleton that runs them, the oracle of `regsim.testing.lowering_reference` that checks it and its documentation
page. An `Interface` lists its parameters (`Param`), each of a `Kind`: as the Reg layer's operands do
(`regsim._src.engine.spec.Kind`), a kind is the Python type a C++ parameter takes (a LocalTensor, an int, a list of
ints, a struct, a scalar, an enum member, ...), so that `bind` can tell the overloads of one name apart by the kinds
of the arguments, as C++ overload resolution does; a call that fits none is a `ParameterError` naming the parameter
that does not fit and what it accepts, or the forms the API has.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import host_only, in_memory_call, keep_unchanged
from regsim._src.lowerings.dtype_sets import NAMES, DTypeSet
from regsim._src.model import dtypes as dt
from regsim._src.model.config import _VF
from regsim._src.model.enums import expected_member
from regsim._src.model.memory import LocalTensor, TensorExpr, UbPtr
from regsim.errors import ParameterError, message


class Kind(enum.Enum):
    """What a memory-level parameter is; each kind is a set of Python types the binder matches on."""

    TENSOR = "a LocalTensor"
    INT = "an int"
    MASK = "an int (continuous mode)"  #: a continuous mask, a count in counter mode, or MASK_PLACEHOLDER
    BITS = "a mask[2] sequence (bit mode)"  #: `const uint64_t mask[]`: a list, tuple or numpy array
    SCALAR = "a scalar (a Python or numpy number)"
    BOOL = "a bool"
    STRUCT = "a struct"  #: an instance of the parameter's `struct`
    ENUM = "an enum member"  #: a member of the parameter's `enum`
    REF = "an rs.Ref (C++ takes a reference and sets it)"
    DTYPE = "a regsim dtype class such as rs.float32"
    POINTER = "an rs.UbPtr (a __ubuf__ pointer) or a LocalTensor"  #: a C API's `__ubuf__ T*`


_INTS: Final = (int, np.integer)
_TYPES: Final[dict[Kind, tuple[type, ...]]] = {
    Kind.TENSOR: (LocalTensor,),
    Kind.INT: _INTS,
    Kind.MASK: _INTS,
    Kind.BITS: (list, tuple, np.ndarray),
    Kind.SCALAR: (int, float, complex, np.generic),
    Kind.BOOL: (bool, np.bool_),
    Kind.REF: (Ref,),
    Kind.POINTER: (UbPtr, LocalTensor),
}

REQUIRED: Final = object()  #: a parameter without a default


@attrs.frozen
class Paired:
    """A tensor whose dtype follows another's by element width: `pairs[width of other]` (GatherMask's pattern tensor,
    the shift-amount tensor of ShiftLeft / ShiftRight)."""

    other: str
    pairs: Mapping[int, type[dt.DType]]


@attrs.frozen
class Pairs:
    """The (first, second) dtype pairs of two tensors a page lists as a table (Cast's (src, dst) pairs)."""

    params: tuple[str, str]
    table: frozenset[tuple[type[dt.DType], type[dt.DType]]]


#: a tensor parameter's dtype rule: "T" (the interface's T: one dtype for every "T" tensor), its own named set, a
#: `Paired` width rule, or None (checked by the API at run time, e.g. by a `Pairs` table)
DTypeRule = str | DTypeSet | Paired | None


@attrs.frozen
class Param:
    """One C++ parameter: a function argument (positional, by position or by name) or a template parameter
    (`keyword=True`: keyword-only in Python)."""

    name: str  #: the C++ name in snake_case
    kind: Kind
    dtypes: DTypeRule = None  #: TENSOR: its dtype rule
    struct: type | None = None  #: STRUCT: the struct class
    enum: type[enum.Enum] | None = None  #: ENUM: the enum class
    default: object = REQUIRED
    keyword: bool = False
    #: what an error says the parameter accepts (else its kind's words)
    accepted: str = ""
    #: values outside these are refused with `accepted` (a first-n interface's `is_set_mask`: True only)
    only: tuple[Any, ...] = ()
    #: None may stand for the default (a `config` keyword)
    nullable: bool = False

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def fits(self, value: object) -> bool:
        if value is None and self.nullable:
            return True
        if self.kind is Kind.STRUCT:
            return isinstance(value, self.struct)  # type: ignore[arg-type]
        if self.kind is Kind.ENUM:
            return isinstance(value, self.enum)  # type: ignore[arg-type]
        if self.kind is Kind.DTYPE:
            return True  # (the API checks it: a non-dtype is a DTypeError, as `check_dtype` says)
        if self.kind in (Kind.INT, Kind.MASK) and isinstance(value, (bool, np.bool_)):
            return False
        if self.kind is Kind.SCALAR and isinstance(value, LocalTensor):
            return False
        return isinstance(value, _TYPES[self.kind])

    def describe(self, value: object = None) -> str:
        """What the parameter accepts (for an enum, the member a string or number given names)."""
        if self.accepted:
            return self.accepted
        if self.kind is Kind.STRUCT and self.struct is not None:
            return f"a {self.struct.__name__}"
        if self.kind is Kind.ENUM and self.enum is not None:
            return expected_member(self.enum, value, "rs.AscendC")
        return self.kind.value


# --- the parameters the interfaces share ---------------------------------------------------------------------------------
def tensor(name: str, dtypes: DTypeRule = "T") -> Param:
    return Param(name, Kind.TENSOR, dtypes)


def integer(name: str, accepted: str = "", default: object = REQUIRED) -> Param:
    return Param(name, Kind.INT, accepted=accepted, default=default)


def struct(name: str, cls: type, default: object = REQUIRED) -> Param:
    return Param(name, Kind.STRUCT, struct=cls, default=default)


def enum_param(name: str, cls: type[enum.Enum], *, keyword: bool = False, default: object = REQUIRED) -> Param:
    return Param(name, Kind.ENUM, enum=cls, keyword=keyword, default=default)


def flag(name: str, default: bool = False, *, keyword: bool = True) -> Param:
    return Param(name, Kind.BOOL, keyword=keyword, default=default)


def reserved(param: Param, accepted: str) -> Param:
    """`param` accepting its default only (a parameter the interface has no use for, or a reserved one)."""
    return attrs.evolve(param, only=(param.default,), accepted=accepted)


COUNT: Final = integer("count")
SCALAR: Final = Param("scalar_value", Kind.SCALAR)
MASK_BITS: Final = Param("mask", Kind.BITS)
MASK_CONTINUOUS: Final = Param("mask", Kind.MASK)
REPEAT_TIME: Final = integer("repeat_time", "a uint8_t in [0, 255]")
IS_SET_MASK: Final = flag("is_set_mask", True)
#: the first-n interfaces have no isSetMask: only its default is accepted
NO_SET_MASK: Final = reserved(IS_SET_MASK, "True (the first-n interface has no isSetMask)")


#: the variants of a form (`Interface.variant`), where an API has several overloads of one form
FLEXIBLE: Final = "flexible scalar"  #: the 950 "灵活标量位置" overloads: both sources LocalTensors, one's element 0 the scalar
SCALAR_FIRST: Final = "scalar first"  #: the same overloads with an immediate scalar first
CMP_MASK: Final = "compare-mask register"  #: the forms that write or read the compare-mask register, without dst / selMask
FROM_TENSOR: Final = "from src[0]"  #: Duplicate of a LocalTensor's element 0
AMOUNTS: Final = "shift-amount tensor"  #: ShiftLeft / ShiftRight with a LocalTensor of shift amounts
HALF_TO_FLOAT: Final = "half sources, float dst"  #: MulAddDst's and Axpy's widening row
PATTERN_TENSOR: Final = "pattern tensor"  #: GatherMask with a LocalTensor of pattern bits
CAST_DEQ: Final = "CastDeq"  #: SetDeqScale's overloads for CastDeq (not modelled)
TMP_BUFFER: Final = "sharedTmpBuffer"  #: a high-level API's overload given its temporary space (unused on Ascend 950)


class Form(enum.Enum):
    """The shape of an interface's mask: the page's "tensor前n个数据计算" (first-n), "tensor高维切分计算" with a bit-mode
    or a continuous mask, or none (the APIs whose repeats are not masked, and the host APIs)."""

    COUNT = "first-n"
    BITS = "bit mask"
    CONTINUOUS = "continuous mask"
    NONE = "-"


@attrs.frozen
class Interface:
    """One C++ overload of a memory-level API."""

    form: Form
    params: tuple[Param, ...]  #: the function arguments, in C++ order
    dtypes: DTypeSet  #: T's dtypes on Ascend 950 (the "T" tensors'); empty where the API has no T
    keywords: tuple[Param, ...] = ()  #: the template parameters
    variant: str = ""  #: which overload of its form ("flexible scalar", "scalar first", "compare-mask register", ...)
    pairs: Pairs | None = None  #: a dtype-pair table of two tensors (checked by the API)
    #: among interfaces whose parameters all fit a call, one whose `prefer(values)` holds is taken (the flexible-scalar
    #: Select is mode 1's; the other tensor-tensor forms are modes 0 and 2)
    prefer: Callable[[Mapping[str, Any]], bool] | None = None

    @property
    def all_params(self) -> tuple[Param, ...]:
        return (*self.params, *self.keywords)

    def param(self, name: str) -> Param:
        return next(p for p in self.all_params if p.name == name)

    @property
    def required(self) -> int:
        """The positional arguments a call must give."""
        return sum(p.required for p in self.params)

    def form_text(self) -> str:
        """`(dst, src0, src1, count)`: the positional parameters, the optional ones in brackets."""
        req = [p.name for p in self.params if p.required]
        opt = [p.name for p in self.params if not p.required]
        return f"({', '.join(req)}{''.join(f'[, {n}]' for n in opt)})"

    def dtype_name(self) -> str:
        return NAMES.get(self.dtypes, dt.names(self.dtypes)) if self.dtypes else "-"

    def admitted(self, values: Mapping[str, Any]) -> int:
        """How many of the tensors given, in parameter order, have dtypes this interface accepts (a tie-breaker between
        interfaces the kinds of a call fit alike: MulAddDst's same-type rows and its half-sources / float-dst row)."""
        t = None
        for n, p in enumerate(q for q in self.params if isinstance(values.get(q.name), LocalTensor)):
            dtype = values[p.name].dtype
            if p.dtypes == "T":
                if (t is not None and dtype is not t) or (self.dtypes and dtype not in self.dtypes):
                    return n
                t = dtype
            elif isinstance(p.dtypes, frozenset) and dtype not in p.dtypes:
                return n
        if self.pairs is not None:
            a, b = (values.get(n) for n in self.pairs.params)
            if isinstance(a, LocalTensor) and isinstance(b, LocalTensor) and (a.dtype, b.dtype) not in self.pairs.table:
                return 0
        return len(self.params)


@attrs.frozen
class Call:
    """A bound call: the name it was made by (a deprecated alias's errors name it), the interface it resolved to, and
    every parameter's value by name (defaults filled in)."""

    api: str
    iface: Interface
    args: Mapping[str, Any]

    def __getitem__(self, name: str) -> Any:
        return self.args[name]

    @property
    def form(self) -> Form:
        return self.iface.form


@attrs.frozen
class Alias:
    """A deprecated name of an API, with its own argument orders (interfaces whose parameters have the API's names)
    and the template arguments the name fixes (`WholeReduceMax` is ReduceRepeat with `reduce_type=MAX`)."""

    name: str
    interfaces: tuple[Interface, ...]
    fixed: Mapping[str, Any] = attrs.field(factory=dict)


@attrs.frozen(eq=False)
class Api:
    """One `rs.AscendC` memory-level API: one row of the spec table."""

    name: str
    #: the chapter: "arith", "logic", "compare_select", "cast", "reduce", "fill", "gather_scatter", "mask"; "math": the
    #: high-level math APIs (高阶API/数学计算) the operator kernels call
    family: str
    interfaces: tuple[Interface, ...]
    run: Callable[[Call], Any]  #: the API's lowering (checks, then its VF)
    callees: tuple[str, ...]  #: the Reg ops its lowering calls (every interface's example call makes them)
    skeleton: str  #: the lowering skeleton(s) it runs (a `regsim._src.lowerings` VF, or "-": a host API of core state)
    oracle: tuple[str, ...]  #: the functions of `regsim.testing.lowering_reference` its tests check it with
    doc: str  #: its Ascend C page
    summary: str  #: one line: what it computes
    aliases: tuple[Alias, ...] = ()
    #: `regsim lower` calls of it, one per interface (the default: generated from the interface)
    examples: tuple[str, ...] = ()
    #: a `regsim lower` call of it on fresh tensors: (dtype, keyword arguments) -> the call's (api, args, kwargs)
    explore: Callable[[type[dt.DType], dict[str, Any]], tuple[Any, ...]] | None = None
    #: the algorithm configs' dtypes, where they narrow an interface's (Div, Sqrt): config.algo -> {form: dtypes}
    by_algo: Mapping[Any, Mapping[Form, DTypeSet]] = attrs.field(factory=dict)

    def __repr__(self) -> str:
        return f"Api({self.name})"

    @property
    def lowered(self) -> bool:
        """Whether the API runs a lowering (a VF of Reg ops); the host APIs of core state do not."""
        return self.skeleton != "-"

    def forms(self) -> str:
        """The positional forms, each once: `(dst, src0, src1, count) or (dst, src0, src1, mask, ...)`."""
        return " or ".join(dict.fromkeys(i.form_text() for i in self.interfaces))


def shown(v: object) -> str:
    """An argument as an error message shows it: numbers, strings and enum members by value, tensors with their element
    type (`LocalTensor[float32]`), other objects by type."""
    if isinstance(v, (int, float, str, enum.Enum, TensorExpr)) or v is None:
        return repr(v)
    dtype: Any = getattr(v, "dtype", None)
    return f"{type(v).__name__}[{dtype.name}]" if dt.is_dtype(dtype) else type(v).__name__


# --- the binder ---------------------------------------------------------------------------------------------------------------
def bind(api: str, interfaces: Sequence[Interface], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Call:
    """Resolve a call to one interface by the kinds of its arguments and bind every parameter by name.

    An interface fits when the call gives each of its required positional parameters (by position or by name), no
    more positional arguments than it has, only keywords that are its parameters, and values of each parameter's
    kind. Several fitting: the one that admits the most of the tensors' dtypes (`admitted`), then one whose `prefer`
    holds, else the first.
    None fitting: an unknown keyword is named (with the closest one); else the parameter that does not fit, in the
    interfaces that get furthest (their accepted kinds joined: `mask = 1.5; accepted: an int (continuous mode) or a
    mask[2] sequence (bit mode)`); else the first parameter missing; else the forms the API has."""
    return resolve(api, interfaces, args, kwargs)[0]


def resolve(api: str, interfaces: Sequence[Interface], args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> tuple[Call, bool]:
    """`bind`, and whether the interface it chose follows from the call's static signature (`signature`) alone: so
    unless a `prefer` told fitting interfaces apart by value."""
    fitting: list[tuple[Interface, dict[str, Any]]] = []
    failures: list[_Failure] = []
    for iface in interfaces:
        if len(args) > len(iface.params):
            continue
        values = dict(zip((p.name for p in iface.params), args, strict=False))
        twice = next((k for k in kwargs if k in values), None)
        if twice is not None:
            failures.append(_Failure(len(args) + 0.5, 0, iface, iface.param(twice), kwargs[twice], twice=True))
            continue
        names = {p.name for p in iface.all_params}
        values.update((k, v) for k, v in kwargs.items() if k in names)
        failure = _check(iface, values, args, kwargs, names)
        if failure is not None:
            failures.append(failure)
            continue
        for p in iface.all_params:
            values.setdefault(p.name, p.default)
        fitting.append((iface, values))
    if fitting:
        best = max(i.admitted(v) for i, v in fitting)
        admitted = [(i, v) for i, v in fitting if i.admitted(v) == best]
        iface, values = next(((i, v) for i, v in admitted if i.prefer is None or i.prefer(v)), admitted[0])
        return _checked(api, iface, values), all(i.prefer is None for i, _ in admitted)
    raise _misfit(api, interfaces, args, kwargs, failures)


def signature(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Any:
    """What the interface a call binds to depends on: each argument's type (a parameter's kind is a set of types, see
    `Param.fits`) and a tensor's dtype (`Interface.admitted`), by position and by keyword."""
    return tuple(map(_static, args)), tuple((k, _static(v)) for k, v in kwargs.items())


def _static(v: object) -> object:
    return (LocalTensor, v.dtype) if isinstance(v, LocalTensor) else type(v)


def bind_to(api: str, iface: Interface, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Call:
    """A call bound to `iface`, which `resolve` chose for the call's signature: each parameter by name, the defaults
    filled in, then the values the interface accepts only checked (as `bind` does)."""
    values = dict(zip((p.name for p in iface.params), args, strict=False))
    values.update(kwargs)
    for p in iface.all_params:
        values.setdefault(p.name, p.default)
    return _checked(api, iface, values)


def _checked(api: str, iface: Interface, values: dict[str, Any]) -> Call:
    for p in iface.all_params:
        if p.only and values[p.name] not in p.only:
            raise ParameterError(message(api, p.name, shown(values[p.name]), p.describe()))
    return Call(api, iface, values)


@attrs.frozen
class _Failure:
    """Why an interface does not fit a call: how far the call got (positional misfits first, then a positional
    argument missing, then keywords), the parameter, the value given (`MISSING`; a keyword the interface lacks:
    `foreign`)."""

    progress: float
    misfits: int  #: how many of the positional arguments given do not fit their parameter
    iface: Interface
    param: Param | None
    value: object
    foreign: str = ""
    twice: bool = False  #: given by position and by keyword


MISSING: Final = object()


def _check(
    iface: Interface, values: dict[str, Any], args: tuple[Any, ...], kwargs: Mapping[str, Any], names: set[str]
) -> _Failure | None:
    """The first reason `iface` does not fit the call, or None."""
    bad = [(k, p) for k, p in enumerate(iface.params[: len(args)]) if not p.fits(values[p.name])]
    if bad:
        k, p = bad[0]
        return _Failure(k, len(bad), iface, p, values[p.name])
    absent = next((p for p in iface.params if p.required and p.name not in values), None)
    if absent is not None:
        return _Failure(len(args), 0, iface, absent, MISSING)
    foreign = next((k for k in kwargs if k not in names), None)
    if foreign is not None:
        return _Failure(len(args) + 0.5, 0, iface, None, kwargs[foreign], foreign)
    for j, p in enumerate(iface.all_params):
        if p.name in kwargs and not p.fits(kwargs[p.name]):
            return _Failure(len(args) + 1 + j, 0, iface, p, kwargs[p.name])
    absent = next((p for p in iface.keywords if p.required and p.name not in values), None)
    if absent is not None:
        return _Failure(len(args) + 0.5, 0, iface, absent, MISSING)
    return None


def _misfit(
    api: str, interfaces: Sequence[Interface], args: tuple[Any, ...], kwargs: Mapping[str, Any], failures: list[_Failure]
) -> ParameterError:
    """The error of a call no interface fits (`bind`): an unknown keyword; else the failure of the interfaces the call
    gets furthest in (their accepted kinds joined where one parameter does not fit them all); else the forms."""
    known = {p.name for i in interfaces for p in i.all_params}
    unknown = next((k for k in kwargs if k not in known), None)
    if unknown is not None:
        keywords = list(dict.fromkeys(p.name for i in interfaces for p in i.keywords))
        close = difflib.get_close_matches(unknown, sorted(known), n=1)
        accepted = f"the keywords {', '.join(keywords)}" if keywords else f"no keywords ({api} has no template parameters)"
        hint = f" (did you mean {close[0]}=?)" if close else ""
        return ParameterError(message(api, unknown, f"{shown(kwargs[unknown])} (an unknown keyword)", accepted + hint))
    forms = " or ".join(dict.fromkeys(i.form_text() for i in interfaces))
    given = ", ".join(shown(a) for a in args)
    fitting_arity = [f for f in failures if f.iface.required <= len(args)]
    if not fitting_arity:  # no form takes this many positional arguments
        if len(args) >= min(i.required for i in interfaces):
            return ParameterError(message(api, "arguments", f"{len(args)} positional ({given})", forms))
        names = list(dict.fromkeys(i.params[len(args)].name for i in interfaces if len(i.params) > len(args)))
        if len(names) == 1:
            return ParameterError(message(api, names[0], "missing", forms))
        return ParameterError(message(api, "arguments", f"{len(args)} positional ({' or '.join(names)} missing)", forms))

    # the closest forms: those with the fewest arguments that do not fit, then those the call gets furthest in
    def rank(f: _Failure) -> tuple[int, float]:
        return -f.misfits, f.progress

    far = max(rank(f) for f in fitting_arity)
    worst = [f for f in fitting_arity if rank(f) == far]
    first = worst[0]
    if first.twice and first.param is not None:
        return ParameterError(message(api, first.param.name, "given twice (by position and keyword)", "one value"))
    if first.foreign:
        shapes = " or ".join(dict.fromkeys(f.iface.form_text() for f in worst))
        return ParameterError(message(api, first.foreign, shown(first.value), f"no {first.foreign}= in the form {shapes}"))
    assert first.param is not None
    if first.value is MISSING:
        return ParameterError(message(api, first.param.name, "missing", f"keyword {first.param.name}=: {first.param.describe()}"))
    if len({f.param.name for f in worst if f.param is not None}) > 1:
        return ParameterError(message(api, "arguments", f"{len(args)} positional ({given})", forms))
    accepted = " or ".join(dict.fromkeys(f.param.describe(f.value) for f in worst if f.param is not None))
    return ParameterError(message(api, first.param.name, shown(first.value), accepted))


@attrs.frozen(eq=False)
class Entry:
    """The binder of one public name: an API's, or a deprecated alias's (its interfaces, the API's run)."""

    name: str
    api: Api
    interfaces: tuple[Interface, ...]
    fixed: Mapping[str, Any] = attrs.field(factory=dict)
    #: the interface each static signature of a call binds to (`signature`), where it depends on nothing else
    chosen: dict[Any, Interface] = attrs.field(factory=dict, init=False, repr=False)

    def __repr__(self) -> str:
        return f"AscendC.{self.name}"

    def bind(self, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Call:
        key = signature(args, kwargs)
        iface = self.chosen.get(key)
        if iface is not None:
            call = bind_to(self.name, iface, args, kwargs)
        else:
            call, static = resolve(self.name, self.interfaces, args, kwargs)
            if static:
                self.chosen[key] = call.iface
        return attrs.evolve(call, args={**call.args, **self.fixed}) if self.fixed else call

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """A call of the public name: on the host (outside any VF), bound to one of its interfaces, run by the API
        with everything it changed put back should it raise (`keep_unchanged`)."""
        if _VF.get() is not None:  # (`host_only`'s test inline: every memory-level call asks)
            host_only(self.name)
        run = self.api.run
        quick = getattr(run, "quick", None)  # (a kernel's call made before with the same static values: its plan)
        if quick is not None and not kwargs and not self.fixed and not in_memory_call() and quick(self.name, args):
            return None
        call = self.bind(args, kwargs)
        direct = getattr(run, "direct", None)
        if direct is None or in_memory_call():
            return keep_unchanged(list(call.args.values()), run, call)
        # (an API's common case, which changes nothing a journal keeps before its last act, its store, runs without
        # one; else the API's lowering, journalled)
        return None if direct(call) else keep_unchanged(list(call.args.values()), run.lowered, call)  # type: ignore[attr-defined]


def entries(api: Api) -> list[Entry]:
    """The public names of an API: its own, then its deprecated aliases'."""
    return [Entry(api.name, api, api.interfaces), *(Entry(a.name, api, a.interfaces, a.fixed) for a in api.aliases)]
