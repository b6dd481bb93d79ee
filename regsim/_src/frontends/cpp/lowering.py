"""Run unmodified Ascend C VF source on regsim: a C++ front end (libclang) onto the same model.

    mod = rs.cpp.load("kernel.asc")               # parse once (in a child process)
    add = mod.instantiate("AddVF", T=rs.uint32)   # or mod["AddVF"][rs.uint32]; lowered once, cached
    add(dst0, dst1, src0, src1, count, repeat, size)   # UbPtrs and scalars, run as asc_vf_call

Each `__simd_vf__` function's AST is lowered once per instantiation into Python source calling
regsim's public API (`add.source` shows it), with C semantics for scalars (integer promotion,
wraparound, truncating division, float/half rounding), references (`uint32_t&` → `rs.Ref`),
pointers passed by value and post-updated in place, `__simd_callee__` helpers, `constexpr`
and `if constexpr`, explicit specializations. Its loops are then rewritten to run batched as a hand
port's are. A call is checked against the C++ parameters before it runs, and a regsim error raised
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
import types
from collections.abc import Callable, Iterator
from types import TracebackType
from typing import Any

import numpy as np

from regsim._src.engine.context import Ref, vf_context
from regsim._src.engine.per_iteration import Affine, Unbatchable
from regsim._src.engine.spec import Kind, Role
from regsim._src.frontends.capi_register import FORMS, function
from regsim._src.frontends.cpp import parse as cpp_parse
from regsim._src.frontends.cpp.declarations import C_CONSTANTS, C_TYPES, CAST_TRAITS, CTYPES, VF_LEN, header, leading_t
from regsim._src.model import dtypes as dt
from regsim._src.model import enums
from regsim._src.model.config import current_config
from regsim._src.model.lazy import ml_dtypes
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops import REGISTRY
from regsim._src.ops import namespace as Reg
from regsim._src.vf import debug
from regsim._src.vf.loops import explain as explain_loops
from regsim._src.vf.runtime import rewrite_now, simd_callee, simd_vf
from regsim.errors import DTypeError, ParameterError, RegsimError, UnsupportedError, message

__all__ = ["CppError", "CppModule", "VfFunction", "load"]


class CppError(UnsupportedError):
    """A C++ source regsim cannot run: a parse error, or a construct or Reg function it does not model."""


# --- C scalar types ------------------------------------------------------------------------------------
_INT_KINDS = {"BOOL": (1, False), "CHAR_S": (8, True), "SCHAR": (8, True), "CHAR_U": (8, False), "UCHAR": (8, False)}
_INT_KINDS |= {"SHORT": (16, True), "USHORT": (16, False), "INT": (32, True), "UINT": (32, False)}
_INT_KINDS |= {"LONG": (64, True), "ULONG": (64, False), "LONGLONG": (64, True), "ULONGLONG": (64, False)}
_FLOAT_KINDS = {"FLOAT": "_f32", "DOUBLE": "", "HALF": "_f16", "FLOAT16": "_f16"}
_DT_INT = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False), "int32": (32, True)}
_DT_INT |= {"uint32": (32, False), "int64": (64, True), "uint64": (64, False), "bool_": (1, False)}
_DT_FLOAT = {"float32": "_f32", "half": "_f16", "bfloat16": "_bf16"}


def _wrap(bits: int, signed: bool) -> Callable[[int], int]:
    """Conversion to a C integer type of `bits` bits (wraparound). A batched loop's index
    expression passes through: the batched run is checked against the in-order one's rules."""
    exact = (bool, float, np.integer, np.floating)  # a float converts by truncation toward zero
    if bits == 1:
        return lambda x: int(bool(x)) if isinstance(x, (int, *exact)) else x
    m, h = (1 << bits) - 1, 1 << (bits - 1)
    if signed:
        return lambda x: ((x + h) & m) - h if type(x) is int else ((int(x) + h) & m) - h if isinstance(x, exact) else x
    return lambda x: x & m if type(x) is int else int(x) & m if isinstance(x, exact) else x


def _c_div(a: Any, b: Any) -> Any:
    """C's `/`: integers truncate toward zero (a zero divisor is undefined behaviour in C++: a CppError
    here), floats divide as IEEE 754 does (x / 0.0 is ±inf, 0.0 / 0.0 NaN)."""
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:
            raise CppError(f"the integer division {a} / 0 (undefined behaviour in C++): check the divisor before dividing")
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    if isinstance(a, Affine) or isinstance(b, Affine):  # a batched loop's index (`i * n / 2`): per iteration
        if not all(isinstance(v, (Affine, int, np.integer)) for v in (a, b)):
            raise Unbatchable("the loop index is divided with a non-integer")
        x, y = (v.values if isinstance(v, Affine) else np.int64(v) for v in (a, b))
        if not np.all(y):
            raise Unbatchable("a division by zero in some iteration")
        return Affine(np.broadcast_to(np.sign(x) * np.sign(y) * (np.abs(x) // np.abs(y)), np.shape(x) or np.shape(y)))
    with np.errstate(all="ignore"):
        return float(np.float64(a) / np.float64(b))


def _c_rem(a: int, b: int) -> int:
    if isinstance(a, int) and isinstance(b, int) and b == 0:
        raise CppError(f"the integer remainder {a} % 0 (undefined behaviour in C++): check the divisor before dividing")
    return a - b * _c_div(a, b)  # type: ignore[no-any-return]


def _more(count: list[int], cond: Any) -> Any:
    """A lowered `while` loop's condition (or a `for` loop's that is not a counting loop), its iterations
    counted (`count` is the loop's own): past `rs.configure(max_loop_iterations=...)` in one execution, a
    CppError at its line (`while (1)` with no `break`), as a counting loop past it is refused before it starts."""
    if cond:
        count[0] += 1
        if count[0] > (limit := current_config().max_loop_iterations):
            raise CppError(
                f"the loop ran {limit} iterations without ending (unbounded?): rs.configure(max_loop_iterations={limit})"
                " bounds a loop; raise it if the loop is meant to run longer"
            )
    return cond


def _ceil_division(a: int, b: int) -> int:
    """AscendC::CeilDivision(int32_t num1, int32_t num2): (num1 + num2 - 1) / num2 in int32, 0 when num2 is 0."""
    if b == 0:
        return 0
    s = ((a + b - 1 + 2**31) & 0xFFFFFFFF) - 2**31
    return _c_div(s, b)  # type: ignore[no-any-return]


def _copy(src: Any, dst: Any = None) -> Any:
    """A C++ register copy: `dst` (a new register of `src`'s type when None) gets `src`'s bytes
    (or bits) and written flags, through the running backend (batched loops included)."""
    be = vf_context("a register copy").backend
    if isinstance(src, MaskReg):
        dst = MaskReg() if dst is None else dst
        be.copy_mask(dst, src)
    else:
        dst = RegTensor(src.dtype, src.trait) if dst is None else dst
        be.copy_register(dst, src)
    return dst


RUNTIME: dict[str, Any] = {
    "_copy": _copy,
    "_div": _c_div,
    "_rem": _c_rem,
    "_more": _more,
    "_ceil_division": _ceil_division,
    "_f32": lambda x: float(np.float32(x)),
    "_f16": lambda x: float(np.float16(x)),
    "_bf16": lambda x: float(ml_dtypes.bfloat16(x)),
    "Ref": Ref,
    "np": np,
    "_E": enums,  # every Ascend C enum regsim models (Reg's and AscendC's: CMPMODE, RoundMode)
}
for _b, _s in {(1, False), (8, True), (8, False), (16, True), (16, False), (32, True), (32, False), (64, True), (64, False)}:
    RUNTIME[f"_{'i' if _s else 'u'}{_b}"] = _wrap(_b, _s)


def _runtime_module(name: str, doc: str, **attrs: Any) -> types.ModuleType:
    """A module object holding `attrs` (regsim's own, as the loop rules see it: calls on it keep no state)."""
    module = types.ModuleType(f"regsim._src.frontends.cpp.{name}", doc)
    vars(module).update(attrs)
    return module


def _c_api_function(name: str) -> Any:
    """`rs.capi.<name>` in generated code: the register-level C function of that name (any the registry has)."""
    if name not in FORMS:
        raise AttributeError(name)
    return function(name)


#: what the generated code spells `rs.<name>`: the dtypes, the register-level C API and the VF debug calls
_RS = _runtime_module(
    "rs",
    "The names lowered C++ spells rs.<name>.",
    **{d.__name__: d for d in dt.EVERY_DTYPE},
    capi=_runtime_module("capi", "The register-level C API a VF calls (any name of FORMS).", __getattr__=_c_api_function),
    printf=debug.printf,
    asc_dump=debug.asc_dump,
    asc_dump_reg=debug.asc_dump_reg,
    asc_dump_ubuf=debug.asc_dump_ubuf,
)


class _Ty:
    """A C type as the lowering needs it: an integer (bits, signed), a float (rounding helper),
    a pointer (its element dtype), a register type, or something else (`other`)."""

    def __init__(self, what: str, bits: int = 0, signed: bool = False, rnd: str = "", elem: Any = None) -> None:
        self.what, self.bits, self.signed, self.rnd, self.elem = what, bits, signed, rnd, elem

    @property
    def wrap(self) -> str:
        return f"_{'i' if self.signed else 'u'}{self.bits}"


def _strip(spelling: str) -> str:
    s = spelling.replace("const ", "").replace("volatile ", "").replace("__ubuf__ ", "").strip()
    for ns in ("AscendC::Reg::", "AscendC::MicroAPI::", "AscendC::", "Reg::", "MicroAPI::", "struct ", "enum ", "std::"):
        s = s.replace(ns, "")
    s = s.strip()
    base = s.rstrip("&* ")
    if base in C_TYPES:  # a C API register type (`vector_float`, `vector_bool`): the Reg type it stands for
        s = C_TYPES[base] + s[len(base) :]
    return s


#: the C++ builtin integer types' spellings (besides the <stdint.h> ones of CTYPES), as dtypes
_BUILTIN_INTS = {"unsigned int": "uint32", "int": "int32", "unsigned short": "uint16", "short": "int16"}
_BUILTIN_INTS |= {"unsigned char": "uint8", "signed char": "int8", "char": "int8", "unsigned long": "uint64", "long": "int64"}
#: a dtype's C++ spelling (`float` for rs.float32), for messages and specializations
_CNAMES = {v: k for k, v in CTYPES.items()}


def _dtype_of(spelling: str) -> Any:
    """The dtype a C++ element type spells (`float`, `AscendC::half`, `unsigned int`), None for another type."""
    s = _strip(spelling).replace("*", "").replace("&", "").strip()
    name = CTYPES.get(s) or _BUILTIN_INTS.get(s)
    return getattr(dt, name) if name else None


def _cxx(v: Any) -> str:
    """A template argument as C++ spells it: `float`, `MaskMergeMode::MERGING`, `3`."""
    if dt.is_dtype(v):
        return _CNAMES.get(v.name, str(v.name))
    if isinstance(v, enum.Enum):
        return f"{type(v).__name__}::{v.name}"
    return repr(v)


def _c_forms(name: str) -> list[Any]:
    """The C overloads of a register-level C API function (`rs.capi`'s), none for another name."""

    return FORMS.get(name, [])


def _split_targs(inner: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return [*out, cur.strip()] if cur.strip() else out


_COMPARE = ("==", "!=", "<=", ">=")
_TYPE_KIDS = ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")
#: the explicit casts (C-style, functional, static_cast, reinterpret_cast)
_CASTS = ("CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR")
#: the Ascend C structs regsim models (CastTrait, DivSpecificMode, ...), by C++ name
_STRUCTS = {
    n: c for n, c in vars(enums).items() if isinstance(c, type) and issubclass(c, enums._Struct) and c is not enums._Struct
}
#: compile-time type traits: (namespace-free name, whether `::value` follows)
_TRAITS = {"IsSameType": True, "is_same": True, "is_same_v": False}


#: the debugging functions of utils/debug (printf, asc_dump*): regsim._src.vf.debug runs them
_DEBUG_CALLS = ("printf", "asc_dump", "asc_dump_ubuf", "asc_dump_reg")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def _c_string(tokens: list[str]) -> str | None:
    """The characters of C string literal tokens (adjacent ones concatenated, escapes decoded);
    None when a token is not a plain or u8 literal."""
    out: list[str] = []
    for tok in tokens:
        body = tok[2:] if tok.startswith("u8") else tok
        if body.startswith('R"') and body.endswith('"') and "(" in body:  # R"delim(...)delim"
            start = body.index("(")
            out.append(body[start + 1 : len(body) - 2 - len(body[2:start])])
            continue
        if len(body) < 2 or body[0] != '"' or body[-1] != '"':
            return None
        text, i = body[1:-1], 0
        while i < len(text):
            ch = text[i]
            if ch != "\\" or i + 1 >= len(text):
                out.append(ch)
                i += 1
                continue
            nxt = text[i + 1]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
            elif nxt == "x":
                j = i + 2
                while j < len(text) and text[j] in "0123456789abcdefABCDEF":
                    j += 1
                out.append(chr(int(text[i + 2 : j] or "0", 16) & 0xFF))
                i = j
            elif nxt in "01234567":
                j = i + 1
                while j < len(text) and j < i + 4 and text[j] in "01234567":
                    j += 1
                out.append(chr(int(text[i + 1 : j], 8) & 0xFF))
                i = j
            else:
                out.append(nxt)
                i += 2
    return "".join(out)


class _Fn:
    """One C++ function of the parsed file (JSON from the child process)."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.name: str = d["name"]
        self.what: str = d["what"]
        self.line: int = d["line"]
        self.end: int = d["end"]
        self.tparams: list[dict[str, Any]] = d["tparams"]
        self.params: list[dict[str, Any]] = d["params"]
        self.ret: str = d["ret"]
        #: an explicit specialization's template arguments (`template <> void F<float>`), else None
        self.spec: list[dict[str, Any]] | None = d.get("spec")
        #: False for a primary template declared without a body (its specializations are the definitions)
        self.defined = d["body"] is not None
        self.body: dict[str, Any] = d["body"] or {"k": "COMPOUND_STMT", "l": self.line, "c": []}


def _walk(n: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield n
    for c in n["c"]:
        yield from _walk(c)


class _Lowerer:
    """Lowers one function instantiation to Python source lines."""

    def __init__(self, mod: CppModule, fn: _Fn, env: dict[str, Any], pyname: str) -> None:
        self.mod, self.fn, self.env, self.pyname = mod, fn, env, pyname
        self.lines: list[str] = []
        #: the C++ line each of `lines` came from (for errors raised while the VF runs)
        self.where: list[int] = []
        self.at = fn.line  #: the C++ line being lowered
        self.loops = 0  #: the `while` loops lowered so far (each counts its iterations: max_loop_iterations)
        self.refvars: set[str] = set()
        #: the values of local constants of enum and struct type, for template arguments
        self.constants: dict[str, Any] = {}
        self.vartypes: dict[str, _Ty] = {}
        self.callees: list[tuple[str, _Fn, dict[str, Any]]] = []
        #: parameters taken by reference (`MaskReg& m`): assigning them a new register would rebind only here
        self.refparams = {p["name"] for p in fn.params if p["tk"] == "LVALUEREFERENCE"}

    # --- errors and types ---
    def fail(self, n: dict[str, Any] | int, what: str) -> CppError:
        line = n if isinstance(n, int) else n.get("l", 0)
        return CppError(f"{self.mod.path}:{line}: {what} (in {self.fn.name}): regsim's C++ front end does not support it")

    def dtype(self, spelling: str, n: dict[str, Any] | int = 0) -> Any:
        s = _strip(spelling).replace("*", "").replace("&", "").strip()
        if s in self.env and dt.is_dtype(self.env[s]):
            return self.env[s]
        d = _dtype_of(s)
        if d is None:
            raise self.fail(n, f"the element type {spelling!r}")
        return d

    def ty(self, n: dict[str, Any]) -> _Ty:
        return self.type_of(n.get("t", ""), n.get("tk", ""), n)

    def type_of(self, spelling: str, kind: str, n: dict[str, Any] | int = 0) -> _Ty:
        if kind in _INT_KINDS:
            bits, signed = _INT_KINDS[kind]
            return _Ty("int", bits, signed)
        if kind in _FLOAT_KINDS:
            return _Ty("float", rnd=_FLOAT_KINDS[kind])
        s = _strip(spelling)
        if kind in ("LVALUEREFERENCE", "RVALUEREFERENCE") or s.endswith("&"):
            return self.type_of(s.rstrip("&").strip(), "", n)
        if s.endswith("*"):
            return _Ty("ptr", elem=self.dtype(s[:-1], n))
        if s.startswith("RegTensor") or s in ("MaskReg", "AddrReg", "UnalignRegForLoad", "UnalignRegForStore"):
            return _Ty("reg")
        if kind == "ENUM" and isinstance(getattr(enums, s, None), type):
            return _Ty("enum", elem=getattr(enums, s))
        if s in _STRUCTS:
            return _Ty("struct", elem=_STRUCTS[s])
        if (s in self.env and dt.is_dtype(self.env[s])) or s in CTYPES or s in ("half", "bfloat16_t"):
            d = self.dtype(s, n)
            if d.name in _DT_INT:
                b, sg = _DT_INT[d.name]
                return _Ty("int", b, sg)
            if d.name in _DT_FLOAT:
                return _Ty("float", rnd=_DT_FLOAT[d.name])
        return _Ty("other")

    def decl(self, p: dict[str, Any]) -> str:
        """A parameter's C++ declaration for this instantiation (`__ubuf__ float* dst`, `uint32_t n`)."""
        t = self.type_of(p["t"], p["tk"], p["l"])
        if t.what == "ptr":
            return f"__ubuf__ {_cxx(t.elem)}* {p['name']}"
        spelled = re.sub(r"\w+", lambda m: _cxx(self.env[m[0]]) if dt.is_dtype(self.env.get(m[0])) else m[0], p["t"])
        return f"{spelled} {p['name']}"

    def convert(self, code: str, src: _Ty, dst: _Ty) -> str:
        if dst.what == "int":
            if src.what == "float":
                return f"{dst.wrap}(int({code}))"
            if src.what == "int" and (src.bits, src.signed) == (dst.bits, dst.signed):
                return code
            if src.what == "int" and src.bits < dst.bits and (dst.signed or not src.signed):
                return code  # widening: the value is unchanged
            return f"{dst.wrap}({code})"
        if dst.what == "float":
            if src.what == "float" and src.rnd == dst.rnd:
                return code
            return f"{dst.rnd}({code})" if dst.rnd else f"float({code})"
        return code

    # --- names ---
    @staticmethod
    def var(name: str) -> str:
        return f"v_{name}"

    def read(self, name: str) -> str:
        return f"{self.var(name)}.value" if name in self.refvars else self.var(name)

    # --- expressions ---
    def expr(self, n: dict[str, Any]) -> str:
        k = n["k"]
        c = n["c"]
        if k == "INTEGER_LITERAL":
            return str(int(n["v"].rstrip("uUlL"), 0))
        if k == "FLOATING_LITERAL":
            t = self.ty(n)
            lit = repr(float(n["v"].rstrip("fFlL")))
            return f"{t.rnd}({lit})" if t.rnd else lit
        if k == "CXX_BOOL_LITERAL_EXPR":
            return "1" if n["v"] in ("true", "1") else "0"
        if k == "PAREN_EXPR":
            return f"({self.expr(c[0])})"
        if k == "CXX_UNARY_EXPR":
            return self.leaf(n)
        if k == "DECL_REF_EXPR":
            return self.declref(n)
        if k in _CASTS and self.ty(n).what == "reg":
            return self.register_cast(n)
        if k == "CXX_REINTERPRET_CAST_EXPR" and not (self.ty(n).what == "ptr" and self.ty(c[-1]).what == "ptr"):
            raise self.fail(n, f"reinterpret_cast to {n.get('t')} (only between pointers and between registers)")
        if k in (
            "UNEXPOSED_EXPR",
            "CXX_FUNCTIONAL_CAST_EXPR",
            "CSTYLE_CAST_EXPR",
            "CXX_STATIC_CAST_EXPR",
            "CXX_REINTERPRET_CAST_EXPR",
        ):
            kids = [x for x in c if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
            if not kids:
                return self.leaf(n)
            inner = kids[-1]
            code = self.expr(inner)
            src, dst = self.ty(inner), self.ty(n)
            if dst.what == "ptr":
                if src.what == "ptr" and k != "UNEXPOSED_EXPR":
                    return f"{code}.reinterpret(rs.{dst.elem.name})"
                return code
            return self.convert(code, src, dst)
        if k == "CXX_UNARY_EXPR" or (k == "UNARY_OPERATOR" and n.get("op") in ("sizeof", "alignof")):
            return self.leaf(n)
        if k == "UNARY_OPERATOR":
            op = n["op"]
            a = self.expr(c[0])
            t = self.ty(n)
            if op == "-":
                return self.convert(f"(-{a})", _Ty("other"), t) if t.what == "int" else f"(-{a})"
            if op == "+":
                return a
            if op == "!":
                return f"int(not {a})"
            if op == "~":
                return f"{t.wrap}(~{a})"
            raise self.fail(n, f"the operator {op} inside an expression")
        if k == "BINARY_OPERATOR":
            return self.binary(n)
        if k == "CONDITIONAL_OPERATOR":
            return f"({self.expr(c[1])} if {self.expr(c[0])} else {self.expr(c[2])})"
        if k == "CALL_EXPR" and n.get("rk") == "CONSTRUCTOR" and len(c) == 1:
            return self.expr(c[0])  # a register copied into a by-value parameter (refused where the callee writes it)
        if k == "CALL_EXPR":
            return self.call(n)
        if k == "MEMBER_REF_EXPR":  # a member of a constant struct or union, folded by clang
            if "v" not in n:
                raise self.fail(n, f"the member access .{n['s']} (only members of constant structs and unions)")
            t = self.ty(n)
            lit = n["v"] if t.what == "int" else repr(float(n["v"]))
            return f"{t.rnd}({lit})" if t.what == "float" and t.rnd else lit
        if k == "INIT_LIST_EXPR" and self.ty(n).what == "struct":  # CastTrait{...}: the regsim struct
            t = self.ty(n)
            args = [f"bool({self.expr(x)})" if x.get("tk") == "BOOL" else self.expr(x) for x in c]
            return f"_E.{t.elem.__name__}({', '.join(args)})"
        if k == "STRING_LITERAL":  # a C string (a printf format or %s argument): a Python str
            text = _c_string(n.get("toks") or [n["s"]])
            if text is None:
                raise self.fail(n, f"the string literal {n['s']}")
            return repr(text)
        if k == "ARRAY_SUBSCRIPT_EXPR":  # a scalar read from the UB: p[i]
            return f"{self.expr(c[0])}[{self.expr(c[1])}]"
        raise self.fail(n, f"the C++ expression {k}")

    def leaf(self, n: dict[str, Any]) -> str:
        toks: list[str] = n.get("toks", [])
        if toks[:1] == ["sizeof"]:
            inner = "".join(t for t in toks[1:] if t not in "()")
            return str(self.dtype(inner, n).itemsize)
        raise self.fail(n, f"the C++ expression {' '.join(toks) or n['k']}")

    def type_trait(self, n: dict[str, Any]) -> str:
        """`IsSameType<T, half>::value`, `std::is_same<T, float>::value`, `std::is_same_v<T, U>`:
        decided for this instantiation's template arguments."""
        toks = [t for t in n.get("toks", []) if t not in ("AscendC", "std", "::")]
        if not toks or toks[0] not in _TRAITS or "<" not in toks:
            raise self.fail(n, f"the dependent expression {' '.join(n.get('toks', [])) or n['s']}")
        inner = " ".join(toks[toks.index("<") + 1 : len(toks) - 1 - toks[::-1].index(">")])
        a, b = (self.dtype(x.replace(" ", ""), n) for x in _split_targs(inner))
        return "1" if a is b else "0"

    def declref(self, n: dict[str, Any]) -> str:
        rk, name = n.get("rk", ""), n.get("rs", n["s"])
        if n.get("tk") == "DEPENDENT" and n.get("toks"):
            return self.type_trait(n)
        if rk == "ENUM_CONSTANT_DECL":
            enum_name = _strip(n["t"])
            return f"_E.{enum_name}.{name}"
        if rk == "NON_TYPE_TEMPLATE_PARM" and name not in self.env:
            raise self.fail(n, f"the template argument {name} (not given)")
        if rk == "NON_TYPE_TEMPLATE_PARM" or (name in self.env and rk not in ("VAR_DECL", "PARM_DECL")):
            return repr(self.env[name]) if not hasattr(self.env[name], "name") else self.pyvalue(self.env[name])
        if rk == "VAR_DECL" and name in ("RegTraitNumOne", "RegTraitNumTwo"):
            return f"Reg.{name}"
        if rk in ("VAR_DECL", "PARM_DECL"):
            if n.get("global") and name in C_CONSTANTS and name not in self.mod.consts:  # PAT_ALL ...
                return self.pyvalue(C_CONSTANTS[name])
            if n.get("global") and "v" in n:  # a constant clang folded (a static constexpr member)
                return str(int(n["v"]))
            if n.get("global") and name in CAST_TRAITS and name not in self.mod.consts:  # AscendC::layoutZMrgZ, ...
                lay, sat, rnd = CAST_TRAITS[name]
                trait = enums.CastTrait(
                    enums.RegLayout[lay], enums.SatMode[sat], enums.MaskMergeMode.ZEROING, enums.RoundMode[rnd]
                )
                return self.pyvalue(trait)
            if n.get("global"):
                const = self.mod.consts.get(name)
                if const is None or (not const.get("constexpr") and "const" not in const.get("t", "")):
                    raise self.fail(n, f"the global variable {name} (only constants are supported)")
                init = [x for x in const["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")]
                if not init:
                    raise self.fail(n, f"the global constant {name} without an initializer")
                return f"({self.convert(self.expr(init[-1]), self.ty(init[-1]), self.ty(const))})"
            return self.read(name)
        if rk == "FUNCTION_DECL":
            raise self.fail(n, f"a function reference {name}")
        raise self.fail(n, f"the name {name} ({rk})")

    def pyvalue(self, v: Any) -> str:
        if dt.is_dtype(v):
            return f"rs.{v.name}"
        if hasattr(v, "REG_NUM"):
            return f"Reg.{v!r}"
        if isinstance(v, enums._Struct):  # a struct constant: one module global per value
            key = f"_K{abs(hash(v)):x}"
            self.mod.globals[key] = v
            return key
        if hasattr(v, "name") and hasattr(type(v), "__members__"):
            return f"_E.{type(v).__name__}.{v.name}"
        return repr(v)

    def binary(self, n: dict[str, Any]) -> str:
        op, (l, r) = n["op"], n["c"]
        a, b = self.expr(l), self.expr(r)
        t, tl, tr = self.ty(n), self.ty(l), self.ty(r)
        if op in ("=",):
            raise self.fail(n, "an assignment inside an expression")
        if op == "&&":
            return f"int(bool({a}) and bool({b}))"
        if op == "||":
            return f"int(bool({a}) or bool({b}))"
        if op in ("<", ">", "<=", ">=", "==", "!="):
            return f"int({a} {op} {b})"
        if tl.what == "ptr" or tr.what == "ptr" or t.what == "ptr":
            if op in ("+", "-"):
                return f"({a} {op} {b})"
            raise self.fail(n, f"the pointer operator {op}")
        if t.what == "int":
            if op == "/":
                return f"{t.wrap}(_div({a}, {b}))"
            if op == "%":
                return f"{t.wrap}(_rem({a}, {b}))"
            if op in ("&", "|", "^", ">>"):
                return f"({a} {op} {b})"
            if op in ("+", "-", "*", "<<"):
                return f"{t.wrap}({a} {op} {b})"
        e = {"/": f"(_div({a}, {b}))", "%": f"(_rem({a}, {b}))"}.get(op, f"({a} {op} {b})")  # (C's / and %: _div, _rem)
        if t.what == "float" and op in ("+", "-", "*", "/"):
            return f"{t.rnd}{e}" if t.rnd else e
        if t.what == "other" and op in ("+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"):
            # a dependent expression (its type depends on T): Python's ints, wrapped to the left type
            if tl.what == "int":
                return f"{tl.wrap}({e})" if tl.bits >= 32 else e
            if tl.what == "float" and tl.rnd:
                return f"{tl.rnd}({e})"
            return e
        raise self.fail(n, f"the operator {op} on {n.get('t')}")

    # --- calls ---
    @staticmethod
    def callee_node(n: dict[str, Any]) -> dict[str, Any]:
        """The node naming a call's callee (its name, namespace and template arguments below it)."""
        f: dict[str, Any] = n["c"][0]
        while f["k"] == "UNEXPOSED_EXPR" and f["c"]:
            f = f["c"][0]
        return f

    def callee_ref(self, n: dict[str, Any]) -> tuple[str, list[dict[str, Any]], bool]:
        """The callee's name, its explicit template arguments and whether it is in AscendC::Reg."""
        f = self.callee_node(n)
        kids = f["c"]
        ns = [k["s"] for k in kids if k["k"] == "NAMESPACE_REF"]
        over = [k for k in kids if k["k"] == "OVERLOADED_DECL_REF"]
        name = over[0]["s"] if over else f.get("rs") or f["s"]
        targs = [k for k in kids if k["k"] not in ("NAMESPACE_REF", "OVERLOADED_DECL_REF", "TEMPLATE_REF")]
        t0 = f.get("t0")
        if t0 is not None and t0 != "DefaultType":  # resolved: T from the specialization (a builtin has no TYPE_REF)
            targs = [{"k": "TYPE_REF", "s": t0, "l": f["l"], "c": []}] + [t for t in targs if t["k"] != "TYPE_REF"]
        return name, targs, (not ns) or ns[-1] in ("Reg", "MicroAPI") or ns == ["AscendC"]

    def targ(self, t: dict[str, Any]) -> Any:
        if t["k"] == "TYPE_REF":
            s = _strip(t["s"])
            if s in self.env:
                return self.env[s]
            return self.dtype(s, t)
        if t["k"] == "UNARY_OPERATOR" and t.get("op") == "&":  # Div<T, &mode>: the struct itself
            return self.targ(t["c"][0])
        inner = t
        while inner["k"] == "UNEXPOSED_EXPR" and inner["c"]:
            inner = inner["c"][0]
        name = inner.get("rs", inner["s"])
        if inner["k"] == "DECL_REF_EXPR" and inner.get("rk") == "VAR_DECL" and name in self.constants:
            return self.constants[name]  # a local constexpr (`static constexpr CastTrait castTrait = {...}`)
        code = self.expr(t)
        try:
            return eval(code, self.mod.globals)
        except Exception:
            raise self.fail(t, f"the template argument {inner['s'] or t['k']} (not a constant)") from None

    def call(self, n: dict[str, Any]) -> str:

        name, targs, in_reg = self.callee_ref(n)
        args = n["c"][1:]
        local = self.mod.functions.get(name)
        if local is not None and local.what != "vf":
            tvals = [self.targ(t) for t in targs]
            local = self.mod.callee(name, tvals, self.callee_node(n).get("rl", 0), n["l"])
            env = dict(self.env)
            for p, v in zip(self.mod.functions[name].tparams, tvals, strict=False):
                env[p["name"]] = v
            pyname = self.mod.callee_name(local, env)
            self.callees.append((pyname, local, env))
            parts = []
            for p, a in zip(local.params, args, strict=False):
                is_ref = p["tk"] == "LVALUEREFERENCE"
                caller_env, self.env = self.env, env  # the parameter's type in the callee's template arguments
                try:
                    ptype = self.type_of(p["t"], p["tk"], p["l"])
                finally:
                    self.env = caller_env
                if is_ref and ptype.what in ("int", "float"):
                    parts.append(self.ref_arg(a))
                else:
                    parts.append(self.expr(a))
            return f"{pyname}({', '.join(parts)})"
        if name in _DEBUG_CALLS and local is None:
            return self.debug_call(name, targs, args, n)
        if name in ("GetVecLen", "asc_get_vf_len"):
            return str(VF_LEN)
        forms = _c_forms(name)
        if forms:
            return self.c_call(n, name, forms, args)
        if name == "CeilDivision" and len(args) == 2:  # AscendC's int32 (num1 + num2 - 1) / num2, 0 for num2 == 0
            a, b = (self.convert(self.expr(x), self.ty(x), _Ty("int", 32, True)) for x in args)
            return f"_ceil_division({a}, {b})"
        entry = REGISTRY.entries.get(name)
        alias = next((s.name for s in REGISTRY.specs.values() if name in s.aliases), None)
        if entry is None and alias is not None:
            entry = REGISTRY.entries[alias]
        if entry is None or not in_reg or not hasattr(Reg, name):
            raise self.fail(n, f"the function {name}" + (" (a Reg function regsim does not model)" if in_reg else ""))
        specs = [s for s in entry.specs if len(s.positional) - sum(o.kind is Kind.DTYPE for o in s.positional) == len(args)]
        specs = specs or entry.specs
        has_t = any(o.kind is Kind.DTYPE for o in specs[0].positional)
        positional: list[str] = []
        keywords: dict[str, str] = {}
        tvals = [self.targ(t) for t in targs]
        # the element type T: the first type argument (Reduce<ReduceType::MAX, T> puts its enum first)
        first_type = next((i for i, v in enumerate(tvals) if dt.is_dtype(v)), None)
        if has_t:
            if first_type is None:
                raise self.fail(n, f"{name} without its element type template argument")
            positional.append(self.pyvalue(tvals[first_type]))
        rest = [v for i, v in enumerate(tvals) if i != first_type or not leading_t(specs[0])]
        for v in rest:
            okw = None
            for s in specs:
                for o in s.templates:
                    if o.name in keywords:
                        continue  # given already: the next parameter of the same kind (LocalMemBar<src, dst>)
                    if o.kind is Kind.ENUM and o.enum is not None and isinstance(v, o.enum):
                        okw = o.name
                    elif o.kind is Kind.TRAIT and hasattr(v, "REG_NUM"):
                        okw = o.name
                    elif o.kind is Kind.STRUCT and o.struct is not None and isinstance(v, o.struct):
                        okw = o.name  # Cast<T, U, trait>, Div<T, &mode>
                    elif o.kind is Kind.INT and type(v) is int:
                        okw = o.name  # an integer template parameter: the first one not given yet
                    if okw:
                        break
                if okw:
                    break
            if okw is None and dt.is_dtype(v):
                continue  # a further element type (Gather<T, U>): C++ checks it, regsim's dispatch checks the operands
            if okw is None:
                raise self.fail(n, f"the template argument {v!r} of {name}")
            keywords[okw] = self.pyvalue(v)
        refpos = {
            i for s in specs for i, o in enumerate(x for x in s.positional if x.kind is not Kind.DTYPE) if o.kind is Kind.REF
        }
        for i, a in enumerate(args):
            positional.append(self.ref_arg(a) if i in refpos else self.expr(a))
        return f"Reg.{name}({', '.join([*positional, *(f'{k}={v}' for k, v in keywords.items())])})"

    def c_call(self, n: dict[str, Any], name: str, forms: list[Any], args: list[dict[str, Any]]) -> str:
        """A call of the register-level C API (`asc_add(dst, src0, src1, mask)`): `rs.capi`'s function of
        that name, which runs the Reg op its C overload spells (the arguments pick the overload)."""

        fit = [f for f in forms if len(f.cname.params) == len(args)]
        ok: list[tuple[Any, Any]] = []
        refused: list[tuple[Any, Any]] = []
        for f in fit:  # the element types the C API declares the function for (`asc_sqrt`: half, float)
            ops = [f.spec.operand(p) if p in f.spec.slots else None for p in f.cname.params]  # (`offset`: no operand)
            reg = next((i for i, o in enumerate(ops) if o is not None and o.kind is Kind.REG), None)
            d = self.reg_dtype(args[reg]) if reg is not None and f.cname.dtypes else None
            (ok if d is None or d in f.cname.dtypes else refused).append((f, d))
        if refused and not ok:
            f, d = refused[0]
            cnames = {v: c for c, v in CTYPES.items()}
            declared = {x for g, _ in refused for x in g.cname.dtypes}  # every width's overload (`asc_gather`)
            shown = ", ".join(sorted(cnames.get(x.name, x.name) for x in declared))
            raise self.fail(n, f"{name} on vector_{cnames.get(d.name, d.name)} (the C API declares {name} for {shown} only)")
        refpos = {
            i for f in fit for i, p in enumerate(f.cname.params) if p in f.spec.slots and f.spec.operand(p).kind is Kind.REF
        }
        parts = [self.ref_arg(a) if i in refpos else self.expr(a) for i, a in enumerate(args)]
        return f"rs.capi.{name}({', '.join(parts)})"

    def reg_dtype(self, a: dict[str, Any]) -> Any:
        """The element type of a register argument, from its C++ type (None where it is not known)."""
        s = _strip(a.get("t", ""))
        if not s.startswith("RegTensor<"):
            return None
        try:
            return self.dtype(_split_targs(s[s.index("<") + 1 : s.rindex(">")])[0], a)
        except CppError:
            return None

    def debug_call(self, name: str, targs: list[dict[str, Any]], args: list[dict[str, Any]], n: dict[str, Any]) -> str:
        """`printf(fmt, args...)`, `asc_dump_ubuf<T>(p, desc, size)`, `asc_dump_reg<T>(reg, desc, size)`,
        `asc_dump<T>(p or reg, desc, size)`: the regsim._src.vf.debug functions (`rs.printf`, ...)."""
        if name == "printf":
            if not args:
                raise self.fail(n, "printf without a format")
            return f"rs.printf({', '.join(self.debug_arg(a) for a in args)})"
        if len(args) != 3:
            raise self.fail(n, f"{name} with {len(args)} arguments (input, desc, dump_size)")
        u32 = _Ty("int", 32, False)
        desc, size = (self.convert(self.expr(a), self.ty(a), u32) for a in args[1:])
        src, kind = self.expr(args[0]), self.debug_kind(args[0])
        if kind == "ptr" and name != "asc_dump_reg":
            return f"rs.{name}({src}, {desc}, {size})"
        if kind != "reg" or name == "asc_dump_ubuf":
            raise self.fail(n, f"{name} of {args[0].get('t', '?')} (a __ubuf__ pointer or a RegTensor)")
        tvals = [self.targ(t) for t in targs]
        dtype = next((v for v in tvals if dt.is_dtype(v)), None)
        if dtype is None:
            raise self.fail(n, f"{name} without its element type template argument")
        return f"rs.{name}({self.pyvalue(dtype)}, {src}, {desc}, {size})"

    def debug_kind(self, a: dict[str, Any]) -> str:
        """Whether a dump's input is a pointer or a register ("ptr", "reg"), also where its type
        depends on a template parameter (`p + k` with `__ubuf__ T* p`)."""
        what = self.ty(a).what
        if what in ("ptr", "reg"):
            return what
        kids = [x for x in a["c"] if x["k"] not in _TYPE_KIDS]
        if a["k"] == "BINARY_OPERATOR" and a.get("op") in ("+", "-"):
            return "ptr" if "ptr" in (self.debug_kind(x) for x in kids) else what
        if a["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and kids:
            return self.debug_kind(kids[-1])
        return what

    def debug_arg(self, a: dict[str, Any]) -> str:
        """A printf argument: its value (a `(void*)` cast keeps the integer or pointer it casts)."""
        inner = a
        casts = ("UNEXPOSED_EXPR", "CSTYLE_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR", "PAREN_EXPR")
        while inner["k"] in casts and _strip(inner.get("t", "")).replace(" ", "") == "void*":
            kids = [x for x in inner["c"] if x["k"] not in _TYPE_KIDS]
            if not kids:
                break
            inner = kids[-1]
        if inner["k"] in ("CXX_NULL_PTR_LITERAL_EXPR", "GNU_NULL_EXPR"):
            return "None"
        return self.expr(inner)

    def ref_arg(self, a: dict[str, Any]) -> str:
        """An argument bound to a C++ reference to a scalar: the variable's `rs.Ref`."""
        inner = a
        while inner["k"] == "UNEXPOSED_EXPR" and inner["c"]:
            inner = inner["c"][0]
        if inner["k"] != "DECL_REF_EXPR" or inner.get("rs", inner["s"]) not in self.refvars:
            raise self.fail(a, "a reference argument that is not a local variable")
        return self.var(inner.get("rs", inner["s"]))

    # --- statements ---
    def emit(self, depth: int, text: str) -> None:
        self.lines.append("    " * depth + text)
        self.where.append(self.at)

    def emit_while(self, depth: int, cond: str) -> None:
        """`while cond:` with its iterations counted: past max_loop_iterations a CppError (an unbounded loop)."""
        self.loops += 1
        self.emit(depth, f"_k{self.loops} = [0]")
        self.emit(depth, f"while _more(_k{self.loops}, {cond}):  # line {self.at}")

    def stmt(self, n: dict[str, Any], d: int) -> None:
        k, c = n["k"], n["c"]
        self.at = n.get("l") or self.at
        if k == "COMPOUND_STMT":
            for x in c:
                self.stmt(x, d)
            if not c:
                self.emit(d, "pass")
        elif k == "DECL_STMT":
            for v in c:
                self.vardecl(v, d)
        elif k == "NULL_STMT":
            self.emit(d, "pass")
        elif k == "RETURN_STMT":
            self.emit(d, f"return {self.expr(c[0])}" if c else "return")
        elif k == "BREAK_STMT":
            self.emit(d, "break")
        elif k == "IF_STMT":
            self.emit(d, f"if {self.expr(c[0])}:  # line {n['l']}")
            self.block(c[1], d + 1)
            if len(c) > 2:
                self.emit(d, "else:")
                self.block(c[2], d + 1)
        elif k == "WHILE_STMT":
            self.emit_while(d, self.expr(c[0]))
            self.block(c[1], d + 1)
        elif k == "FOR_STMT":
            self.forstmt(n, d)
        elif k == "CALL_EXPR" and n["s"] == "operator=" and len(c) == 3:  # a register's assignment operator
            self.assign({"k": "BINARY_OPERATOR", "op": "=", "s": "", "l": n["l"], "c": [c[0], c[2]]}, d)
        elif k == "CALL_EXPR":
            self.emit(d, f"{self.expr(n)}  # line {n['l']}")
        elif k == "UNEXPOSED_EXPR" and len(c) == 1:  # a full expression's cleanups around a statement
            self.stmt(c[0], d)
        elif k in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR", "UNARY_OPERATOR"):
            self.assign(n, d)
        elif k == "UNEXPOSED_STMT" and len(c) == 1:  # `#pragma unroll N` before a loop: the loop itself
            self.stmt(c[0], d)
        elif k == "CONTINUE_STMT":  # (a counting loop's is Python's; a for loop lowered as `while` refuses it, below)
            self.emit(d, "continue")
        else:
            raise self.fail(n, f"the C++ statement {k}")

    def block(self, n: dict[str, Any], d: int) -> None:
        start = len(self.lines)
        self.stmt(n, d)
        if len(self.lines) == start:
            self.emit(d, "pass")

    def target(self, n: dict[str, Any]) -> tuple[str, _Ty]:
        inner = n
        while inner["k"] == "UNEXPOSED_EXPR" and inner["c"]:
            inner = inner["c"][0]
        if inner["k"] == "ARRAY_SUBSCRIPT_EXPR":  # a scalar write to the UB: p[i] = v
            return self.expr(inner), self.ty(inner)
        if inner["k"] != "DECL_REF_EXPR" or inner.get("rk") not in ("VAR_DECL", "PARM_DECL"):
            raise self.fail(n, "an assignment to something other than a local variable")
        return self.read(inner.get("rs", inner["s"])), self.ty(inner)

    def assign(self, n: dict[str, Any], d: int) -> None:
        op = n["op"]
        if n["k"] == "UNARY_OPERATOR":
            if op not in ("++", "--", "post++", "post--"):
                self.emit(d, f"{self.expr(n)}")
                return
            name, t = self.target(n["c"][0])
            sign = "+" if "++" in op else "-"
            self.emit(
                d, f"{name} = {self.convert(f'{name} {sign} 1', _Ty('other'), t) if t.what == 'int' else f'{name} {sign} 1'}"
            )
            return
        name, t = self.target(n["c"][0])
        rhs_node = n["c"][1]
        rhs = self.expr(rhs_node)
        if op == "=":
            if t.what == "reg" and self.register_copy(rhs_node):
                self.emit(d, f"_copy({rhs}, {name})  # line {n['l']}: the value is copied into {name}")
                return
            if t.what == "reg":
                if self.target_name(n["c"][0]) in self.refparams:
                    raise self.fail(n, "assigning a new value to a register passed by reference")
            if t.what == "ptr" and not self.fresh(rhs_node):
                rhs = f"({rhs} + 0)"  # a pointer is copied: a later post-update moves only one
            self.emit(d, f"{name} = {rhs}  # line {n['l']}")
            return
        bop = op[:-1]
        if t.what == "ptr":
            self.emit(d, f"{name} = {name} {bop} {rhs}")
            return
        # C: the operation in the promoted type, then converted back to the left side's type
        tr = self.ty(rhs_node)
        wide = (
            _Ty("int", max(32, t.bits, tr.bits), t.signed if t.bits >= max(32, tr.bits) else tr.signed) if t.what == "int" else t
        )
        e = {"/": f"_div({name}, {rhs})", "%": f"_rem({name}, {rhs})"}.get(bop, f"({name} {bop} {rhs})")
        if t.what == "int" and tr.what == "int":
            self.emit(d, f"{name} = {self.convert(e, _Ty('other'), t if t.bits <= wide.bits else wide)}")
        else:
            self.emit(d, f"{name} = {self.convert(e, _Ty('other'), t)}")

    @staticmethod
    def register_copy(n: dict[str, Any]) -> bool:
        """Whether a register's value is another register variable (`b = a;`, `MaskReg m = full;`), also
        through a cast (`b = (vector_int32_t)a;`, a view of `a`): C++ copies its value, so the lowering
        copies it (`_copy`) rather than binding a second name."""
        inner = n
        while inner["c"] and inner.get("rk") != "FUNCTION_DECL":
            if inner["k"] in _CASTS:
                kids = [x for x in inner["c"] if x["k"] not in _TYPE_KIDS]
                if not kids:
                    break
                inner = kids[-1]
                continue
            if inner["k"] not in ("UNEXPOSED_EXPR", "PAREN_EXPR", "CALL_EXPR"):
                break
            if inner["k"] == "CALL_EXPR" and inner.get("rk") != "CONSTRUCTOR":
                break
            inner = inner["c"][0]
        return inner["k"] == "DECL_REF_EXPR" and inner.get("rk") in ("VAR_DECL", "PARM_DECL")

    def register_cast(self, n: dict[str, Any]) -> str:
        """A cast to a register type: `(vector_int32_t)r`, `static_cast<RegTensor<U>>(r)` (a value, made by
        the declared explicit constructor) and `(RegTensor<U>&)r`, `reinterpret_cast<vector_u32&>(r)` (a
        reference) all see `r`'s bytes as the other type, as a cast between vector types of one size
        does in clang's vector extensions: `r.reinterpret(rs.U)`, a view. Where C++ copies the value (an
        initialisation, an assignment) the view is copied (`register_copy`); a by-value argument is read."""
        kids = [x for x in n["c"] if x["k"] not in _TYPE_KIDS]
        inner = kids[-1]
        if inner["k"] == "CALL_EXPR" and inner.get("rk") == "CONSTRUCTOR" and len(inner["c"]) == 1:
            inner = inner["c"][0]  # the value cast's constructor: its argument is the register cast
        code, dst, src = self.expr(inner), _strip(n.get("t", "")), _strip(inner.get("t", ""))
        if not dst.startswith("RegTensor") and src.rstrip("& ") == dst.rstrip("& "):
            return code  # MaskReg, AddrReg, the unaligned buffers: only to their own type
        if not (dst.startswith("RegTensor") and src.startswith("RegTensor")):
            raise self.fail(n, f"the cast of {inner.get('t')} to {n.get('t')} (registers are cast between vector types only)")
        dtype, trait = self.regtensor(dst, n)
        return f"{code}.reinterpret(rs.{dtype.name}{trait})"

    def regtensor(self, s: str, n: dict[str, Any]) -> tuple[Any, str]:
        """The element dtype and `, trait=...` keyword (empty for one register) of `RegTensor<T[, trait]>`."""
        targs = _split_targs(s[s.index("<") + 1 : s.rindex(">")])
        dtype = self.dtype(targs[0], n)
        trait = ""
        if len(targs) > 1:
            tr = _strip(targs[1])
            trait = f", trait={self.pyvalue(self.env[tr]) if tr in self.env else 'Reg.' + tr}"
        return dtype, trait

    @staticmethod
    def target_name(n: dict[str, Any]) -> str:
        inner = n
        while inner["k"] == "UNEXPOSED_EXPR" and inner["c"]:
            inner = inner["c"][0]
        return str(inner.get("rs", inner["s"]))

    @staticmethod
    def fresh(n: dict[str, Any]) -> bool:
        """Whether a pointer expression makes a new pointer (arithmetic, a cast) rather than naming one."""
        inner = n
        while inner["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and inner["c"]:
            inner = inner["c"][0]
        return inner["k"] not in ("DECL_REF_EXPR",)

    def vardecl(self, v: dict[str, Any], d: int) -> None:
        if v["k"] != "VAR_DECL":
            raise self.fail(v, f"the declaration {v['k']}")
        self.at = v.get("l") or self.at
        name = v["s"]
        s = _strip(v["t"])
        init = v["c"][len(v["c"]) - v["ninit"] :] if "ninit" in v else [x for x in v["c"] if x["k"] not in _TYPE_KIDS]
        t = self.ty(v)
        self.vartypes[name] = t
        target = self.var(name)
        if s.startswith("RegTensor"):
            dtype, trait = self.regtensor(s, v)
            code = f"Reg.RegTensor(rs.{dtype.name}{trait})"
            if init and not (init[0]["k"] == "CALL_EXPR" and not init[0]["c"]):
                code = f"_copy({self.expr(init[0])})" if self.register_copy(init[0]) else self.expr(init[0])
            self.emit(d, f"{target} = {code}  # line {v['l']}")
            return
        if s in ("MaskReg", "AddrReg", "UnalignRegForLoad", "UnalignRegForStore"):
            code = "None" if s == "AddrReg" else f"Reg.{s}()"  # an AddrReg is made by CreateAddrReg
            if init and not (init[0]["k"] == "CALL_EXPR" and init[0].get("rk") == "CONSTRUCTOR" and not init[0]["c"]):
                code = f"_copy({self.expr(init[0])})" if self.register_copy(init[0]) else self.expr(init[0])
            self.emit(d, f"{target} = {code}  # line {v['l']}")
            return
        if t.what in ("enum", "struct"):
            if not (v.get("constexpr") or "const" in v["t"].split()) or not init:
                raise self.fail(v, f"the variable {name} of type {v['t']} (only constants)")
            code = self.expr(init[0])
            try:
                self.constants[name] = eval(code, self.mod.globals)
            except Exception:
                raise self.fail(v, f"the constant {name} (its value is not known when the VF is lowered)") from None
            self.emit(d, f"{target} = {code}  # line {v['l']}")
            return
        if t.what == "other" and "(lambda at " in v["t"]:
            raise self.fail(v, f"the lambda {name}")
        if t.what == "other":
            raise self.fail(v, f"a variable of type {v['t']}")
        if not init:
            code = "0" if t.what == "int" else "0.0" if t.what == "float" else "None"
        else:
            code = self.expr(init[0])
            if t.what == "ptr" and not self.fresh(init[0]):
                code = f"({code} + 0)"
            elif t.what in ("int", "float"):
                code = self.convert(code, self.ty(init[0]), t)
        if name in self.refvars:
            code = f"Ref({code})"
        self.emit(d, f"{target} = {code}  # line {v['l']}")

    def forstmt(self, n: dict[str, Any], d: int) -> None:
        parts = n.get("parts", [True, True, True])
        kids = list(n["c"])
        init = kids.pop(0) if parts[0] else None
        cond = kids.pop(0) if len(parts) > 1 and parts[1] else None
        inc = kids.pop(0) if len(parts) > 2 and parts[2] else None
        body = kids[-1]
        rng = self.as_range(init, cond, inc, body)
        if rng is not None:
            self.emit(d, f"for {rng}:  # line {n['l']}")
            self.block(body, d + 1)
            return
        if init is not None:
            self.stmt(init, d)
        self.at = n["l"]
        self.emit_while(d, self.expr(cond) if cond else "True")
        if any(x["k"] == "CONTINUE_STMT" for x in _walk(body)):
            raise self.fail(n, "continue in a loop that is not a counting loop")
        self.block(body, d + 1)
        if inc is not None:
            self.stmt(inc, d + 1)

    def as_range(self, init: Any, cond: Any, inc: Any, body: dict[str, Any]) -> str | None:
        """`for (T i = a; i < b; i++/i += c)` with `i` and `b`'s variables unassigned in the body → range."""
        if init is None or cond is None or inc is None or init["k"] != "DECL_STMT" or len(init["c"]) != 1:
            return None
        v = init["c"][0]
        name = v["s"]
        t = self.ty(v)
        if t.what != "int" or name in self.refvars:
            return None
        if cond["k"] != "BINARY_OPERATOR" or cond["op"] not in ("<", "<=") or not self.names(cond["c"][0]) == {name}:
            return None
        step = "1"
        if inc["k"] == "UNARY_OPERATOR" and inc["op"] in ("++", "post++") and self.names(inc) == {name}:
            pass
        elif inc["k"] == "COMPOUND_ASSIGNMENT_OPERATOR" and inc["op"] == "+=" and self.names(inc["c"][0]) == {name}:
            if self.assigned(body) & self.names(inc["c"][1]):
                return None
            step = self.expr(inc["c"][1])
        else:
            return None
        bound_names = self.names(cond["c"][1])
        if (self.assigned(body) & (bound_names | {name})) or name in bound_names:
            return None
        init_v = [x for x in v["c"] if x["k"] not in ("TYPE_REF", "NAMESPACE_REF")]
        start = self.convert(self.expr(init_v[0]), self.ty(init_v[0]), t) if init_v else "0"
        stop = self.expr(cond["c"][1])
        if cond["op"] == "<=":
            stop = f"({stop}) + 1"
        self.vartypes[name] = t
        if t.signed is False and t.bits < 32:  # the counter wraps at its width: stop at its range
            stop = f"min({stop}, {1 << t.bits})"
        return f"{self.var(name)} in range({start}, {stop}{', ' + step if step != '1' else ''})"

    @staticmethod
    def names(n: dict[str, Any]) -> set[str]:
        return {x.get("rs", x["s"]) for x in _walk(n) if x["k"] == "DECL_REF_EXPR" and x.get("rk") in ("VAR_DECL", "PARM_DECL")}

    def assigned(self, body: dict[str, Any]) -> set[str]:
        """The variables a statement assigns (a store to the UB, `p[i] = v`, assigns none)."""
        out: set[str] = set()
        for x in _walk(body):
            op = x.get("op", "")
            if x["k"] in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and op.endswith("=") and op not in _COMPARE:
                if x["c"][0]["k"] != "ARRAY_SUBSCRIPT_EXPR":
                    out |= self.names(x["c"][0])
            elif x["k"] == "UNARY_OPERATOR" and x.get("op") in ("++", "--", "post++", "post--"):
                out |= self.names(x)
        return out | self.refvars

    # --- the function ---
    def find_refvars(self) -> None:
        """Scalars passed to a C++ `T&` (an `UpdateMask` count, a callee's reference parameter)."""

        for x in _walk(self.fn.body):
            if x["k"] != "CALL_EXPR" or not x["c"]:
                continue
            try:
                name, _, _ = self.callee_ref(x)
            except (IndexError, KeyError):
                continue
            args = x["c"][1:]
            positions: set[int] = set()
            entry = REGISTRY.entries.get(name)
            if entry is not None:
                for s in entry.specs:
                    ops = [o for o in s.positional if o.kind is not Kind.DTYPE]
                    positions |= {i for i, o in enumerate(ops) if o.kind is Kind.REF}
            for f in _c_forms(name):  # `asc_update_mask_b32(uint32_t& count)`
                positions |= {i for i, p in enumerate(f.cname.params) if p in f.spec.slots and f.spec.operand(p).kind is Kind.REF}
            for local in self.mod.definitions.get(name, ()):
                positions |= {
                    i
                    for i, p in enumerate(local.params)
                    if p["tk"] == "LVALUEREFERENCE"
                    and self.type_of(p["t"], "").what in ("int", "other")
                    and not _strip(p["t"]).rstrip("&").strip().startswith(("RegTensor", "MaskReg", "AddrReg", "Unalign"))
                    and not _strip(p["t"]).rstrip("&").strip().endswith("*")
                }
            for i in positions:
                # a register given to a template `V&` (`V` deduced as MaskReg) is passed as it is
                if i < len(args) and self.ty(args[i]).what not in ("reg", "ptr"):
                    self.refvars |= self.names(args[i])

    def written_registers(self) -> set[str]:
        """The variables passed to a Reg op as an output (any overload of its name)."""

        out: set[str] = set()
        for x in _walk(self.fn.body):
            if x["k"] != "CALL_EXPR" or not x["c"] or x["s"] == "operator=":
                continue
            name, _, _ = self.callee_ref(x)
            entry = REGISTRY.entries.get(name)
            for spec in entry.specs if entry is not None else ():
                ops = [o for o in spec.positional if o.kind is not Kind.DTYPE]
                for o, a in zip(ops, x["c"][1:], strict=False):
                    if o.role in (Role.OUT, Role.INOUT):
                        out |= self.names(a)
            for f in _c_forms(name):
                for p, a in zip(f.cname.params, x["c"][1:], strict=False):
                    if f.spec.operand(p).role in (Role.OUT, Role.INOUT):
                        out |= self.names(a)
        return out

    def lower(self) -> list[str]:
        fn = self.fn
        self.find_refvars()
        if fn.what != "vf":  # a register parameter taken by value and written would write the caller's
            by_value = {p["name"] for p in fn.params if self.type_of(p["t"], p["tk"], p["l"]).what == "reg"} - self.refparams
            written = sorted(by_value & self.written_registers())
            if written:
                raise self.fail(fn.line, f"writing the register {written[0]}, a parameter taken by value (take it by reference)")
        params = [self.var(p["name"]) for p in fn.params]
        self.emit(0, f"def {self.pyname}({', '.join(params)}):  # {fn.name}, line {fn.line}")
        for p in fn.params:
            t = self.type_of(p["t"], p["tk"], p["l"])
            is_ref = p["tk"] == "LVALUEREFERENCE" or p["t"].rstrip().endswith("&")
            if fn.what == "callee" and t.what == "ptr" and not is_ref:
                self.emit(1, f"{self.var(p['name'])} = {self.var(p['name'])} + 0  # by value")
            if fn.what == "vf" and t.what == "int":
                self.emit(1, f"{self.var(p['name'])} = {t.wrap}({self.var(p['name'])})")
            elif fn.what == "vf" and t.what == "float" and t.rnd:
                self.emit(1, f"{self.var(p['name'])} = {t.rnd}({self.var(p['name'])})")
            if p["name"] in self.refvars and not is_ref:
                self.emit(1, f"{self.var(p['name'])} = Ref({self.var(p['name'])})")
        start = len(self.lines)
        self.stmt(fn.body, 1)
        if len(self.lines) == start:
            self.emit(1, "pass")
        return self.lines


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

    def __init__(self, name: str, ty: _Ty, decl: str) -> None:
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
            if isinstance(value, UbPtr) and value.dtype is t.elem:
                return None
            want = f"a UbPtr[{t.elem.name}] for `{self.decl}`"
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

    def __init__(
        self, mod: CppModule, fn: _Fn, display: str, params: list[_Param], source: str, run: Callable[..., None]
    ) -> None:
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
            if v is None or _dtype_of(s["type"]) is not v:
                return False
        elif not (
            "value" in s and isinstance(v, (int, enum.Enum)) and int(v.value if isinstance(v, enum.Enum) else v) == s["value"]
        ):
            return False
    return True


class CppModule:
    """A parsed C++ source: its `__simd_vf__` functions, instantiated on demand (and cached)."""

    def __init__(self, path: str, functions: list[_Fn], consts: dict[str, Any] | None = None) -> None:
        self.path = path
        self.consts: dict[str, Any] = consts or {}  #: the file's global constants (AST nodes)
        #: every definition of each name, in file order: overloads, explicit specializations, a primary
        #: template declared without a body
        self.definitions: dict[str, list[_Fn]] = {}
        for f in functions:
            self.definitions.setdefault(f.name, []).append(f)
        #: each name's primary: its template (or only function), the first defined one
        self.functions = {n: next((f for f in fs if f.spec is None and f.defined), fs[0]) for n, fs in self.definitions.items()}
        self._cache: dict[Any, VfFunction] = {}

        self.globals: dict[str, Any] = {"rs": _RS, "Reg": Reg, **RUNTIME, "__name__": "regsim_cpp"}
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

    def callee(self, name: str, tvals: list[Any], resolved: int, line: int) -> _Fn:
        """The definition a call of the helper `name` runs: the one clang resolved it to (`resolved`, its
        line), else the explicit specialization for `tvals`, else the only other definition."""
        defs = [f for f in self.definitions[name] if f.defined]
        hit = next((f for f in defs if f.line == resolved), None)
        hit = hit or next((f for f in defs if f.spec is not None and _matches(f.spec, tvals)), None)
        if hit is not None:
            return hit
        plain = [f for f in defs if f.spec is None]
        where = f"{self.path}:{line}: the call of {name}"
        if len(plain) > 1:
            lines = ", ".join(str(f.line) for f in plain)
            raise CppError(f"{where}, which has {len(plain)} overloads (lines {lines}) clang did not resolve here: rename them")
        own = [p for p in self.functions[name].tparams if not p.get("outer")]
        if any(f.spec is not None for f in defs) and len(tvals) < len(own):
            raise CppError(
                f"{where} with deduced template arguments: {name} has explicit specializations;"
                f" spell its template arguments ({name}<{', '.join(p['name'] for p in own)}>(...))"
                " so regsim picks the one that runs"
            )
        if not plain:
            raise CppError(f"{where}<{', '.join(_cxx(v) for v in tvals)}>: no definition (only its specializations are defined)")
        return plain[0]

    def callee_name(self, fn: _Fn, env: dict[str, Any]) -> str:
        key = (fn.name, fn.line, tuple(sorted((k, repr(v)) for k, v in env.items())))
        if key not in self._callees:
            self._callees[key] = f"c_{fn.name}_{len(self._callees)}"
        return self._callees[key]

    def check_template_arguments(self, fn: _Fn, targs: dict[str, Any]) -> None:
        """Each template argument given names a template parameter and is of its kind (a dtype for a
        `typename`, an int for an integer, a member for an enum); every one the VF needs is given."""
        api = f"{self.path}:{fn.line}: {fn.name}"
        params = {p["name"]: p for p in fn.tparams}
        shown = ", ".join(f"{k}={_cxx(v)}" for k, v in targs.items())
        if targs and not params:
            raise CppError(f"{api} is not a template; given the template arguments {shown}: call mod.{fn.name}(...) directly")
        for k, v in targs.items():
            p = params.get(k)
            if p is None:
                raise CppError(
                    f"{api}: no template parameter {k} (given {k}={_cxx(v)}); its template parameters: {', '.join(params)}"
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

    def definition(self, fn: _Fn, targs: dict[str, Any]) -> _Fn:
        """The definition `fn<targs>` runs: its explicit specialization for `targs`, else the primary template."""
        vals = [targs.get(p["name"]) for p in fn.tparams if not p.get("outer")]
        specs = [f for f in self.definitions[fn.name] if f.spec is not None]
        hit = next((f for f in specs if _matches(f.spec or [], vals)), None)
        if hit is not None:
            return hit
        if not fn.defined:
            shown = ", ".join(f"{fn.name}<{', '.join(_cxx_spec(a) for a in f.spec or [])}>" for f in specs)
            raise CppError(
                f"{self.path}:{fn.line}: {fn.name}<{', '.join(_cxx(v) for v in vals)}> has no definition:"
                f" the template is declared without a body and specialized as {shown or 'nothing'} only"
            )
        return fn

    def instantiate(self, name: str, /, *positional: Any, **targs: Any) -> VfFunction:
        """`name<targs...>`: template arguments in the C++ order or by C++ name (`T=rs.uint32`), as dtypes,
        enum members or ints (a class template's parameters first)."""
        self[name]  # a VF of this file, or CppError
        fn = self.functions[name]
        if len(positional) > len(fn.tparams):
            n = len(fn.tparams)
            extra = ", ".join(_cxx(v) for v in positional[n:])
            takes = f"takes {n} template argument{'s' * (n != 1)} ({', '.join(p['name'] for p in fn.tparams)})"
            raise CppError(
                f"{self.path}:{fn.line}: {name} {takes if n else 'is not a template'}; given {len(positional)}: remove {extra}"
            )
        for p, v in zip(fn.tparams, positional, strict=False):
            if p["name"] in targs:
                raise CppError(
                    f"{self.path}:{fn.line}: {name}: the template argument {p['name']} given twice (in order and by name)"
                )
            targs[p["name"]] = v
        self.check_template_arguments(fn, targs)
        key = (name, tuple(sorted((k, repr(v)) for k, v in targs.items())))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        own = [targs[p["name"]] for p in fn.tparams if p["name"] in targs]
        display = f"{name}<{', '.join(_cxx(v) for v in own)}>" if own else name
        pyname = f"vf_{name}_{len(self._cache)}"
        main = _Lowerer(self, self.definition(fn, targs), dict(targs), pyname)
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
        todo = list(main.callees)
        done: set[str] = set()
        callees: list[str] = []
        while todo:
            cname, cfn, env = todo.pop()
            if cname in done or cname in self.globals:
                continue
            done.add(cname)
            low = _Lowerer(self, cfn, env, cname)
            lines += ["", *low.lower()]
            where += [cfn.line, *low.where]
            names[cname] = cfn.name
            callees.append(cname)
            todo += low.callees
        source = "\n".join(lines) + "\n"
        filename = f"<regsim-cpp {os.path.basename(self.path)} {pyname}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        _ORIGINS[filename] = _Origin(self.path, where, names)
        ns = self.globals
        try:
            exec(compile(source, filename, "exec"), ns)
            for cname in callees:
                ns[cname] = simd_callee(ns[cname])
                rewrite_now(ns[cname])
            run = simd_vf(ns[pyname])
            rewrite_now(run)
        except SyntaxError as e:  # Python's own limits (20 nested blocks), before or after the loop rewrite
            line = where[e.lineno - 1] if e.lineno and 0 < e.lineno <= len(where) else fn.line
            raise CppError(f"{self.path}:{line} (in {display}): {_syntax_limit(e)}") from None
        params = [_Param(p["name"], main.type_of(p["t"], p["tk"], p["l"]), main.decl(p)) for p in main.fn.params]
        vf = VfFunction(self, main.fn, display, params, source, run)
        self._cache[key] = vf
        return vf


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
    t = _strip(p.get("t", "")).replace("&", "").strip()
    cls = getattr(enums, t, None)
    if isinstance(cls, type) and issubclass(cls, enum.Enum):
        names, where = list(cls.__members__), "rs.Reg" if hasattr(Reg, t) else "rs.AscendC"
        return (lambda v: isinstance(v, cls)), f"a member of {where}.{t} ({', '.join(names[:4])}{', ...' * (len(names) > 4)})"
    d = _dtype_of(t)
    if d is not None and d.name in _DT_INT:
        return (lambda v: isinstance(v, (int, np.integer)) and not isinstance(v, enum.Enum)), f"an int (`{t} {p['name']}`)"
    return None


def _cxx_spec(a: dict[str, Any]) -> str:
    """An explicit specialization's template argument as C++ spells it."""
    if "type" in a:
        d = _dtype_of(a["type"])
        return _cxx(d) if d is not None else str(a["type"])
    return str(a.get("value", a.get("other", "?")))


#: what a parse error on an undeclared `asc_*` name adds
_C_HINT = " (a C API function regsim does not model: rs.capi.REGISTER_API lists the register-level ones it runs)"
PARSE_TIMEOUT = 300  #: seconds a parse may take before its child process is stopped
#: parsed files by (path, mtime, size, clang arguments): each parsed once, each instantiation lowered once
_MODULES: dict[Any, CppModule] = {}


def load(path: str | os.PathLike[str], *, args: tuple[str, ...] = ()) -> CppModule:
    """Parse `path` (in a child process, with regsim's generated declarations) → its VFs.

    `args` are extra clang arguments (`-D...`, `-I...`). Parse errors raise `CppError` listing
    each diagnostic as file:line.
    """

    if not isinstance(path, (str, os.PathLike)):
        raise ParameterError(message("rs.cpp.load", "path", _shown(path), "the path of a C++ source file (a str or Path)"))
    if isinstance(args, str) or not all(isinstance(a, str) for a in args):
        accepted = "a tuple of clang arguments, e.g. args=('-DSCENARIO_NUM=2',) (a str alone is not one: mind the comma)"
        raise ParameterError(message("rs.cpp.load", "args", _shown(args), accepted))
    path = os.fspath(path)
    if not os.path.isfile(path):
        what = "not a file" if os.path.exists(path) else "no such file"
        raise CppError(f"{path}: {what} (rs.cpp.load takes the path of a C++ source file: .asc, .cpp, .h)")
    st = os.stat(path)
    args = tuple(args)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size, args)
    if key not in _MODULES:
        request = json.dumps({"path": path, "header": header(), "args": list(args)})
        # the child runs the parser file itself (it imports only the standard library and clang)
        try:
            proc = subprocess.run(
                [sys.executable, cpp_parse.__file__],
                input=request,
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
        out = json.loads(proc.stdout)
        functions = [_Fn(f) for f in out["functions"]]
        device = [(f.line, f.end) for f in functions if f.what != "plain"]
        errors = [d["text"] for d in out["diagnostics"] if any(a <= d["line"] <= b for a, b in device)]
        errors = [e + (_C_HINT if "undeclared identifier 'asc_" in e else "") for e in errors]
        if errors:
            raise CppError(f"{path}: parse errors:\n" + "\n".join(errors))
        mod = CppModule(path, functions, out["consts"])
        mod.host_diagnostics = [d["text"] for d in out["diagnostics"] if d["text"] not in errors]
        _MODULES[key] = mod
    return _MODULES[key]


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
