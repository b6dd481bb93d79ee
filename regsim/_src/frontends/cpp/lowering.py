"""The C++ -> Python lowering of one function of a parsed file (module.py loads files and runs the result).

A `__simd_vf__` function's AST (parse.py's JSON), for one instantiation's template arguments, becomes Python
source calling regsim's public API (`VfFunction.source` shows it), with C semantics for scalars (integer
promotion, wraparound, truncating division, float/half rounding), references (`uint32_t&` -> `rs.Ref`),
pointers passed by value and post-updated in place, `__simd_callee__` helpers, `constexpr` and `if
constexpr`, explicit specializations. Template arguments and the values of constants are folded from the AST
(`Lowerer.constant`), never evaluated as text. Anything else is a `CppError` naming the construct and its
source line.
"""

from __future__ import annotations

import enum
import functools
import operator
import os
import re
import types
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, Protocol

import numpy as np

from regsim._src.engine.context import Ref, vf_context
from regsim._src.engine.per_iteration import Affine, Unbatchable
from regsim._src.engine.spec import Kind, Role
from regsim._src.frontends.capi.register import C_CONSTANTS, FORMS, function, result
from regsim._src.frontends.cpp.declarations import C_TYPES, CAST_TRAITS, CTYPES, SHIM_FUNCTIONS, TAG_TYPES, VF_LEN, leading_t
from regsim._src.model import dtypes as dt
from regsim._src.model import enums
from regsim._src.model.config import current_config
from regsim._src.model.lazy import ml_dtypes
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops import REGISTRY
from regsim._src.ops import namespace as Reg
from regsim._src.vf import debug
from regsim.errors import UnsupportedError


class CppError(UnsupportedError):
    """A C++ source regsim cannot run: a parse error, or a construct or Reg function it does not model."""


# --- C scalar types ------------------------------------------------------------------------------------
_INT_KINDS = {"BOOL": (1, False), "CHAR_S": (8, True), "SCHAR": (8, True), "CHAR_U": (8, False), "UCHAR": (8, False)}
_INT_KINDS |= {"SHORT": (16, True), "USHORT": (16, False), "INT": (32, True), "UINT": (32, False)}
_INT_KINDS |= {"LONG": (64, True), "ULONG": (64, False), "LONGLONG": (64, True), "ULONGLONG": (64, False)}
_FLOAT_KINDS = {"FLOAT": "_f32", "DOUBLE": "", "HALF": "_f16", "FLOAT16": "_f16"}
#: the dtypes of the C integer types, by name: (bits, signed)
INT_DTYPES = {"int8": (8, True), "uint8": (8, False), "int16": (16, True), "uint16": (16, False), "int32": (32, True)}
INT_DTYPES |= {"uint32": (32, False), "int64": (64, True), "uint64": (64, False), "bool_": (1, False)}
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


def _bit_count(count: Callable[[int], int]) -> Callable[[Any], Any]:
    """An AscendC scalar bit count of a uint64_t (`count` of its value, 0 <= v < 2**64), per iteration for a value
    that differs by iteration in a batched loop."""

    def run(x: Any) -> Any:
        if isinstance(x, Affine):
            return Affine(np.array([count(int(v) & 0xFFFFFFFFFFFFFFFF) for v in x.values], dtype=np.int64))
        return count(int(x) & 0xFFFFFFFFFFFFFFFF)

    return run


#: AscendC's scalar bit counts (the pages under 标量计算), by name: the helper running each and the template argument
#: it takes (GetBitCount<countValue>: the bit value counted, 0 or 1); their former names (ScalarCountLeadingZero,
#: ScalarGetCountOfValue) are the same functions
_BIT_COUNTS = {"CountLeadingZero": ("_clz", False), "GetBitCount": ("_ones", True)}
_BIT_COUNTS |= {"ScalarCountLeadingZero": _BIT_COUNTS["CountLeadingZero"], "ScalarGetCountOfValue": _BIT_COUNTS["GetBitCount"]}


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


def _bit_cast(x: Any, src: str, dst: str) -> Any:
    """`*(U*)&x` / `*reinterpret_cast<const U*>(&x)` of a scalar `x` held as `src` (a numpy type name, `bfloat16`
    ml_dtypes'): the first itemsize(dst) bytes of its representation (little-endian) read as `dst`, bits kept."""
    if not isinstance(x, (int, float, np.integer, np.floating)):  # (a batched loop's index: per iteration, in order)
        raise Unbatchable("a bit cast of a value that differs by iteration")
    s, d = (np.dtype(ml_dtypes.bfloat16) if t == "bfloat16" else np.dtype(t) for t in (src, dst))
    out = np.array([x], s).view(np.uint8)[: d.itemsize].view(d)[0]
    return int(out) if d.kind in "iu" else float(out)


def _zero_keeps(f: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A divide-and-round helper that returns the dividend for a zero divisor (the libraries' `ops::CeilDiv` rule)."""
    return lambda a, b: a if isinstance(b, int) and b == 0 else f(a, b)


#: the stand-ins of the operator libraries' helpers (declarations.SHIM_HEADERS), on C integers, and the scalar sqrt
_SHIM_RUN: dict[str, Callable[..., Any]] = {
    "GetVRegSize": lambda: VF_LEN,
    "GetUbBlockSize": lambda: 32,
    "CeilDiv": _zero_keeps(lambda a, b: _c_div(a + b - 1, b)),
    "CeilAlign": _zero_keeps(lambda a, b: _c_div(a + b - 1, b) * b),
    "FloorDiv": _zero_keeps(_c_div),
    "FloorAlign": _zero_keeps(lambda a, b: _c_div(a, b) * b),
    "Ceil": lambda a, b: _c_div(a + b - 1, b),
    "Aligned": _zero_keeps(lambda a, b: _c_div(a + b - 1, b) * b),
    "sqrt": lambda x: float(np.sqrt(np.float32(x))),
    "sqrtf": lambda x: float(np.sqrt(np.float32(x))),
    "ToFloat": float,
}

RUNTIME: dict[str, Any] = {
    "_SHIM": _SHIM_RUN,
    "_copy": _copy,
    "_bit_cast": _bit_cast,
    "_div": _c_div,
    "_rem": _c_rem,
    "_more": _more,
    "_ceil_division": _ceil_division,
    "_clz": _bit_count(lambda v: 64 - v.bit_length()),  # (64 for 0)
    "_ones": _bit_count(lambda v: bin(v).count("1")),
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


def runtime_names() -> dict[str, Any]:
    """The names the generated code of one file runs with (its module globals, before its functions)."""
    return {"rs": _RS, "Reg": Reg, **RUNTIME, "__name__": "regsim_cpp"}


#: what `known` gives for a name whose value is not known when lowering
_UNKNOWN: Any = object()
#: C's operators on constants (the results converted to the expression's type by `Lowerer.value_as`)
_UNARY: dict[str, Callable[[Any], Any]] = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "!": lambda a: int(not a)}
_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": _c_div,
    "%": _c_rem,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "&&": lambda a, b: int(bool(a) and bool(b)),
    "||": lambda a, b: int(bool(a) or bool(b)),
    "<": lambda a, b: int(a < b),
    ">": lambda a, b: int(a > b),
    "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b),
    "==": lambda a, b: int(a == b),
    "!=": lambda a, b: int(a != b),
}


def _const_ref(p: dict[str, Any]) -> bool:
    """Whether a helper's parameter is a reference to a constant (`const T& v`): the helper cannot write through it and
    C++ binds it to any value (`F(x + 1)` too), so a scalar one is passed as its value."""
    return p["tk"] == "LVALUEREFERENCE" and re.fullmatch(r"const\s+[^*&]*&", p["t"].strip()) is not None


def _held(t: Ty) -> tuple[str, int]:
    """The numpy type holding a C scalar type's bits (`bfloat16`: ml_dtypes'), and its size in bytes."""
    if t.what == "int":
        return f"{'' if t.signed else 'u'}int{max(t.bits, 8)}", max(t.bits, 8) // 8
    return {"_f32": ("float32", 4), "_f16": ("float16", 2), "_bf16": ("bfloat16", 2), "": ("float64", 8)}[t.rnd]


class RegType(str):
    """A local type alias of a register type for one instantiation (`using R = std::conditional_t<sizeof(T) == 8,
    RegTensor<T, RegTraitNumTwo>, RegTensor<T>>;`): the register type it names, spelled without parameters."""


class Ty:
    """A C type as the lowering needs it: an integer (bits, signed), a float (rounding helper),
    a pointer (its element dtype), a register type, or something else (`other`)."""

    def __init__(self, what: str, bits: int = 0, signed: bool = False, rnd: str = "", elem: Any = None) -> None:
        self.what, self.bits, self.signed, self.rnd, self.elem = what, bits, signed, rnd, elem

    @property
    def wrap(self) -> str:
        return f"_{'i' if self.signed else 'u'}{self.bits}"


def strip(spelling: str) -> str:
    s = spelling.replace("const ", "").replace("volatile ", "").replace("__ubuf__ ", "").strip()
    for ns in ("AscendC::Reg::", "AscendC::MicroAPI::", "AscendC::", "Reg::", "MicroAPI::", "struct ", "enum ", "std::"):
        s = s.replace(ns, "")
    s = re.sub(r"^(?:\w+::)+(?=(?:RegTensor|MaskReg|AddrReg|UnalignReg\w*)\b)", "", s.strip())  # `namespace MA = ...`
    base = s.rstrip("&* ")
    if base in C_TYPES:  # a C API register type (`vector_float`, `vector_bool`): the Reg type it stands for
        s = C_TYPES[base] + s[len(base) :]
    return s


#: the C++ builtin integer types' spellings (besides the <stdint.h> ones of CTYPES), as dtypes
_BUILTIN_INTS = {"unsigned int": "uint32", "int": "int32", "unsigned short": "uint16", "short": "int16"}
_BUILTIN_INTS |= {"unsigned char": "uint8", "signed char": "int8", "char": "int8", "unsigned long": "uint64", "long": "int64"}
#: a dtype's C++ spelling (`float` for rs.float32), for messages and specializations
_CNAMES = {v: k for k, v in CTYPES.items()}


#: the compiler's names of float and half
_COMPILER_FLOATS = {"float32_t": "float32", "float16_t": "half"}


def dtype_of(spelling: str) -> Any:
    """The dtype a C++ element type spells (`float`, `AscendC::half`, `unsigned int`), None for another type."""
    s = strip(spelling).replace("*", "").replace("&", "").strip()
    name = CTYPES.get(s) or _BUILTIN_INTS.get(s) or _COMPILER_FLOATS.get(s)
    return getattr(dt, name) if name else None


def _reg_element(spelled: str, element: str, canonical: str) -> str:
    """The canonical spelling of the element type of the register type `spelled` (`RegTensor<computeType>`) where
    it spells `element` and `canonical` is clang's canonical spelling of that type; else ''."""
    s, c = strip(spelled).rstrip("&* "), strip(canonical).rstrip("&* ")
    if not (s.startswith("RegTensor<") and c.startswith("RegTensor<") and s.endswith(">") and c.endswith(">")):
        return ""
    if strip(_split_targs(s[s.index("<") + 1 : -1])[0]) != element:
        return ""
    return _split_targs(c[c.index("<") + 1 : -1])[0]


def cxx(v: Any) -> str:
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
#: the register types other than RegTensor
_REGISTERS = ("MaskReg", "AddrReg", "UnalignRegForLoad", "UnalignRegForStore", "UnalignReg")
_TYPE_KIDS = ("TYPE_REF", "NAMESPACE_REF", "TEMPLATE_REF")
#: the explicit casts (C-style, functional, static_cast, reinterpret_cast)
_CASTS = ("CSTYLE_CAST_EXPR", "CXX_FUNCTIONAL_CAST_EXPR", "CXX_STATIC_CAST_EXPR", "CXX_REINTERPRET_CAST_EXPR")
#: the Ascend C structs regsim models (CastTrait, DivSpecificMode, ...), by C++ name
_STRUCTS = {
    n: c for n, c in vars(enums).items() if isinstance(c, type) and issubclass(c, enums._Struct) and c is not enums._Struct
}
#: compile-time type traits (namespace-free names; each also as `name_v`, without `::value`): the type comparisons
#: and the standard library's logical traits over other traits
_TRAITS = {"IsSameType": "same", "is_same": "same", "negation": "not", "conjunction": "all", "disjunction": "any"}
#: the type choices an alias may spell (`std::conditional_t<c, A, B>`, `std::conditional<...>::type`, AscendC's
#: `Conditional<...>::type`)
_CONDITIONALS = ("conditional", "conditional_t", "Conditional")


def _pattern_matches(pattern: list[str], given: list[Any]) -> bool:
    """Whether the dtypes `given` match a partial specialization's arguments (`type-parameter-0-K`: its K-th
    parameter, the same type wherever it stands; another spelling: that type)."""
    if len(pattern) != len(given):
        return False
    bound: dict[str, Any] = {}
    for p, g in zip(pattern, given, strict=True):
        if p.startswith("type-parameter-"):
            if bound.setdefault(p, g) is not g:
                return False
        elif dtype_of(p) is not g:
            return False
    return True


def _trait_args(toks: list[str], nested: bool) -> tuple[str, list[list[str]]] | None:
    """A trait's name and its template arguments' tokens (`is_same < T , float > :: value`, or as the argument of
    another trait `nested`, `is_same < T , float >`); None for another expression. Namespaces are left out; `>>`
    closes two argument lists."""
    spelled = [t for t in toks if t != "typename"]
    # (namespaces left out: a name before `::`, and the `::`s)
    toks = [t for i, t in enumerate(spelled) if t != "::" and not (spelled[i + 1 : i + 2] == ["::"] and t[:1].isidentifier())]
    toks = [x for t in toks for x in ([">", ">"] if t == ">>" else [t])]
    if len(toks) < 3 or toks[1] != "<":
        return None
    args: list[list[str]] = [[]]
    depth = 0
    for i, t in enumerate(toks[2:], 2):
        if t == ">" and depth == 0:
            rest = toks[i + 1 :]
            if rest != ([] if nested or toks[0].endswith("_v") else ["value"]):
                return None
            return toks[0].removesuffix("_v"), [a for a in args if a]
        depth += {"<": 1, ">": -1}.get(t, 0)
        if t == "," and depth == 0:
            args.append([])
        else:
            args[-1].append(t)
    return None


#: the one-type traits the shim declares (declarations.TRAITS), by name (`_v`: its variable): the dtypes they hold for
_UNARY_TRAITS: dict[str, frozenset[Any]] = {
    "is_integral": frozenset((dt.bool_, dt.int8, dt.uint8, dt.int16, dt.uint16, dt.int32, dt.uint32, dt.int64, dt.uint64)),
    "is_floating_point": frozenset((dt.float32,)),
}


def numeric_limit(name: str, d: Any) -> str | None:
    """`AscendC::NumericLimits<T>::<name>()` (the pages under 工具接口/NumericLimits工具类) as Python code: Max / Lowest
    the largest and the most negative finite values, Min the smallest positive normal float (an integer type's
    minimum), Infinity, NegativeInfinity, QuietNaN and DeNormMin (floats only); None for another name or type."""
    npd = np.dtype(d.np_dtype)
    if npd.kind in "iu":
        info = np.iinfo(npd)
        return {"Max": str(info.max), "Lowest": str(info.min), "Min": str(info.min)}.get(name)
    if d.name not in ("half", "bfloat16", "float32"):
        return None
    f = ml_dtypes.finfo(npd)
    values = {
        "Max": float(f.max),
        "Lowest": -float(f.max),
        "Min": float(f.tiny),
        "Infinity": np.inf,
        "NegativeInfinity": -np.inf,
        "QuietNaN": np.nan,
        "DeNormMin": float(f.smallest_subnormal),
    }
    return f"float({str(values[name])!r})" if name in values else None


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


class Fn:
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
        self.file: str = d.get("file", "")  #: the file defining it (the loaded file or a header it includes)
        self.ns: str = d.get("ns", "")  #: the namespace defining it (`ops::detail`; "" for the global one)
        #: a member function's class (`file:line` of its definition), else None; a constructor's kind is CONSTRUCTOR
        self.cls: str | None = d.get("cls")
        self.kind: str = d.get("kind", "FUNCTION_DECL")
        self.static: bool = d.get("static", False)
        #: a constructor's member initializers (`: pipe_(pipe)`): {"member", "l", "c": [the value's node]}
        self.inits: list[dict[str, Any]] = d.get("inits", [])
        #: the parse errors inside the function (file:line each): it is refused when lowered, its file still loads
        self.errors: list[str] = []


class Call(NamedTuple):
    """What picks the definition a call of an overloaded helper runs where clang did not resolve it (in a template):
    the definition clang named (`file:line`, or ""), the namespaces spelled before the name (`ops::F`), the
    number of arguments, the calling function's namespace and class (its place, or None) and the arguments' types in
    this instantiation (`Lowerer.arg_type`: `RegTensor<float>`, `MaskReg`, `float*`, `int`, `float`; "" where not
    known)."""

    at: str
    spelled: list[str]
    nargs: int
    scope: str
    args: tuple[str, ...] = ()
    cls: str | None = None


def accepts(param: str, arg: str) -> bool:
    """Whether a helper's parameter of the C++ type `param` takes an argument of the type `arg` (`Call.args`), as C++'s
    overload resolution sees it: a register parameter a register of its type (a template parameter's element: any
    element), a pointer parameter a pointer to its element (`void*` any), a scalar parameter any scalar (C++ converts
    between them); a parameter of another type (a template parameter's), or an argument of a type not known, any."""
    s = strip(param).rstrip("&").strip()
    if not arg or not s:
        return True
    if s.startswith("RegTensor<") or s in _REGISTERS:
        if not arg.startswith("RegTensor<") and arg not in _REGISTERS:
            return False
        if s in _REGISTERS or arg in _REGISTERS:
            return s == arg or (s == "UnalignReg" and arg.startswith("Unalign"))
        mine, given = (_split_targs(x[x.index("<") + 1 : x.rindex(">")]) for x in (s, arg))
        element = dtype_of(mine[0])
        return (element is None or element is dtype_of(given[0])) and ("RegTraitNumTwo" in s) == ("RegTraitNumTwo" in arg)
    if s.endswith("*"):
        element = dtype_of(s[:-1])
        return arg.endswith("*") and (element is None or element is dtype_of(arg[:-1]))
    if dtype_of(s) is not None:
        return arg in ("int", "float")
    return True


class Source(Protocol):
    """What lowering a function needs of its parsed file (module.CppModule)."""

    path: str
    consts: dict[str, Any]  #: the file's global constants (AST nodes)
    functions: dict[str, Fn]  #: each name's primary definition
    definitions: dict[str, list[Fn]]  #: every definition of each name
    globals: dict[str, Any]  #: the generated code's globals (lowering adds struct constants)

    def callee(self, name: str, tvals: list[Any], resolved: int, line: int, call: Call | None = None) -> Fn: ...
    def callee_name(self, fn: Fn, env: dict[str, Any]) -> str: ...


#: the compiler builtins kernels call for float constants
_BUILTIN_VALUES = {"__builtin_inff": "float('inf')", "__builtin_inf": "float('inf')", "__builtin_huge_valf": "float('inf')"}
_BUILTIN_VALUES |= {"__builtin_nanf": "float('nan')", "__builtin_nan": "float('nan')"}

#: declarations inside a function that only name things (clang resolved the names they bring)
_NAME_ONLY_DECLS = (
    *("USING_DIRECTIVE", "USING_DECLARATION", "STATIC_ASSERT", "STRUCT_DECL", "CLASS_DECL", "NAMESPACE_ALIAS"),
    "UNION_DECL",  # (a local union's definition: kernel code's variables of its type are `_Union`s)
)


def default_arg(a: dict[str, Any]) -> bool:
    """Whether a call's argument is one it leaves out (clang's default argument: an unexposed expression of no
    tokens, children or place)."""
    return a["k"] == "UNEXPOSED_EXPR" and not a["c"] and not a.get("toks") and not a.get("l")


def _alias_tokens(toks: list[str]) -> list[str]:
    """The aliased type's tokens of `using X = ...` or `typedef ... X`."""
    toks = [t for t in toks if t != ";"]
    return toks[toks.index("=") + 1 :] if toks[:1] == ["using"] and "=" in toks else toks[1:-1]


def _last_two_args(toks: list[str]) -> tuple[list[str], list[str]]:
    """The last two template arguments among `toks` (a condition, then two types): read from the right, as
    types have no comparison operators in them while the condition may."""
    out: list[list[str]] = [[]]
    depth = 0
    for t in reversed(toks):
        depth += {">": 1, "<": -1}.get(t, 0)
        if t == "," and depth == 0:
            if len(out) == 2:
                break
            out.append([])
            continue
        out[-1].insert(0, t)
    return out[1], out[0]


@functools.cache
def reg_specs(name: str) -> tuple[Any, ...]:
    """The overloads a Reg function name has: its own, or those of every op it is a legacy alias of
    (`DataCopy`: LoadAlign's and StoreAlign's)."""
    entry = REGISTRY.entries.get(name)
    if entry is not None:
        return tuple(entry.specs)
    return tuple(s for s in REGISTRY.specs.values() if name in s.aliases)


def _scalar_dtype(t: Ty) -> Any:
    """The dtype of the C scalar type `t` (None for double and for a type that is no scalar)."""
    if t.what == "int":
        name = "bool_" if t.bits == 1 else f"{'' if t.signed else 'u'}int{t.bits}"
        return getattr(dt, name, None)
    return {"_f32": dt.float32, "_f16": dt.half, "_bf16": dt.bfloat16}.get(t.rnd) if t.what == "float" else None


def _deduced(n: dict[str, Any]) -> bool:
    """Whether the declaration or name `n` has a type C++ deduces (`auto`, `auto*`, `const auto&`)."""
    return n.get("tk") == "AUTO" or re.search(r"\bauto\b", n.get("t", "")) is not None


def _walk(n: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield n
    for c in n["c"]:
        yield from _walk(c)


class Lowerer:
    """Lowers one function instantiation to Python source lines."""

    def __init__(self, mod: Source, fn: Fn, env: dict[str, Any], pyname: str) -> None:
        self.mod, self.fn, self.env, self.pyname = mod, fn, env, pyname
        self.lines: list[str] = []
        #: the C++ line each of `lines` came from (for errors raised while the VF runs)
        self.where: list[int] = []
        self.at = fn.line  #: the C++ line being lowered
        self.loops = 0  #: the `while` loops lowered so far (each counts its iterations: max_loop_iterations)
        self.refvars: set[str] = set()
        #: the values of local constants of enum and struct type, for template arguments
        self.constants: dict[str, Any] = {}
        self.vartypes: dict[str, Ty] = {}
        self.callees: list[tuple[str, Fn, dict[str, Any]]] = []
        self._expanding: tuple[str, ...] = ()  #: the alias templates being expanded (innermost last)
        #: parameters taken by reference (`MaskReg& m`): assigning them a new register would rebind only here
        self.refparams = {p["name"] for p in fn.params if p["tk"] == "LVALUEREFERENCE"}

    # --- errors and types ---
    def fail(self, n: dict[str, Any] | int, what: str) -> CppError:
        line = n if isinstance(n, int) else n.get("l", 0)
        return CppError(f"{self.mod.path}:{line}: {what} (in {self.fn.name}): regsim's C++ front end does not support it")

    def dtype(self, spelling: str, n: dict[str, Any] | int = 0) -> Any:
        s = strip(spelling).replace("*", "").replace("&", "").strip()
        s = s.rsplit("::", 1)[-1].strip() if s.rsplit("::", 1)[-1].strip() in self.env else s  # `Cls::RangeType`
        if s in self.env and dt.is_dtype(self.env[s]):
            return self.env[s]
        d = dtype_of(s)
        own = isinstance(n, dict) and strip(n.get("t", "")).replace("*", "").replace("&", "").strip() == s  # (n's type)
        canonical = n.get("ts", "") if isinstance(n, dict) and own else ""
        if d is None and isinstance(n, dict) and not own:  # n's register type's element (`RegTensor<computeType>`)
            canonical = _reg_element(n.get("t", ""), s, n.get("ts", ""))
        if d is None and canonical and "type-parameter" not in canonical:
            d = dtype_of(canonical)  # an alias clang resolved (`using RangeType = int32_t;` at namespace scope)
        if d is None and s.endswith(">") and dt.is_dtype(named := self.spelled_alias_template(s)):
            d = named  # `Wide<T>` of `template <typename T> using Wide = std::conditional_t<...>;`
        if d is None:
            raise self.fail(n, f"the element type {spelling!r}")
        return d

    def type_key(self, spelling: str, n: dict[str, Any]) -> Any:
        """What a type trait compares a type argument by: its dtype, or the name of one of AscendC's data types regsim
        declares without running them (`int4b_t`: `IsSameType<U, int4b_t>::value`, false for every element type)."""
        s = strip(spelling).rsplit("::", 1)[-1].strip()
        return s if s in TAG_TYPES else self.dtype(spelling, n)

    def ty(self, n: dict[str, Any]) -> Ty:
        if _deduced(n) and n.get("k") == "DECL_REF_EXPR" and n.get("rs", n["s"]) in self.vartypes:
            return self.vartypes[n.get("rs", n["s"])]  # an `auto` variable: the type its initializer gave it
        if _deduced(n) and n.get("k") != "VAR_DECL":
            return Ty("other")  # (an expression of an `auto*` variable, `p + off`: its operands' type, `infer`)
        return self.type_of(n.get("t", ""), n.get("tk", ""), n)

    def type_of(self, spelling: str, kind: str, n: dict[str, Any] | int = 0) -> Ty:
        if kind in _INT_KINDS:
            bits, signed = _INT_KINDS[kind]
            return Ty("int", bits, signed)
        if kind in _FLOAT_KINDS:
            return Ty("float", rnd=_FLOAT_KINDS[kind])
        s = self.unalias(strip(spelling))
        if kind in ("LVALUEREFERENCE", "RVALUEREFERENCE") or s.endswith("&"):
            return self.type_of(s.rstrip("&").strip(), "", n)
        if s.endswith("*") and s.startswith(("RegTensor", "MaskReg")):
            return Ty("other")  # an array of registers (`r.reg`, `RegTensor<T> regs[4]`) decayed to a pointer
        if s.endswith("*") and s[:-1].strip() == "void":
            return Ty("ptr")  # `__ubuf__ void*`: an address of no element type (cast before it is read or moved)
        if s.endswith("*"):
            return Ty("ptr", elem=self.dtype(s[:-1], n))
        if s.startswith("RegTensor") or s in ("MaskReg", "AddrReg", "UnalignRegForLoad", "UnalignRegForStore", "UnalignReg"):
            return Ty("reg")
        if kind == "ENUM" and isinstance(getattr(enums, s, None), type):
            return Ty("enum", elem=getattr(enums, s))
        if s in _STRUCTS:
            return Ty("struct", elem=_STRUCTS[s])
        if (s in self.env and dt.is_dtype(self.env[s])) or s in CTYPES or s in ("half", "bfloat16_t"):
            d = self.dtype(s, n)
            if d.name in INT_DTYPES:
                b, sg = INT_DTYPES[d.name]
                return Ty("int", b, sg)
            if d.name in _DT_FLOAT:
                return Ty("float", rnd=_DT_FLOAT[d.name])
        return Ty("other")

    def infer(self, n: dict[str, Any]) -> Ty:
        """An expression's type in this instantiation, also where clang left it dependent (`n + T(2)`): C's usual
        arithmetic conversions on its operands' types (a float operand wins, the wider one of two; integers
        promote to at least 32 bits, unsigned where the unsigned one is at least as wide)."""
        t = self.ty(n)
        kids = [x for x in n["c"] if x["k"] not in _TYPE_KIDS]
        if t.what != "other" or not kids:
            return t
        if n["k"] in ("PAREN_EXPR", "UNEXPOSED_EXPR"):
            return self.infer(kids[-1])
        if n["k"] == "CONDITIONAL_OPERATOR" and len(kids) == 3:
            return self.infer(kids[1])
        if n["k"] == "CALL_EXPR" and n["c"]:
            return self.returned_type(n) or t
        if n["k"] != "BINARY_OPERATOR" or len(kids) != 2:
            return t
        if n.get("op") in ("<", ">", "<=", ">=", "==", "!=", "&&", "||"):
            return Ty("int", 1, False)
        a, b = self.infer(kids[0]), self.infer(kids[1])
        if "ptr" in (a.what, b.what) and n.get("op") in ("+", "-"):
            return a if a.what == "ptr" else b
        if n.get("op") in ("<<", ">>") and a.what == "int":
            return Ty("int", max(32, a.bits), a.signed or a.bits < 32)
        floats = [x for x in (a, b) if x.what == "float"]
        if floats:
            return min(floats, key=lambda x: ("", "_f32", "_f16", "_bf16").index(x.rnd))
        if a.what == b.what == "int":
            bits = max(32, a.bits, b.bits)
            return Ty("int", bits, all(x.signed or x.bits < 32 for x in (a, b) if x.bits == bits))
        return t

    def returned_type(self, n: dict[str, Any]) -> Ty | None:
        """The type a call clang left dependent returns where it does not depend on the callee's template parameters: an
        AscendC scalar bit count's `int64_t`, a helper of the file whose definitions all return one type
        (`uint32_t Width(T x)`); else None (`U Same(U x)`)."""
        name = self.callee_ref(n)[0]
        if name in _BIT_COUNTS:
            return Ty("int", 64, True)
        fns = [f for f in getattr(self.mod, "definitions", {}).get(name, []) if f.defined and f.what != "vf"]
        own = {p["name"] for f in fns for p in f.tparams}
        rets = {f.ret for f in fns}
        if len(rets) != 1 or own & set(re.findall(r"\w+", next(iter(rets)))):
            return None
        t = self.type_of(rets.pop(), "", n)
        return t if t.what in ("int", "float", "ptr") else None

    def returned_register(self, n: dict[str, Any]) -> str:
        """The mask or address register type a call of a Reg function returns (`CreateMask<T>(...)`: "MaskReg",
        `CreateAddrReg<T>(...)`: "AddrReg"), also where clang left its type dependent; else ""."""
        while n["k"] == "UNEXPOSED_EXPR" and n["c"]:
            n = n["c"][0]
        if n["k"] != "CALL_EXPR" or not n["c"]:
            return ""
        name, _, in_reg = self.callee_ref(n)
        returned = {result(spec) for spec in reg_specs(name)} if in_reg and name not in self.mod.functions else set()
        return returned.pop() if len(returned) == 1 and returned & {"MaskReg", "AddrReg"} else ""

    def unalias(self, s: str) -> str:
        """`s` with a register type alias of this instantiation (RegType) or an alias template's type for its arguments
        (`InnerRegType<U>`, `template <typename T> using InnerRegType = std::conditional_t<...>;`) spelled as the type
        it names."""
        base = s.rstrip("&* ")
        alias = self.env.get(base)
        if alias is None and base.endswith(">"):
            named = self.spelled_alias_template(base)
            alias = RegType(cxx(named)) if dt.is_dtype(named) else named
        return alias + s[len(base) :] if isinstance(alias, RegType) else s

    def spelled_alias_template(self, spelled: str) -> Any:
        """The type (a dtype or RegType) the file's alias template `spelled` names (`Name<A, B>`, type arguments
        only) in this instantiation; None where it is no such use."""
        name = spelled[: spelled.index("<")].split("::")[-1].strip()
        if name not in self.alias_templates:
            return None
        try:
            return self.alias_template(name, _split_targs(spelled[spelled.index("<") + 1 : -1]), {})
        except (CppError, StopIteration):
            return None

    def decl(self, p: dict[str, Any]) -> str:
        """A parameter's C++ declaration for this instantiation (`__ubuf__ float* dst`, `uint32_t n`)."""
        t = self.type_of(p["t"], p["tk"], p)
        if t.what == "ptr":
            return f"__ubuf__ {cxx(t.elem) if t.elem is not None else 'void'}* {p['name']}"
        spelled = re.sub(r"\w+", lambda m: cxx(self.env[m[0]]) if dt.is_dtype(self.env.get(m[0])) else m[0], p["t"])
        return f"{spelled} {p['name']}"

    def convert(self, code: str, src: Ty, dst: Ty) -> str:
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
        if k == "CXX_NULL_PTR_LITERAL_EXPR":  # (a pointer parameter's default: no pointer)
            return "None"
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
            src, dst = self.infer(inner), self.ty(n)
            if dst.what == "ptr":
                if src.what == "ptr" and k != "UNEXPOSED_EXPR" and dst.elem is not None:
                    return f"{code}.reinterpret(rs.{dst.elem.name})"
                return code
            return self.convert(code, src, dst)
        if k == "CXX_UNARY_EXPR" or (k == "UNARY_OPERATOR" and n.get("op") in ("sizeof", "alignof")):
            return self.leaf(n)
        if k == "UNARY_OPERATOR" and n["op"] in ("*", "&") and (cast := self.bit_cast(n)) is not None:
            return cast
        if k == "UNARY_OPERATOR":
            op = n["op"]
            a = self.expr(c[0])
            t = self.ty(n)
            if op == "-":
                return self.convert(f"(-{a})", Ty("other"), t) if t.what == "int" else f"(-{a})"
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
        if k == "CALL_EXPR" and len(c) == 2 and c[0]["k"] == "TYPE_REF" and self.ty(n).what in ("int", "float"):
            return self.convert(self.expr(c[1]), self.ty(c[1]), self.ty(n))  # `T(x)`, T a template parameter: a cast
        if k == "CALL_EXPR" and self.invoked_lambda(n) is not None:  # a constant computed by a lambda: its value
            return self.pyvalue(self.constant(n, "the value of a lambda"))
        if k == "CALL_EXPR" and n.get("rk") == "CONSTRUCTOR" and len(c) == 1 and self.ty(n).what == "float":
            return self.convert(self.expr(c[0]), self.infer(c[0]), self.ty(n))  # `half(x)`: rounded to half
        if k == "CALL_EXPR" and n.get("rk") == "CONSTRUCTOR" and len(c) == 1:
            return self.expr(c[0])  # a register copied into a by-value parameter (refused where the callee writes it)
        if k == "CALL_EXPR":
            return self.call(n)
        if k == "MEMBER_REF_EXPR" and n["s"] == "reg" and c and self.ty(c[0]).what == "reg":
            return f"{self.expr(c[0])}.reg"  # `r.reg[k]`: the k-th register of a two-register tensor
        if k == "MEMBER_REF_EXPR" and n.get("toks"):  # `std::is_same<T, float>::value` left dependent
            return self.type_trait(n)
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
        if k == "INIT_LIST_EXPR" and n.get("tk") == "CONSTANTARRAY":  # a constant array's elements
            return f"[{', '.join(self.expr(x) for x in c)}]"
        if k == "STRING_LITERAL":  # a C string (a printf format or %s argument): a Python str
            text = _c_string(n.get("toks") or [n["s"]])
            if text is None:
                raise self.fail(n, f"the string literal {n['s']}")
            return repr(text)
        if k == "ARRAY_SUBSCRIPT_EXPR":  # a scalar read from the UB: p[i]
            return f"{self.expr(c[0])}[{self.expr(c[1])}]"
        raise self.fail(n, f"the C++ expression {k}")

    def bit_cast(self, n: dict[str, Any]) -> str | None:
        """`*(U*)&x`, `*reinterpret_cast<const U*>(&x)` (`n` the `*`): the bits of the scalar `x` read as the scalar type
        `U` of at most its size, as `__builtin_bit_cast` (or a union) reads them; None for a `*` of anything else (a
        pointer: refused as an operator). Any other `&` (an address kept, passed or offset) is a CppError."""
        if n["op"] == "&":
            raise self.fail(n, "taking an address (&) other than for a bit cast of a scalar (*(U*)&x, *reinterpret_cast<U*>(&x))")
        inner, dst = n["c"][0], self.ty(n)
        while inner["k"] in ("PAREN_EXPR", "UNEXPOSED_EXPR", *_CASTS) and [x for x in inner["c"] if x["k"] not in _TYPE_KIDS]:
            if dst.what == "other" and inner["k"] in _CASTS and strip(inner.get("t", "")).endswith("*"):
                dst = self.type_of(strip(inner["t"])[:-1].strip(), "", inner)  # (`*reinterpret_cast<U*>(&t)` in a template)
            inner = [x for x in inner["c"] if x["k"] not in _TYPE_KIDS][-1]
        if inner["k"] != "UNARY_OPERATOR" or inner.get("op") != "&" or not inner["c"]:
            return None
        x = inner["c"][0]
        src = self.infer(x)
        if src.what not in ("int", "float") or dst.what not in ("int", "float") or (dst.what, dst.bits) == ("int", 1):
            raise self.fail(n, f"the bit cast of {x.get('t') or x['k']} to {n.get('t')} (only of a scalar, as a scalar)")
        (sname, ssize), (dname, dsize) = _held(src), _held(dst)
        if dsize > ssize:
            raise self.fail(n, f"the bit cast of {x.get('t')} to the wider {n.get('t')} (it reads past the variable)")
        return f"_bit_cast({self.expr(x)}, {sname!r}, {dname!r})"

    def leaf(self, n: dict[str, Any]) -> str:
        toks: list[str] = n.get("toks", [])
        if toks[:1] == ["sizeof"]:
            inner = "".join(t for t in toks[1:] if t not in "()")
            return str(self.dtype(inner, n).itemsize)
        raise self.fail(n, f"the C++ expression {' '.join(toks) or n['k']}")

    def type_trait(self, n: dict[str, Any]) -> str:
        """`IsSameType<T, half>::value`, `std::is_same<T, float>::value`, `std::is_same_v<T, U>`:
        decided for this instantiation's template arguments."""
        raw = n.get("toks", [])
        value = self.trait_value(raw, n)
        if value is None and len(raw) >= 6 and raw[1] == "<" and raw[-3:-1] == [">", "::"]:  # `Traits<T>::size`
            return self.pyvalue(self.class_constant(raw[0], _split_targs(" ".join(raw[2:-3])), raw[-1], n))
        if value is None:
            raise self.fail(n, f"the dependent expression {' '.join(n.get('toks', [])) or n['s']}")
        return "1" if value else "0"

    def trait_value(self, toks: list[str], n: dict[str, Any], nested: bool = False) -> bool | None:
        """The value of the trait `toks` spells for this instantiation's template arguments, None where it is
        not one of _TRAITS (or its arguments are not what that trait takes)."""
        got = _trait_args(toks, nested)
        if got is not None and got[0] in _UNARY_TRAITS:  # `std::is_integral_v<T>`
            return self.dtype("".join(got[1][0]), n) in _UNARY_TRAITS[got[0]] if len(got[1]) == 1 else None
        if got is not None and got[0] not in _TRAITS:
            return self.user_trait(got[0], got[1], n)
        if got is None:
            return None
        what, args = _TRAITS[got[0]], got[1]
        if what == "same":
            if len(args) != 2:
                return None
            a, b = (self.type_key("".join(x), n) for x in args)
            return bool(a == b)
        values = [self.trait_value(x, n, True) for x in args]
        if None in values or (what == "not" and len(values) != 1):
            return None
        return not values[0] if what == "not" else all(values) if what == "all" else any(values)

    def user_trait(self, name: str, args: list[list[str]], n: dict[str, Any]) -> bool | None:
        """`Name<A, B>::value` of a trait the file defines (`struct IsSame : falseType {}` with the partial
        specialization `IsSame<Tp, Tp> : trueType {}`, or explicit ones): the specialization C++ picks for these type
        arguments (an explicit one, else a partial one whose pattern they match, else the primary template), and its
        `value`, a constant of its own or of the integral-constant base it derives from. None where that is not so."""
        try:
            given = [self.dtype("".join(a), n) for a in args]
        except CppError:
            return None
        structs = [st for st in getattr(self.mod, "structs", {}).values() if st["name"] == name]
        exact = [st for st in structs if st.get("spec") and not st.get("partial") and [dtype_of(a) for a in st["spec"]] == given]
        partial = [st for st in structs if st.get("partial") and _pattern_matches(st["spec"], given)]
        primary = [st for st in structs if st.get("spec") is None and len(st["tparams"]) == len(given)]
        st = (exact or partial or primary or [None])[0]
        if st is None:
            return None
        if "value" in st["statics"]:
            init = [x for x in st["statics"]["value"]["c"] if x["k"] not in _TYPE_KIDS]
            return bool(self.constant(init[-1], f"{name}::value")) if init else None
        for base in st.get("bases_ts", []):
            m = re.fullmatch(r".*<\s*bool\s*,\s*(true|false)\s*>", base)
            if m is not None:
                return m[1] == "true"
        return None

    def declref(self, n: dict[str, Any]) -> str:
        rk, name = n.get("rk", ""), n.get("rs", n["s"])
        if n.get("tk") == "DEPENDENT" and n.get("toks"):
            return self.type_trait(n)
        value = self.known(n)
        if value is not _UNKNOWN:
            return self.pyvalue(value)
        if rk in ("VAR_DECL", "PARM_DECL"):
            if n.get("global"):
                init, const = self.global_constant(n)
                return f"({self.convert(self.expr(init), self.ty(init), self.ty(const))})"
            return self.read(name)
        if rk == "FUNCTION_DECL":
            raise self.fail(n, f"a function reference {name}")
        raise self.fail(n, f"the name {name} ({rk})")

    def known(self, n: dict[str, Any]) -> Any:
        """The value of a name known when the function is lowered (an enumerator, a template argument,
        `RegTraitNumOne/Two`, a C API constant, one of AscendC's CastTrait constants, a constant clang
        folded), else `_UNKNOWN`."""
        rk, name = n.get("rk", ""), n.get("rs", n["s"])
        if rk == "ENUM_CONSTANT_DECL" and isinstance(getattr(enums, strip(n["t"]), None), type):
            return getattr(getattr(enums, strip(n["t"])), name)
        if rk == "ENUM_CONSTANT_DECL" and "v" in n:  # an enumerator of an enum of the file's own: its value
            return int(n["v"])
        if rk == "NON_TYPE_TEMPLATE_PARM" and name not in self.env:
            raise self.fail(n, f"the template argument {name} (not given)")
        if rk == "NON_TYPE_TEMPLATE_PARM" or (name in self.env and rk not in ("VAR_DECL", "PARM_DECL")):
            return self.env[name]
        if rk == "VAR_DECL" and name in ("RegTraitNumOne", "RegTraitNumTwo"):
            return getattr(Reg, name)
        # a constant clang folded: a static constexpr member, a header's `const uint16_t K = ...;`, a variable
        # template's specialization (`std::is_same_v<A, B>`)
        folded = "v" in n and (rk == "UNEXPOSED_DECL" or (rk in ("VAR_DECL", "PARM_DECL") and n.get("global")))
        if rk in ("VAR_DECL", "PARM_DECL") and n.get("global") and name in C_CONSTANTS and name not in self.mod.consts:
            return C_CONSTANTS[name]  # PAT_ALL ...
        if folded:
            t = self.ty(n)
            return self.value_as(float(n["v"]) if t.what == "float" else int(float(n["v"])), t)
        if rk in ("VAR_DECL", "PARM_DECL") and n.get("global"):
            if name in CAST_TRAITS and name not in self.mod.consts:  # AscendC::layoutZMrgZ, ...
                lay, sat, rnd = CAST_TRAITS[name]
                return enums.CastTrait(
                    enums.RegLayout[lay], enums.SatMode[sat], enums.MaskMergeMode.ZEROING, enums.RoundMode[rnd]
                )
        return _UNKNOWN

    def global_constant(self, n: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The initializer and the declaration of the file's global constant `n` names."""
        name = n.get("rs", n["s"])
        const = self.mod.consts.get(name) or self.class_static(name)
        if const is None or (not const.get("constexpr") and "const" not in const.get("t", "")):
            raise self.fail(n, f"the global variable {name} (only constants are supported)")
        init = [x for x in const["c"] if x["k"] not in _TYPE_KIDS]
        if not init:
            raise self.fail(n, f"the global constant {name} without an initializer")
        return init[-1], const

    def class_static(self, name: str) -> dict[str, Any] | None:
        """The declaration of the static member `name` of the function's class or of a class it derives from
        (`constexpr static CastTrait castTrait0 = {...};` in a kernel class), else None."""
        structs = list(getattr(self.mod, "structs", {}).values())
        todo = [st for st in structs if self.fn.cls and st["place"] == self.fn.cls]
        while todo:
            st = todo.pop(0)
            if name in st["statics"]:
                return st["statics"][name]  # type: ignore[no-any-return]
            bases = {strip(b).split("<")[0].split("::")[-1].strip() for b in st.get("bases", ())}
            todo += [b for b in structs if b["name"] in bases]
        return None

    # --- constants: template arguments, enum and struct constants (folded from the AST, never evaluated as text) ---
    def constant(self, n: dict[str, Any], what: str) -> Any:
        """The value of the constant expression `n` (`what` it is, for the error where it is not one): literals,
        the names `known` knows, the function's and the file's constants, `sizeof`, type traits, casts, a
        struct's initializer list and C's operators, with the C semantics the lowered code has (the same
        runtime helpers wrap and round)."""
        k = n["k"]
        kids = [x for x in n["c"] if x["k"] not in _TYPE_KIDS]
        if k == "INTEGER_LITERAL":
            return int(n["v"].rstrip("uUlL"), 0)
        if k == "FLOATING_LITERAL":
            return self.value_as(float(n["v"].rstrip("fFlL")), self.ty(n))
        if k == "CXX_BOOL_LITERAL_EXPR":
            return int(n["v"] in ("true", "1"))
        if k == "DECL_REF_EXPR":
            if n.get("tk") == "DEPENDENT" and n.get("toks"):
                return int(self.type_trait(n))
            value = self.known(n)
            name = n.get("rs", n["s"])
            if value is _UNKNOWN and n.get("rk") == "VAR_DECL" and name in self.constants:
                value = self.constants[name]  # a local constant (`static constexpr CastTrait castTrait = {...}`)
            elif value is _UNKNOWN and n.get("rk") == "VAR_DECL" and n.get("global"):
                init, const = self.global_constant(n)
                value = self.value_as(self.constant(init, what), self.ty(const))
            if value is not _UNKNOWN:
                return value
        elif k in ("PAREN_EXPR", "UNEXPOSED_EXPR", *_CASTS) and kids:  # (a cast: to its type)
            return self.value_as(self.constant(kids[-1], what), self.ty(n))
        elif k == "CALL_EXPR" and n.get("rk") == "CONSTRUCTOR" and len(n["c"]) == 1:
            return self.constant(n["c"][0], what)
        elif k == "CALL_EXPR" and n["c"] and (f := self.callee_ref(n)[0]) in SHIM_FUNCTIONS and f not in self.mod.functions:
            return self.value_as(_SHIM_RUN[f](*(self.constant(a, what) for a in n["c"][1:])), self.ty(n))  # GetVRegSize()
        elif k == "CALL_EXPR" and len(n["c"]) == 1 and (ret := self.returned_constant(n)) is not None:
            return self.value_as(self.constant(ret, what), self.ty(n))  # a helper `{ return 256U; }` (the tree's own)
        elif (body := self.invoked_lambda(n)) is not None:  # `[] { if constexpr (...) return A; else return B; }()`
            return self.value_as(self.lambda_value(body, what), self.ty(n))
        elif k in ("CXX_UNARY_EXPR", "UNEXPOSED_EXPR") or (k == "UNARY_OPERATOR" and n.get("op") in ("sizeof", "alignof")):
            return int(self.leaf(n))
        elif k == "INIT_LIST_EXPR" and self.ty(n).what == "struct":  # CastTrait{...}
            return self.ty(n).elem(
                *(bool(self.constant(x, what)) if x.get("tk") == "BOOL" else self.constant(x, what) for x in n["c"])
            )
        elif k == "MEMBER_REF_EXPR" and n.get("toks"):  # `std::is_same<T, float>::value` left dependent
            return int(self.type_trait(n))
        elif k == "MEMBER_REF_EXPR" and "v" in n:  # a member of a constant struct, folded by clang
            return self.value_as(int(n["v"]) if self.ty(n).what == "int" else float(n["v"]), self.ty(n))
        elif k == "UNARY_OPERATOR" and n.get("op") in _UNARY:
            return self.value_as(_UNARY[n["op"]](self.constant(kids[0], what)), self.ty(n))
        elif k == "BINARY_OPERATOR" and n.get("op") in _BINARY:
            a, b = (self.constant(x, what) for x in kids)
            t, left = self.ty(n), self.ty(kids[0])
            if t.what == "other" and left.what in ("int", "float"):  # a dependent type: the left side's, as `binary`
                t = left if left.what == "float" or left.bits >= 32 else Ty("other")
            return self.value_as(_BINARY[n["op"]](a, b), t)
        elif k == "CONDITIONAL_OPERATOR":
            cond, yes, no = kids
            return self.constant(yes if self.constant(cond, what) else no, what)
        raise self.fail(n, f"{what} {n.get('s') or k} (not a constant)")

    def returned_constant(self, n: dict[str, Any]) -> dict[str, Any] | None:
        """The returned expression of the file's function a call without arguments names, where its body is that one
        `return` and it is no template (`constexpr uint32_t GetVRegSize() { return 256U; }`), else None."""
        fns = [f for f in getattr(self.mod, "definitions", {}).get(self.callee_ref(n)[0], []) if f.defined]
        if len(fns) != 1 or fns[0].params or any(not p.get("outer") for p in fns[0].tparams):
            return None
        body = [x for x in fns[0].body["c"] if x["k"] != "NULL_STMT"]
        if len(body) != 1 or body[0]["k"] != "RETURN_STMT" or len(body[0]["c"]) != 1:
            return None
        return body[0]["c"][0]  # type: ignore[no-any-return]

    @staticmethod
    def invoked_lambda(n: dict[str, Any]) -> dict[str, Any] | None:
        """The body of a lambda without parameters called where it is defined (`[]() { ... }()`), else None."""
        kids = [x for x in n["c"] if x["k"] not in _TYPE_KIDS]
        if n["k"] != "CALL_EXPR" or len(kids) != 1 or kids[0]["k"] != "LAMBDA_EXPR":
            return None
        parts: list[dict[str, Any]] = kids[0]["c"]
        if any(x["k"] == "PARM_DECL" for x in parts) or not parts or parts[-1]["k"] != "COMPOUND_STMT":
            return None
        return parts[-1]

    def lambda_value(self, body: dict[str, Any], what: str) -> Any:
        """The value an invoked lambda's body returns, folded as a constant (its `if`s decided by their
        constant conditions, its `return`s constant expressions): the compile-time tables kernels build with
        `static constexpr CastTrait t = [] { if constexpr (...) return ...; }();`."""
        todo = [body]
        while todo:
            n = todo.pop(0)
            kids = [x for x in n["c"] if x["k"] not in _TYPE_KIDS]
            if n["k"] == "COMPOUND_STMT":
                todo[:0] = kids
            elif n["k"] == "RETURN_STMT" and kids:
                return self.constant(kids[-1], what)
            elif n["k"] == "IF_STMT" and len(kids) in (2, 3):
                todo[:0] = kids[1:2] if self.constant(kids[0], "the condition of an if in a constant lambda") else kids[2:]
            elif n["k"] != "NULL_STMT":
                raise self.fail(n, f"{what}: a lambda whose body is not if and return statements ({n['k']})")
        raise self.fail(body, f"{what}: a lambda that returns no value for these template arguments")

    @staticmethod
    def value_as(value: Any, t: Ty) -> Any:
        """A constant's value converted to the C type `t` (integers wrap, floats round), as `convert` converts code."""
        if isinstance(value, enum.Enum) or not isinstance(value, (int, float)):
            return value
        if t.what == "int":
            return RUNTIME[t.wrap](int(value))
        if t.what == "float":
            return RUNTIME[t.rnd](value) if t.rnd else float(value)
        return value

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
        t, tl, tr = self.infer(n), self.infer(l), self.infer(r)
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
        # (a namespace alias, `namespace MA = AscendC::Reg;`: clang found the name in the namespace it aliases)
        ns = [k["s"] for k in kids if k["k"] == "NAMESPACE_REF" and k.get("rk") != "NAMESPACE_ALIAS"]
        over = [k for k in kids if k["k"] == "OVERLOADED_DECL_REF"]
        name = over[0]["s"] if over else f.get("rs") or f["s"]
        targs = [k for k in kids if k["k"] not in ("NAMESPACE_REF", "OVERLOADED_DECL_REF", "TEMPLATE_REF")]
        t0 = f.get("t0")
        if t0 is not None and t0 != "DefaultType":  # resolved: T from the specialization (a builtin has no TYPE_REF)
            targs = [{"k": "TYPE_REF", "s": t0, "l": f["l"], "c": []}] + [t for t in targs if t["k"] != "TYPE_REF"]
        return name, targs, (not ns) or ns[-1] in ("Reg", "MicroAPI") or ns == ["AscendC"]

    def numeric_limits(self, n: dict[str, Any], elem: Any = None) -> tuple[str, Any] | None:
        """(name, T) of a call of `AscendC::NumericLimits<T>::<name>(...)`, else None: T its template argument, else
        (clang folds a builtin type away) `elem` (the tensor argument's element type) or the call's type."""
        f = self.callee_node(n)
        toks = f.get("toks") or []
        if not any(k["k"] == "TEMPLATE_REF" and k["s"] == "NumericLimits" for k in f["c"]) and "NumericLimits" not in toks:
            return None
        name = f.get("rs") or f["s"] or (toks[len(toks) - toks[::-1].index("::")] if "::" in toks else "")
        given = [k for k in f["c"] if k["k"] == "TYPE_REF"]
        if given:
            return name, self.targ(given[0])
        return name, elem if elem is not None else self.dtype(strip(n["t"]), n)

    def targ(self, t: dict[str, Any]) -> Any:
        if t["k"] == "TYPE_REF":
            s = strip(t["s"])
            if s in self.env:
                return self.env[s]
            return self.dtype(s, t)
        if t["k"] == "UNARY_OPERATOR" and t.get("op") == "&":  # Div<T, &mode>: the struct itself
            return self.targ(t["c"][0])
        return self.constant(t, "the template argument")

    def call(self, n: dict[str, Any]) -> str:

        name, targs, in_reg = self.callee_ref(n)
        args = n["c"][1:]
        local = self.mod.functions.get(name)
        if local is not None and local.what != "vf":
            tvals = [self.targ(t) for t in targs]
            f = self.callee_node(n)
            spelled = [k["s"] for k in f["c"] if k["k"] == "NAMESPACE_REF" and k.get("rk") != "NAMESPACE_ALIAS"]
            call = Call(f.get("rloc", ""), spelled, len(args), self.fn.ns, tuple(self.arg_type(a) for a in args), self.fn.cls)
            local = self.mod.callee(name, tvals, f.get("rl", 0), n["l"], call)
            env = dict(self.env)
            given = list(zip(self.mod.functions[name].tparams, tvals, strict=False))
            for p, v in given:
                env[p["name"]] = v
            found = self.deduced(local, args, {p["name"] for p, _ in given})
            env |= found
            env |= self.defaults(local, env, {p["name"] for p, _ in given} | set(found))
            pyname = self.mod.callee_name(local, env)
            self.callees.append((pyname, local, env))
            parts = []
            for p, a in zip(local.params, args, strict=False):
                is_ref = p["tk"] == "LVALUEREFERENCE" and not _const_ref(p)
                caller_env, self.env = self.env, env  # the parameter's type in the callee's template arguments
                try:
                    ptype = self.type_of(p["t"], p["tk"], p)
                finally:
                    self.env = caller_env
                if default_arg(a):
                    break  # (the arguments the call leaves out: the parameters' defaults, the Python function's)
                if is_ref and ptype.what in ("int", "float"):
                    parts.append(self.ref_arg(a))
                else:
                    parts.append(self.expr(a))
            return f"{pyname}({', '.join(parts)})"
        if name in _DEBUG_CALLS and local is None:
            return self.debug_call(name, targs, args, n)
        if name in ("GetVecLen", "asc_get_vf_len"):
            return str(VF_LEN)
        if name in ("__builtin_abs", "__builtin_labs", "__builtin_llabs") and local is None and len(args) == 1:
            return self.convert(f"abs({self.expr(args[0])})", Ty("other"), self.ty(n))  # (the standard's std::abs on ints)
        if name in _BUILTIN_VALUES and local is None:  # the compiler's __builtin_inff() ...
            return self.convert(_BUILTIN_VALUES[name], Ty("float"), self.ty(n))
        if name in SHIM_FUNCTIONS and local is None:  # the helper headers' stand-ins (Ops::Base::CeilDiv ...)
            parts = [self.expr(a) for a in args]
            return self.convert(f"_SHIM[{name!r}]({', '.join(parts)})", Ty("other"), self.ty(n))
        forms = _c_forms(name)
        if forms:
            return self.c_call(n, name, forms, args)
        if name == "CeilDivision" and len(args) == 2:  # AscendC's int32 (num1 + num2 - 1) / num2, 0 for num2 == 0
            a, b = (self.convert(self.expr(x), self.ty(x), Ty("int", 32, True)) for x in args)
            return f"_ceil_division({a}, {b})"
        if name in _BIT_COUNTS and len(args) == 1:  # CountLeadingZero(v), GetBitCount<1>(v): an int64_t of the uint64_t v
            helper, counted = _BIT_COUNTS[name]
            tvals = [self.targ(t) for t in targs]
            if counted and tvals not in ([0], [1]):
                raise self.fail(n, f"{name}<{', '.join(map(cxx, tvals))}> (its countValue is 0 or 1)")
            counted_code = f"{helper}({self.convert(self.expr(args[0]), self.infer(args[0]), Ty('int', 64, False))})"
            return f"(64 - {counted_code})" if tvals == [0] else counted_code
        limits = self.numeric_limits(n)
        if limits is not None and not args:  # NumericLimits<T>::Max() ...
            code = numeric_limit(*limits)
            if code is None:
                raise self.fail(n, f"NumericLimits<{limits[1].name}>::{limits[0]}")
            return code
        every = reg_specs(name)
        if not every or not in_reg or not hasattr(Reg, name):
            raise self.fail(n, f"the function {name}" + (" (a Reg function regsim does not model)" if in_reg else ""))
        specs = [s for s in every if len(s.positional) - sum(o.kind is Kind.DTYPE for o in s.positional) == len(args)]
        specs = specs or list(every)
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

    def call_args(self, args: list[dict[str, Any]]) -> list[str]:
        """The arguments a call gives (those it leaves out are the parameters' defaults: the Python function's)."""
        return [self.expr(a) for a in args if not default_arg(a)]

    def py_params(self, fn: Fn) -> list[str]:
        """The Python parameters of `fn`: one a parameter, with its C++ default argument (`uint16_t aIndex = 0`) as a
        Python default, converted to the parameter's type, for a call leaving it out."""
        out = []
        for p in fn.params:
            d = p.get("default")
            default = f"={self.convert(self.expr(d), self.ty(d), self.type_of(p['t'], p['tk'], p))}" if d else ""
            out.append(self.var(p["name"]) + default)
        return out

    def deduced(self, fn: Fn, args: list[dict[str, Any]], given: set[str]) -> dict[str, Any]:
        """The type template arguments of a helper call deduced from its arguments, as C++ deduces them:
        `T` of a `__ubuf__ T*` parameter from the pointer's element type, of a `RegTensor<T>&` from the
        register's, of a `T` or `T&` from the argument's type (a register's, or a scalar's unpromoted: `uint8_t` for
        a `uint8_t` variable, `int` for `x + 1`); those given explicitly stay."""
        names = {p["name"] for p in fn.tparams if p["type"] and not p.get("outer")} - given
        out: dict[str, Any] = {}
        for p, a in zip(fn.params, args, strict=False):
            s = strip(p["t"]).rstrip("&").strip()
            if s in names and s not in out and self.infer(a).what == "reg" and (reg := self.register_type(a)):
                out[s] = RegType(reg)  # `RegT& src`: the argument's register type (`RegT tmp;` in the helper is one)
                continue
            if s in names and s not in out and (d := _scalar_dtype(self.infer(a))) is not None:
                out[s] = d  # `U x` given a scalar: its type
                continue
            m = re.fullmatch(r"(\w+)\s*\*", s) or re.fullmatch(r"RegTensor<\s*(\w+)\s*(?:,.*)?>", s)
            if m is None or m[1] not in names or m[1] in out:
                continue
            t = self.infer(a)
            d = t.elem if t.what == "ptr" else self.reg_dtype(a) if s.startswith("RegTensor") else None
            if d is not None:
                out[m[1]] = d
        return out

    def arg_type(self, a: dict[str, Any]) -> str:
        """A call argument's type in this instantiation, as `accepts` reads it ("" where it is not known)."""
        try:
            t = self.infer(a)
            if t.what == "reg":
                return self.register_type(a)
            if t.what == "ptr":
                return f"{cxx(t.elem)}*" if t.elem is not None else "void*"
        except CppError:
            return ""
        return t.what if t.what in ("int", "float") else ""

    def register_type(self, a: dict[str, Any]) -> str:
        """The register type of the expression `a` spelled for this instantiation (`RegTensor<float>`, `MaskReg`), else ''."""
        s = self.unalias(strip(a.get("t", ""))).rstrip("&* ")
        if s.startswith("RegTensor<"):
            return self.regtensor_spelled(s, a)
        return s if s in _REGISTERS else ""

    def defaults(self, fn: Fn, env: dict[str, Any], bound: set[str]) -> dict[str, Any]:
        """The defaults of `fn`'s own template parameters not `bound` (given or deduced: `template <bool NEED_MAX =
        true>`), each in order, evaluated in `env` with the arguments before it (`typename U = T`). Not of one a
        parameter's type names (C++ deduces it from the argument; where regsim did not, it stays unbound)."""
        out: dict[str, Any] = {}
        caller_env = self.env
        named = {w for q in fn.params for w in re.findall(r"\w+", q["t"])}
        try:
            for p in fn.tparams:
                d = p.get("default")
                if p.get("outer") or d is None or p["name"] in bound or p["name"] in named:
                    continue
                self.env = {**env, **out}
                what = f"the default of the template parameter {p['name']}"
                out[p["name"]] = self.dtype(d["type"], fn.line) if "type" in d else self.constant(d["value"], what)
        finally:
            self.env = caller_env
        return out

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
        s = self.unalias(strip(a.get("t", "")))
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
        u32 = Ty("int", 32, False)
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
        while inner["k"] in casts and strip(inner.get("t", "")).replace(" ", "") == "void*":
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
            start, outer = len(self.lines), dict(self.constants)
            for x in c:
                self.stmt(x, d)
            self.constants = outer  # (a block's constants end with it: an outer one it shadowed is seen again)
            if len(self.lines) == start:  # (empty, or declarations only: type aliases, `using namespace`)
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
        elif k == "IF_STMT" and len(c) in (2, 3) and (taken := self.constexpr_branch(n)) is not None:
            # (`if constexpr`: only the branch taken for this instantiation, as C++ discards the other, which need
            # not be valid for these template arguments)
            if taken < len(c):
                self.stmt(c[taken], d)
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
        elif k in ("UNEXPOSED_EXPR", "PAREN_EXPR") and len(c) == 1:  # a full expression's cleanups, `(f(x));`
            self.stmt(c[0], d)
        elif k in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR", "UNARY_OPERATOR"):
            self.assign(n, d)
        elif k == "UNEXPOSED_STMT" and len(c) == 1:  # `#pragma unroll N` before a loop: the loop itself
            self.stmt(c[0], d)
        elif k == "CONTINUE_STMT":  # (a counting loop's is Python's; a for loop lowered as `while` refuses it, below)
            self.emit(d, "continue")
        else:
            raise self.fail(n, f"the C++ statement {k}")

    def constexpr_branch(self, n: dict[str, Any]) -> int | None:
        """For an `if constexpr` whose condition folds here: the index among its children of the branch taken (2,
        past the children where there is no else); None for any other `if`."""
        if not n.get("constexpr"):
            return None
        try:
            value = self.constant(n["c"][0], "the condition of if constexpr")
        except CppError:
            return None
        return 1 if value else 2

    def block(self, n: dict[str, Any], d: int) -> None:
        start = len(self.lines)
        self.stmt(n, d)
        if len(self.lines) == start:
            self.emit(d, "pass")

    def target(self, n: dict[str, Any]) -> tuple[str, Ty]:
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
                d, f"{name} = {self.convert(f'{name} {sign} 1', Ty('other'), t) if t.what == 'int' else f'{name} {sign} 1'}"
            )
            return
        name, t = self.target(n["c"][0])
        rhs_node = n["c"][1]
        rhs = self.expr(rhs_node)
        if op == "=":
            by_ref = t.what == "reg" and self.target_name(n["c"][0]) in self.refparams
            kind = strip(n["c"][0].get("t", "")).rstrip("& ")
            if by_ref and not kind.startswith(("RegTensor", "MaskReg")):  # (an AddrReg is a value CreateAddrReg makes)
                what = f"the {kind} reference {self.target_name(n['c'][0])}"
                raise self.fail(n, f"assigning {what} (only RegTensor and MaskReg references are assigned)")
            if by_ref or (t.what == "reg" and self.register_copy(rhs_node)):
                # (a reference's register is the caller's: the value is copied into it, as C++'s operator= does)
                self.emit(d, f"_copy({rhs}, {name})  # line {n['l']}: the value is copied into {name}")
                return
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
            Ty("int", max(32, t.bits, tr.bits), t.signed if t.bits >= max(32, tr.bits) else tr.signed) if t.what == "int" else t
        )
        e = {"/": f"_div({name}, {rhs})", "%": f"_rem({name}, {rhs})"}.get(bop, f"({name} {bop} {rhs})")
        if t.what == "int" and tr.what == "int":
            self.emit(d, f"{name} = {self.convert(e, Ty('other'), t if t.bits <= wide.bits else wide)}")
        else:
            self.emit(d, f"{name} = {self.convert(e, Ty('other'), t)}")

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
        code, dst, src = self.expr(inner), self.unalias(strip(n.get("t", ""))), self.unalias(strip(inner.get("t", "")))
        if not dst.startswith("RegTensor") and src.rstrip("& ") == dst.rstrip("& "):
            return code  # MaskReg, AddrReg, the unaligned buffers: only to their own type
        if not (dst.startswith("RegTensor") and (src.startswith("RegTensor") or self.half_of_pair(inner))):
            raise self.fail(n, f"the cast of {inner.get('t')} to {n.get('t')} (registers are cast between vector types only)")
        dtype, trait = self.regtensor(dst, n)
        return f"{code}.reinterpret(rs.{dtype.name}{trait})"

    def half_of_pair(self, n: dict[str, Any]) -> bool:
        """Whether `n` is `r.reg[k]` of a two-register tensor `r` (a register, also where clang left its type
        dependent: `(RegTensor<T3>&)r.reg[0]` in a template)."""
        while n["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and n["c"]:
            n = n["c"][-1]
        if n["k"] != "ARRAY_SUBSCRIPT_EXPR" or not n["c"]:
            return False
        base = n["c"][0]
        while base["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and base["c"]:
            base = base["c"][-1]
        return base["k"] == "MEMBER_REF_EXPR" and base["s"] == "reg" and bool(base["c"]) and self.ty(base["c"][0]).what == "reg"

    def regtensor(self, s: str, n: dict[str, Any]) -> tuple[Any, str]:
        """The element dtype and `, trait=...` keyword (empty for one register) of `RegTensor<T[, trait]>`."""
        targs = _split_targs(s[s.index("<") + 1 : s.rindex(">")])
        dtype = self.dtype(targs[0], n)
        trait = ""
        if len(targs) > 1:
            tr = strip(targs[1])
            trait = f", trait={self.pyvalue(self.env[tr]) if tr in self.env else 'Reg.' + tr}"
        return dtype, trait

    def regtensor_spelled(self, s: str, n: dict[str, Any]) -> str:
        """`RegTensor<T[, trait]>` spelled for this instantiation: `RegTensor<float>`, `RegTensor<int64_t, RegTraitNumTwo>`."""
        dtype, trait = self.regtensor(s, n)
        return f"RegTensor<{cxx(dtype)}{', RegTraitNumTwo' if 'NumTwo' in trait else ''}>"

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
        if v["k"] in ("TYPE_ALIAS_DECL", "TYPEDEF_DECL"):  # `using RT = std::conditional_t<...>;`: a type for this instantiation
            resolved = dtype_of(v.get("ts", ""))  # (a type clang resolved: `using T = DTYPE_X;`, the build's macro)
            conds = iter([x for x in v["c"] if x["k"] not in _TYPE_KIDS])
            self.env[v["s"]] = resolved or self.alias_type(_alias_tokens(v.get("toks", [])), conds, v)
            return
        if v["k"] in _NAME_ONLY_DECLS:  # (`using namespace`, a local struct's definition: clang resolved the names)
            return
        if v["k"] != "VAR_DECL":
            raise self.fail(v, f"the declaration {v['k']}")
        self.at = v.get("l") or self.at
        name = v["s"]
        s = self.unalias(strip(v["t"]))
        init = v["c"][len(v["c"]) - v["ninit"] :] if "ninit" in v else [x for x in v["c"] if x["k"] not in _TYPE_KIDS]
        if _deduced(v) and init:  # `auto x = ...`, `auto* p = ...` in a template: the initializer's type in this instantiation
            t, s = self.auto_type(v, init[-1])
            if t.what == "reg" and strip(v["t"]).endswith("&"):  # `auto& a = r;`: another name of r's register
                self.vartypes[name] = t
                self.emit(d, f"{self.var(name)} = {self.expr(init[-1])}  # line {v['l']}: a reference")
                return
        else:
            t = self.ty(v)
        if v.get("tk") == "CONSTANTARRAY":
            self.array(v, init, d)
            return
        self.vartypes[name] = t
        target = self.var(name)
        if t.what == "reg" and s.endswith("&") and init:  # `RegTensor<T>& r = a;`: another name of a's register
            self.refparams.add(name)  # (assigned, it is copied into, as a reference parameter is)
            self.emit(d, f"{target} = {self.expr(init[0])}  # line {v['l']}: a reference")
            return
        if s.startswith("RegTensor"):
            dtype, trait = self.regtensor(s, v)
            code = f"Reg.RegTensor(rs.{dtype.name}{trait})"
            if init and not (init[0]["k"] == "CALL_EXPR" and not init[0]["c"]):
                code = f"_copy({self.expr(init[0])})" if self.register_copy(init[0]) else self.expr(init[0])
            self.emit(d, f"{target} = {code}  # line {v['l']}")
            return
        if s in ("MaskReg", "AddrReg", "UnalignRegForLoad", "UnalignRegForStore", "UnalignReg"):
            s = self.unalign_use(name) if s == "UnalignReg" else s
            code = "None" if s == "AddrReg" else f"Reg.{s}()"  # an AddrReg is made by CreateAddrReg
            if init and not (init[0]["k"] == "CALL_EXPR" and init[0].get("rk") == "CONSTRUCTOR" and not init[0]["c"]):
                code = f"_copy({self.expr(init[0])})" if self.register_copy(init[0]) else self.expr(init[0])
            self.emit(d, f"{target} = {code}  # line {v['l']}")
            return
        if t.what in ("enum", "struct"):
            if not (v.get("constexpr") or "const" in v["t"].split()) or not init:
                raise self.fail(v, f"the variable {name} of type {v['t']} (only constants)")
            self.constants[name] = self.constant(init[0], f"the constant {name}: its initializer")
            self.emit(d, f"{target} = {self.pyvalue(self.constants[name])}  # line {v['l']}")
            return
        if t.what == "other" and "(lambda at " in v["t"]:
            raise self.fail(v, f"the lambda {name}")
        if t.what == "other" and _deduced(v) and init:  # (naming what it reads: a refused declaration of one is the cause)
            reads = ", ".join(sorted(self.names(init[-1]))) or "no variable"
            raise self.fail(v, f"a variable of type {v['t']} whose initializer's type is not known here (it reads {reads})")
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
            if t.what in ("int", "float") and (v.get("constexpr") or "const" in v["t"].split()):
                try:  # a constant (`constexpr uint32_t n = sizeof(T) * 2;`): also a template argument
                    self.constants[name] = self.value_as(self.constant(init[0], f"the constant {name}"), t)
                except CppError:
                    pass  # (a const variable of a value known only when the code runs)
        if name in self.refvars:
            code = f"Ref({code})"
        self.emit(d, f"{target} = {code}  # line {v['l']}")

    def auto_type(self, v: dict[str, Any], init: dict[str, Any]) -> tuple[Ty, str]:
        """The type C++ deduces for the `auto` variable `v` (`auto`, `auto*`, `const auto&`) from its initializer `init`
        in this instantiation, and its spelling where it is a register (`auto a = CreateAddrReg<T>(...)`: an AddrReg;
        `auto b = a;`: a copy of the register `a`). A pointer for `auto*`; a non-const `auto&` only of a register (a
        reference to a scalar or pointer would be a second name of one variable, which the lowering does not model),
        a `const auto&` of a scalar or pointer a copy of its value, so not of a variable the function changes."""
        t = self.infer(init)
        spelled = strip(v["t"])
        s = self.returned_register(init) or (self.unalias(strip(init.get("t", ""))).rstrip("&* ") if t.what == "reg" else spelled)
        if spelled.rstrip().endswith("*") and t.what not in ("ptr", "other"):  # ("other": refused below, naming what it reads)
            raise self.fail(v, f"the variable {v['s']} of type {v['t']} initialized with {init.get('t')} (not a pointer)")
        if spelled.rstrip().endswith("&") and t.what != "reg" and "const" not in v["t"].split():
            raise self.fail(v, f"the reference {v['s']} of type {v['t']} to a {t.what} (only const references and registers)")
        named = init
        while named["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and named["c"]:
            named = named["c"][-1]
        changed = self.names(named) & self.assigned(self.fn.body) if named["k"] == "DECL_REF_EXPR" else set()
        if spelled.rstrip().endswith("&") and t.what != "reg" and changed:  # (a copy: C++'s reference sees the change)
            raise self.fail(v, f"the reference {v['s']} of type {v['t']} to {sorted(changed)[0]}, which the function changes")
        return t, s

    def array(self, v: dict[str, Any], init: list[dict[str, Any]], d: int) -> None:
        """A local array (`constexpr uint32_t k[3] = {...}`, `RegTensor<T> regs[4]`): a Python list."""
        name, s = v["s"], strip(v["t"])
        m = re.fullmatch(r"(.*?)\s*\[(\d+)\]", s)
        if m is None:
            raise self.fail(v, f"the array {name} of type {v['t']}")
        elem, count = m[1].strip(), int(m[2])
        items = init[-1]["c"] if init and init[-1]["k"] == "INIT_LIST_EXPR" else []
        et = self.type_of(elem, "", v)
        if elem.startswith("RegTensor") and not items:
            dtype, trait = self.regtensor(elem, v)
            code = f"[Reg.RegTensor(rs.{dtype.name}{trait}) for _ in range({count})]"
        elif et.what in ("int", "float"):
            vals = [self.convert(self.expr(x), self.ty(x), et) for x in items]
            vals += ["0" if et.what == "int" else "0.0"] * (count - len(vals))
            code = f"[{', '.join(vals)}]"
        else:
            raise self.fail(v, f"the array {name} of {elem}")
        self.vartypes[name] = Ty("other")
        self.emit(d, f"{self.var(name)} = {code}  # line {v['l']}")

    def alias_type(self, toks: list[str], conds: Iterator[dict[str, Any]], n: dict[str, Any]) -> Any:
        """The dtype a type alias names for this instantiation: a type, or `std::conditional_t<c, A, B>` /
        `std::conditional<c, A, B>::type` (nested too), `c` folded from its AST node (`conds`, in source order)."""
        toks = [x for t in toks if t != "typename" for x in ([">", ">"] if t == ">>" else [t])]
        while len(toks) > 2 and toks[1] == "::" and toks[0] in ("std", "AscendC", "Reg", "MicroAPI"):
            toks = toks[2:]
        if toks[:1] in (["conditional"], ["Conditional"]) and toks[-2:] == ["::", "type"]:  # (`Map<T>::type`: below)
            toks = toks[:-2]
        if toks and toks[0] in _CONDITIONALS and toks[1:2] == ["<"] and toks[-1] == ">":
            a, b = _last_two_args(toks[2:-1])
            if self.constant(next(conds), "the condition of std::conditional"):
                return self.alias_type(a, conds, n)
            for _ in range(sum(a.count(c) for c in _CONDITIONALS)):
                next(conds)  # (the conditions inside the branch not taken)
            return self.alias_type(b, conds, n)
        if len(toks) >= 6 and toks[1] == "<" and toks[-3:-1] == [">", "::"]:  # `typename Map<U>::T`: a class's alias
            return self.member_alias(toks[0], _split_targs(" ".join(toks[2:-3])), toks[-1], n)
        templates = self.alias_templates  # (not the one being expanded: `template <class T> using X = Reg::X<T>;`)
        if len(toks) >= 4 and toks[1] == "<" and toks[-1] == ">" and toks[0] in templates and toks[0] not in self._expanding:
            return self.alias_template(toks[0], _split_targs(" ".join(toks[2:-1])), n)
        spelled = strip(" ".join(toks).replace(" :: ", "::"))
        if spelled.startswith("RegTensor <") and spelled.endswith(">"):  # a register type: spelled for this instantiation
            return RegType(self.regtensor_spelled(spelled, n))
        return self.dtype(" ".join(toks), n)

    @functools.cached_property
    def alias_templates(self) -> dict[str, dict[str, Any]]:
        """The file's alias templates by name (`template <typename T_Y> using YCopyDtype = std::conditional_t<...>;`),
        the function's file's where two files have one of a name (made once: the function and the parse's aliases
        do not change while it is lowered)."""
        here = os.path.abspath(getattr(self.fn, "file", "") or self.mod.path)
        found = [a for a in getattr(self.mod, "aliases", ()) if "tparams" in a]
        return {a["node"]["s"]: a for a in sorted(found, key=lambda a: a.get("file") == here)}

    def alias_template(self, name: str, args: list[str], n: dict[str, Any]) -> Any:
        """The type `Name<args...>` of the alias template `Name` names: its aliased type with its parameters bound to
        the type arguments `args`."""
        a = self.alias_templates[name]
        if len(args) != len(a["tparams"]):
            raise self.fail(n, f"the type {name}<{', '.join(args)}> ({name} takes {len(a['tparams'])} template arguments)")
        bound = {p: self.dtype(x, n) for p, x in zip(a["tparams"], args, strict=True)}
        saved, self.env = self.env, {**self.env, **bound}
        outer = self._expanding
        self._expanding = (*outer, name)  # (its own name inside it is what it aliases, not itself again)
        try:
            node = a["node"]
            conds = iter([x for x in node["c"] if x["k"] not in _TYPE_KIDS])
            return self.alias_type(_alias_tokens(node.get("toks", [])), conds, node)
        finally:
            self.env, self._expanding = saved, outer

    def class_for(self, name: str, args: list[str], what: str, n: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The file's class template `Name` for the type arguments `args`: its explicit specialization for them
        (`template <> struct Map<uint32_t> { ... }`), else its primary template, with the template arguments that
        binds (none for a specialization). `what` names the use, for the error."""
        given = [self.dtype(a, n) for a in args]
        structs = [st for st in getattr(self.mod, "structs", {}).values() if st["name"] == name]
        spec = [st for st in structs if st.get("spec") is not None and [dtype_of(a) for a in st["spec"]] == given]
        primary = [st for st in structs if st.get("spec") is None and len(st["tparams"]) == len(given)]
        st = (spec or primary or [None])[0]
        if st is None:
            raise self.fail(n, f"{what} (no class {name} for these arguments)")
        return st, {p["name"]: d for p, d in zip(st["tparams"], given, strict=True)} if not spec else {}

    def member_alias(self, name: str, args: list[str], member: str, n: dict[str, Any]) -> Any:
        """The type `Name<args...>::member` names: the alias `member` of the file's explicit specialization of
        the class template `Name` for those type arguments (`template <> struct Map<uint32_t> { using T = int32_t; }`),
        else of its primary template, its parameters bound to `args`."""
        what = f"the type {name}<{', '.join(args)}>::{member}"
        st, bound = self.class_for(name, args, what, n)
        file, line = st["place"].rsplit(":", 1)
        scopes = [
            a for a in getattr(self.mod, "aliases", ()) if a["node"]["s"] == member and a.get("file") == file
            and a["scope"][0] <= int(line) <= a["scope"][1]
        ]  # fmt: skip
        if not scopes:
            raise self.fail(n, f"{what} (the class has no alias {member})")
        node = min(scopes, key=lambda a: a["scope"][1] - a["scope"][0])["node"]
        saved = self.env
        self.env = {**self.env, **bound}
        try:
            conds = iter([x for x in node["c"] if x["k"] not in _TYPE_KIDS])
            return self.alias_type(_alias_tokens(node.get("toks", [])), conds, node)
        finally:
            self.env = saved

    def class_constant(self, name: str, args: list[str], member: str, n: dict[str, Any]) -> Any:
        """The value of `Name<args...>::member`, a `static constexpr` member of the file's class template `Name`
        (`template <typename T> struct Traits { static constexpr int64_t size = sizeof(float); };`) for those
        type arguments: its initializer folded with its parameters bound to them."""
        what = f"the constant {name}<{', '.join(args)}>::{member}"
        st, bound = self.class_for(name, args, what, n)
        saved = self.env
        self.env = {**self.env, **bound}
        try:
            return self.static_value(st.get("statics", {}).get(member), what, n)
        finally:
            self.env = saved

    def static_value(self, decl: dict[str, Any] | None, what: str, n: dict[str, Any]) -> Any:
        """A class's `static constexpr` member's value (`decl`, its declaration) in this instantiation."""
        init = [x for x in (decl or {"c": []})["c"] if x["k"] not in _TYPE_KIDS]
        if decl is None or not init:
            raise self.fail(n, f"{what} (only constants with an initializer)")
        return self.value_as(self.constant(init[-1], what), self.ty(decl))

    def unalign_use(self, name: str) -> str:
        """The buffer an `UnalignReg` variable is (the headers' one `vector_align` type for both): a load's
        where a Reg call takes it as its load buffer, else a store's."""
        for x in _walk(self.fn.body):
            if x["k"] != "CALL_EXPR" or not x["c"] or x["s"] == "operator=":
                continue
            for spec in reg_specs(self.callee_ref(x)[0]):
                ops = [o for o in spec.positional if o.kind is not Kind.DTYPE]
                if any(o.kind is Kind.ULOAD and self.names(a) == {name} for o, a in zip(ops, x["c"][1:], strict=False)):
                    return "UnalignRegForLoad"
        return "UnalignRegForStore"

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
            for s in reg_specs(name):
                ops = [o for o in s.positional if o.kind is not Kind.DTYPE]
                positions |= {i for i, o in enumerate(ops) if o.kind is Kind.REF}
            for f in _c_forms(name):  # `asc_update_mask_b32(uint32_t& count)`
                positions |= {i for i, p in enumerate(f.cname.params) if p in f.spec.slots and f.spec.operand(p).kind is Kind.REF}
            for local in self.mod.definitions.get(name, ()):
                positions |= {
                    i
                    for i, p in enumerate(local.params)
                    if p["tk"] == "LVALUEREFERENCE"
                    and not _const_ref(p)
                    and self.type_of(p["t"], "").what in ("int", "float", "other")
                    and not strip(p["t"]).rstrip("&").strip().startswith(("RegTensor", "MaskReg", "AddrReg", "Unalign"))
                    and not strip(p["t"]).rstrip("&").strip().endswith("*")
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
            for spec in reg_specs(name):
                ops = [o for o in spec.positional if o.kind is not Kind.DTYPE]
                for o, a in zip(ops, x["c"][1:], strict=False):
                    if o.role in (Role.OUT, Role.INOUT):
                        out |= self.names(a)
            for f in _c_forms(name):
                for p, a in zip(f.cname.params, x["c"][1:], strict=False):
                    if f.spec.operand(p).role in (Role.OUT, Role.INOUT):
                        out |= self.names(a)
        return out

    def scope_aliases(self, place: str = "") -> None:
        """The type aliases of the classes and namespaces around the function (`using RangeType =
        std::conditional_t<...>` in a class template), also of a member function's class where it is defined outside
        it (`void Cls<T>::F() {...}`), or around `place` (`file:line`, a class's definition), for this instantiation,
        the innermost scope's where two have one name (a class's over its caller's, whose names `place` overrides);
        one that does not resolve is left out (a use of it is refused where it is used)."""
        here = os.path.abspath(getattr(self.fn, "file", "") or self.mod.path)  # (the function's file: this one or a header)
        at = place or getattr(self.fn, "cls", None)  # (a class's definition: `place`'s alone, or the function's too)
        places = [] if place else [(here, self.fn.line)]
        if at:
            file, line = at.rsplit(":", 1)
            places.append((os.path.abspath(file), int(line)))
        around = [
            a for a in getattr(self.mod, "aliases", ())
            if any(a.get("file", places[0][0]) == file and a["scope"][0] <= line <= a["scope"][1] for file, line in places)
        ]  # fmt: skip
        given = set() if place else set(self.env)  # (the template arguments: no alias names them)
        for a in sorted(around, key=lambda a: a["scope"][0] - a["scope"][1]):  # (outermost first; stable: source order)
            node = a["node"]
            if node["s"] in given or "tparams" in a:  # (an alias template: bound where it is used, `X<T>`)
                continue
            try:
                conds = iter([x for x in node["c"] if x["k"] not in _TYPE_KIDS])
                self.env[node["s"]] = self.alias_type(_alias_tokens(node.get("toks", [])), conds, node)
            except (CppError, StopIteration):
                self.env.pop(node["s"], None)

    def lower(self) -> list[str]:
        fn = self.fn
        if fn.errors:
            raise CppError(f"{self.mod.path}:{fn.line}: {fn.name} does not parse:\n" + "\n".join(fn.errors))
        self.scope_aliases()
        self.find_refvars()
        # a scalar taken by reference is the caller's rs.Ref: read and written through it, passed on as it is
        scalar = {p["name"] for p in fn.params if self.type_of(p["t"], p["tk"], p).what in ("int", "float")}
        scalar -= {p["name"] for p in fn.params if fn.what != "vf" and _const_ref(p)}  # (`const T& v`: its value)
        self.refvars |= scalar & self.refparams
        copied: set[str] = set()  # registers taken by value and written: the callee's own copy, as C++ passes them
        if fn.what != "vf":
            by_value = {p["name"] for p in fn.params if self.type_of(p["t"], p["tk"], p).what == "reg"} - self.refparams
            values = {p["name"] for p in fn.params if strip(p["t"]).startswith(("RegTensor", "MaskReg"))}
            copied = by_value & values & (self.written_registers() | self.assigned(fn.body))
            refused = sorted((by_value - values) & self.written_registers())  # (an unaligned buffer a Reg function writes)
            if refused:
                raise self.fail(fn.line, f"writing the register {refused[0]}, a parameter taken by value (take it by reference)")
        self.emit(0, f"def {self.pyname}({', '.join(self.py_params(fn))}):  # {fn.name}, line {fn.line}")
        for p in fn.params:
            t = self.type_of(p["t"], p["tk"], p)
            is_ref = p["tk"] == "LVALUEREFERENCE" or p["t"].rstrip().endswith("&")
            if p["name"] in copied:
                self.emit(1, f"{self.var(p['name'])} = _copy({self.var(p['name'])})  # taken by value")
            if fn.what == "callee" and t.what == "ptr" and not is_ref:
                v = self.var(p["name"])  # (a copy the callee alone moves; a nullptr default stays None)
                copy = f"{v} + 0" if p.get("default") is None else f"None if {v} is None else {v} + 0"
                self.emit(1, f"{v} = {copy}  # by value")
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
