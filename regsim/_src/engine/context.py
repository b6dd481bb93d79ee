"""The running vector function's context, and the `rs.Ref` counters Reg ops update through it.

A vector function (`__simd_vf__`) runs inside a `VfContext` (held in a ContextVar: `model.config._VF`);
every Reg operation asks for the current one (`vf_context(api)`) and raises `VfContextError` outside.
The context carries the `Config` the VF was started with, the backend its ops run on and the per-call
hook (a trace, or a batched loop's `BATCHED_CALLS`), so other backends plug in here without touching the ops.
The ways to start a VF are the VF runtime's (regsim._src.vf.runtime).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final, Generic, Protocol, TypeVar

import attrs

from regsim._src.engine.backend import Backend
from regsim._src.model.binding import host_api
from regsim._src.model.config import _VF, Config, in_vf
from regsim._src.model.dtypes import InstanceSig
from regsim.errors import VfContextError

V = TypeVar("V")

__all__ = ["_VF", "Config", "Ref", "VfContext", "in_vf", "vf_context"]


class CallHook(Protocol):
    """What the op engine hands a Reg call to, when the running VF has one (see `VfContext.hook`)."""

    def record(self, ctx: VfContext, plan: Any, values: Any) -> Any: ...


class BatchedCalls:
    """The per-call hook of a batched VF loop with no trace recording: each call runs its signature's call on the
    batched backend (`Overloads.batched_call`, made once per signature: an op with no batching rule raises
    `InOrderOnly` there, sending the loop in order). The op engine's faces look such calls up themselves."""

    __slots__ = ()

    def record(self, ctx: VfContext, plan: Any, values: Any) -> Any:
        return plan.spec.batched(ctx, plan, values)


BATCHED_CALLS: Final = BatchedCalls()


@attrs.define(eq=False)
class VfContext:
    """One running vector function: its configuration, the backend its ops run on (the only
    code touching register and UB bytes) and the trace recording its calls, if any."""

    config: Config
    backend: Backend
    #: the per-call hook (`hook.record(ctx, plan, values)` runs each Reg call when set): the `rs.trace()`
    #: recording calls (in a batched loop too: it sends the loop in order at an op with no batching rule), or a
    #: batched loop's `BATCHED_CALLS` when none records; None: calls run as they are
    hook: CallHook | None = None
    #: checks run when the VF body returns normally (e.g. an unaligned store stream never
    #: flushed); each raises naming the call that broke the rule
    exit_checks: list[Callable[[], None]] = attrs.field(factory=list)
    #: the core's CTRL register as the VF started (regsim._src.model.core; SetCtrlSpr is host-side)
    ctrl: int = 0x1001000000000008


def vf_context(api: str) -> VfContext:
    """The running VF's context; `VfContextError` naming `api` when no VF is running."""
    ctx = _VF.get()
    if ctx is None:
        raise VfContextError(
            f"{api}: called outside a vector function; accepted: inside a @rs.simd_vf function, "
            "rs.asc_vf_call(F, ...), rs.AscendC.VF_CALL(F, ...) or a `with rs.VEC_SCOPE():` block"
        )
    return ctx  # type: ignore[no-any-return]  # (the slot holds the running VfContext)


class Ref(Generic[V], metaclass=InstanceSig):
    """A mutable scalar, for the C++ `uint32_t&` parameters (`UpdateMask` decrements it).

    Inside a VF its value is read and written through the running backend: a batched loop gives a
    counter made in its body one value per iteration, and sends the loop in order when its body
    reads or writes a counter made before it that it also counts down (docs/api.md, the rules)."""

    __slots__ = ("_value",)

    _sig: ClassVar[Any]  #: the op engine's cache key for a Ref argument (`InstanceSig`)

    @host_api("Ref")
    def __init__(self, value: V) -> None:
        self._value = value
        ctx = _VF.get()
        if ctx is not None:
            ctx.backend.new_ref(self)

    @property
    def value(self) -> V:
        ctx = _VF.get()
        if ctx is None:
            return self._value
        return ctx.backend.read_ref(self)  # type: ignore[no-any-return]

    @value.setter
    def value(self, value: V) -> None:
        ctx = _VF.get()
        if ctx is None:
            self._value = value
        else:
            ctx.backend.write_ref(self, value)

    def __repr__(self) -> str:
        return f"Ref({self._value!r})"
