"""The `regsim` console command: run example kernels and check them bit-exactly.

    regsim run vf_examples/add_carry_vf.py     # example files, by path (one or several)
    regsim run k.py --kernel add_custom --block-dim 8 --args x.npy half[16384] half[16384]=0   # launch a kernel
    regsim examples                            # every module of the installed vf_examples package
    regsim lower "Add(int16, count=256)"       # the Reg-op sequence a memory-level API call becomes
    python -m regsim ...                       # the same, without the console script

The example contract
--------------------
An example is a module that defines

    def run(seed: int = 0) -> dict[str, tuple[numpy.ndarray, numpy.ndarray]]

returning, for each named output, `(got, expected)`: what the ported kernel produced under
regsim and what an independent reference (Python ints or numpy, never regsim) says it must be.
`got` and `expected` must have the same dtype and shape; they are compared bit by bit (the raw
bytes of each element), so floats compare by their bits and a NaN equals the same NaN. `seed`
drives the example's random inputs. The module docstring's first line is its description.

`regsim run` imports each file as a script would run: with the file's folder first on
`sys.path`, so a kernel file can import a module beside it. Exit status: 0 when every output
of every file matches, 1 when one differs or a kernel raised (a regsim error told in one line at
the kernel's line, `--traceback` for the whole traceback; the kernel's own exceptions print their
traceback), 2 for a mistake on the command line (a missing file, a negative `--seed`, `--args`
that do not fit the C++ VF's declaration …), told in one line.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib
import importlib.metadata
import importlib.util
import inspect
import os
import pkgutil
import sys
import sysconfig
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn, TextIO

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.cost.profile import profile_call
from regsim._src.frontends.cpp import module as cpp
from regsim._src.frontends.cpp.declarations import CTYPES
from regsim._src.frontends.kernel_cli import run_kernel
from regsim._src.frontends.lint import lint
from regsim._src.kernel.launch import Kernel
from regsim._src.lowerings.explorer import lower_spec, reg_op_note
from regsim._src.model import dtypes as dt
from regsim._src.model.config import check_ub_size, configure
from regsim._src.vf.loops import _explaining
from regsim._src.vf.trace import trace
from regsim.errors import ParameterError, RegsimError

#: what an example's `run(seed)` returns: output name → (got, expected)
Outputs = dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]

EXAMPLES_PACKAGE = "vf_examples"
SHOWN_DIFFS = 8  #: differing elements listed per output


@attrs.frozen
class Mismatch:
    """One output whose `got` differs from `expected`."""

    name: str
    reason: str  #: one line: "3 of 1000 elements differ", "dtype differs: …"
    #: (flat index, got hex, expected hex) of the first few differing elements
    first: tuple[tuple[int, str, str], ...] = ()
    shape: tuple[int, ...] = ()

    def lines(self) -> list[str]:
        out = [f"  {self.name}: {self.reason}"]
        for index, got, expected in self.first:
            where = str(index)
            if len(self.shape) > 1:  # the flat index, then the index per axis
                where += " = " + ", ".join(str(int(k)) for k in np.unravel_index(index, self.shape))
            out.append(f"    [{where}] got {got} expected {expected}")
        return out


@attrs.frozen
class Result:
    """The verdict on one example."""

    name: str
    outputs: int = 0
    elements: int = 0
    mismatches: tuple[Mismatch, ...] = ()
    error: str | None = None  #: the traceback, when the example raised or broke the contract

    @property
    def ok(self) -> bool:
        return self.error is None and not self.mismatches

    def lines(self) -> list[str]:
        verdict = "PASS" if self.ok else ("ERROR" if self.error is not None else "FAIL")
        head = f"{verdict} {self.name}"
        if self.error is None:
            head += f"  ({self.outputs} output{'s' * (self.outputs != 1)}, {self.elements} elements)"
        out = [head]
        for m in self.mismatches:
            out.extend(m.lines())
        if self.error is not None:
            out.extend("  " + line for line in self.error.rstrip().splitlines())
        return out


def _hex(row: npt.NDArray[np.uint8]) -> str:
    """An element's bytes (little-endian) as one hex number."""
    return "0x" + bytes(row[::-1]).hex()


def compare(name: str, got: object, expected: object) -> tuple[int, Mismatch | None]:
    """Compare one output bit-exactly; returns (element count, the mismatch or None)."""
    if not isinstance(got, np.ndarray) or not isinstance(expected, np.ndarray):
        kinds = f"got {type(got).__name__}, expected {type(expected).__name__}"
        return 0, Mismatch(name, f"not a pair of numpy arrays ({kinds})")
    if got.dtype != expected.dtype:
        return got.size, Mismatch(name, f"dtype differs: got {got.dtype}, expected {expected.dtype}")
    if got.shape != expected.shape:
        return got.size, Mismatch(name, f"shape differs: got {got.shape}, expected {expected.shape}")
    n, size = got.size, got.dtype.itemsize
    if n == 0 or size == 0:
        return n, None
    g = np.ascontiguousarray(got).reshape(-1).view(np.uint8).reshape(n, size)
    e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8).reshape(n, size)
    differ = np.flatnonzero((g != e).any(axis=1))
    if differ.size == 0:
        return n, None
    first = tuple((int(i), _hex(g[i]), _hex(e[i])) for i in differ[:SHOWN_DIFFS])
    more = f", first at index {int(differ[0])}"
    reason = f"{differ.size} of {n} elements differ (dtype {got.dtype}, shape {got.shape}){more}"
    return n, Mismatch(name, reason, first, tuple(got.shape))


def check(name: str, outputs: object) -> Result:
    """Judge what an example's `run` returned."""
    if not isinstance(outputs, Mapping) or not outputs:
        return Result(
            name, error=f"run() returned {type(outputs).__name__}: expected a non-empty dict of name -> (got, expected)"
        )
    elements, mismatches = 0, []
    for key, pair in outputs.items():
        if not isinstance(pair, tuple) or len(pair) != 2:
            mismatches.append(Mismatch(str(key), f"not a (got, expected) pair: {type(pair).__name__}"))
            continue
        n, mismatch = compare(str(key), pair[0], pair[1])
        elements += n
        if mismatch is not None:
            mismatches.append(mismatch)
    return Result(name, len(outputs), elements, tuple(mismatches))


def run_module(module: ModuleType, seed: int = 0, name: str | None = None, full_traceback: bool = False) -> Result:
    """Run one example module's `run(seed)` and check its outputs. A regsim error is told in one line
    (where in the kernel, what it says), unless `full_traceback`; the kernel's own exceptions print
    their traceback."""
    name = name or module.__name__.rpartition(".")[2]
    where = getattr(module, "__file__", None) or module.__name__
    run: object = getattr(module, "run", None)
    if not callable(run):
        return Result(
            name, error=f"{where}: defines no run(seed) function: add def run(seed: int = 0) -> dict[str, (got, expected)]"
        )
    try:
        inspect.signature(run).bind(seed)
    except TypeError:
        line = getattr(getattr(run, "__code__", None), "co_firstlineno", 0)
        return Result(
            name,
            error=f"{where}:{line}: run{inspect.signature(run)} cannot be called as run(seed): "
            "define it as def run(seed: int = 0) (regsim run passes the seed, --seed N, by position)",
        )
    except ValueError:  # (no signature to inspect: call it and see)
        pass
    try:
        outputs = run(seed)
    except Exception as e:
        return Result(name, error=describe_error(e, full_traceback))
    return check(name, outputs)


def describe_error(e: BaseException, full_traceback: bool = False) -> str:
    """A regsim error (or a syntax error in a kernel file) in one line, `file.py:LINE: ErrorClass: message`,
    at the kernel's line that made the failing call; any other exception, or with `full_traceback`,
    its traceback."""

    if full_traceback or not isinstance(e, (RegsimError, SyntaxError)):
        tb = e.__traceback__
        while not full_traceback and tb is not None and not _is_kernel_file(tb.tb_frame.f_code.co_filename):
            tb = tb.tb_next  # (the command's own frames, before the kernel's)
        return "".join(traceback.format_exception(type(e), e, tb or e.__traceback__))
    if isinstance(e, SyntaxError):
        return f"{_shown_path(e.filename or '?')}:{e.lineno}: SyntaxError: {e.msg}"
    frames = [f for f in traceback.extract_tb(e.__traceback__) if _is_kernel_file(f.filename)]
    where = f"{_shown_path(frames[-1].filename)}:{frames[-1].lineno}: " if frames else ""
    return f"{where}{type(e).__name__}: {e}"


#: where frames are not the kernel's: regsim's package, the standard library, installed packages
_LIBRARIES = tuple(
    {
        str(Path(p).resolve()) + os.sep
        for p in [str(Path(__file__).parents[1]), *map(sysconfig.get_path, ("stdlib", "purelib", "platlib"))]
    }
)


def _shown_path(filename: str) -> str:
    """A file as a message names it: relative to the working directory when it lies below it."""
    try:
        return str(Path(filename).resolve().relative_to(Path.cwd()))
    except ValueError:
        return filename


def _is_kernel_file(filename: str) -> bool:
    """Whether a traceback frame is the user's code (not regsim's, not the standard library's or an installed package's)."""
    if filename.startswith("<"):
        return False
    resolved = str(Path(filename).resolve())
    return not resolved.startswith(_LIBRARIES)


def load_file(path: str | Path) -> ModuleType:
    """Import a Python file by path (as a fresh module, not through the package)."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no such example file: {p}")
    mod_name = f"_regsim_example_{p.stem}"
    spec = importlib.util.spec_from_file_location(mod_name, p)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {p} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod_name] = module  # dataclasses, pickling etc. look the module up by name
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[mod_name]
        raise
    return module


def example_names(package: str = EXAMPLES_PACKAGE) -> list[str]:
    """The example modules of the installed package (pkgutil, so any working directory works)."""
    pkg = importlib.import_module(package)
    if not hasattr(pkg, "__path__"):
        raise ImportError(f"{package} is a module, not a package of example modules")
    return sorted(m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_") and not m.ispkg)


@contextlib.contextmanager
def _first_on_path(folder: Path) -> Iterator[None]:
    """`folder` first on `sys.path` for the block, as Python puts a script's folder."""
    entry = str(folder)
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        sys.path.remove(entry)


def run_file(path: str | Path, seed: int = 0, full_traceback: bool = False) -> Result:
    """`regsim run PATH`: load the file (its folder first on `sys.path`) and check it; import
    or load errors become ERROR results."""
    name = Path(path).stem
    with _first_on_path(Path(path).resolve().parent):
        try:
            module = load_file(path)
        except Exception as e:
            return Result(name, error=describe_error(e, full_traceback))
        return run_module(module, seed, name, full_traceback)


def run_examples(
    seed: int = 0,
    package: str = EXAMPLES_PACKAGE,
    around: Callable[[Callable[[], Result]], Result] | None = None,
    full_traceback: bool = False,
) -> list[Result]:
    """`regsim examples`: every example module of `package` (each run through `around`, if given)."""
    results = []
    for name in example_names(package):
        try:
            module = importlib.import_module(f"{package}.{name}")
        except Exception as e:
            results.append(Result(name, error=describe_error(e, full_traceback)))
            continue
        results.append((around or _call)(functools.partial(run_module, module, seed, name, full_traceback)))
    return results


def _call(f: Callable[[], Result]) -> Result:
    return f()


def _observing(args: argparse.Namespace, out: TextIO) -> Callable[[Callable[[], Result]], Result]:
    """Run one example under the command's loop mode, printing its loop decisions (--explain)
    and its Reg calls (--trace) after its verdict."""

    def around(f: Callable[[], Result]) -> Result:

        with (
            configure(loops=args.loops, ub_size=args.ub_size),
            _explaining() as log,
            trace() if args.trace else contextlib.nullcontext() as t,
        ):
            result, prof = profile_call(f, "the example") if getattr(args, "profile", False) else (f(), None)
        _print(result, out)
        if args.explain:
            out.write("".join(f"  loop {d}\n" for d in log) or "  no VF loops ran\n")
        if t is not None:
            out.write(t.table() + "\n")
        if prof is not None:
            out.write(prof.report() + "\n")
        return result

    return around


def _print(result: Result, out: TextIO) -> None:
    out.write("\n".join(result.lines()) + "\n")


class UsageError(Exception):
    """A mistake on the command line: `main` prints it in one line and exits with status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: error: {message}")


def _seed(text: str) -> int:
    """A `--seed`: a non-negative int (numpy's generators take no negative seed)."""
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative int")
    return seed


def _ub_size(text: str) -> int:
    """A `--ub-size`: bytes, a positive multiple of 32 up to 2**31 (an int, or with a K/KiB or M/MiB suffix)."""

    number = text.strip().upper().removesuffix("IB").removesuffix("B")
    scale = {"K": 1024, "M": 1024 * 1024}.get(number[-1:], 1)
    try:
        return check_ub_size("--ub-size", "BYTES", int(number[:-1] if scale > 1 else number, 0) * scale)
    except (ValueError, ParameterError):
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a UB size: bytes, a positive multiple of 32 up to 2**31 (e.g. 262144 or 256K)"
        ) from None


def _parser() -> argparse.ArgumentParser:

    parser = _Parser(
        prog="regsim",
        description="Run regsim example kernels and compare their outputs bit-exactly with a reference.",
        epilog="An example module defines run(seed: int = 0) -> dict[str, tuple[got, expected]] of numpy arrays; "
        "got and expected are compared by their raw bits. Exit status: 0 all pass, 1 a mismatch or error, "
        "2 a mistake on the command line.",
    )
    parser.add_argument("--version", action="version", version=f"regsim {importlib.metadata.version('regsim')}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    run = sub.add_parser(
        "run",
        help="run example files and check them",
        description="Run example files and check them. Each file is imported with its folder first on sys.path.",
    )
    run.add_argument(
        "paths", nargs="+", metavar="path", help="a Python file defining run(seed), e.g. vf_examples/add_carry_vf.py"
    )
    run.add_argument("--seed", type=_seed, default=0, help="seed for the examples' random inputs, a non-negative int (default 0)")
    run.add_argument("--vf", help="with a C++ file (.asc, .cpp, ...): the __simd_vf__ function to run (regsim.cpp)")
    run.add_argument("--template", default="", help="with --vf: its template arguments, e.g. T=uint32,SCALE=3")
    run.add_argument(
        "-D",
        dest="defines",
        action="append",
        default=[],
        metavar="NAME[=VALUE]",
        help="with --vf: a macro, e.g. -DSCENARIO_NUM=2",
    )
    run.add_argument(
        "--args",
        nargs="*",
        default=[],
        help="with --vf: one per VF parameter: DTYPE[N] (a UB tensor of N random elements), DTYPE[N]=V (filled with V), "
        "DTYPE[N]=iota (0, 1, 2, ...), or a number; with --kernel: one per kernel parameter, the same spellings as host "
        "arrays (DTYPE[R,C] too), FILE.npy, or none",
    )
    run.add_argument("--kernel", help="with a Python file: the @rs.kernel function to launch (instead of run(seed))")
    run.add_argument("--block-dim", type=int, default=1, help="with --kernel: the blocks to launch (default 1)")
    run.add_argument("--workers", type=int, default=None, help="with --kernel: run the blocks in this many worker processes")
    run.add_argument("--save", metavar="DIR", help="with --kernel: write each array argument after the launch as DIR/NAME.npy")
    run.add_argument(
        "--profile",
        action="store_true",
        help="model the run's cost on the 950 (rs.profile): instructions by unit and pipe, bytes, UB bank conflicts, "
        "cycles from the package's cost table; with --kernel the launch's pipes",
    )
    run.add_argument(
        "--chrome", metavar="FILE", help="with --profile --kernel: write the modelled pipe timeline as a Chrome trace"
    )
    _observation_flags(run)
    ex = sub.add_parser(
        "examples",
        help="run every bundled example",
        description=f"Run every module of an examples package (default: the installed {EXAMPLES_PACKAGE}).",
    )
    ex.add_argument("--seed", type=_seed, default=0, help="seed for the examples' random inputs, a non-negative int (default 0)")
    _observation_flags(ex)
    ex.add_argument(
        "--package",
        default=EXAMPLES_PACKAGE,
        help=f"an importable package whose modules are examples (default {EXAMPLES_PACKAGE})",
    )
    low = sub.add_parser(
        "lower",
        help="show the Reg-op sequence a memory-level API call becomes",
        description='Lower a memory-level AscendC call, e.g. "Add(int16, count=256)", '
        '"Add(float32, mask=64, repeat_time=4, repeat_params=(1, 1, 1, 8, 8, 8))", "Gather(half, count=128)", '
        'or a memory-level C API compare, "asc_eq(half, repeat=2)", on fresh tensors of random data, '
        "and print its Reg calls with op counts and UB bytes read and written per op. A Reg op is not lowered: "
        "the command says so.",
    )
    low.add_argument("call", help='e.g. "Add(int16, count=256)"')
    lint_cmd = sub.add_parser(
        "lint",
        help="find what the 950 compiler refuses or makes slower in the VFs of a file",
        description="Check every VF of a Python file (@rs.simd_vf, @rs.simd_callee, `with rs.VEC_SCOPE()`) or C++ file "
        "(__simd_vf__, __simd_callee__, __VEC_SCOPE__) against the rules of rs.lint, each citing its page. Exit status 1 "
        "when something is found.",
    )
    lint_cmd.add_argument("paths", nargs="+", metavar="path", help="a .py file, or a C++ file (.asc, .cpp, .h ...)")
    return parser


def _observation_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--loops",
        choices=("auto", "batched", "sequential"),
        default="auto",
        help="how VF loops run: batched where exact (auto, the default), forced batched, or in order",
    )
    parser.add_argument("--explain", action="store_true", help="after each example, say how each VF loop ran and why")
    parser.add_argument("--trace", action="store_true", help="after each example, print every Reg call it made")
    parser.add_argument(
        "--ub-size",
        type=_ub_size,
        default=None,
        metavar="BYTES",
        help="the size of a UnifiedBuffer() made without one (and of the UB --args tensors live in): "
        "bytes, a multiple of 32, e.g. 262144 or 256K (default: the 950's 248K)",
    )
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="print a regsim error's whole traceback, not just the kernel's line and the message",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """The `regsim` console script. Returns the exit status (0 pass, 1 fail, 2 usage error)."""
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except UsageError as e:
        sys.stderr.write(f"{e}\n")
        return 2


def _main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    out = sys.stdout
    if args.command == "lower":
        note = reg_op_note(args.call)
        if note is not None:
            out.write(note + "\n")
            return 0
        try:
            out.write(lower_spec(args.call).table() + "\n")
        except (RegsimError, ValueError, TypeError) as e:
            raise UsageError(f"regsim lower: error: {e}") from None
        return 0
    if args.command == "lint":
        return _lint(args.paths, out)
    if args.command == "run":
        for path in args.paths:
            if not Path(path).is_file():
                raise UsageError(f"regsim run: error: {path}: {'not a file' if Path(path).exists() else 'no such file'}")
        if args.vf is not None or not args.paths[0].endswith(".py"):
            return _run_cpp(args, out)
        if args.kernel is not None:
            return _run_kernel(args, out)
        around = _observing(args, out)
        results = [around(functools.partial(run_file, path, args.seed, args.traceback)) for path in args.paths]
    else:
        try:
            results = run_examples(args.seed, args.package, _observing(args, out), args.traceback)
        except ImportError as e:
            raise UsageError(f"regsim examples: error: cannot import the examples package {args.package!r}: {e}") from None
    if args.command == "run" and len(results) == 1:
        return 0 if results[0].ok else 1
    failed = [r.name for r in results if not r.ok]
    summary = f"{len(results) - len(failed)} passed, {len(failed)} failed"
    out.write(summary + (f": {', '.join(failed)}" if failed else "") + "\n")
    return 1 if failed or not results else 0


def _lint(paths: Sequence[str], out: TextIO) -> int:
    """`regsim lint FILE...`: each finding on a line, then how many; 1 when there is one."""
    found = []
    for path in paths:
        try:
            found.extend(lint(path))
        except RegsimError as e:
            raise UsageError(f"regsim lint: error: {path}: {e}") from None
    for f in found:
        out.write(f"{f}\n")
    out.write(f"{len(found)} finding{'s' * (len(found) != 1)} in {len(paths)} file{'s' * (len(paths) != 1)}\n")
    return 1 if found else 0


def _run_cpp(args: argparse.Namespace, out: TextIO) -> int:
    """`regsim run kernel.asc --vf NAME [--template T=uint32] --args ...` (regsim.cpp.run_cli): a mistake on the
    command line (the VF's name, its template arguments, its arguments) is a usage error, told in one line
    naming the VF's file and line; an error the kernel raises is one line, exit status 1."""

    if args.vf is None or len(args.paths) != 1:
        raise UsageError("regsim run: error: a C++ file needs --vf NAME (one file at a time)")
    path = args.paths[0]
    tensors = ""
    try:
        with configure(loops=args.loops, ub_size=args.ub_size):
            mod = cpp.load(path, args=tuple(f"-D{d}" for d in args.defines))
            tensors = _check_cpp_command(mod, args)
            return cpp.run_cli(
                path, args.vf, args.template, args.args, args.seed, out, explain=args.explain, defines=args.defines
            )
    except RegsimError as e:
        named = Path(path).name + ":" in str(e)  # (an error that already names the file and line)
        told = str(e) if isinstance(e, cpp.CppError) else f"{'' if named else path + ': '}{type(e).__name__}: {e}"
        if "UB byte" in told and tensors:  # which --args tensor the bytes are
            told += f" [the --args tensors: {tensors}]"
        sys.stderr.write("".join(traceback.format_exception(e)) if args.traceback else f"regsim run: {told}\n")
        return 1


def _run_kernel(args: argparse.Namespace, out: TextIO) -> int:
    """`regsim run k.py --kernel NAME --block-dim N --args ...` (regsim._src.frontends.kernel_cli): a mistake on the
    command line (the kernel's name, its arguments' spelling or count) is a usage error; an error the kernel raises
    is one line at the kernel's line, exit status 1."""

    if len(args.paths) != 1:
        raise UsageError("regsim run: error: --kernel runs one file at a time")
    path = args.paths[0]
    with _first_on_path(Path(path).resolve().parent):
        try:
            module = load_file(path)
        except Exception as e:
            out.write(f"ERROR {Path(path).stem}\n  {describe_error(e, args.traceback)}\n")
            return 1
        k = getattr(module, args.kernel, None)
        if not isinstance(k, Kernel):
            kernels = [n for n, v in vars(module).items() if isinstance(v, Kernel)]
            raise UsageError(
                f"regsim run: error: --kernel {args.kernel}: {path} has no @rs.kernel {args.kernel}; "
                f"its kernels: {', '.join(kernels) or 'none'}"
            )
        if args.block_dim < 1 or (args.workers is not None and args.workers < 1):
            raise UsageError("regsim run: error: --block-dim and --workers take a positive number")
        try:
            with configure(loops=args.loops, ub_size=args.ub_size):
                run_kernel(
                    k,
                    args.block_dim,
                    args.args,
                    args.template,
                    args.workers,
                    args.seed,
                    args.save,
                    out,
                    args.profile,
                    args.chrome,
                )
        except ValueError as e:
            if isinstance(e, RegsimError):
                out.write(f"ERROR {Path(path).stem}\n  {describe_error(e, args.traceback)}\n")
                return 1
            raise UsageError(f"regsim run: error: {e}") from None
        except RegsimError as e:
            out.write(f"ERROR {Path(path).stem}\n  {describe_error(e, args.traceback)}\n")
            return 1
    return 0


def _check_cpp_command(mod: Any, args: argparse.Namespace) -> str:
    """`--vf`, `--template` and `--args` against the VF's C++ declaration (a `UsageError` naming what to change);
    returns where the --args tensors will lie in the UB (`z at UB bytes [0, 256)`, for a kernel's error)."""

    if args.vf not in mod.vf_names:
        raise UsageError(
            f"regsim run: error: --vf {args.vf}: {mod.path} has no __simd_vf__ function {args.vf}; "
            f"its VFs: {', '.join(mod.vf_names) or 'none'}"
        )
    fn = mod.functions[args.vf]
    where = f"{args.vf} ({mod.path}:{fn.line})"
    try:
        targs = cpp.parse_template_args(args.template)
    except RegsimError as e:
        raise UsageError(f"regsim run: error: {e}") from None
    tparams = [t["name"] for t in fn.tparams if not t.get("outer")]
    unknown = [name for name in targs if name not in tparams]
    if unknown:
        takes = f"its template parameters are {', '.join(tparams)}" if tparams else "it is not a template"
        raise UsageError(
            f"regsim run: error: --template {unknown[0]}=...: {where} has no template parameter {unknown[0]}; {takes}"
        )
    missing = [name for name in tparams if name not in targs]
    if missing:
        raise UsageError(
            f"regsim run: error: {where} needs the template argument {missing[0]}: "
            f"add --template {','.join(f'{m}=...' for m in missing)} (a dtype such as uint32, or an int)"
        )
    made = _check_arguments(args, f"{args.vf} ({mod.path}:{fn.line})", fn.params, targs)
    names = [p["name"] for p, spec in zip(fn.params, args.args, strict=True) if _is_tensor(spec)]
    return ", ".join(f"{n} at UB bytes [{t.addr}, {t.addr + t.nbytes})" for n, (_, t) in zip(names, made, strict=True))


def _is_tensor(spec: str) -> bool:
    """Whether an `--args` value is a UB tensor (`DTYPE[N]`, `DTYPE[N]=V`), not a scalar."""
    head = spec.partition("=")[0]
    return head.endswith("]") and "[" in head


def _check_arguments(
    args: argparse.Namespace, where: str, params: list[dict[str, Any]], targs: dict[str, Any]
) -> list[tuple[str, Any]]:
    """`--args` against the VF's parameters: their count, a tensor for each pointer and a number for each scalar,
    the pointers' element types, each value's syntax, and room for the tensors in the UB; returns the tensors
    (`regsim.cpp.make_arguments`, which the run makes again alike)."""

    if len(args.args) != len(params):
        signature = ", ".join(f"{p['t']} {p['name']}" for p in params)
        change = (
            f"add {', '.join(p['name'] for p in params[len(args.args) :])}"
            if len(args.args) < len(params)
            else f"drop {' '.join(args.args[len(params) :])}"
        )
        raise UsageError(
            f"regsim run: error: --args gives {len(args.args)} values, {where} takes {len(params)} ({signature}): {change}"
        )
    for k, (spec, p) in enumerate(zip(args.args, params, strict=True), start=1):
        said = f"regsim run: error: --args value {k}, {spec!r}, for {p['name']} ({p['t']}) of {where}"
        pointer, want = p["tk"] == "POINTER" or p["t"].rstrip().endswith("*"), _elem(p["t"], targs)
        if pointer and not _is_tensor(spec):
            raise UsageError(f"{said}: a pointer takes a UB tensor: DTYPE[N], e.g. {want or 'float32'}[256]")
        if _is_tensor(spec) and not pointer:
            raise UsageError(f"{said}: a scalar parameter takes a number, e.g. 3 or 0.5")
        name, _, count = spec.partition("=")[0].partition("[")
        given = CTYPES.get(name, name)
        if _is_tensor(spec) and want is not None and dt.is_dtype(getattr(dt, given, None)) and given != want:
            raise UsageError(f"{said}: the pointer's element type is {want}: write {want}[{count}")
        try:
            cpp.make_arguments([spec], args.seed)
        except (RegsimError, ValueError) as e:
            grammar = "DTYPE[N] (N a positive element count, e.g. float32[256]), DTYPE[N]=V, DTYPE[N]=iota or a number"
            raise UsageError(
                f"{said}: {str(e).removeprefix('--args: ') if isinstance(e, RegsimError) else 'write ' + grammar}"
            ) from None
    try:
        return cpp.make_arguments(args.args, args.seed)[1]
    except RegsimError as e:
        raise UsageError(f"regsim run: error: --args: the tensors do not fit in one UB ({e}): raise --ub-size") from None


def _elem(ctype: str, targs: dict[str, Any]) -> str | None:
    """The regsim name of a C++ pointer's element type (`__ubuf__ float*` → float32; `T*` with T=uint32 → uint32)."""

    pointee = ctype.replace("__ubuf__", "").replace("const", "").rstrip("*& ").strip()
    if pointee in CTYPES:
        return CTYPES[pointee]
    t = targs.get(pointee)
    return getattr(t, "name", None) if t is not None else None


if __name__ == "__main__":
    sys.exit(main())
