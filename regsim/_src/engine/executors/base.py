"""The executor interface (`Executor`) and what every op shape shares: integer operands, unmodelled forms."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from regsim._src.engine.context import VfContext
from regsim._src.engine.per_iteration import Affine, Unbatchable
from regsim._src.engine.spec import Call, OpSpec, Plan
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MaskMergeMode
from regsim.errors import DTypeError, ParameterError, message

ZEROING = MaskMergeMode.ZEROING


class Executor:
    """The shape of an op: `prepare` once per static signature, `run` per call.

    `batchable`: `run` is correct when the backend is the batched one (lane arrays with a leading
    iteration axis, pointer addresses as arrays); a batched loop meeting an op whose executor is
    not batchable runs sequentially instead.
    """

    batchable = False

    def prepare(self, spec: OpSpec, plan: Plan) -> Any:
        return None

    def run(self, ctx: VfContext, plan: Plan, values: Sequence[Any]) -> Any:
        raise NotImplementedError

    def specialise(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        """The plan's call on the in-order backend (`NumpyBackend`, no trace) as one closure
        `call(ctx, args, kwargs)`, made once per signature; None: `generic` (bind, then `run`).

        Only calls binding directly (every positional operand given; keyword operands are the
        plan's values) get here. A closure does the common case only and hands every other
        call to `generic` before it changes anything, so each check and message stays `run`'s."""
        return None

    def specialise_batched(self, spec: OpSpec, plan: Plan, generic: Call) -> Call | None:
        """The plan's call on a batched loop's backend (no trace) as one closure, made once per signature; None:
        `generic`. As `specialise`: the common case only, every other call handed to `generic` before anything
        changes."""
        return None


def _int(api: str, name: str, value: Any, bounds: tuple[int, int], ctype: str) -> int:
    """A scalar operand as a Python int within its C++ type's range (bools are not ints)."""
    if type(value) is not int:
        if isinstance(value, Affine):  # (a batched loop: this operand takes one value per call)
            raise Unbatchable(f"{api}'s {name}, an integer operand of one value per call, differs by iteration")
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ParameterError(message(api, name, repr(value), f"an int ({ctype})"))
        value = int(value)
    if not bounds[0] <= value <= bounds[1]:
        raise ParameterError(message(api, name, value, f"a {ctype}: an int in [{bounds[0]}, {bounds[1]}]"))
    return int(value)


#: a scalar operand of a fixed C type (not the op's T), e.g. the shift amount `int16_t scalarValue`


SCALAR_CTYPES: dict[str, Any] = {"int16_t": dt.int16}


class Unmodelled(Executor):
    """A documented overload regsim does not model yet: its spec's validation refuses it."""


# --- data movement: DataBlock copies, unaligned streams, gathers and scatters ----------------------


def _slot(spec: OpSpec, *names: str) -> int | None:
    """The index of the first operand named one of `names` (None: the overload has none)."""
    return next((spec.slots[n] for n in names if n in spec.slots), None)


def _trait_one(spec: OpSpec, plan: Plan, form: str) -> None:
    if plan.trait.REG_NUM == 2:
        raise DTypeError(
            message(
                spec.name,
                "trait",
                f"RegTraitNumTwo with {plan.dtype!r} in the {form} form",
                "a one-register tensor (the library static_asserts RegTraitNumOne here)",
            )
        )
