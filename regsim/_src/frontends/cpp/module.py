"""Run unmodified Ascend C VF source on regsim: a parsed C++ file (`CppModule`), its `__simd_vf__` functions
instantiated for their template arguments (`VfFunction`), and `regsim run`'s arguments.

    mod = rs.cpp.load("kernel.asc")               # parse once (in a child process)
    add = mod.instantiate("AddVF", T=rs.uint32)   # or mod["AddVF"][rs.uint32]; lowered once, cached
    add(dst0, dst1, src0, src1, count, repeat, size)   # UbPtrs and scalars, run as asc_vf_call

`load` parses a file in a child process (parse.py, given the declarations of declarations.py); an
instantiation is lowered to Python (lowering.py), compiled once and its loops rewritten to run batched as a
hand port's are. A call is checked against the C++ parameters before it runs, and a regsim error raised
while the VF runs names the C++ file and line it came from (the generated Python stays out of sight).
Needs the `libclang` wheel (`pip install regsim[cpp]`); anything else is a `regsim.errors.CppError`
naming the construct and its source line.
"""

from __future__ import annotations

import enum
import inspect
import json
import linecache
import numbers
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import Any

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.frontends.cpp import cache
from regsim._src.frontends.cpp import parse as cpp_parse
from regsim._src.frontends.cpp.declarations import CTYPES, SHIM_HEADERS
from regsim._src.frontends.cpp.kernel_decls import header
from regsim._src.frontends.cpp.kernels import KernelBuild, kernel_namespace, struct_layout
from regsim._src.frontends.cpp.lowering import (
    INT_DTYPES,
    Call,
    CppError,
    Fn,
    Lowerer,
    Ty,
    accepts,
    cxx,
    dtype_of,
    runtime_names,
    strip,
)
from regsim._src.kernel.launch import Kernel, launch
from regsim._src.kernel.launch import kernel as make_kernel
from regsim._src.model import dtypes as dt
from regsim._src.model import enums
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.ops import namespace as Reg
from regsim._src.vf.loops import explain as explain_loops
from regsim._src.vf.runtime import rewrite_now, simd_callee, simd_vf
from regsim.errors import DTypeError, ParameterError, RegsimError, message

__all__ = ["CppError", "CppModule", "VfFunction", "load", "make_arguments", "parse_template_args", "run_cli"]


class _Origin:
    """Where one instantiation's generated Python came from: its C++ file, the C++ line of each
    generated line, and the C++ name of each generated function (`vf_AddVF_0` → `AddVF<float>`)."""

    def __init__(self, path: str, lines: list[int], names: dict[str, str]) -> None:
        self.path, self.lines, self.names = path, lines, names


#: the generated Python of every instantiation, by the file name it was compiled under
_ORIGINS: dict[str, _Origin] = {}


def _cxx_frames(tb: TracebackType | None) -> list[tuple[str, int, str]]:
    """(file, line, function) in the C++ source of each frame of generated code in `tb`, outermost first."""
    out = []
    while tb is not None:
        code = tb.tb_frame.f_code
        origin = _ORIGINS.get(code.co_filename)
        if origin is not None:
            line = origin.lines[tb.tb_lineno - 1] if 0 < tb.tb_lineno <= len(origin.lines) else 0
            out.append((origin.path, line, origin.names.get(code.co_name, code.co_name)))
        tb = tb.tb_next
    return out


def _in_cxx(text: str) -> str:
    """`text` (an `rs.explain` line, a message naming a loop) with each place in generated code given as
    its C++ file and line."""

    def place(m: re.Match[str]) -> str:
        origin = _ORIGINS.get(m[1])
        if origin is None:
            return m[0]
        return f"{origin.path}:{origin.lines[int(m[2]) - 1]} (in {origin.names.get(m[3], m[3])})"

    return re.sub(r"(<regsim-cpp [^>]+>):(\d+) \(in (\w+)\)", place, text)


def _located(error: BaseException, fallback: str) -> RegsimError:
    """`error`, raised while a C++ VF ran, with the C++ file and line it came from in front of its
    message (its class kept); Python's RecursionError becomes a CppError at the recursive call."""
    frames = _cxx_frames(error.__traceback__)
    if not frames:
        where = fallback
    else:
        path, line, fn = frames[-1]
        callers = ", ".join([f"line {ln} in {f}" for _, ln, f in reversed(frames[:-1])][:3])
        where = f"{path}:{line} (in {fn}{', called from ' + callers if callers else ''})"
        if isinstance(error, RecursionError) and len({f for _, _, f in frames}) < len(frames):  # the C++ recurses
            return CppError(
                f"{path}:{line} (in {fn}): the calls nest {len(frames)} deep, past Python's recursion limit"
                f" ({sys.getrecursionlimit()}): an unbounded recursion? (regsim runs a __simd_callee__ call as a Python call)"
            )
    if not isinstance(error, RegsimError):  # (a RecursionError of regsim's own, not of the kernel's calls)
        raise error
    error.args = (f"{where}: {_in_cxx(str(error.args[0])) if error.args else ''}", *error.args[1:])
    return error


class _Param:
    """One parameter of a VF instantiation, as a Python caller must fill it."""

    def __init__(self, name: str, ty: Ty, decl: str) -> None:
        self.name, self.ty, self.decl = name, ty, decl

    def check(self, api: str, value: Any) -> None:
        """Check one argument before the VF runs: a ParameterError for a pointer given a scalar (or a scalar
        a pointer, an enum a non-member), a DTypeError for a pointer of another element type."""
        refused = self.refusal(value)
        if refused is not None:
            cls, accepted = refused
            raise cls(message(api, self.name, _shown(value), accepted))

    def refusal(self, value: Any) -> tuple[type[RegsimError], str] | None:
        """Why `value` cannot be this parameter's argument (the error class and what is accepted), or None."""
        t = self.ty
        if t.what == "ptr":
            if isinstance(value, UbPtr) and (t.elem is None or value.dtype is t.elem):  # (a `void*` takes any element type)
                return None
            want = f"a UbPtr[{t.elem.name if t.elem is not None else 'any dtype'}] for `{self.decl}`"
            if isinstance(value, UbPtr):
                return DTypeError, f"{want}; p.reinterpret(rs.{t.elem.name}) views the same bytes as {t.elem.name}"
            tensor = isinstance(value, LocalTensor)
            return ParameterError, want + (" (pass the tensor's .GetPhyAddr())" if tensor else " (a LocalTensor's .GetPhyAddr())")
        if t.what in ("int", "float") and self.decl.replace(" ", "").rpartition("&")[1]:  # `uint32_t& n`: C++ changes it
            if isinstance(value, Ref):
                return None
            return ParameterError, f"an rs.Ref(...) for the reference `{self.decl}` (the VF updates it in place)"
        if t.what in ("int", "float") and not isinstance(value, int):  # (an int is any scalar's argument)
            if not isinstance(value, (numbers.Real, np.bool_)):
                hint = " (pass its .value)" if isinstance(value, Ref) else ""
                return ParameterError, f"a number for the scalar `{self.decl}`{hint}"
            if t.what == "int" and not np.isfinite(float(value)):
                return ParameterError, f"a finite number for `{self.decl}`"
        if t.what == "enum" and not isinstance(value, t.elem):
            return ParameterError, f"a member of {t.elem.__name__} for `{self.decl}`"
        return None


def _shown(value: Any) -> str:
    """An argument as a message shows it: its repr, or its type for a long one."""
    text = repr(value)
    return text if len(text) <= 60 else f"a {type(value).__name__}"


class VfFunction:
    """One `__simd_vf__` function instantiated for its template arguments: call it with UbPtrs
    and scalars as `asc_vf_call` would (arguments by value, checked against the C++ parameters;
    a regsim error raised while it runs names the C++ file and line)."""

    def __init__(self, mod: CppModule, fn: Fn, display: str, params: list[_Param], source: str, run: Callable[..., None]) -> None:
        self.name, self.display, self.source, self.params = fn.name, display, source, params
        self._api = f"{mod.path}:{fn.line}: {display}"
        self._names, self._decls = [p.name for p in params], ", ".join(p.decl for p in params) or "none"
        self._where = f"{mod.path}:{fn.line} (in {display})"  #: an error raised outside its statements (as it returns)
        body = run.__regsim_vf_body__  # type: ignore[attr-defined]

        def vf(*args: Any, **kwargs: Any) -> None:
            self._run(run, args, kwargs)

        def checked_body(*args: Any, **kwargs: Any) -> None:  # what rs.asc_vf_call(fn.vf, ...) runs
            self._run(body, args, kwargs)

        vf.__name__ = vf.__qualname__ = fn.name
        vf.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(p.name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for p in params]
        )
        vf.__regsim_vf_body__ = checked_body  # type: ignore[attr-defined]
        self._vf = vf

    def _run(self, f: Callable[..., None], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        values = self.bind(args, kwargs)
        try:
            f(*values)
        except (RegsimError, RecursionError) as e:
            raise _located(e, self._where).with_traceback(None) from None

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[Any]:
        """The arguments in the C++ order (keywords by C++ parameter name), each checked against its
        parameter: a ParameterError or DTypeError naming it, before the VF runs."""
        names, decls = self._names, self._decls
        unknown = next((k for k in kwargs if k not in names[len(args) :]), None) if kwargs else None
        if unknown is not None:
            what = "given twice" if unknown in names else "no such parameter"
            raise ParameterError(message(self._api, unknown, f"{_shown(kwargs[unknown])} ({what})", f"the parameters {decls}"))
        if len(args) > len(names):
            raise ParameterError(message(self._api, "arguments", f"{len(args)} given", f"{len(names)}: {decls}"))
        values = [*args, *(kwargs.get(n, _MISSING) for n in names[len(args) :])] if kwargs or len(args) < len(names) else args
        for p, v in zip(self.params, values, strict=True):
            if v is _MISSING:
                raise ParameterError(message(self._api, p.name, "missing", f"an argument for each parameter: {decls}"))
            p.check(self._api, v)
        return list(values)

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self._vf(*args, **kwargs)

    @property
    def vf(self) -> Callable[..., None]:
        """The VF as a `@rs.simd_vf` function (for `rs.asc_vf_call`, `rs.trace`, `rs.explain`, ...)."""
        return self._vf

    def __repr__(self) -> str:
        return f"<C++ VF {self.display}>"


_MISSING = object()


class _Template:
    def __init__(self, mod: CppModule, name: str) -> None:
        self.mod, self.name = mod, name

    def __getitem__(self, targs: Any) -> VfFunction:
        return self.mod.instantiate(self.name, *(targs if isinstance(targs, tuple) else (targs,)))

    def __call__(self, *args: Any, **kwargs: Any) -> None:
        self.mod.instantiate(self.name)(*args, **kwargs)


class _NoSuchVfError(CppError, AttributeError):
    """No `__simd_vf__` function of that name (an AttributeError too: `hasattr(mod, name)` is False)."""


def _matches(spec: list[dict[str, Any]], vals: list[Any]) -> bool:
    """Whether an explicit specialization's template arguments are `vals` (dtypes, ints, enum members)."""
    if len(spec) != len(vals):
        return False
    for s, v in zip(spec, vals, strict=True):
        if "type" in s:
            if v is None or dtype_of(s["type"]) is not v:
                return False
        elif not (
            "value" in s and isinstance(v, (int, enum.Enum)) and int(v.value if isinstance(v, enum.Enum) else v) == s["value"]
        ):
            return False
    return True


class CppModule:
    """A parsed C++ source: its `__simd_vf__` functions, instantiated on demand (and cached)."""

    def __init__(
        self, path: str, functions: list[Fn], consts: dict[str, Any] | None = None, structs: list[dict[str, Any]] | None = None
    ) -> None:
        self.path = path
        #: the classes and structs of the file and its headers, by the place of their definition (`file:line`)
        self.structs: dict[str, dict[str, Any]] = {s["place"]: s for s in structs or ()}
        self.consts: dict[str, Any] = consts or {}  #: the file's global constants (AST nodes)
        #: every definition of each name, in file order: overloads, explicit specializations, a primary
        #: template declared without a body
        self.definitions: dict[str, list[Fn]] = {}
        for f in functions:
            self.definitions.setdefault(f.name, []).append(f)
        #: each name's primary: its template (or only function), the first defined one
        self.functions = {n: next((f for f in fs if f.spec is None and f.defined), fs[0]) for n, fs in self.definitions.items()}
        self._cache: dict[Any, VfFunction] = {}
        self._kernels: dict[str, Kernel[Any]] = {}
        self._hosts: dict[str, Callable[..., None]] = {}

        #: the type aliases of the file's namespaces and classes (AST nodes, each with its scope's lines)
        self.aliases: list[dict[str, Any]] = []
        self.globals: dict[str, Any] = runtime_names()
        self._callees: dict[Any, str] = {}
        #: parse errors outside the device functions (host code, missing host headers): ignored
        self.host_diagnostics: list[str] = []

    @property
    def vf_names(self) -> list[str]:
        return [n for n, f in self.functions.items() if f.what == "vf"]

    def __getitem__(self, name: str) -> _Template:
        fn = self.functions.get(name)
        if fn is None or fn.what != "vf":
            what = f" ({name} is a __simd_callee__ helper: call it from a VF)" if fn is not None and fn.what == "callee" else ""
            hint = f"; parse errors outside device code: {self.host_diagnostics[:3]}" if self.host_diagnostics else ""
            raise _NoSuchVfError(
                f"{self.path}: no __simd_vf__ function {name!r}{what};"
                f" the file defines: {', '.join(self.vf_names) or 'none'}{hint}"
            )
        overloads = [f for f in self.definitions[name] if f.spec is None and f.defined]
        if len(overloads) > 1:
            lines = ", ".join(str(f.line) for f in overloads)
            raise CppError(
                f"{self.path}: {name} is defined {len(overloads)} times (lines {lines}): regsim picks a VF by its name,"
                " as asc_vf_call<F> needs one function; give each overload a name of its own"
            )
        return _Template(self, name)

    def __getattr__(self, name: str) -> _Template:
        if name.startswith("_") or "functions" not in self.__dict__:
            raise AttributeError(name)
        return self[name]

    def callee(self, name: str, tvals: list[Any], resolved: int, line: int, call: Call | None = None) -> Fn:
        """The definition a call of the helper `name` runs: the one clang resolved it to (`resolved`, its
        line in this file, or `call.at` anywhere), else the explicit specialization for `tvals`, else the only
        other definition (of several, the one C++ finds: see _overload)."""
        defs = [f for f in self.definitions[name] if f.defined]
        hit = next((f for f in defs if f.line == resolved and f.file in ("", os.path.abspath(self.path))), None)
        hit = hit or next((f for f in defs if call is not None and call.at == f"{f.file}:{f.line}"), None)
        hit = hit or next((f for f in defs if f.spec is not None and _matches(f.spec, tvals)), None)
        if hit is not None:
            return hit
        plain = [f for f in defs if f.spec is None]
        plain = _overload(plain, call) if len(plain) > 1 and call is not None else plain
        where = f"{self.path}:{line}: the call of {name}"
        if len(plain) > 1:
            lines = ", ".join(str(f.line) for f in plain)
            raise CppError(
                f"{where}, which has {len(plain)} overloads (lines {lines}) clang did not resolve here and neither the"
                " namespace, the argument count nor the arguments' types tell apart: rename them"
            )
        own = [p for p in self.functions[name].tparams if not p.get("outer")]
        if any(f.spec is not None for f in defs) and len(tvals) < len(own):
            raise CppError(
                f"{where} with deduced template arguments: {name} has explicit specializations;"
                f" spell its template arguments ({name}<{', '.join(p['name'] for p in own)}>(...))"
                " so regsim picks the one that runs"
            )
        if not plain:
            raise CppError(f"{where}<{', '.join(cxx(v) for v in tvals)}>: no definition (only its specializations are defined)")
        return plain[0]

    def callee_name(self, fn: Fn, env: dict[str, Any]) -> str:
        key = (fn.name, fn.line, tuple(sorted((k, repr(v)) for k, v in env.items())))
        if key not in self._callees:
            self._callees[key] = f"c_{fn.name}_{len(self._callees)}"
        return self._callees[key]

    def _lower_callees(
        self, todo: list[tuple[str, Fn, dict[str, Any]]], lines: list[str], where: list[int], names: dict[str, str]
    ) -> list[str]:
        """Lower the `__simd_callee__` helpers `todo` names and those they call (each once), appending their
        Python to `lines`; their Python names."""
        done: list[str] = []
        while todo:
            cname, cfn, env = todo.pop()
            if cname in done or cname in self.globals:
                continue
            done.append(cname)
            low = Lowerer(self, cfn, env, cname)
            lines += ["", *low.lower()]
            where += [cfn.line, *low.where]
            names[cname] = cfn.name
            todo += low.callees
        return done

    def _run_source(self, source: str, filename: str, where: list[int], names: dict[str, str]) -> None:
        """Run generated Python in the file's namespace, each of its lines known by its C++ line (errors, tracebacks)."""
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        _ORIGINS[filename] = _Origin(self.path, where, names)
        exec(compile(source, filename, "exec"), self.globals)

    @property
    def kernel_names(self) -> list[str]:
        """The file's `__global__` kernel entries."""
        return [n for n, f in self.functions.items() if f.what == "global"]

    def kernel(self, name: str, /, *positional: Any, **targs: Any) -> Kernel[Any]:
        """The `__global__ __aicore__` entry `name` as an `rs.kernel` (lowered once, with the classes, functions and
        `__VEC_SCOPE__` blocks it reaches): launch it with `rs.launch(k, block_dim, *args, tiling_key=...)` or
        `k[block_dim](*args)`, the `<<<block_dim, ...>>>` of C++. An entry template (`template <uint64_t schMode,
        uint64_t dType> __global__ ...`, instantiated by the operator build per tiling key) takes its template
        arguments in the C++ order or by name, as `instantiate` does: `mod.kernel("elu_grad", schMode=0, dType=1)`."""
        fn = self.functions.get(name)
        if fn is None or fn.what != "global":
            raise CppError(
                f"{self.path}: no __global__ kernel {name!r}; the file defines: {', '.join(self.kernel_names) or 'none'}"
            )
        targs = self.named_template_arguments(fn, positional, targs)
        display = f"{name}<{', '.join(cxx(targs[p['name']]) for p in fn.tparams)}>" if targs else name
        if display in self._kernels:
            return self._kernels[display]
        f_entry, source = self._entry(fn, "kernel", targs, display)
        k = make_kernel(f_entry)
        k.source = source  # type: ignore[attr-defined]
        self._kernels[display] = k
        return k

    def host(self, name: str) -> Callable[..., None]:
        """The host function `name` (plain C++ launching this file's kernels as `kernel<<<blockDim, l2ctrl,
        stream>>>(args...)`) as a Python function taking its C++ arguments (numpy arrays for GM pointers, None for
        `nullptr` and the stream) and `tiling_key=`: each launch runs `rs.launch(mod.kernel(kernel), blockDim,
        *args, tiling_key=tiling_key)`. Lowered once, as the kernels' code is (host-only calls are refused)."""
        if name in self._hosts:
            return self._hosts[name]
        fn = self.functions.get(name)
        if fn is None or fn.what != "plain" or not fn.defined:
            plain = [n for n, f in self.functions.items() if f.what == "plain" and f.defined]
            raise CppError(f"{self.path}: no host function {name!r}; the file defines: {', '.join(plain) or 'none'}")
        self.globals["_launch"] = lambda kernel, block_dim, *args, **kw: launch(self.kernel(kernel), block_dim, *args, **kw)
        f_host, _ = self._entry(fn, "host", {}, name)
        self._hosts[name] = f_host
        return f_host

    def _entry(self, fn: Fn, what: str, targs: dict[str, Any], display: str) -> tuple[Callable[..., None], str]:
        """Lower `fn` (a kernel entry, instantiated with `targs`, or a host function) and everything it reaches,
        once: its Python function (named `display`, as in C++) and the generated source."""
        build = KernelBuild(self, re.sub(r"\W", "_", display))
        if what == "host":
            build.host = fn
        entry = build.function(self.definition(fn, targs), targs, None)
        lines: list[str] = []
        where: list[int] = []
        names: dict[str, str] = {}
        callees: list[tuple[str, Fn, dict[str, Any]]] = []
        while build.todo:
            py, f, env, cls, in_vf = build.todo.pop()
            low = build.lowerer(py, f, env, cls, in_vf)
            lines += ["", *low.lower()]
            where += [f.line, *low.where]
            names[py] = f"{cls['name']}::{f.name}" if cls else f.name
            callees += low.callees
        for vf_lines, vf_where, vf_names in build.extra:
            lines += ["", *vf_lines]
            where += [vf_where[0] if vf_where else 0, *vf_where]
            names |= vf_names
        done = self._lower_callees(callees, lines, where, names)
        source = "\n".join(lines) + "\n"
        ns = self.globals
        ns.update(kernel_namespace())
        self._run_source(source, f"<regsim-cpp {os.path.basename(self.path)} {what} {fn.name}>", where, names)
        for cname in done:
            ns[cname] = simd_callee(ns[cname])
            rewrite_now(ns[cname])
        for py in build.vfs:
            ns[py] = simd_vf(ns[py])
            rewrite_now(ns[py])
        f_entry: Callable[..., None] = ns[entry]
        f_entry.__name__ = f_entry.__qualname__ = display
        return f_entry, source

    def struct_dtype(self, name: str) -> np.dtype[Any]:
        """The numpy dtype of the struct `name` with its C++ layout (to build a tiling struct's GM bytes)."""
        st = next((s for s in self.structs.values() if s["name"] == name), None)
        if st is None:
            raise CppError(f"{self.path}: no struct {name!r} (the tiling header given with -include defines it?)")
        layout = struct_layout(list(self.structs.values()), st)
        return np.dtype(
            {
                "names": [n for n, _, _, _ in layout],
                "formats": [(np.dtype(d), (k,)) if k >= 0 else np.dtype(d) for _, _, d, k in layout],
                "offsets": [o for _, o, _, _ in layout],
                "itemsize": st["size"],
            }
        )

    def named_template_arguments(self, fn: Fn, positional: tuple[Any, ...], targs: dict[str, Any]) -> dict[str, Any]:
        """The template arguments of `fn` by name: `positional` in the C++ order, then `targs` by name, checked."""
        if len(positional) > len(fn.tparams):
            n = len(fn.tparams)
            extra = ", ".join(cxx(v) for v in positional[n:])
            takes = f"takes {n} template argument{'s' * (n != 1)} ({', '.join(p['name'] for p in fn.tparams)})"
            raise CppError(
                f"{self.path}:{fn.line}: {fn.name} {takes if n else 'is not a template'}; given {len(positional)}: remove {extra}"
            )
        for p, v in zip(fn.tparams, positional, strict=False):
            if p["name"] in targs:
                raise CppError(
                    f"{self.path}:{fn.line}: {fn.name}: the template argument {p['name']} given twice (in order and by name)"
                )
            targs[p["name"]] = v
        self.check_template_arguments(fn, targs)
        return targs

    def check_template_arguments(self, fn: Fn, targs: dict[str, Any]) -> None:
        """Each template argument given names a template parameter and is of its kind (a dtype for a
        `typename`, an int for an integer, a member for an enum); every one the VF needs is given."""
        api = f"{self.path}:{fn.line}: {fn.name}"
        params = {p["name"]: p for p in fn.tparams}
        shown = ", ".join(f"{k}={cxx(v)}" for k, v in targs.items())
        if targs and not params:
            raise CppError(f"{api} is not a template; given the template arguments {shown}: call mod.{fn.name}(...) directly")
        for k, v in targs.items():
            p = params.get(k)
            if p is None:
                raise CppError(
                    f"{api}: no template parameter {k} (given {k}={cxx(v)}); its template parameters: {', '.join(params)}"
                )
            kind = _template_kind(p)
            if kind is not None and not kind[0](v):
                raise CppError(f"{api}: the template argument {k} = {_shown(v)}; accepted: {kind[1]}")
        # (a class template's parameters are needed only where the VF uses them)
        missing = [p["name"] for p in fn.tparams if p["name"] not in targs and not p.get("outer")]
        if missing:
            example = ", ".join(f"{m}=..." for m in missing)
            raise CppError(
                f"{api} needs the template arguments {', '.join(missing)}:"
                f" mod.{fn.name}[...] or mod.instantiate({fn.name!r}, {example})"
            )

    def definition(self, fn: Fn, targs: dict[str, Any]) -> Fn:
        """The definition `fn<targs>` runs: its explicit specialization for `targs`, else the primary template."""
        vals = [targs.get(p["name"]) for p in fn.tparams if not p.get("outer")]
        specs = [f for f in self.definitions[fn.name] if f.spec is not None]
        hit = next((f for f in specs if _matches(f.spec or [], vals)), None)
        if hit is not None:
            return hit
        if not fn.defined:
            shown = ", ".join(f"{fn.name}<{', '.join(_cxx_spec(a) for a in f.spec or [])}>" for f in specs)
            raise CppError(
                f"{self.path}:{fn.line}: {fn.name}<{', '.join(cxx(v) for v in vals)}> has no definition:"
                f" the template is declared without a body and specialized as {shown or 'nothing'} only"
            )
        return fn

    def instantiate(self, name: str, /, *positional: Any, **targs: Any) -> VfFunction:
        """`name<targs...>`: template arguments in the C++ order or by C++ name (`T=rs.uint32`), as dtypes,
        enum members or ints (a class template's parameters first)."""
        self[name]  # a VF of this file, or CppError
        fn = self.functions[name]
        targs = self.named_template_arguments(fn, positional, targs)
        key = (name, tuple(sorted((k, repr(v)) for k, v in targs.items())))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        own = [targs[p["name"]] for p in fn.tparams if p["name"] in targs]
        display = f"{name}<{', '.join(cxx(v) for v in own)}>" if own else name
        pyname = f"vf_{name}_{len(self._cache)}"
        main = Lowerer(self, self.definition(fn, targs), dict(targs), pyname)
        try:
            lines = main.lower()
        except CppError as e:
            if not self.host_diagnostics:
                raise
            first = self.host_diagnostics[0]
            more = len(self.host_diagnostics)
            raise CppError(
                f"{e}\n(the file also has {more} parse errors outside device functions, first: {first};"
                " clang may have left types around them unresolved)"
            ) from None
        where, names = list(main.where), {pyname: display}
        callees = self._lower_callees(list(main.callees), lines, where, names)
        source = "\n".join(lines) + "\n"
        ns = self.globals
        try:
            self._run_source(source, f"<regsim-cpp {os.path.basename(self.path)} {pyname}>", where, names)
            for cname in callees:
                ns[cname] = simd_callee(ns[cname])
                rewrite_now(ns[cname])
            run = simd_vf(ns[pyname])
            rewrite_now(run)
        except SyntaxError as e:  # Python's own limits (20 nested blocks), before or after the loop rewrite
            line = where[e.lineno - 1] if e.lineno and 0 < e.lineno <= len(where) else fn.line
            raise CppError(f"{self.path}:{line} (in {display}): {_syntax_limit(e)}") from None
        params = [_Param(p["name"], main.type_of(p["t"], p["tk"], p), main.decl(p)) for p in main.fn.params]
        vf = VfFunction(self, main.fn, display, params, source, run)
        self._cache[key] = vf
        return vf


def _overload(fns: list[Fn], call: Call) -> list[Fn]:
    """Of the overloads `fns` of a call clang left unresolved, those it can run, as C++ looks them up: in the
    namespace spelled before the name (`ops::F`), else in the caller's namespace or the nearest enclosing one that
    defines some; then those taking as many arguments as given; then those whose parameters take the arguments' types
    (`accepts`). All of them where a step would leave none. A member function of another class than the caller's is
    none of them (an unqualified call does not find it)."""
    fns = [f for f in fns if f.cls in (None, call.cls)] or fns
    spelled = "::".join(s for s in call.spelled)
    if spelled:
        fns = [f for f in fns if f.ns == spelled or f.ns.endswith("::" + spelled)] or fns
    else:
        scopes = call.scope.split("::") if call.scope else []
        for depth in range(len(scopes), -1, -1):
            here = [f for f in fns if f.ns == "::".join(scopes[:depth])]
            if here:
                fns = here
                break
    fns = [f for f in fns if len(f.params) == call.nargs] or fns
    return [f for f in fns if all(accepts(p["t"], a) for p, a in zip(f.params, call.args, strict=False))] or fns


def _syntax_limit(e: SyntaxError) -> str:
    """What a SyntaxError compiling generated code means for the C++ (its nesting, past Python's limits)."""
    if "too many statically nested blocks" in str(e.msg):
        return (
            "the loops nest too deeply for Python, which allows 20 nested blocks in a function (a loop is 1 block,"
            " or 2 once rewritten to run batched): move the inner loops into a __simd_callee__ function"
        )
    return f"the lowered code does not compile in Python ({e.msg}): simplify the statement"


def _template_kind(p: dict[str, Any]) -> tuple[Callable[[Any], bool], str] | None:
    """What a template parameter accepts: a test of an argument and how a message says it (None when
    regsim does not check it: a struct or RegTrait constant)."""
    if p["type"]:
        return dt.is_dtype, "an element type: a regsim dtype (rs.float32 for float, rs.half, rs.int32, ...)"
    t = strip(p.get("t", "")).replace("&", "").strip()
    cls = getattr(enums, t, None)
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        names, where = list(cls.__members__), "rs.Reg" if hasattr(Reg, t) else "rs.AscendC"
        return (lambda v: isinstance(v, cls)), f"a member of {where}.{t} ({', '.join(names[:4])}{', ...' * (len(names) > 4)})"
    d = dtype_of(t)
    if d is not None and d.name in INT_DTYPES:
        return (lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, enum.Enum)), f"an int (`{t} {p['name']}`)"
    return None


def _cxx_spec(a: dict[str, Any]) -> str:
    """An explicit specialization's template argument as C++ spells it."""
    if "type" in a:
        d = dtype_of(a["type"])
        return cxx(d) if d is not None else str(a["type"])
    return str(a.get("value", a.get("other", "?")))


#: what a parse error on an undeclared `asc_*` name adds
_C_HINT = " (a C API function regsim does not model: rs.capi.REGISTER_API lists the register-level ones it runs)"
PARSE_TIMEOUT = 300  #: seconds a parse may take before its child process is stopped
#: parsed files by (path, working directory, clang arguments), with what their parse read: each parsed once while
#: that is unchanged, each instantiation lowered once
_MODULES: dict[Any, tuple[CppModule, cache.Read]] = {}


def _parse(path: str, args: list[str]) -> tuple[dict[str, Any], cache.Read]:
    """parse.py's result for `path` and what it read: from the parse cache (cache.py) while nothing it read has
    changed, else parsed in a child process (which runs the parser file itself: it imports only the standard
    library and clang)."""
    request = {"path": path, "header": header(), "args": args, "shims": SHIM_HEADERS}
    with open(cpp_parse.__file__, "rb") as f:
        parser = f.read()
    inputs = cache.digest(json.dumps([request["header"], SHIM_HEADERS]).encode() + parser)
    with open(path, "rb") as f:
        k = cache.key(path, f.read(), args, inputs)
    hit = cache.lookup(k)
    if hit is not None:
        return hit
    try:
        proc = subprocess.run(
            [sys.executable, cpp_parse.__file__],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            check=False,
            timeout=PARSE_TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        raise CppError(f"{path}: the libclang parse took longer than {PARSE_TIMEOUT} s and was stopped") from None
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        if "No module named 'clang'" in proc.stderr:
            raise CppError("the C++ front end needs libclang: pip install 'regsim[cpp]' (or pip install libclang)")
        raise CppError(f"{path}: the libclang parse failed: {tail[0]}")
    out: dict[str, Any] = json.loads(proc.stdout)
    return out, cache.store(k, out, args)


def load(path: str | os.PathLike[str], *, args: tuple[str, ...] = (), defines: Mapping[str, Any] | None = None) -> CppModule:
    """Parse `path` (in a child process, with regsim's generated declarations) → its VFs.

    `args` are extra clang arguments (`-D...`, `-I...`); `defines` the build's macros by name, each
    `-DNAME=VALUE` (a dtype is spelled as C++ does: `{"DTYPE_X": rs.half}` is `-DDTYPE_X=half`; True is 1).
    Parse errors raise `CppError` listing each diagnostic as file:line.
    """

    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(message("rs.cpp.load", "path", _shown(path), "the path of a C++ source file (a str or Path)"))
    if isinstance(args, str) or not all(isinstance(a, str) for a in args):
        accepted = "a tuple of clang arguments, e.g. args=('-DSCENARIO_NUM=2',) (a str alone is not one: mind the comma)"
        raise ParameterError(message("rs.cpp.load", "args", _shown(args), accepted))
    args = (*args, *_define_args(defines or {}))
    path = os.fspath(path)
    if not os.path.isfile(path):
        what = "not a file" if os.path.exists(path) else "no such file"
        raise CppError(f"{path}: {what} (rs.cpp.load takes the path of a C++ source file: .asc, .cpp, .h)")
    args = tuple(args)
    key = (os.path.abspath(path), os.getcwd(), args)
    known = _MODULES.get(key)
    if known is None or not known[1].unchanged():
        out, read = _parse(path, list(args))
        functions = [Fn(f) for f in out["functions"]]
        here = os.path.abspath(path)
        device = [f for f in functions if f.what != "plain" and f.file in (here, "")]
        for f in device:  # a device function's own parse errors refuse it (when it is instantiated or called), not the file
            f.errors = [d["text"] for d in out["diagnostics"] if f.line <= d["line"] <= f.end]
            f.errors = [e + (_C_HINT if "undeclared identifier 'asc_" in e else "") for e in f.errors]
        for f in functions:  # a kernel-side function (a member function, in any file) likewise, when it is lowered
            if f not in device and f.what == "plain":
                f.errors = [d["text"] for d in out["diagnostics"] if d.get("file") == f.file and f.line <= d["at"] <= f.end]
        mod = CppModule(path, functions, out["consts"], out.get("structs", []))
        mod.aliases = out.get("aliases", [])
        refused = {e for f in device for e in f.errors}
        mod.host_diagnostics = [d["text"] for d in out["diagnostics"] if d["text"] not in refused]
        _MODULES[key] = mod, read
    return _MODULES[key][0]


def _define_args(defines: Mapping[str, Any]) -> list[str]:
    """`-DNAME=VALUE` for each macro of `load(defines=...)`: a C identifier, a value that is a dtype (its C++
    name), a bool (1 or 0), an int, a float or a str (as written)."""
    if not isinstance(defines, Mapping):
        accepted = "a mapping of macro names to values, e.g. defines={'DTYPE_X': rs.half, 'BUFFER_NUM': 2}"
        raise ParameterError(message("rs.cpp.load", "defines", _shown(defines), accepted))
    out = []
    for name, value in defines.items():
        if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_]\w*", name):
            raise ParameterError(message("rs.cpp.load", "defines", f"the macro name {name!r}", "a C identifier"))
        if dt.is_dtype(value):
            text = cxx(value)
        elif isinstance(value, (bool, np.bool_)):
            text = str(int(value))
        elif isinstance(value, (int, float, str, np.integer, np.floating)) and "\n" not in str(value):
            text = str(value)
        else:
            accepted = "a dtype (rs.half: its C++ name), a bool, an int, a float or a str of one line"
            raise ParameterError(message("rs.cpp.load", f"defines[{name!r}]", _shown(value), accepted))
        out.append(f"-D{name}={text}")
    return out


# --- `regsim run kernel.asc --vf NAME --template T=uint32 --args ...` -----------------------------------
def parse_template_args(text: str) -> dict[str, Any]:
    """`T=uint32,SCALE=3` → {"T": rs.uint32, "SCALE": 3}: dtypes by regsim or C++ name, else ints."""
    out: dict[str, Any] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep:
            raise CppError(f"--template: {item!r} is not NAME=VALUE")
        dtype_name = CTYPES.get(value, value)
        if dt.is_dtype(getattr(dt, dtype_name, None)):
            out[name.strip()] = getattr(dt, dtype_name)
        else:
            try:
                out[name.strip()] = int(value, 0)
            except ValueError:
                raise CppError(f"--template: {value!r} is neither a dtype (uint32, half, ...) nor an int") from None
    return out


def make_arguments(specs: list[str], seed: int) -> tuple[list[Any], list[tuple[str, Any]]]:
    """The VF's arguments from the command line: `DTYPE[N]` a UB tensor of N random elements,
    `DTYPE[N]=V` filled with V, `DTYPE[N]=iota` with 0, 1, 2, ...; anything else a scalar."""

    rng = np.random.default_rng(seed)
    ub = UnifiedBuffer()
    values: list[Any] = []
    tensors: list[tuple[str, Any]] = []
    for spec in specs:
        head, _, fill = spec.partition("=")
        if head.endswith("]") and "[" in head:
            name, count = head[:-1].split("[", 1)
            dtype_name = CTYPES.get(name, name)
            dtype: Any = getattr(dt, dtype_name, None)
            if dtype is None or not dt.is_dtype(dtype):
                raise CppError(f"--args: {name!r} is not a dtype (uint32, half, float32, ...)")
            n = int(count, 0)
            t = ub.alloc(dtype, n)
            npd = dtype.np_dtype
            if fill == "iota":
                data = np.arange(n).astype(npd)
            elif fill:
                data = np.full(n, float(fill) if "." in fill else int(fill, 0)).astype(npd)
            elif np.issubdtype(npd, np.integer):
                info = np.iinfo(npd)
                data = rng.integers(info.min, int(info.max) + 1, n, dtype=npd)
            else:
                data = rng.uniform(-1, 1, n).astype(npd)
            t.set(data)
            values.append(t.GetPhyAddr())
            tensors.append((spec, t))
        else:
            try:
                values.append(float(spec) if any(c in spec for c in ".eE") and not spec.startswith("0x") else int(spec, 0))
            except ValueError:
                raise CppError(f"--args: {spec!r} is neither DTYPE[N] (a UB tensor) nor a number") from None
    return values, tensors


def run_cli(
    path: str,
    vf: str,
    template: str,
    args: list[str],
    seed: int,
    out: Any,
    explain: bool = False,
    defines: list[str] | None = None,
) -> int:
    """`regsim run kernel.asc --vf NAME ...`: run one VF and print each tensor argument after it
    (and, with `explain`, how each of its loops ran). `defines` are macros (`SCENARIO_NUM=2`)."""
    import zlib

    mod = load(path, args=tuple(f"-D{d}" for d in defines or ()))
    fn = mod.instantiate(vf, **parse_template_args(template))
    values, tensors = make_arguments(args, seed)
    how = explain_loops(fn, *values)
    out.write(f"{path}: {fn.display} ran ({len(values)} arguments)\n")
    if explain:
        out.write("".join(f"  loop {_in_cxx(line)}\n" for line in how.splitlines()))
    for (spec, t), p in zip(tensors, [p for p, a in zip(fn.params, args, strict=False) if "[" in a], strict=False):
        data = t.numpy()
        shown = " ".join(str(x) for x in data[:8]) + (" ..." if data.size > 8 else "")
        out.write(f"  {p.name} ({spec}): crc32 {zlib.crc32(data.tobytes()):08x}: {shown}\n")
    return 0
