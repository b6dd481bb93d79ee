"""How the simulator is configured (`rs.configure`), and the slot that tells whether a VF is running.

`_VF` holds the running vector function's context (`regsim._src.engine.context.VfContext`, put there
by the VF runtime) or None: the floors above fill it, this one only reads whether a VF runs and its
configuration.
"""

from __future__ import annotations

import contextvars
from typing import Any, Literal

import attrs

from regsim._src.model.binding import as_int, host_api
from regsim.errors import ParameterError, message

#: the running VF's context (None outside a VF); its `config` is the one the VF started with
_VF: contextvars.ContextVar[Any] = contextvars.ContextVar("regsim_vf", default=None)

ONE_BLOCK_SIZE = 32  #: bytes in one DataBlock; UB sizes and LocalTensor start addresses are multiples of it
#: the largest `UnifiedBuffer(size=...)`: UB addresses are 32-bit in C (`__ubuf__` pointers), and
#: regsim keeps two bytes of host memory per UB byte (the byte and its written flag)
MAX_UB_SIZE = 2**31


def in_vf() -> bool:
    """Whether a vector function is running (in this thread / task)."""
    return _VF.get() is not None


def check_ub_size(api: str, param: str, size: object) -> int:
    """A UB size: a positive multiple of 32 bytes, at most `MAX_UB_SIZE`."""
    n = as_int(api, param, size, ONE_BLOCK_SIZE, MAX_UB_SIZE)
    if n % ONE_BLOCK_SIZE:
        raise ParameterError(message(api, param, n, "a positive multiple of 32 bytes, at most 2**31"))
    return n


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
    max_loop_iterations: the most iterations one run of a VF loop may have (default 2**20): a
        counting loop past it is a `ParameterError` before it starts, a C++ `while` loop a
        `CppError` when it passes it. A loop that would run for hours is a mistake to report, not
        to run (the vendor's VFs count their loops in uint16_t, to 65535).
    batch_min_iterations: in the "auto" mode, a loop of fewer iterations runs in order (default 16):
        batching costs a fixed couple of hundred microseconds a loop that the examples' kernels pay back
        from 6 to 13 iterations on (`bench/bench_small_loops.py` prints auto / sequential per trip count);
        a loop with a post-update pointer (its iteration 0 runs in order first, to learn the stride)
        batches only from a quarter more iterations after iteration 0 (Compare+Select, cheap in order,
        pays batching back from about 20); 2 batches every loop that can be (the test suite does, to
        exercise the batched path on small loops). A forced "batched" ignores it.
    ub_size: the size in bytes of a `rs.UnifiedBuffer()` made without one (default the 950's
        248 KiB; `regsim run --ub-size`).
    """

    check_uninitialized: bool = True
    mask_fill: Literal["lsb", "group"] = "lsb"
    loops: Literal["auto", "batched", "sequential"] = "auto"
    max_loop_iterations: int = 1 << 20
    batch_min_iterations: int = 16
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
    batch_min_iterations: int | None = None,
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
        ub_size = check_ub_size("configure", "ub_size", ub_size)
    old = _CONFIG.get()
    new = Config(  # (every field given: `attrs.evolve`'s result, without its look-up of the fields)
        check_uninitialized=old.check_uninitialized if check_uninitialized is None else check_uninitialized,
        mask_fill=old.mask_fill if mask_fill is None else mask_fill,
        loops=old.loops if loops is None else loops,
        max_loop_iterations=old.max_loop_iterations
        if max_loop_iterations is None
        else as_int("configure", "max_loop_iterations", max_loop_iterations, 1),
        batch_min_iterations=old.batch_min_iterations
        if batch_min_iterations is None
        else as_int("configure", "batch_min_iterations", batch_min_iterations, 2),
        ub_size=old.ub_size if ub_size is None else ub_size,
    )
    return Configured(new, _CONFIG.set(new))


def current_config() -> Config:
    """The config in force: the running VF's (fixed when it started), else the configured one."""
    ctx = _VF.get()
    return _CONFIG.get() if ctx is None else ctx.config


def configured() -> Config:
    """The configuration a VF started now would run with."""
    return _CONFIG.get()
