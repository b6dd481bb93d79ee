"""Inventory of the operator libraries' 950 kernels: every VF of `*/op_kernel/arch35/*`, through `rs.cpp.load`.

A VF is a `__simd_vf__` function or a `__VEC_SCOPE__ { ... }` block. Each file is loaded as it is (with
the include tree the library's build gives it: `layout`; headers regsim does not have are parsed past) and each
VF lowered for the first element type of TRY that lowers (ints 1, enums their first member, for the
other template parameters): a `__simd_vf__` function through `mod.instantiate`, a `__VEC_SCOPE__`
block as the statements of the block inside the function that holds it (the names it reads from that
function and its class are the enclosing code's). The first failure of each VF is its cause; the
summary counts VFs by cause. Run: `python bench/cpp_ops_inventory.py ROOT... [--jobs N] [--rows FILE]`
with ROOT an ops-math or ops-nn checkout.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import enum
import functools
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import regsim as rs
from regsim._src.frontends.cpp.kernel_decls import header
from regsim._src.frontends.cpp.lowering import Fn, Lowerer, _walk
from regsim._src.model import enums
from regsim.cpp import CppError

try:  # the kernel side of the front end (whole kernels, __VEC_SCOPE__ blocks), where it has one
    from regsim._src.frontends.cpp import kernels as _kernels
except ImportError:  # pragma: no cover
    _kernels = None  # type: ignore[assignment]
#: `__VEC_SCOPE__` as a plain block where the front end's declarations do not define it
_SCOPE = () if "define __VEC_SCOPE__" in header() else ("-D__VEC_SCOPE__=",)

#: element types tried, in order, for a VF's type template parameters
TRY = (rs.float32, rs.half, rs.int32, rs.bfloat16, rs.uint8, rs.int64)
SUFFIXES = (".h", ".hpp", ".cpp", ".asc", ".cc")


def _code(text: str) -> str:
    """`text` with comments and string literals blanked (lines kept), for finding VFs in it."""
    out = re.sub(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", lambda m: re.sub(r"[^\n]", " ", m[0]), text, flags=re.S)
    return "\n".join("" if ln.lstrip().startswith("#") else ln for ln in out.split("\n"))


def scopes(text: str) -> list[tuple[int, int, int]]:
    """(line of `__VEC_SCOPE__`, line of its `{`, line of the matching `}`) of each block."""
    code = _code(text)
    out = []
    for m in re.finditer(r"\b__VEC_SCOPE__\b", code):
        start = code.find("{", m.end())
        if start < 0:
            continue
        depth, i = 0, start
        while i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            if depth == 0:
                break
            i += 1
        line = code.count("\n", 0, m.start()) + 1
        out.append((line, code.count("\n", 0, start) + 1, code.count("\n", 0, i) + 1))
    return out


def files(root: Path) -> list[Path]:
    out = []
    for p in sorted(root.rglob("*")):
        if p.suffix in SUFFIXES and "op_kernel/arch35/" in p.as_posix() and p.is_file():
            code = _code(p.read_text(errors="replace"))
            if "__simd_vf__" in code or "__VEC_SCOPE__" in code:
                out.append(p)
    return out


def _guesses(tparams: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Template arguments to try: each element type of TRY for every type parameter."""

    def other(p: dict[str, Any]) -> Any:
        t = p.get("t", "").replace("const", "").replace("&", "").split("::")[-1].strip()
        cls = getattr(enums, t, None)
        if isinstance(cls, enum.EnumMeta):
            return next(iter(cls))
        if t == "RegTrait":
            return rs.Reg.RegTraitNumOne
        return 1

    return [{p["name"]: d if p["type"] else other(p) for p in tparams} for d in TRY]


def _lowerer(mod: Any, fn: Fn, env: dict[str, Any], outer: Fn | None) -> Lowerer:
    """The lowering of a VF, or of a `__VEC_SCOPE__` block (`fn`) inside the function `outer`: on the kernel
    side's lowering where the front end has one (its class members and objects), else the VF lowering."""
    if outer is None or _kernels is None:
        return Lowerer(mod, fn, dict(env), "vf_probe")
    cls = next((s for s in mod.structs.values() if s["place"] == outer.cls), None) if outer.cls else None
    return _kernels.ScopeLowerer(_kernels.KernelBuild(mod), fn, dict(env), "vf_probe", cls)


def _enclosing(low: Lowerer, node: dict[str, Any], block: dict[str, Any], failed: dict[str, CppError]) -> None:
    """The declarations of the enclosing function before `block` (its constants, type aliases and `auto` types,
    as C++ sees them in the block), lowered into `low` as the kernel side's lowering of that function does
    before it reaches the block; those it refuses go to `failed` by the names they declare."""
    for x in node["c"]:
        if x is block or any(y is block for y in _walk(x)):
            if x is not block:
                _enclosing(low, x, block, failed)
            return
        if x["k"] == "DECL_STMT":
            try:
                low.stmt(x, 1)
            except CppError as e:
                failed |= {v["s"]: e for v in x["c"]}


def _lower(mod: Any, fn: Fn, env: dict[str, Any], outer: Fn | None = None) -> None:
    """Lower `fn` for `env` and every helper it calls (as `instantiate` does, without running anything)."""
    main = _lowerer(mod, fn, env, outer)
    failed: dict[str, CppError] = {}
    if outer is not None:
        main.scope_aliases()  # (the aliases around the function and of its class, as lowering the function starts)
        cls = getattr(main, "cls", None)
        if cls is not None:
            main.scope_aliases(cls["place"])
        _enclosing(main, outer.body, fn.body, failed)
        main.lines, main.where = [], []
    try:
        main.lower()
    except CppError as e:  # a name the block reads whose declaration was refused: that refusal is the cause
        raise next((f for name, f in failed.items() if re.search(rf"\b{re.escape(name)}\b", str(e))), e) from None
    todo, done = list(main.callees), set()
    while todo:
        cname, cfn, cenv = todo.pop()
        if cname not in done:
            done.add(cname)
            low = Lowerer(mod, cfn, cenv, cname)
            low.lower()
            todo += low.callees


def _first(e: CppError) -> str:
    return str(e).split("\n")[1 if str(e).endswith("does not parse:") or "does not parse:\n" in str(e) else 0]


def _try(mod: Any, fn: Fn, tparams: list[dict[str, Any]], outer: Fn | None = None) -> str:
    """'' if `fn` lowers for some guess of its template arguments, else the first guess's failure."""
    first = ""
    for env in _guesses(tparams) if any(p["type"] for p in tparams) else _guesses(tparams)[:1]:
        try:
            _lower(mod, fn, env, outer)
            return ""
        except CppError as e:
            first = first or _first(e)
        except Exception as e:  # an internal error of the front end: reported as such
            first = first or f"internal error: {type(e).__name__}: {e}"
    return first


def _find_block(node: dict[str, Any], first: int, brace: int) -> dict[str, Any] | None:
    if node["k"] == "COMPOUND_STMT" and first <= node.get("l", 0) <= brace:
        return node
    for c in node["c"]:
        hit = _find_block(c, first, brace)
        if hit is not None:
            return hit
    return None


def layout(root: Path, into: Path) -> Path:
    """The include tree the libraries' build gives a kernel, as links under `into`: its shared headers as
    `inc/` (`#include "../inc/platform.h"`) and each operator's `op_kernel` directory by the operator's name, as
    the build copies them (the first of a name: the libraries' `kernel_src_copy`), also the `*_common` ones
    (`#include "../../norm_common/reduce_common_regbase.h"`, `"../../softmax_v2/arch35/softmax_v2_base.h"` from
    another operator's kernel); search `into/a` and `into/a/b`."""
    (into / "a" / "b").mkdir(parents=True)
    inc = root / "common" / "inc" / "op_kernel"
    if inc.is_dir():
        (into / "inc").symlink_to(inc)
    for d in sorted(root.glob("*/*")) + sorted(root.glob("experimental/*/*")):
        target = d / "op_kernel" if (d / "op_kernel").is_dir() else d if d.name.endswith("_common") else None
        if target is not None and d.is_dir() and not (into / d.name).exists():
            (into / d.name).symlink_to(target)
    return into


_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


@functools.cache
def _includes(path: Path, search: tuple[Path, ...]) -> tuple[Path | None, ...]:
    """The files `path`'s quoted includes outside `#if` blocks name, in order (None for one not found: a header
    of the devkit or of a library not in the checkout), found as the compiler finds them (its own directory, then
    `search`). Each header read once (an operator's entries include the same ones, `prelude` asks of each)."""
    out: list[Path | None] = []
    depth = 0
    for line in path.read_text(errors="replace").split("\n"):
        word = line.strip()[1:].split()[:1] if line.strip().startswith("#") else []
        depth += {"if": 1, "ifdef": 1, "ifndef": 1, "endif": -1}.get(word[0] if word else "", 0)
        m = _INCLUDE.match(line)
        if m and depth == 0:
            found = [d / m[1] for d in (path.parent, *search) if (d / m[1]).is_file()]
            out.append(found[0].resolve() if found else None)
    return tuple(out)


def _reaches(path: Path, target: Path, search: tuple[Path, ...], seen: set[Path]) -> bool:
    """Whether `path` includes `target`, directly or through the headers it includes."""
    seen.add(path)
    kids = [k for k in _includes(path, search) if k is not None]
    return target in kids or any(_reaches(k, target, search, seen) for k in kids if k not in seen)


def prelude(path: Path, search: tuple[Path, ...]) -> list[Path]:
    """The headers the operator's kernel entry (a `.cpp` of its `op_kernel` directory including `path`) includes
    before `path`, which the build compiles before it (a header may use a name one of them declares: `RegTensor` by a
    sibling's `using AscendC::MicroAPI::RegTensor;`); those including `path` themselves left out."""
    top = next((d for d in path.parents if d.name == "op_kernel"), None)
    here = path.resolve()
    for entry in sorted(top.rglob("*.cpp")) if top is not None else ():
        got = _includes(entry, search)
        if here in got:
            return [h for h in got[: got.index(here)] if h is not None and not _reaches(h, here, search, set())]
    return []


def _load(path: Path, search: tuple[Path, ...]) -> Any:
    """`path` loaded with the include tree `search`; where the file does not parse alone (errors in its own lines),
    after the headers its kernel entry includes before it (`prelude`), as the build compiles it."""
    args = (*_SCOPE, *(f"-I{d}" for d in search))
    failed: CppError | None = None
    try:
        mod = rs.cpp.load(path, args=args)
    except CppError as e:
        mod, failed = None, e
    here = str(path.absolute())
    fns = [f for fs in mod.definitions.values() for f in fs if getattr(f, "file", "") in ("", here)] if mod else []
    own = mod is None or any(d.startswith(f"{path}:") for d in mod.host_diagnostics) or any(f.errors for f in fns)
    before = prelude(path, search) if own else []
    if before:
        return rs.cpp.load(path, args=(*args, *(f"-include{h}" for h in before)))
    if failed is not None:
        raise failed  # (no headers to parse it after: its own failure, not a second parse's)
    return mod


def inventory_file(path: Path, root: Path, tree: Path) -> list[tuple[str, str, str, str]]:
    """(file, VF, "lowers" or "refused", cause) of each VF of one file."""
    rel = str(path.relative_to(root.parent))
    search = (root / "common" / "inc", tree / "a", tree / "a" / "b")
    text = path.read_text(errors="replace")
    blocks = scopes(text)
    try:
        mod = _load(path, search)
    except CppError as e:
        why = str(e).replace(str(path), path.name).split("\n")[0]
        n = len(blocks) + len(re.findall(r"\b__simd_vf__\b", _code(text)))
        return [(rel, "-", "refused", f"load: {why}")] * max(n, 1)
    rows = []
    here = str(path.absolute())  # (a function of a header the file includes is that header's, counted there)
    for name in mod.vf_names:
        defs = [f for f in mod.definitions[name] if f.defined and getattr(f, "file", "") in ("", here)]
        for fn in defs:
            why = _try(mod, fn, fn.tparams)
            rows.append((rel, f"{name}@{fn.line}", "refused" if why else "lowers", why))
    diags = [d for d in mod.host_diagnostics if d.startswith(f"{path}:")]
    fns = [f for fs in mod.definitions.values() for f in fs if f.defined and getattr(f, "file", "") in ("", here)]
    for line, brace, end in blocks:
        vf = f"__VEC_SCOPE__@{line}"
        errs = [d for d in diags if brace <= int(d.split(":")[1]) <= end]
        if errs:
            rows.append((rel, vf, "refused", "parse: " + errs[0].split(":", 2)[2].strip()))
            continue
        outer = [f for f in fns if f.line <= line and end <= f.end]
        if not outer:
            rows.append((rel, vf, "refused", "the enclosing function is not one the parser reports (a constructor?)"))
            continue
        fn = min(outer, key=lambda f: f.end - f.line)
        body = _find_block(fn.body, line, brace)
        if body is None:
            rows.append((rel, vf, "refused", f"the block is not in the AST of {fn.name}"))
            continue
        block = Fn({**_raw(fn), "name": f"{fn.name}", "what": "vf", "params": [], "body": body, "line": line, "end": end})
        why = _try(mod, block, fn.tparams, fn)
        rows.append((rel, vf, "refused" if why else "lowers", why))
    return [(r, v, s, w.replace(str(path), path.name)) for r, v, s, w in rows]


def _raw(fn: Fn) -> dict[str, Any]:
    keys = ("name", "what", "line", "end", "tparams", "params", "ret", "spec", "body", "file", "ns", "cls", "kind", "static")
    return {k: getattr(fn, k) for k in keys if hasattr(fn, k)}


def cause(why: str) -> str:
    """A failure as counted: its construct, without the file, line, function and variable names."""
    s = re.sub(r"^[\w./-]+:\d+: ", "", why)
    s = re.sub(r" \(in [^)]*\): regsim's C\+\+ front end does not support it$", "", s)
    s = re.sub(r"the member access \.\w+.*", "the member access .X (a class member)", s)
    s = re.sub(r"(the variable|the name|the global variable|a function reference|the template argument) \w+", r"\1 X", s)
    s = re.sub(r"of type .*", "of type X", s)
    s = re.sub(r"\b\d+\b", "N", s)
    return s[:150]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("roots", nargs="+", help="ops-math / ops-nn checkouts")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rows", help="write every VF's row (tab-separated) to this file")
    ap.add_argument("--top", type=int, default=40, help="how many causes to print")
    a = ap.parse_args()
    t0 = time.perf_counter()
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ProcessPoolExecutor(a.jobs) as pool:
        trees = {r: layout(Path(r), Path(tmp) / str(i)) for i, r in enumerate(a.roots)}
        work = [(p, Path(r), trees[r]) for r in a.roots for p in files(Path(r))]
        for got in pool.map(_safe, work, chunksize=4):
            rows += got
    if a.rows:
        Path(a.rows).write_text("".join("\t".join(r) + "\n" for r in rows))
    for r in a.roots:
        mine = [x for x in rows if x[0].startswith(Path(r).name + "/")]
        ok = sum(x[2] == "lowers" for x in mine)
        share = 100 * ok / max(len(mine), 1)
        print(f"{Path(r).name}: {len({x[0] for x in mine})} files, {len(mine)} VFs, {ok} lower ({share:.1f}%)")
    ok = sum(x[2] == "lowers" for x in rows)
    scope = [x for x in rows if x[1].startswith("__VEC_SCOPE__")]
    print(f"total: {len(rows)} VFs ({len(scope)} __VEC_SCOPE__ blocks), {ok} lower ({100 * ok / max(len(rows), 1):.1f}%)"
          f"; {time.perf_counter() - t0:.0f} s")  # fmt: skip
    counts = collections.Counter(cause(x[3]) for x in rows if x[2] != "lowers")
    print("first failure cause | VFs")
    for c, n in counts.most_common(a.top):
        print(f"{n:5} | {c}")


def _safe(item: tuple[Path, Path, Path]) -> list[tuple[str, str, str, str]]:
    try:
        return inventory_file(*item)
    except Exception as e:  # a crash of one file is a row, not the end of the inventory
        return [(str(item[0].relative_to(item[1].parent)), "-", "refused", f"internal error: {type(e).__name__}: {e}")]


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
