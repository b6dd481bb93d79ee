"""What the source of a VF loop, and of the functions it calls, says about batching it.

A batched loop runs its body once for all iterations, so Python state the body keeps from one
iteration to the next, or changes outside itself, would be seen once instead of once per
iteration. The rules here find it in the source (docs/api.md, "The rules", S1-S6):

- S1 `break`, `continue`, `return`, `yield`, `await` in the body;
- S2 a name read before the body assigns it (`x = x + 1`, `x += 1`, a value kept from the previous
  iteration), the loop variable excepted;
- S3 Python state written: an attribute or item store (`obj.f = v`, `a[k] = v`), `global`,
  `nonlocal`;
- S4 a method called on something that is not regsim's (`seen.append(i)`), regsim's own pointer
  and register methods that make new objects (`reinterpret`, `copy`, `GetPhyAddr`) excepted;
- S5 a function called that regsim cannot show keeps no state: regsim's own functions and
  classes, the pure builtins, and `@rs.simd_callee` / plain Python functions whose own source
  keeps to S1, S3-S5 (checked once per function) are fine; anything else (`print`, a function
  without source, a name regsim cannot resolve when the loop starts) is not.

What cannot be seen in the source (a counter or pointer made before the loop, the loop index
used as a Python value, UB bytes shared between iterations) is checked as the batched attempt
runs (regsim._src.vf.batched).
"""

from __future__ import annotations

import ast
import builtins
import enum
import inspect
import textwrap
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any

#: methods of regsim's pointers, tensors and registers that make a new object and change nothing
SAFE_METHODS = frozenset({"reinterpret", "copy", "GetPhyAddr"})
#: builtins that change no Python state (they make new objects or read their arguments)
PURE_BUILTINS = frozenset(
    getattr(builtins, name)
    for name in (
        "abs all any bin bool bytes complex dict divmod enumerate float frozenset getattr hasattr hex int "
        "isinstance issubclass len list max min oct pow range repr reversed round set slice sorted str sum "
        "tuple type zip"
    ).split()
)
#: modules whose functions change no Python state of the kernel's
PURE_MODULES = frozenset({"math", "numpy", "operator"})
LOOP_FUNCS = frozenset({"range", "vf_range"})


def called_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def walk_body(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of a body in source order, not descending into nested function or class
    definitions (their bodies run only when called, and S5 checks the calls)."""
    stack: list[ast.AST] = list(reversed(body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def state_reason(body: list[ast.stmt], in_loop: bool) -> str:
    """S1 and S3 for a loop body (`in_loop`: its own `break`, `continue` and `return` count; a loop
    nested in it keeps its own break and continue) or a whole function body. "" if neither applies."""
    own = set(_own_jumps(body)) if in_loop else set()  # (a function's own return is fine)
    for node in walk_body(body):
        if id(node) in own and isinstance(node, ast.stmt):
            return f"line {node.lineno}: {type(node).__name__.lower()} (S1)"
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return f"line {node.lineno}: {type(node).__name__.lower()} (S1)"
        if isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            return f"line {node.lineno}: writes Python state ({ast.unparse(node)} = ...) (S3)"
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return f"line {node.lineno}: {type(node).__name__.lower()} {', '.join(node.names)} (S3)"
    return ""


def _own_jumps(nodes: list[Any], inner: bool = False) -> Iterator[int]:
    """The ids of the `break`, `continue` and `return` statements among `nodes` that leave the
    loop whose body they are (`inner`: they stand in a loop nested in it, whose own break and
    continue these are)."""
    for node in nodes:
        if isinstance(node, (ast.Break, ast.Continue)):
            if not inner:
                yield id(node)
        elif isinstance(node, ast.Return):
            yield id(node)
        elif isinstance(node, (ast.For, ast.While, ast.AsyncFor)):
            yield from _own_jumps(node.body, True)
            yield from _own_jumps(node.orelse, inner)  # (a loop's else clause belongs to the loop around it)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield from _own_jumps(list(ast.iter_child_nodes(node)), inner)


def carried_names(loop: ast.For) -> list[str]:
    """S2: names the body assigns and reads before its first assignment (in source order; an
    assignment takes effect after its whole statement, so `p = p + 1` and `x += 1` read first)."""
    first_store: dict[str, tuple[int, int]] = {}
    loads: list[tuple[tuple[int, int], str]] = []
    targets = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)}
    for stmt in loop.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                loads.append(((node.lineno, node.col_offset), node.target.id))
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Store):
                    end = _effect(stmt, node)
                    if end < first_store.get(node.id, (1 << 62, 0)):
                        first_store[node.id] = end
                else:
                    loads.append(((node.lineno, node.col_offset), node.id))
    return sorted({name for pos, name in loads if name in first_store and name not in targets and pos < first_store[name]})


def _effect(stmt: ast.stmt, node: ast.Name) -> tuple[int, int]:
    """When a store to `node` takes effect: after its whole statement for an assignment (its
    right-hand side is read first), else where the name stands (a loop target, `with ... as`)."""
    if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and stmt.end_lineno is not None:
        return (stmt.end_lineno, stmt.end_col_offset or 0)
    return (node.lineno, node.col_offset)


Call = tuple[str, int, str, str]  #: (name, line, kind, the call as the source spells it)


def calls(body: list[ast.stmt], first_line: int = 1) -> tuple[Call, ...]:
    """S4/S5's material, (name, line, kind) for: each function called by name (`f(...)`, kind
    "call"); each name whose methods are called (`a.m(...)`, `m` not in SAFE_METHODS; `a` may be
    dotted: `rs.AscendC`; kind "method"); each name in a callee chosen by an expression
    (`(Reg.AddC if add else Reg.SubC)(...)`, kind "part": a callee or a plain value). The VF loops'
    `range` excepted. A callee regsim cannot name (`f()()`, `a[0].m()`) is ("", line, "call").
    Lines count from `first_line` for the body's line 1."""
    found: dict[tuple[str, str], tuple[int, str]] = {}
    for node in walk_body(body):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        at = (node.lineno + first_line - 1, ast.unparse(func))
        if isinstance(func, ast.Name):
            if func.id not in LOOP_FUNCS:
                found.setdefault((func.id, "call"), at)
        elif isinstance(func, ast.Attribute) and func.attr in SAFE_METHODS:
            continue
        elif isinstance(func, ast.Attribute) and dotted(func.value):
            found.setdefault((dotted(func.value), "method"), at)
        elif isinstance(func, (ast.IfExp, ast.BoolOp)) and not any(isinstance(n, (ast.Call, ast.Lambda)) for n in ast.walk(func)):
            for part in _names_in(func):
                found.setdefault((part, "part"), at)
        elif isinstance(func, ast.Subscript) and _indexed(func):
            found.setdefault((at[1], "item"), at)  # `OPS[op](...)`: looked up when the loop starts
        else:
            found.setdefault(("", "call"), at)
    return tuple((name, line, kind, shown) for (name, kind), (line, shown) in found.items())


def _indexed(node: ast.expr) -> bool:
    """A callee spelled as items of a named container: `OPS[op]`, `TABLE["Add"][k]`."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, (ast.Constant, ast.Name)) and _indexed(node.value)
    return bool(dotted(node))


def _item(node: ast.expr, scopes: tuple[Mapping[str, Any], ...], assigned: frozenset[str]) -> Any:
    """The value of an `_indexed` expression, looked up without running any code but a built-in
    dict's, list's or tuple's item lookup (_MISSING where that is not enough)."""
    if not isinstance(node, ast.Subscript):
        name = dotted(node)
        return _MISSING if name.split(".")[0] in assigned else lookup(name, scopes)
    container = _item(node.value, scopes, assigned)
    key: Any = node.slice.value if isinstance(node.slice, ast.Constant) else _item(node.slice, scopes, assigned)
    if type(container) not in (dict, list, tuple) or key is _MISSING:
        return _MISSING
    try:
        return container[key]
    except (KeyError, IndexError, TypeError):
        return _MISSING


def _names_in(node: ast.AST) -> Iterator[str]:
    """The maximal dotted names (`Reg.AddC`, `op`) in an expression."""
    if isinstance(node, (ast.Name, ast.Attribute)) and dotted(node):
        yield dotted(node)
        return
    for child in ast.iter_child_nodes(node):
        yield from _names_in(child)


def dotted(node: ast.expr) -> str:
    """`a.b.c` of the expression that loads it ("" where it is not a name or attributes of one)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = dotted(node.value)
        return f"{inner}.{node.attr}" if inner else ""
    return ""


_MISSING = object()


def lookup(name: str, scopes: tuple[Mapping[str, Any], ...]) -> Any:
    """`name` (dotted: `a.b`) in the first scope that has its head; _MISSING if none does."""
    return _find(*_split(name), scopes)


def _split(name: str) -> tuple[str, list[str]]:
    head, *rest = name.split(".")
    return head, rest


def _find(head: str, rest: list[str], scopes: tuple[Mapping[str, Any], ...]) -> Any:
    """`lookup` of a name split by `_split`."""
    for scope in scopes:
        if head in scope:
            obj = scope[head]
            for attr in rest:
                obj = getattr(obj, attr, _MISSING)
            return obj
    return _MISSING


def call_reason(call: Call, obj: Any, seen: set[int]) -> str:
    """S4/S5 for what a call's name resolved to ("" if fine): a callee (kind "call"), the holder
    of a method called ("method"), or part of an expression choosing a callee ("part": a plain
    value such as a bool or an enum member is fine there too)."""
    name, line, kind, shown = call
    where = f"line {line}: "
    if not name:
        return f"{where}calls {shown}(...), a function regsim cannot name before the loop runs (S5)"
    if obj is _MISSING:
        return f"{where}calls {shown}(...), and regsim cannot resolve {name} when the loop starts (S5)"
    if kind == "method":  # methods of modules and namespaces regsim knows keep no state; an object's may
        if isinstance(obj, types.ModuleType) and (_regsims(obj) or _pure_module(obj)):
            return ""
        return f"{where}calls {shown}(), a method of a {type(obj).__name__}, which may keep Python state (S4)"
    if kind == "part" and (obj is None or isinstance(obj, (bool, int, float, str, enum.Enum))):
        return ""
    if _regsims(obj) or _pure_module(obj):
        return ""
    try:
        if obj in PURE_BUILTINS:
            return ""
    except TypeError:  # an unhashable callable
        pass
    if isinstance(obj, type):
        return f"{where}makes a {obj.__name__}, which regsim cannot look into (S5)"
    target = getattr(obj, "__regsim_callee__", obj)
    if isinstance(target, types.FunctionType):
        reason = function_reason(target, seen)
        return f"{where}calls {shown}(), which {reason}" if reason else ""
    if obj is print:
        return f"{where}prints (once for all iterations in a batched run) (S5)"
    return f"{where}calls {shown}(...), which regsim cannot look into (S5)"


def _regsims(obj: Any) -> bool:
    """regsim's own module, function, class or namespace (a callee excepted: its body is the kernel's)."""
    if hasattr(obj, "__regsim_callee__"):
        return False
    module = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None) or ""
    return isinstance(module, str) and (module == "regsim" or module.startswith("regsim."))


def _pure_module(obj: Any) -> bool:
    if isinstance(obj, types.ModuleType):
        return obj.__name__ in PURE_MODULES
    module = getattr(obj, "__module__", None) or ""
    return isinstance(module, str) and module.split(".")[0] in PURE_MODULES and not module.startswith("numpy.random")


_FUNCTION_REASONS: dict[types.CodeType, str] = {}


def function_reason(f: types.FunctionType, seen: set[int] | None = None) -> str:
    """Why calling `f` once per iteration could keep or change Python state ("" if it cannot):
    S1 (yield/await), S3, and S4/S5 for what it calls, resolved in its globals and closure."""
    code = f.__code__
    cached = _FUNCTION_REASONS.get(code)
    if cached is not None and not code.co_freevars:
        return cached
    seen = set() if seen is None else seen
    if id(code) in seen:  # recursion: judged by the rest of the function
        return ""
    seen.add(id(code))
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
    except (OSError, TypeError, SyntaxError):
        return "has no source regsim can read (S5)"
    fdef = tree.body[0]
    if not isinstance(fdef, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "has no source regsim can read (S5)"
    first = code.co_firstlineno  # the file's line of the parsed source's line 1 (its first decorator)
    reason = shift_lines(state_reason(fdef.body, in_loop=False), first)
    if not reason:
        cells = dict(zip(code.co_freevars, (c.cell_contents for c in f.__closure__ or ()), strict=True))
        local = set(code.co_varnames)
        scopes = (cells, f.__globals__, vars(builtins))
        for call in calls(fdef.body, first):
            reason = call_reason(call, resolve(call, scopes, frozenset(local)), seen)
            if reason:
                break
    reason = f"{reason} (in {f.__qualname__})" if reason else ""
    if not code.co_freevars:
        _FUNCTION_REASONS[code] = reason
    return reason


def shift_lines(reason: str, first_line: int) -> str:
    """A reason's leading "line N: " counted from `first_line` for line 1."""
    head, sep, rest = reason.partition(": ")
    if sep and head.startswith("line ") and head[5:].isdigit():
        return f"line {int(head[5:]) + first_line - 1}: {rest}"
    return reason


def resolver(calls: tuple[Call, ...], assigned: frozenset[str]) -> Callable[[tuple[Mapping[str, Any], ...]], str]:
    """The S4/S5 check of a loop's calls, run when the loop starts with the VF frame's scopes
    (a name the body assigns cannot be resolved before it runs); its verdict cached per set of
    objects the names resolve to."""
    cache: dict[tuple[int, ...], tuple[list[Any], str]] = {}
    # each call with its plain name split once (head, attributes); None: `resolve` looks (an item, or a name the body
    # assigns)
    split = [(c, None if c[2] == "item" or c[0].split(".")[0] in assigned else _split(c[0])) for c in calls]

    def check(scopes: tuple[Mapping[str, Any], ...]) -> str:
        objs: list[Any] = []
        ids: list[int] = []
        for c, n in split:  # (a loop, not a comprehension: no function object made, nor a map, each check)
            obj = resolve(c, scopes, assigned) if n is None else _find(n[0], n[1], scopes)
            objs.append(obj)
            ids.append(id(obj))
        key = tuple(ids)
        hit = cache.get(key)
        if hit is None:
            reason = next((r for c, obj in zip(calls, objs, strict=True) if (r := call_reason(c, obj, set()))), "")
            hit = cache[key] = (objs, reason)  # (the objects kept alive, so their ids stay theirs)
        return hit[1]

    return check


def resolve(call: Call, scopes: tuple[Mapping[str, Any], ...], assigned: frozenset[str]) -> Any:
    """What a call's name stands for in `scopes` (a name the body assigns: _MISSING)."""
    name, _, kind, _ = call
    if kind == "item":
        return _item(ast.parse(name, mode="eval").body, scopes, assigned)
    return _MISSING if name.split(".")[0] in assigned else lookup(name, scopes)


def assigned_names(body: list[ast.stmt]) -> frozenset[str]:
    return frozenset(n.id for node in body for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
