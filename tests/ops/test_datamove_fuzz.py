"""Fuzz of the data-movement API: random calls, valid and invalid (dtypes, distributions, address
forms, offsets, strides, masks, index values, stream misuse). Every call either succeeds or raises
a `RegsimError`; a refused call changes no UB byte (nor its written flag) and moves no pointer;
a successful load writes no UB byte and a successful store writes only inside its tensor.

2,000 calls run by default; `REGSIM_SLOW=1` also runs 100,000 (`REGSIM_FUZZ_CALLS` overrides
the default count)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.model.dtypes import EVERY_DTYPE
from regsim.errors import RegsimError

UB_SIZE = 8192
DTYPES = [d for d in EVERY_DTYPE]  # every dtype, valid or not for a given op (double too)
TWO = (rs.int64, rs.uint64, rs.float64, rs.complex64, rs.complex32)
LOAD_DISTS = list(Reg.LoadDist)
STORE_DISTS = list(Reg.StoreDist)
#: valid (dst, src, index) Gather triples, drawn most of the time so most gathers get past the dtype checks
TRIPLES = [
    (rs.int16, rs.int8, rs.uint16), (rs.uint16, rs.uint8, rs.uint16), (rs.half, rs.half, rs.uint16),
    (rs.float32, rs.float32, rs.uint32), (rs.int64, rs.int64, rs.uint32), (rs.uint64, rs.uint64, rs.uint64),
]  # fmt: skip
POST = [Reg.PostLiteral.POST_MODE_UPDATE, Reg.PostLiteral.POST_MODE_NORMAL]


class Fuzzer:
    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.outcomes = {"ok": 0, "refused": 0}
        self.new_ub()

    def new_ub(self) -> None:
        r = self.rng
        self.ub = rs.UnifiedBuffer(size=UB_SIZE)
        self.tensors = []
        while True:
            dtype = DTYPES[r.integers(len(DTYPES))]
            count = int(r.integers(1, 700))
            if self.ub._next + count * dtype.itemsize > UB_SIZE - 64:
                break
            t = self.ub.alloc(dtype, count)
            if r.random() < 0.9:  # some tensors stay never-written
                n = int(r.integers(1, count + 1))
                t.set(r.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype.np_dtype), cast=True)
            self.tensors.append(t)

    # --- random operands ------------------------------------------------------------------------
    def dtype(self) -> Any:
        return DTYPES[self.rng.integers(len(DTYPES))]

    def dist(self, table: list[Any], dtype: Any) -> Any:
        """A distribution, of the dtype's width (or NORM) most of the time."""
        bits = f"_B{8 * dtype.itemsize}"
        fitting = [m for m in table if m.name.endswith(bits) or m.name == "DIST_NORM"]
        pool = fitting if self.rng.random() < 0.7 else table
        return pool[self.rng.integers(len(pool))]

    def trait(self, dtype: Any) -> Any:
        return Reg.RegTraitNumTwo if dtype in TWO and self.rng.random() < 0.4 else Reg.RegTraitNumOne

    def ptr(self, dtype: Any) -> rs.UbPtr[Any]:
        t = self.tensors[self.rng.integers(len(self.tensors))]
        p = t.GetPhyAddr().reinterpret(dtype)
        span = t.nbytes // dtype.itemsize + 64
        off = (
            int(self.rng.integers(-8, span))
            if self.rng.random() < 0.3
            else int(self.rng.integers(0, 8)) * (32 // dtype.itemsize or 1)
        )
        try:
            return p + off
        except RegsimError:
            return p

    def reg(self, dtype: Any, trait: Any = Reg.RegTraitNumOne) -> Any:
        reg = Reg.RegTensor(dtype, trait)
        if self.rng.random() < 0.95:
            raw = self.rng.integers(0, 256, 256 * trait.REG_NUM, dtype=np.uint8)
            reg = Reg.RegTensor.from_numpy(raw.view(dtype.np_dtype), dtype=dtype, trait=trait, cast=True)
        return reg

    def mask(self) -> Reg.MaskReg:
        r = self.rng.random()
        bits = np.ones(256, bool) if r < 0.3 else np.zeros(256, bool) if r < 0.4 else self.rng.random(256) < self.rng.random()
        return Reg.MaskReg.from_bits(bits)

    def stride(self) -> int:
        return int(self.rng.choice([0, 1, 8, 16, 32, 64, 128, -64, 2**31, -1, 70000]))

    def index(self, dtype: Any, limit: int) -> Any:
        n = 256 // dtype.itemsize
        values = self.rng.integers(0, max(limit, 1), n) if self.rng.random() < 0.8 else self.rng.integers(0, 2 * limit + 2, n)
        return Reg.RegTensor.from_numpy(values.astype(dtype.np_dtype))

    # --- calls -------------------------------------------------------------------------------------
    def call(self) -> tuple[Callable[[], None], str, rs.UbPtr[Any] | None, bool]:
        """A random call: (thunk, what, its pointer, whether it may write the UB)."""
        r = self.rng
        kind = r.integers(10)
        d = self.dtype()
        tr = self.trait(d)
        p = self.ptr(d)
        if kind == 0:  # LoadAlign, any distribution and form
            dist = self.dist(LOAD_DISTS, d)
            reg = Reg.RegTensor(d, tr)
            form = r.integers(3)
            if form == 0:
                return (lambda: Reg.LoadAlign(reg, p, dist=dist)), f"LoadAlign {d!r} {dist.name}", p, False
            if form == 1:
                s = self.stride()
                return (lambda: Reg.LoadAlign(reg, p, s, post_mode=POST[r.integers(2)], dist=dist)), "LoadAlign post", p, False
            a = Reg.CreateAddrReg(d, int(r.integers(0, 8)), int(r.integers(0, 64)))
            return (lambda: Reg.LoadAlign(reg, p, a, dist=dist)), f"LoadAlign areg {d!r} {dist.name}", p, False
        if kind == 1:  # StoreAlign
            dist = self.dist(STORE_DISTS, d)
            reg, m = self.reg(d, tr), self.mask()
            if r.random() < 0.5:
                return (lambda: Reg.StoreAlign(p, reg, m, dist=dist)), f"StoreAlign {d!r} {dist.name}", p, True
            s = self.stride()
            return (
                (lambda: Reg.StoreAlign(p, reg, s, m, post_mode=Reg.PostLiteral.POST_MODE_UPDATE, dist=dist)),
                "StoreAlign post",
                p,
                True,
            )
        if kind == 2:  # dual forms
            a, b = self.reg(d, tr), self.reg(d, tr)
            if r.random() < 0.5:
                dist = LOAD_DISTS[r.integers(len(LOAD_DISTS))]
                return (lambda: Reg.LoadAlign(a, b, p, dist=dist)), f"LoadAlign dual {d!r} {dist.name}", p, False
            sd = STORE_DISTS[r.integers(len(STORE_DISTS))]
            m = self.mask()
            return (lambda: Reg.StoreAlign(p, a, b, m, dist=sd)), f"StoreAlign dual {d!r} {sd.name}", p, True
        if kind == 3:  # DATA_BLOCK_COPY
            reg, m = self.reg(d, tr), self.mask()
            bs, rp = int(r.choice([0, 1, 2, 5, 70000])), int(r.integers(0, 20))
            mode = Reg.DataCopyMode.DATA_BLOCK_COPY
            post = POST[r.integers(2)]
            if r.random() < 0.5:
                return (lambda: Reg.LoadAlign(reg, p, bs, rp, m, data_mode=mode, post_mode=post)), f"block load {d!r}", p, False
            return (lambda: Reg.StoreAlign(p, reg, bs, m, data_mode=mode)), f"block store {d!r}", p, True
        if kind == 4:  # Gather
            dst_t, src_t, idx_t = TRIPLES[r.integers(len(TRIPLES))] if r.random() < 0.8 else (self.dtype(), d, rs.uint32)
            p = self.ptr(src_t)
            dst, idx, m = Reg.RegTensor(dst_t, self.trait(dst_t)), self.index(idx_t, 300), self.mask()
            return (lambda: Reg.Gather(dst, p, idx, m)), f"Gather {dst.dtype!r} <- {d!r} by {idx_t!r}", p, False
        if kind == 5:  # Scatter
            _, d, idx_t = TRIPLES[r.integers(len(TRIPLES))] if r.random() < 0.8 else (d, d, rs.uint16)
            p, tr = self.ptr(d), self.trait(d)
            src, idx, m = self.reg(d, tr), self.index(idx_t, 300), self.mask()
            return (lambda: Reg.Scatter(p, src, idx, m)), f"Scatter {d!r} by {idx_t!r}", p, True
        if kind == 6:  # GatherB
            dst, m = Reg.RegTensor(d, tr), self.mask()
            offs = Reg.RegTensor.from_numpy((r.integers(0, 40, 64) * int(r.choice([32, 32, 32, 8]))).astype(np.uint32))
            return (lambda: Reg.GatherB(dst, p, offs, m)), f"GatherB {d!r}", p, False
        if kind == 7:  # Load / Store
            reg = self.reg(d, tr)
            if r.random() < 0.5:
                return (lambda: Reg.Load(reg, p)), f"Load {d!r}", p, False
            c = int(r.integers(0, 300))
            return (lambda: Reg.Store(p, reg, c)), f"Store {d!r} {c}", p, True
        if kind == 8:  # a MaskReg load or store
            m = self.mask()
            if r.random() < 0.5:
                md = [Reg.MaskDist.DIST_NORM, Reg.MaskDist.DIST_US, Reg.MaskDist.DIST_DS][r.integers(3)]
                return (lambda: Reg.LoadAlign(m, p, dist=md)), f"mask LoadAlign {md.name}", p, False
            return (
                (lambda: Reg.StoreAlign(p, m, dist=[Reg.MaskDist.DIST_NORM, Reg.MaskDist.DIST_PACK][r.integers(2)])),
                "mask StoreAlign",
                p,
                True,
            )
        # an unaligned stream, sometimes misused: run as one call sequence
        reg = self.reg(d, tr)
        n = int(r.integers(1, 4))
        strides = [int(r.choice([0, 16, 64, 128, 256 // d.itemsize, 300])) for _ in range(n)]
        flush = r.random() < 0.85
        pre = r.random() < 0.9

        def stream() -> None:
            u, w = Reg.UnalignRegForLoad(), Reg.UnalignRegForStore()
            src = p.copy()
            if pre:
                Reg.LoadUnAlignPre(u, src)
            for s in strides:
                Reg.LoadUnAlign(reg, u, src, s)
                Reg.StoreUnAlign(p, reg, w, s)
            if flush:
                Reg.StoreUnAlignPost(p, w, 0)

        return stream, f"unaligned stream {d!r} {strides} pre={pre} flush={flush}", p, True

    def step(self) -> None:
        st = self.ub.storage
        data = st.data.copy()
        valid = None if st.valid is None else st.valid.copy()
        what, ptr, addr, writes = "?", None, None, False
        try:
            with rs.VEC_SCOPE():
                thunk, what, ptr, writes = self.call()  # (AddrRegs are made inside a VF)
                addr = None if ptr is None else ptr.addr
                thunk()
        except RegsimError:
            self.outcomes["refused"] += 1
            if "stream" not in what:  # a stream's earlier calls may have succeeded before the refusal
                assert np.array_equal(st.data, data), f"{what}: a refused call wrote UB bytes"
                assert valid is None or st.valid is None or np.array_equal(st.valid, valid), f"{what}: flags changed"
                assert ptr is None or ptr.addr == addr, f"{what}: a refused call moved its pointer"
            return
        self.outcomes["ok"] += 1
        changed = np.flatnonzero(st.data != data)
        if not writes:
            assert changed.size == 0, f"{what}: a load wrote UB bytes {changed[:8]}"
        elif changed.size:
            assert ptr is not None and ptr.lo <= changed[0] and changed[-1] < ptr.hi, (
                f"{what}: wrote UB bytes [{changed[0]}, {changed[-1]}] outside its tensor [{ptr.lo}, {ptr.hi})"
            )


def fuzz(calls: int, seed: int) -> dict[str, int]:
    f = Fuzzer(seed)
    for i in range(calls):
        if i % 500 == 499:
            f.new_ub()
        f.step()
    return f.outcomes


def test_fuzz_data_movement() -> None:
    outcomes = fuzz(int(os.environ.get("REGSIM_FUZZ_CALLS", "2000")), seed=2026)
    assert outcomes["ok"] > 100 and outcomes["refused"] > 100, outcomes


@pytest.mark.skipif(not os.environ.get("REGSIM_SLOW"), reason="slow tier: set REGSIM_SLOW=1 (100,000 calls)")
def test_fuzz_data_movement_100k() -> None:
    outcomes = fuzz(100_000, seed=9)
    assert outcomes["ok"] > 10_000 and outcomes["refused"] > 10_000, outcomes
