"""regsim/capi.pyi, the signatures mypy checks `rs.capi` calls against, generated from the C forms `rs.capi` runs.

Each register-level C overload (`register.FORMS`) is one `@overload`, its parameters positional-only and in C order:
a vector parameter is `RegTensor[T]` and a pointer `UbPtr[T]` for the element types its C overload takes (the
operand's dtype rule narrowed by the C name's `dtypes` / `types`; operands of one C++ type share one type
variable, constrained to those types; a paired operand, as a shift's amount, is spelled for each type of its
pair), a predicate or mask `MaskReg`, a scalar of the element type an `IntScalar`, a `FloatScalar` or a
`ComplexScalar` as the element type is an integer, a float or a complex type (one overload each where the types
are mixed), an enum parameter the enum, `int32_t offset` and integer parameters `int`, `uint32_t&` an
`rs.Ref[int]`. The return type is the Reg op's face's. The compare names add their memory-level forms
(`compare.BINARY_FORMS`, `SCALAR_FORMS`) before the register ones; the `_sync` names have those only.

What the dtype rules do not state, the runtime still checks (the (dst, src) pairs of Reduce and Pack, the
(dst, src, index) triples of Gather): the stub lets such a call pass and the call raises `DTypeError`.

Regenerate: `python -m regsim._src.frontends.capi.stub > regsim/capi.pyi` (tests/frontends/test_capi_stub.py
checks the file is current, and that mypy accepts and refuses what the runtime does).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator, Sequence

from regsim._src.engine.executors import SCALAR_CTYPES
from regsim._src.engine.spec import CName, Kind, OneOf, Operand, Paired, SameAs
from regsim._src.frontends.capi.compare import BINARY_FORMS, COMPARES, SCALAR_FORMS
from regsim._src.frontends.capi.register import C_CONSTANTS, FORMS, CForm, result
from regsim._src.model import dtypes as dt

#: the Python type of each operand kind whose type is one class
_PLAIN = {
    Kind.MASK: "MaskReg",
    Kind.PRED: "MaskReg",
    Kind.ADDR: "AddrReg",
    Kind.ULOAD: "UnalignRegForLoad",
    Kind.USTORE: "UnalignRegForStore",
    Kind.REF: "Ref[int]",
    Kind.INT: "int",
}
#: the Python type of a memory-level compare's parameter, by name (the strides and `repeat`: int)
_MEMORY = {"dst": "U8Ptr", "src": "Ptr", "src0": "Ptr", "src1": "Ptr", "value": "float"}

HEADER = '''\
# Generated from regsim's op registry by regsim._src.frontends.capi.stub: do not edit.
# Regenerate: python -m regsim._src.frontends.capi.stub > regsim/capi.pyi (tests/frontends/test_capi_stub.py checks it).
"""The typed face of `regsim.capi` (capi.py says what it holds): one overload per C overload of each `asc_*` name."""

from typing import {typing}

from regsim._src.engine.context import Ref
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MEM_TYPE as MEM_TYPE
from regsim._src.model.enums import MaskPattern
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import AddrReg, MaskReg, RegTensor, UnalignRegForLoad, UnalignRegForStore
from regsim._src.ops.scalars import ComplexScalar, FloatScalar, IntScalar

Ptr: TypeAlias = UbPtr[Any] | LocalTensor[Any]
U8Ptr: TypeAlias = UbPtr[dt.uint8] | LocalTensor[dt.uint8]

REGISTER_API: Final[tuple[str, ...]]
MEMORY_API: Final[tuple[str, ...]]
'''

LINE = 130  #: the project's line length (the stub is formatted as `ruff format` formats it)


def scalar_type(dtype: type[dt.DType]) -> str:
    """The Python numbers a scalar of element type `dtype` takes (as the Reg faces type them)."""
    if issubclass(dtype, dt.ComplexFloating):
        return "ComplexScalar"
    if issubclass(dtype, dt.Floating) and not dtype.bits_only:
        return "FloatScalar"
    return "IntScalar"


class _Form:
    """One C overload's typed operands: its groups, each with the element types the overload takes."""

    def __init__(self, form: CForm) -> None:
        self.form = form
        spec, cname = form.spec, form.cname
        typed = [spec.operand(p) for p in cname.params if p in spec.slots and spec.operand(p).dtypes is not None]
        narrowed = dict(form.typed())  # the C name's `dtypes` (on the first register) and `types`
        self.root = {o.name: self._root(o) for o in typed}
        allowed: dict[str, frozenset[type[dt.DType]]] = {}
        for o in typed:
            if isinstance(o.dtypes, Paired):
                continue
            root = self.root[o.name]
            if root not in allowed:
                rule = spec.operand(root).dtypes
                assert isinstance(rule, OneOf) and root in cname.params, f"{form.name}: {root} of {spec.key}"
                allowed[root] = rule.dtypes
            if o.name in narrowed:
                allowed[root] &= narrowed[o.name]
        assert all(allowed.values()), f"{form.name}: an operand of {spec.key} takes no element type"
        self.allowed = allowed
        self.typed = typed
        self.narrowed = narrowed

    def _root(self, o: Operand) -> str:
        """The operand whose C++ type `o` has (following `SameAs`)."""
        while isinstance(o.dtypes, SameAs):
            o = self.form.spec.operand(o.dtypes.other)
        return o.name

    def scalar_root(self) -> str | None:
        """The group whose element type a scalar of the op's element type takes (the first register's, as
        the executors convert it), None when the form has no such scalar."""
        spec = self.form.spec
        scalars = [spec.operand(p) for p in self.form.cname.params if p in spec.slots and spec.operand(p).kind is Kind.SCALAR]
        if not any(not o.ctype for o in scalars):
            return None
        first = next(o for o in spec.operands if o.kind is Kind.REG and o.dtypes is not None)
        return self._root(first)

    def splits(self) -> Iterator[dict[str, frozenset[type[dt.DType]]]]:
        """The overloads the form needs: its groups' types, split where a parameter's Python type depends on
        the element type (a paired operand: one overload per type; a scalar: one per kind of number)."""
        parts: dict[str, list[frozenset[type[dt.DType]]]] = {root: [types] for root, types in self.allowed.items()}
        for o in self.typed:
            if isinstance(o.dtypes, Paired):
                other = self.root[o.dtypes.other]
                parts[other] = [frozenset({d}) for d in _ordered(self.allowed[other])]
        root = self.scalar_root()
        if root is not None and len(parts[root]) == 1:
            kinds: dict[str, set[type[dt.DType]]] = {}
            for d in _ordered(self.allowed[root]):
                kinds.setdefault(scalar_type(d), set()).add(d)
            parts[root] = [frozenset(v) for v in kinds.values()]
        for combo in itertools.product(*parts.values()):
            yield dict(zip(parts, combo, strict=True))

    def paired(self, o: Operand, types: dict[str, frozenset[type[dt.DType]]]) -> type[dt.DType] | None:
        assert isinstance(o.dtypes, Paired)
        (d,) = types[self.root[o.dtypes.other]]
        got: type[dt.DType] | None = o.dtypes.pairs.get(d)
        return got if got is not None and got in self.narrowed.get(o.name, frozenset({got})) else None


def _ordered(types: frozenset[type[dt.DType]]) -> list[type[dt.DType]]:
    return [d for d in dt.EVERY_DTYPE if d in types]


class Stub:
    """The stub's text, built one function at a time; its type variables, one per set of element types, named
    in the order they are first used."""

    def __init__(self) -> None:
        self.typevars: dict[tuple[frozenset[type[dt.DType]], int], str] = {}

    def element(self, root: str, groups: dict[str, frozenset[type[dt.DType]]]) -> str:
        """The element type of group `root` in an overload of `groups`: one type (`dt.float32`), or a type variable
        constrained to several (its own: two groups of the same types are two type variables)."""
        types = groups[root]
        if len(types) == 1:
            return f"dt.{next(iter(types)).name}"
        nth = [r for r, t in groups.items() if t == types].index(root)
        return self.typevars.setdefault((types, nth), f"_T{len(self.typevars)}")

    def signatures(self, form: CForm) -> list[list[tuple[str, str]]]:
        """The (parameter, type) lists of one C overload's Python overloads."""
        shape = _Form(form)
        spec, cname = form.spec, form.cname
        c_params = dict(cname.c_params)
        out = []
        for types in shape.splits():
            params: list[tuple[str, str]] = []
            for p in cname.params:
                if p in c_params:
                    params.append((p, c_params[p].__name__))
                elif p == CName.OFFSET and p not in spec.slots:
                    params.append((p, "int"))  # the `int32_t offset` of a `displaces` form
                else:
                    annotation = self.operand(shape, spec.operand(p), types)
                    if annotation is None:
                        break
                    params.append((p, annotation))
            else:
                out.append(params)
        return out

    def operand(self, shape: _Form, o: Operand, types: dict[str, frozenset[type[dt.DType]]]) -> str | None:
        """One operand's Python type (None: no type of its pair fits this overload)."""
        if o.kind in (Kind.REG, Kind.PTR):
            if isinstance(o.dtypes, Paired):
                d = shape.paired(o, types)
                element = None if d is None else f"dt.{d.name}"
            else:
                element = self.element(shape.root[o.name], types)
            return None if element is None else f"{'RegTensor' if o.kind is Kind.REG else 'UbPtr'}[{element}]"
        if o.kind is Kind.SCALAR:
            if o.ctype:
                return scalar_type(SCALAR_CTYPES[o.ctype])
            root = shape.scalar_root()
            assert root is not None
            return scalar_type(next(iter(types[root])))
        if o.kind is Kind.ENUM and o.enum is not None:
            if o.accepted:
                members = sorted(o.accepted, key=lambda m: m.value)
                return f"Literal[{', '.join(f'{o.enum.__name__}.{m.name}' for m in members)}]"
            return o.enum.__name__
        if o.kind in _PLAIN:
            return _PLAIN[o.kind]
        raise AssertionError(f"{shape.form.name}: no Python type for the operand kind {o.kind} ({o.name})")  # pragma: no cover

    def function(self, name: str) -> list[str]:
        """The overloads of the C function `name`: its memory-level forms, then its register-level ones."""
        overloads: list[tuple[list[tuple[str, str]], str]] = []
        if name in COMPARES:
            memory = SCALAR_FORMS if "_scalar" in name else BINARY_FORMS
            overloads += [([(p, _MEMORY.get(p, "int")) for p in params], "None") for params in memory]
        if not name.endswith("_sync"):
            for form in FORMS.get(name, []):
                returned = result(form.spec)
                overloads += [(params, returned) for params in self.signatures(form)]
        lines: list[str] = []
        seen: set[str] = set()
        for params, returned in overloads:
            text = _def(name, [f"{p}: {t}" for p, t in params], returned)
            if text not in seen:
                seen.add(text)
                lines.append(text)
        if len(lines) == 1:
            return lines
        return [f"@overload\n{text}" for text in lines]

    def text(self) -> str:
        functions = [text for name in sorted({*FORMS, *COMPARES}) for text in self.function(name)]
        functions += [_def("asc_get_cmp_mask", ["dst: Ptr"], "None"), _def("asc_set_cmp_mask", ["sel_mask: Ptr"], "None")]
        constants = [f"{name}: Final = {type(m).__name__}.{m.name}" for name, m in C_CONSTANTS.items()]
        typevars = [
            _call(f"{v} = TypeVar", [f'"{v}"', *(f"dt.{d.name}" for d in _ordered(k))]) for (k, _), v in self.typevars.items()
        ]
        literal = ["Literal"] if any("Literal[" in f for f in functions) else []
        header = HEADER.replace("{typing}", ", ".join(["Any", "Final", *literal, "TypeAlias", "TypeVar", "overload"]))
        return "\n".join([header, *constants, "", *typevars, "", *functions]) + "\n"


def _call(head: str, args: Sequence[str], tail: str = "") -> str:
    """`head(args)tail` in `ruff format`'s layout: on one line, else the arguments on one indented line, else one
    argument a line with a trailing comma."""
    one = f"{head}({', '.join(args)}){tail}"
    if len(one) <= LINE:
        return one
    inner = "    " + ", ".join(args)
    if len(inner) <= LINE:
        return f"{head}(\n{inner}\n){tail}"
    return f"{head}(\n" + "".join(f"    {a},\n" for a in args) + f"){tail}"


def _def(name: str, params: Sequence[str], returned: str) -> str:
    return _call(f"def {name}", [*params, "/"] if params else [], f" -> {returned}: ...")


def stub() -> str:
    """The text of regsim/capi.pyi."""
    return Stub().text()


if __name__ == "__main__":
    sys.stdout.write(stub())
