"""The errors regsim raises: every one is a `RegsimError` and also the builtin a caller expects.

Messages name the API, the parameter, the value given and what is accepted, for example::

    LoadAlign: srcAddr = UB byte 40 is not aligned; accepted: a multiple of 32 bytes (DIST_NORM)
"""

from __future__ import annotations


class RegsimError(Exception):
    """Base class of every error regsim raises on a misuse of the modelled API."""


class AlignmentError(RegsimError, ValueError):
    """A UB address is not aligned as the API requires."""


class OutOfBoundsError(RegsimError, IndexError):
    """A UB access by an active lane falls outside the buffer or the LocalTensor it came from."""


class DTypeError(RegsimError, TypeError):
    """A dtype the API does not accept on Ascend 950, or operands whose dtypes disagree."""


class ParameterError(RegsimError, ValueError):
    """A parameter outside its documented range, or an overload that does not exist."""


class UnsupportedError(RegsimError, NotImplementedError):
    """A combination the Ascend documentation marks unsupported (e.g. MERGING on Sub)."""


class VfContextError(RegsimError, RuntimeError):
    """A call outside the context it needs: a Reg function outside a vector function (or a VF-only rule
    broken), a kernel API (`DataCopy`, `SetFlag`, `GetBlockIdx`, `TPipe` ...) outside a running kernel."""


class UninitializedReadError(RegsimError, RuntimeError):
    """An active lane read a register or UB bytes that were never written."""


class RaceError(RegsimError, RuntimeError):
    """Two accesses to the same bytes with no ordering between them that the hardware would keep: UB bytes
    touched by two pipes of one core (MTE2, V, MTE3, S) with no flag, queue or barrier between them, or GM
    bytes touched by two cores with no `SyncAll` between them (one of the two accesses a write). The message
    names both accesses: file:line, pipe or core, API, bytes."""


class SyncError(RegsimError, RuntimeError):
    """A flag, queue or buffer used against its rules: `WaitFlag` with no pending `SetFlag`, a `SetFlag`
    whose event id is still pending, `DeQue` of an empty queue, more `AllocTensor` than buffers, a tensor
    used after `FreeTensor`, flags or buffers still held at kernel end, a `SyncAll` some cores never reach."""


def message(api: str, param: str, value: object, accepted: str) -> str:
    """The one message format: API, parameter, value given, what is accepted."""
    return f"{api}: {param} = {value}; accepted: {accepted}"


__all__ = [
    "AlignmentError",
    "DTypeError",
    "OutOfBoundsError",
    "ParameterError",
    "RaceError",
    "RegsimError",
    "SyncError",
    "UninitializedReadError",
    "UnsupportedError",
    "VfContextError",
    "message",
]
