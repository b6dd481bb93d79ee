"""numpy references that do a kernel's float32 arithmetic in the kernel's own order, independent of regsim
(the example modules' bit-exact goldens), and the vendor scripts' tolerance checks.

Each Reg op is one IEEE 754 float32 operation rounded to nearest-even (numpy float32 arithmetic), except:
Exp is float64 exp rounded once to float32 with subnormal operands and results flushed to zero (the Exp
page's default algorithm: "1ulp, not support denormalized numbers" in the precision appendix; regsim's
Exp value, within the documented 1 ulp of e**x); Div is the float64 quotient rounded once (the correctly
rounded quotient: 53 >= 2 * 24 + 2), its subnormals flushed likewise.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[np.float32]
TINY: float = 2.0**-126  #: the smallest normal float32


def _flush(x: F32) -> F32:
    out: F32 = np.where(np.abs(x) < np.float32(TINY), np.copysign(np.float32(0), x), x).astype(np.float32)
    return out


def exp_ftz(d: F32) -> F32:
    """Reg.Exp's value: e**d from float64 rounded once, subnormal d and results flushed."""
    with np.errstate(over="ignore"):
        return _flush(np.exp(_flush(d).astype(np.float64)).astype(np.float32))


def div_ftz(a: F32, b: F32) -> F32:
    """Reg.Div's value: a / b from float64 rounded once, subnormal operands and results flushed."""
    with np.errstate(all="ignore"):
        return _flush((_flush(a).astype(np.float64) / _flush(b).astype(np.float64)).astype(np.float32))


def gelu_kernel_order(x: F32, coeff_a: float, coeff_b: float) -> F32:
    """GeluVfBasic's sequence: x·x, ·x, ·A, x + ·, ·B, Exp, + 1, x / · (float32 scalars)."""
    y = x * x
    y = y * x
    y = y * np.float32(coeff_a)
    y = x + y
    y = y * np.float32(coeff_b)
    y = exp_ftz(y)
    y = y + np.float32(1.0)
    return div_ftz(x, y)


def vendor_isclose(output: F32, golden: F32) -> npt.NDArray[np.uint8]:
    """The examples' verify_result.py per element: np.isclose(output, golden, rtol=1e-4, atol=1e-5,
    equal_nan=True) (the script then allows an error ratio of 1e-4: below one element in 10 000, so
    for these sizes every element must pass)."""
    ok: npt.NDArray[np.uint8] = np.isclose(output, golden, rtol=1e-4, atol=1e-5, equal_nan=True).astype(np.uint8)
    return ok
