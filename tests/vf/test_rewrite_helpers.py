"""The loop rewrite's AST helpers against the standard library's: `_copied` is `copy.deepcopy` of a tree, `_place` is
`ast.fix_missing_locations` followed by moving each node's lines once (shared nodes included)."""

from __future__ import annotations

import ast
import copy
import inspect

from regsim._src.vf import loops

SOURCE = inspect.getsource(loops)  # a large tree: every kind of statement and expression the module uses


def _all_nodes(tree: ast.AST) -> list[ast.AST]:
    return list({id(n): n for n in ast.walk(tree)}.values())


def test_copied_is_deepcopy() -> None:
    tree = ast.parse(SOURCE)
    shared = tree.body[0]
    tree.body.append(shared)  # a node twice: shared in the copy too, as deepcopy keeps it
    tree.body[-1].regsim_attempt = True  # type: ignore[attr-defined]  # (the rewrite's own flag is copied)
    got, want = loops._copied(tree, {}), copy.deepcopy(tree)
    assert ast.dump(got, include_attributes=True) == ast.dump(want, include_attributes=True)
    assert got.body[0] is got.body[-1] and got.body[-1].regsim_attempt  # type: ignore[attr-defined]
    originals = {id(n) for n in _all_nodes(tree) if n._fields or n._attributes}
    assert not originals & {id(n) for n in _all_nodes(got)}


def test_place_fills_missing_locations_then_moves_each_node_once() -> None:
    tree = ast.parse(SOURCE)
    fdef = next(n for n in tree.body if isinstance(n, ast.FunctionDef))
    # nodes without locations (as the rewrite makes them), one of them shared by two statements
    target = ast.Name("shared_target", ast.Store())
    made = [ast.Assign([target], ast.Call(ast.Name("f", ast.Load()), [], [])), ast.Assign([target], ast.Constant(1))]
    fdef.body[1:1] = made
    ast.copy_location(made[0], fdef.body[0])  # one with a location, its children without
    want = copy.deepcopy(tree)
    ast.fix_missing_locations(want)
    for node in _all_nodes(want):
        for attr in ("lineno", "end_lineno"):
            if getattr(node, attr, None) is not None:
                setattr(node, attr, getattr(node, attr) + 41)
    loops._place(tree, (1, 0, 1, 0), 41, set())
    assert ast.dump(tree, include_attributes=True) == ast.dump(want, include_attributes=True)
    assert target.lineno == made[0].lineno  # moved once, though in the tree twice
