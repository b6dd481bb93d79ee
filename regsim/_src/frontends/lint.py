"""`rs.lint(F_or_path) -> list[Finding]` and `regsim lint FILE`: the rules of regsim._src.cost.lint over a Python
VF, a Python file's VFs, or a C++ file's `__simd_vf__` / `__simd_callee__` functions and `__VEC_SCOPE__` blocks
(through the C++ front end's parse: the code as written, templates uninstantiated).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from regsim._src.cost import vfcode
from regsim._src.cost.lint import Finding, lint_code
from regsim._src.cost.table import CostTable
from regsim._src.cost.vfcode import Node, Register, VfCode, make_call
from regsim._src.frontends.cpp import module as cpp
from regsim._src.frontends.cpp.declarations import C_TYPES
from regsim._src.frontends.cpp.lowering import Fn
from regsim.errors import ParameterError, message

CPP_SUFFIXES = (".asc", ".cpp", ".cc", ".cxx", ".h", ".hpp")
_LOOPS = {"FOR_STMT": "for", "WHILE_STMT": "while", "DO_STMT": "do"}
#: C API register types (`vector_f32`, `vector_bool` ...) by their register file
_C_FILES = {"MaskReg": "MaskReg", "UnalignRegForLoad": "UnalignRegForLoad", "UnalignRegForStore": "UnalignRegForStore"}


def lint(
    F_or_path: Callable[..., Any] | str | os.PathLike[str], *, args: tuple[str, ...] = (), table: CostTable | None = None
) -> list[Finding]:
    """What the 950 compiler refuses or makes slower in a VF (`@rs.simd_vf` function) or in every VF of a Python
    or C++ file (.py; .asc, .cpp, .h ...): each `Finding` with its rule, `file:line`, message and page. `args`:
    a C++ file's extra clang arguments (`-I...`, `-D...`, as `rs.cpp.load` takes them)."""
    codes: list[VfCode]
    if isinstance(F_or_path, (str, os.PathLike)):
        path = Path(F_or_path)
        if not path.is_file():
            raise ParameterError(message("lint", "F_or_path", repr(str(path)), "a Python or C++ file, or a @rs.simd_vf function"))
        if path.suffix == ".py":
            codes = vfcode.python_vfs(ast.parse(path.read_text(encoding="utf-8"), str(path)), str(path))
        elif path.suffix in CPP_SUFFIXES:
            codes = cpp_vfs(cpp.load(path, args=args))
        else:
            accepted = f"a .py file or a C++ file ({', '.join(CPP_SUFFIXES)})"
            raise ParameterError(message("lint", "F_or_path", repr(str(path)), accepted))
    else:
        code = vfcode.of_function(F_or_path) if getattr(F_or_path, "__regsim_vf_body__", None) is not None else None
        if code is None:
            raise ParameterError(
                message("lint", "F_or_path", repr(F_or_path), "a @rs.simd_vf function whose source can be read, or a file path")
            )
        codes = [code]
    return [f for code in codes for f in lint_code(code, table)]


# --- C++ ---------------------------------------------------------------------------------------------------
def _walk(n: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield n
    for c in n.get("c", ()):
        yield from _walk(c)


def _refs(n: dict[str, Any]) -> set[str]:
    """The local variables and parameters an expression names."""
    return {x.get("rs", x["s"]) for x in _walk(n) if x["k"] == "DECL_REF_EXPR" and x.get("rk") in ("VAR_DECL", "PARM_DECL")}


def _variable(n: dict[str, Any]) -> str:
    """The local variable or parameter an argument is ("" for any other expression)."""
    while n["k"] in ("UNEXPOSED_EXPR", "PAREN_EXPR") and len(n.get("c", [])) == 1:
        n = n["c"][0]
    return str(n.get("rs", n["s"])) if n["k"] == "DECL_REF_EXPR" and n.get("rk") in ("VAR_DECL", "PARM_DECL") else ""


def _callee(n: dict[str, Any]) -> str:
    """A CALL_EXPR's function name ("" for a member call)."""
    kids = n.get("c", [])
    if not kids:
        return str(n["s"])
    for x in _walk(kids[0]):
        if x["k"] == "MEMBER_REF_EXPR":
            return ""
        if x.get("rk") in ("FUNCTION_DECL", "FUNCTION_TEMPLATE", "OVERLOADED_DECL_REF") and x.get("rs"):
            return str(x["rs"])
    return str(n["s"])


def _file_of(type_text: str) -> tuple[str, int] | None:
    """A declared type's register file and size (None: no register): a Reg type, or a C API `vector_*` one."""
    reg = vfcode.param_file(type_text)
    if reg is not None:
        return reg
    c = C_TYPES.get(type_text.replace("const ", "").replace("&", "").strip().split("::")[-1])
    if c is not None:
        return _C_FILES.get(str(c), "RegTensor"), 1
    return None


class _Cpp:
    def __init__(self) -> None:
        self.registers: dict[str, Register] = {}

    def block(self, n: dict[str, Any]) -> list[Node]:
        kids = n.get("c", []) if n["k"] == "COMPOUND_STMT" else [n]
        return [node for k in kids for node in self.stmt(k)]

    def stmt(self, n: dict[str, Any]) -> list[Node]:
        k, kids = n["k"], n.get("c", [])
        if k == "COMPOUND_STMT":
            return self.block(n)
        if k == "FOR_STMT":
            return [self.loop(n)]
        if k in _LOOPS:
            body = next((c for c in kids if c["k"] == "COMPOUND_STMT"), kids[-1] if kids else n)
            cond = [c for c in kids if c is not body]
            reads = set().union(*(_refs(c) for c in cond)) if cond else set()
            return [Node(_LOOPS[k], n["l"], reads, body=self.block(body))]
        if k == "IF_STMT":
            cond, then, rest = kids[0], kids[1] if len(kids) > 1 else None, kids[2] if len(kids) > 2 else None
            notes = [("constexpr", n["l"])] if n.get("constexpr") else []
            notes += self.notes(cond)
            return [
                Node(
                    "if",
                    n["l"],
                    _refs(cond),
                    body=self.block(then) if then else [],
                    orelse=self.block(rest) if rest else [],
                    notes=notes,
                )
            ]
        if k == "SWITCH_STMT":
            return [Node("switch", n["l"], _refs(kids[0]) if kids else set(), body=[s for c in kids[1:] for s in self.stmt(c)])]
        if k in ("CASE_STMT", "DEFAULT_STMT"):
            return [s for c in kids[1 if k == "CASE_STMT" else 0 :] for s in self.stmt(c)]
        return [self.simple(n)]

    def simple(self, n: dict[str, Any]) -> Node:
        written: set[str] = set()
        target = ""
        for x in _walk(n):
            if x["k"] == "VAR_DECL":
                reg = _file_of(x.get("t", "")) or _file_of(x.get("ts", ""))
                if reg is not None:
                    self.registers[x["s"]] = Register(x["s"], *reg)
                if x.get("ninit"):
                    written.add(x["s"])
                    target = x["s"] if reg is not None else target
            elif x["k"] in ("BINARY_OPERATOR", "COMPOUND_ASSIGNMENT_OPERATOR") and x.get("op", "").endswith("=") and x.get("c"):
                lhs = _variable(x["c"][0])  # (`a[i] = v`, `*p = v` assign no variable)
                if x["op"] not in ("==", "!=", "<=", ">=") and lhs:
                    written.add(lhs)
                    target = lhs if x["op"] == "=" and lhs in self.registers else target
            elif x["k"] == "UNARY_OPERATOR" and x.get("op", "").removeprefix("post") in ("++", "--") and x.get("c"):
                written |= {_variable(x["c"][0])} - {""}
        calls = []
        for x in _walk(n):
            if x["k"] != "CALL_EXPR":
                continue
            api = _callee(x)
            if not api:
                continue
            args = [(_refs(a), _variable(a)) for a in x.get("c", [])[1:]]
            returned = target if target and vfcode.returned_file(api) else ""
            if vfcode.roles(api, len(args), cxx=True) is None and not any(a & set(self.registers) for a, _ in args):
                continue
            merging = any("MERGING" in " ".join(str(t) for t in y.get("toks", [])) or y.get("rs") == "MERGING" for y in _walk(x))
            calls.append(make_call(api, x["l"], args, self.registers, merging, returned, cxx=True))
        for c in calls:
            written |= c.writes | c.updates
        reads = _refs(n) - written
        return Node("stmt", n["l"], reads, written, calls, notes=self.notes(n))

    def loop(self, n: dict[str, Any]) -> Node:
        kids = n.get("c", [])
        parts = [*(n.get("parts") or [True, True, True]), False, False, False][:3]  # (no parts read: a macro's for)
        it = iter(kids)
        init, cond, inc = (next(it, None) if present else None for present in parts)
        body = next(it, None)
        node = Node("for", n["l"], body=self.block(body) if body else [])
        decl = next((x for x in _walk(init) if x["k"] == "VAR_DECL"), None) if init else None
        if decl is not None:  # `uint16_t i = 0`
            node.var, node.var_type = decl["s"], decl.get("t", "")
        elif init is not None:  # `i = 0`, the variable declared before
            node.var = next(iter(_refs(init.get("c", [init])[0])), "")
        # the start: one integer literal given to the variable (anything else is not known to be 0)
        lits = [x for x in _walk(init) if x["k"] == "INTEGER_LITERAL"] if init else []
        given = init is not None and (decl is None or decl.get("ninit"))
        node.start = int(lits[0]["v"]) if given and len(lits) == 1 and str(lits[0]["v"]).isdigit() else None
        node.step = _step(inc, node.var)
        if cond is not None:
            node.bound = _refs(cond) - {node.var}
        node.reads = set(node.bound)
        node.notes = self.notes(cond) if cond else []
        return node

    def notes(self, n: dict[str, Any]) -> list[tuple[str, int]]:
        out = []
        for x in _walk(n):
            if x["k"] == "CONDITIONAL_OPERATOR":
                out.append(("ternary", x["l"]))
            elif x["k"] == "MEMBER_REF_EXPR" and x.get("rk") == "FIELD_DECL":
                out.append((f"member {x['s']}", x["l"]))
        return out


def _step(inc: dict[str, Any] | None, var: str) -> int | None:
    """1 for `++i`, `i++`, `i += 1` (of the loop variable), else None."""
    if inc is None or _refs(inc) != {var}:
        return None
    if inc["k"] == "UNARY_OPERATOR" and inc.get("op") in ("++", "post++"):
        return 1
    if inc["k"] == "COMPOUND_ASSIGNMENT_OPERATOR" and inc.get("op") == "+=":
        lits = [x for x in _walk(inc) if x["k"] == "INTEGER_LITERAL"]
        return 1 if len(lits) == 1 and str(lits[0]["v"]) == "1" else None
    return None


def from_cpp(fn: Fn, path: str, body: dict[str, Any] | None = None, name: str = "") -> VfCode:
    """A C++ VF's (or `__VEC_SCOPE__` block's: `body`) code."""
    b = _Cpp()
    params = [] if body is not None else [(p["name"], p["t"]) for p in fn.params]
    for p in params:
        reg = _file_of(p[1])
        if reg is not None:
            b.registers[p[0]] = Register(p[0], *reg)
    nodes = b.block(body if body is not None else fn.body)
    line = body["l"] if body is not None else fn.line
    return VfCode(name or fn.name, path, line, nodes, b.registers, params, entry=body is not None or fn.what == "vf")


def cpp_vfs(mod: cpp.CppModule) -> list[VfCode]:
    """Every `__simd_vf__` and `__simd_callee__` function defined in the file, and every `__VEC_SCOPE__` block."""
    here = os.path.abspath(mod.path)
    out = []
    for fns in mod.definitions.values():
        for fn in fns:
            if fn.file not in (here, "") or not fn.defined:
                continue
            if fn.what in ("vf", "callee"):
                out.append(from_cpp(fn, mod.path))
                continue
            for x in _walk(fn.body):
                calls = {_callee(c) for c in _walk(x["c"][0]) if c["k"] == "CALL_EXPR"} if x["k"] == "IF_STMT" else set()
                if "__regsim_vec_scope" in calls:
                    out.append(from_cpp(fn, mod.path, x["c"][1], f"__VEC_SCOPE__ in {fn.name}"))
    return out
