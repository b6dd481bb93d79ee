"""The first-n elementwise lowering's common case, run at once: what `binary_continuous_vf`'s iterations together
compute, in one call of its Reg op's lane function.

`binary_continuous_vf(op, dst, src0, src1, n)` over a Reg op of the elementwise shape (`dst = lane(src0, src1)` on the
active lanes, ZEROING) makes, for each register i of the first n elements, `UpdateMask` (the lanes left, up to a
register), a whole-register `LoadAlign` of each source, the op and a `StoreAlign` of the active lanes: dst's first n
elements become `lane(src0[:n], src1[:n])` and no other byte changes, when no iteration reads what an earlier one
stored. `run_binary` computes that directly where nothing else could tell the two apart, and otherwise returns False,
leaving the call to the skeleton (so every check and message stays the skeleton's). It runs only when:

- the op's overload for registers of T is an `Elementwise` executor over the two source registers (no carry out),
  T is one register wide (b8, b16, b32; not complex32), and n > 0;
- no `rs.trace` (nor `rs.profile`, which traces) and no `rs.explain` records: they record the loop's Reg calls;
- each source's registers lie inside the UB, and each source is dst itself or disjoint from the bytes dst gets;
- every source byte the active lanes read was written (when the uninitialised-read check is on).

A kernel's pipes see the accesses the batched loop reports (the registers each source's loads read, the n elements
the stores write), inside a VF scope (one V instruction); should they report a race, the skeleton runs and raises
it as the loop does (the loads reported before it stay in the pipes' record). The outermost memory-level call
writes dst without a journal record: the write is its last act, after every check (`checks.outermost`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from regsim._src.engine.executors.elementwise import Elementwise
from regsim._src.engine.spec import FACES, REGISTRY, Kind
from regsim._src.lowerings.checks import outermost
from regsim._src.model import dtypes as dt
from regsim._src.model.config import current_config
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.memory import LocalTensor
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.vf.loops import explaining
from regsim._src.vf.runtime import on_core
from regsim._src.vf.trace import current_trace
from regsim.errors import RegsimError

Lane = tuple[Callable[..., Any], bool] | None
_LANES: Final[dict[tuple[object, object], Lane]] = {}


def _lane(op: Callable[..., None], dtype: type[dt.DType]) -> Lane:
    """The lane function of Reg op `op` on one-register tensors of `dtype` and whether it takes `ctrl=` (found once
    per op and dtype); None where the op is not of the elementwise shape over two source registers (or refuses the
    dtype: the skeleton says so)."""
    key = (op, dtype)
    if key not in _LANES:
        _LANES[key] = _find_lane(op, dtype)
    return _LANES[key]


def _find_lane(op: Callable[..., None], dtype: type[dt.DType]) -> Lane:
    name = getattr(op, "__name__", "")
    if dtype.itemsize not in (1, 2, 4) or dtype is dt.complex32 or FACES.get(name) is not op:
        return None
    args = (RegTensor(dtype), RegTensor(dtype), RegTensor(dtype), MaskReg())
    kwargs = {"mode": MaskMergeMode.ZEROING}
    try:
        spec = REGISTRY.entry(name).resolve(args, kwargs)
        plan = spec.validate(spec.bind(args, kwargs))
    except RegsimError:
        return None
    executor, p = spec.executor, plan.prepared
    kinds = tuple(kind for _, _, kind in p.inputs)
    if type(executor) is not Elementwise or kinds != (Kind.REG, Kind.REG) or p.predicates_out or spec.lane is None:
        return None
    return spec.lane, executor.ctrl


def run_binary(
    api: str, op: Callable[..., None], dst: LocalTensor[Any], src0: LocalTensor[Any], src1: LocalTensor[Any], n: int
) -> bool:
    """dst[:n] = op's lane(src0[:n], src1[:n]), as `binary_continuous_vf` computes it, when the call is the common case
    (the module's conditions; the tensors are checked: one dtype, one UB, 32-byte aligned, n within each); False
    (nothing done) otherwise."""
    lane = _lane(op, dst.dtype)
    if lane is None or n <= 0 or current_trace() is not None or explaining():
        return False
    ub, w = dst.ub, dst.dtype.itemsize
    st = ub.storage
    d, size = dst.addr, n * w
    loaded = -(-size // VL) * VL  # the bytes each source's registers read
    config = current_config()
    if loaded // VL > config.max_loop_iterations:
        return False
    for s in (src0.addr, src1.addr):
        if s + loaded > ub.size or (s != d and s < d + size and d < s + loaded):
            return False
        if config.check_uninitialized and not st.all_written(s, s + size):
            return False
    np_dtype = dst.dtype.np_dtype
    with on_core(ub.core) as ctx:
        if ub.observer is not None:
            try:
                for t in (src0, src1):
                    ub.observer("read", "LoadAlign", t.addr, t.addr + loaded, within=(t.addr, t.addr + t.nbytes))
                ub.observer("write", "StoreAlign", d, d + size)
            except RegsimError:
                return False
        a, b = (st.data[t.addr : t.addr + size].view(np_dtype) for t in (src0, src1))
        a.flags.writeable = b.flags.writeable = False  # (as the lane function's register views)
        f, ctrl = lane
        out = f(a, b, ctrl=ctx.ctrl) if ctrl else f(a, b)
        if ub.journal is not None and not outermost():
            ub.journal.record(d, d + size, d + dst.nbytes)
        st.data[d : d + size].view(np_dtype)[...] = out
        st.mark_stored(d, d + size)
    return True
