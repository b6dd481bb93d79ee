"""Nothing stray, nothing hung: a small tier of bench/registry_fuzz.py (every Reg op of the registry, every
memory-level API, every C API function, with random valid and invalid arguments, in both loop modes), and the
defects it found, each pinned by a test of its own.

The bench script's default run also draws memory-level and C API calls whose arguments do not bind (missing,
extra, unknown keywords); this tier draws only calls that bind."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from registry_fuzz_support import rf

import regsim as rs
from regsim import Reg
from regsim.errors import DTypeError, ParameterError, RegsimError

A = rs.AscendC

#: rs.AscendC names that set or read core state rather than run a lowering
_STATE = {"SetMaskCount", "SetMaskNorm", "SetVectorMask", "ResetMask", "SetDeqScale", "GetReduceRepeatSumSpr"}


def memory_apis() -> set[str]:
    """Every memory-level API of rs.AscendC (the names the lowerings define)."""
    names = set()
    for n in A.__all__:
        obj = getattr(A, n)
        module = getattr(obj, "__module__", "") if callable(obj) and not isinstance(obj, type) else ""
        if module.startswith("regsim._src.lowerings.") and n not in _STATE:
            names.add(n)
    return names


def test_the_fuzz_draws_every_memory_level_api() -> None:
    assert set(rf.MEMORY_FORMS) == memory_apis(), set(rf.MEMORY_FORMS) ^ memory_apis()


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_fuzz_tier(loops: str) -> None:
    """2,000 calls a loop mode (the fuzz also switches modes per call): none stray, none hung."""
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        fz = rf.fuzz(2000, seed=2026 if loops == "auto" else 7, unbound=False)
    assert not fz.strays, "\n".join(f"{n} x {k}\n{fz.examples[k]}" for k, n in fz.strays.items())
    assert not fz.hangs, dict(fz.hangs)
    assert fz.outcomes["ok"] > 400 and fz.outcomes["refused"] > 400, fz.outcomes


# --- what the fuzz found ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("cls", [Reg.MaskReg, Reg.UnalignRegForLoad, Reg.UnalignRegForStore, Reg.AddrReg, rs.Ref])
@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_a_class_for_its_instance_is_refused(cls: Any, loops: str) -> None:
    """A class passed where its instance belongs is a ParameterError, also once the instances' signature has a
    cached plan (the class used to share its instances' plan-cache key, and a MaskReg class given as a
    destination had its slots overwritten)."""
    src = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.float32))
    m = Reg.MaskReg.from_bits(np.ones(256, np.bool_))
    with rs.configure(loops=loops), rs.VEC_SCOPE():  # type: ignore[arg-type]
        dst = Reg.RegTensor(rs.float32)
        Reg.Abs(dst, src, m)  # the signature (RegTensor, RegTensor, MaskReg) is cached
        with pytest.raises(ParameterError, match="Abs"):
            Reg.Abs(dst, src, cls)
        with pytest.raises(ParameterError):
            Reg.Not(cls, m, m)
        assert np.array_equal(dst.numpy(), np.arange(64, dtype=np.float32))
    assert not Reg.MaskReg.from_bits(np.zeros(256, np.bool_)).bits().any()  # the class still works


@pytest.mark.parametrize("loops", ["sequential", "auto"])
def test_register_gather_refuses_two_registers(loops: str) -> None:
    """The register Gather's page: b8, b16, b32 data in one register; a RegTraitNumTwo complex32 is a DTypeError
    naming src_reg (it was a numpy ValueError), and dst is unchanged."""
    two = Reg.RegTraitNumTwo
    data = (np.arange(128) + 1j).astype(rs.complex32.np_dtype)
    with rs.configure(loops=loops), rs.VEC_SCOPE():  # type: ignore[arg-type]
        src = Reg.RegTensor.from_numpy(data, dtype=rs.complex32, trait=two)
        dst = Reg.RegTensor.from_numpy(data[::-1].copy(), dtype=rs.complex32, trait=two)
        idx = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
        with pytest.raises(DTypeError, match=r"Gather: src_reg .*RegTraitNumTwo"):
            Reg.Gather(dst, src, idx)
        assert np.array_equal(dst.numpy(), data[::-1])


def test_fuzz_counts_a_stray_and_a_hang() -> None:
    """The fuzz's own bookkeeping: a non-regsim exception is a stray, a call past the limit a hang."""
    fz = rf.Fuzzer(0, limit=0.2)
    import signal

    signal.signal(signal.SIGALRM, rf._alarm)

    def stray() -> None:
        raise KeyError("x")

    def refused() -> None:
        raise ParameterError("refused")

    def hang() -> None:
        while True:
            pass

    for what, call in (("stray", stray), ("refused", refused), ("hang", hang)):
        fz.run(what, call)
    assert list(fz.strays) == ["stray: KeyError: 'x'"] and list(fz.hangs) == ["hang"]
    assert fz.outcomes == {"refused": 1} and fz.calls == 3
    assert issubclass(ParameterError, RegsimError)
