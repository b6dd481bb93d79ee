"""The ways a vector function runs: `@rs.simd_vf` / `@rs.simd_callee` functions (their loops rewritten to
run batched where exact, regsim._src.vf.loops), `rs.asc_vf_call` / `AscendC.VF_CALL`, and `with
rs.VEC_SCOPE():` blocks. Each enters a `VfContext` (regsim._src.engine.context) on a core: the core of the
UB its pointer arguments point into, else the current one.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable
from typing import Any, Final, ParamSpec, TypeVar

import numpy as np

from regsim._src.engine.backend import NumpyBackend
from regsim._src.engine.context import VfContext, vf_context
from regsim._src.model.binding import host_api
from regsim._src.model.config import _VF, configured
from regsim._src.model.core import Core, current_core
from regsim._src.model.memory import UbPtr
from regsim._src.vf.loops import instrument
from regsim._src.vf.trace import TracingBackend, current_trace
from regsim.errors import ParameterError, VfContextError, message

P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V")


@host_api("VEC_SCOPE")
def VEC_SCOPE() -> contextlib.AbstractContextManager[VfContext]:
    """`__VEC_SCOPE__ { ... }`: the body of the `with` block runs as a vector function (on the current core)."""
    return _scope(current_core())


class _scope:
    """A vector function running on `core`: with its CTRL as it is now, the configuration in force, and
    the in-order backend (the tracing one while `rs.trace()` records). (A class, not a generator: a
    memory-level API in a kernel enters one a call.)"""

    __slots__ = ("core", "ctx", "errstate", "start", "token", "trace")

    def __init__(self, core: Core) -> None:
        self.core = core

    def __enter__(self) -> VfContext:
        if _VF.get() is not None:
            raise VfContextError(
                "VEC_SCOPE: entered inside a running vector function; "
                "accepted: VFs are started from scalar (__aicore__) code only"
            )
        config = configured()
        trace = current_trace()
        core = self.core
        backend = (NumpyBackend if trace is None else TracingBackend)(config.check_uninitialized, config.mask_fill, core)
        self.ctx = ctx = VfContext(config, backend, trace, [], core.ctrl)  # (by position: attrs' keyword path costs more)
        self.trace, self.start = trace, 0 if trace is None else len(trace.records)
        self.token = _VF.set(ctx)
        # The vector unit raises no floating-point exceptions: overflow gives inf, 0/0 NaN.
        self.errstate = ignore_fp_errors()
        return ctx

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            restore_fp_errors(self.errstate)
            if exc_type is None:
                for check in self.ctx.exit_checks:
                    check()
        finally:
            _VF.reset(self.token)
            if self.trace is not None:
                self.trace.vf_ended(self.start)


def _numpy_errors() -> tuple[Any, Callable[..., Any]] | None:
    """numpy's floating-point error state as a context variable and the function making its values (numpy 2's
    `np.errstate` sets that variable to a value it makes each time); None where numpy has neither."""
    try:
        from numpy._core import _ufunc_config
    except ImportError:  # (numpy 1)
        return None
    var, make = getattr(_ufunc_config, "_extobj_contextvar", None), getattr(_ufunc_config, "_make_extobj", None)
    return (var, make) if var is not None and make is not None else None


_ERRORS = _numpy_errors()
#: the error state a VF last found, and the same with every error ignored (made once, not at each VF's start)
_ignoring: tuple[Any, Any] = (None, None)


def ignore_fp_errors() -> Any:
    """`np.errstate(all="ignore").__enter__()` (the vector unit raises no floating-point exceptions), its state made
    once per state found: a tenth of the cost; what `restore_fp_errors` takes to put the state back."""
    global _ignoring
    if _ERRORS is None:
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    var, make = _ERRORS
    found = var.get()
    if found is not _ignoring[0]:  # (numpy's own state, or the user's np.errstate / np.setbufsize: made once per value)
        _ignoring = found, make(all="ignore")
    return var.set(_ignoring[1])


def restore_fp_errors(token: Any) -> None:
    if _ERRORS is None:
        token.__exit__(None, None, None)
    else:
        _ERRORS[0].reset(token)


def on_core(core: Core) -> contextlib.AbstractContextManager[VfContext]:
    """A vector function running on `core`, as `simd_vf` runs one (for a lowering that does a VF's work without its
    Reg calls: the pipes see its accesses as one V instruction, under the VF's CTRL)."""
    return _scope(core)


def _by_value(arg: V) -> V:
    """C++ passes VF arguments by value: a `UbPtr` is copied, so post-updates stay inside."""
    copy = getattr(arg, "_vf_argument_copy", None)
    return copy() if copy is not None else arg


#: the types of VF arguments `_by_value` passes as they are, known without asking (the common ones)
_PLAIN: Final = frozenset({int, float, bool, str, type(None)})


def _core_of(args: tuple[object, ...]) -> Core | None:
    """The core of the UB the first of `args` that points into one points into, or None."""
    for a in args:
        core: Core | None = getattr(getattr(a, "ub", None), "core", None)
        if core:
            return core
    return None


def _run_vf(body: Callable[..., None], args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    """Run `body` as a vector function, its arguments passed by value."""
    # the VF runs on the core of the UB its pointers point into (else the current one): its special registers
    core = _core_of(args) or _core_of(tuple(kwargs.values())) or current_core()
    with _scope(core):
        if kwargs:
            body(*[_by_value(a) for a in args], **{k: _by_value(v) for k, v in kwargs.items()})
        else:  # (`_by_value` of each, a pointer copied and a plain value kept without a call; a loop, not a
            # comprehension, which makes a function each call: 11.0 -> 10.8 us a zero-trip Compare+Select call)
            passed = []
            for a in args:
                passed.append(a._vf_argument_copy() if type(a) is UbPtr else a if type(a) in _PLAIN else _by_value(a))
            body(*passed)


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


def _instrumented(f: Callable[P, R]) -> tuple[Callable[P, R], Callable[[], object]]:
    """`f` with its loops rewritten (`loops.instrument`) when it is first called (the rewrite parses and compiles
    its source, which a module defining many VFs, as the lowerings do, would otherwise pay at import), and the
    function that rewrites them at once (`rewrite_now`)."""
    body: Callable[P, R] | None = None

    def rewrite() -> Callable[P, R]:
        nonlocal body
        if body is None:
            body = instrument(f)
        return body

    @functools.wraps(f)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        return (body or rewrite())(*args, **kwargs)

    return call, rewrite


def rewrite_now(vf: Callable[..., object]) -> None:
    """Rewrite the loops of a `simd_vf` or `simd_callee` function now, not at its first call (the C++ front end's
    generated VFs: an error of the rewrite is then the C++ file's, raised where the VF is instantiated)."""
    vf.__regsim_rewrite__()  # type: ignore[attr-defined]


@host_api("simd_vf")
def simd_vf(f: Callable[P, None]) -> Callable[P, None]:
    """`__simd_vf__`: calling the decorated function runs it as a vector function.

    Arguments are passed by value as in C++ (a `UbPtr` is copied on entry).
    """
    if not callable(f):
        raise ParameterError(message("simd_vf", "f", repr(f), "a function"))
    instrumented, rewrite = _instrumented(f)
    body = host_api(f.__name__)(instrumented)  # arguments that do not bind: a ParameterError naming the parameter

    @functools.wraps(f)
    def run(*args: P.args, **kwargs: P.kwargs) -> None:
        _run_vf(body, args, kwargs)

    run.__regsim_vf_body__ = body  # type: ignore[attr-defined]
    run.__regsim_rewrite__ = rewrite  # type: ignore[attr-defined]
    return run


@host_api("simd_callee")
def simd_callee(f: Callable[P, R]) -> Callable[P, R]:
    """`__simd_callee__`: a helper callable only from inside a vector function."""
    if not callable(f):
        raise ParameterError(message("simd_callee", "f", repr(f), "a function"))
    body, rewrite = _instrumented(f)

    @functools.wraps(f)
    def call(*args: P.args, **kwargs: P.kwargs) -> R:
        vf_context(f.__qualname__)
        return body(*args, **kwargs)

    call.__regsim_callee__ = f  # type: ignore[attr-defined]  # (what a batched loop calling it checks: loop_rules)
    call.__regsim_rewrite__ = rewrite  # type: ignore[attr-defined]
    return host_api(f.__name__)(call)  # arguments that do not bind: a ParameterError naming the parameter
