"""Random VF programs, as Python kernels and as their C++ twins, for differential loop testing.

`program(seed)` builds one program, deterministic per seed; `programs()` is the Hypothesis strategy
(the same generator, its choices drawn by Hypothesis, so failures shrink). A program is a small
statement tree (`Line`, `Loop`, `If`) whose every statement is spelled in both languages;
`python_source` renders a self-contained module (the kernel, its `@rs.simd_callee` helpers and a
`setup()` that builds the UB and the arguments from the seed), `cpp_source` the `__simd_vf__` /
`__simd_callee__` twins in Ascend C's Reg API. `tests/progen_check.py` runs them.

What a program may contain (each chosen at random, each statement tagged with its construct):
`rs.Ref` counters made before a loop, inside it, in an outer loop's body, in a callee, or passed in
from the host (`total`), driving `Reg.UpdateMask`; `n.value` read before or after the UpdateMask and
used as a scalar operand; the loop index as a scalar operand; pointers moving forward, backward,
overlapping (half, quarter registers), fixed, held in a variable, stepped by `q = q + VL`,
post-updated (`POST_MODE_UPDATE` loads and stores, a stride that grows with the index); integer and
float accumulators (Add, Max, Min, Mul, ZEROING and MERGING); AddC / SubC carry chains across
iterations; Compare / Compares + Select; masked Duplicate; loads of what an earlier iteration
stored, stores over what a later one loads; `if` on the index; `break`, `continue`, `while`; nested
loops; callees that make counters, pointers and registers, take a counter or a pointer by
reference, or run loops; register Gather and Scatter by an Arange index (T of 2 or 4 bytes);
unaligned store streams (`StoreUnAlign` every iteration, flushed after the loop); and one error
at iteration k (a store past a tensor, a misaligned address, a read of never-written UB bytes).
"""

from __future__ import annotations

import copy
import random
import re
import textwrap
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from hypothesis import strategies as st

X = TypeVar("X")

# --- the world every program runs in ------------------------------------------------------------------
SLOTS = 42  #: registers' worth of elements in src, dst and buf (dst's last two hold the epilogue)
EPILOGUE = 40  #: the dst slot the epilogue stores the accumulator at
GAP_SLOTS = 16  #: gap: its first ERR_K slots written (a never-written read from iteration ERR_K on)
INFO = 64  #: uint32 words of info: counters and pointer positions at the end, the carry mask at +32
MAX_ROWS = 4  #: the largest `rows` argument and constant trip count
PARAMS = ("dst", "src", "buf", "gap", "small", "info", "total", "rows", "cols", "count")
UB_SIZE = 37 * 1024  #: src, dst, buf, gap, at most 4 registers of small, info


@dataclass(frozen=True)
class DType:
    name: str  #: regsim's name (rs.<name>)
    cpp: str  #: the C++ type
    size: int
    is_float: bool

    @property
    def lanes(self) -> int:
        return 256 // self.size


DTYPES = (
    DType("int8", "int8_t", 1, False),
    DType("uint8", "uint8_t", 1, False),
    DType("int16", "int16_t", 2, False),
    DType("uint16", "uint16_t", 2, False),
    DType("int32", "int32_t", 4, False),
    DType("uint32", "uint32_t", 4, False),
    DType("half", "half", 2, True),
    DType("float32", "float", 4, True),
)


# --- the statement tree -------------------------------------------------------------------------------
@dataclass
class Line:
    """One statement in both languages (`cpp` without its `;` when it is a comment)."""

    py: str
    cpp: str
    tag: str = ""  #: the construct it belongs to ("" for plumbing)


@dataclass
class Loop:
    """`for var in range(start, stop)` (`kind="for"`) or `var = start; while var < stop: ...; var += 1`."""

    var: str
    stop: str
    body: list[Stmt]
    start: int = 0
    kind: str = "for"
    tag: str = ""
    step: int = 1


@dataclass
class If:
    cond_py: str
    cond_cpp: str
    body: list[Stmt]
    tag: str = ""


Stmt = Line | Loop | If


@dataclass
class Param:
    name: str
    py: str  #: the annotation
    cpp: str  #: the C++ declaration (with the name)


@dataclass
class Function:
    name: str  #: the Python name; the C++ one is `cpp_name`
    params: list[Param]
    body: list[Stmt]
    kernel: bool = False


@dataclass
class Program:
    seed: int
    dtype: DType
    functions: list[Function]  #: callees first, the kernel last
    rows: int
    cols: int
    count: int
    total: int
    err_k: int  #: the iteration an error recipe fails at (also the slots of `small` and of gap written)
    uid: str = ""  #: makes the C++ names unique in a file of many programs

    @property
    def kernel(self) -> Function:
        return self.functions[-1]

    def cpp_name(self, name: str) -> str:
        camel = "".join(part.capitalize() for part in name.split("_"))
        return f"{camel}VF_{self.uid}" if name == "kernel" else f"{camel}_{self.uid}"

    def tags(self) -> set[str]:
        return {s.tag for f in self.functions for s in walk(f.body) if s.tag}


def walk(body: Sequence[Stmt]) -> Iterator[Stmt]:
    for s in body:
        yield s
        if isinstance(s, (Loop, If)):
            yield from walk(s.body)


# --- choices: seeded or drawn by Hypothesis --------------------------------------------------------------
class Chooser(Protocol):
    def integer(self, lo: int, hi: int) -> int: ...
    def choice(self, options: Sequence[X]) -> X: ...
    def chance(self, p: float) -> bool: ...


class SeededChooser:
    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)

    def integer(self, lo: int, hi: int) -> int:
        return self.rnd.randint(lo, hi)

    def choice(self, options: Sequence[X]) -> X:
        return options[self.rnd.randrange(len(options))]

    def chance(self, p: float) -> bool:
        return self.rnd.random() < p


class DrawChooser:
    """Hypothesis draws: each shrinks toward the first option, the low end and "no"."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw

    def integer(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def choice(self, options: Sequence[X]) -> X:
        return options[self.draw(st.integers(0, len(options) - 1))]

    def chance(self, p: float) -> bool:
        return self.draw(st.integers(0, 99)) >= 100 - round(p * 100)


# --- the generator ---------------------------------------------------------------------------------------
def cpp_expr(py: str) -> str:
    """The generator's index expressions are Python with non-negative `//`: C++'s `/` is the same.
    Applied to every C++ statement as it is rendered (a C++ comment starts its line)."""
    return py.replace(" // ", " / ")


@dataclass
class Addr:
    """An address: statements before its use, the expression in both languages, statements after."""

    pre: list[Stmt]
    py: str
    cpp: str
    after: list[Stmt]
    tag: str


@dataclass
class Level:
    """One enclosing loop: its variable, trip bound and the statements to hoist before it."""

    var: str
    trips: int  #: at most this many iterations
    pre: list[Stmt] = field(default_factory=list)
    post: list[Stmt] = field(default_factory=list)  #: the statements to run after it (a stream's flush)


@dataclass
class Scope:
    """Where a statement is being generated: the loops around it (innermost last), in one function."""

    levels: list[Level]
    top: list[Stmt]  #: the function body's hoisting point (before its first loop)
    row: str  #: an expression numbering the iterations of the nest 0, 1, ... (Python)
    rows: int  #: row < rows
    counters: list[tuple[str, str]]  #: (name, how made) usable here
    lefts: list[str]  #: counter values read in this body (Python names of ints)
    mask: str  #: the mask this body's ops use


class Gen:
    def __init__(self, c: Chooser) -> None:
        self.c = c
        self.t = c.choice(DTYPES)
        self.n = 0
        self.callees: list[Function] = []
        self.callee_kinds: list[str] = []
        self.err_k = c.integer(1, 4)
        self.error_done = not c.chance(0.3)  # at most one error recipe per program, in 30% of them
        #: a wild program may use every construct; a tame one only those a batched loop may run
        #: (no Python state carried, no control flow on the index, no stores twice to one place)
        self.wild = c.chance(0.5)
        self.observed: list[tuple[str, str]] = []  #: (python, c++) values stored to info at the end
        self.uses: set[str] = set()  #: registers and masks the prologue must set up

    # -- names and small helpers --
    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"{stem}{self.n}"

    def reg(self, op: str, args: Sequence[str], mode: str = "", tag: str = "") -> Line:
        """`Reg.<op>(args, mode=...)` / `Reg::<op><T, mode>(args);` (`mode`: "MERGING" or "CMP.<compare mode>")."""
        py_mode, cpp_targs = "", ""
        if mode == "MERGING":
            py_mode, cpp_targs = ", mode=Reg.MaskMergeMode.MERGING", "<T, Reg::MaskMergeMode::MERGING>"
        elif mode:
            py_mode, cpp_targs = f", mode={mode}", f"<T, CMPMODE::{mode[4:]}>"
        return Line(f"Reg.{op}({', '.join(args)}{py_mode})", f"Reg::{op}{cpp_targs}({', '.join(args)});", tag)

    def ops(self) -> list[str]:
        ops = ["Add", "Sub", "Max", "Min"]
        if self.t.size > 1:
            ops.append("Mul")
        return ops

    def scalar_ops(self) -> list[str]:
        ops = ["Adds", "Maxs", "Mins"]
        if self.t.size > 1:
            ops.append("Muls")
        return ops

    # -- addresses --
    def address(self, s: Scope, tensor: str, *, u32: bool = False, width: int = 1, store: bool = False) -> Addr:
        """An address in `tensor` for this row, in bounds of SLOTS registers (`width` registers from
        it) whatever the row; `u32`: as a uint32 pointer (64 lanes a register)."""
        r, unit = s.row, "64" if u32 else "VL"
        kinds = ["forward"] * 5 + ["backward", "variable"]
        if self.wild or not store:  # (two iterations storing to one place run in order)
            kinds += ["overlap", "fixed"]
        if self.wild and s.levels:
            kinds += ["stepped"] * 2
        kind = self.c.choice(kinds)
        if width > 1 and kind in ("overlap", "backward"):
            kind = "forward"
        b = self.c.integer(0, max(0, min(3, SLOTS - 2 - width * s.rows)))
        slot = f"{_paren(r)} * {width}" if width > 1 else r
        tag = f"pointer-{kind}"
        # "@" stands for the tensor: `src` / `src.reinterpret(rs.uint32)` and `(__ubuf__ uint32_t*)src`
        py_t, cpp_t = (f"{tensor}.reinterpret(rs.uint32)", f"(__ubuf__ uint32_t*){tensor}") if u32 else (tensor, tensor)
        ptr_type = "__ubuf__ uint32_t*" if u32 else "__ubuf__ T*"

        def both(expr: str) -> tuple[str, str]:
            return expr.replace("@", py_t), expr.replace("@", cpp_t)

        if kind == "forward":
            expr = f"@ + ({slot} + {b}) * {unit}" if b else f"@ + {_paren(slot)} * {unit}"
        elif kind == "backward":
            expr = f"@ + ({s.rows - 1 + b} - {_paren(r)}) * {unit}"
        elif kind == "overlap":
            expr = f"@ + {_paren(r)} * ({unit} // {self.c.choice((2, 4, 8))})" + (f" + {b} * {unit}" if b else "")
        elif kind == "fixed":
            expr = f"@ + {b} * {unit}" if b else "@"
        elif kind == "variable":  # `q = p + i * VL`, then q
            q = self.fresh("q")
            py, cpp = both(f"@ + {_paren(slot)} * {unit}")
            return Addr([Line(f"{q} = {py}", f"{ptr_type} {q} = {cpp};", tag)], q, q, [], tag)
        else:  # stepped: a pointer variable moved by `q = q + step` every time (carried Python state)
            q = self.fresh("q")
            lvl = self.c.integer(0, len(s.levels) - 1)
            execs = _product([lv.trips for lv in s.levels[lvl:]])
            start = self.c.integer(0, max(0, SLOTS - 2 - width * execs))
            py, cpp = both(f"@ + {start} * {unit}" if start else "@ + 0")
            s.levels[lvl].pre.append(Line(f"{q} = {py}", f"{ptr_type} {q} = {cpp};", tag))
            if lvl == 0:
                self.observed.append(both(f"{q} - @"))
            step = f"{q} = {q} + {width} * {unit}" if width > 1 else f"{q} = {q} + {unit}"
            return Addr([], q, q, [Line(step, step + ";", tag)], tag)
        py, cpp = both(expr)
        return Addr([], py, cpp, [], tag)

    def post_pointer(self, s: Scope, tensor: str) -> tuple[str, str]:
        """A pointer declared before a loop and moved by post-update loads/stores: (name, stride)."""
        p = self.fresh("p")
        lvl = 0 if not s.levels else self.c.integer(0, len(s.levels) - 1)
        execs = _product([lv.trips for lv in s.levels[lvl:]]) if s.levels else 1
        grows = bool(s.levels) and self.c.chance(0.1)
        if grows:  # a stride that grows with the index: i * (VL // 8), at most 15 registers in all
            stride = f"{_paren(s.row)} * (VL // 8)"
            start = self.c.integer(0, 4)
        else:
            stride = self.c.choice(("VL", "VL", "VL // 2", "0", "-VL"))
            if stride == "-VL":
                start = self.c.integer(execs, SLOTS - 2)
            else:
                start = self.c.integer(0, max(0, SLOTS - 2 - execs - 1))
        self.declare_pointer(s, lvl, p, tensor, start)
        return p, stride

    def declare_pointer(self, s: Scope, lvl: int, p: str, tensor: str, start: int) -> None:
        """`p = tensor + start * VL` before the loop at `lvl` (its end position stored to info if
        that is the function's top level)."""
        decl = f"{tensor} + {start} * VL" if start else f"{tensor} + 0"
        hoist = s.levels[lvl].pre if s.levels else s.top
        hoist.append(Line(f"{p} = {decl}", f"__ubuf__ T* {p} = {decl};", "post-update"))
        if lvl == 0 or not s.levels:
            self.observed.append((f"{p} - {tensor}", f"{p} - {tensor}"))

    # -- masks and counters --
    def counter(self, s: Scope, body: list[Stmt]) -> tuple[str, str]:
        """A counter for UpdateMask: (name, how made), made here or hoisted, or one in scope."""
        kinds = ["inside", "inside", "before", "host"]
        if len(s.levels) > 1:
            kinds += ["outer-body", "outer-body"]
        if s.counters:
            kinds += ["in-scope"]
        kind = self.c.choice(kinds)
        if kind == "in-scope":
            return self.c.choice(s.counters)
        if kind == "host":
            return "total", "host"
        n = self.fresh("n")
        value = self.c.choice(("cols", "cols", "count", "VL + 3", "2 * VL"))
        if kind == "inside":
            body.append(Line(f"{n} = rs.Ref({value})", f"uint32_t {n} = {value};", "counter-inside"))
            return n, "inside"
        if kind == "outer-body":
            lvl = self.c.integer(1, len(s.levels) - 1)
            s.levels[lvl].pre.append(Line(f"{n} = rs.Ref({value})", f"uint32_t {n} = {value};", "counter-outer-body"))
        else:
            lvl = self.c.integer(0, len(s.levels) - 1) if s.levels else 0
            target = s.levels[lvl].pre if s.levels else s.top
            target.append(Line(f"{n} = rs.Ref({value})", f"uint32_t {n} = {value};", "counter-before"))
            if lvl == 0:
                self.observed.append((f"{n}.value", n))
        return n, kind

    def body_mask(self, s: Scope, body: list[Stmt]) -> None:
        """The mask of a loop body: `full`, or an UpdateMask of some counter (with its value read
        before or after it, sometimes)."""
        if not self.c.chance(0.75):
            return
        n, kind = self.counter(s, body)
        s.counters.append((n, kind))
        m = self.fresh("m")
        read = self.c.choice(("", "", "before", "after") if self.wild else ("",) * 6 + ("before", "after"))
        left = self.fresh("left")
        read_line = Line(f"{left} = {n}.value", f"uint32_t {left} = {n};", f"counter-read-{read}")
        if read == "before":
            body.append(read_line)
        body.append(Line(f"{m} = Reg.UpdateMask(T, {n})", f"Reg::MaskReg {m} = Reg::UpdateMask<T>({n});", f"updatemask-{kind}"))
        if read == "after":
            body.append(read_line)
        if read:
            s.lefts.append(left)
        s.mask = m

    # -- recipes: a few statements a kernel author would write --
    def recipe(self, s: Scope, depth: int) -> list[Stmt]:
        kinds = (
            ["elementwise"] * 4 + ["scalar"] * 2 + ["accumulate", "select", "carry", "duplicate", "fresh", "view", "roundtrip"]
        )
        if self.t.size > 1:  # (a b8 T gathers into b16 registers: not generated)
            kinds += ["gather", "scatter"]
        if s.levels:
            kinds += ["post"] * 2 + ["stream"]
            if self.wild:
                kinds += ["branch", "exit", "chain", "chain"]
        if depth < 2:
            kinds += ["nested", "nested"] + (["while"] if self.wild else [])
        kinds += ["call"] * 2
        if not self.error_done and s.levels:
            kinds += ["error"] * 3
        kind = self.c.choice(kinds)
        make: Callable[[Scope, int], list[Stmt]] = getattr(self, f"r_{kind}")
        return make(s, depth)

    def load(self, s: Scope, reg: str, tensor: str = "") -> list[Stmt]:
        tensor = tensor or self.c.choice(("src",) * 28 + ("buf",) * 11 + ("dst",))
        a = self.address(s, tensor)
        tag = f"load-{tensor} {a.tag}"
        return [*a.pre, Line(f"Reg.LoadAlign({reg}, {a.py})", f"Reg::LoadAlign({reg}, {a.cpp});", tag), *a.after]

    def store(self, s: Scope, reg: str, tensor: str = "", mask: str = "", what: str = "") -> list[Stmt]:
        tensor = tensor or self.c.choice(("dst", "dst", "dst", "dst", "buf", "src"))
        a = self.address(s, tensor, store=True)
        tag = f"store-{tensor} {a.tag} {what}".strip()
        m = mask or s.mask
        return [*a.pre, Line(f"Reg.StoreAlign({a.py}, {reg}, {m})", f"Reg::StoreAlign({a.cpp}, {reg}, {m});", tag), *a.after]

    def r_elementwise(self, s: Scope, depth: int) -> list[Stmt]:
        out: list[Stmt] = []
        if not self.wild or self.c.chance(0.9):
            out += self.load(s, "x")
        else:
            note = "x as the previous iteration left it"
            out.append(Line(f"# {note}", f"// {note}", "carried-register"))
        if not self.wild or self.c.chance(0.8):
            out += self.load(s, "y")
        op = self.c.choice(self.ops())
        mode = "MERGING" if op in ("Add", "Max", "Min") and self.wild and self.c.chance(0.3) else ""
        out.append(self.reg(op, ["z", "x", "y", s.mask], mode=mode, tag="merging" if mode else "binary"))
        return out + self.store(s, "z")

    def scalar_value(self, s: Scope) -> tuple[str, str, str]:
        """A scalar operand: (python, c++, tag)."""
        kinds = ["const"]
        if s.levels:
            kinds += ["index", "index"]
        if s.lefts:
            kinds += ["counter-value"] * 3
        kind = self.c.choice(kinds)
        if kind == "const":
            v = str(self.c.integer(0, 9))
            return v, f"(T){v}", "scalar-const"
        if kind == "index":
            return s.row, f"(T)({s.row})" if " " in s.row else f"(T){s.row}", "scalar-index"
        left = self.c.choice(s.lefts)
        return f"{left} % 64", f"(T)({left} % 64)", "scalar-counter-value"

    def r_scalar(self, s: Scope, depth: int) -> list[Stmt]:
        out: list[Stmt] = []
        reg = "x"
        if not self.wild or self.c.chance(0.85):
            out += self.load(s, reg)
        op = self.c.choice(self.scalar_ops())
        py, cpp, tag = self.scalar_value(s)
        m = s.mask
        out.append(Line(f"Reg.{op}({reg}, {reg}, {py}, {m})", f"Reg::{op}({reg}, {reg}, {cpp}, {m});", tag))
        return out + self.store(s, reg)

    def r_accumulate(self, s: Scope, depth: int) -> list[Stmt]:
        self.uses.add("acc")
        ops = ["Add", "Add", "Add", "Max", "Min"] + (["Mul"] if self.t.size > 1 else [])
        op = self.c.choice(ops)
        mode = "MERGING" if op != "Mul" and self.c.chance(0.3) else ""
        kind = "float" if self.t.is_float else "int"
        tag = f"accumulate-{op.lower()}-{kind}" + ("-merging" if mode else "")
        out = [*self.load(s, "x"), self.reg(op, ["acc", "acc", "x", s.mask], mode=mode, tag=tag)]
        if self.c.chance(0.3):  # a scalar into the accumulator: acc = acc + i, acc = min(acc, left), ...
            sop = self.c.choice(self.scalar_ops())
            py, cpp, stag = self.scalar_value(s)
            line = Line(
                f"Reg.{sop}(acc, acc, {py}, {s.mask})",
                f"Reg::{sop}(acc, acc, {cpp}, {s.mask});",
                f"accumulate-{sop.lower()} {stag}",
            )
            out = [line] if self.c.chance(0.5) else [*out, line]
        if self.c.chance(0.4):  # the running value, every iteration
            out += self.store(s, "acc", what="accumulator-stored")
        return out

    def r_select(self, s: Scope, depth: int) -> list[Stmt]:
        self.uses.add("c")
        out = self.load(s, "x") + self.load(s, "y")
        mode = "CMP." + self.c.choice(("EQ", "NE", "GT", "GE", "LT", "LE"))
        if self.c.chance(0.5):
            out.append(self.reg("Compare", ["c", "x", "y", s.mask], mode=mode, tag="compare-select"))
        else:
            py, cpp, tag = self.scalar_value(s)
            cmp = mode[4:]
            out.append(
                Line(
                    f"Reg.Compares(c, x, {py}, {s.mask}, mode={mode})",
                    f"Reg::Compares<T, CMPMODE::{cmp}>(c, x, {cpp}, {s.mask});",
                    "compares-select " + tag,
                )
            )
        if self.c.chance(0.3):  # the compare's mask as the store's
            out += self.store(s, "x", mask="c", what="store-under-compare")
            return out
        out.append(self.reg("Select", ["z", "x", "y", "c"], tag="compare-select"))
        return out + self.store(s, "z")

    def r_chain(self, s: Scope, depth: int) -> list[Stmt]:
        """Each iteration loads what the previous one stored in buf (or the next one's slot: the
        order of a load and a later iteration's store)."""
        if not s.levels:
            return self.r_elementwise(s, depth)
        r = s.row
        ahead = self.c.chance(0.7)
        load_at, store_at = (r, f"{_paren(r)} + 1") if ahead else (f"{_paren(r)} + 1", r)
        tag = "load-earlier-store" if ahead else "store-over-later-load"
        out: list[Stmt] = [
            Line(f"Reg.LoadAlign(y, buf + ({load_at}) * VL)", f"Reg::LoadAlign(y, buf + ({load_at}) * VL);", tag),
            self.reg(self.c.choice(self.ops()), ["z", "x" if self.c.chance(0.5) else "y", "y", s.mask], tag="binary"),
            Line(
                f"Reg.StoreAlign(buf + ({store_at}) * VL, z, {s.mask})",
                f"Reg::StoreAlign(buf + ({store_at}) * VL, z, {s.mask});",
                tag,
            ),
        ]
        return out

    def r_carry(self, s: Scope, depth: int) -> list[Stmt]:
        """A multi-limb add: `carry` in and out of every AddC / SubC (a chain across iterations)."""
        self.uses.add("carry")
        op = self.c.choice(("AddC", "SubC"))
        mask = "m32"
        out: list[Stmt] = []
        if s.counters and self.c.chance(0.5):
            n, _ = self.c.choice(s.counters)
            mask = self.fresh("m")
            out.append(
                Line(
                    f"{mask} = Reg.UpdateMask(rs.uint32, {n})",
                    f"Reg::MaskReg {mask} = Reg::UpdateMask<uint32_t>({n});",
                    "updatemask-u32",
                )
            )
        for reg, tensor in (("a32", "src"), ("b32", self.c.choice(("src", "buf")))):
            a = self.address(s, tensor, u32=True)
            out += [
                *a.pre,
                Line(f"Reg.LoadAlign({reg}, {a.py})", f"Reg::LoadAlign({reg}, {a.cpp});", f"load-{tensor} {a.tag}"),
                *a.after,
            ]
        out.append(
            Line(
                f"Reg.{op}(carry, s32, a32, b32, carry, {mask})",
                f"Reg::{op}(carry, s32, a32, b32, carry, {mask});",
                f"carry-{op}",
            )
        )
        if s.levels and self.c.chance(0.4):  # the carry bits every iteration, 32 bytes a row from dst slot 36
            at = f"(__ubuf__ uint32_t*)dst + 36 * 64 + {_paren(s.row)} * 8"
            out.append(
                Line(
                    f"Reg.StoreAlign(dst.reinterpret(rs.uint32) + 36 * 64 + {_paren(s.row)} * 8, carry)",
                    f"Reg::StoreAlign({at}, carry);",
                    "carry-stored",
                )
            )
        a = self.address(s, "dst", u32=True, store=True)
        out += [
            *a.pre,
            Line(f"Reg.StoreAlign({a.py}, s32, {mask})", f"Reg::StoreAlign({a.cpp}, s32, {mask});", f"store-dst {a.tag}"),
            *a.after,
        ]
        return out

    def r_view(self, s: Scope, depth: int) -> list[Stmt]:
        """uint32 arithmetic on T registers (a reference cast in C++)."""
        self.uses.add("m32")
        op = self.c.choice(("Add", "Sub", "Max"))
        py = ", ".join(f"{r}.reinterpret(rs.uint32)" for r in "zxy")
        cpp = ", ".join(f"(Reg::RegTensor<uint32_t>&){r}" for r in "zxy")
        line = Line(f"Reg.{op}({py}, m32)", f"Reg::{op}({cpp}, m32);", "register-view")
        return [*self.load(s, "x"), *self.load(s, "y"), line, *self.store(s, "z")]

    def r_roundtrip(self, s: Scope, depth: int) -> list[Stmt]:
        """A store read back in the same iteration (no iteration reads what another writes)."""
        a = self.address(s, "buf", store=True)
        m = s.mask
        return [
            *self.load(s, "x"),
            *a.pre,
            Line(f"Reg.StoreAlign({a.py}, x, {m})", f"Reg::StoreAlign({a.cpp}, x, {m});", f"store-then-load {a.tag}"),
            Line(f"Reg.LoadAlign(y, {a.py})", f"Reg::LoadAlign(y, {a.cpp});", "store-then-load"),
            *a.after,
            self.reg(self.c.choice(self.ops()), ["z", "y", "x", m], tag="binary"),
            *self.store(s, "z"),
        ]

    def r_duplicate(self, s: Scope, depth: int) -> list[Stmt]:
        py, cpp, tag = self.scalar_value(s)
        if self.c.chance(0.3):
            return [
                Line(f"Reg.Duplicate(z, {py})", f"Reg::Duplicate(z, {cpp});", "duplicate-unmasked " + tag),
                *self.store(s, "z"),
            ]
        mode = self.c.choice(("", "MERGING")) if self.wild else ""
        line = Line(
            f"Reg.Duplicate(z, {py}, {s.mask}" + (", mode=Reg.MaskMergeMode.MERGING)" if mode else ")"),
            f"Reg::Duplicate{'<T, Reg::MaskMergeMode::MERGING>' if mode else ''}(z, {cpp}, {s.mask});",
            ("duplicate-merging " if mode else "duplicate ") + tag,
        )
        return [line, *self.store(s, "z")]

    def r_fresh(self, s: Scope, depth: int) -> list[Stmt]:
        """A register made in the body (a new one every iteration)."""
        t = self.fresh("t")
        out: list[Stmt] = [Line(f"{t} = Reg.RegTensor(T)", f"Reg::RegTensor<T> {t};", "register-in-body")]
        out += self.load(s, t)
        op = self.c.choice(self.ops())
        out.append(self.reg(op, [t, t, "x", s.mask], tag="binary"))
        return out + self.store(s, t)

    def r_post(self, s: Scope, depth: int) -> list[Stmt]:
        """Loads or stores through a pointer moved by POST_MODE_UPDATE."""
        tensor = self.c.choice(("src", "src", "buf", "dst"))
        p, stride = self.post_pointer(s, tensor)
        store = tensor == "dst" or self.c.chance(0.3)
        tag = "post-update-" + ("store" if store else "load") + ("-grows" if " * " in stride and "//" in stride else "")
        # (the stride parameter is an int32_t: C++ would convert -VL, an unsigned, to it)
        cstride = "-(int32_t)VL" if stride == "-VL" else stride
        if store:
            line = Line(
                f"Reg.StoreAlign({p}, z, {stride}, {s.mask}, post_mode=UPDATE)",
                f"Reg::StoreAlign<T, Reg::PostLiteral::POST_MODE_UPDATE>({p}, z, {cstride}, {s.mask});",
                tag,
            )
            return [*self.load(s, "z"), line]
        line = Line(
            f"Reg.LoadAlign(x, {p}, {stride}, post_mode=UPDATE)",
            f"Reg::LoadAlign<T, Reg::PostLiteral::POST_MODE_UPDATE>(x, {p}, {cstride});",
            tag,
        )
        return [line, self.reg("Adds", ["x", "x", "1", s.mask], tag="binary"), *self.store(s, "x")]

    def index(self) -> tuple[str, list[Stmt]]:
        """An index register of k, k + 1, ... k + VL - 1 (Arange on the signed type of T's width), as the
        unsigned index type Gather and Scatter take: (its expression, the statements making it)."""
        self.uses.add("ii")
        bits = 8 * self.t.size
        k = self.c.integer(0, self.t.lanes)
        make = Line(f"Reg.Arange(ii, {k})", f"Reg::Arange(ii, (int{bits}_t){k});", "index-arange")
        return f"ii.reinterpret(rs.uint{bits})", [make]

    def r_gather(self, s: Scope, depth: int) -> list[Stmt]:
        """x = the register Gather of src (or buf) at base + index (indices up to 2 VL - 1: two registers' room)."""
        idx, out = self.index()
        a = self.address(s, self.c.choice(("src", "src", "buf")), width=2)
        cpp_idx = f"(Reg::RegTensor<uint{8 * self.t.size}_t>&)ii"
        line = Line(
            f"Reg.Gather(x, {a.py}, {idx}, {s.mask})", f"Reg::Gather(x, {a.cpp}, {cpp_idx}, {s.mask});", f"gather {a.tag}"
        )
        return [*out, *a.pre, line, *a.after, *self.store(s, "x")]

    def r_scatter(self, s: Scope, depth: int) -> list[Stmt]:
        """The register Scatter of a loaded x to dst (or buf) at base + index (distinct indices, two registers' room)."""
        idx, out = self.index()
        a = self.address(s, self.c.choice(("dst", "dst", "buf")), width=2, store=True)
        cpp_idx = f"(Reg::RegTensor<uint{8 * self.t.size}_t>&)ii"
        line = Line(
            f"Reg.Scatter({a.py}, x, {idx}, {s.mask})", f"Reg::Scatter({a.cpp}, x, {cpp_idx}, {s.mask});", f"scatter {a.tag}"
        )
        return [*self.load(s, "x"), *out, *a.pre, line, *a.after]

    def r_stream(self, s: Scope, depth: int) -> list[Stmt]:
        """An unaligned store stream: a pointer and an UnalignRegForStore made before a loop of the nest,
        `StoreUnAlign(q, x, u, k)` (k elements, the pointer moving by k) every iteration, flushed after that loop."""
        tensor = self.c.choice(("dst", "dst", "buf"))
        q, u = self.fresh("q"), self.fresh("u")
        lvl = self.c.integer(0, len(s.levels) - 1)
        execs = _product([lv.trips for lv in s.levels[lvl:]])
        self.declare_pointer(s, lvl, q, tensor, self.c.integer(0, max(0, SLOTS - 2 - execs - 1)))
        s.levels[lvl].pre.append(Line(f"{u} = Reg.UnalignRegForStore()", f"Reg::UnalignRegForStore {u};", "stream"))
        s.levels[lvl].post.append(
            Line(f"Reg.StoreUnAlignPost({q}, {u}, 0)", f"Reg::StoreUnAlignPost({q}, {u}, 0);", "stream-flush")
        )
        k = self.c.choice(("VL", "VL // 2", "1", str(self.c.integer(1, self.t.lanes))))
        line = Line(f"Reg.StoreUnAlign({q}, x, {u}, {k})", f"Reg::StoreUnAlign({q}, x, {u}, {k});", f"stream-{tensor}")
        return [*self.load(s, "x"), line]

    def r_branch(self, s: Scope, depth: int) -> list[Stmt]:
        var = s.levels[-1].var
        py, cpp = self.c.choice(((f"{var} % 2", f"{var} % 2"), (f"{var} == 0", f"{var} == 0"), (f"{var} > 1", f"{var} > 1")))
        body: list[Stmt] = []
        for _ in range(self.c.integer(1, 2)):
            body += self.recipe(s, depth + 1) if depth < 2 else self.r_elementwise(s, depth)
        return [If(py, cpp, body, "branch-on-index")]

    def r_exit(self, s: Scope, depth: int) -> list[Stmt]:
        lv = s.levels[-1]
        k = self.c.integer(1, max(1, lv.trips - 1))
        word = "continue" if lv.var.startswith(("i", "j")) and self.c.chance(0.4) else "break"
        return [If(f"{lv.var} == {k}", f"{lv.var} == {k}", [Line(word, f"{word};", word)], word)]

    def loop_levels(self, s: Scope) -> tuple[str, str, int, int, int]:
        """A loop's variable, stop, start, step and trip bound."""
        var = self.fresh("j" if s.levels else "i")
        stop, trips, start, step = self.c.choice(
            (
                ("rows", MAX_ROWS, 0, 1),
                ("rows", MAX_ROWS, 0, 1),
                ("2", 2, 0, 1),
                ("3", 3, 0, 1),
                ("4", 4, 0, 1),
                ("4", 4, 0, 1),
                ("rows", MAX_ROWS, 1, 1),
                ("2 * rows", MAX_ROWS, 0, 2),
            )
        )
        return var, stop, start, step, trips

    def sub_scope(self, s: Scope, var: str, trips: int, step: int) -> Scope:
        level = Level(var, trips)
        v = var if step == 1 else f"{var} // {step}"
        row = f"{s.row} * {trips} + {v}" if s.levels else v
        rows = s.rows * trips if s.levels else trips
        return Scope(
            [*s.levels, level],
            s.top,
            row,
            rows,
            list(s.counters),
            [],
            s.mask,
        )

    def loop(self, s: Scope, depth: int, kind: str = "for") -> list[Stmt]:
        var, stop, start, step, trips = self.loop_levels(s)
        if kind == "while":
            var, step = self.fresh("w"), 1
            stop = stop.replace("2 * rows", "rows")
        inner = self.sub_scope(s, var, trips, step)
        body: list[Stmt] = []
        self.body_mask(inner, body)
        for _ in range(self.c.integer(1, 3)):
            body += self.recipe(inner, depth + 1)
        after = self.escape(s, inner, body) if not s.levels and self.c.chance(0.3) else []
        tag = ("nested-" if s.levels else "") + ("while" if kind == "while" else "loop")
        level = inner.levels[-1]
        if kind == "while":
            init = Line(f"{var} = {start}", f"uint16_t {var} = {start};", "while")
            return [*level.pre, init, Loop(var, stop, body, start, "while", tag), *level.post, *after]
        loop = Loop(var, stop, body, start, "for", tag + ("-step" if step > 1 else ""), step)
        return [*level.pre, loop, *level.post, *after]

    def escape(self, s: Scope, inner: Scope, body: list[Stmt]) -> list[Stmt]:
        """Values the body makes, used after the loop: its last pointer and mask (and counter value)."""
        q, m = self.fresh("q"), self.fresh("m")
        pre = inner.levels[-1].pre
        pre += [
            Line(f"{q} = dst + 0", f"__ubuf__ T* {q} = dst;", "pointer-after-loop"),
            Line(f"{m} = full", f"Reg::MaskReg {m} = full;", "mask-after-loop"),
        ]
        at = f"dst + {_paren(inner.row)} * VL"
        body += [Line(f"{q} = {at}", f"{q} = {at};", "pointer-after-loop"), Line(f"{m} = {inner.mask}", f"{m} = {inner.mask};")]
        made = inner.counters[len(s.counters) :]
        if made:
            n, left = made[-1][0], self.fresh("left")
            pre.append(Line(f"{left} = 0", f"uint32_t {left} = 0;", "counter-after-loop"))
            body.append(Line(f"{left} = {n}.value", f"{left} = {n};", "counter-after-loop"))
            self.observed.append((left, left))
        return [Line(f"Reg.StoreAlign({q}, y, {m})", f"Reg::StoreAlign({q}, y, {m});", "mask-after-loop")]

    def r_nested(self, s: Scope, depth: int) -> list[Stmt]:
        return self.loop(s, depth)

    def r_while(self, s: Scope, depth: int) -> list[Stmt]:
        return self.loop(s, depth, "while")

    def r_error(self, s: Scope, depth: int) -> list[Stmt]:
        """One error, from iteration err_k of the nest on (if the row gets that far, with lanes)."""
        self.error_done = True
        kind = self.c.choice(("oob", "misaligned", "uninit"))
        r, k, m = s.row, self.err_k, s.mask
        if kind == "oob":  # small holds err_k registers
            return [
                *self.load(s, "x"),
                Line(
                    f"Reg.StoreAlign(small + {_paren(r)} * VL, x, {m})",
                    f"Reg::StoreAlign(small + {_paren(r)} * VL, x, {m});",
                    "error-out-of-bounds",
                ),
            ]
        if kind == "misaligned":
            return [
                Line(
                    f"Reg.LoadAlign(y, src + {_paren(r)} // {k})",
                    f"Reg::LoadAlign(y, src + {_paren(r)} / {k});",
                    "error-misaligned",
                ),
                self.reg("Add", ["z", "y", "y", m], tag="binary"),
                *self.store(s, "z"),
            ]
        return [  # gap's first err_k registers are written
            Line(
                f"Reg.LoadAlign(y, gap + {_paren(r)} * VL)",
                f"Reg::LoadAlign(y, gap + {_paren(r)} * VL);",
                "error-uninitialised",
            ),
            self.reg("Add", ["z", "x", "y", m], tag="binary"),
            *self.store(s, "z"),
        ]

    # -- callees --
    def r_call(self, s: Scope, depth: int) -> list[Stmt]:
        kinds = ["row", "tile", "push", "accumulate", "rows"]
        kind = self.c.choice(kinds)
        existing = [i for i, k in enumerate(self.callee_kinds) if k == kind]
        if existing and self.c.chance(0.5):
            f = self.callees[existing[0]]
        else:
            f = getattr(self, f"callee_{kind}")(len(self.callees))
            self.callees.append(f)
            self.callee_kinds.append(kind)
        call: Callable[[Scope, Function], list[Stmt]] = getattr(self, f"call_{kind}")
        return call(s, f)

    def call_line(self, f: Function, args: list[str], cpp_args: list[str] | None = None, tag: str = "") -> Line:
        cpp_args = cpp_args if cpp_args is not None else args
        name = "{" + f.name + "}"  # filled in by the renderer with the C++ name
        return Line(
            f"{f.name}({', '.join(args)})", f"{name}<T>({', '.join(cpp_args)});", tag or f"callee-{f.name.rsplit('_', 1)[0]}"
        )

    def ptr(self, name: str) -> Param:
        return Param(name, "rs.UbPtr[T]", f"__ubuf__ T* {name}")

    def callee_row(self, k: int) -> Function:
        """Takes a counter by reference: one UpdateMask on the caller's counter."""
        op = self.c.choice(self.scalar_ops())
        v = self.c.integer(1, 5)
        body: list[Stmt] = [
            Line("t = Reg.RegTensor(T)", "Reg::RegTensor<T> t;", "register-in-callee"),
            Line("m = Reg.UpdateMask(T, n)", "Reg::MaskReg m = Reg::UpdateMask<T>(n);", "updatemask-callee-ref"),
            Line("Reg.LoadAlign(t, src)", "Reg::LoadAlign(t, src);", "load"),
            Line(f"Reg.{op}(t, t, {v}, m)", f"Reg::{op}(t, t, (T){v}, m);", "scalar-const"),
            Line("Reg.StoreAlign(dst, t, m)", "Reg::StoreAlign(dst, t, m);", "store"),
        ]
        return Function(f"row_{k}", [self.ptr("dst"), self.ptr("src"), Param("n", "rs.Ref[int]", "uint32_t& n")], body)

    def call_row(self, s: Scope, f: Function) -> list[Stmt]:
        d, a = self.address(s, "dst", store=True), self.address(s, self.c.choice(("src", "buf")))
        pre = d.pre + a.pre
        n, _ = self.c.choice(s.counters) if s.counters and self.c.chance(0.7) else self.counter(s, pre)
        return [*pre, self.call_line(f, [d.py, a.py, n], [d.cpp, a.cpp, n]), *d.after, *a.after]

    def callee_tile(self, k: int) -> Function:
        """Makes its own counter and a pointer, and loops over two registers."""
        body: list[Stmt] = [
            Line("t = Reg.RegTensor(T)", "Reg::RegTensor<T> t;", "register-in-callee"),
            Line("n = rs.Ref(cnt)", "uint32_t n = cnt;", "counter-in-callee"),
            Line("q = src.copy()", "__ubuf__ T* q = src;", "pointer-in-callee"),
            Loop(
                "j",
                "2",
                [
                    Line("m = Reg.UpdateMask(T, n)", "Reg::MaskReg m = Reg::UpdateMask<T>(n);", "updatemask-callee-counter"),
                    Line(
                        "Reg.LoadAlign(t, q, VL, post_mode=UPDATE)",
                        "Reg::LoadAlign<T, Reg::PostLiteral::POST_MODE_UPDATE>(t, q, VL);",
                        "post-update-load",
                    ),
                    Line("Reg.Adds(t, t, j, m)", "Reg::Adds(t, t, (T)j, m);", "scalar-index"),
                    Line("Reg.StoreAlign(dst + j * VL, t, m)", "Reg::StoreAlign(dst + j * VL, t, m);", "store"),
                ],
                tag="callee-loop",
            ),
        ]
        return Function(f"tile_{k}", [self.ptr("dst"), self.ptr("src"), Param("cnt", "int", "uint32_t cnt")], body)

    def call_tile(self, s: Scope, f: Function) -> list[Stmt]:
        d, a = self.address(s, "dst", width=2, store=True), self.address(s, "src", width=2)
        cnt = self.c.choice(("cols", "count", "VL + 1"))
        return [*d.pre, *a.pre, self.call_line(f, [d.py, a.py, cnt], [d.cpp, a.cpp, cnt]), *d.after, *a.after]

    def callee_push(self, k: int) -> Function:
        """Stores a register and moves the caller's pointer (taken by reference)."""
        body: list[Stmt] = [
            Line(
                "Reg.StoreAlign(p, x, VL, m, post_mode=UPDATE)",
                "Reg::StoreAlign<T, Reg::PostLiteral::POST_MODE_UPDATE>(p, x, VL, m);",
                "post-update-by-reference",
            )
        ]
        params = [
            Param("p", "rs.UbPtr[T]", "__ubuf__ T*& p"),
            Param("x", "Reg.RegTensor[T]", "Reg::RegTensor<T>& x"),
            Param("m", "Reg.MaskReg", "Reg::MaskReg& m"),
        ]
        return Function(f"push_{k}", params, body)

    def call_push(self, s: Scope, f: Function) -> list[Stmt]:
        if not s.levels:
            return self.r_elementwise(s, 0)
        p = self.fresh("p")
        lvl = self.c.integer(0, len(s.levels) - 1)
        execs = _product([lv.trips for lv in s.levels[lvl:]])
        self.declare_pointer(s, lvl, p, "dst", self.c.integer(0, max(0, SLOTS - 2 - execs - 1)))
        return [*self.load(s, "x"), self.call_line(f, [p, "x", s.mask])]

    def callee_accumulate(self, k: int) -> Function:
        """Adds a loaded register into the caller's accumulator (a register by reference)."""
        body: list[Stmt] = [
            Line("t = Reg.RegTensor(T)", "Reg::RegTensor<T> t;", "register-in-callee"),
            Line("Reg.LoadAlign(t, src)", "Reg::LoadAlign(t, src);", "load"),
            Line(
                "Reg.Add(acc, acc, t, m)",
                "Reg::Add(acc, acc, t, m);",
                "accumulate-add-" + ("float" if self.t.is_float else "int"),
            ),
        ]
        params = [
            Param("acc", "Reg.RegTensor[T]", "Reg::RegTensor<T>& acc"),
            self.ptr("src"),
            Param("m", "Reg.MaskReg", "Reg::MaskReg& m"),
        ]
        return Function(f"accumulate_{k}", params, body)

    def call_accumulate(self, s: Scope, f: Function) -> list[Stmt]:
        self.uses.add("acc")
        a = self.address(s, "src")
        return [*a.pre, self.call_line(f, ["acc", a.py, s.mask], ["acc", a.cpp, s.mask]), *a.after]

    def callee_rows(self, k: int) -> Function:
        """A loop whose body makes its counter every iteration."""
        body: list[Stmt] = [
            Line("t = Reg.RegTensor(T)", "Reg::RegTensor<T> t;", "register-in-callee"),
            Loop(
                "j",
                "2",
                [
                    Line("n = rs.Ref(cnt)", "uint32_t n = cnt;", "counter-inside-callee-loop"),
                    Line("m = Reg.UpdateMask(T, n)", "Reg::MaskReg m = Reg::UpdateMask<T>(n);", "updatemask-inside"),
                    Line("Reg.LoadAlign(t, src + j * VL)", "Reg::LoadAlign(t, src + j * VL);", "load"),
                    Line("Reg.StoreAlign(dst + j * VL, t, m)", "Reg::StoreAlign(dst + j * VL, t, m);", "store"),
                ],
                tag="callee-loop",
            ),
        ]
        return Function(f"rows_{k}", [self.ptr("dst"), self.ptr("src"), Param("cnt", "int", "uint32_t cnt")], body)

    call_rows = call_tile

    # -- the kernel --
    def full_mask(self) -> Line:
        """`full`: all lanes, or a pattern (the first 16 lanes, half of them, ...)."""
        pattern = self.c.choice(("ALL",) * 6 + ("VL16", "H", "M3", "Q"))
        if pattern == "ALL":
            return Line("full = Reg.CreateMask(T)", "Reg::MaskReg full = Reg::CreateMask<T>();")
        return Line(
            f"full = Reg.CreateMask(T, pattern=Reg.MaskPattern.{pattern})",
            f"Reg::MaskReg full = Reg::CreateMask<T, Reg::MaskPattern::{pattern}>();",
            "mask-pattern",
        )

    def kernel(self) -> Function:
        s = Scope([], [], "0", 1, [], [], "full")
        body: list[Stmt] = []
        for _ in range(self.c.integer(1, 2)):
            if self.c.chance(0.85):
                body += self.loop(s, 0)
            else:
                body += self.recipe(s, 0)
        head: list[Stmt] = [
            Line("x, y, z = Reg.RegTensor(T), Reg.RegTensor(T), Reg.RegTensor(T)", "Reg::RegTensor<T> x, y, z;"),
            self.full_mask(),
            Line("Reg.LoadAlign(x, src)", "Reg::LoadAlign(x, src);"),
            Line("Reg.LoadAlign(y, src + VL)", "Reg::LoadAlign(y, src + VL);"),
            Line("Reg.LoadAlign(z, buf)", "Reg::LoadAlign(z, buf);"),
        ]
        tail: list[Stmt] = []
        if "acc" in self.uses:
            head += [
                Line("acc = Reg.RegTensor(T)", "Reg::RegTensor<T> acc;"),
                Line("Reg.Duplicate(acc, 1)", "Reg::Duplicate(acc, (T)1);"),
            ]
            tail.append(
                Line(f"Reg.StoreAlign(dst + {EPILOGUE} * VL, acc, full)", f"Reg::StoreAlign(dst + {EPILOGUE} * VL, acc, full);")
            )
        if "c" in self.uses:
            head.append(Line("c = Reg.MaskReg()", "Reg::MaskReg c;"))
        if "ii" in self.uses:
            bits = 8 * self.t.size
            head.append(Line(f"ii = Reg.RegTensor(rs.int{bits})", f"Reg::RegTensor<int{bits}_t> ii;"))
        if self.uses & {"carry", "m32"}:
            head.append(Line("m32 = Reg.CreateMask(rs.uint32)", "Reg::MaskReg m32 = Reg::CreateMask<uint32_t>();"))
        if "carry" in self.uses:
            head += [
                Line(
                    "a32, b32, s32 = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)",
                    "Reg::RegTensor<uint32_t> a32, b32, s32;",
                ),
                Line("carry = Reg.MaskReg()", "Reg::MaskReg carry;"),
                Line("Reg.LoadAlign(carry, buf)", "Reg::LoadAlign(carry, buf);"),
            ]
            tail.append(Line("Reg.StoreAlign(info + 32, carry)", "Reg::StoreAlign(info + 32, carry);"))
        for k, reg in ((38, "x"), (39, "z")):  # as the last iteration left them
            tail.append(Line(f"Reg.StoreAlign(dst + {k} * VL, {reg}, full)", f"Reg::StoreAlign(dst + {k} * VL, {reg}, full);"))
        for k, (py, cpp) in enumerate(self.observed[:32]):
            tail.append(Line(f"info[{k}] = {py}", f"info[{k}] = {cpp};", "observe"))
        params = [self.ptr(p) for p in PARAMS[:5]] + [
            Param("info", "rs.UbPtr[rs.uint32]", "__ubuf__ uint32_t* info"),
            Param("total", "rs.Ref[int]", "uint32_t& total"),
            Param("rows", "int", "uint16_t rows"),
            Param("cols", "int", "uint32_t cols"),
            Param("count", "int", "uint32_t count"),
        ]
        return Function("kernel", params, [*head, *s.top, *body, *tail], kernel=True)


def _paren(expr: str) -> str:
    return f"({expr})" if " " in expr else expr


def _product(values: Sequence[int]) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def generate(c: Chooser, seed: int = 0, uid: str = "") -> Program:
    g = Gen(c)
    vl = g.t.lanes
    rows = c.choice((4, 4, 4, 3, 3, 2, 1, 0))
    cols = c.choice((0, 1, vl - 1, vl, vl + 1, 2 * vl + 3, c.integer(0, 3 * vl)))
    count = c.choice((0, vl, c.integer(0, 12 * vl), c.integer(0, 40 * vl)))
    total = c.choice((0, 3 * vl, c.integer(0, 12 * vl), 2**32 - 1))
    kernel = g.kernel()
    return Program(seed, g.t, [*g.callees, kernel], rows, cols, count, total, g.err_k, uid or str(seed))


def program(seed: int) -> Program:
    """The program of `seed` (the same program on every machine and run)."""
    return generate(SeededChooser(seed), seed)


@st.composite
def programs(draw: st.DrawFn) -> Program:
    """Random programs, their choices drawn by Hypothesis (so a failure shrinks to a small program)."""
    return generate(DrawChooser(draw), 0, "h")


# --- rendering ---------------------------------------------------------------------------------------
_TIDY = (
    (re.compile(r"\(0 \+ (\d+)\)"), r"\1"),  # (0 + 2) * VL: row 0 of straight-line code
    (re.compile(r" \+ 0 \* (\(VL // \d\)|\(VL / \d\)|VL|64)(?=[,;) ]|$)"), ""),  # p + 0 * VL
    (re.compile(r"(?<![\w.])0 \* (\(VL // \d\)|\(VL / \d\)|VL|64) \+ "), ""),  # p + 0 * (VL // 2) + VL
    (re.compile(r"(?<![\w.])1 \* (VL|64)(?![\w])"), r"\1"),  # 1 * VL
)


def tidy(line: str) -> str:
    """A rendered statement without the zero terms straight-line code gets (`src + 0 * VL` is `src`)."""
    for pattern, repl in _TIDY:
        line = pattern.sub(repl, line)
    return line


def _py_stmts(body: Sequence[Stmt], depth: int) -> list[str]:
    pad = "    " * depth
    out: list[str] = []
    for s in body:
        if isinstance(s, Line):
            out.append(pad + tidy(s.py))
        elif isinstance(s, If):
            out.append(f"{pad}if {s.cond_py}:")
            out += _py_stmts(s.body, depth + 1) or [pad + "    pass"]
        elif s.kind == "while":
            out.append(f"{pad}while {s.var} < {s.stop}:")
            out += _py_stmts(s.body, depth + 1)
            out.append(f"{pad}    {s.var} += 1")
        else:
            rng = (
                f"range({s.start}, {s.stop}, {s.step})"
                if s.step > 1
                else f"range({s.start}, {s.stop})"
                if s.start
                else f"range({s.stop})"
            )
            out.append(f"{pad}for {s.var} in {rng}:")
            out += _py_stmts(s.body, depth + 1) or [pad + "    pass"]
    return out


def python_source(p: Program) -> str:
    """A self-contained module: the kernel, its callees and `setup()`."""
    t = p.dtype
    lines = [
        f'"""A generated VF program (tests/progen.py, seed {p.seed}), T = {t.name}.',
        "",
        *textwrap.wrap(
            "Constructs: " + ", ".join(sorted({w for tag in p.tags() for w in tag.split()})) + '."""', 100, break_on_hyphens=False
        ),
        "",
        "from __future__ import annotations",
        "",
        "from typing import Any",
        "",
        "import numpy as np",
        "",
        "import regsim as rs",
        "from regsim import Reg",
        "",
        f"T = rs.{t.name}",
        "VL = rs.GetVecLen() // T.itemsize  # lanes of T in one register",
        "UPDATE = Reg.PostLiteral.POST_MODE_UPDATE",
        "CMP = rs.AscendC.CMPMODE",
        f"SEED, ROWS, COLS, COUNT, TOTAL, ERR_K = {p.seed}, {p.rows}, {p.cols}, {p.count}, {p.total}, {p.err_k}",
    ]
    for f in p.functions:
        lines += ["", "", "@rs.simd_vf" if f.kernel else "@rs.simd_callee"]
        params = ", ".join(f"{a.name}: {a.py}" for a in f.params)
        head = f"def {f.name}({params}) -> None:"
        lines += (
            [f"def {f.name}(", *textwrap.wrap(params, 100, initial_indent="    ", subsequent_indent="    "), ") -> None:"]
            if len(head) > 110
            else [head]
        )
        lines += _py_stmts(f.body, 1) or ["    pass"]
    lines += [
        "",
        "",
        "def setup() -> tuple[rs.UnifiedBuffer, tuple[Any, ...]]:",
        '    """A fresh UB: src, buf random, gap written for ERR_K registers, dst, small and info never',
        '    written; the kernel\'s arguments."""',
        "    rng = np.random.default_rng(SEED)",
        f"    ub = rs.UnifiedBuffer({UB_SIZE})",
        f"    src, dst, buf = (ub.alloc(T, {SLOTS} * VL) for _ in range(3))",
        f"    gap = ub.alloc(T, {GAP_SLOTS} * VL)",
        "    small = ub.alloc(T, ERR_K * VL)",
        f"    info = ub.alloc(rs.uint32, {INFO})",
        "",
        "    def values(n: int) -> Any:",
        "        if T in (rs.half, rs.float32):",
        "            return rng.integers(-64, 64, n) / 4",
        "        return rng.integers(0, 256, n * T.itemsize, dtype=np.uint8).view(T.np_dtype)",
        "",
        "    src.set(values(src.GetSize()), cast=True)",
        "    buf.set(values(buf.GetSize()), cast=True)",
        "    gap.set(values(ERR_K * VL), cast=True)",
        "    ptrs = (dst, src, buf, gap, small, info)",
        "    return ub, (*(x.GetPhyAddr() for x in ptrs), rs.Ref(TOTAL), ROWS, COLS, COUNT)",
        "",
    ]
    return "\n".join(lines)


def _cpp_stmts(body: Sequence[Stmt], depth: int, names: dict[str, str]) -> list[str]:
    pad = "    " * depth
    out: list[str] = []
    for s in body:
        if isinstance(s, Line):
            text = tidy(cpp_expr(s.cpp))
            if text.startswith("{"):
                name, rest = text[1:].split("}", 1)
                text = names[name] + rest
            out.append(pad + text)
        elif isinstance(s, If):
            out.append(f"{pad}if ({cpp_expr(s.cond_cpp)}) {{")
            out += _cpp_stmts(s.body, depth + 1, names)
            out.append(pad + "}")
        elif s.kind == "while":
            out.append(f"{pad}while ({s.var} < {cpp_expr(s.stop)}) {{")
            out += _cpp_stmts(s.body, depth + 1, names)
            out.append(f"{pad}    {s.var}++;")
            out.append(pad + "}")
        else:
            inc = f"{s.var} += {s.step}" if s.step > 1 else f"{s.var}++"
            out.append(f"{pad}for (uint16_t {s.var} = {s.start}; {s.var} < {cpp_expr(s.stop)}; {inc}) {{")
            out += _cpp_stmts(s.body, depth + 1, names)
            out.append(pad + "}")
    return out


def cpp_source(p: Program) -> str:
    """The program's functions in C++ (without `using namespace AscendC;`, which `cpp_file` adds)."""
    names = {f.name: p.cpp_name(f.name) for f in p.functions}
    lines = [f"// seed {p.seed}: {p.dtype.name}"]
    for f in p.functions:
        params = ", ".join(a.cpp for a in f.params)
        kind = "__simd_vf__" if f.kernel else "__simd_callee__"
        lines += ["template <typename T>", f"static {kind} inline void {names[f.name]}({params})", "{"]
        lines.append("    constexpr uint32_t VL = AscendC::GetVecLen() / sizeof(T);")
        lines += _cpp_stmts(f.body, 1, names)
        lines += ["}", ""]
    return "\n".join(lines)


def cpp_file(ps: Sequence[Program]) -> str:
    return "using namespace AscendC;\n\n" + "\n".join(cpp_source(p) for p in ps)


# --- shrinking a program ----------------------------------------------------------------------------------
def smaller(p: Program) -> Iterator[Program]:
    """Programs one step smaller than `p`: an unused callee dropped; a statement removed, a loop or
    `if` replaced by its body, a loop cut to 2 trips (outer statements first); simpler arguments."""
    used = " ".join(s.py for f in p.functions for s in walk(f.body) if isinstance(s, Line))
    for fi, f in enumerate(p.functions[:-1]):
        if f"{f.name}(" not in used:
            q = copy.deepcopy(p)
            del q.functions[fi]
            yield q
    for fi in reversed(range(len(p.functions))):
        for path in _paths(p.functions[fi].body):
            body, i = _at(p.functions[fi].body, path)
            node = body[i]
            edits: list[Callable[[list[Stmt], int], None]] = [_remove]
            if isinstance(node, (Loop, If)):
                edits.append(_unwrap)
            if isinstance(node, Loop) and node.stop not in ("1", "2"):
                edits.append(_two_trips)
            for edit in edits:
                q = copy.deepcopy(p)
                edit(*_at(q.functions[fi].body, path))
                yield q
    for name, simpler in (("rows", (2, 3)), ("cols", (0, 1)), ("count", (0,)), ("total", (0,))):
        for v in simpler:
            if v < getattr(p, name):
                q = copy.deepcopy(p)
                setattr(q, name, v)
                yield q


def _remove(body: list[Stmt], i: int) -> None:
    del body[i]


def _unwrap(body: list[Stmt], i: int) -> None:
    node = body[i]
    assert isinstance(node, (Loop, If))
    body[i : i + 1] = node.body


def _two_trips(body: list[Stmt], i: int) -> None:
    node = body[i]
    assert isinstance(node, Loop)
    node.stop = "2"


def _paths(body: list[Stmt]) -> list[tuple[int, ...]]:
    """Every statement's path, breadth first (the outermost, largest first), last first in a body."""
    out: list[tuple[int, ...]] = []
    todo: list[tuple[list[Stmt], tuple[int, ...]]] = [(body, ())]
    while todo:
        nodes, prefix = todo.pop(0)
        for i in reversed(range(len(nodes))):
            out.append((*prefix, i))
            node = nodes[i]
            if isinstance(node, (Loop, If)):
                todo.append((node.body, (*prefix, i)))
    return out


def _at(body: list[Stmt], path: tuple[int, ...]) -> tuple[list[Stmt], int]:
    for i in path[:-1]:
        node = body[i]
        assert isinstance(node, (Loop, If))
        body = node.body
    return body, path[-1]


def shrink(p: Program, still_fails: Callable[[Program], bool], budget: int = 600) -> Program:
    """A smallest program `smaller` steps reach from `p` that still fails: greedy passes, each
    resuming where the last step succeeded, until a whole pass changes nothing (or `budget` tries)."""
    tries = 0
    progress = True
    while progress:
        progress, start = False, 0
        while True:
            candidates = list(smaller(p))
            for k in range(start, len(candidates)):
                tries += 1
                if tries > budget:
                    return p
                if still_fails(candidates[k]):
                    p, start, progress = candidates[k], k, True
                    break
            else:
                break
    return p
