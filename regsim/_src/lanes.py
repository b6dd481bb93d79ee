"""Pure lane semantics: numpy functions of whole lane arrays, never seeing a mask or a register.

Each place where numpy and the hardware could disagree is one named helper with its reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

Lanes = npt.NDArray[Any]
Bools = npt.NDArray[np.bool_]

_U32 = np.dtype(np.uint32)
_U64 = np.dtype(np.uint64)


def add(a: Lanes, b: Lanes) -> Lanes:
    """a + b. Integers wrap (numpy's fixed-width arithmetic is modular, as the hardware);
    floats round once to nearest-even (numpy computes half/bf16 in float32 and rounds back,
    which for + and - is a single correct rounding: 24 >= 2 * 11 + 2 bits)."""
    return a + b


def sub(a: Lanes, b: Lanes) -> Lanes:
    """a - b, wrapping / rounded as `add`."""
    return a - b


_U32_MAX = np.uint64(0xFFFFFFFF)


def _carry_by_widening(total: npt.NDArray[np.uint64], like: Lanes) -> tuple[Lanes, Bools]:
    """{carry, dst} = total, a sum of 32-bit values computed in 64 bits: bit 32 is the carry."""
    return total.astype(_U32).view(like.dtype), total > _U32_MAX


def add_carry(a: Lanes, b: Lanes, carry_in: Bools | None = None) -> tuple[Lanes, Bools]:
    """{carry, dst} = (u32)a + (u32)b [+ carry_in]: a 33-bit sum (Add with carry out, AddC)."""
    total = a.view(_U32).astype(_U64)
    total += b.view(_U32)
    if carry_in is not None:
        total += carry_in
    return _carry_by_widening(total, a)


def sub_carry(a: Lanes, b: Lanes, carry_in: Bools | None = None) -> tuple[Lanes, Bools]:
    """{carry, dst} = {0, a} + {0, ~b} + carry_in (1 when absent): carry 1 means no borrow."""
    total = a.view(_U32).astype(_U64)
    total += ~b.view(_U32)
    total += np.uint64(1) if carry_in is None else carry_in
    return _carry_by_widening(total, a)
