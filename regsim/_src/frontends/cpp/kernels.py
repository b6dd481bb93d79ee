"""Whole kernel files on the kernel floor: a `__global__ __aicore__` entry, the classes and `__aicore__` functions
it reaches, and each `__VEC_SCOPE__` block as a VF (the C++ -> Python lowering of the kernel side).

    mod = rs.cpp.load("floor_apt.cpp", args=("-include", "tiling.h", "-DREGSIM_TILING_DATA=FloorTilingData"))
    k = mod.kernel("floor")                   # an rs.kernel: the entry, lowered once
    rs.launch(k, 8, x, y, workspace, tiling, tiling_key=300000000000100)   # floor<<<8, nullptr, stream>>>(...)

A class object is a Python object with the C++ member variables as attributes (made as C++ default-initializes
them: a `GlobalTensor<T>` member is `GlobalTensor(T)`, a `TQue<pos, depth>` a `TQue`, a scalar 0, a pointer None),
a member function a Python function taking the object first; a pointer or reference to an object is the object.
A `__VEC_SCOPE__ { ... }` block is lowered as a `__simd_vf__` function whose parameters are the enclosing function's
variables the block reads (by value, as the block sees them when it starts) and the object (`this`); it runs
as one vector function on the V pipe. The tiling struct of `GET_TILING_DATA` is filled from the tiling GM
buffer's bytes with the struct's C++ layout (`CppModule.struct_dtype` gives the numpy dtype to build them).
"""

from __future__ import annotations

import enum
import re
from typing import Any

import attrs
import numpy as np

from regsim._src.frontends.cpp.kernel_decls import HOST_APIS, MEMORY_STRUCTS
from regsim._src.frontends.cpp.lowering import (
    _TYPE_KIDS,
    CppError,
    Fn,
    Lowerer,
    Ty,
    _deduced,
    _split_targs,
    _walk,
    dtype_of,
    numeric_limit,
    strip,
)
from regsim._src.kernel import datacopy, gm, pipes, sync, tpipe
from regsim._src.kernel.launch import kernel as make_kernel
from regsim._src.lowerings.spec import Kind
from regsim._src.lowerings.table import ENTRIES
from regsim._src.model import dtypes as dt
from regsim._src.model import enums
from regsim._src.model.lazy import ml_dtypes

__all__ = ["KernelBuild", "tiling_structs"]


class _Obj:
    """A C++ class object: its member variables as attributes."""

    def __init__(self, cname: str) -> None:
        self.__cname = cname

    def __repr__(self) -> str:
        return f"<{self.__cname} { ({k: v for k, v in vars(self).items() if not k.startswith('_')}) }>"


@attrs.frozen
class DataCopyPadParams:
    """`DataCopyPadParams(isPad, leftPadding, rightPadding, paddingValue)`: the vendor headers' padding of the older
    DataCopyPad overload (no element type; it becomes the destination's `DataCopyPadExtParams` when copied)."""

    isPad: bool = False  # noqa: N815 (C++ field name)
    leftPadding: int = 0  # noqa: N815
    rightPadding: int = 0  # noqa: N815
    paddingValue: int = 0  # noqa: N815


@attrs.frozen
class ClassArg:
    """A class of the file as a type template argument of a kernel-side function template (`RunTileLoop<KernelT>
    (KernelT& op, ...)`, `RunOp<SeluGradOneDimOp<float>>(...)`): its definition's place and its own template
    arguments, by name."""

    place: str
    args: tuple[tuple[str, Any], ...]


#: the kernel-floor names the generated code calls (`K.DataCopyPad(...)`)
K = type(
    "K",
    (),
    {
        "GlobalTensor": gm.GlobalTensor,
        "TPipe": tpipe.TPipe,
        "TQue": tpipe.TQue,
        "TBuf": tpipe.TBuf,
        "DataCopy": datacopy.DataCopy,
        "DataCopyPad": datacopy.DataCopyPad,
        "DataCopyParams": datacopy.DataCopyParams,
        "DataCopyExtParams": datacopy.DataCopyExtParams,
        "DataCopyPadExtParams": datacopy.DataCopyPadExtParams,
        "GetBlockIdx": sync.GetBlockIdx,
        "GetBlockNum": sync.GetBlockNum,
        "PipeBarrier": sync.PipeBarrier,
        "SetFlag": sync.SetFlag,
        "WaitFlag": sync.WaitFlag,
        "SyncAll": sync.SyncAll,
        "PIPE": pipes.PIPE,
        "HardEvent": pipes.HardEvent,
        "DataCopyPadParams": DataCopyPadParams,
        **ENTRIES,  # the memory-level APIs (`K.Add(dst, src0, src1, count)`), bound by the table's binder
        **MEMORY_STRUCTS,
    },
)

#: the kernel-side structs regsim models as frozen attrs classes: a member write makes a new value
_FROZEN = {"DataCopyParams", "DataCopyExtParams", "DataCopyPadExtParams", "DataCopyPadParams", *MEMORY_STRUCTS}
#: kernel-floor functions a kernel calls as free functions: (regsim's, how template arguments pass)
_FREE = {"DataCopy", "DataCopyPad", "GetBlockIdx", "GetBlockNum", "SyncAll", "PipeBarrier", "SetFlag", "WaitFlag"}
_NO_OPS = {"SetSysWorkspace", "InitSocState"}
#: the kernel objects' methods that make a `LocalTensor` of their template argument's element type
_TENSOR_MAKERS = ("AllocTensor", "DeQue", "Get", "GetWithOffset", "ReinterpretCast")


def _tiling(obj: Any, ptr: Any, layout: list[tuple[str, int, str, int]]) -> None:
    """`GET_TILING_DATA`: the tiling struct's members read from the GM bytes at `ptr` (its C++ layout)."""
    if ptr is None:
        raise CppError("GET_TILING_DATA: the tiling pointer is null (pass the tiling struct's bytes as a uint8 array)")
    data, base = ptr.buf.data, ptr.offset
    for name, off, npd, n in layout:
        size = np.dtype(npd).itemsize * max(n, 1)
        if base + off + size > data.size:
            raise CppError(
                f"GET_TILING_DATA: the tiling buffer ({data.size} bytes) ends before the member {name}"
                f" (bytes [{off}, {off + size}) of the struct)"
            )
        values = data[base + off : base + off + size].view(npd)
        setattr(obj, name, [v.item() for v in values] if n >= 0 else values[0].item())


def struct_layout(structs: list[dict[str, Any]], s: dict[str, Any]) -> list[tuple[str, int, str, int]]:
    """A struct's scalar members as (name, byte offset, numpy dtype, array length or -1)."""
    out = []
    for f in s["fields"]:
        base = re.sub(r"\[\d*\]$", "", strip(f["t"])).strip()
        d = dtype_of(base)
        if d is None or f["off"] < 0:
            raise CppError(f"{s['place']}: the tiling struct member {f['name']} of type {f['t']} (scalars and arrays only)")
        out.append((f["name"], f["off"], np.dtype(d.np_dtype).str, f["n"]))
    return out


def tiling_structs(text: str) -> str:
    """The C++ structs a host tiling header's `BEGIN_TILING_DATA_DEF(Name)` / `TILING_DATA_FIELD_DEF(type, name)` /
    `TILING_DATA_FIELD_DEF_ARR(type, n, name)` / `TILING_DATA_FIELD_DEF_STRUCT(Type, name)` / `END_TILING_DATA_DEF`
    blocks define (what the operator build generates for its kernel), for `-include`."""
    out = []
    for m in re.finditer(r"BEGIN_TILING_DATA_DEF\((\w+)\)(.*?)END_TILING_DATA_DEF", text, re.S):
        fields = []
        for f in re.finditer(r"TILING_DATA_FIELD_DEF(_ARR|_STRUCT)?\(([^;]*)\)\s*;", m[2]):
            parts = [p.strip() for p in f[2].split(",")]
            if f[1] == "_ARR":
                fields.append(f"{parts[0]} {parts[2]}[{parts[1]}];")
            else:
                fields.append(f"{parts[0]} {parts[1]};")
        out.append(f"struct {m[1]} {{\n    " + "\n    ".join(fields) + "\n};")
    return "#pragma once\n#include <stdint.h>\n" + "\n".join(out) + "\n"


class KernelBuild:
    """The generated Python of one file's kernel side: every function, member function and VF block lowered
    so far (each once), in one namespace (the module's)."""

    def __init__(self, mod: Any, tag: str = "") -> None:
        self.mod = mod
        self.tag = tag  #: the kernel's name, in its functions' Python names (the module's kernels share its globals)
        self.by_place: dict[str, Fn] = {}
        for fs in mod.definitions.values():
            for f in fs:
                if f.defined:
                    self.by_place[f"{f.file}:{f.line}"] = f
        self.by_name: dict[str, list[dict[str, Any]]] = {}
        for s in mod.structs.values():
            self.by_name.setdefault(s["name"], []).append(s)
        self.names: dict[Any, str] = {}  #: lowered functions by (place, env) -> Python name
        #: functions to lower: (Python name, function, template arguments, class, whether it runs inside a VF)
        self.todo: list[tuple[str, Fn, dict[str, Any], dict[str, Any] | None, bool]] = []
        self.vfs: list[str] = []  #: the Python names of the VF blocks (made simd_vf after exec)
        self.extra: list[tuple[list[str], list[int], dict[str, str]]] = []  #: lowered VF blocks
        self.host: Fn | None = None  #: the host function lowered as an entry (its launches run its kernels)

    def struct(self, spelling: str, outer: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The user class a type names (its explicit specialization for these arguments where the file has one), and
        its template arguments by parameter name (names of the enclosing template's parameters given by `outer`)."""
        s = strip(spelling).replace("*", "").replace("&", "").strip()
        name, _, rest = s.partition("<")
        name = name.split("::")[-1].strip()
        cands = self.by_name.get(name)
        if not cands:
            return None
        args = [_targ_value(a, outer or {}) for a in _split_targs(rest.rstrip().removesuffix(">"))] if rest else []
        for st in cands:
            spec = st.get("spec")
            if spec and [_targ_value(a, {}) for a in spec] == args:
                return st, {}
        st = next((st for st in cands if not st.get("spec")), cands[0])
        return st, {p["name"]: a for p, a in zip(st["tparams"], args, strict=False)}

    def function(self, fn: Fn, env: dict[str, Any], cls: dict[str, Any] | None, in_vf: bool = False) -> str:
        """The Python name of `fn` lowered for `env` (queued the first time): on the kernel side, or, `in_vf`, as code
        a VF runs (a member function a `__VEC_SCOPE__` block calls)."""
        key = (fn.file, fn.line, in_vf, tuple(sorted((k, repr(v)) for k, v in env.items())))
        if key not in self.names:
            clean = re.sub(r"[^0-9A-Za-z_]", "_", fn.name)  # (`K<T>` of a constructor)
            self.names[key] = f"k_{self.tag}_{clean}_{len(self.names)}" if self.tag else f"k_{clean}_{len(self.names)}"
            self.todo.append((self.names[key], fn, env, cls, in_vf))
        return self.names[key]

    def lowerer(self, py: str, fn: Fn, env: dict[str, Any], cls: dict[str, Any] | None, in_vf: bool) -> KernelLowerer:
        return (VfMethodLowerer if in_vf else KernelLowerer)(self, fn, env, py, cls)

    def method(
        self,
        st: dict[str, Any],
        env: dict[str, Any],
        name: str,
        rloc: str,
        nargs: int,
        line: int,
        deduce: Any,
        in_vf: bool = False,
        constructor: bool = False,
    ) -> str:
        """A member function's Python name, lowered with the class's template arguments and its own (a member function
        template's, `deduce(fn)`: deduced from the arguments); `in_vf`: as code a VF runs; `constructor`: the class's
        constructor taking `nargs` arguments (`name` unused)."""
        chain = [(st, env)] if constructor else self.class_chain(st, env)
        for cls, cenv in chain:  # (`this->LoadData(...)` of a base)
            fn = self.by_place.get(rloc)
            if fn is None or fn.name != name or fn.cls != cls["place"]:  # (a dependent call: the primary template's member)
                cands = [
                    f for f in self.by_place.values() if f.cls == cls["place"] and len(f.params) == nargs
                    and (f.kind == "CONSTRUCTOR" if constructor else f.name == name)
                ]  # fmt: skip
                if not cands:
                    continue
                fn = min(cands, key=lambda f: f.kind == "FUNCTION_TEMPLATE")  # (an overload that is no template first)
            return self.function(fn, {**cenv, **deduce(fn)}, cls, in_vf)
        what = f"a constructor of {st['name']} taking {nargs} arguments" if constructor else f"{st['name']}::{name}"
        unread = [(c, b) for c, cenv in chain for b in c.get("bases", ()) if (self.struct(b, cenv) or ({},))[0] is c]
        why = (
            f" (regsim reads the base {unread[0][1]} of {unread[0][0]['name']} as that class itself{_BY_NAME})" if unread else ""
        )
        raise CppError(f"{self.mod.path}:{line}: {what} has no definition regsim found{why}")

    def class_chain(
        self, st: dict[str, Any], env: dict[str, Any], outer: dict[str, Any] | None = None
    ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """The user class `st` (its template arguments `env`) and the classes it derives from, each with the template
        arguments its base specifier gives it (`class Derived : public Base<T, U>`, read with `outer`'s names too),
        nearest first, each once; a base regsim reads as the class itself (`template <int N> class K : public K<N - 1>`)
        left out. A class its bases lead back to (`namespace p { class A : public q::B<T>` of `class B : public q::A<T>`,
        regsim's p::B and p::A) is refused, naming the chain."""
        out, todo = [], [(st, env)]
        bases: dict[int, list[tuple[str, dict[str, Any]]]] = {}  #: each class's bases as regsim resolves them
        while todo:
            cls, cenv = todo.pop(0)
            out.append((cls, cenv))
            bases[id(cls)] = []
            for base in cls.get("bases", ()):
                hit = self.struct(base, {**(outer or {}), **cenv})
                if hit is not None and hit[0] is not cls:
                    bases[id(cls)].append((base, hit[0]))
                    if all(hit[0] is not c for c, _ in [*out, *todo]):  # (a virtual base of two bases: once)
                        todo.append(hit)
        cycle = _cycle(st, bases, [(st["name"], st)])
        if cycle is not None:
            chain = " -> ".join(spelled for spelled, _ in cycle)
            raise CppError(
                f"{cycle[-2][1]['place']}: the class {cycle[-1][1]['name']} derives from itself as regsim resolves the"
                f" base classes of {st['name']} ({chain}{_BY_NAME}): regsim's C++ front end does not support it"
            )
        return out


#: why regsim can read a class's base as a class deriving from it
_BY_NAME = "; regsim finds a base by its name and explicit specializations only, not by its namespace or partial specializations"


def _cycle(
    cls: dict[str, Any], bases: dict[int, list[tuple[str, dict[str, Any]]]], path: list[tuple[str, dict[str, Any]]]
) -> list[tuple[str, dict[str, Any]]] | None:
    """The derivation from `path`'s last class `cls` back to a class on `path` (spellings and classes, the first
    class's name first), where `bases` (each class's resolved bases, by id) has one; else None."""
    for spelled, base in bases.get(id(cls), ()):
        if any(base is c for _, c in path):
            return [*path, (spelled, base)]
        found = _cycle(base, bases, [*path, (spelled, base)])
        if found is not None:
            return found
    return None


def _targ_value(text: str, env: dict[str, Any]) -> Any:
    """A template argument's value: a dtype, an integer or enum member, or an enclosing template parameter's value."""
    d = dtype_of(text)
    if d is not None:
        return d
    value = _int_or_enum(text)
    return env.get(value, value) if isinstance(value, str) else value


def _int_or_enum(text: str) -> Any:
    t = text.strip()
    if t in ("true", "false"):  # a bool template argument (`Kernel<T, false>`)
        return int(t == "true")
    m = re.fullmatch(r"(?:\w+::)*(\w+)::(\w+)", t)
    cls = "TPosition" if m and m[1] == "QuePosition" else m[1] if m else ""
    if m and isinstance(getattr(enums, cls, None), type):
        return getattr(getattr(enums, cls), m[2])
    try:
        return int(t.rstrip("uUlL"), 0)
    except ValueError:
        return t


def _strip_unexposed(n: dict[str, Any]) -> dict[str, Any]:
    while n["k"] == "UNEXPOSED_EXPR" and len(n["c"]) == 1:
        n = n["c"][0]
    return n


def _is_launch(n: dict[str, Any]) -> bool:
    """Whether `n` is a `<<<...>>>` launch as parse.py reads it (`__regsim_launch(config...), kernel(args)`)."""
    c = n["c"]
    return n["k"] == "BINARY_OPERATOR" and n.get("op") == "," and len(c) == 2 and _strip_unexposed(c[0])["s"] == "__regsim_launch"


def _is_ours(rloc: str) -> bool:
    return rloc.rsplit(":", 1)[0].endswith("regsim_decls.h")


class KernelLowerer(Lowerer):
    """Lowers a kernel-side function (an entry, a member function, a free `__aicore__` function)."""

    def __init__(self, build: KernelBuild, fn: Fn, env: dict[str, Any], pyname: str, cls: dict[str, Any] | None) -> None:
        super().__init__(build.mod, fn, env, pyname)
        self.build, self.cls = build, cls
        self.this = "self"
        self.in_vf = False  #: whether the code runs inside a VF (a `__VEC_SCOPE__` block and the members it calls)
        self.scopes = 0
        self.unions: dict[str, dict[str, Ty]] = {}  #: the local union variables: their members' types

    def fail(self, n: dict[str, Any] | int, what: str) -> CppError:
        line = n if isinstance(n, int) else n.get("l", 0)
        where = self.fn.file or self.mod.path
        return CppError(f"{where}:{line}: {what} (in {self.fn.name}): regsim's C++ front end does not support it")

    # --- object types ---
    def objkind(self, spelling: str) -> tuple[str, Any] | None:
        s = strip(spelling).replace("*", "").replace("&", "").strip()
        name, _, rest = s.partition("<")
        name = name.strip().split("::")[-1]
        args = _split_targs(rest.rstrip().removesuffix(">")) if rest else []
        if name in ("GlobalTensor", "LocalTensor"):
            return name, self.elem(args[0]) if args else None
        if name == "TPipe":
            return "TPipe", None
        if name == "TQue":
            return "TQue", (self.targ_text(args[0]), int(self.targ_text(args[1])) if len(args) > 1 else 1)
        if name == "TBuf":
            return "TBuf", self.targ_text(args[0]) if args else enums.TPosition.VECCALC
        if name in _FROZEN:
            return name, self.dtype(args[0]) if args else None
        bound = self.env.get(name)
        if isinstance(bound, ClassArg):  # (a type template parameter bound to a class: `KernelT& op`)
            st = next(x for xs in self.build.by_name.values() for x in xs if x["place"] == bound.place)
            return "user", (st, dict(bound.args))
        hit = self.build.struct(s, {**self.constants, **self.env})  # (`K<T, schMode>`, schMode a local constant)
        if hit is not None:
            return "user", hit
        return None

    def targ(self, t: dict[str, Any]) -> Any:
        """A template argument; a class of the file is a `ClassArg` (`RunOp<SeluGradOneDimOp<float>>(...)`)."""
        if t["k"] == "TYPE_REF" and strip(t["s"]) not in self.env and dtype_of(t["s"]) is None:
            kind = self.objkind(t["s"])
            if kind is not None and kind[0] == "user" and kind[1][0] is not None:
                st, env = kind[1]
                return ClassArg(st["place"], tuple(sorted(env.items())))
        return super().targ(t)

    def elem(self, spelling: str) -> Any:
        """A tensor's element type, None where it is a template parameter not known here (a member function
        template's `LocalTensor<SrcT>&` seen from its caller)."""
        try:
            return self.dtype(spelling)
        except CppError:
            if spelling.strip().isidentifier():
                return None
            raise

    def targ_text(self, a: str) -> Any:
        a = a.strip()
        if a in self.env:
            return self.env[a]
        value = _int_or_enum(a)
        if isinstance(value, str):  # a constant's name (`TQue<VECIN, BUFFER_NUM>`): its value
            name = value.split("::")[-1]
            decl = (self.cls or {}).get("statics", {}).get(name) or self.mod.consts.get(name)
            init = [x for x in (decl or {"c": []})["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
            if not init:
                raise self.fail(self.at, f"the template argument {a} (not a constant regsim found)")
            value = self.constant(init[-1], f"the template argument {a}")
        return value

    def type_of(self, spelling: str, kind: str, n: dict[str, Any] | int = 0) -> Ty:
        spelling = re.sub(r"\s*\b__restrict(__)?\b", "", spelling)  # (`const TilingData* __restrict p`)
        if kind in ("RECORD", "POINTER", "LVALUEREFERENCE", "ELABORATED", "UNEXPOSED", "") or spelling.endswith(("*", "&")):
            k = self.objkind(spelling) if not spelling.startswith(("RegTensor", "AscendC::Reg")) else None
            if k is not None:
                return Ty("obj", elem=k)
        return super().type_of(spelling, kind, n)

    def new(self, kind: tuple[str, Any], args: list[str]) -> str:
        """The code making a default-initialized object of `kind` (constructor arguments `args`)."""
        what, a = kind
        if what == "GlobalTensor":
            return f"K.GlobalTensor(rs.{a.name})"
        if what == "LocalTensor":
            return "None"
        if what == "TPipe":
            return "K.TPipe()"
        if what == "TQue":
            return f"K.TQue(pos={self.pyvalue(a[0])}, depth={a[1]})"
        if what == "TBuf":
            return f"K.TBuf(pos={self.pyvalue(a)})"
        if what == "DataCopyPadExtParams":
            if args:
                args = [f"bool({args[0]})", *args[1:]]
            return f"K.{what}({', '.join([f'rs.{a.name}', *args])})"
        if what in _FROZEN:
            return f"K.{what}({', '.join(args)})"
        st, env = a
        return self.new_user(st, env)

    def new_user(self, st: dict[str, Any], env: dict[str, Any]) -> str:
        """A new object of the user class `st`: its members and those of the classes it derives from (theirs first)."""
        fields = [f for base, benv in reversed(self.class_chain(st, env)) for f in self.own_members(base, benv)]
        return f"_new({st['name']!r}, {', '.join(fields)})"

    def class_chain(self, st: dict[str, Any], env: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """`KernelBuild.class_chain`, the base specifiers read with this instantiation's names too."""
        return self.build.class_chain(st, env, self.env)

    def own_members(self, st: dict[str, Any], env: dict[str, Any]) -> list[str]:
        """`name=code` of each of the user class `st`'s own members, default-initialized (or by its initializer)."""
        fields = []
        saved, cls = self.env, self.cls
        self.env, self.cls = {**self.env, **env}, st  # (its members' types read its own constants: TQue<VECIN, BUFFER_NUM>)
        try:
            self.scope_aliases(st["place"])  # (and its own aliases: GlobalTensor<IO_T>)
            for f in st["fields"]:
                t = self.type_of(f["t"], f["tk"], f["l"])
                if f["n"] >= 0:
                    code = f"[0] * {f['n']}"
                elif t.what == "obj" and not f["t"].rstrip().endswith(("*", "&")):  # (a pointer or reference: set later)
                    code = self.new(t.elem, [])
                elif t.what in ("int", "float") and f.get("init") is not None:
                    code = self.expr(f["init"])
                else:
                    code = "0" if t.what == "int" else "0.0" if t.what == "float" else "None"
                fields.append(f"{f['name']}={code}")
        finally:
            self.env, self.cls = saved, cls
        return fields

    def objof(self, n: dict[str, Any]) -> tuple[str, Any] | None:
        t = self.ty(n)
        if t.what == "obj":
            return t.elem  # type: ignore[no-any-return]
        if n["k"] == "CALL_EXPR" and n["c"] and n["c"][0]["k"] == "MEMBER_REF_EXPR":  # q.AllocTensor<T>() in a template
            ref = n["c"][0]
            types = [self.targ(x) for x in ref["c"] if x["k"] == "TYPE_REF"]
            if ref.get("rs") in ("AllocTensor", "DeQue", "Get", "GetWithOffset", "ReinterpretCast") and types:
                return "LocalTensor", types[0]
        if n["k"] == "CALL_EXPR" and n["c"] and self.cls is not None:  # `auto t = GetSlot(i);`: its return type
            name = self.callee_ref(n)[0]
            own = [f for f in self.build.by_place.values() if f.cls == self.cls["place"] and f.name == name]
            if own and own[0].ret:
                return self.objkind(own[0].ret)
        return None

    def dependent_field(self, n: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The member variable a member expression of a dependent type names (`this->tiling_.n` in a class
        template) and its class's template arguments, where its object is a class the file defines."""
        return self.dependent_member(n, "fields")

    def dependent_static(self, n: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The static member a member expression of a dependent type names (`this->VecLen_`, a `static constexpr` of a
        dependent base) and its class's template arguments."""
        return self.dependent_member(n, "statics")

    def dependent_member(self, n: dict[str, Any], kind: str) -> tuple[dict[str, Any], dict[str, Any]] | None:
        if n["k"] != "MEMBER_REF_EXPR" or n.get("rk") or not n["s"] or n.get("tk") != "DEPENDENT":
            return None
        kids = [x for x in n["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
        obj: tuple[str, Any] | None = self.objof(kids[0]) if kids else ("user", (self.cls, {}))
        if obj is None or obj[0] != "user" or obj[1][0] is None:
            return None
        return self.class_member(obj[1], n["s"], kind)

    def class_member(
        self, cls: tuple[dict[str, Any], dict[str, Any]], name: str, kind: str
    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The declaration of the member `name` (`kind`: "fields" or "statics") of the user class `cls` (and its template
        arguments) or of the nearest class it derives from that declares one (`this->n_` of a dependent base), and the
        template arguments and type aliases of the class declaring it; None where none does."""
        for st, env in self.class_chain(*cls):
            hit = next((f for f in st[kind] if f["name"] == name), None) if kind == "fields" else st[kind].get(name)
            if hit is not None:
                saved, self.env = self.env, {**self.env, **env}
                try:
                    self.scope_aliases(st["place"])  # (its member's type may be its alias: `static intCalcType maxExp_`)
                    return hit, self.env
                finally:
                    self.env = saved
        return None

    def method_type(self, n: dict[str, Any]) -> Ty | None:
        """The type of a kernel object's method call clang left dependent, for `auto`: `q.template DeQue<T>()`
        (AllocTensor, Get ...) a `LocalTensor<T>`, `t.GetPhyAddr()` a pointer to the tensor's elements."""
        ref: dict[str, Any] = n["c"][0] if n["k"] == "CALL_EXPR" and n["c"] else {"k": "", "c": []}
        while ref["k"] == "UNEXPOSED_EXPR" and ref["c"]:
            ref = ref["c"][0]
        kids = [x for x in ref["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF", "OVERLOADED_DECL_REF")]
        kind = self.objof(kids[0]) if ref["k"] == "MEMBER_REF_EXPR" and kids else None
        if kind is None:
            return None
        name = ref.get("rs", ref["s"])
        targs = [self.targ(t) for t in ref["c"] if t["k"] == "TYPE_REF"]
        if name in _TENSOR_MAKERS and kind[0] in ("TQue", "TBuf", "LocalTensor") and targs and dt.is_dtype(targs[0]):
            return Ty("obj", elem=("LocalTensor", targs[0]))
        if name == "GetPhyAddr" and kind[0] == "LocalTensor" and kind[1] is not None:
            return Ty("ptr", elem=kind[1])
        return None

    def ty(self, n: dict[str, Any]) -> Ty:
        if n["k"] == "CALL_EXPR" and n.get("tk") == "DEPENDENT":
            return self.method_type(n) or super().ty(n)
        hit = self.dependent_field(n) or self.dependent_static(n)
        if hit is None:
            return super().ty(n)
        field, env = hit
        saved, self.env = self.env, {**self.env, **env}
        try:
            return self.type_of(field["t"], field["tk"], n)
        finally:
            self.env = saved

    # --- expressions ---
    def expr(self, n: dict[str, Any]) -> str:
        k, c = n["k"], n["c"]
        if k == "CXX_THIS_EXPR":
            return self.this
        if k == "MEMBER_REF_EXPR" and n.get("toks"):  # `IsSameType<T, U>::value` in a class template's function
            return self.type_trait(n)
        if k == "MEMBER_REF_EXPR" and (member := self.union_member(n)) is not None:
            return member[0]
        if k == "MEMBER_REF_EXPR" and "v" not in n and (n.get("rk") == "FIELD_DECL" or self.dependent_field(n)):
            kids = [x for x in c if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
            base = self.expr(kids[0]) if kids else self.this
            return f"{base}.{n.get('rs', n['s'])}"
        if k == "MEMBER_REF_EXPR" and "v" not in n and n.get("rk") == "VAR_DECL" and self.cls is not None:
            return self.static_member(n)
        if k == "MEMBER_REF_EXPR" and "v" not in n and (static := self.dependent_static(n)) is not None:
            saved, self.env = self.env, {**self.env, **static[1]}  # (`this->VecLen_` of a dependent base: its value)
            try:
                return self.pyvalue(self.static_value(static[0], f"the static member {n['s']}", n))
            except CppError:  # (a value its initializer computes: `GetMaxExp<T>()`, a constexpr helper, run)
                init = [x for x in static[0]["c"] if x["k"] not in _TYPE_KIDS]
                if not init:
                    raise
                return self.convert(self.expr(init[-1]), self.infer(init[-1]), self.ty(static[0]))
            finally:
                self.env = saved
        if k == "DECL_REF_EXPR" and n.get("rk") == "VAR_DECL" and self.cls is not None and n.get("global") and "v" not in n:
            if n.get("rs", n["s"]) in self.cls["statics"]:
                return self.static_member(n)
        if k == "UNARY_OPERATOR" and n.get("op") in ("&", "*") and c and self.objof(c[0]) is not None:
            return self.expr(c[0])
        if k == "UNARY_OPERATOR" and n.get("op") == "&" and c and self.ty(c[0]).what == "obj":
            return self.expr(c[0])
        if k in ("CXX_NULL_PTR_LITERAL_EXPR", "GNU_NULL_EXPR"):
            return "None"
        if k == "INIT_LIST_EXPR" and (self.objof(n) or ("",))[0] in _FROZEN:  # an argument `{false, 0, 0, 0}`
            return self.new(self.objof(n), [self.expr(a) for a in c])  # type: ignore[arg-type]
        made = k == "CALL_EXPR" and (n.get("rk") == "CONSTRUCTOR" or not n["s"])
        if made and (self.objof(n) or ("",))[0] in _FROZEN:  # `DataCopyPadExtParams<T>{false, 0, 0, 0}` (a temporary)
            kids = [x for x in c if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
            if len(kids) == 1 and kids[0]["k"] == "INIT_LIST_EXPR":  # (braced in a template: clang keeps the list)
                kids = kids[0]["c"]
            return self.new(self.objof(n), [self.expr(a) for a in kids])  # type: ignore[arg-type]
        if k in ("CALL_EXPR", "UNEXPOSED_EXPR") and c and c[0].get("rs") in ("asc_vf_call", "VF_CALL"):
            return self.vf_call(n)
        if k == "CALL_EXPR" and c and getattr(self.mod.functions.get(self.callee_ref(n)[0]), "what", "") == "vf":
            name, targs, _ = self.callee_ref(n)  # a VF called directly from kernel code
            return self.run_vf(self.mod.functions[name], targs, c[1:])
        if k == "CALL_EXPR" and len(c) == 3 and self.numeric_limits(n, dt.float32) is not None:
            kind = self.tensor_kind(c[1])  # NumericLimits<T>::Infinity(dst, count): a Duplicate of the value
            name, elem = self.numeric_limits(n, kind[1] if kind is not None and kind[0] == "LocalTensor" else None) or ("", 0)
            code = numeric_limit(name, elem)
            if code is None:
                raise self.fail(n, f"NumericLimits<{getattr(elem, 'name', elem)}>::{name}")
            return f"K.Duplicate({self.expr(c[1])}, {code}, {self.expr(c[2])})"
        if k == "CALL_EXPR":
            code = self.kernel_call(n)
            if code is not None:
                return code
        if _is_launch(n):
            return self.launch(_strip_unexposed(c[0]), _strip_unexposed(c[1]), n)
        to = self.ty(n) if k in ("CSTYLE_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR") else None
        if to is not None and to.what == "ptr" and to.elem is not None and self.phy_addr(c[-1]):
            # `(__ubuf__ U*)t.GetPhyAddr()` of a tensor of a dependent type (clang leaves the address's type open)
            return f"{self.expr(c[-1])}.reinterpret(rs.{to.elem.name})"
        if k in ("UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR") and self.ty(n).what == "obj":
            kids = [x for x in c if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
            if kids:
                return self.expr(kids[-1])
        if k == "BINARY_OPERATOR" and n.get("op") in ("==", "!=") and "None" in (self.expr(c[0]), self.expr(c[1])):
            a, b = self.expr(c[0]), self.expr(c[1])
            return f"int({a} {'is' if n['op'] == '==' else 'is not'} {b})"
        return super().expr(n)

    def launch(self, config: dict[str, Any], call: dict[str, Any], n: dict[str, Any]) -> str:
        """`kernel<<<blockDim, l2ctrl, stream>>>(args)` (parse.py reads it as `__regsim_launch(blockDim, l2ctrl,
        stream), kernel(args)`): `rs.launch(mod.kernel("kernel"), blockDim, *args)`, with the host function's
        `tiling_key`."""
        fn = self.build.by_place.get(call.get("rloc", ""))
        if call["k"] != "CALL_EXPR" or fn is None or fn.what != "global":
            raise self.fail(n, "a <<<...>>> launch of anything but a __global__ kernel of this file")
        args = [self.expr(a) for a in [config["c"][1], *call["c"][1:]]]
        key = ", tiling_key=tiling_key" if self.fn is self.build.host else ""
        return f"_launch({fn.name!r}, {', '.join(args)}{key})"

    @staticmethod
    def phy_addr(n: dict[str, Any]) -> bool:
        """Whether `n` is a `GetPhyAddr()` call whose type clang left dependent."""
        return n["k"] == "CALL_EXPR" and n.get("tk") == "DEPENDENT" and bool(n["c"]) and n["c"][0].get("s") == "GetPhyAddr"

    def static_member(self, n: dict[str, Any]) -> str:
        assert self.cls is not None
        return self.pyvalue(self.static_value(self.cls["statics"].get(n.get("rs", n["s"])), f"the static member {n['s']}", n))

    def kernel_call(self, n: dict[str, Any]) -> str | None:
        """A call on the kernel side (a method, a constructor, a kernel-floor function), or None (a Reg call)."""
        c = n["c"]
        rk, rloc, name = n.get("rk", ""), n.get("rloc", ""), n.get("rs", n["s"])
        if name == "__regsim_tiling_key_is":
            return f"int(tiling_key == {self.expr(c[1])})"
        if name in _NO_OPS:
            return "None"
        if name == "__regsim_tiling" or (c and self.callee_node(n).get("rs") == "__regsim_tiling"):
            return self.tiling(n)
        if rk == "CONVERSION_FUNCTION" and name in ("operator float", "operator double"):  # (float)h of a half value
            held = [x for x in self.callee_node(n)["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
            return f"float({self.expr(held[0])})" if held else None
        if rk == "CXX_METHOD" and name == "operator[]":
            return f"{self.expr(c[0])}[{self.expr(c[-1])}]"
        ref: dict[str, Any] = c[0] if c else {"k": "", "c": []}
        while ref["k"] == "UNEXPOSED_EXPR" and ref["c"]:
            ref = ref["c"][0]
        dependent = ref["k"] == "MEMBER_REF_EXPR" and not ref.get("rk") and ref["s"]  # (`x.template Get<T>()` in a template)
        if ref["k"] == "MEMBER_REF_EXPR" and (ref.get("rk") in ("CXX_METHOD", "OVERLOADED_DECL_REF") or dependent):
            # a member function call (in a template, not resolved yet: by its name and the object's type)
            name, rloc = ref.get("rs", ref["s"]), ref.get("rloc", rloc)
            skip = ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF", "OVERLOADED_DECL_REF")
            kids = [x for x in ref["c"] if x["k"] not in skip]
            obj_node = kids[0] if kids else None
            kind = self.objof(obj_node) if obj_node is not None else ("user", (self.cls, self.env))
            if kind is None or (kind[0] == "user" and kind[1][0] is None):
                return None
            base = self.expr(obj_node) if obj_node is not None else self.this
            args = self.call_args(c[1:])
            if kind[0] != "user":
                targs = [self.targ(t) for t in ref["c"] if t["k"] == "TYPE_REF"]
                targs = targs or [self.dtype(a, ref) for a in ref.get("targs", [])]  # (`x.template F<float>()`)
                if name in _TENSOR_MAKERS:
                    tv = targs[0] if targs else self.dtype(n.get("t", "").split("<")[-1].rstrip("> "), n)
                    return f"{base}.{name}({', '.join([f'rs.{tv.name}', *args])})"
                if name in ("EnQue", "FreeTensor", "InitBuffer", "SetGlobalBuffer", "GetPhyAddr", "GetValue", "SetValue"):
                    return f"{base}.{name}({', '.join(args)})"
                if name in ("GetSize", "Destroy", "SetSize"):
                    return f"{base}.{name}({', '.join(args)})"
                if name == "Reset":
                    return "None"
                raise self.fail(n, f"the kernel method {name}")
            st, env = kind[1]
            assert st is not None
            py = self.build.method(
                st, env, str(name), str(rloc), len(args), n["l"], lambda fn: self.deduced(fn, c[1:], set()), self.in_vf
            )
            return f"{py}({', '.join([base, *args])})"
        callee = self.callee_node(n) if c else {"c": []}
        over = [x for x in callee["c"] if x["k"] == "OVERLOADED_DECL_REF"]
        if over and not rk:  # (a call in a template, resolved when instantiated)
            name, rk = over[0]["s"], "FUNCTION_DECL"
            defs = [f for f in self.mod.definitions.get(name, []) if f.defined]
            rloc = f"{defs[0].file}:{defs[0].line}" if defs else "regsim_decls.h:0"
        if rk == "FUNCTION_DECL" and _is_ours(rloc):
            targs = [t for t in callee["c"] if t["k"] not in ("NAMESPACE_REF", "OVERLOADED_DECL_REF", "TEMPLATE_REF")]
            if name in ENTRIES and self.on_tensors(name, c[1:]):
                return self.memory_call(n, name, targs, c[1:])
            if name in _FREE:
                args = [self.braced(name, i, a, c[1:]) for i, a in enumerate(c[1:])]
                if name == "DataCopyPad" and len(args) > 2:
                    args[2] = f"_ext_params({args[2]})"
                if name == "DataCopyPad" and len(args) > 3:
                    args[3] = f"_pad_params({args[0]}, {args[3]})"
                kw = ""
                if name == "PipeBarrier" and targs:
                    kw = f"pipe=K.PIPE.{targs[0]['s'].split('::')[-1]}"
                elif name in ("SetFlag", "WaitFlag") and targs:
                    kw = f"event=K.HardEvent.{targs[0]['s'].split('::')[-1]}"
                return f"K.{name}({', '.join([*args, *([kw] if kw else [])])})"
            if name == "GetUserWorkspace":
                return self.expr(c[1])
            if c[1:] and (self.tensor_kind(c[1]) or ("",))[0] == "LocalTensor":
                raise self.fail(n, f"the AscendC API {name} on LocalTensors (not one of regsim's memory-level APIs)")
            return None
        if rk == "FUNCTION_DECL" and rloc in self.build.by_place:
            fn = self.build.by_place[rloc]
            if fn.what == "plain" and fn.cls is not None and self.cls is not None and fn.cls == self.cls["place"]:
                # a member function called on `this` inside a class template (clang left the call unresolved)
                py = self.build.function(fn, dict(self.env), self.cls, self.in_vf)
                return f"{py}({', '.join([self.this, *self.call_args(c[1:])])})"
            if fn.what in ("plain", "global"):  # its own template arguments: given (`CompareVf<T, int8_t>`) or deduced
                py = self.build.function(fn, {**self.env, **self.template_args(fn, self.callee_ref(n)[1], c[1:])}, None)
                return f"{py}({', '.join(self.call_args(c[1:]))})"
        if c and c[0].get("rk") == "OVERLOADED_DECL_REF" and not self.in_vf:
            # (`RunTileLoop(*this, n, ub)` in a class template: a call of a free function template clang leaves
            # unresolved; the file's one free kernel-side function of that name taking that many arguments)
            fns = [
                f for f in self.mod.definitions.get(self.callee_ref(n)[0], [])
                if f.defined and f.cls is None and f.what == "plain" and len(f.params) == len(c) - 1
            ]  # fmt: skip
            if len(fns) == 1:
                py = self.build.function(fns[0], {**self.env, **self.template_args(fns[0], self.callee_ref(n)[1], c[1:])}, None)
                return f"{py}({', '.join(self.expr(a) for a in c[1:])})"
        return None

    def deduced(self, fn: Fn, args: list[dict[str, Any]], given: set[str]) -> dict[str, Any]:
        """The type template arguments deduced as in VF code (pointers, registers) and, in kernel code, `T` of a
        `LocalTensor<T>&` parameter from the tensor's element type."""
        out = super().deduced(fn, args, given)
        names = {p["name"] for p in fn.tparams if p["type"] and not p.get("outer")} - given - set(out)
        for p, a in zip(fn.params, args, strict=False):
            m = re.fullmatch(r"(?:const\s+)?LocalTensor<\s*(\w+)\s*>\s*&?", strip(p["t"]).strip())
            kind = self.tensor_kind(a) if m and m[1] in names else None
            if m and kind is not None and kind[0] == "LocalTensor" and kind[1] is not None:
                out[m[1]] = kind[1]
            whole = re.fullmatch(r"(?:const\s+)?(\w+)\s*[&*]?", strip(p["t"]).strip())  # (`KernelT& op`: a class)
            inner = a["c"][0] if a["k"] == "UNARY_OPERATOR" and a.get("op") in ("*", "&") and a["c"] else a  # (`*this`)
            kind = self.objof(inner) if whole and whole[1] in names - set(out) else None
            if whole and kind is not None and kind[0] == "user" and kind[1][0] is not None:
                st, env = kind[1]
                out[whole[1]] = ClassArg(st["place"], tuple(sorted(env.items())))
        return out

    def np_type(self, t: Ty, n: dict[str, Any]) -> str:
        """A union member's numpy type name (its bytes are the member's C type's)."""
        if t.what == "int":
            return f"{'i' if t.signed else 'u'}{t.bits // 8}"
        if t.what == "float" and t.rnd in ("_f32", "_f16", "_bf16"):
            return {"_f32": "float32", "_f16": "float16", "_bf16": "bfloat16"}[t.rnd]
        raise self.fail(n, f"the union member {n['s']} of type {n['t']}")

    def tensor_kind(self, a: dict[str, Any]) -> tuple[str, Any] | None:
        """An argument's object kind, also for `x[k]` in a template (its type dependent: x's)."""
        while a["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR", "ARRAY_SUBSCRIPT_EXPR") and a["c"] and self.objof(a) is None:
            a = a["c"][0]
        return self.objof(a)

    def braced(self, name: str, i: int, a: dict[str, Any], args: list[dict[str, Any]]) -> str:
        """Argument `i` of a DataCopy / DataCopyPad call; a braced list whose type clang left open (in a template) is
        the struct of its place: `{1, len, 0, 0, 0}` the copy parameters (four members: DataCopyParams), the fourth
        `{false, 0, 0, 0}` the padding of the destination's element type."""
        if a["k"] != "INIT_LIST_EXPR" or (self.objof(a) or ("",))[0] in _FROZEN:
            return self.expr(a)
        parts = [self.expr(x) for x in a["c"]]
        dst = self.tensor_kind(args[0]) if args else None
        if i == 3 and dst is not None:
            return self.new(("DataCopyPadExtParams", dst[1]), parts)
        if i == 2:
            return self.new(("DataCopyParams" if len(parts) == 4 else "DataCopyExtParams", None), parts)
        raise self.fail(a, f"the braced argument {i} of {name}")

    def on_tensors(self, name: str, args: list[dict[str, Any]]) -> bool:
        """Whether a call of a memory-level API's name is the memory-level API (its first argument a LocalTensor, or
        a host API of core state), not the Reg function of the same name."""
        kind = self.tensor_kind(args[0]) if args else None
        return (kind is not None and kind[0] == "LocalTensor") or name in HOST_APIS

    def memory_call(self, n: dict[str, Any], name: str, targs: list[dict[str, Any]], args: list[dict[str, Any]]) -> str:
        """A memory-level API (`AscendC::Add(dst, src0, src1, count)`, `Cast<half, float>(...)`): the table's entry
        of that name, given the arguments in C++ order; an element type template argument is the tensors' (the binder
        checks them) or, where the API takes one (`SetVectorMask<T>`), its dtype; a non-type template argument is the
        first template parameter (keyword) of its kind not given yet."""
        entry = ENTRIES[name]
        keywords = list(dict.fromkeys(p for i in entry.interfaces for p in i.keywords))
        dtype_param = any(p.kind is Kind.DTYPE for i in entry.interfaces for p in i.params)
        positional: list[str] = []
        given: dict[str, str] = {}
        for t in targs:
            v = self.targ(t)
            if dt.is_dtype(v):
                if dtype_param and not positional:
                    positional.append(self.pyvalue(v))
                continue
            kind = Kind.ENUM if isinstance(v, enum.Enum) else Kind.BOOL
            free = [p for p in keywords if p.name not in given and p.kind is kind]
            p = next((p for p in free if p.enum is None or isinstance(v, p.enum)), None)
            if p is None:
                shown = ", ".join(p.name for p in keywords) or "none"
                raise self.fail(n, f"the template argument {v!r} of {name} (its template parameters: {shown})")
            given[p.name] = self.pyvalue(v) if kind is Kind.ENUM else repr(bool(v))
        for a in args:
            code = self.expr(a)
            positional.append(f"bool({code})" if a.get("tk") == "BOOL" else code)
        return f"K.{name}({', '.join([*positional, *(f'{k}={v}' for k, v in given.items())])})"

    def vf_call(self, n: dict[str, Any]) -> str:
        """`asc_vf_call<F<targs>>(args...)` (or `VF_CALL`): the `__simd_vf__` function F run on the V pipe."""
        refs = (
            x for x in _walk(n["c"][0]) if x["k"] == "DECL_REF_EXPR" and x.get("rs", x["s"]) not in ("asc_vf_call", "VF_CALL")
        )
        ref = next(refs, None)  # (F: its template arguments are its children)
        fn = self.mod.functions.get(ref.get("rs", ref["s"])) if ref is not None else None
        if ref is None or fn is None or fn.what != "vf":
            raise self.fail(n, "asc_vf_call of something other than a __simd_vf__ function of the file")
        skip = ("NAMESPACE_REF", "TEMPLATE_REF", "OVERLOADED_DECL_REF")
        return self.run_vf(fn, [t for t in ref["c"] if t["k"] not in skip], n["c"][1:])

    def run_vf(self, fn: Fn, targs: list[dict[str, Any]], args: list[dict[str, Any]]) -> str:
        """A call of the `__simd_vf__` function `fn` from kernel code (through `asc_vf_call` or directly, as the 950
        allows): `fn` instantiated as `mod.instantiate` does for its explicit template arguments and those deduced
        from its arguments, its arguments checked against its C++ parameters when it runs."""
        vf = self.build.mod.instantiate(fn.name, **self.template_args(fn, targs, args))
        key = f"_vf_{fn.name}_{len(self.mod.globals)}"
        self.mod.globals[key] = vf
        return f"{key}({', '.join(self.expr(a) for a in args)})"

    def template_args(self, fn: Fn, targs: list[dict[str, Any]], args: list[dict[str, Any]]) -> dict[str, Any]:
        """The template arguments of a call of `fn`: those spelled (`targs`, in order), the rest deduced from `args`."""
        own = [p["name"] for p in fn.tparams if not p.get("outer")]
        given = dict(zip(own, [self.targ(t) for t in targs], strict=False))
        bound = {**given, **self.deduced(fn, args, set(given))}
        return {**bound, **self.defaults(fn, {**self.env, **bound}, set(bound))}

    def tiling(self, n: dict[str, Any]) -> str:
        obj, ptr = n["c"][-2], n["c"][-1]
        while obj["k"] == "UNEXPOSED_EXPR" and obj["c"]:
            obj = obj["c"][0]
        kind = self.objof(obj)
        if kind is None or kind[0] != "user":
            raise self.fail(
                n,
                f"GET_TILING_DATA into {obj.get('t')!r}: the tiling struct is not declared"
                " (load with -DREGSIM_TILING_DATA=<struct> and -include the header defining it)",
            )
        st = kind[1][0]
        key = f"_L_{st['name']}"
        self.mod.globals[key] = struct_layout(list(self.build.mod.structs.values()), st)
        return f"_tiling({self.expr(obj)}, {self.expr(ptr)}, {key})"

    # --- statements ---
    def stmt(self, n: dict[str, Any], d: int) -> None:
        k, c = n["k"], n["c"]
        self.at = n.get("l") or self.at
        if k == "CSTYLE_CAST_EXPR" and n.get("t") == "void":  # `(void)workspace;`: a value discarded
            return
        if k == "IF_STMT" and c and self.is_vec_scope(c[0]):
            self.vec_scope(c[1], d)
            return
        if k == "CALL_EXPR" and n["s"] == "operator=" and len(c) == 3 and self.ty(c[0]).what == "obj":
            target, _ = self.target(c[0])
            self.emit(d, f"{target} = {self.expr(c[2])}  # line {n['l']}")
            return
        if k == "UNEXPOSED_EXPR" and len(c) == 1 and c[0]["k"] == "CALL_EXPR":
            self.stmt(c[0], d)
            return
        if _is_launch(n):
            self.emit(d, f"{self.expr(n)}  # line {n['l']}")
            return
        if k == "UNEXPOSED_EXPR" and c and c[0].get("rs") in ("asc_vf_call", "VF_CALL"):  # (in a template)
            self.emit(d, f"{self.vf_call(n)}  # line {n['l']}")
            return
        if k == "DO_STMT":  # `do { ... } while (cond);` (the operator files' dispatch macros: `while (0)`)
            if any(x["k"] == "CONTINUE_STMT" for x in _walk(c[0])):
                raise self.fail(n, "continue in a do-while loop")
            self.emit_while(d, "True")
            self.block(c[0], d + 1)
            self.emit(d + 1, f"if not ({self.expr(c[1])}):  # line {n['l']}: the do-while's condition")
            self.emit(d + 2, "break")
            return
        if k == "BINARY_OPERATOR" and n.get("op") == "=" and self.frozen_member(c[0]) is not None:
            base, field = self.frozen_member(c[0])  # type: ignore[misc]
            self.emit(d, f"{base} = _evolve({base}, {field}={self.field_value(c[0], c[1])})  # line {n['l']}")
            return
        super().stmt(n, d)

    def field_value(self, target: dict[str, Any], value: dict[str, Any]) -> str:
        code = self.convert(self.expr(value), self.ty(value), self.ty(target))
        return f"bool({code})" if target.get("tk") == "BOOL" or target.get("t") == "bool" else code

    def frozen_member(self, n: dict[str, Any]) -> tuple[str, str] | None:
        if n["k"] != "MEMBER_REF_EXPR" or n.get("rk") != "FIELD_DECL":
            return None
        kids = [x for x in n["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
        if not kids:
            return None
        kind = self.objof(kids[0])
        if kind is None or kind[0] not in _FROZEN:
            return None
        return self.expr(kids[0]), n["rs"]

    @staticmethod
    def is_vec_scope(n: dict[str, Any]) -> bool:
        return any(x["k"] == "CALL_EXPR" and x.get("rs") == "__regsim_vec_scope" for x in _walk(n))

    def target(self, n: dict[str, Any]) -> tuple[str, Ty]:
        inner = n
        while inner["k"] == "UNEXPOSED_EXPR" and inner["c"]:
            inner = inner["c"][0]
        if inner["k"] == "MEMBER_REF_EXPR" and (inner.get("rk") == "FIELD_DECL" or self.dependent_field(inner)):
            return self.expr(inner), self.ty(inner)  # (`this->n_ = n;` in a class template: a dependent member)
        member = self.union_member(inner)
        if member is not None:
            return member
        return super().target(n)

    def union_member(self, n: dict[str, Any]) -> tuple[str, Ty] | None:
        """`conv.u` of a local union variable (clang leaves it dependent in a template): its code and type."""
        if n["k"] != "MEMBER_REF_EXPR" or not n["c"]:
            return None
        base = n["c"][0]
        while base["k"] == "UNEXPOSED_EXPR" and base["c"]:
            base = base["c"][0]
        members = self.unions.get(base["s"]) if base["k"] == "DECL_REF_EXPR" else None
        if members is None or n["s"] not in members:
            return None
        return f"{self.var(base['s'])}.{n['s']}", members[n["s"]]

    def vardecl(self, v: dict[str, Any], d: int) -> None:
        if v["k"] != "VAR_DECL":
            return super().vardecl(v, d)
        union = next((x for x in v["c"] if x["k"] == "UNION_DECL"), None)
        if union is not None and strip(v["t"]).startswith("union"):  # `union { uint32_t u; float f; } conv;`
            fields = [f for f in union["c"] if f["k"] == "FIELD_DECL"]
            self.unions[v["s"]] = {f["s"]: self.type_of(f["t"], f["tk"], f["l"]) for f in fields}
            members = {f["s"]: self.np_type(self.unions[v["s"]][f["s"]], f) for f in fields}
            self.emit(d, f"{self.var(v['s'])} = _Union({members!r})  # line {v['l']}")
            return None
        t = Ty("other") if _deduced(v) else self.ty(v)  # (`auto* p = ...`: the initializer's type, below or in the base's)
        init = v["c"][len(v["c"]) - v["ninit"] :] if "ninit" in v else []
        if t.what != "obj" and _deduced(v) and init and self.objof(init[0]) is not None:
            t = Ty("obj", elem=self.objof(init[0]))  # `auto x = q.AllocTensor<T>();`: the object its initializer makes
        if t.what != "obj":
            return super().vardecl(v, d)
        self.at = v.get("l") or self.at
        self.vartypes[v["s"]] = t
        init = v["c"][len(v["c"]) - v["ninit"] :] if "ninit" in v else []
        # (`Op<T> op(a, b);`: the constructor call's extent starts at the type, before the name the parse counts from)
        init = init or [x for x in v["c"] if x["k"] == "CALL_EXPR" and x.get("rk") == "CONSTRUCTOR"]
        target = self.var(v["s"])
        pointer = v["t"].rstrip().endswith(("*", "&"))
        if init and t.elem[0] == "user" and not pointer and self.dependent_construction(init[0]):
            # (`Op<schMode> op(&tiling);` in a template: clang leaves the constructor call unresolved, a paren list)
            st, env = t.elem[1]
            args = [x for x in init[0]["c"] if x["k"] not in _TYPE_KIDS]
            ctor = self.build.method(st, env, "", "", len(args), v["l"], lambda fn: {}, constructor=True)
            self.emit(d, f"{target} = {self.new(t.elem, [])}  # line {v['l']}")
            self.emit(d, f"{ctor}({', '.join([target, *(self.expr(a) for a in args)])})")
            return None
        # (`DataCopyPadExtParams<T> pad(true, 0, 0, v);` in a template: a parenthesized list until instantiation)
        dependent = bool(init) and t.elem[0] in _FROZEN and self.dependent_construction(init[0])
        if init and (dependent or (init[0]["k"] == "CALL_EXPR" and init[0].get("rk") == "CONSTRUCTOR")) and not pointer:
            ctor = init[0]
            args = [self.expr(a) for a in ctor["c"]]
            kind = t.elem
            if kind[0] == "user":
                self.emit(d, f"{target} = {self.new(kind, [])}  # line {v['l']}")
                fn = self.build.by_place.get(ctor.get("rloc", ""))
                if fn is not None:
                    st, env = kind[1]
                    py = self.build.function(fn, {**self.env, **env}, st)
                    self.emit(d, f"{py}({', '.join([target, *args])})")
                return None
            if len(ctor["c"]) == 1 and self.ty(ctor["c"][0]).what == "obj":  # a copy
                self.emit(d, f"{target} = {args[0]}  # line {v['l']}")
                return None
            self.emit(d, f"{target} = {self.new(kind, args)}  # line {v['l']}")
            return None
        if init and init[0]["k"] == "INIT_LIST_EXPR" and t.elem[0] in _FROZEN:
            args = [self.expr(a) for a in init[0]["c"]]
            self.emit(d, f"{target} = {self.new(t.elem, args)}  # line {v['l']}")
            return None
        if init:
            self.emit(d, f"{target} = {self.expr(init[0])}  # line {v['l']}")
            return None
        self.emit(d, f"{target} = {'None' if pointer else self.new(t.elem, [])}  # line {v['l']}")
        return None

    @staticmethod
    def dependent_construction(n: dict[str, Any]) -> bool:
        """Whether a variable's initializer is a constructor call clang left unresolved in a template (a parenthesized
        argument list without a type: `Op<schMode> op(&tiling);`)."""
        return n["k"] == "UNEXPOSED_EXPR" and n.get("tk") in ("INVALID", "DEPENDENT") and bool(n["c"])

    # --- __VEC_SCOPE__ ---
    def vec_scope(self, block: dict[str, Any], d: int) -> None:
        """A `__VEC_SCOPE__` block: a VF of its own, given the enclosing variables it reads and the object."""
        declared = {x["s"] for x in _walk(block) if x["k"] == "VAR_DECL"}
        reads: dict[str, dict[str, Any]] = {}
        uses_this = False
        for x in _walk(block):
            if x["k"] == "DECL_REF_EXPR" and x.get("rk") in ("VAR_DECL", "PARM_DECL") and not x.get("global"):
                name = x.get("rs", x["s"])
                if name not in declared and name not in reads:
                    reads[name] = x
            if x["k"] == "CXX_THIS_EXPR" or (x["k"] == "MEMBER_REF_EXPR" and x.get("rk") in ("FIELD_DECL", "CXX_METHOD")):
                uses_this = True
        written = self.assigned(block) & set(reads)
        if written:
            raise self.fail(block, f"the __VEC_SCOPE__ block assigns {sorted(written)[0]}, a variable of the enclosing function")
        self.scopes += 1
        name = f"{self.fn.name}__vec_scope_{block['l']}"
        params = [{"name": "this", "t": "", "tk": "", "l": block["l"]}] if uses_this and self.cls is not None else []
        for r, x in reads.items():
            t = x.get("t", "")
            params.append({"name": r, "t": t, "tk": x.get("tk", ""), "l": x["l"]})
        fn = Fn(
            {
                "name": name,
                "what": "vf",
                "line": block["l"],
                "end": block["l"],
                "tparams": [],
                "params": params,
                "ret": "void",
                "template": False,
                "spec": None,
                "body": block,
                "file": self.fn.file,
                "ns": self.fn.ns,  # (the enclosing function's namespace: unresolved calls in the block are looked up from it)
                "cls": self.fn.cls,
            }
        )
        pyname = f"vf_{self.pyname}_{self.scopes}"
        low = ScopeLowerer(self.build, fn, dict(self.env), pyname, self.cls)
        low.constants, low.vartypes = dict(self.constants), dict(self.vartypes)  # (the enclosing constants and autos)
        lines = low.lower()
        self.build.extra.append((lines, low.where, {pyname: name}))
        self.build.vfs.append(pyname)
        self.callees += low.callees
        args = [self.this if p["name"] == "this" else self.read(p["name"]) for p in params]
        self.emit(d, f"{pyname}({', '.join(args)})  # line {block['l']}: __VEC_SCOPE__")

    # --- the function ---
    def lower(self) -> list[str]:
        fn = self.fn
        if fn.errors:
            raise CppError(f"{fn.file or self.mod.path}:{fn.line}: {fn.name} does not parse:\n" + "\n".join(fn.errors))
        self.scope_aliases()
        if self.cls is not None:  # (a member defined outside its class: the class's aliases, `using CT = ...;`)
            self.scope_aliases(self.cls["place"])
        self.find_refvars()
        names = self.py_params(fn)
        if fn.what == "global" or fn is self.build.host:  # (its arguments as given: numpy arrays for GM pointers)
            cparams = [p["name"] for p in fn.params]
            self.emit(0, f"def {self.pyname}({', '.join(cparams)}, *, tiling_key=0):  # {fn.name}, line {fn.line}")
            for p in fn.params:
                self.emit(1, f"{self.var(p['name'])} = {p['name']}")
        else:
            head = ["self"] if self.cls is not None and not fn.static else []
            self.emit(0, f"def {self.pyname}({', '.join([*head, *names])}):  # {fn.name}, line {fn.line}")
        for p in fn.params:
            if fn is self.build.host and p["tk"] == "POINTER":
                continue  # (a host pointer, `void* stream` too: the numpy array or None given)
            t = self.type_of(p["t"], p["tk"], p)
            if t.what == "int":
                self.emit(1, f"{self.var(p['name'])} = {t.wrap}({self.var(p['name'])})")
            if p["name"] in self.refvars:
                self.emit(1, f"{self.var(p['name'])} = Ref({self.var(p['name'])})")
        self.member_inits(fn)
        start = len(self.lines)
        self.stmt(fn.body, 1)
        if len(self.lines) == start:
            self.emit(1, "pass")
        return self.lines

    def member_inits(self, fn: Fn) -> None:
        """A constructor's member initializers, before its body: a reference or pointer member the object given, a
        scalar member its value converted to the member's type."""
        fields = {f["name"]: f for f in (self.cls or {}).get("fields", [])}
        for init in fn.inits:
            f, value = fields.get(init["member"]), init["c"][0]
            if f is None:
                raise self.fail(init["l"], f"the initializer of {init['member']} (not a member variable regsim found)")
            self.at = init["l"]
            code = self.expr(value)
            t = self.type_of(f["t"], f["tk"], f["l"])
            if t.what in ("int", "float"):
                code = self.convert(code, self.ty(value), t)
            self.emit(1, f"self.{init['member']} = {code}  # line {init['l']}")


class ScopeLowerer(KernelLowerer):
    """A `__VEC_SCOPE__` block lowered as a `__simd_vf__` function (the Reg calls of the base lowering, the
    kernel side's member reads)."""

    def __init__(self, build: KernelBuild, fn: Fn, env: dict[str, Any], pyname: str, cls: dict[str, Any] | None) -> None:
        super().__init__(build, fn, env, pyname, cls)
        self.this, self.in_vf = "v_this", True

    def lower(self) -> list[str]:
        return Lowerer.lower(self)

    def vec_scope(self, block: dict[str, Any], d: int) -> None:
        self.stmt(block, d)  # (a scope inside a scope is the same VF)

    def kernel_call(self, n: dict[str, Any]) -> str | None:
        """In a VF, `DataCopy` is the Reg layer's (LoadAlign / StoreAlign) and a free `__aicore__` helper runs in the
        VF as a `__simd_callee__` does (the base lowering's); the rest as on the kernel side."""
        name = self.callee_ref(n)[0] if n["c"] else n.get("rs", n["s"])
        helper = self.mod.functions.get(name)
        if name == "DataCopy" or (helper is not None and helper.what == "plain" and helper.cls is None):
            return None
        return super().kernel_call(n)


class VfMethodLowerer(ScopeLowerer):
    """A member function a `__VEC_SCOPE__` block calls: the object first, its body as VF code."""

    def __init__(self, build: KernelBuild, fn: Fn, env: dict[str, Any], pyname: str, cls: dict[str, Any] | None) -> None:
        super().__init__(build, fn, env, pyname, cls)
        self.this = "self"

    def lower(self) -> list[str]:
        return KernelLowerer.lower(self)


class _Union:
    """A C union of kernel code (`union { uint32_t u; float f; } conv;`): its members share one set of bytes, a member
    written as its type's bytes (the value converted as C converts it) and read back as its own type's."""

    def __init__(self, members: dict[str, str]) -> None:
        types = {k: np.dtype(ml_dtypes.bfloat16) if v == "bfloat16" else np.dtype(v) for k, v in members.items()}
        object.__setattr__(self, "_types", types)
        object.__setattr__(self, "_bytes", bytearray(max(t.itemsize for t in types.values())))

    def __setattr__(self, name: str, value: Any) -> None:
        t = self._types[name]
        self._bytes[: t.itemsize] = np.array(value).astype(t).tobytes()

    def __getattr__(self, name: str) -> Any:
        t = object.__getattribute__(self, "_types")[name]
        return np.frombuffer(bytes(self._bytes[: t.itemsize]), t)[0].item()


def _ext_params(p: Any) -> Any:
    """DataCopyPad's copy parameters: a `DataCopyParams` (the vendor headers' older overload, which kernels still
    call; `blockLen` in bytes and the strides as in `DataCopyExtParams`) as the `DataCopyExtParams` the pages give."""
    if isinstance(p, datacopy.DataCopyParams):
        return datacopy.DataCopyExtParams(p.blockCount, p.blockLen, p.srcStride, p.dstStride, 0)
    return p


def _pad_params(dst: Any, p: Any) -> Any:
    """DataCopyPad's padding: a `DataCopyPadParams` as the destination's `DataCopyPadExtParams`."""
    if isinstance(p, DataCopyPadParams):
        return datacopy.DataCopyPadExtParams(dst.dtype, bool(p.isPad), p.leftPadding, p.rightPadding, p.paddingValue)
    return p


def kernel_namespace() -> dict[str, Any]:
    """The names the kernel side's generated code adds to the module's runtime names."""

    def new(cname: str, **fields: Any) -> _Obj:
        o = _Obj(cname)
        vars(o).update(fields)
        return o

    return {
        "K": K,
        "_new": new,
        "_evolve": attrs.evolve,
        "_tiling": _tiling,
        "_Union": _Union,
        "_ext_params": _ext_params,
        "_pad_params": _pad_params,
        "_make_kernel": make_kernel,
        "dt": dt,
    }
