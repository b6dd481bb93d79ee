"""Synchronisation and special registers (the Ascend C `LocalMemBar` and `ClearSpr` pages):
LocalMemBar accepts exactly the 12 documented (src, dst) pipe pairs and changes nothing;
ClearSpr<AR> zeroes the core's AR, which Squeeze with GatherMaskMode STORE_REG adds to."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim.testing import reference as O

MEM = list(Reg.MemType)
AR = rs.AscendC.SpecialPurposeReg.AR


@pytest.mark.parametrize(("src", "dst"), list(itertools.product(MEM, MEM)), ids=lambda m: m.name)
def test_local_mem_bar_pairs(src, dst):
    """The 12 pairs of the page's table are accepted (and leave registers as they were); any
    other pair is a ParameterError naming both, as C++ refuses to compile it."""
    reg = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int32))
    with rs.VEC_SCOPE():
        if O.local_mem_bar_oracle(src.name, dst.name):
            Reg.LocalMemBar(src=src, dst=dst)
            assert (reg.numpy() == np.arange(64)).all()
        else:
            with pytest.raises(rs.errors.ParameterError) as err:
                Reg.LocalMemBar(src=src, dst=dst)
            assert "LocalMemBar" in str(err.value) and src.name in str(err.value) and "VEC_STORE" in str(err.value)


def test_local_mem_bar_needs_both_pipes_and_a_vf():
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.ParameterError, match="dst"):
        Reg.LocalMemBar(src=Reg.MemType.VEC_STORE)  # type: ignore[call-arg]
    with pytest.raises(rs.errors.VfContextError, match="LocalMemBar"):
        Reg.LocalMemBar(src=Reg.MemType.VEC_STORE, dst=Reg.MemType.VEC_LOAD)


@rs.simd_vf
def _ar_vf(x: rs.UbPtr[rs.int16], events: list[object]) -> None:
    reg, out = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int16)
    Reg.LoadAlign(reg, x)
    for e in events:
        if e == "clear":
            Reg.ClearSpr(spr=AR)
        else:
            Reg.Squeeze(out, reg, Reg.CreateMask(rs.int16, pattern=e), store=Reg.GatherMaskMode.STORE_REG)


PATTERN_BYTES = {Reg.MaskPattern.VL16: 32, Reg.MaskPattern.H: 128, Reg.MaskPattern.ALLF: 0, Reg.MaskPattern.ALL: 256}


@pytest.mark.parametrize(
    "events",
    [
        ["clear", Reg.MaskPattern.VL16, Reg.MaskPattern.H],
        [Reg.MaskPattern.ALL, "clear", Reg.MaskPattern.VL16, Reg.MaskPattern.ALLF, "clear", Reg.MaskPattern.H],
        [Reg.MaskPattern.ALL, Reg.MaskPattern.ALL, "clear"],
    ],
)
def test_clear_spr_and_squeeze_on_the_cores_ar(events):
    """AR against the oracle's model; AR lives on the UB (the core), so it carries from one VF to
    the next started with a pointer into that UB."""
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.int16, 128)
    x.set(np.arange(128, dtype=np.int16))
    rs.asc_vf_call(_ar_vf, x.GetPhyAddr(), events)
    counts = [e if e == "clear" else PATTERN_BYTES[e] for e in events]  # type: ignore[index]
    assert ub.core.ar == O.ar_oracle(counts)
    rs.asc_vf_call(_ar_vf, x.GetPhyAddr(), [Reg.MaskPattern.VL16])
    assert ub.core.ar == O.ar_oracle([*counts, 32])


def test_clear_spr_rules():
    """Only SpecialPurposeReg AR, only inside a VF; a VEC_SCOPE without pointers has its own AR."""
    with pytest.raises(rs.errors.VfContextError, match="ClearSpr"):
        Reg.ClearSpr(spr=AR)
    with rs.VEC_SCOPE():
        with pytest.raises(rs.errors.ParameterError, match="spr"):
            Reg.ClearSpr(spr=Reg.MemType.VEC_ALL)  # type: ignore[arg-type]
        Reg.ClearSpr(spr=AR)
