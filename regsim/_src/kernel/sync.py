"""Synchronisation inside a core and across the grid: `SetFlag` / `WaitFlag` (the pages "SetFlag/WaitFlag(ISASI)"),
`PipeBarrier` (the page "PipeBarrier(ISASI)"), `SyncAll` (the page "SyncAll"), and what a block asks of the
grid: `GetBlockIdx`, `GetBlockNum`, `GetUserWorkspace`, `InitSocState`.
"""

from __future__ import annotations

from typing import Any, Final

from regsim._src.kernel.block import call_line, current_block
from regsim._src.kernel.gm import GlobalTensor, GmPtr
from regsim._src.kernel.pipes import AIV_EVENTS, EVENT_IDS, PIPE, PIPE_INDEX, HardEvent
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.enums import expected_member
from regsim._src.model.memory import LocalTensor
from regsim.errors import DTypeError, ParameterError, UnsupportedError, message

EVENT_ID0: Final = 0
EVENT_ID1: Final = 1
EVENT_ID2: Final = 2
EVENT_ID3: Final = 3
EVENT_ID4: Final = 4
EVENT_ID5: Final = 5
EVENT_ID6: Final = 6
EVENT_ID7: Final = 7


def _event(api: str, event: object, event_id: object) -> tuple[int, tuple[HardEvent, int], str]:
    """(the pipe the call acts on: SetFlag's source, WaitFlag's destination; the flag's key (event, id); the call's label
    `SetFlag<MTE2_V>(0)`)."""
    if not isinstance(event, HardEvent):
        raise ParameterError(message(api, "event", repr(event), expected_member(HardEvent, event, "A")))
    pipes = AIV_EVENTS.get(event)
    if pipes is None:
        raise UnsupportedError(
            message(
                api,
                "event",
                f"HardEvent.{event.name}",
                "an event between an AIV core's pipes S, V, MTE2, MTE3 (an AIV has no M, MTE1 or FIX pipe)",
            )
        )
    n = as_int(api, "event_id", event_id, EVENT_IDS.start, EVENT_IDS.stop - 1)
    known = (pipes[0] if api == "SetFlag" else pipes[1], (event, n), f"{api}<{event.name}>({n})")
    if type(event_id) is int:  # (a bool or numpy integer equal to a valid id goes the long way each time)
        _EVENTS[(api, event, event_id)] = known
    return known


#: `_event`'s answers, by (api, event, id), the id an int: SetFlag / WaitFlag look here first (the call seen before)
_EVENTS: dict[tuple[str, object, int], tuple[int, tuple[HardEvent, int], str]] = {}


@host_api("SetFlag")
def SetFlag(event_id: int, *, event: HardEvent) -> None:
    """`SetFlag<event>(eventID)`: once the source pipe's earlier instructions have finished, the flag is set."""
    known = _EVENTS.get(("SetFlag", event, event_id)) if type(event_id) is int and type(event) is HardEvent else None
    src, key, label = known or _event("SetFlag", event, event_id)
    current_block("SetFlag").pipes.set_flag(key, src, label, call_line(3))


@host_api("WaitFlag")
def WaitFlag(event_id: int, *, event: HardEvent) -> None:
    """`WaitFlag<event>(eventID)`: the destination pipe's later instructions start once the flag is set."""
    known = _EVENTS.get(("WaitFlag", event, event_id)) if type(event_id) is int and type(event) is HardEvent else None
    dst, key, label = known or _event("WaitFlag", event, event_id)
    current_block("WaitFlag").pipes.wait_flag(key, dst, label, call_line(3))


@host_api("PipeBarrier")
def PipeBarrier(*, pipe: PIPE) -> None:
    """`PipeBarrier<pipe>()`: the pipe's later instructions start after its earlier ones finished; PIPE_ALL:
    every pipe's after every earlier instruction."""
    if not isinstance(pipe, PIPE):
        raise ParameterError(message("PipeBarrier", "pipe", repr(pipe), expected_member(PIPE, pipe, "A")))
    if pipe is PIPE.PIPE_S:
        raise ParameterError(
            message("PipeBarrier", "pipe", "PIPE.PIPE_S", "not PIPE_S: the hardware keeps the scalar pipe in order (the page)")
        )
    if pipe is not PIPE.PIPE_ALL and pipe not in PIPE_INDEX:
        raise UnsupportedError(
            message("PipeBarrier", "pipe", f"PIPE.{pipe.name}", "PIPE_V, PIPE_MTE2, PIPE_MTE3 or PIPE_ALL (an AIV core's pipes)")
        )
    block = current_block("PipeBarrier")
    block.pipes.barrier(PIPE_INDEX.get(pipe), f"PipeBarrier<{pipe.name}>", call_line(3))


@host_api("SyncAll")
def SyncAll(
    gm_workspace: GlobalTensor[Any] | None = None,
    ub_workspace: LocalTensor[Any] | None = None,
    used_cores: int = 0,
    *,
    is_aiv_only: bool = True,
) -> None:
    """`SyncAll<isAIVOnly>()` (the hardware form) or `SyncAll(gmWorkspace, ubWorkspace, usedCores)` (the software
    form): every pipe of this core finishes what it was given (`PipeBarrier<PIPE_ALL>`), then the core waits
    until every block of the grid has reached its `SyncAll`. The software form takes every core (`usedCores`
    0 or `GetBlockNum()`) and checks its workspaces' types and sizes (`GetBlockNum() * 32` bytes each)."""
    block = current_block("SyncAll")
    if is_aiv_only is not True:
        raise ParameterError(
            message("SyncAll", "is_aiv_only", repr(is_aiv_only), "True for a vector kernel (the page: otherwise it hangs)")
        )
    if (gm_workspace is None) != (ub_workspace is None):
        raise ParameterError(
            message(
                "SyncAll",
                "gm_workspace, ub_workspace",
                "one of the two",
                "both (the software form) or neither (the hardware form)",
            )
        )
    if gm_workspace is not None and ub_workspace is not None:
        need = block.num * 8  # int32_t elements: 32 bytes a core
        if not isinstance(gm_workspace, GlobalTensor) or gm_workspace.dtype is not dt.int32:
            raise DTypeError(message("SyncAll", "gm_workspace", repr(gm_workspace), "a GlobalTensor[int32]"))
        if not isinstance(ub_workspace, LocalTensor) or ub_workspace.dtype is not dt.int32:
            raise DTypeError(message("SyncAll", "ub_workspace", repr(ub_workspace), "a LocalTensor[int32]"))
        lo, hi = gm_workspace.region
        if (hi - lo) // 4 < need or ub_workspace.size < need:
            raise ParameterError(
                message(
                    "SyncAll",
                    "gm_workspace, ub_workspace",
                    f"{(hi - lo) // 4} and {ub_workspace.size} elements",
                    f"at least GetBlockNum() * 8 = {need} each",
                )
            )
        if as_int("SyncAll", "used_cores", used_cores, 0) not in (0, block.num):
            raise UnsupportedError(
                message(
                    "SyncAll",
                    "used_cores",
                    used_cores,
                    f"0 or GetBlockNum() = {block.num} (a SyncAll of part of the grid is not modelled)",
                )
            )
    block.pipes.barrier(None, "SyncAll", call_line(3))
    block.sync_all(block)


@host_api("GetBlockIdx")
def GetBlockIdx() -> int:
    """The index of the block running this code, in [0, GetBlockNum())."""
    return current_block("GetBlockIdx").idx


@host_api("GetBlockNum")
def GetBlockNum() -> int:
    """The number of blocks the kernel was launched with (its block_dim)."""
    return current_block("GetBlockNum").num


@host_api("GetUserWorkspace")
def GetUserWorkspace(workspace: GmPtr[Any]) -> GmPtr[Any]:
    """The user part of the workspace a kernel is given: all of it (a direct launch sets no system workspace;
    the page "GetUserWorkspace")."""
    current_block("GetUserWorkspace")
    if not isinstance(workspace, GmPtr):
        raise ParameterError(
            message("GetUserWorkspace", "workspace", repr(workspace), "a GmPtr (the kernel's GM_ADDR workspace)")
        )
    return workspace


@host_api("InitSocState")
def InitSocState() -> None:
    """`InitSocState()`: this core's special registers (CTRL, vector mask, compare mask, AR ...) at their launch
    values, CTRL's bit 48 kept and the `SetDeqScale` scale 1 (`Core.init_soc_state`)."""
    current_block("InitSocState").ub.core.init_soc_state()
