"""What `rs.profile` costs: each workload run plainly and under `rs.profile`, in the default loop mode, in the
same process, alternately; printed: the best CPU time of each and their ratio (the target: at most 2x), the ratio
of their medians (on a loaded machine the best of few runs flatters both; the median says what a run costs), and the
ratios of a first profile of the layout ("a new layout": forgotten before each call, the bank model's kept beats, the
VFs' kept costs and bank conflicts and the records kept of the memory-level calls done at once; a VF profiled again on
the same UB layout, whatever its data, is priced from them, and a memory-level call made again is given its records;
the VFs' kept shapes, what reads no UB address, stay: a VF profiled before on another layout) and, printed after them,
of a first profile of the VF ("a new VF": its shapes forgotten too).

Workloads: the add_high_performance kernel (cases 2 and 4, `--rows` x 8192 half on `--cores` cores, the 950's
dataCopyLen), and the bank_conflict_3510 sample's VFs of cases 6 (AddWithoutUnRollVF, 64 repeats) and 12
(DataBlock stride 8).

Run: `python bench/bench_profile.py [--rows 64] [--cores 8] [--runs 9]`.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import regsim as rs
from regsim._src.cost import banks, profile
from regsim._src.lowerings import direct
from vf_examples import add_high_performance as ahp
from vf_examples import bank_conflict_3510 as bc


def sample(f: Callable[[], Any], reps: int) -> float:
    """CPU seconds of one call of `f`, over `reps` calls."""
    t = time.process_time()
    for _ in range(reps):
        f()
    return (time.process_time() - t) / reps


def pair(runs: int, plain: Callable[[], Any], profiled: Callable[[], Any]) -> tuple[list[float], list[float]]:
    """The times of each, sampled alternately `runs` times; a workload under 20 ms is called enough times a sample
    to take about that long (a sub-millisecond VF timed once is mostly the machine's noise)."""
    reps = max(1, int(0.02 / max(sample(plain, 1), 1e-6)))
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(runs):
        times[0].append(sample(plain, reps))
        times[1].append(sample(profiled, reps))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=64, help="rows of the kernel's 8192-column inputs (default 64)")
    parser.add_argument("--cores", type=int, default=8, help="cores of the kernel's multi-core cases (default 8)")
    parser.add_argument("--runs", type=int, default=9, help="runs of each, their best and median kept (default 9)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 100, [args.rows, 8192]).astype(np.float16)
    y = rng.uniform(1, 100, [args.rows, 8192]).astype(np.float16)
    work: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {}
    for case in (2, 4):
        kw = dict(total_m=args.rows, total_n=8192, split_m=args.cores, split_n=1, data_copy_len=ahp.CASES[case][2], scenario=case)

        def plain(kw: dict[str, Any] = kw) -> Any:
            return rs.launch(ahp.add_custom, args.cores, x, y, np.zeros_like(x), **kw)

        def profiled(kw: dict[str, Any] = kw) -> Any:
            return rs.profile(ahp.add_custom, x, y, np.zeros_like(x), block_dim=args.cores, **kw)

        work[f"add_high_performance case {case} ({args.rows} x 8192, {args.cores} cores)"] = (plain, profiled)
    for case in (6, 12):
        a, b = bc.inputs(case, rng)

        def plain_vf(case: int = case, a: Any = a, b: Any = b) -> Any:
            return bc.kernel(case, a, b)

        def profiled_vf(case: int = case, a: Any = a, b: Any = b) -> Any:
            return bc.profile(case, a, b)

        work[f"bank_conflict_3510 case {case} VF"] = (plain_vf, profiled_vf)
    worst = worst_new = worst_vf = worst_median = worst_new_median = worst_vf_median = 0.0
    median = statistics.median
    with rs.configure(ub_size=ahp.UB_SIZE):
        for name, (run_plain, run_profiled) in work.items():

            def profiled_new(profiled: Callable[[], Any] = run_profiled) -> Any:
                banks._BEATS.clear()
                profile._VFS.clear()
                profile._CONFLICTS.clear()
                direct._RECORDED.clear()
                return profiled()

            def profiled_new_vf(profiled: Callable[[], Any] = run_profiled) -> Any:
                profile._SHAPES.clear()
                return profiled_new(profiled)

            plains, profs = pair(args.runs, run_plain, run_profiled)
            again, news = pair(args.runs, run_plain, profiled_new)
            more, new_vfs = pair(args.runs, run_plain, profiled_new_vf)
            plains += again + more  # (each ratio against the plain runs of all)
            base, prof, new = min(plains), min(profs), min(news)
            mid, prof_mid, new_mid = median(plains), median(profs), median(news)
            worst, worst_new = max(worst, prof / base), max(worst_new, new / base)
            worst_median, worst_new_median = max(worst_median, prof_mid / mid), max(worst_new_median, new_mid / mid)
            worst_vf, worst_vf_median = max(worst_vf, min(new_vfs) / base), max(worst_vf_median, median(new_vfs) / mid)
            print(
                f"{name}: plain {base * 1e3:.2f} ms (median {mid * 1e3:.2f}), profiled {prof * 1e3:.2f} ms"
                f" (median {prof_mid * 1e3:.2f}), ratio {prof / base:.2f} (of the medians {prof_mid / mid:.2f});"
                f" a new layout: {new * 1e3:.2f} ms (median {new_mid * 1e3:.2f}), ratio {new / base:.2f}"
                f" (of the medians {new_mid / mid:.2f}); a new VF: ratio {min(new_vfs) / base:.2f}"
                f" (of the medians {median(new_vfs) / mid:.2f})"
            )
    print(
        f"worst ratio {worst:.2f} (of the medians {worst_median:.2f}), a new layout {worst_new:.2f}"
        f" (of the medians {worst_new_median:.2f}), a new VF {worst_vf:.2f} (of the medians {worst_vf_median:.2f})"
        " (target: at most 2)"
    )


if __name__ == "__main__":
    main()
