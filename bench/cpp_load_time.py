"""How long `rs.cpp.load` takes on real operator files of the 950 operator libraries, cold and warm, each load in
a fresh process (after `import regsim`, which bench/import_time.py measures).

Cold: an empty parse cache (REGSIM_CPP_CACHE pointed at a new directory): the generated declarations, the libclang
parse in its child process, the JSON it prints, the module built from it. Warm: the cache filled by an earlier process
(the target: a median under 0.5 s). Each figure is the median of --runs processes, wall time and the process's CPU time
(its own and its children's: on a busy machine the wall time is the larger). The cold path is then broken down once per
file, in one process: the declarations, the child process (of it, the libclang parse and the AST walk, timed by running
the parser in-process, and of the parse the part regsim's declarations take: an empty file's) and the rest of the load;
and, for a kernel file, `mod.kernel(entry)` (lowering and compiling
the kernel, done once per process and not cached).

Needs libclang and the libraries' sources: REGSIM_OPS_NN=/path/to/ops-nn, REGSIM_OPS_MATH=/path/to/ops-math (a file
whose library is absent is skipped). Run: `python bench/cpp_load_time.py [--runs 5]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
TARGET = 0.5  #: seconds, warm (issue 23)

#: (library variable, operator folder, file, its host tiling header or "", the tiling struct, the kernel entry or "")
FILES = [
    (
        "REGSIM_OPS_NN",
        "activation/sigmoid_grad",
        "op_kernel/sigmoid_grad_apt.cpp",
        "op_host/arch35/sigmoid_grad_tiling_arch35.h",
        "SigmoidGradTilingData",
        "sigmoid_grad",
    ),
    (
        "REGSIM_OPS_MATH",
        "math/floor",
        "op_kernel/floor_apt.cpp",
        "op_host/arch35/floor_tiling_arch35.h",
        "FloorTilingData",
        "floor",
    ),
    (
        "REGSIM_OPS_NN",
        "activation/softmax_cross_entropy_with_logits",
        "op_kernel/arch35/softmax_cross_entropy_with_logits_split_r.h",
        "",
        "",
        "",
    ),
    ("REGSIM_OPS_NN", "norm/add_layer_norm", "op_kernel/arch35/add_layer_norm_regbase_welford.h", "", "", ""),
]

#: one load in a fresh process: prints {"load": wall s, "cpu": CPU s (the process's and its children's)}
ONE_LOAD = """
import json, resource, sys, time
import regsim as rs
def cpu():
    return sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
               for f in ("ru_utime", "ru_stime"))
path, args = sys.argv[1], tuple(sys.argv[2:])
c, t = cpu(), time.perf_counter()
rs.cpp.load(path, args=args)
print(json.dumps({"load": time.perf_counter() - t, "cpu": cpu() - c}))
"""

#: the cold path's parts, in one fresh process
PHASES = """
import json, os, subprocess, sys, tempfile, time
import regsim as rs
from regsim._src.frontends.cpp import module as cpp_module, parse as cpp_parse
from regsim._src.frontends.cpp.declarations import SHIM_HEADERS
from regsim._src.frontends.cpp.kernel_decls import header
import clang.cindex as ci
path, entry, args = sys.argv[1], sys.argv[2], list(sys.argv[3:])
out = {}
t = time.perf_counter(); header(); out["declarations"] = time.perf_counter() - t
run = subprocess.run
def timed_run(*a, **k):
    t = time.perf_counter(); r = run(*a, **k); out["child process"] = time.perf_counter() - t; return r
cpp_module.subprocess.run = timed_run
t = time.perf_counter(); mod = rs.cpp.load(path, args=tuple(args)); load = time.perf_counter() - t
cpp_module.subprocess.run = run
out["rest of the load (JSON, module)"] = load - out["child process"]
parse, parses = ci.Index.parse, []
def timed_parse(self, *a, **k):
    t = time.perf_counter(); r = parse(self, *a, **k); parses.append(time.perf_counter() - t); return r
ci.Index.parse = timed_parse
t = time.perf_counter(); cpp_parse.parse(path, header(), args, SHIM_HEADERS); total = time.perf_counter() - t
out["  libclang parse"] = parses[0]
out["  AST walk (and the files read)"] = total - parses[0]
empty = os.path.join(tempfile.mkdtemp(), "empty.cpp")
open(empty, "w").close()
cpp_parse.parse(empty, header(), args, SHIM_HEADERS)
out["    of it, the declarations alone (empty file)"] = parses[1]
if entry:
    t = time.perf_counter(); mod.kernel(entry); out["mod.kernel(entry) (lowering, compiling)"] = time.perf_counter() - t
print(json.dumps(out))
"""


def _child(code: str, argv: list[str], cache: str) -> dict[str, float]:
    env = {**os.environ, "REGSIM_CPP_CACHE": cache, "PYTHONPATH": str(HERE)}
    proc = subprocess.run([sys.executable, "-c", code, *argv], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[0]}: {proc.stderr.strip().splitlines()[-1:]}")
    result: dict[str, float] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="processes per figure (the median is printed)")
    opts = ap.parse_args()
    try:
        import clang.cindex  # noqa: F401
    except ImportError:
        print("skipped: libclang is not installed (pip install 'regsim[cpp]')")
        return
    sys.path.insert(0, str(HERE))
    from regsim._src.frontends.cpp.kernels import tiling_structs

    todo = [f for f in FILES if os.environ.get(f[0]) and Path(os.environ[f[0]], f[1], f[2]).is_file()]
    if not todo:
        print("skipped: the operator libraries' sources are absent (REGSIM_OPS_NN=/path/to/ops-nn, REGSIM_OPS_MATH=...)")
        return
    warm_medians = []
    with tempfile.TemporaryDirectory() as tmp:
        print(f"rs.cpp.load, median of {opts.runs} fresh processes each (wall s / CPU s)")
        print(f"{'file':<48} {'cold':>13} {'warm':>13}")
        phases = []
        for var, op, rel, host, struct, entry in todo:
            root = Path(os.environ[var], op)
            args: list[str] = []
            if host:
                h = Path(tmp, f"{struct}.h")
                h.write_text(tiling_structs(Path(root, host).read_text()))
                args = ["-include", str(h), f"-DREGSIM_TILING_DATA={struct}"]
            path = str(root / rel)
            cold = [_child(ONE_LOAD, [path, *args], tempfile.mkdtemp(dir=tmp)) for _ in range(opts.runs)]
            shared = tempfile.mkdtemp(dir=tmp)
            _child(ONE_LOAD, [path, *args], shared)  # (fills the cache)
            warm = [_child(ONE_LOAD, [path, *args], shared) for _ in range(opts.runs)]
            cw, cc = statistics.median(r["load"] for r in cold), statistics.median(r["cpu"] for r in cold)
            ww, wc = statistics.median(r["load"] for r in warm), statistics.median(r["cpu"] for r in warm)
            warm_medians.append(ww)
            print(f"{Path(rel).name:<48} {cw:6.3f}/{cc:6.3f} {ww:6.3f}/{wc:6.3f}")
            phases.append((f"{op}/{rel}", _child(PHASES, [path, entry, *args], tempfile.mkdtemp(dir=tmp))))
        print(f"warm: the largest median {max(warm_medians):.3f} s (target < {TARGET} s)")
        print("\nthe cold path, one process per file (wall s)")
        for name, parts in phases:
            print(f"  {name}")
            for what, secs in parts.items():
                print(f"    {what:<48} {secs:7.3f}")


if __name__ == "__main__":
    main()
