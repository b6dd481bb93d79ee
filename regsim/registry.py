"""The op registry, read-only: every Reg op regsim models, as plain frozen values for tools.

    import regsim as rs

    for op in rs.registry.ops():            # every Reg op name, in registration order
        for ov in op.overloads:             # its C++ overloads
            print(ov.signature, ov.dtypes, ov.merge_modes, [c.name for c in ov.c_api])
    rs.registry.op("Cast").decisions        # the docs/decisions/ entries that settle it

An `Op` is one Ascend name (`rs.Reg.<name>`, `op.face`) with its `Overload`s, legacy aliases and
decisions; an `Overload` is one C++ overload: its operands in C++ order (`Operand`: name, kind,
role, dtype rule, and for a template parameter its default and accepted values), the element types
of its `T`, its merge modes, its C API spellings (`CFunction`), its documentation page and how it
runs in a batched loop. A dtype rule is `OneOf(dtypes)`, `SameAs(other)` (one C++ type with operand
`other`) or `Paired(other, pairs)` (a per-type table). Nothing here can change the registry:
every value is frozen and every collection a tuple or frozenset. `markdown()` is docs/ops.md.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from enum import Enum
from typing import Any, Final, Literal, cast

import attrs

from regsim._src.engine import spec as _spec
from regsim._src.model import dtypes as _dt
from regsim._src.model.dtypes import DType
from regsim._src.model.enums import MaskMergeMode
from regsim._src.ops import REGISTRY as _REGISTRY
from regsim._src.ops import namespace as _Reg
from regsim._src.ops.decisions import DECISIONS as _DECISIONS
from regsim.errors import ParameterError, message

#: what an operand is (`Operand.kind`), each a Python type a call passes
OperandKind = Literal[
    "reg", "mask", "pred", "ptr", "int", "scalar", "addr", "uload", "ustore", "ref", "dtype", "enum", "trait", "struct"
]
#: what the op does with an operand (`Operand.role`)
Role = Literal["in", "out", "in-out", "returned"]
#: how an overload runs over a batched loop's iterations (`Overload.batching`)
Batching = Literal["elementwise", "cross_lane", "memory", "stateful", "sequential"]

#: each operand kind and the Python value it takes
OPERAND_KINDS: Final[tuple[tuple[OperandKind, str], ...]] = tuple(
    (cast(OperandKind, k.name.lower()), k.value) for k in _spec.Kind
)
#: every element type regsim models (the rules' universe: each is some operand's), in `rs`'s order
DTYPES: Final[tuple[type[DType], ...]] = _dt.EVERY_DTYPE
#: where the decision entries live, relative to the repository root
DECISIONS_DIR: Final = "docs/decisions"


@attrs.frozen
class OneOf:
    """The operand's element type is one of `dtypes` (on Ascend 950)."""

    dtypes: frozenset[type[DType]]


@attrs.frozen
class SameAs:
    """The operand has the element type (and register trait) of operand `other`: one C++ type."""

    other: str


@attrs.frozen
class Paired:
    """The operand's element type is the second of the pair whose first is operand `other`'s (the
    shift amounts' `(uint8_t, int8_t)`, `(uint16_t, int16_t)` ...), with the same register trait."""

    other: str
    pairs: tuple[tuple[type[DType], type[DType]], ...]

    def get(self, dtype: object) -> type[DType] | None:
        """The element type paired with `dtype` (None: `dtype` has no pair)."""
        return next((b for a, b in self.pairs if a is dtype), None)


DTypeRule = OneOf | SameAs | Paired


@attrs.frozen
class Operand:
    """One C++ parameter of an overload: a function argument, or a template parameter (`template`),
    which Python takes as a keyword."""

    name: str  #: the C++ name in snake_case; also the Python keyword
    kind: OperandKind
    role: Role
    template: bool
    required: bool
    default: object  #: the C++ default of a template parameter (None where `required`)
    dtypes: DTypeRule | None  #: registers, pointers and type parameters
    #: an enum parameter: its class and the members the overload accepts (in the enum's order)
    enum: type[Enum] | None
    accepted: tuple[Enum, ...]
    bounds: tuple[int, int] | None  #: an int parameter's inclusive range
    ctype: str  #: the C type of an int or fixed-type scalar parameter (`uint16_t` ...)
    struct: type | None  #: a struct parameter's class (`Reg.CastTrait` ...)


@attrs.frozen
class CFunction:
    """One C API spelling of an overload (`rs.capi.<name>`): its parameters in C order (operand names),
    the operands the name fixes, and the element types the C API documents when fewer than the op's
    (empty: all of them)."""

    name: str
    params: tuple[str, ...]
    fixed: tuple[tuple[str, object], ...]
    dtypes: frozenset[type[DType]]


@attrs.frozen
class Decision:
    """One entry of docs/decisions/: `<chapter>.md#<anchor>`."""

    chapter: str
    anchor: str

    @property
    def path(self) -> str:
        """The entry's link from the repository root: `docs/decisions/<chapter>.md#<anchor>`."""
        return f"{DECISIONS_DIR}/{self.chapter}.md#{self.anchor}"


@attrs.frozen
class Overload:
    """One C++ overload of a Reg op."""

    key: str  #: `name` or `name/variant`
    name: str
    variant: str  #: which overload ("" for the plain one, "carry", "post", ...)
    family: str  #: the op family (`arith`, `datamove`, ...)
    signature: str  #: the C++ call shape, template parameters after `*`
    equation: str  #: the lane equation
    doc: str  #: the Ascend C documentation page (relative to the docs root)
    operands: tuple[Operand, ...]
    dtypes: frozenset[type[DType]]  #: the element types of its `T` on Ascend 950
    merge_modes: frozenset[MaskMergeMode]  #: the `mode=` values it accepts (empty: no `mode`)
    c_api: tuple[CFunction, ...]
    aliases: tuple[str, ...]  #: legacy names the 950 headers still compile
    batching: Batching
    sequential_reason: str  #: with batching "sequential": why a batched loop runs in order
    unmodelled: str  #: documented but not modelled yet: why a call raises UnsupportedError ("" if modelled)

    @property
    def positional(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if not o.template)

    @property
    def templates(self) -> tuple[Operand, ...]:
        return tuple(o for o in self.operands if o.template)


@attrs.frozen
class Op:
    """One Ascend name of `rs.Reg` and its overloads."""

    name: str
    overloads: tuple[Overload, ...]
    aliases: tuple[str, ...]  #: every overload's legacy names, each once
    decisions: tuple[Decision, ...]  #: the docs/decisions/ entries that settle it

    @property
    def face(self) -> Callable[..., Any]:
        """The public function, `rs.Reg.<name>`."""
        f: Callable[..., Any] = getattr(_Reg, self.name)
        return f


def _rule(rule: _spec.DTypeRule | None) -> DTypeRule | None:
    if isinstance(rule, _spec.OneOf):
        return OneOf(frozenset(rule.dtypes))
    if isinstance(rule, _spec.SameAs):
        return SameAs(rule.other)
    if isinstance(rule, _spec.Paired):
        return Paired(rule.other, tuple(sorted(rule.pairs.items(), key=lambda p: _dt.EVERY_DTYPE.index(p[0]))))
    return None


def _operand(o: _spec.Operand) -> Operand:
    accepted = tuple(m for m in o.enum if not o.accepted or m in o.accepted) if o.enum is not None else ()
    return Operand(
        name=o.name,
        kind=cast(OperandKind, o.kind.name.lower()),
        role=o.role.value,
        template=o.keyword,
        required=o.required,
        default=None if o.required else o.default,
        dtypes=_rule(o.dtypes),
        enum=o.enum,
        accepted=accepted,
        bounds=o.bounds,
        ctype=o.ctype,
        struct=o.struct,
    )


def _overload(s: _spec.OpSpec) -> Overload:
    return Overload(
        key=s.key,
        name=s.name,
        variant=s.variant,
        family=s.family,
        signature=s.signature(),
        equation=s.equation,
        doc=s.doc,
        operands=tuple(map(_operand, s.operands)),
        dtypes=frozenset(s.dtypes),
        merge_modes=frozenset(s.modes),
        c_api=tuple(CFunction(c.name, c.params, c.fixed, frozenset(c.dtypes)) for c in s.c_names),
        aliases=s.aliases,
        batching=cast(Batching, s.batching.name.lower()),
        sequential_reason=s.sequential_reason,
        unmodelled=s.unmodelled,
    )


def _decision(ref: str) -> Decision:
    page, _, anchor = ref.partition("#")
    return Decision(page.removesuffix(".md"), anchor)


@functools.cache
def ops() -> tuple[Op, ...]:
    """Every Reg op, in registration order (the families of `regsim._src.ops`)."""
    found = []
    for name, entry in _REGISTRY.entries.items():
        overloads = tuple(map(_overload, entry.specs))
        aliases = tuple(dict.fromkeys(a for ov in overloads for a in ov.aliases))
        found.append(Op(name, overloads, aliases, tuple(map(_decision, _DECISIONS.get(name, ())))))
    return tuple(found)


@functools.cache
def _by_name() -> dict[str, tuple[Op, ...]]:
    """Each name and legacy alias, and the ops it names (a C++ name such as `DataCopy` names several)."""
    named: dict[str, tuple[Op, ...]] = {}
    for o in ops():
        for alias in o.aliases:
            named[alias] = (*named.get(alias, ()), o)
    named.update((o.name, (o,)) for o in ops())
    return named


def op(name: str) -> Op:
    """The op of an Ascend name, or of a legacy alias that names one op (`op("AddCarryOut")` is `Add`)."""
    found = _by_name().get(name, ()) if isinstance(name, str) else ()
    if len(found) != 1:
        accepted = (
            f"one of the ops it is a legacy alias of: {', '.join(o.name for o in found)}"
            if found
            else "the name or a legacy alias of a Reg op, e.g. 'Add'"
        )
        raise ParameterError(message("registry.op", "name", repr(name), accepted))
    return found[0]


def overloads() -> tuple[Overload, ...]:
    """Every overload of every op."""
    return tuple(ov for o in ops() for ov in o.overloads)


def _c_list(ov: Overload) -> str:
    """The C names of an overload for the table: each once, a long list (Cast's conversions) shortened."""
    names = list(dict.fromkeys(c.name for c in ov.c_api))
    if len(names) > 12:
        return f"{', '.join(names[:4])} … ({len(names)} names; `rs.capi.REGISTER_API`)"
    return ", ".join(names) or "-"


def markdown() -> str:
    """The registry as the Markdown of docs/ops.md (a test keeps that file current)."""
    rows = [
        "# Reg operations modelled by regsim",
        "",
        "Generated from the op registry (`rs.registry`); `tests/project/test_docs.py` keeps it current",
        "(regenerate: `python -c 'import regsim; print(regsim.registry.markdown(), end=\"\")' > docs/ops.md`).",
        "",
        "| op | overload | lane equation | dtypes on Ascend 950 | MaskMergeMode | C API | legacy names |",
        "|---|---|---|---|---|---|---|",
    ]
    for ov in overloads():
        if ov.unmodelled:
            continue
        modes = ", ".join(m.name for m in sorted(ov.merge_modes, key=lambda m: m.value)) or "n/a"
        dtypes = "all" if ov.dtypes == frozenset(_dt.ALL_DTYPES) else _dt.names(ov.dtypes) or "n/a"
        equation = ov.equation.replace("|", "\\|")
        rows.append(
            f"| `{ov.name}` | {ov.variant or '-'} | `{equation}` | {dtypes} | {modes} | "
            f"{_c_list(ov)} | {', '.join(ov.aliases) or '-'} |"
        )
    rows += [
        "",
        "## Decisions by op",
        "",
        "The entries of [docs/decisions/](decisions/) that settle each op ([the index](semantics-decisions.md)).",
        "",
        "| op | decisions |",
        "|---|---|",
    ]
    for o in ops():
        links = ", ".join(f"[{d.anchor}](decisions/{d.chapter}.md#{d.anchor})" for d in o.decisions)
        rows.append(f"| `{o.name}` | {links or '-'} |")
    return "\n".join(rows) + "\n"


__all__ = [
    "DECISIONS_DIR",
    "DTYPES",
    "OPERAND_KINDS",
    "Batching",
    "CFunction",
    "DTypeRule",
    "Decision",
    "OneOf",
    "Op",
    "Operand",
    "OperandKind",
    "Overload",
    "Paired",
    "Role",
    "SameAs",
    "markdown",
    "op",
    "ops",
    "overloads",
]
