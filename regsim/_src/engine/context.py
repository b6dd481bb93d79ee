"""The VF runtime: an explicit execution context, held in a ContextVar, and the ways to enter it.

A vector function (`__simd_vf__`) runs inside a `VfContext`; every Reg operation asks for the
current one (`vf_context(api)`) and raises `VfContextError` outside. The context carries the
`Config` the VF was started with and an optional trace sink, so later backends (tracing,
counting, batched loops) plug in here without touching the ops.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from collections.abc import Callable, Iterator
from typing import Any, ClassVar, Generic, Literal, ParamSpec, TypeVar

import attrs
import numpy as np

from regsim._src.model.binding import as_int, host_api
from regsim._src.model.dtypes import InstanceSig
from regsim.errors import ParameterError, VfContextError, message

P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V")


@attrs.frozen
class Config:
    """How the simulator treats what the documentation leaves open (docs/semantics-decisions.md).

    check_uninitialized: an active lane that reads a never-written register or UB byte raises
        `UninitializedReadError` (on by default).
    mask_fill: which bits of an element's predicate group a mask-producing op sets for an
        active element wider than one byte: "lsb" only bit `i * itemsize` (default, as the Add
        page says: "每4bit的最低位写1"), or "group" every bit of the group. Consumers read only
        the lowest bit, so a kernel whose results depend on this choice is relying on
        undocumented behaviour; run its tests under both.
    loops: how the `for` loops of VFs run. "auto" (default): batched over their iterations
        where that gives exactly the results of running them in order, else in order;
        "batched": batched, and a loop that cannot be is a `VfContextError` saying why;
        "sequential": every loop in order. `rs.vf_range(..., loops=...)` overrides it per loop;
        a forced "batched" applies to the kernel's own loops, not to those of the library VFs
        the memory-level APIs run (they batch where exact).
    max_loop_iterations: the most iterations one run of a VF loop may have (a `ParameterError`
        before the loop starts past it): a loop that would run for hours is a mistake to report,
        not to run.
    ub_size: the size in bytes of a `rs.UnifiedBuffer()` made without one (default the 950's
        248 KiB; `regsim run --ub-size`).
    """

    check_uninitialized: bool = True
    mask_fill: Literal["lsb", "group"] = "lsb"
    loops: Literal["auto", "batched", "sequential"] = "auto"
    max_loop_iterations: int = 1 << 24
    ub_size: int = 248 * 1024  #: the 950's UB (memory.TOTAL_UB_SIZE is this default)


DEFAULT_CONFIG = Config()
_CONFIG: contextvars.ContextVar[Config] = contextvars.ContextVar("regsim_config", default=DEFAULT_CONFIG)


class Configured:
    """What `rs.configure(...)` returns: the change is made by the call; as a context manager, the
    `with` block's exit restores the configuration in force before the call."""

    def __init__(self, config: Config, token: contextvars.Token[Config]) -> None:
        self.config, self._token = config, token

    def __enter__(self) -> Config:
        return self.config

    def __exit__(self, *exc: object) -> None:
        _CONFIG.reset(self._token)


@host_api("configure")
def configure(
    *,
    check_uninitialized: bool | None = None,
    mask_fill: Literal["lsb", "group"] | None = None,
    loops: Literal["auto", "batched", "sequential"] | None = None,
    max_loop_iterations: int | None = None,
    ub_size: int | None = None,
) -> Configured:
    """Change the configuration VFs start with (arguments left None keep their value).

    `rs.configure(loops="sequential")` as a statement changes it from here on (for the running
    thread: the whole program, in a script); `with rs.configure(mask_fill="group"):` changes it for
    the block and restores the previous one on leaving it.
    """
    if check_uninitialized is not None and not isinstance(check_uninitialized, bool):
        raise ParameterError(message("configure", "check_uninitialized", repr(check_uninitialized), "True, False or None"))
    if loops is not None and loops not in ("auto", "batched", "sequential"):
        raise ParameterError(message("configure", "loops", repr(loops), '"auto", "batched", "sequential"'))
    if mask_fill is not None and mask_fill not in ("lsb", "group"):
        raise ParameterError(message("configure", "mask_fill", repr(mask_fill), '"lsb", "group"'))
    if ub_size is not None:
        from regsim._src.model.memory import check_ub_size

        ub_size = check_ub_size("configure", "ub_size", ub_size)
    old = _CONFIG.get()
    new = attrs.evolve(
        old,
        check_uninitialized=old.check_uninitialized if check_uninitialized is None else check_uninitialized,
        mask_fill=old.mask_fill if mask_fill is None else mask_fill,
        loops=old.loops if loops is None else loops,
        max_loop_iterations=old.max_loop_iterations
        if max_loop_iterations is None
        else as_int("configure", "max_loop_iterations", max_loop_iterations, 1),
        ub_size=old.ub_size if ub_size is None else ub_size,
    )
    return Configured(new, _CONFIG.set(new))


def current_config() -> Config:
    """The config in force: the running VF's (fixed when it started), else the configured one."""
    ctx = _VF.get()
    return _CONFIG.get() if ctx is None else ctx.config


@attrs.define(eq=False)
class VfContext:
    """One running vector function: its configuration, the backend its ops run on (the only
    code touching register and UB bytes) and the trace recording its calls, if any."""

    config: Config
    backend: Any
    trace: Any = None
    #: checks run when the VF body returns normally (e.g. an unaligned store stream never
    #: flushed); each raises naming the call that broke the rule
    exit_checks: list[Callable[[], None]] = attrs.field(factory=list)
    #: the core's CTRL register as the VF started (regsim._src.model.ctrl; SetCtrlSpr is host-side)
    ctrl: int = 0x1001000000000008


_VF: contextvars.ContextVar[VfContext | None] = contextvars.ContextVar("regsim_vf", default=None)


def vf_context(api: str) -> VfContext:
    """The running VF's context; `VfContextError` naming `api` when no VF is running."""
    ctx = _VF.get()
    if ctx is None:
        raise VfContextError(
            f"{api}: called outside a vector function; accepted: inside a @rs.simd_vf function, "
            "rs.asc_vf_call(F, ...), rs.AscendC.VF_CALL(F, ...) or a `with rs.VEC_SCOPE():` block"
        )
    return ctx


def in_vf() -> bool:
    return _VF.get() is not None


@host_api("VEC_SCOPE")
@contextlib.contextmanager
def VEC_SCOPE() -> Iterator[VfContext]:
    """`__VEC_SCOPE__ { ... }`: the body of the `with` block runs as a vector function."""
    if _VF.get() is not None:
        raise VfContextError(
            "VEC_SCOPE: entered inside a running vector function; accepted: VFs are started from scalar (__aicore__) code only"
        )
    from regsim._src.engine.backend import NumpyBackend
    from regsim._src.model.ctrl import current_ctrl
    from regsim._src.vf.trace import TracingBackend, current_trace

    config = _CONFIG.get()
    trace = current_trace()
    backend = (NumpyBackend if trace is None else TracingBackend)(config.check_uninitialized, config.mask_fill)
    ctx = VfContext(config, backend, trace, ctrl=current_ctrl())
    token = _VF.set(ctx)
    try:
        # The vector unit raises no floating-point exceptions: overflow gives inf, 0/0 NaN.
        with np.errstate(all="ignore"):
            yield ctx
        for check in ctx.exit_checks:
            check()
    finally:
        _VF.reset(token)


def _by_value(arg: V) -> V:
    """C++ passes VF arguments by value: a `UbPtr` is copied, so post-updates stay inside."""
    copy = getattr(arg, "_vf_argument_copy", None)
    return copy() if copy is not None else arg


def _run_vf(body: Callable[..., None], args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    """Run `body` as a vector function, its arguments passed by value."""
    with VEC_SCOPE() as ctx:
        core = next((spr for a in (*args, *kwargs.values()) if (spr := getattr(getattr(a, "ub", None), "spr", None))), None)
        if core is not None:  # the VF runs on the core of the UB its pointers point into: its special registers
            ctx.backend.spr = core
        body(*[_by_value(a) for a in args], **{k: _by_value(v) for k, v in kwargs.items()})


@host_api("asc_vf_call")
def asc_vf_call(f: Callable[P, None], /, *args: P.args, **kwargs: P.kwargs) -> None:
    """`asc_vf_call<F>(args...)`: run `F`, a `@rs.simd_vf` function, as a vector function, its
    arguments passed by value. As in C++, where `F` must be a `__simd_vf__` function, any other
    callable is a `VfContextError`."""
    _run_vf(_vf_body("asc_vf_call", f), args, kwargs)


@host_api("VF_CALL")
def VF_CALL(f: Callable[P, None], /, *args: P.args, **kwargs: P.kwargs) -> None:
    """`AscendC::VF_CALL<F>(args...)`: the older spelling of `asc_vf_call`."""
    _run_vf(_vf_body("VF_CALL", f), args, kwargs)


def _vf_body(api: str, f: object) -> Callable[..., None]:
    body: Callable[..., None] | None = getattr(f, "__regsim_vf_body__", None)
    if body is None:
        name = getattr(f, "__qualname__", repr(f))
        raise VfContextError(message(api, "F", name, "a function decorated with @rs.simd_vf (a __simd_vf__ function)"))
    return body


@host_api("simd_vf")
def simd_vf(f: Callable[P, None]) -> Callable[P, None]:
    """`__simd_vf__`: calling the decorated function runs it as a vector function.

    Arguments are passed by value as in C++ (a `UbPtr` is copied on entry).
    """
    if not callable(f):
        raise ParameterError(message("simd_vf", "f", repr(f), "a function"))

    from regsim._src.vf.loops import instrument

    body = host_api(f.__name__)(instrument(f))  # arguments that do not bind: a ParameterError naming the parameter

    @functools.wraps(f)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        _run_vf(body, args, kwargs)

    run.__regsim_vf_body__ = body  # type: ignore[attr-defined]
    return run


@host_api("simd_callee")
def simd_callee(f: Callable[P, R]) -> Callable[P, R]:
    """`__simd_callee__`: a helper callable only from inside a vector function."""
    if not callable(f):
        raise ParameterError(message("simd_callee", "f", repr(f), "a function"))

    from regsim._src.vf.loops import instrument

    body = instrument(f)

    @functools.wraps(f)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        vf_context(f.__qualname__)
        return body(*args, **kwargs)

    call.__regsim_callee__ = f  # type: ignore[attr-defined]  # (what a batched loop calling it checks: loop_rules)
    return host_api(f.__name__)(call)  # arguments that do not bind: a ParameterError naming the parameter


class Ref(Generic[V]):
    """A mutable scalar, for the C++ `uint32_t&` parameters (`UpdateMask` decrements it).

    Inside a VF its value is read and written through the running backend: a batched loop gives a
    counter made in its body one value per iteration, and sends the loop in order when its body
    reads or writes a counter made before it that it also counts down (docs/api.md, the rules)."""

    __slots__ = ("_value",)

    _sig: ClassVar[Any] = InstanceSig()  #: the op engine's cache key for a Ref argument

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
