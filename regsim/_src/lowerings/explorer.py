"""The lowering explorer: the Reg-op sequence a memory-level call becomes (`rs.lower`, `regsim lower "Add(int16,
count=256)"`), for every name of the spec table (`regsim._src.lowerings.table`) and the memory-level C API compares.

`lower(api, *args)` runs a call and records its Reg calls; `lower_spec(text)` makes the call a text describes (name,
dtype and keyword arguments) on fresh tensors of random data: an API's own builder where it has one (`Api.explore`:
offsets inside a tensor, a selection mask, a pattern, a dst of another type), else from the interface the keywords
name (`count=` the first-n interface; `mask=`, `repeat_time=`, optional `repeat_params=(...)` and `is_set_mask=` the
mask/repeat ones; `scalar_value=`, `first_value=` the scalars; `round_mode=CAST_FLOOR` an enum member by name;
`src=half` sources of another type than dst), tensors of the interface's extent rounded up to whole registers. A host
API of the core's state (`"SetVectorMask(half, length=8)"`, `"GetCmpMask(uint8)"`, `"SetMaskCount(half)"`) runs on a
fresh core and makes no Reg call: its lowering is empty, and says so.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, Final

import attrs

from regsim._src.lowerings import capi_compare
from regsim._src.lowerings.fresh import FreshCall, arguments, dtype_named, fresh, mask_arg, member
from regsim._src.lowerings.spec import CMP_MASK, FLEXIBLE, SCALAR_FIRST, Entry, Interface, Kind, Param
from regsim._src.lowerings.structs import BLOCKS_PER_REPEAT, REPEAT_BYTES
from regsim._src.lowerings.table import ENTRIES
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure
from regsim._src.ops import REGISTRY
from regsim._src.vf.trace import trace
from regsim.errors import ParameterError, message


@attrs.frozen
class Lowering:
    """The Reg-op sequence one memory-level call became (`rs.lower`)."""

    call: str
    records: tuple[Any, ...]
    #: what a call of no Reg op does instead (a host API of the core's state), shown by `table`
    note: str = ""

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
        if not self.records:
            return f"{self.call}: 0 Reg calls" + (f" {self.note}" if self.note else "")
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


def lower(api: Callable[..., Any], *args: Any, **kwargs: Any) -> Lowering:
    """`rs.lower(AscendC.Add, dst, src0, src1, 256)`: run the call (it runs for real: its stores land)
    and return the Reg-op sequence it became, with op counts and UB bytes read and written per op
    (its loops run in order, so the sequence is each iteration's)."""
    name = getattr(api, "name", getattr(api, "__name__", repr(api)))
    shown = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    with trace() as t, configure(loops="sequential"):
        api(*args, **kwargs)
    return Lowering(f"{name}({shown})", tuple(t.records))


#: the names `regsim lower` lowers that are not `rs.AscendC` names: the memory-level C API compares -> (the call of
#: their memory-level forms, the builder of a fresh call)
C_API: Final = {name: (capi_compare.memory_form(name), capi_compare.explore(name)) for name in capi_compare.COMPARE_API}


def lowerable() -> list[str]:
    """The names `regsim lower` knows: every name of the spec table (its APIs and their deprecated aliases; a host API
    of the core's state lowers to no Reg call) and the memory-level C API compares."""
    return sorted({*ENTRIES, *C_API})


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
    """`regsim lower "Add(int16, count=256)"`: lower the call `text` describes on fresh tensors (the module's
    docstring says how a text names an interface)."""
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
    name = node.func.id
    if name not in lowerable():
        raise ParameterError(message("lower", "API", name, f"one of {', '.join(lowerable())}"))
    dtype: Any = getattr(dt, node.args[0].id, None)
    if not dt.is_dtype(dtype):
        raise ParameterError(message("lower", "dtype", node.args[0].id, "a regsim dtype name such as int16 or float32"))
    kw = {  # (a bare name, `dst=half` or `round_mode=CAST_RINT`, is its text)
        str(k.arg): k.value.id if isinstance(k.value, ast.Name) else ast.literal_eval(k.value) for k in node.keywords
    }
    call: Callable[..., Any]
    note = ""
    if name in C_API:
        call, build = C_API[name]
        args, kwargs = build(dtype, kw)
    else:  # (a deprecated alias: its API's call, with the template arguments the alias fixes)
        alias = ENTRIES[name]
        call = ENTRIES[alias.api.name]
        args, kwargs = alias.api.explore(dtype, kw) if alias.api.explore else fresh_call(call, dtype, kw)
        kwargs.update(alias.fixed)
        if not alias.api.lowered:
            note = f"(a host API of the core's state, no lowering: {alias.api.summary})"
    return Lowering(text.strip(), lower(call, *args, **kwargs).records, note)


def _value(p: Param, text: Any) -> Any:
    """A parameter's value from the explorer's text: a struct from its fields' tuple, an enum member from its name, a
    mask list for bit mode."""
    if p.kind is Kind.STRUCT and p.struct is not None:
        return p.struct(*text) if isinstance(text, (tuple, list)) else text
    if p.kind is Kind.ENUM and p.enum is not None:
        return member(p.name, p.enum, text)
    return mask_arg(text) if p.kind is Kind.BITS else text


def _fitting(entry: Entry, kw: dict[str, Any]) -> tuple[Interface, dict[str, Any]]:
    """The first plain interface (not a flexible-scalar or compare-mask register one) whose parameters the keywords
    give, structs defaulting to their C++ defaults, and the values of its parameters that are not tensors."""
    for iface in entry.interfaces:
        if iface.variant in (FLEXIBLE, SCALAR_FIRST, CMP_MASK) or not set(kw) <= {p.name for p in iface.all_params}:
            continue
        values = {p.name: _value(p, kw[p.name]) for p in iface.all_params if p.name in kw}
        for p in iface.params:
            if p.kind is Kind.STRUCT and p.name not in values and p.struct is not None:
                values[p.name] = p.struct()
        given = all(p.name in values for p in iface.all_params if p.required and p.kind not in (Kind.TENSOR, Kind.DTYPE))
        if given and all(iface.param(n).fits(v) for n, v in values.items()):
            return iface, values
    plain = (i.form_text() for i in entry.interfaces if i.variant not in (FLEXIBLE, SCALAR_FIRST, CMP_MASK))
    raise arguments(kw, f"the parameters of one of {entry.name}'s forms {'; '.join(dict.fromkeys(plain))}, by name")


def fresh_call(entry: Entry, dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """A call of `entry` on fresh tensors of random data: the interface the keywords name (`_fitting`), its tensors of
    `dtype` (`src=T`: the sources' type), each covering the elements the call reaches, rounded up to whole registers."""
    kw = dict(kw)
    src_dtype = dtype_named("src", kw.pop("src")) if "src" in kw else dtype
    iface, values = _fitting(entry, kw)
    values.update({p.name: dtype for p in iface.params if p.kind is Kind.DTYPE})
    if "count" in values:
        n = int(values["count"])
    elif "repeat_time" not in values:  # (a host API of the core's state: one register of each tensor, on a fresh core)
        n = REPEAT_BYTES // dtype.itemsize
    else:
        blk, rep = _strides(values)
        repeats = max(int(values["repeat_time"]), 1)
        n = (rep * (repeats - 1) + max(blk, 1) * 7 + 1) * ONE_BLOCK_SIZE // min(dtype.itemsize, src_dtype.itemsize)
    tensors = [p for p in iface.params if p.kind is Kind.TENSOR]
    made = iter(fresh([(src_dtype if p.name.startswith("src") else dtype, n) for p in tensors]))
    given = [p for p in iface.params if p.kind is Kind.TENSOR or p.name in values]
    args = [next(made) if p.kind is Kind.TENSOR else values[p.name] for p in iface.params[: len(given)]]
    return tuple(args), {p.name: values[p.name] for p in iface.keywords if p.name in values}


def _strides(values: dict[str, Any]) -> tuple[int, int]:
    """The widest block stride and repeat stride (in DataBlocks) of a mask/repeat call's struct or stride arguments."""
    named = dict(values)
    params = named.pop("repeat_params", None)
    if params is not None:
        named.update(attrs.asdict(params))
    blk = [int(v) for k, v in named.items() if "Blk" in k or "blk" in k or "block" in k]
    rep = [int(v) for k, v in named.items() if "Rep" in k or "rep_" in k or "repeat_stride" in k]
    return max(blk, default=1), max(rep, default=BLOCKS_PER_REPEAT)
