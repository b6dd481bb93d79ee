"""Synchronisation and special registers (the LocalMemBar and ClearSpr pages of the Reg API).

regsim runs a VF's instructions one after another, each complete before the next starts, so
every ordering `LocalMemBar` asks for already holds: it validates its pipe pair and does
nothing else. `ClearSpr<AR>` zeroes the AR special register of the VF's core, which
`Squeeze<T, GatherMaskMode::STORE_REG>` adds its byte counts to.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Literal

from regsim._src.engine.context import vf_context
from regsim._src.engine.executors import Barrier, ClearSpecial
from regsim._src.engine.spec import DOC, Batching, CName, OpSpec, enum_param, face, register
from regsim._src.model.enums import MEM_TYPE, MemType, SpecialPurposeReg

VS, VL, SS, SL, VA, SA = (
    MemType.VEC_STORE,
    MemType.VEC_LOAD,
    MemType.SCALAR_STORE,
    MemType.SCALAR_LOAD,
    MemType.VEC_ALL,
    MemType.SCALAR_ALL,
)
#: the (src, dst) pipe pairs LocalMemBar accepts (the page's table; any other does not compile)
MEM_BAR_PAIRS: Final = frozenset(
    {(VS, VL), (VL, VS), (VS, VS), (VS, SL), (VS, SS), (VL, SS), (SS, VL), (SS, VS), (SL, VS), (VA, VA), (VA, SA), (SA, VA)}
)

_PIPES: Final = {"V": VA, "VST": VS, "VLD": VL, "S": SA, "ST": SS, "LD": SL}


def _pair(member: MEM_TYPE) -> tuple[MemType, MemType]:
    """`VST_VLD` → (VEC_STORE, VEC_LOAD); `VS_ALL` → (VEC_ALL, SCALAR_ALL) (the page's table 2)."""
    src, dst = member.name.split("_")
    if dst == "ALL":
        return _PIPES[src[0]], _PIPES[src[1]]
    return _PIPES[src], _PIPES[dst]


def _mem_bar(name: str, args: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """`asc_mem_bar(mem_type)`: LocalMemBar of the pair; the four scalar-to-scalar pairs (SS_ALL, ST_LD,
    LD_ST, ST_ST), which LocalMemBar does not offer, order accesses regsim already runs in order: nothing."""
    src, dst = _pair(args["mem_type"])
    if (src, dst) not in MEM_BAR_PAIRS:
        vf_context(name)
        return None
    return {"src": src, "dst": dst}


register(
    OpSpec(
        "LocalMemBar",
        "",
        "sync",
        (enum_param("src", MemType), enum_param("dst", MemType)),
        Barrier(MEM_BAR_PAIRS),
        "the dst pipe waits for every earlier src-pipe access (already so in a sequential model: no effect)",
        DOC + "同步控制/LocalMemBar.md",
        Batching.STATEFUL,
        c_api=CName("asc_mem_bar", ("mem_type",), c_params=(("mem_type", MEM_TYPE),), derive=_mem_bar),
    )
)
register(
    OpSpec(
        "ClearSpr",
        "",
        "sync",
        (enum_param("spr", SpecialPurposeReg, accepted=(SpecialPurposeReg.AR,)),),
        ClearSpecial(),
        "AR = 0  (the core's AR special register)",
        DOC + "系统变量访问/ClearSpr.md",
        Batching.SEQUENTIAL,
        sequential_reason="it resets the core's AR register, which the Squeeze calls between resets add to in order",
        c_api=CName("asc_clear_ar_spr", (), (("spr", SpecialPurposeReg.AR),)),
    )
)


@face("LocalMemBar")
def LocalMemBar(*, src: MemType, dst: MemType) -> None:
    """`LocalMemBar<MemType src, MemType dst>()`: one of the 12 documented pairs, else a ParameterError."""


@face("ClearSpr")
def ClearSpr(*, spr: Literal[SpecialPurposeReg.AR]) -> None:
    """`ClearSpr<SpecialPurposeReg::AR>()` (inside a VF)."""
