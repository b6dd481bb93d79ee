"""The in-order fast paths (`Executor.specialise`: one closure per plan, handing every uncommon
case to the generic run) change nothing observable: the same random programs of Reg calls, run
once with the closures and once with every call bound and run by its executor, leave the same
UB bytes and written flags, the same registers and masks, and raise the same errors with the same
messages (after which, as always, the failed call changed nothing)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.engine import executors
from regsim._src.engine.spec import REGISTRY

ZEROING, MERGING = Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING
ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
TYPES = [(rs.uint32, ONE), (rs.int32, ONE), (rs.int16, ONE), (rs.uint8, ONE), (rs.float32, ONE), (rs.uint64, TWO)]
UB_BYTES = 4096


def _clear_plans() -> None:
    for entry in REGISTRY.entries.values():
        entry._plans.clear()
        entry._calls.clear()


def _subclasses(cls: type) -> set[type]:
    return {c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))}


@pytest.fixture
def generic_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[bool], None]]:
    """`use(False)`: every executor's `specialise` declines, so calls bind and run `run`."""

    def use(fast: bool) -> None:
        if fast:
            monkeypatch.undo()
        else:
            monkeypatch.setattr(executors.Executor, "specialise", lambda self, spec, plan, generic: None)
            for cls in _subclasses(executors.Executor):
                if "specialise" in vars(cls):
                    monkeypatch.setattr(cls, "specialise", executors.Executor.specialise)
        _clear_plans()

    yield use
    monkeypatch.undo()
    _clear_plans()


class World:
    """A UB, registers and masks, built the same way from one seed."""

    def __init__(self, seed: int, dtype: type[rs.DType], trait: Reg.RegTrait) -> None:
        rng = np.random.default_rng(seed)
        self.dtype, self.trait = dtype, trait
        self.ub = rs.UnifiedBuffer(size=UB_BYTES)
        self.a = self.ub.alloc(dtype, 1024 // dtype.itemsize)
        self.b = self.ub.alloc(dtype, 1024 // dtype.itemsize)
        self.out = self.ub.alloc(dtype, 1024 // dtype.itemsize)
        self.masks_out = self.ub.alloc(rs.uint8, 256)
        # a written except some bytes of its last register; b written whole; out and the rest never
        raw = rng.integers(0, 256, 1024, dtype=np.uint8)
        self.ub.storage.write(self.a.addr, raw[:900])
        self.ub.storage.write(self.b.addr, rng.integers(0, 256, 1024, dtype=np.uint8))
        self.regs = [Reg.RegTensor(dtype, trait) for _ in range(3)]  # never written until loaded or computed
        lanes = rng.integers(0, 256, 256 * trait.REG_NUM, dtype=np.uint8).view(dtype.np_dtype)
        self.regs.append(Reg.RegTensor.from_numpy(lanes, dtype=dtype, trait=trait))
        self.masks = [Reg.MaskReg(), Reg.MaskReg.from_bits(rng.integers(0, 2, 256).astype(bool))]
        self.refs = [rs.Ref(int(rng.integers(0, 400))), rs.Ref(-1), rs.Ref(np.uint32(70))]
        #: pointers a post-update load or store moves: into a (read) and out (written)
        self.ptrs = [self.a.GetPhyAddr(), self.out.GetPhyAddr()]

    def state(self) -> list[Any]:
        st = self.ub.storage
        out: list[Any] = [st.data.copy(), None if st.valid is None else st.valid.copy()]
        for r in self.regs:
            out += [r._raw.copy(), None if r._storage.valid is None else r._storage.valid.copy()]
        for m in self.masks:
            out += [m._bits.copy(), None if m._written is None else m._written.copy()]
        return out + [ref._value for ref in self.refs] + [p.addr for p in self.ptrs]


def _program(seed: int, dtype: type[rs.DType]) -> list[tuple[Any, ...]]:
    """Random Reg calls (op, operand choices): mostly valid, some misaligned, out of bounds or on
    never-written data. Registers and masks are slots of the world; pointers (tensor, offset)."""
    rng = np.random.default_rng(seed + 1)
    size = dtype.itemsize
    # in elements: aligned, misaligned (1), and a register's store crossing the tensor's end (896 bytes in)
    offsets = [0, 64 // size, 128 // size, 192 // size, 1, 896 // size]

    def pick(n: int) -> int:
        return int(rng.integers(n))

    carry = dtype in (rs.uint32, rs.int32)
    program: list[tuple[Any, ...]] = []
    ops = ["update", "create", "load", "store", "store_mask", "add", "add_carry", "addc", "adds"]
    ops += ["load_post", "store_post", "compare", "compares", "select", "muls", "duplicate", "reduce", "barrier"]
    #: post-update strides in elements: a register on or back, none, misaligned, past int32_t
    steps = [256 // size, -256 // size, 0, 1, 2**31]
    scalars = [3, -1, 300, 1.5, np.float32(2.5), np.int16(-7), True, 2**40]
    for _ in range(40):
        op = ops[pick(len(ops))]
        if op in ("add_carry", "addc") and not carry:
            continue
        regs, masks = [pick(4) for _ in range(3)], [pick(2) for _ in range(3)]
        choice = {
            "update": (pick(3),),
            "create": ([Reg.MaskPattern.ALL, Reg.MaskPattern.VL8, Reg.MaskPattern.H][pick(3)],),
            "load": (pick(2), offsets[pick(6)]),
            "store": (offsets[pick(6)],),
            "store_mask": ([Reg.MaskDist.DIST_NORM, Reg.MaskDist.DIST_PACK][pick(2)], [0, 32, 48, 240, 5, 256][pick(6)]),
            "add": ([ZEROING, MERGING][pick(2)],),
            "adds": ([3, -1, 300, 1.5][pick(4)],),
            "load_post": (steps[pick(5)],),
            "store_post": (steps[pick(5)],),
            "compare": ([rs.CMPMODE.GT, rs.CMPMODE.EQ, rs.CMPMODE.LE][pick(3)],),
            "compares": (scalars[pick(8)],),
            "muls": (scalars[pick(8)],),
            "duplicate": (scalars[pick(8)], [ZEROING, MERGING, None][pick(3)]),
        }.get(op, ())
        program.append((op, regs, masks, *choice))
    return program


def _apply(w: World, call: tuple[Any, ...]) -> None:
    op, (r0, r1, r2), (m0, m1, m2), *more = call
    regs, masks = w.regs, w.masks
    if op == "update":
        masks[m0] = Reg.UpdateMask(w.dtype, w.refs[more[0]], trait=w.trait)
    elif op == "create":
        masks[m0] = Reg.CreateMask(w.dtype, pattern=more[0], trait=w.trait)
    elif op == "load":
        Reg.LoadAlign(regs[r0], [w.a, w.b][more[0]].GetPhyAddr() + more[1])
    elif op == "store":
        Reg.StoreAlign(w.out.GetPhyAddr() + more[0], regs[r0], masks[m0])
    elif op == "store_mask":
        Reg.StoreAlign(w.masks_out.GetPhyAddr() + more[1], masks[m0], dist=more[0])
    elif op == "add":
        Reg.Add(regs[r0], regs[r1], regs[r2], masks[m0], mode=more[0])
    elif op == "add_carry":
        Reg.Add(masks[m1], regs[r0], regs[r1], regs[r2], masks[m0])
    elif op == "addc":
        Reg.AddC(masks[m1], regs[r0], regs[r1], regs[r2], masks[m2], masks[m0])
    elif op == "adds":
        Reg.Adds(regs[r0], regs[r1], more[0], masks[m0])
    elif op == "load_post":
        Reg.LoadAlign(regs[r0], w.ptrs[0], more[0], post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
    elif op == "store_post":
        Reg.StoreAlign(w.ptrs[1], regs[r0], more[0], masks[m0], post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
    elif op == "compare":
        Reg.Compare(masks[m1], regs[r0], regs[r1], masks[m0], mode=more[0])
    elif op == "compares":
        Reg.Compares(masks[m1], regs[r0], more[0], masks[m0], mode=rs.CMPMODE.GT)
    elif op == "select":
        Reg.Select(regs[r0], regs[r1], regs[r2], masks[m0])
    elif op == "muls":
        Reg.Muls(regs[r0], regs[r1], more[0], masks[m0])
    elif op == "duplicate":
        if more[1] is None:
            Reg.Duplicate(regs[r0], more[0])
        else:
            Reg.Duplicate(regs[r0], more[0], masks[m0], mode=more[1])
    elif op == "reduce":
        Reg.Reduce(regs[r0], regs[r1], masks[m0], type=Reg.ReduceType.SUM)
    else:
        Reg.LocalMemBar(src=Reg.MemType.VEC_STORE, dst=Reg.MemType.VEC_LOAD)


def _run(seed: int, dtype: type[rs.DType], trait: Reg.RegTrait, fill: str, check: bool) -> list[Any]:
    """The state after each call of the program, and what each call raised."""
    w = World(seed, dtype, trait)
    trail: list[Any] = []
    with rs.configure(mask_fill=fill, check_uninitialized=check, loops="sequential"), rs.VEC_SCOPE():  # type: ignore[arg-type]
        for call in _program(seed, dtype):
            try:
                _apply(w, call)
                trail.append(None)
            except rs.errors.RegsimError as e:
                trail.append((type(e).__name__, str(e)))
            trail.append(w.state())
    return trail


def _same(x: Any, y: Any) -> bool:
    if isinstance(x, list):
        return len(x) == len(y) and all(_same(a, b) for a, b in zip(x, y, strict=True))
    if isinstance(x, np.ndarray):
        return isinstance(y, np.ndarray) and x.dtype == y.dtype and np.array_equal(x, y)
    return bool(x == y)


@pytest.mark.parametrize(("dtype", "trait"), TYPES, ids=lambda x: x.name if isinstance(x, type) else repr(x))
@pytest.mark.parametrize(("fill", "check"), [("lsb", True), ("group", True), ("lsb", False)])
def test_fast_paths_match_the_generic_run(
    generic_only: Callable[[bool], None], dtype: type[rs.DType], trait: Reg.RegTrait, fill: str, check: bool
) -> None:
    raised = 0
    for seed in range(6):
        generic_only(False)
        want = _run(seed, dtype, trait, fill, check)
        generic_only(True)
        got = _run(seed, dtype, trait, fill, check)
        for step, (g, e) in enumerate(zip(got, want, strict=True)):
            assert _same(g, e), f"seed {seed}, step {step // 2} ({'state' if step % 2 else 'error'}): {g!r} != {e!r}"
        raised += sum(1 for x in want[::2] if x is not None)
    assert raised > 0  # the programs reach the error paths too


def test_the_closures_are_in_use() -> None:
    """The calls of the AddVF and CompareVF examples (UpdateMask, CreateMask, aligned loads and stores, post-update
    ones too, Add with a carry out, Compare, Compares, Select) run through specialised closures, not the generic
    binding."""
    from vf_examples import add_carry_vf, compare_vf

    _clear_plans()
    with rs.configure(loops="sequential"):
        add_carry_vf.run()
        compare_vf.run()
    names = ("UpdateMask", "CreateMask", "LoadAlign", "Add", "StoreAlign", "Compare", "Compares", "Select")
    used = {name: {call.__qualname__.split(".")[0] for call in REGISTRY.entry(name)._calls.values()} for name in names}
    assert all(kinds and "Overloads" not in kinds for kinds in used.values()), used  # (`Overloads._plan`'s generic)
