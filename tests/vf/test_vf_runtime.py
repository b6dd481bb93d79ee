"""The VF runtime (simd_vf, simd_callee, asc_vf_call, VF_CALL, VEC_SCOPE; docs/api.md): the ways
to run a VF, by-value UbPtr arguments, __simd_callee__ rules, scoping."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim.errors import VfContextError

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


def _setup():
    ub = rs.UnifiedBuffer(4096)
    src = ub.alloc(rs.int32, 256)
    src.set(np.arange(256, dtype=np.int32))
    dst = ub.alloc(rs.int32, 256)
    dst.set(np.zeros(256, np.int32))
    return ub, src, dst


def copy_body(dst: rs.UbPtr, src: rs.UbPtr, count: int, out: dict) -> None:
    """Copies `count` int32 with post-updating loads and stores (moving its own pointers)."""
    reg = Reg.RegTensor(rs.int32)
    n = rs.Ref(count)
    for _ in range((count + 63) // 64):
        mask = Reg.UpdateMask(rs.int32, n)
        Reg.LoadAlign(reg, src, 64, post_mode=UPDATE)
        Reg.StoreAlign(dst, reg, 64, mask, post_mode=UPDATE)
    out["reg"], out["mask"], out["n"] = reg, mask, n.value
    out["inner"] = (src.addr, dst.addr)


copy_vf = rs.simd_vf(copy_body)


@pytest.mark.parametrize("how", ["decorated", "asc_vf_call", "asc_vf_call keywords", "VF_CALL", "VEC_SCOPE"])
def test_every_way_to_run_a_vf(how):
    _, src, dst = _setup()
    sp, dp = src.GetPhyAddr(), dst.GetPhyAddr()
    out: dict = {}
    if how == "decorated":
        copy_vf(dp, sp, 200, out)
    elif how == "asc_vf_call":
        rs.asc_vf_call(copy_vf, dp, sp, 200, out)
    elif how == "asc_vf_call keywords":
        rs.asc_vf_call(copy_vf, dp, sp, count=200, out=out)
    elif how == "VF_CALL":
        rs.AscendC.VF_CALL(copy_vf, dp, sp, 200, out)
    else:
        with rs.VEC_SCOPE():
            copy_body(dp, sp, 200, out)
    assert list(dst.numpy()) == list(range(200)) + [0] * 56
    # the VF's own pointers moved by 4 * 64 elements
    assert out["inner"] == (src.addr + 4 * 256, dst.addr + 4 * 256)
    if how == "VEC_SCOPE":  # a block is not a call: the same pointer objects moved
        assert (sp.addr, dp.addr) == out["inner"]
    else:  # VF arguments are passed by value: the caller's pointers did not move
        assert (sp.addr, dp.addr) == (src.addr, dst.addr)
    # registers may be read after the VF ends
    assert list(out["reg"].numpy()) == list(range(192, 256))
    assert out["mask"].lanes(rs.int32).sum() == 200 - 192 and out["n"] == 0


@pytest.mark.parametrize("call", [rs.asc_vf_call, rs.AscendC.VF_CALL], ids=["asc_vf_call", "VF_CALL"])
def test_only_a_simd_vf_function_runs_as_a_vf(call):
    """C++ compiles asc_vf_call<F> only for a __simd_vf__ F: a plain function (or a
    __simd_callee__ one) is a VfContextError, and nothing of it runs."""
    _, src, dst = _setup()
    out: dict = {}
    with pytest.raises(VfContextError, match=r"F = copy_body; accepted: a function decorated with @rs\.simd_vf"):
        call(copy_body, dst.GetPhyAddr(), src.GetPhyAddr(), 200, out)
    with pytest.raises(VfContextError, match="F = "):
        call(rs.simd_callee(copy_body), dst.GetPhyAddr(), src.GetPhyAddr(), 200, out)
    assert out == {} and not dst.numpy().any()


def test_post_update_outside_a_call_moves_the_callers_pointer_and_aliases():
    _, src, _ = _setup()
    p = src.GetPhyAddr()
    q = p
    r = p.copy()
    s = p + 0
    reg = Reg.RegTensor(rs.int32)
    with rs.VEC_SCOPE():
        Reg.LoadAlign(reg, p, 64, post_mode=UPDATE)
    assert p.addr == q.addr == src.addr + 256
    assert r.addr == s.addr == src.addr


@rs.simd_callee
def add_twice(dst, a, mask) -> None:
    Reg.Add(dst, a, a, mask)
    Reg.Add(dst, dst, a, mask)


def test_simd_callee_inside_and_outside():
    a = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int32))
    dst = Reg.RegTensor(rs.int32)
    full = Reg.MaskReg.from_lanes(rs.int32, np.ones(64, bool))
    with pytest.raises(VfContextError, match=r"add_twice.*outside a vector function"):
        add_twice(dst, a, full)
    with rs.VEC_SCOPE():
        add_twice(dst, a, full)
    assert list(dst.numpy()) == [3 * i for i in range(64)]


def test_reg_ops_only_inside_a_vf_and_scopes_do_not_nest():
    a = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int32))
    full = Reg.MaskReg.from_lanes(rs.int32, np.ones(64, bool))
    with pytest.raises(VfContextError, match="Add: called outside a vector function"):
        Reg.Add(Reg.RegTensor(rs.int32), a, a, full)
    with rs.VEC_SCOPE():
        with pytest.raises(VfContextError, match="VEC_SCOPE"):
            copy_vf(None, None, 0, {})  # starting a VF inside a VF
        Reg.Add(Reg.RegTensor(rs.int32), a, a, full)  # still inside: fine
    with pytest.raises(VfContextError):  # and outside again after the block
        Reg.Add(Reg.RegTensor(rs.int32), a, a, full)


def test_an_exception_inside_a_vf_ends_it():
    with pytest.raises(ZeroDivisionError), rs.VEC_SCOPE():
        _ = 1 // 0
    with pytest.raises(VfContextError):
        Reg.CreateMask(rs.int32)
    with rs.VEC_SCOPE():
        assert Reg.CreateMask(rs.int32).lanes(rs.int32).all()


def test_debug_accessors_work_anywhere(capsys):
    """Constructors and accessors need no VF (docs/api.md, "Registers")."""
    r = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
    m = Reg.MaskReg.from_lanes(rs.uint32, np.arange(64) < 3)
    r.Print()
    m.Print()
    out = capsys.readouterr().out
    assert out.startswith("RegTensor<uint32>\n0 1 2 3") and "MaskReg: 0x" in out and out.rstrip().endswith("111")
    assert r.reinterpret(rs.int32).numpy()[5] == 5 and m.lanes(rs.uint32).sum() == 3


def test_configure_applies_to_vfs_started_inside_it():
    with rs.configure(mask_fill="group"), rs.VEC_SCOPE():
        assert Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.VL1).bits()[:5].tolist() == [True] * 4 + [False]
    with rs.VEC_SCOPE():
        assert Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.VL1).bits()[:5].tolist() == [True] + [False] * 4


def test_aliases_are_the_same_objects():
    assert rs.MicroAPI is rs.Reg and rs.AscendC.Reg is rs.Reg and rs.AscendC.MicroAPI is rs.Reg
