"""The libclang side of the C++ front end: runs in a child process (`python -m regsim._src.frontends.cpp.parse`).

It parses one source file with the generated declarations (`cpp_decls.header()`) force-included,
and prints, as JSON, the diagnostics (file:line) and the AST of every `__simd_vf__` and
`__simd_callee__` function of that file: kinds, spellings, types, operators, literals, lines; and
what it read, for the parse cache (cache.py). A `kernel<<<...>>>(args)` launch is read as a call (see
_LAUNCH). A libclang crash ends only this process; the caller reports it.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import sys
import tempfile
from typing import Any

_OPS = (
    "<<=", ">>=", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "++", "--", "+", "-", "*", "/", "%", "<", ">", "=", "&", "|", "^", "!", "~",
)  # fmt: skip


#: the compiler's own headers the standard library includes (clang's resource directory, which the
#: libclang wheel does not ship): what host code around a VF needs of them
_BUILTIN_HEADERS = {
    "stddef.h": """#pragma once
typedef __SIZE_TYPE__ size_t;
typedef __PTRDIFF_TYPE__ ptrdiff_t;
typedef struct { long long a __attribute__((aligned(8))); long double b __attribute__((aligned(16))); } max_align_t;
#define NULL __null
#define offsetof(t, d) __builtin_offsetof(t, d)
""",
    "stdarg.h": """#pragma once
typedef __builtin_va_list va_list;
typedef __builtin_va_list __gnuc_va_list;
#define va_start(ap, param) __builtin_va_start(ap, param)
#define va_end(ap) __builtin_va_end(ap)
#define va_arg(ap, type) __builtin_va_arg(ap, type)
#define va_copy(dest, src) __builtin_va_copy(dest, src)
""",
    "stdbool.h": "#pragma once\n",
    "float.h": """#pragma once
#define FLT_MAX __FLT_MAX__
#define FLT_MIN __FLT_MIN__
#define FLT_EPSILON __FLT_EPSILON__
#define DBL_MAX __DBL_MAX__
#define DBL_MIN __DBL_MIN__
#define DBL_EPSILON __DBL_EPSILON__
""",
}


def _evaluate(c: Any) -> str | None:
    """clang_Cursor_Evaluate (not wrapped by the Python bindings): a literal's value as text."""
    import ctypes

    import clang.cindex as ci

    lib = ci.conf.lib
    f = lib.clang_Cursor_Evaluate
    f.restype, f.argtypes = ctypes.c_void_p, [ci.Cursor]
    res = f(c)
    if not res:
        return None
    try:
        kind = lib.clang_EvalResult_getKind
        kind.restype, kind.argtypes = ctypes.c_int, [ctypes.c_void_p]
        what = kind(res)
        if what == 1:  # CXEval_Int
            uns = lib.clang_EvalResult_isUnsignedInt
            uns.restype, uns.argtypes = ctypes.c_uint, [ctypes.c_void_p]
            get = lib.clang_EvalResult_getAsUnsigned if uns(res) else lib.clang_EvalResult_getAsLongLong
            get.restype = ctypes.c_ulonglong if uns(res) else ctypes.c_longlong
            get.argtypes = [ctypes.c_void_p]
            return str(get(res))
        if what == 2:  # CXEval_Float
            dbl = lib.clang_EvalResult_getAsDouble
            dbl.restype, dbl.argtypes = ctypes.c_double, [ctypes.c_void_p]
            return repr(dbl(res))
        return None
    finally:
        dispose = lib.clang_EvalResult_dispose
        dispose.argtypes = [ctypes.c_void_p]
        dispose(res)


#: member reads clang would not fold: (cursor, node), for _fold_unions
_UNION_READS: list[tuple[Any, dict[str, Any]]] = []


def _fold_unions(path: str, text: str, args: list[str]) -> None:
    """A constant union read through another member than the one its constructor set
    (`constexpr U x(0x00800000u); ... x.f`) is not a C++ constant expression, but the kernel reads
    the bits: fold it as `__builtin_bit_cast(float, x.u)` for the member `u` that does fold,
    by parsing the file again with those probes appended."""
    import clang.cindex as ci

    probes: list[str] = []
    owners: list[dict[str, Any]] = []
    for c, n in _UNION_READS:
        kids = list(c.get_children())
        decl = kids[0].type.get_canonical().get_declaration() if kids else None
        if decl is None or decl.kind != ci.CursorKind.UNION_DECL:
            continue
        base = " ".join(t.spelling for t in kids[0].get_tokens())
        target = c.type.get_canonical().spelling
        for field in decl.type.get_fields():
            if field.spelling != c.spelling and field.type.get_size() == c.type.get_size():
                probes.append(
                    f"constexpr auto __regsim_probe_{len(probes)} = __builtin_bit_cast({target}, {base}.{field.spelling});"
                )
                owners.append(n)
    if not probes:
        return
    source = text + "\n" + "\n".join(probes) + "\n"
    tu = ci.Index.create().parse(path, args=args, unsaved_files=[(path, source)], options=0x200)
    for c in tu.cursor.get_children():
        if c.kind == ci.CursorKind.VAR_DECL and c.spelling.startswith("__regsim_probe_"):
            value = _evaluate(c)
            n = owners[int(c.spelling.rsplit("_", 1)[1])]
            if value is not None and "v" not in n:
                n["v"] = value


_TEXTS: dict[str, bytes] = {}


#: the functions parse reports (free functions, templates, member functions and constructors)
_FUNCTIONS = ("FUNCTION_DECL", "FUNCTION_TEMPLATE", "CXX_METHOD", "CONSTRUCTOR")
#: what a call may name (its definition's place is reported as `rloc`)
_CALLABLE = ("FUNCTION_DECL", "CXX_METHOD", "CONSTRUCTOR", "FUNCTION_TEMPLATE")


#: libclang's CXBinaryOperatorKind, in its order (clang_getCursorBinaryOperatorKind)
_BINARY_KINDS = (
    None, ".*", "->*", "*", "/", "%", "+", "-", "<<", ">>", "<=>", "<", ">", "<=", ">=", "==", "!=", "&", "^", "|", "&&", "||",
    "=", "*=", "/=", "%=", "+=", "-=", "<<=", ">>=", "&=", "^=", "|=", ",",
)  # fmt: skip


def _binary_kind(c: Any) -> str | None:
    """A binary operator as libclang's AST has it (also inside a macro expansion, which has no tokens of its own)."""
    import clang.cindex as ci

    f = getattr(ci.conf.lib, "clang_getCursorBinaryOperatorKind", None)
    if f is None:
        return None
    f.restype, f.argtypes = ci.c_uint, [ci.Cursor]
    k = f(c)
    return _BINARY_KINDS[k] if 0 < k < len(_BINARY_KINDS) else None


#: the scalar types whose global constants are folded where they are read (`const uint16_t K = 1 << 15;`)
_SCALAR_KINDS = (
    *("BOOL", "CHAR_S", "SCHAR", "CHAR_U", "UCHAR", "SHORT", "USHORT", "INT", "UINT", "LONG", "ULONG"),
    *("LONGLONG", "ULONGLONG", "FLOAT", "DOUBLE"),
)


def _op_between(kids: list[Any]) -> str:
    """A binary operator from the source text between its operands: libclang gives no tokens for an
    expression that starts with a macro (`SCENARIO == 1` with `-DSCENARIO=1`)."""
    a, b = kids[0].extent.end, kids[-1].extent.start
    if len(kids) != 2 or a.file is None or b.file is None or a.file.name != b.file.name:
        return "?"
    name = a.file.name
    if name not in _TEXTS:
        with open(name, "rb") as f:
            _TEXTS[name] = f.read()
    return _TEXTS[name][a.offset : b.offset].decode(errors="replace").strip().strip("()").strip() or "?"


def _spellings(c: Any, limit: int) -> list[str]:
    """The first `limit` tokens of `c`, spelled (the others not converted: an `if` statement's are its whole body)."""
    return [t.spelling for t in itertools.islice(c.get_tokens(), limit)]


#: the scopes whose variables are globals (a namespace's, a class's or class template's static members)
_GLOBAL_SCOPES = ("NAMESPACE", "TRANSLATION_UNIT", "STRUCT_DECL", "CLASS_DECL", "CLASS_TEMPLATE")


def _member_name(toks: list[str]) -> str:
    """The member a dependent member expression names: the name after its last `.` or `->` outside brackets."""
    depth, at = 0, -1
    for i, t in enumerate(toks):
        depth += {"(": 1, "[": 1, "<": 1, ")": -1, "]": -1, ">": -1, ">>": -2}.get(t, 0)
        if depth == 0 and t in (".", "->"):
            at = i
    rest = [t for t in toks[at + 1 :] if t != "template"] if at >= 0 else []
    return rest[0] if rest and (rest[0][0].isalpha() or rest[0][0] == "_") else ""


def _member_targs(toks: list[str], name: str) -> list[str]:
    """The explicit template arguments after the member `name` of a dependent member expression
    (`x.template ReinterpretCast<float>` gives ["float"]), each as its tokens joined by spaces."""
    at = len(toks) - 1 - toks[::-1].index(name) if name in toks else -1
    if at < 0 or toks[at + 1 : at + 2] != ["<"]:
        return []
    out: list[str] = []
    cur: list[str] = []
    depth = 1
    for t in toks[at + 2 :]:
        depth += {"<": 1, "(": 1, ">": -1, ")": -1, ">>": -2}.get(t, 0)
        if depth <= 0:
            break
        if t == "," and depth == 1:
            out.append(" ".join(cur))
            cur = []
        else:
            cur.append(t)
    return [*out, " ".join(cur)] if cur else out


def _spec_argument(c: Any, i: int) -> str:
    """Argument `i` of the explicit specialization `c`: a type's canonical spelling, or a value's."""
    t = c.type.get_template_argument_type(i)
    return t.get_canonical().spelling if t.spelling else str(c.get_template_argument_value(i))


def _node(c: Any, main: str) -> dict[str, Any]:
    import clang.cindex as ci

    k = c.kind
    n: dict[str, Any] = {"k": k.name, "s": c.spelling, "l": c.location.line}
    if k.is_expression() or k in (ci.CursorKind.VAR_DECL, ci.CursorKind.PARM_DECL, ci.CursorKind.FIELD_DECL):
        t = c.type
        canonical = t.get_canonical()
        n["t"] = t.spelling
        n["tk"] = canonical.kind.name
        n["ts"] = canonical.spelling
    kids = list(c.get_children())
    if k in (ci.CursorKind.BINARY_OPERATOR, ci.CursorKind.COMPOUND_ASSIGNMENT_OPERATOR) and kids:
        end = kids[0].extent.end.offset
        n["op"] = (
            _binary_kind(c)
            or next((t.spelling for t in c.get_tokens() if t.extent.start.offset >= end), None)
            or _op_between(kids)
        )
    elif k == ci.CursorKind.UNARY_OPERATOR:
        toks = [t.spelling for t in c.get_tokens()]
        if toks and toks[0] in _OPS:
            n["op"] = toks[0]
        elif toks and toks[-1] in ("++", "--"):
            n["op"] = "post" + toks[-1]
        elif toks and toks[0] in ("sizeof", "alignof"):
            n["op"] = toks[0]
        else:
            n["op"] = toks[0] if toks else "?"
    elif k in (ci.CursorKind.INTEGER_LITERAL, ci.CursorKind.FLOATING_LITERAL, ci.CursorKind.CXX_BOOL_LITERAL_EXPR):
        value = _evaluate(c)  # the literal's value, also where a macro spells it
        n["v"] = value if value is not None else next((t.spelling for t in c.get_tokens()), "0")
    elif k == ci.CursorKind.MEMBER_REF_EXPR:  # a member of a constant struct or union: its value, if constant
        if not n["s"]:  # a member of a dependent type (`x.template Get<T>`, `this->a.b`): its name from the tokens
            toks = [t.spelling for t in c.get_tokens()]
            n["s"] = _member_name(toks)
            targs = _member_targs(toks, n["s"]) if n["s"] else []
            if targs:  # (`x.template ReinterpretCast<float>`: a builtin type argument has no TYPE_REF child)
                n["targs"] = targs
            if not n["s"]:  # (`std::is_same<T, float>::value` inside a lambda of a template): its spelling
                n["toks"] = toks[:40]
        value = _evaluate(c)
        if value is not None:
            n["v"] = value
        else:  # perhaps a union read through another member than the one set: a bit cast (see _fold_unions)
            _UNION_READS.append((c, n))
    elif k == ci.CursorKind.DECL_REF_EXPR and n["tk"] == "DEPENDENT":  # IsSameType<T, float>::value: its spelling
        n["toks"] = _spellings(c, 40)
    elif k == ci.CursorKind.STRING_LITERAL:  # its tokens: adjacent literals ("a" "b") are one string
        n["toks"] = [t.spelling for t in c.get_tokens()]
    elif k == ci.CursorKind.CXX_UNARY_EXPR or (k == ci.CursorKind.UNEXPOSED_EXPR and not kids):
        n["toks"] = _spellings(c, 40)
    elif k in (ci.CursorKind.TYPE_ALIAS_DECL, ci.CursorKind.TYPEDEF_DECL):  # a local type alias: its spelling
        n["toks"] = _spellings(c, 80)
        n["ts"] = c.underlying_typedef_type.get_canonical().spelling  # (what clang resolved, macros expanded)
    elif k == ci.CursorKind.IF_STMT:
        n["constexpr"] = _spellings(c, 2) == ["if", "constexpr"]
    elif k == ci.CursorKind.FOR_STMT:
        # which of init; cond; inc are present (libclang omits the missing ones)
        depth, parts, cur = 0, [], 0
        for tok in itertools.islice((t.spelling for t in c.get_tokens()), 1, None):  # (up to the closing parenthesis)
            if tok == "(":
                depth += 1
                if depth == 1:
                    continue
            elif tok == ")":
                depth -= 1
                if depth == 0:
                    parts.append(cur)
                    break
            elif tok == ";" and depth == 1:
                parts.append(cur)
                cur = 0
                continue
            cur += 1
        n["parts"] = [p > 0 for p in parts]
    ref = c.referenced
    if ref is not None and k not in (ci.CursorKind.VAR_DECL, ci.CursorKind.PARM_DECL, ci.CursorKind.FUNCTION_TEMPLATE):
        n["rk"] = ref.kind.name
        n["rs"] = ref.spelling
        if ref.kind == ci.CursorKind.FUNCTION_DECL and k == ci.CursorKind.DECL_REF_EXPR and ref.location.file is not None:
            # the definition a resolved call names (an overload, an explicit specialization): its line in this file
            n["rl"] = ref.location.line if os.path.abspath(ref.location.file.name) == main else 0
        if ref.kind.name in _CALLABLE and ref.location.file is not None:  # the definition a call names, anywhere
            n["rloc"] = f"{os.path.abspath(ref.location.file.name)}:{ref.location.line}"
        if ref.kind == ci.CursorKind.FUNCTION_DECL and k == ci.CursorKind.DECL_REF_EXPR and ref.get_num_template_arguments() > 0:
            # a resolved call's first template argument (its T, also where it is a builtin type
            # that has no TYPE_REF child)
            try:
                kind0 = ref.get_template_argument_kind(0)
            except ValueError:  # a kind the bindings do not name (a pack: printf's Args...)
                kind0 = None
            if kind0 == ci.TemplateArgumentKind.TYPE:
                n["t0"] = ref.get_template_argument_type(0).get_canonical().spelling
        if ref.kind == ci.CursorKind.ENUM_CONSTANT_DECL:  # (the value of an enumerator of the file's own enums)
            n["v"] = str(ref.enum_value)
        if ref.kind == ci.CursorKind.UNEXPOSED_DECL and k == ci.CursorKind.DECL_REF_EXPR and n.get("tk") in _SCALAR_KINDS:
            value = _evaluate(c)  # a variable template's specialization (`std::is_integral_v<uint8_t>`): its value
            if value is not None:
                n["v"] = value
        if ref.kind == ci.CursorKind.VAR_DECL and ref.semantic_parent is not None:
            n["global"] = ref.semantic_parent.kind.name in _GLOBAL_SCOPES
            if n["global"] and k == ci.CursorKind.DECL_REF_EXPR and n.get("tk") in _SCALAR_KINDS:
                value = _evaluate(c)  # a constant static member (std::is_same<float, float>::value): its value
                if value is not None:
                    n["v"] = value
    if k == ci.CursorKind.VAR_DECL:
        n["constexpr"] = "constexpr" in _spellings(c, 3)
        # the children from the declared name on are its initializer (`P p{1, 2}`: a constructor call that starts at
        # the name); those before spell its type (`RegTensor<T, RegTraitNumTwo> x;` has a DECL_REF_EXPR child that
        # is no initializer)
        at = c.location.offset
        # (at the name itself only a call or braced list: a declaration a macro expands has every child at one place,
        # its template arguments' literals too, `X<T, true> op;`)
        calls = (ci.CursorKind.CALL_EXPR, ci.CursorKind.INIT_LIST_EXPR, ci.CursorKind.UNEXPOSED_EXPR)
        n["ninit"] = sum(1 for ch in kids if ch.extent.start.offset > at or (ch.extent.start.offset == at and ch.kind in calls))
    n["c"] = [_node(ch, main) for ch in kids]
    return n


def _function(c: Any, main: str, outer: list[dict[str, Any]]) -> dict[str, Any] | None:
    import clang.cindex as ci

    kids = list(c.get_children())
    tags = [ch.spelling for ch in kids if ch.kind == ci.CursorKind.ANNOTATE_ATTR]
    what = "vf" if "regsim:simd_vf" in tags else "callee" if "regsim:simd_callee" in tags else "plain"
    what = "global" if "regsim:global" in tags else what
    body = next((ch for ch in kids if ch.kind == ci.CursorKind.COMPOUND_STMT), None)
    template = c.kind == ci.CursorKind.FUNCTION_TEMPLATE
    if body is None and not (template and what != "plain"):
        return None  # (a primary template declared without a body is kept: its specializations need it)
    tparams = [*outer] + [
        {
            "name": ch.spelling,
            "type": ch.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER,
            # a non-type parameter's type (int, an enum, bool), for checking the argument given for it
            "t": "" if ch.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER else ch.type.get_canonical().spelling,
            "default": _tparam_default(ch, main),
        }
        for ch in kids
        if ch.kind in (ci.CursorKind.TEMPLATE_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER)
    ]
    params = [
        {
            "name": ch.spelling,
            "t": ch.type.spelling,
            "tk": ch.type.get_canonical().kind.name,
            "ts": ch.type.get_canonical().spelling,  # (an alias clang resolved: `computeType*` is `float *`)
            "l": ch.location.line,
            # its default argument (`uint16_t aIndex = 0`), which a call leaving it out passes: its last expression
            # after an `=` (not a template argument of its type: `TQue<QuePosition::VECIN, 1>& que`)
            **({"default": _node(d[-1], main)} if (d := _default_argument(ch)) else {}),
        }
        for ch in kids
        if ch.kind == ci.CursorKind.PARM_DECL
    ]
    parent = c.semantic_parent
    member = parent is not None and parent.kind in (
        ci.CursorKind.CLASS_DECL,
        ci.CursorKind.STRUCT_DECL,
        ci.CursorKind.CLASS_TEMPLATE,
    )
    spaces, scope = [], c.semantic_parent
    while scope is not None and scope.kind != ci.CursorKind.TRANSLATION_UNIT:
        if scope.kind == ci.CursorKind.NAMESPACE:
            spaces.append(scope.spelling)
        scope = scope.semantic_parent
    return {
        "name": c.spelling,
        "what": what,
        "file": os.path.abspath(c.location.file.name),
        "ns": "::".join(reversed(spaces)),  # its namespace (`ops`, `ops_vf`): overloads in two are told apart by it
        # a member function's class (its spelling, and its definition's place), its kind (a constructor ...)
        "cls": _place(parent) if member else None,
        "kind": c.kind.name,
        "static": c.kind == ci.CursorKind.CXX_METHOD and c.is_static_method(),
        "line": c.location.line,
        "end": c.extent.end.line,
        "tparams": tparams,
        "params": params,
        "ret": c.result_type.spelling,
        "template": template,
        "spec": _specialization(c),
        "body": _node(body, main) if body is not None else None,
        "inits": _member_inits(kids, main),
    }


def _default_argument(parm: Any) -> list[Any]:
    """The expressions of a parameter's declaration if it has a default argument (an `=` among its tokens), else []."""
    found = [k for k in parm.get_children() if k.kind.is_expression()]
    return found if found and any(t.spelling == "=" for t in parm.get_tokens()) else []


def _tparam_default(c: Any, main: str) -> dict[str, Any] | None:
    """A template parameter's default (`typename U = float`: {"type": its spelling}; `bool NEED_MAX = true`:
    {"value": its expression's node}), else None."""
    import clang.cindex as ci

    toks = [t.spelling for t in c.get_tokens()]
    if "=" not in toks:
        return None
    if c.kind == ci.CursorKind.TEMPLATE_TYPE_PARAMETER:
        return {"type": " ".join(toks[toks.index("=") + 1 :])}
    value = [x for x in c.get_children() if x.kind.is_expression()]
    return {"value": _node(value[-1], main)} if value else None


def _member_inits(kids: list[Any], main: str) -> list[dict[str, Any]]:
    """A constructor's member initializers (`: pipe_(pipe), count_(0)`), in order: the member and its value."""
    import clang.cindex as ci

    out = []
    for ref, value in itertools.pairwise(kids):
        if ref.kind == ci.CursorKind.MEMBER_REF and value.kind.is_expression():
            out.append({"member": ref.spelling, "l": ref.location.line, "c": [_node(value, main)]})
    return out


def _place(c: Any) -> str:
    """A declaration's definition as `file:line` (a class's, for its members)."""
    d = c.get_definition() or c
    return f"{os.path.abspath(d.location.file.name) if d.location.file else ''}:{d.location.line}"


def _class(c: Any, tparams: list[dict[str, Any]], main: str) -> dict[str, Any]:
    """A class or struct: its fields (types, byte offsets where the layout is known), its static constants and
    base classes, for the kernel lowering (member variables, tiling structs)."""
    import clang.cindex as ci

    fields, statics, bases, canonical = [], {}, [], []
    nspec = c.type.get_num_template_arguments() if c.kind != ci.CursorKind.CLASS_TEMPLATE else -1
    for ch in c.get_children():
        if ch.kind == ci.CursorKind.FIELD_DECL:
            off = c.type.get_offset(ch.spelling) if not tparams else -1
            t = ch.type
            init = [_node(x, main) for x in ch.get_children() if x.kind.is_expression()]
            fields.append(
                {
                    "name": ch.spelling,
                    "t": t.spelling,
                    "tk": t.get_canonical().kind.name,
                    "ts": t.get_canonical().spelling,
                    "off": off // 8 if off >= 0 else -1,
                    "size": t.get_size(),
                    "n": t.get_array_size() if t.get_canonical().kind == ci.TypeKind.CONSTANTARRAY else -1,
                    "init": init[-1] if init else None,
                    "l": ch.location.line,
                }
            )
        elif ch.kind == ci.CursorKind.VAR_DECL:
            statics[ch.spelling] = _node(ch, main)
        elif ch.kind == ci.CursorKind.CXX_BASE_SPECIFIER:
            bases.append(ch.type.spelling)
            canonical.append(ch.type.get_canonical().spelling)
    return {
        "name": c.spelling,
        "place": _place(c),
        "line": c.location.line,
        "tparams": tparams,
        "fields": fields,
        "statics": statics,
        "bases": bases,
        "bases_ts": canonical,  # (their canonical spellings: `ops::IntegralConstant<bool, true>`)
        # a partial specialization's arguments are canonical (`type-parameter-0-0`: its first parameter)
        "partial": c.kind == ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION,
        "size": c.type.get_size() if not tparams else -1,
        # an explicit specialization's arguments (`template <> struct Map<uint32_t>`, `template <> class K<3>`): each
        # type canonical, each value as a string; else None
        "spec": [_spec_argument(c, i) for i in range(nspec)] if nspec > 0 else None,
    }


def _specialization(c: Any) -> list[dict[str, Any]] | None:
    """An explicit specialization's template arguments (`template <> void F<float, 3>(...)`): a type's
    canonical spelling or an integral value (an enum's too); None for any other function."""
    import clang.cindex as ci

    n = c.get_num_template_arguments() if c.kind in (ci.CursorKind.FUNCTION_DECL, ci.CursorKind.CXX_METHOD) else -1
    if n <= 0:
        return None
    out: list[dict[str, Any]] = []
    for i in range(n):
        kind = c.get_template_argument_kind(i)
        if kind == ci.TemplateArgumentKind.TYPE:
            out.append({"type": c.get_template_argument_type(i).get_canonical().spelling})
        elif kind == ci.TemplateArgumentKind.INTEGRAL:
            out.append({"value": c.get_template_argument_value(i)})
        else:
            out.append({"other": kind.name})
    return out


#: a launch `kernel<<<blockDim, l2ctrl, stream>>>(args)` (syntax clang reads only as CUDA): read as
#: `__regsim_launch(blockDim, l2ctrl, stream), kernel(args)`, on the same lines (kernels.py runs it as rs.launch)
_LAUNCH = re.compile(r"((?:\w+\s*::\s*)*\w+(?:\s*<[^<>;]*>)?)\s*<<<([^;]*?)>>>")
_LAUNCH_DECL = "\ntemplate <typename... A> void __regsim_launch(A...);\n"


def _launches(text: str) -> str:
    """`text` with each `<<<...>>>` launch read as a call of `__regsim_launch` then the kernel's (see _LAUNCH)."""
    return _LAUNCH.sub(r"__regsim_launch(\2), \1", text) if "<<<" in text else text


#: an include name spelled in a file (`#include "x.h"`, `#include <x.h>`, `__has_include("x.h")`)
_INCLUDE_NAME = re.compile(
    rb'^[ \t]*#[ \t]*include(?:_next)?[ \t]*([<"])([^>"\n]+)[>"]|__has_include(?:_next)?\s*\(\s*([<"])([^>"\n]+)[>"]', re.M
)


def _contents(tu: Any, file: Any, name: str) -> bytes:
    """The bytes clang read of `file` (clang_getFileContents), else (clang kept none) the bytes of `name` now."""
    import ctypes

    import clang.cindex as ci

    f = ci.conf.lib.clang_getFileContents
    f.restype, f.argtypes = ctypes.c_void_p, [ci.TranslationUnit, ci.File, ctypes.POINTER(ctypes.c_size_t)]
    size = ctypes.c_size_t(0)
    at = f(tu, file, ctypes.byref(size)) if file is not None else None
    if at:
        return ctypes.string_at(at, size.value)
    with open(name, "rb") as fh:
        return fh.read()


def _sources(tu: Any, path: str, own: bytes, ours: tuple[str, ...]) -> dict[str, Any]:
    """What the parse read, for the parse cache (cache.py): the file (its bytes `own`) and each header it included
    (not regsim's own), each with a digest of the bytes clang read, and the include names spelled in those that
    are not system headers (the including file, whether the name is quoted, the name)."""
    import clang.cindex as ci

    main = os.path.abspath(path)
    read: dict[str, tuple[Any, bool]] = {}
    for inc in tu.get_includes():
        name = os.path.abspath(inc.include.name)
        if name not in read and name != main and not name.startswith(ours):
            read[name] = inc.include, ci.SourceLocation.from_position(tu, inc.include, 1, 1).is_in_system_header
    files, includes = [], []
    for name, data, in_system in [(main, own, False), *((n, _contents(tu, f, n), sy) for n, (f, sy) in read.items())]:
        files.append([name, hashlib.blake2b(data, digest_size=16).hexdigest()])
        for m in () if in_system else _INCLUDE_NAME.finditer(data):
            quote, spelled = (m[1], m[2]) if m[1] else (m[3], m[4])
            entry = [name, quote == b'"', spelled.decode(errors="replace")]
            if entry not in includes:
                includes.append(entry)
    return {"files": files, "includes": includes}


def parse(path: str, header: str, extra_args: list[str], shims: dict[str, str] | None = None) -> dict[str, Any]:
    import clang.cindex as ci

    with tempfile.TemporaryDirectory() as tmp:
        hpath = os.path.join(tmp, "regsim_decls.h")
        with open(hpath, "w") as f:
            f.write(header + _LAUNCH_DECL)
        keep_going = 0x200  # CXTranslationUnit_KeepGoing: a missing host header does not end the parse
        # the libclang wheel has no compiler headers (stddef.h, stdarg.h): minimal ones, searched last
        os.mkdir(os.path.join(tmp, "builtin"))
        for name, text in _BUILTIN_HEADERS.items():
            with open(os.path.join(tmp, "builtin", name), "w") as f:
                f.write(text)
        args = ["-x", "c++", "-std=c++17", "-include", hpath, "-Wno-everything", "-ferror-limit=0"]
        args += ["-D__NPU_ARCH__=3510", *extra_args]  # regsim models the Ascend 950 (arch 3510)
        args += ["-idirafter", os.path.join(tmp, "builtin")]
        # stand-ins for helper headers from outside the devkit, searched last (by paths like `../inc/platform.h`)
        shim_dir = os.path.join(tmp, "shim", "d")
        for rel, text in (shims or {}).items():
            target = os.path.normpath(os.path.join(shim_dir, rel))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "w") as f:
                f.write(text)
        os.makedirs(shim_dir, exist_ok=True)
        args += ["-idirafter", shim_dir]
        with open(path, "rb") as fb:
            own = fb.read()
        source = own.decode("utf-8", errors="replace")
        if "#include <" in source:  # the standard headers define std::is_same: the header leaves it to them
            args.append("-DREGSIM_NO_STD_TRAITS")
        # clang parses the bytes read here (those the cache keys), with launches read as calls (on the same lines)
        source = _launches(source)
        _TEXTS[path] = source.encode()
        tu = ci.Index.create().parse(path, args=args, unsaved_files=[(path, source)], options=keep_going)
        diags = []
        main_path = os.path.abspath(path)
        for d in tu.diagnostics:
            if d.severity >= ci.Diagnostic.Error:
                loc = d.location
                in_main = loc.file is not None and os.path.abspath(loc.file.name) == main_path
                where = f"{loc.file.name if loc.file else path}:{loc.line}"
                file = os.path.abspath(loc.file.name) if loc.file else main_path
                diags.append({"text": f"{where}: {d.spelling}", "line": loc.line if in_main else 0, "file": file, "at": loc.line})
        funcs: list[dict[str, Any]] = []
        consts: dict[str, Any] = {}
        structs: list[dict[str, Any]] = []
        aliases: list[dict[str, Any]] = []  #: type aliases of namespaces and classes, with their scope's lines
        main = os.path.abspath(path)
        classes = (ci.CursorKind.CLASS_TEMPLATE, ci.CursorKind.CLASS_DECL, ci.CursorKind.STRUCT_DECL)
        tkinds = (ci.CursorKind.TEMPLATE_TYPE_PARAMETER, ci.CursorKind.TEMPLATE_NON_TYPE_PARAMETER)
        # the file and the headers it includes (not regsim's declarations nor the compiler's stand-ins)
        ours = (os.path.abspath(tmp) + os.sep,)

        def visit(c: Any, outer: list[dict[str, Any]]) -> None:
            for ch in c.get_children():
                if ch.location.file is None or os.path.abspath(ch.location.file.name).startswith(ours):
                    continue
                if ch.kind in (ci.CursorKind.NAMESPACE, ci.CursorKind.LINKAGE_SPEC):
                    visit(ch, outer)
                elif ch.kind in classes:  # static member VFs of a (template) class: its parameters come first
                    inner = [
                        {
                            "name": t.spelling,
                            "type": t.kind == tkinds[0],
                            "outer": True,
                            "t": "" if t.kind == tkinds[0] else t.type.get_canonical().spelling,
                        }
                        for t in ch.get_children()
                        if t.kind in tkinds
                    ]
                    if ch.is_definition():
                        structs.append(_class(ch, outer + inner, main))
                    visit(ch, outer + inner)
                elif ch.kind == ci.CursorKind.CLASS_TEMPLATE_PARTIAL_SPECIALIZATION and ch.is_definition():
                    # (a trait's partial specialization, `template <typename T> struct IsSame<T, T> : trueType {}`: its
                    # arguments and bases; its member functions are not reported)
                    structs.append(_class(ch, [], main))
                elif ch.kind.name in _FUNCTIONS:
                    fn = _function(ch, main, outer)
                    if fn is not None:
                        funcs.append(fn)
                elif ch.kind == ci.CursorKind.VAR_DECL and not outer:
                    consts[ch.spelling] = _node(ch, main)
                if ch.kind in (ci.CursorKind.TYPE_ALIAS_DECL, ci.CursorKind.TYPEDEF_DECL):  # a class's or namespace's
                    scope = c.extent if c.kind != ci.CursorKind.TRANSLATION_UNIT else None
                    lines = [scope.start.line, scope.end.line] if scope else [0, 1 << 30]
                    aliases.append({"scope": lines, "file": os.path.abspath(ch.location.file.name), "node": _node(ch, main)})
                elif ch.kind == ci.CursorKind.TYPE_ALIAS_TEMPLATE_DECL:  # `template <typename T> using X = ...;`
                    inner = [k for k in ch.get_children() if k.kind == ci.CursorKind.TYPE_ALIAS_DECL]
                    tparams = [k.spelling for k in ch.get_children() if k.kind in tkinds]
                    file = os.path.abspath(ch.location.file.name)
                    if inner:
                        aliases.append({"scope": [0, 1 << 30], "file": file, "node": _node(inner[0], main), "tparams": tparams})

        visit(tu.cursor, [])
        if _UNION_READS:
            _fold_unions(path, source, args)
        read = _sources(tu, path, own, ours)
    out = {"diagnostics": diags, "functions": funcs, "consts": consts, "structs": structs, "aliases": aliases}
    return {**out, "sources": read}


def main() -> None:
    request = json.load(sys.stdin)
    out = parse(request["path"], request["header"], request.get("args", []), request.get("shims"))
    sys.stdout.write(json.dumps(out))  # (one write: json.dump encodes in Python and writes each piece, ~100x slower)


if __name__ == "__main__":
    main()
