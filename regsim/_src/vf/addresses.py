"""A loop's plain loads and stores judged from their addresses when it starts, before any batched op runs.

A batched attempt of a loop whose iteration i + 1 loads what iteration i stored runs its body until the store's rows
meet the load's (`batched.meet`), undoes what it did and runs the loop in order: about one more run of the loop for
nothing. Where every UB access of the body is a plain one, `Reg.LoadAlign(reg, ptr)` or `Reg.StoreAlign(ptr, reg,
mask)` (identity distribution, no post-update), a statement of its own, at a pointer the source spells as a base plus
an affine function of the loop variable (`p + (i + 1) * k`, no name the body assigns), the rows of each are known when
the loop starts: the rewrite reads the shapes once (`plan`) and passes the loop the values of the names they read as
it starts; each run's first attempt evaluates them (`judge`) and puts the boxes through the attempt's own early
check, in program order. A hazard found there is the one the attempt would find at that access, if nothing sent it in
order before: the loop runs in order at once, as after a failed attempt. The base cannot move in the body: the calls
that move a pointer (post-update and stream forms) take one, and a call of an overload taking a pointer, other than a
judged access, leaves the loop unjudged.

Whatever is not certain leaves the loop unjudged (`judge` says nothing, or `plan` makes no plan), and the attempt runs
as before with every check: a name the body assigns in an address, a register of two or part of one, a mask of some
lanes or of a bit never written, an address misaligned or outside its tensor in some row, a callee that is not a face
or a register's constructor, a mask given to a call where an overload of it could write it (under any name), an
argument that is not a name, a number or arithmetic of them, a statement that is not a call or an assignment of one or
of arithmetic.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from operator import is_
from typing import Any, NamedTuple

import attrs

from regsim._src.engine.spec import FACES, REGISTRY, Kind
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor, mask_stride
from regsim._src.vf import loop_rules as rules
from regsim._src.vf.batched import Access, meet

#: the alignment of a plain (NORM) register load or store's address
ALIGN = 32
#: arithmetic an argument may be made of (of ints and pointers: the result is a new object, never an argument's alias)
_ARITH = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)
#: where the register form of `StoreAlign(ptr, reg, mask)` takes its predicate
_STORE_PRED = frozenset({2})


class _Plain(NamedTuple):
    """A plain load or store of the body, a statement of its own (made every iteration)."""

    store: bool
    #: its base pointer and offsets from it in elements at two values of the loop variable, given those and the values
    #: of `Plan.names` (`_offsets`; None where they are not one pointer the address adds and ints)
    offsets: Callable[[int, int, tuple[Any, ...]], tuple[UbPtr[Any], int, int] | None]
    reg: int  #: the register's name (loaded into, or stored)
    mask: int  #: a store's mask's name (-1 for a load)


@attrs.frozen
class Plan:
    """What the source says of a loop's UB accesses (`plan`), for `judge` to evaluate when a run starts."""

    #: the (dotted) names to look up when a run starts: the rewrite passes the loop their values
    names: tuple[str, ...]
    callees: tuple[Any, ...]  #: the face or constructor each callee must be (the callees' names are the first names)
    accesses: tuple[_Plain, ...]
    #: each name the body's calls take as an argument but the judged addresses: (name, whether it is a predicate there)
    passed: tuple[tuple[int, bool], ...]


def plan(loop: ast.For) -> Plan | None:
    """The loop's plain loads and stores and every call of its body, or None where the source already says the
    addresses cannot be judged up front (no plain access, a statement, a callee or an argument of another shape)."""
    if not isinstance(loop.target, ast.Name):
        return None
    target = loop.target.id
    assigned = rules.assigned_names(loop.body) | {target}
    names: dict[str, int] = {}

    def name(dotted: str) -> int:
        if dotted not in names:
            names[dotted] = len(names)
        return names[dotted]

    calls: list[tuple[ast.Call, str, bool]] = []  #: (the call, its callee's last name, whether a statement of its own)
    callees: dict[int, Any] = {}  #: each callee's name → the face or constructor it must be (the first names)
    for stmt in loop.body:
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # (a docstring-like constant)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            if not isinstance(stmt.value, ast.Call):  # (arithmetic: a new object; a name would alias its value)
                if not isinstance(stmt.value, (ast.BinOp, ast.UnaryOp, ast.Constant)) or not _simple(stmt.value):
                    return None
                continue
            call = stmt.value
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
        else:
            return None
        callee = rules.dotted(call.func)
        if not callee or callee.split(".")[0] in assigned or not all(_simple(a) for a in call.args):
            return None
        if any(k.arg is None or k.arg == "post_mode" or not _simple(k.value) for k in call.keywords):
            return None
        last = callee.rsplit(".", 1)[-1]
        face = RegTensor if last == "RegTensor" else FACES.get(last)
        if face is None or callees.setdefault(name(callee), face) is not face:
            return None
        if face is not RegTensor:  # (a new register: nothing it is given can change)
            calls.append((call, last, isinstance(stmt, ast.Expr)))
    accesses: list[_Plain] = []
    passed: dict[int, bool] = {}
    for call, last, alone in calls:
        plain = _plain(call, last, target, assigned, name) if alone else None
        if plain is not None:
            accesses.append(plain)
            preds, at = (_STORE_PRED if plain.store else frozenset()), call.args[0 if plain.store else 1]
        else:
            preds, ptrs = _shape(last, len(call.args))
            if ptrs:  # (the UB accessed in another form: not judged)
                return None
            at = None
        for j, arg in enumerate((*call.args, *(k.value for k in call.keywords))):
            dotted = rules.dotted(arg)
            if arg is not at and dotted and dotted.split(".")[0] not in assigned:
                k = name(dotted)
                passed[k] = passed.get(k, True) and j in preds
    if not accesses:
        return None
    return Plan(tuple(names), tuple(callees.values()), tuple(accesses), tuple(passed.items()))


def _simple(node: ast.expr) -> bool:
    """A name, a dotted name, a number, or `+ - * // %` and unary minus of them."""
    if isinstance(node, ast.Constant):
        return type(node.value) in (int, float, bool) or node.value is None
    if isinstance(node, (ast.Name, ast.Attribute)):
        return bool(rules.dotted(node))
    if isinstance(node, ast.BinOp):
        return isinstance(node.op, _ARITH) and _simple(node.left) and _simple(node.right)
    if isinstance(node, ast.UnaryOp):
        return isinstance(node.op, (ast.USub, ast.UAdd)) and _simple(node.operand)
    return False


def _plain(call: ast.Call, last: str, target: str, assigned: frozenset[str], name: Callable[[str], int]) -> _Plain | None:
    """`Reg.LoadAlign(reg, ptr)` or `Reg.StoreAlign(ptr, reg, mask)` with no keyword, its register and mask names the
    loop does not assign and its address affine in the loop variable."""
    args = call.args
    if call.keywords or last not in ("LoadAlign", "StoreAlign"):
        return None
    store = last == "StoreAlign"
    if len(args) != (3 if store else 2) or not all(_invariant(a, assigned) for a in (args[1:] if store else args[:1])):
        return None
    ptr = args[0] if store else args[1]
    leaves: dict[str, bool] = {}
    if _linear(ptr, target, assigned, leaves, True) is None:
        return None
    at = {leaf: (name(leaf) + 1) * (1 if base else -1) for leaf, base in leaves.items()}  # (see `_offsets`)
    reg = name(args[1].id if store else args[0].id)  # type: ignore[attr-defined]  # (Names: `_invariant`)
    mask = name(args[2].id) if store else -1  # type: ignore[attr-defined]
    return _Plain(store, _offsets(ptr, target, at), reg, mask)


def _offsets(ptr: ast.expr, target: str, leaves: dict[str, int]) -> Callable[..., Any]:
    """The address `ptr` as a function of two values `a`, `b` of the loop variable `target` and the values `v` of the
    names (`leaves`: each name's index in `v`, negative where it cannot be the base): (the base pointer, its offsets in
    elements at the two) where one name that may be the base is a pointer and the others ints (the body's own
    arithmetic: `p + (i + 1) * k` at `i = a` is `p` moved by `(a + 1) * k`), else None. Compiled once: `lambda a, b, v:
    (v[2], (a + 1) * v[3], (b + 1) * v[3]) if type(v[2]) is UbPtr and type(v[3]) is int else None`."""
    params = {leaf: ast.parse(f"_v[{abs(k) - 1}]", mode="eval").body for leaf, k in leaves.items()}
    cases = []
    for leaf, k in leaves.items():
        if k < 0:
            continue
        at = {**params, leaf: ast.Constant(0)}
        a, b = (ast.unparse(_renamed(ptr, {target: ast.Name(v, ast.Load()), **at})) for v in ("_a", "_b"))
        kinds = " and ".join(f"_type({ast.unparse(p)}) is {'_ptr' if other == leaf else '_int'}" for other, p in params.items())
        cases.append(f"({ast.unparse(params[leaf])}, {a}, {b}) if {kinds} else ")
    source = f"lambda _a, _b, _v: {''.join(cases)}None"
    made: Callable[..., Any] = eval(compile(source, "<address>", "eval"), {"_type": type, "_ptr": UbPtr, "_int": int})
    return made


def _invariant(node: ast.expr, assigned: frozenset[str]) -> bool:
    return isinstance(node, ast.Name) and node.id not in assigned


def _linear(node: ast.expr, target: str, assigned: frozenset[str], leaves: dict[str, bool], added: bool) -> bool | None:
    """Whether `node` depends on the loop variable `target`, where it is affine in it (no product of two terms that
    do, no `//` or `%` of one); None where it is not, or reads a name the body assigns. Its other names go to
    `leaves`, each with whether it may be the base pointer: only added (`added`: every operation from the whole
    expression down to it a sum, or a difference it is the left side of) wherever it stands."""
    if isinstance(node, ast.Constant):
        return False if type(node.value) is int else None
    if isinstance(node, ast.Name) and node.id == target:
        return True
    if isinstance(node, (ast.Name, ast.Attribute)):
        dotted = rules.dotted(node)
        if not dotted or dotted.split(".")[0] in assigned:
            return None
        leaves[dotted] = leaves.get(dotted, True) and added
        return False
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return _linear(node.operand, target, assigned, leaves, False)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        op = node.op
        left = _linear(node.left, target, assigned, leaves, added and not isinstance(op, ast.Mult))
        right = _linear(node.right, target, assigned, leaves, added and isinstance(op, ast.Add))
        if left is None or right is None or (isinstance(op, ast.Mult) and left and right):
            return None
        return left or right
    return None


def _renamed(node: ast.expr, names: dict[str, ast.expr]) -> ast.expr:
    """A copy of the expression `node` with its (dotted) names replaced as `names` says."""
    if isinstance(node, (ast.Name, ast.Attribute)) and rules.dotted(node) in names:
        return names[rules.dotted(node)]
    if isinstance(node, ast.BinOp):
        return ast.copy_location(ast.BinOp(_renamed(node.left, names), node.op, _renamed(node.right, names)), node)
    if isinstance(node, ast.UnaryOp):
        return ast.copy_location(ast.UnaryOp(node.op, _renamed(node.operand, names)), node)
    return node


# --- when a run starts -----------------------------------------------------------------------------------------------
#: a face's name and arity → the positions where every overload of that arity takes its predicate (a read-only mask),
#: and whether some overload of that arity takes a UB pointer
_SHAPES: dict[tuple[str, int], tuple[frozenset[int], bool]] = {}


def _shape(name: str, arity: int) -> tuple[frozenset[int], bool]:
    shape = _SHAPES.get((name, arity))
    if shape is None:
        specs = [s.positional for s in REGISTRY.entry(name).specs if len(s.positional) == arity]
        preds = frozenset(k for k in range(arity) if specs and all(ops[k].kind is Kind.PRED for ops in specs))
        shape = _SHAPES[(name, arity)] = (preds, any(o.kind is Kind.PTR for ops in specs for o in ops))
    return shape


def judge(loop: Plan, values: tuple[Any, ...], rng: range) -> str:
    """The hazard the loop's plain accesses certainly have over the iterations of `rng` (`batched.meet`'s reason),
    `values` those of `loop.names` as the loop starts; "" where there is none or it is not certain."""
    if not all(map(is_, values, loop.callees)):  # (the callees first among the names)
        return ""
    rows, first, step = len(rng), rng.start, rng.step
    earlier: list[Access] = []
    masks: list[int] = []  #: the stores' masks' ids (no call may take one but as its predicate)
    why = ""
    for store, offsets, at_reg, at_mask in loop.accesses:
        at = offsets(first, first + step, values)
        if at is None:
            return ""
        base, o0, o1 = at
        reg = values[at_reg]
        dtype = base.dtype
        if type(reg) is not RegTensor or reg._sig is not dtype._reg_sigs[1] or not reg._whole:  # (one register, whole)
            return ""
        if store:
            mask = values[at_mask]
            if type(mask) is not MaskReg or mask._written is not None:
                return ""
            if mask._active(mask_stride(dtype))[1] != VL // dtype.itemsize:  # (every lane stored)
                return ""
            masks.append(id(mask))
        size = dtype.itemsize
        start, stride = base.addr + o0 * size, (o1 - o0) * size
        low, high = (start, start + stride * (rows - 1)) if stride >= 0 else (start + stride * (rows - 1), start)
        if start % ALIGN or stride % ALIGN or low < base.lo or high + VL > base.hi:
            return ""
        access = Access(id(base.ub), store, None, (start, stride, VL))
        why = why or meet(earlier, access, rows)  # (in program order, as the attempt checks them)
        earlier.append(access)
    for k, predicate in loop.passed:  # (a mask a call could write, under any name)
        if not predicate and id(values[k]) in masks:
            return ""
    return why
