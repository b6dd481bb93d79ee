"""A vector function's code as register pressure and the lint read it: statements with the registers they
read and write, loops with their form, branches; built from a Python VF's source here, from a C++ VF's parse
in the front end (regsim._src.frontends.lint).

A statement's Reg calls say which of their arguments they read and which they write by the op table's
operand roles (`OUT` writes, `INOUT` reads and writes, as a MERGING call does its destination); a call of
anything else (a `@rs.simd_callee` helper) reads and writes every register it is given. A register is a
variable declared as one (`Reg.RegTensor(...)`, `RegTensor<T> x;`, `Reg.MaskReg()` ...) or assigned what a
Reg op returns (`mask = Reg.CreateMask(...)`).
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
import typing
from collections.abc import Callable, Iterator
from typing import Any

import attrs

from regsim._src.engine.spec import Kind, Role
from regsim._src.model import registers as regs
from regsim._src.ops import REGISTRY
from regsim._src.ops import namespace as Reg

#: the register files, as the cost table names them
KINDS = ("RegTensor", "MaskReg", "UnalignRegForLoad", "UnalignRegForStore", "AddrReg")
#: an operand kind's register file
OPERAND_FILES = {
    Kind.REG: "RegTensor",
    Kind.MASK: "MaskReg",
    Kind.PRED: "MaskReg",
    Kind.ULOAD: "UnalignRegForLoad",
    Kind.USTORE: "UnalignRegForStore",
    Kind.ADDR: "AddrReg",
}
#: operand kinds that address the UB or update a counter: a call with one is not a pure register computation
MEMORY_KINDS = frozenset({Kind.PTR, Kind.ADDR, Kind.ULOAD, Kind.USTORE, Kind.REF})
_CLASSES = {regs.RegTensor: "RegTensor", regs.MaskReg: "MaskReg", regs.AddrReg: "AddrReg"}
_CLASSES |= {regs.UnalignRegForLoad: "UnalignRegForLoad", regs.UnalignRegForStore: "UnalignRegForStore"}


@attrs.frozen
class Register:
    """A register variable: its name, file and how many registers of the file it takes (2 with RegTraitNumTwo)."""

    name: str
    kind: str
    size: int = 1


@attrs.frozen
class Call:
    """A Reg call (or a helper's) in a statement."""

    api: str
    line: int
    reads: frozenset[str]  #: every name its arguments read (registers and scalars)
    writes: frozenset[str]  #: the registers it writes (the target a returned register is assigned to included)
    updates: frozenset[str]  #: scalars it updates (a `Ref` / C++ reference argument)
    pure: bool  #: a Reg op with no UB, address or counter operand (a register computation)


@attrs.define
class Node:
    """A statement ("stmt"), a loop ("for", "while", "do"), a branch ("if", "switch")."""

    what: str
    line: int
    reads: set[str] = attrs.field(factory=set)  #: names read (the condition's, for a branch; the bound's, for a loop)
    writes: set[str] = attrs.field(factory=set)  #: names assigned
    calls: list[Call] = attrs.field(factory=list)
    body: list[Node] = attrs.field(factory=list)
    orelse: list[Node] = attrs.field(factory=list)
    #: a `for` loop's variable, its C++ type ("" in Python), start and step (None: not a literal) and bound names
    var: str = ""
    var_type: str = ""
    start: int | None = 0
    step: int | None = 1
    bound: set[str] = attrs.field(factory=set)
    #: what a rule looks for: "ternary" (a conditional expression), "constexpr" (an `if constexpr`), "member <text>"
    #: (a member of a struct or object read)
    notes: list[tuple[str, int]] = attrs.field(factory=list)


@attrs.define
class VfCode:
    """One vector function (or `VEC_SCOPE` block, or `__simd_callee__` helper)."""

    name: str
    file: str
    line: int
    body: list[Node]
    registers: dict[str, Register]
    params: list[tuple[str, str]] = attrs.field(factory=list)  #: (name, C++ type or Python annotation)
    entry: bool = True  #: a VF (`__simd_vf__`, a VEC_SCOPE block), not a helper it calls (`__simd_callee__`)

    @property
    def register_params(self) -> set[str]:
        """The parameters that are registers (a helper's: live on entry, and on return to the caller)."""
        return {name for name, _ in self.params if name in self.registers}

    def walk(self) -> Iterator[tuple[Node, tuple[Node, ...]]]:
        """Every node with the loops around it (outermost first)."""

        def go(nodes: list[Node], loops: tuple[Node, ...]) -> Iterator[tuple[Node, tuple[Node, ...]]]:
            for n in nodes:
                yield n, loops
                inner = (*loops, n) if n.what in ("for", "while", "do") else loops
                yield from go(n.body, inner)
                yield from go(n.orelse, inner)

        return go(self.body, ())


def nodes_in(nodes: list[Node]) -> Iterator[Node]:
    for n in nodes:
        yield n
        yield from nodes_in(n.body)
        yield from nodes_in(n.orelse)


# --- the op table's view of a call ---------------------------------------------------------------------------
@functools.cache
def returned_file(api: str) -> str:
    """The register file of what the Reg function `api` returns ("" if none, or it is not a Reg function)."""
    f = getattr(Reg, api, None)
    if isinstance(f, type):
        return _CLASSES.get(f, "")
    if f is None or api not in REGISTRY.entries:
        return ""
    try:
        ret = typing.get_type_hints(f).get("return")
    except Exception:  # (a hint that does not resolve: no register)
        return ""
    origin = typing.get_origin(ret) or ret
    return _CLASSES.get(origin, "") if isinstance(origin, type) else ""


def roles(api: str, n_args: int, cxx: bool = False) -> list[tuple[Role, Kind]] | None:
    """The roles and kinds of a Reg call's `n_args` positional arguments (None: not a Reg op): of the overload
    with that many positional operands, an argument written by any such overload counted as written. `cxx`: a
    C++ call, whose element type (`CreateMask<T>()`, Python's first argument) is a template argument."""
    entry = REGISTRY.entries.get(api)
    if entry is None:
        return None
    positional = {s.key: [o for o in s.positional if not (cxx and o.kind is Kind.DTYPE)] for s in entry.specs}
    fits = [p for p in positional.values() if len(p) == n_args] or list(positional.values())
    out: list[tuple[Role, Kind]] = []
    for k in range(n_args):
        ops = [p[k] for p in fits if k < len(p)]
        if not ops:
            out.append((Role.IN, Kind.SCALAR))
            continue
        written = [o.role for o in ops if o.role in (Role.OUT, Role.INOUT)]
        out.append((Role.INOUT if Role.INOUT in written else written[0] if written else Role.IN, ops[0].kind))
    return out


def make_call(
    api: str,
    line: int,
    args: list[tuple[set[str], str]],
    registers: dict[str, Register],
    merging: bool,
    target: str = "",
    cxx: bool = False,
) -> Call:
    """A call of `api` whose positional arguments are `args`: each the names it reads, and the variable it is
    ("" for an expression: `ptr + i * n` is no pointer the call can update)."""
    table = roles(api, len(args), cxx)
    reads: set[str] = set()
    writes: set[str] = {target} if target else set()
    updates: set[str] = set()
    for k, (names, variable) in enumerate(args):
        held = {n for n in names if n in registers}
        # (a helper: reads and writes the registers it is given, reads the rest)
        role, kind = table[k] if table is not None else (Role.INOUT, Kind.REG) if held else (Role.IN, Kind.SCALAR)
        if merging and role is Role.OUT:  # a MERGING call keeps the inactive lanes: it reads its destination
            role = Role.INOUT
        if role in (Role.OUT, Role.INOUT) and held:
            writes |= held
            if role is Role.INOUT:
                reads |= names
        elif role is Role.INOUT or kind is Kind.REF:
            updates |= {variable} - {""}
            reads |= names
        else:
            reads |= names
    pure = table is not None and not any(kind in MEMORY_KINDS for _, kind in table)
    return Call(api, line, frozenset(reads), frozenset(writes), frozenset(updates), pure)


def param_file(type_text: str) -> tuple[str, int] | None:
    """A parameter's or variable's register file and size by its declared type's text (None: no register)."""
    t = type_text.replace("const ", "").strip()
    for kind in ("UnalignRegForLoad", "UnalignRegForStore", "MaskReg", "AddrReg"):
        if kind in t:
            return kind, 1
    if "RegTensor" in t:
        return "RegTensor", 2 if "RegTraitNumTwo" in t else 1
    return None


# --- Python ----------------------------------------------------------------------------------------------------
def _names(node: ast.AST | None) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} if node else set()


def _literal(node: ast.expr) -> int | None:
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


def _api(func: ast.expr) -> str:
    """`Reg.Add` / `rs.Reg.Add` -> "Add"; a bare name -> itself; else ""."""
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_reg(func: ast.expr) -> bool:
    """`Reg.X` or `rs.Reg.X` (regsim's Reg namespace)."""
    return isinstance(func, ast.Attribute) and (
        (isinstance(func.value, ast.Name) and func.value.id == "Reg")
        or (isinstance(func.value, ast.Attribute) and func.value.attr == "Reg")
    )


class _Python:
    """Builds a VfCode from a Python function's (or `with VEC_SCOPE()` block's) statements."""

    def __init__(self, params: set[str]) -> None:
        self.registers: dict[str, Register] = {}
        self.params = params

    def declare(self, target: ast.expr, value: ast.expr | None) -> str:
        """A register declared or assigned by `target = value`: its name ("" if none)."""
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Call) or not _is_reg(value.func):
            return ""
        kind = returned_file(_api(value.func))
        if not kind:
            return ""
        two = any("RegTraitNumTwo" in ast.unparse(a) for a in (*value.args, *(k.value for k in value.keywords)))
        size = 2 if kind == "RegTensor" and two else 1
        self.registers.setdefault(target.id, Register(target.id, kind, size))
        return target.id if not isinstance(getattr(Reg, _api(value.func), None), type) else ""

    def calls(self, stmt: ast.AST, target: str) -> list[Call]:
        out = []
        for node in ast.walk(stmt):
            if not isinstance(node, ast.Call) or isinstance(getattr(Reg, _api(node.func), None), type):
                continue
            api = _api(node.func)
            if not _is_reg(node.func) and not any(_names(a) & set(self.registers) for a in node.args):
                continue  # (a Python helper given no register: scalar code)
            merging = any(k.arg == "mode" and "MERGING" in ast.unparse(k.value) for k in node.keywords)
            returned = target if target and node is getattr(stmt, "value", None) else ""
            args = [(_names(a), a.id if isinstance(a, ast.Name) else "") for a in node.args]
            out.append(make_call(api if _is_reg(node.func) else "", node.lineno, args, self.registers, merging, returned))
        return out

    def block(self, body: list[ast.stmt]) -> list[Node]:
        out: list[Node] = []
        for s in body:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s: ast.stmt) -> list[Node]:
        notes = self.notes(s) if not isinstance(s, (ast.For, ast.While, ast.If, ast.With)) else []
        if isinstance(s, ast.For):
            return [self.loop(s)]
        if isinstance(s, ast.While):
            return [Node("while", s.lineno, _names(s.test), body=self.block(s.body), notes=self.notes(s.test))]
        if isinstance(s, ast.If):
            body, orelse = self.block(s.body), self.block(s.orelse)
            return [Node("if", s.lineno, _names(s.test), body=body, orelse=orelse, notes=self.notes(s.test))]
        if isinstance(s, ast.With):
            return self.block(s.body)
        target = ""
        written: set[str] = set()
        if isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                pairs: list[tuple[ast.expr, ast.expr | None]] = [(t, s.value)]
                if isinstance(t, ast.Tuple) and isinstance(s.value, ast.Tuple):  # `x, y = Reg.RegTensor(F32), ...`
                    pairs = list(zip(t.elts, s.value.elts, strict=False))
                for one, value in pairs:
                    target = self.declare(one, value) or target
                written |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        calls = self.calls(s, target)
        reads = _names(s) - (written if not isinstance(s, ast.AugAssign) else set())
        for c in calls:
            written |= c.writes | c.updates
        return [Node("stmt", s.lineno, reads, written, calls, notes=notes)]

    def loop(self, s: ast.For) -> Node:
        var = s.target.id if isinstance(s.target, ast.Name) else ast.unparse(s.target)
        node = Node("for", s.lineno, var=var, body=self.block(s.body), orelse=self.block(s.orelse))
        it = s.iter
        if isinstance(it, ast.Call) and _api(it.func) in ("range", "vf_range") and 1 <= len(it.args) <= 3:
            args = it.args
            node.start = 0 if len(args) == 1 else _literal(args[0])
            node.step = 1 if len(args) < 3 else _literal(args[2])
            node.bound = _names(args[0] if len(args) == 1 else args[1])
        else:
            node.start = node.step = None
            node.bound = _names(it)
        node.reads = set(node.bound)
        return node

    def notes(self, tree: ast.AST) -> list[tuple[str, int]]:
        out = []
        for n in ast.walk(tree):
            if isinstance(n, ast.IfExp):
                out.append(("ternary", n.lineno))
            elif (
                isinstance(n, ast.Attribute)
                and isinstance(n.ctx, ast.Load)
                and isinstance(n.value, ast.Name)
                and n.value.id in self.params
            ):
                out.append((f"member {ast.unparse(n)}", n.lineno))
        return out


#: parameter annotations that are no struct or object (a member read of one is no member variable)
_PLAIN = ("UbPtr", "int", "float", "bool", "Ref", "type")


def from_python(fn: ast.FunctionDef, file: str, offset: int = 0) -> VfCode:
    """A Python VF's code (its line numbers shifted by `offset`)."""
    params = [(a.arg, ast.unparse(a.annotation) if a.annotation else "") for a in fn.args.args]
    structs = {n for n, ann in params if ann and not any(p in ann for p in _PLAIN)}
    b = _Python(structs)
    for name, ann in params:
        kind = param_file(ann)
        if kind is not None:
            b.registers[name] = Register(name, *kind)
    body = b.block(fn.body)
    code = VfCode(fn.name, file, fn.lineno, body, b.registers, params)
    if offset:
        for n in nodes_in(code.body):
            n.line += offset
            n.calls = [attrs.evolve(c, line=c.line + offset) for c in n.calls]
            n.notes = [(what, line + offset) for what, line in n.notes]
        code.line += offset
    return code


def scope_blocks(tree: ast.AST) -> Iterator[ast.With]:
    """The `with rs.VEC_SCOPE():` blocks of a module or function."""
    for n in ast.walk(tree):
        if isinstance(n, ast.With) and any(
            isinstance(i.context_expr, ast.Call) and _api(i.context_expr.func) == "VEC_SCOPE" for i in n.items
        ):
            yield n


def _decorated(fn: ast.FunctionDef) -> bool:
    return any(_api(d.func if isinstance(d, ast.Call) else d) in ("simd_vf", "simd_callee") for d in fn.decorator_list)


def python_vfs(tree: ast.Module, file: str) -> list[VfCode]:
    """Every VF of a Python module: `@rs.simd_vf` and `@rs.simd_callee` functions and `with rs.VEC_SCOPE():` blocks."""
    out = [from_python(n, file) for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and _decorated(n)]
    for w in scope_blocks(tree):
        fn = ast.FunctionDef(f"VEC_SCOPE at line {w.lineno}", ast.arguments([], [], None, [], [], None, []), w.body, [], None)
        fn.lineno = w.lineno
        out.append(from_python(fn, file))
    return out


def of_function(f: Callable[..., Any]) -> VfCode | None:
    """The code of a `@rs.simd_vf` function (None where its source cannot be read)."""
    f = inspect.unwrap(f)
    try:
        lines, first = inspect.getsourcelines(f)
        file = inspect.getsourcefile(f) or "?"
    except (OSError, TypeError):
        return None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    fn = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
    return None if fn is None else from_python(fn, file, first - 1)
