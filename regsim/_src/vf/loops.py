"""VF loops run batched over their iterations where that is exact, else in order.

`@rs.simd_vf` and `@rs.simd_callee` rewrite each `for i in range(...)` (or `rs.vf_range(...)`)
loop of the function, once, into: try the body once with `i` standing for every iteration on the
batched backend; if that is exact (no iteration depends on another, every check passes in every
row) keep it, else restore what the attempt changed and run the loop in order. A loop the rewrite
can already see is not batchable (a `break`, Python state carried across iterations) runs in
order from the start. Kernels need no edits, and an error is always raised by the in-order run:
same class, same message, same partial state as without batching.

    for i in range(n):          becomes     loop = run_loop(site, range(n))
        BODY                                while loop.attempt():
                                                try:
                                                    i = loop.index
                                                    BODY
                                                except BaseException as e:
                                                    if loop.failed(e):
                                                        raise
                                                else:
                                                    loop.finished()
                                            if loop.batched:
                                                i = loop.last
                                            else:
                                                for i in loop.range:
                                                    BODY'

BODY' is the body with each call of a Reg face made a call site (`Reg.Add(d, a, b, m)` becomes
`site(Reg.Add, d, a, b, m)`, engine.spec.Site): it runs the face's in-order call for the signature it saw last at once
when it sees it again, and the face otherwise.

A loop whose UB accesses are all plain loads and stores at affine addresses (vf/addresses.py) is given the values of
the names they read as it starts, `run_loop(site, range(n), (Reg.LoadAlign, x, p, k, ...))` (None where one is not
bound), for its first attempt to judge whether their rows meet before any batched op runs
(docs/decisions/loops.md#up-front-hazards).

A post-update pointer (`LoadAlign(x, p, stride, post_mode=POST_MODE_UPDATE)`) moves by the same
bytes every iteration: the first attempt stops at it, iteration 0 runs in order (recording how
far each pointer moved), and the attempt over the other iterations gives row b the address
`p + b * moved`; the pointer ends where the in-order loop leaves it.
"""

from __future__ import annotations

import ast
import contextlib
import contextvars
import enum
import functools
import inspect
import itertools
import os
import sys
import textwrap
import types
from collections.abc import Callable, Iterator, Mapping
from typing import Any, Literal, TypeVar

import attrs

from regsim._src.engine.context import BATCHED_CALLS, VfContext
from regsim._src.engine.per_iteration import Affine, InOrderOnly, PostUpdate, Unbatchable
from regsim._src.engine.spec import FACES, Site
from regsim._src.model.config import _VF, current_config
from regsim._src.model.memory import ITERATIONS
from regsim._src.vf import addresses
from regsim._src.vf import loop_rules as rules
from regsim._src.vf.batched import BatchedBackend, Hazard
from regsim.errors import ParameterError, RegsimError, VfContextError, message

F = TypeVar("F", bound=Callable[..., Any])
Mode = Literal["auto", "batched", "sequential"]
MODES = ("auto", "batched", "sequential")
#: regsim's own source (its library VFs' loops are not the user's)
_REGSIM_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
#: the most iterations a batched attempt holds at once (its registers take 256 B an iteration each)
BATCH_ROWS = 1 << 16
#: what a loop's site remembers per static signature: its body post-updates a pointer (iteration 0 runs in
#: order first, without a batched attempt finding that out again), or why it can never batch (`InOrderOnly`)
PEEL = "peel"
#: the most static signatures a loop's site remembers (then it forgets them all and learns again)
MEMO_SIGNATURES = 64
#: the most runs a loop whose batched attempts keep finding its iterations dependent (`Hazard`) runs in order without an
#: attempt before it attempts again ("auto" mode: 1 run after the first such attempt, then twice as many after each
#: next one up to this; a run that batches forgets them): docs/decisions/loops.md#hazard-prediction
HAZARD_WAIT = 32
#: what a hazard's decision adds when the addresses showed it before any batched op ran (`addresses.judge`)
UP_FRONT = ", as the addresses of its loads and stores show before any batched op runs"
#: bumped by `forget_hazards`: a site's prediction made before it is forgotten
_EPOCH = [0]
#: the name of the loop runner in a rewritten VF, and the start of each loop's run's name (`__regsim_loop0`, ...)
_RUNNER = "__regsim_loop"
#: locals a loop's static signature holds by value (others by their static type: `_sig`, else the type)
_BY_VALUE = frozenset({int, bool, float, str, type(None)})


@attrs.define(eq=False)
class Prediction:
    """What a loop's site predicts from its batched attempts' hazards: a hazard depends on the run's addresses and
    masks (none of them in the static signature), so it is never certain for another run; but running in order is
    always exact, so after an attempt that found one the site runs its next `wait` runs in order without an attempt
    (1, then twice as many after each attempt that finds one again, at most HAZARD_WAIT), whatever their trip count
    or signature (a dependent loop called with varying inputs costs about what in order does), and a run that
    batches forgets it (a hazard one call's arguments made, in place once, costs one run in order)."""

    wait: int = 0  #: the runs in order the latest hazard bought (0: none found since the site last batched)
    left: int = 0  #: how many of them are still to run
    why: str = ""  #: the hazard the latest attempt found
    epoch: int = 0  #: `_EPOCH` when it was found (an older one is forgotten)
    #: `_EPOCH` when a run of the site last batched with no hazard found since (-1: none): its runs' first attempts
    #: are not judged up front (`addresses.judge`: a loop that batches pays no look at its addresses)
    batches: int = -1

    def skip(self) -> bool:
        """Whether this run goes in order without an attempt, counting it."""
        if not self.left:
            return False
        if self.epoch != _EPOCH[0]:
            self.wait = self.left = 0
            return False
        self.left -= 1
        return True

    def skipped(self) -> str:
        """Why the run `skip` sent in order goes so (for rs.explain: made only when asked for)."""
        return (
            f"in order without a batched attempt: an earlier run's attempt found that {self.why}, "
            f"predicted for {self.wait} run{'s' if self.wait > 1 else ''} after it; "
            + (f"{self.left} more in order, then it attempts again" if self.left else "the next run attempts again")
        )

    def hazard(self, why: str) -> None:
        """An attempt (or the look at the addresses that stands for one) found the hazard `why`: the next runs go in
        order."""
        if self.epoch != _EPOCH[0]:
            self.wait, self.epoch = 0, _EPOCH[0]
        self.wait = min(2 * self.wait, HAZARD_WAIT) if self.wait else 1
        self.left, self.why, self.batches = self.wait, why, -1

    def said(self, how: str = "") -> str:
        """The latest hazard, `how` it was found, and what it predicts (for rs.explain: made only when asked for)."""
        wait = self.wait
        return f"{self.why}{how} (so the next {'run goes' if wait == 1 else f'{wait} runs go'} in order without an attempt)"

    def batched(self) -> None:
        self.wait = self.left = 0
        self.batches = _EPOCH[0]


def forget_hazards() -> None:
    """Every loop site forgets the hazards its attempts found, and that it batched: the next run of each attempts, its
    addresses judged first (a benchmark timing a site's first run, a test starting from it)."""
    _EPOCH[0] += 1


@attrs.frozen
class LoopSite:
    """One loop of a kernel's source, and what the rewrite saw in it."""

    where: str  #: "file.py:42 (in add_vf)"
    static_reason: str  #: why it can never run batched ("" if it might)
    #: the S4/S5 check of the functions and methods the body calls, run when the loop starts
    check_calls: Callable[[tuple[Mapping[str, Any], ...]], str] | None = None
    library: bool = False  #: a loop of regsim's own library VFs (a forced mode applies to the user's loops)
    runner: str = ""  #: the name the rewritten VF holds the loop's run by (`__regsim_loop0`, ...)
    #: static signature of the VF's locals when the loop starts → PEEL, or the reason it runs in order
    memo: dict[Any, str] = attrs.field(factory=dict, eq=False)
    prediction: Prediction = attrs.field(factory=Prediction, eq=False)  #: from its attempts' hazards ("auto" mode)
    #: its plain loads and stores, for their addresses to be judged when a run starts (`addresses.plan`; None: not judged)
    accesses: addresses.Plan | None = None

    def remember(self, signature: Any, verdict: str) -> None:
        if len(self.memo) >= MEMO_SIGNATURES:
            self.memo.clear()
        self.memo[signature] = verdict

    def post_updates(self) -> bool:
        """Whether the body post-updated a pointer in every run so far that told (a run of a new signature too
        then: the post-update is in the body's source)."""
        return bool(self.memo) and all(v == PEEL for v in self.memo.values())


@attrs.define
class Decision:
    """How one run of a loop went."""

    site: LoopSite
    iterations: int
    how: str  #: "batched" or "sequential"
    why: str

    def __str__(self) -> str:
        return f"{self.site.where}: {self.how} ({self.iterations} iterations){': ' + self.why if self.why else ''}"


_EXPLAIN: contextvars.ContextVar[list[Decision] | None] = contextvars.ContextVar("regsim_explain", default=None)
#: an outer loop is running its iteration 0 in order to learn its post-update strides: the loops
#: inside run in order too, so that every pointer move reaches the recording backend
_PEELING: contextvars.ContextVar[bool] = contextvars.ContextVar("regsim_peeling", default=False)
#: the iteration numbers (0 for the first iteration) of the rewritten loops running now, outermost
#: first: an int for a loop running in order, an `Affine` over the iterations of a batched attempt
#: (held in the memory model: each UB store notes them, for the provenance of a never-written read)
_ITERATIONS = ITERATIONS


def iterations() -> tuple[Any, ...]:
    """The iteration numbers of the VF loops around the current call, outermost first (the hardware
    loops' counters that `asc_update_addr_reg_*` reads: 0, 1, ... whatever the loop variable's values)."""
    return tuple(_ITERATIONS.get())


class vf_range:
    """`for i in rs.vf_range(n, loops="batched"):` — a VF loop forced batched or sequential.

    Takes `range`'s arguments; `loops` overrides `rs.configure(loops=...)` for this loop.
    Outside a rewritten kernel it iterates like `range`.
    """

    def __init__(self, *args: int, loops: Mode | None = None) -> None:
        if loops is not None and loops not in MODES:
            raise ParameterError(message("vf_range", "loops", repr(loops), ", ".join(f'"{m}"' for m in MODES)))
        try:
            self.range = range(*args)
        except TypeError as e:
            raise ParameterError(message("vf_range", "arguments", repr(args), f"range()'s arguments ({e})")) from None
        self.loops = loops

    def __iter__(self) -> Iterator[int]:
        return iter(self.range)

    def __len__(self) -> int:
        return len(self.range)


class LoopRun:
    """One execution of a rewritten loop: `attempt()` says whether to run the body once more as
    an attempt (batched over the iterations, or iteration 0 in order to learn the strides of
    post-update pointers); what the attempts leave undone runs in order over `range`."""

    __slots__ = (
        "_backend",
        "_ctx",
        "_decision",
        "_first",
        "_frame",
        "_iter_token",
        "_locals",
        "_names",
        "_next",
        "_peel_backend",
        "_peel_token",
        "_peeled",
        "_raised",
        "_regsim_error",
        "_saved",
        "_signature",
        "_trace",
        "_trace_mark",
        "_vf",
        "batched",
        "call_reason",
        "few",
        "index",
        "iterations",
        "last",
        "mode",
        "range",
        "site",
    )

    def __init__(self, sites: list[LoopSite], k: int, iterable: Any, names: tuple[Any, ...] | None = None) -> None:
        """Loop `k` of a rewritten VF's `sites` starting over `iterable` (the rewrite's runner: called from the VF);
        `names`: the values of the names its plain accesses' judgement reads (`addresses.Plan.names`), as it starts."""
        self.site = site = sites[k]
        self._names = names
        #: the frame of the VF running the loop (S4/S5 in its scopes), until the first attempt reads its scopes (`_look`):
        #: a loop that runs in order for a reason its range or the configuration gives pays no S4/S5 check and no copy of
        #: the locals
        self._frame: types.FrameType | None = None if site.static_reason else sys._getframe(1)
        forced = None
        if isinstance(iterable, vf_range):
            forced, iterable = iterable.loops, iterable.range
        self.range: Any = iterable
        self.iterations = len(iterable) if type(iterable) is range else 0
        self._vf: VfContext | None = _VF.get()  #: the VF running the loop (None: called outside one)
        config = current_config() if self._vf is None else self._vf.config
        if self.iterations > config.max_loop_iterations:
            raise ParameterError(
                message(
                    "range",
                    "iterations",
                    f"{self.iterations} ({site.where})",
                    f"at most {config.max_loop_iterations} a VF loop (rs.configure(max_loop_iterations=...))",
                )
            )
        # a forced mode is the user's: regsim's own library loops batch where exact whatever it says
        self.mode: Mode = forced or ("auto" if site.library and config.loops == "batched" else config.loops)
        self.few = config.batch_min_iterations  #: in "auto", fewer iterations than this run in order
        self.call_reason = ""  #: why the calls of the body rule batching out (S4/S5), once `_look` has checked
        self.batched = False
        self.index: Any = None
        self.last: Any = None
        self._ctx: VfContext | None = None
        self._saved: tuple[Any, Any] | None = None
        self._backend: BatchedBackend | None = None
        self._next = "batched"  #: the next attempt: "batched", "peel" (iteration 0 in order), "" (none)
        self._peeled: dict[int, list[Any]] | None = None  #: after the peel: id → [pointer, bytes moved]
        self._peel_backend: Any = None
        self._peel_token: Any = None
        self._first = 0  #: the iteration number of range[0] (1 once iteration 0 was peeled)
        self._iter_token: Any = None
        self._raised = ""  #: the error a batched attempt raised (the in-order run must raise it too)
        self._regsim_error = False
        self._decision: Decision | None = None
        self._trace: Any = None  #: the `rs.trace()` recording the calls, if any
        self._trace_mark = 0  #: its record count when the batched attempt began
        self._signature: Any = ()  #: `signature`, once made
        self._locals: dict[str, Any] | None = None  #: the VF's locals as the loop started (`_look`), until `signature` is made

    @property
    def signature(self) -> Any:
        """The static signature of the VF's locals when the loop started (the key of its site's memo; made from the
        locals `_look` copies, when first asked for): plain values (ints, floats, strings, enum members) as they are,
        registers and pointers by their dtype and kind, anything else by its type; the rewrite's own names left out."""
        if self._locals is not None:  # (made when first asked for: most runs never are, their site's memo empty)
            self._signature = tuple(
                [
                    (name, v if type(v) in _BY_VALUE or isinstance(v, enum.Enum) else getattr(v, "_sig", type(v)))
                    for name, v in self._locals.items()
                    if not name.startswith(_RUNNER)
                ]
            )
            self._locals = None
        return self._signature

    def attempt(self) -> bool:
        step, self._next = self._next, ""
        go = self.try_batched() if step == "batched" else self._peel() if step == "peel" else False
        if not go:  # (the attempts are over: the locals copied for the signature no longer held)
            self._locals = None
        return go

    def _look(self) -> None:
        """The S4/S5 check of the body's calls in the VF frame's scopes, and a copy of its locals (the frame as the
        loop started: the first attempt comes before any statement of the body runs)."""
        frame, self._frame = self._frame, None  # (no reference cycle through the frame's locals left behind)
        if frame is None:
            return
        scope = frame.f_locals
        check = self.site.check_calls
        self.call_reason = "" if check is None else check((scope, frame.f_globals, frame.f_builtins))
        # (copied now: a nested loop's look at the frame updates its locals; without this run, which the frame holds by
        # now: no reference cycle through it)
        self._locals = scope.copy()
        self._locals.pop(self.site.runner, None)

    def try_batched(self) -> bool:
        if self.mode == "sequential":
            self._frame = None
            return self._decide("sequential", 'loops="sequential"')
        reason = self._why_not()
        # (before `_look`: in auto, a short loop of a site that always post-updated runs in order whatever its
        # signature and calls; the site's memo first, the count (and its message) only for a site it names)
        few = "" if reason or self._peeled is not None or not self.site.post_updates() else self._too_few_to_peel()
        if few:
            self._frame = None
            return self._decide("sequential", f"{few}; every earlier run of this loop post-updated a pointer")
        # (a run's first attempt, not a peel's; before `_look`: a run the prediction sends in order checks no calls)
        if self.site.prediction.left and not reason and self.mode == "auto" and self._peeled is None:
            prediction = self.site.prediction
            if prediction.skip():
                self._frame = None
                return self._decide("sequential", prediction.skipped() if _EXPLAIN.get() is not None else "")
        # (a run's first attempt in "auto", at a site that has not batched since its latest hazard or `forget_hazards`:
        # its plain loads and stores judged from their addresses before any batched op runs or allocates; before
        # `_look`, as the skip: docs/decisions/loops.md#up-front-hazards)
        plan = self.site.accesses
        if plan is not None and not reason and self.mode == "auto" and self._peeled is None and self._names is not None:
            names, self._names = self._names, None
            if self.site.prediction.batches != _EPOCH[0]:
                why = addresses.judge(plan, names, self.range)
                if why:
                    self._frame = None
                    prediction = self.site.prediction
                    prediction.hazard(why)
                    return self._decide("sequential", prediction.said(UP_FRONT) if _EXPLAIN.get() is not None else "")
        if self._frame is not None:  # the first attempt: the calls not checked yet
            if reason and self.mode == "auto" and _EXPLAIN.get() is None:  # (in order whatever they are: unchecked)
                self._frame = None
                return False
            self._look()
            reason = self.call_reason or reason  # (`_why_not`'s order: the calls' reason first)
        if reason:
            return self._decide("sequential", reason)
        verdict = self.site.memo.get(self.signature) if self.site.memo else None
        if verdict == PEEL and self._peeled is None:
            few = self._too_few_to_peel()
            return self._decide("sequential", few) if few else self._peel()
        if verdict and verdict != PEEL:
            return self._decide("sequential", verdict)
        ctx = self._vf
        assert ctx is not None
        rng = self.range
        rows = len(rng)
        try:
            index = Affine.progression(rng.start, rng.step, rows)
        except Unbatchable as e:  # (an index beyond what int64 rows hold exactly)
            return self._decide("sequential", e.args[0])
        # the iteration numbers: the index itself where they are its values (an Affine is never changed in place)
        first = self._first
        number = index if rng.start == first and rng.step == 1 else Affine.progression(first, 1, rows)
        hook, config = ctx.hook, ctx.config
        self._ctx, self._saved = ctx, (ctx.backend, hook)
        # (the hook: the `rs.trace()` recording the calls, if any; never `BATCHED_CALLS`: a loop in a batched loop runs
        # in order)
        self._trace = hook
        self._trace_mark = 0 if self._trace is None else len(self._trace.records)
        # (the core's special registers: the running backend's)
        backend = self._backend = BatchedBackend(config.check_uninitialized, config.mask_fill, rows, ctx.backend.core)
        ctx.backend, ctx.hook = backend, BATCHED_CALLS if hook is None else hook
        if self._peeled is not None:
            backend.peeled = True
            for ptr, moved in self._peeled.values():
                backend.post_update(ptr, moved)
        self.index = index
        self._enter(number)
        return True

    def _enter(self, number: Any) -> None:
        self._iter_token = _ITERATIONS.set((*_ITERATIONS.get(), number))

    def _leave(self) -> None:
        if self._iter_token is not None:
            _ITERATIONS.reset(self._iter_token)
            self._iter_token = None

    def ordered(self) -> Iterator[Any]:
        """The loop's values in order, each iteration's number on the iteration stack while it runs (the stack a list
        set once for the loop, its last entry changed in place each iteration: readers that keep it copy it)."""
        outer = _ITERATIONS.get()
        stack = [*outer, self._first]
        _ITERATIONS.set(stack)
        try:
            for number, value in enumerate(self.range, self._first):
                stack[-1] = number
                yield value
        finally:
            _ITERATIONS.set(outer)
        if self._raised and self._decision is not None:  # (the explanation must stay true)
            self._decision.why = f"the batched attempt raised {self._raised}, which no iteration raises in order " + (
                "(a regsim bug: please report it); ran in order"
                if self._regsim_error
                else "(a value that differs by iteration, used where regsim has no batched form of it); ran in order"
            )

    def _peel(self) -> bool:
        """Run iteration 0 in order, recording how far each post-update moves each pointer; the
        batched attempt over the other iterations then gives row b the address base + b·moved."""
        ctx = self._vf
        assert ctx is not None
        backend: Any = ctx.backend
        moved: dict[int, list[Any]] = {}

        def advance(ptr: Any, nbytes: int) -> None:
            moved.setdefault(id(ptr), [ptr, 0])[1] += nbytes
            type(backend).advance(backend, ptr, nbytes)

        backend.advance = advance  # (an instance attribute over the method, removed after the iteration)
        backend.moves_in_place = False  # (the in-order fast paths call it)
        self._peeled, self._peel_backend = moved, backend
        self._peel_token = _PEELING.set(True)
        self.index = self.range[0]
        self._enter(0)
        return True

    def _end_peel(self) -> None:
        if not self._peeled:  # no pointer post-updated in iteration 0: nothing for a later run to peel for
            self.site.memo.pop(self.signature, None)
        self._leave()
        self._first = 1
        del self._peel_backend.advance
        self._peel_backend.moves_in_place = True
        _PEELING.reset(self._peel_token)
        self._peel_backend = None
        self.range = self.range[1:]

    def in_order(self) -> Any:
        """The range of a loop whose source rules batching out, the decision logged."""
        self._decide("sequential", self.site.static_reason)
        return self.ordered()

    def _why_not(self) -> str:
        if self.site.static_reason or self.call_reason:
            return self.site.static_reason or self.call_reason
        if not isinstance(self.range, range):
            return f"iterates over a {type(self.range).__name__}, not a range"
        n = len(self.range)
        if n > BATCH_ROWS:
            return f"{n} iterations: regsim batches at most {BATCH_ROWS} at once"
        if n < 2:
            return "fewer than 2 iterations" + (
                " after iteration 0 (run in order for its post-update strides)" if self._peeled else ""
            )
        few = self.few
        if self.mode == "auto" and self._peeled is None and n < few:
            return f"fewer than {few} iterations: in order is cheaper than batching here (rs.configure(batch_min_iterations=...))"
        ctx = self._vf
        if ctx is None:
            return "not inside a vector function"
        if _PEELING.get():
            return "inside iteration 0 of an outer loop, run in order to learn its post-update strides"
        if isinstance(ctx.backend, BatchedBackend):
            return "inside a batched loop (the outer loop carries the batch)"
        return ""

    def _too_few_to_peel(self) -> str:
        """Why a loop whose iteration 0 must run in order first (a post-update pointer) runs in order instead, in the
        "auto" mode: it batches only when the iterations after iteration 0 are a quarter more than batch_min_iterations
        (that iteration in order, the pointers' per-row addresses and their post-updates make its batched attempt dearer
        than a plain loop's, and post-update loads and stores are cheap in order: bench/bench_small_loops.py)."""
        need = self.few + self.few // 4
        rest = len(self.range) - 1
        if self.mode != "auto" or rest >= need:
            return ""
        return (
            f"a post-update pointer: iteration 0 would run in order first, and {rest} iterations after it are fewer than "
            f"{need} (batch_min_iterations and a quarter): in order is cheaper than batching here "
            "(rs.configure(batch_min_iterations=...))"
        )

    def _restore(self) -> None:
        self._leave()
        assert self._ctx is not None and self._saved is not None
        self._ctx.backend, self._ctx.hook = self._saved

    def _undo(self) -> None:
        """Undo the batched attempt: what it changed, and what the trace recorded of it (the in-order run records
        the calls again)."""
        assert self._backend is not None
        self._backend.rollback()
        self._backend = None  # (the loop's run in order holds nothing of the attempt)
        self._restore()
        if self._trace is not None:
            self._trace.rollback(self._trace_mark)

    def failed(self, error: BaseException) -> bool:
        """The attempt raised: undo it; the loop runs in order (and raises there, with the same
        class, message and partial state, if the error is real). True: re-raise it now (it came
        from iteration 0 run in order, so it is the in-order error already)."""
        if self._peel_backend is not None:
            self._end_peel()
            return True
        self._undo()
        error = _unbatchable_cause(error)
        if not isinstance(error, (Exception, Unbatchable)):  # KeyboardInterrupt, SystemExit: at once
            return True
        if isinstance(error, PostUpdate) and self._peeled is None:
            self.site.remember(self.signature, PEEL)
            few = self._too_few_to_peel()
            if few:
                self._decide("sequential", few)
            else:
                self._next = "peel"
        elif isinstance(error, Unbatchable):
            if isinstance(error, InOrderOnly):
                self.site.remember(self.signature, error.args[0])
            self._decide("sequential", self._why(error))
        elif isinstance(error, RegsimError) or not _raised_in_regsim(error):
            # a kernel's error, or the kernel's own Python raising: the in-order run raises it where it belongs
            self._raised, self._regsim_error = f"{type(error).__name__}: {error}", isinstance(error, RegsimError)
            why = f"a call raised {type(error).__name__} in some iteration: ran in order to raise it there"
            self._decision = self._log("sequential", why)
        else:  # regsim's own code failed on the batched backend: a bug to see, not to hide behind the in-order run
            self._bug(error)
            return True
        return False

    def _bug(self, error: BaseException) -> None:
        """Note on `error`, raised by regsim's own code on the batched backend, that it is a regsim bug."""
        error.add_note(
            f"regsim: raised while running the loop at {self.site.where} batched (a regsim bug: please report it; "
            'rs.configure(loops="sequential") runs loops in order meanwhile)'
        )

    def finished(self) -> None:
        """The body ran over every iteration: keep it if no iteration depended on another."""
        if self._peel_backend is not None:
            self._end_peel()
            self._next = "batched"
            return
        assert self._backend is not None
        try:
            self._backend.check_independent()
        except BaseException as e:
            self._undo()
            if not isinstance(e, Unbatchable):
                self._bug(e)
                raise
            self._decide("sequential", self._why(e))
            return
        try:
            self._backend.collapse()
        except BaseException as e:
            self._bug(e)
            raise
        finally:
            self._restore()
        self.batched = True
        self.last = self.range[-1]
        prediction = self.site.prediction
        if prediction.wait or prediction.batches != _EPOCH[0]:
            prediction.batched()
        if _EXPLAIN.get() is not None:  # (the reasons are read only by rs.explain)
            facts = sorted(self._backend.facts)
            self._decide("batched", "; ".join([self._peel_note(), *facts] if self._peeled is not None else facts))

    def _why(self, error: Unbatchable) -> str:
        """Why `error` sends the loop in order; a hazard, in the "auto" mode, predicted for the site's next runs."""
        why: str = error.args[0]
        if type(error) is not Hazard or self.mode != "auto":
            return why
        self.site.prediction.hazard(why)
        return self.site.prediction.said()

    def _peel_note(self) -> str:
        assert self._backend is not None
        moves = sorted({p.stride for p in self._backend.posted.values() if p.moved})
        if self._peeled is None:
            return ""
        if not moves:
            return "iteration 0 ran in order (a post-update pointer, made in the body: none carried); the others batched"
        return (
            "iteration 0 ran in order to learn the post-update strides "
            f"({', '.join(f'{m:+d} B' for m in moves)} per iteration); the others batched"
        )

    def _decide(self, how: str, why: str) -> bool:
        if how == "sequential" and self.mode == "batched" and why != 'loops="sequential"':
            raise VfContextError(
                message("vf_range", "loops", '"batched"', f"a loop that can run batched; {self.site.where} cannot: {why}")
            )
        self._log(how, why)
        return False

    def _log(self, how: str, why: str) -> Decision | None:
        log = _EXPLAIN.get()
        if log is None:
            return None
        decision = Decision(self.site, self.iterations, how, why)
        log.append(decision)
        return decision


# --- the rewrite -----------------------------------------------------------------------------------


def instrument(f: F) -> F:
    """`f` with each `for ... in range(...)` loop rewritten to run batched where exact; `f`
    itself where its source is not available."""
    try:
        source = textwrap.dedent(inspect.getsource(f))
        filename = inspect.getsourcefile(f) or "<kernel>"
        first_line = f.__code__.co_firstlineno
        tree = ast.parse(source)
    except (OSError, TypeError, SyntaxError):  # no source (exec, a REPL): loops run in order
        return f
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != f.__name__:
        return f
    fdef.decorator_list = []
    sites: list[LoopSite] = []
    rewriter = _Rewriter(filename, first_line, f.__name__, sites)
    rewriter.visit(fdef)
    if not sites:
        return f
    calls = {name: Site() for name in rewriter.calls}
    # Compile `f` inside a factory whose parameters are its free variables and the loop runner,
    # so the new function shares f's globals and closure cells (nothing is patched anywhere).
    free = list(f.__code__.co_freevars)
    factory = ast.parse(f"def __regsim_factory({', '.join([*free, _RUNNER, *calls])}): pass").body[0]
    assert isinstance(factory, ast.FunctionDef)
    factory.body = [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))]
    module = ast.Module(body=[factory], type_ignores=[])
    _place(module, (1, 0, 1, 0), first_line - 1, set())
    code = compile(module, filename, "exec")
    factory_code = next(c for c in code.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == f.__name__)
    cells = dict(zip(f.__code__.co_freevars, f.__closure__ or (), strict=True))
    runner = functools.partial(LoopRun, sites)
    cells.update((name, site.cell) for name, site in calls.items())
    closure = tuple(cells[name] if name in cells else types.CellType(runner) for name in inner.co_freevars)
    new = types.FunctionType(inner, f.__globals__, f.__name__, f.__defaults__, closure)
    new.__kwdefaults__ = f.__kwdefaults__
    functools.update_wrapper(new, f)
    return new  # type: ignore[return-value]


def _place(node: ast.AST, where: tuple[int, int, int, int], shift: int, seen: set[int]) -> None:
    """`ast.fix_missing_locations` and then each node's lines moved down by `shift`, in one walk: a node without a
    location takes its parent's (`where`: line, column, end line, end column, before the move). Each node moves once
    (`seen`): the rewrite shares nodes between a loop's batched and in-order runs (the loop variable), and
    `ast.increment_lineno` would move a shared node once per place it appears in (the kernel lines traced)."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if "lineno" in node._attributes:
        d = node.__dict__
        line, col, end, end_col = where
        line = d.setdefault("lineno", line)
        col = d.setdefault("col_offset", col)
        if d.get("end_lineno") is None:
            d["end_lineno"] = end
        if d.get("end_col_offset") is None:
            d["end_col_offset"] = end_col
        end, end_col = d["end_lineno"], d["end_col_offset"]
        where = (line, col, end, end_col)
        d["lineno"] = line + shift
        if end is not None:
            d["end_lineno"] = end + shift
    for name in node._fields:
        value = getattr(node, name, None)
        if isinstance(value, ast.AST):
            _place(value, where, shift, seen)
        elif isinstance(value, list):
            for item in value:
                if isinstance(item, ast.AST):
                    _place(item, where, shift, seen)


def _copied(node: Any, memo: dict[int, Any]) -> Any:
    """`copy.deepcopy` of an AST (nodes and lists new, shared ones shared in the copy; their other values are immutable:
    names, constants, flags), without deepcopy's general machinery."""
    if isinstance(node, list):
        found = memo.get(id(node))
        if found is None:
            found = memo[id(node)] = [_copied(v, memo) for v in node]
        return found
    if not isinstance(node, ast.AST):
        return node
    found = memo.get(id(node))
    if found is None:
        found = memo[id(node)] = type(node).__new__(type(node))
        found.__dict__.update({k: _copied(v, memo) for k, v in node.__dict__.items()})
    return found


def _unbatchable_cause(error: BaseException) -> BaseException:
    """The `Unbatchable` behind an error (numpy turns one raised while it converts a value, e.g.
    `np.float16(i)`, into a ValueError it causes), else the error itself."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, Unbatchable):
            return seen
        seen = seen.__cause__ or seen.__context__
    return error


def _raised_in_regsim(error: BaseException) -> bool:
    """Whether `error` was raised by regsim's own code (its innermost frame is in the package)
    rather than by the kernel's Python."""
    tb = error.__traceback__
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last is not None and os.path.abspath(last.tb_frame.f_code.co_filename).startswith(_REGSIM_DIR)


#: the fields of the nodes that hold statements (bodies, handlers, match cases): where a loop can be
_STATEMENT_LISTS = ("body", "orelse", "handlers", "finalbody", "cases")


class _Rewriter(ast.NodeTransformer):
    def __init__(self, filename: str, first_line: int, func: str, sites: list[LoopSite]) -> None:
        self.filename, self.first_line, self.func, self.sites = filename, first_line, func, sites
        self.names = (f"{_RUNNER}{k}" for k in itertools.count())
        self.calls: list[str] = []  #: the names of the in-order bodies' call sites (`_Sites`), each a `Site`'s cell

    def generic_visit(self, node: ast.AST) -> ast.AST:
        """`ast.NodeTransformer.generic_visit` over the fields that hold statements only: a loop is a statement, and
        no expression holds one (the rewrite need not walk the expressions)."""
        for name in node._fields:  # (in their order: the loops are numbered as they are met)
            old = getattr(node, name, None) if name in _STATEMENT_LISTS else None
            if isinstance(old, list):
                new: list[ast.AST] = []
                for item in old:
                    done = self.visit(item)
                    if isinstance(done, list):
                        new.extend(done)
                    else:
                        new.append(done)
                old[:] = new
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        if node.name != self.func:  # a nested function: its loops are its own business
            return node
        self.generic_visit(node)
        return node

    def visit_For(self, node: ast.For) -> Any:
        call = node.iter
        if not (isinstance(call, ast.Call) and rules.called_name(call.func) in rules.LOOP_FUNCS and not node.orelse):
            self.generic_visit(node)
            return node
        k = len(self.sites)
        where = f"{self.filename.rsplit('/', 1)[-1]}:{node.lineno + self.first_line - 1} (in {self.func})"
        first = self.first_line  # the file's line of the function source's line 1
        reason = rules.shift_lines(rules.state_reason(node.body, in_loop=True), first)  # read from the source as written
        carried = rules.carried_names(node)
        if not reason and carried:
            reason = f"{', '.join(carried)} carried across iterations (read before the body assigns it) (S2)"
        calls = rules.calls(node.body, first)
        check = rules.resolver(calls, rules.assigned_names(node.body)) if calls else None
        loop = "" if reason else next(self.names)
        plan = None if reason else addresses.plan(node)
        self.sites.append(LoopSite(where, reason, check, self.filename.startswith(_REGSIM_DIR), loop, accesses=plan))
        self.generic_visit(node)  # then the loops inside
        load, store = ast.Load(), ast.Store()
        if reason:  # in order, as written: `for i in run_loop(k, range(...)).in_order():`
            run = ast.Call(ast.Name(_RUNNER, load), [ast.Constant(k), call], [])
            node.iter = ast.copy_location(ast.Call(ast.Attribute(run, "in_order", load), [], []), call)
            node.body = _Sites(self.calls).body(node.body)
            return node  # (locations: `instrument` fills those missing once the whole function is rewritten)

        def attr(name: str) -> ast.Attribute:
            return ast.Attribute(ast.Name(loop, load), name, load)

        def method(name: str, *args: ast.expr) -> ast.Expr:
            return ast.Expr(ast.Call(attr(name), list(args), []))

        target_store = node.target
        body = node.body
        attempt = ast.Try(
            body=[ast.Assign([target_store], attr("index")), *body],
            handlers=[
                ast.ExceptHandler(
                    ast.Name("BaseException", load),
                    "__regsim_error",
                    [ast.If(ast.Call(attr("failed"), [ast.Name("__regsim_error", load)], []), [ast.Raise()], [])],
                )
            ],
            orelse=[method("finished")],
            finalbody=[],
        )
        batched = ast.While(ast.Call(attr("attempt"), [], []), [attempt], [])
        batched.regsim_attempt = True  # type: ignore[attr-defined]  # (no call sites in an attempt: `_Sites`)
        ordered = ast.If(
            attr("batched"),
            [ast.Assign([target_store], attr("last"))],
            # (a copy of the body, its face calls made call sites: a node in the tree twice would have its line moved
            # twice by `instrument`)
            [ast.For(target_store, ast.Call(attr("ordered"), [], []), _Sites(self.calls).body(_copied(body, {})), [], None)],
        )
        # (a judged loop's names' values as the loop starts, looked up as the body looks them up: `__regsim_loop0_names
        # = (Reg.LoadAlign, x, p, ...)`, None where one is not bound or an attribute is missing, which the body raises
        # where it reads it; a tuple, not a function: a function would make the VF's locals it reads cells)
        names: list[ast.stmt] = []
        if plan is not None:
            held = ast.Name(f"{loop}_names", store)
            values = ast.Assign([held], ast.Tuple([_loaded(n) for n in plan.names], load))
            unknown = ast.ExceptHandler(ast.Name("Exception", load), None, [ast.Assign([held], ast.Constant(None))])
            names.append(ast.Try([values], [unknown], [], []))
        given = [] if plan is None else [ast.Name(f"{loop}_names", load)]
        setup = ast.Assign([ast.Name(loop, store)], ast.Call(ast.Name(_RUNNER, load), [ast.Constant(k), call, *given], []))
        new = [*names, setup, batched, ordered]
        for n in new:
            ast.copy_location(n, node)
        return new


def _loaded(name: str) -> ast.expr:
    """`a.b.c` as an expression that loads it (`loop_rules.dotted` the other way)."""
    head, *rest = name.split(".")
    node: ast.expr = ast.Name(head, ast.Load())
    for attr in rest:
        node = ast.Attribute(node, attr, ast.Load())
    return node


class _Sites(ast.NodeTransformer):
    """The face calls of a loop's in-order body made call sites (`engine.spec.Site`): `Reg.Add(d, a, b, m)` becomes
    `__regsim_loop_site3(Reg.Add, d, a, b, m)`, the name a cell of the rewritten VF holding the site's function (the
    callee still evaluated first, then the arguments, at the call's line and columns). A call of a name that is no face's,
    with `*args` or `**kwargs`, or a keyword the site's parameters could clash with stays as written; so do the calls in
    nested functions and in an inner loop's batched attempt (its in-order body has its own sites)."""

    def __init__(self, names: list[str]) -> None:
        self.names = names  #: the sites' names so far (this body's appended)

    def body(self, stmts: list[ast.stmt]) -> list[ast.stmt]:
        return [self.visit(s) for s in stmts]

    def visit(self, node: ast.AST) -> Any:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return node
        return node if getattr(node, "regsim_attempt", False) else super().visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if (
            rules.called_name(node.func) not in FACES
            or any(isinstance(a, ast.Starred) for a in node.args)
            or any(k.arg is None or k.arg.startswith("_") for k in node.keywords)
        ):
            return node
        name = f"{_RUNNER}_site{len(self.names)}"
        self.names.append(name)
        return ast.copy_location(ast.Call(ast.Name(name, ast.Load()), [node.func, *node.args], node.keywords), node)


# --- explain ----------------------------------------------------------------------------------------
@contextlib.contextmanager
def _explaining() -> Iterator[list[Decision]]:
    log: list[Decision] = []
    token = _EXPLAIN.set(log)
    try:
        yield log
    finally:
        _EXPLAIN.reset(token)


def explaining() -> bool:
    """Whether `rs.explain` is recording loop decisions (work done without a loop would be missing from them)."""
    return _EXPLAIN.get() is not None


def explain(kernel: Callable[..., None], *args: Any, **kwargs: Any) -> str:
    """Run `kernel(*args, **kwargs)` (it runs for real: its stores land) and say, per loop
    run, whether it ran batched or sequential and why."""
    with _explaining() as log:
        kernel(*args, **kwargs)
    return "\n".join(str(d) for d in log) or "no VF loops ran"
