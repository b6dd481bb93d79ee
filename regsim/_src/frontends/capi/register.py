"""The 950 register-level C API, generated from the op registry's C spellings (`OpSpec.c_api`).

One Python callable per C name: its positional arguments are the C parameters in C order (each one an
operand of the Reg op, named in the spec's `CName`), the template operands the C name fixes are passed
for it (`asc_eq` is `Compare` with `mode=CMPMODE.EQ`), and an op whose element type C cannot deduce has
one function per width (`asc_create_mask_b16(PAT_ALL)` is `CreateMask(uint16, pattern=ALL)`). Where one
C name spells several Reg overloads (`asc_add` with and without carry) the arguments' count and kinds
pick the overload, as C overload resolution does. Errors are raised in the C name's terms.
"""

from __future__ import annotations

import enum
import functools
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

import attrs

from regsim._src.engine.per_iteration import Affine
from regsim._src.engine.spec import CName, DTypes, Kind, OneOf, Operand, OpSpec, _value, fits
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MEM_TYPE, MaskPattern
from regsim._src.model.memory import UbPtr
from regsim._src.ops import REGISTRY
from regsim._src.ops import namespace as Reg
from regsim.errors import DTypeError, ParameterError, RegsimError, message

#: width suffixes of the C functions whose element type is not deducible (`asc_create_mask_b8` ...)
WIDTHS: Final = (("_b8", dt.uint8), ("_b16", dt.uint16), ("_b32", dt.uint32))
INT32: Final = (-(2**31), 2**31 - 1)


@attrs.frozen
class CForm:
    """One C overload: the Reg op it runs, its C parameters (operand names) and the operands it fixes."""

    spec: OpSpec
    cname: CName
    name: str
    fixed: Mapping[str, Any]

    def signature(self) -> str:
        return f"{self.name}({', '.join('int32_t offset' if self._is_offset(p) else p for p in self.cname.params)})"

    def fits(self, args: Sequence[Any]) -> bool:
        """Whether the arguments have the count and kinds of this overload's C parameters."""
        return len(args) == len(self.cname.params) and self.misfit(args) is None

    def misfit(self, args: Sequence[Any]) -> str | None:
        """The message for the first of `args` (as many as this overload's C parameters) this overload does not
        take, by kind: a register, a pointer, an `rs.Ref` ..., or one of the `rs.capi` constants of an enum
        parameter (`asc_create_mask_b32("PAT_ALL")`); None when all fit."""
        c_params = dict(self.cname.c_params)
        for name, v in zip(self.cname.params, args, strict=True):
            if name in c_params:
                want = c_params[name]
                if not isinstance(v, want):
                    accepted = _c_constants(want, v) if issubclass(want, enum.Enum) else f"a {want.__name__}"
                    return message(self.name, name, _value(v), f"{accepted} (in {self.signature()})")
                continue
            o = None if self._is_offset(name) else self.spec.operand(name)
            kind = Kind.INT if o is None else o.kind
            if not fits(kind, v):
                accepted = _c_constants(o.enum, v) if o is not None and o.enum is not None else kind.value
                return message(self.name, name, _value(v), f"{accepted} (in {self.signature()})")
        return None

    def _is_offset(self, param: str) -> bool:
        return bool(self.cname.displaces) and param == CName.OFFSET

    def typed(self) -> list[tuple[str, DTypes]]:
        """The (operand, element types) checks of this overload: `dtypes` on the first register, then `types`."""
        checks = list(self.cname.types)
        if self.cname.dtypes:
            first: Operand = next(o for o in self.spec.operands if o.kind is Kind.REG and o.dtypes is not None)
            checks.insert(0, (first.name, self.cname.dtypes))
        return checks

    def mismatch(self, args: Sequence[Any]) -> tuple[int, str, Any] | None:
        """The first (how many checks passed, operand, element type) of `args` this overload does not
        take, or None."""
        given = dict(zip(self.cname.params, args, strict=True))
        given.update(self.fixed)
        for k, (name, dtypes) in enumerate(self.typed()):
            dtype = getattr(given[name], "dtype", None)
            if dtype not in dtypes:
                return k, name, dtype
        return None

    def call(self, args: Sequence[Any]) -> Any:
        given = dict(zip(self.cname.params, args, strict=True))
        if self.cname.derive is not None:
            derived = self.cname.derive(self.name, given)
            if derived is None:
                return None
            given = {k: v for k, v in given.items() if k not in dict(self.cname.c_params)} | dict(derived)
        if self.cname.displaces:
            offset = given.pop(CName.OFFSET)
            if not isinstance(offset, Affine) and not INT32[0] <= int(offset) <= INT32[1]:
                raise ParameterError(message(self.name, CName.OFFSET, _value(offset), f"an int32_t in [{INT32[0]}, {INT32[1]}]"))
            given[self.cname.displaces] = given[self.cname.displaces] + offset
        given.update(self.fixed)
        pos: list[Any] = []
        kw: dict[str, Any] = {}
        for o in self.spec.operands:
            if o.name not in given:
                continue
            if o.keyword:
                kw[o.name] = given[o.name]
            else:
                pos.append(given[o.name])
        try:
            return REGISTRY.entry(self.spec.name)(tuple(pos), kw)
        except RegsimError as e:
            raise type(e)(f"{self.name}: the call fails in its Reg op (from Reg {e})") from e


#: the C names of the enum constants a C function takes (`PAT_ALL` is `MaskPattern.ALL`; `VV_ALL` is `MEM_TYPE.VV_ALL`)
C_CONSTANT_PREFIX: Final[Mapping[type[enum.Enum], str]] = {MaskPattern: "PAT_", MEM_TYPE: ""}
#: those constants by C name: the `pat_mode` values of asc_create_mask_b8/_b16/_b32 (the asc_create_mask page),
#: the `mem_type` values of asc_mem_bar (the asc_mem_bar page's table 2)
C_CONSTANTS: Final[Mapping[str, enum.Enum]] = {
    prefix + name: member for kind, prefix in C_CONSTANT_PREFIX.items() for name, member in kind.__members__.items()
}


def _c_constants(kind: type[enum.Enum], given: object) -> str:
    """What a C enum parameter accepts, as the constants of `rs.capi` (the one `given` names, if it names one)."""
    prefix = C_CONSTANT_PREFIX.get(kind, f"{kind.__name__}.")
    names = [prefix + m.name for m in kind]
    meant = next((n for n in names if isinstance(given, str) and given.upper() in (n, n.removeprefix(prefix))), None)
    shown = f"one of the rs.capi constants ({', '.join(names)})"
    return shown + (f": write capi.{meant}, not {given!r}" if meant else "")


def _forms() -> dict[str, list[CForm]]:
    out: dict[str, list[CForm]] = {}
    for spec in REGISTRY.specs.values():
        if spec.unmodelled:
            continue
        for c in spec.c_names:
            fixed = dict(c.fixed)
            deduce = [o for o in spec.operands if o.kind is Kind.DTYPE and o.name not in c.params and o.name not in fixed]
            if deduce:
                accepted = deduce[0].dtypes
                for suffix, width in WIDTHS:
                    if isinstance(accepted, OneOf) and width not in accepted.dtypes:
                        continue  # (`asc_get_mask_spr_b16/_b32`: MoveMask takes b16 and b32 only)
                    name = c.name + suffix
                    out.setdefault(name, []).append(CForm(spec, c, name, {**fixed, deduce[0].name: width}))
            else:
                out.setdefault(c.name, []).append(CForm(spec, c, c.name, fixed))
            missing = [
                o.name
                for o in spec.positional
                if o.name not in c.params and o.name not in fixed and o not in deduce and c.derive is None
            ]
            assert not missing, f"{c.name}: Reg {spec.key} operands {missing} are neither C parameters nor fixed"
    return out


#: every register-level C name → its overloads
FORMS: Final = _forms()
#: every register-level C name, sorted (`rs.capi.REGISTER_API`)
REGISTER_API: Final = tuple(sorted(FORMS))


def result(spec: OpSpec) -> str:
    """What a call of the op returns, as its Reg face declares it: "None", "MaskReg" (`CreateMask`, `UpdateMask`,
    `MoveMask`) or "AddrReg" (`CreateAddrReg`); the C function that spells the op returns the same."""
    return _face_result(spec.name)


@functools.cache
def _face_result(name: str) -> str:
    """`result` of every op the face `Reg.<name>` runs, read once from its return annotations' spelling (not
    evaluated: typing.get_type_hints costs a few milliseconds a face)."""
    face = getattr(Reg, name)
    hints = {_spelling(f.__annotations__["return"]) for f in typing.get_overloads(face) or [face]}
    assert len(hints) == 1, f"Reg.{name}: its face's overloads return {hints}"
    return hints.pop()


def _spelling(annotation: Any) -> str:
    """A return annotation's type name: `"MaskReg"` (postponed, as the faces' are), `MaskReg`, `None`."""
    if isinstance(annotation, str):
        return annotation.rpartition(".")[2]
    return "None" if annotation is None or annotation is type(None) else str(annotation.__name__)


def dispatch(name: str, args: Sequence[Any]) -> Any:
    """Run the C function `name` on `args`: the overload whose parameter count and kinds fit, then (where
    several do) whose element types fit, as C overload resolution picks one."""
    forms = FORMS[name]
    fitting = [f for f in forms if f.fits(args)]
    if not fitting:
        said = {f.misfit(args) for f in forms if len(f.cname.params) == len(args)}
        if len(said) == 1 and len({len(f.cname.params) for f in forms}) == 1:  # one count, one thing that does not fit
            raise ParameterError(str(said.pop()))
        accepted = "; ".join(sorted({f.signature() for f in forms}))
        if all(len(f.cname.params) > len(args) for f in forms):  # too few: the shortest form names the first missing
            shortest = min(forms, key=lambda f: len(f.cname.params))
            raise ParameterError(message(name, shortest.cname.params[len(args)], "missing", f"one of {accepted}"))
        shown = ", ".join(_value(a) for a in args)
        raise ParameterError(message(name, "arguments", f"({shown})", f"one of {accepted}"))
    misses = []
    for form in fitting:
        miss = form.mismatch(args)
        if miss is None:
            return form.call(args)
        misses.append((form, miss))
    # the overloads that fit furthest (`asc_gather` on an int16 register with a uint32 index: the b16
    # overload, whose index is uint16) name the operand and the types they would take there
    depth = max(miss[0] for _, miss in misses)
    _, operand, dtype = next(miss for _, miss in misses if miss[0] == depth)
    accepted_types: set[Any] = set()
    for form, miss in misses:
        if miss[0] == depth and miss[1] == operand:
            accepted_types |= form.typed()[depth][1]
    form = next(form for form, miss in misses if miss[0] == depth)
    kind = "pointer" if isinstance(dict(zip(form.cname.params, args, strict=True)).get(operand), UbPtr) else "vector"
    what = f"a {kind} of {dtype.name}" if dtype is not None else "no element type"
    raise DTypeError(message(name, operand, what, f"one of {dt.names(frozenset(accepted_types))} on Ascend 950"))


def c_function(name: str, run: Callable[[tuple[Any, ...]], Any], signatures: str) -> Callable[..., Any]:
    """A C function as Python sees it: `run(args)` on the positional arguments; a keyword argument (C has
    none) is a `ParameterError` naming it and the C signatures (`signatures`)."""

    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            key, value = next(iter(kwargs.items()))
            raise ParameterError(
                message(name, key, f"{_value(value)} (a keyword argument)", f"the arguments by position, as in C: {signatures}")
            )
        return run(args)

    call.__name__ = call.__qualname__ = name
    return call


@functools.cache
def function(name: str) -> Callable[..., Any]:
    """The Python callable of the register-level C function `name`."""
    call = c_function(name, functools.partial(dispatch, name), "; ".join(sorted({f.signature() for f in FORMS[name]})))
    call.__doc__ = "\n".join(
        [f"`{name}`: the 950 register-level C API.", ""]
        + [
            f"- `{f.signature()}` → Reg `{f.spec.signature()}`" + (f" with {dict(f.fixed)}" if f.fixed else "")
            for f in FORMS[name]
        ]
    )
    return call
