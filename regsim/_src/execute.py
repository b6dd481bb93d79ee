"""What every Reg call shares: argument binding, validation from the op table, and masking.

Masking happens once, here (Sail's `init_masked_result`): lane functions never see a mask;
`commit` applies ZEROING or MERGING, and `commit_predicate` writes a predicate in the MaskReg
layout. Every check runs before anything is written, so a call that raises changes nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from regsim._src import dtypes as dt
from regsim._src.context import VfContext, vf_context
from regsim._src.enums import MaskMergeMode
from regsim._src.registers import Bools, MaskReg, RegTensor, mask_stride
from regsim._src.table import OpSpec
from regsim.errors import DTypeError, ParameterError, UninitializedReadError, UnsupportedError, message


def bind(api: str, params: Sequence[str], args: Sequence[Any], kwargs: Mapping[str, Any]) -> list[Any]:
    """C++-ordered positional arguments plus snake_case keywords → one value per parameter."""
    if len(args) > len(params):
        raise ParameterError(
            message(api, "arguments", f"{len(args)} positional", f"at most {len(params)}: ({', '.join(params)})")
        )
    values = list(args) + [None] * (len(params) - len(args))
    for name, value in kwargs.items():
        if name not in params:
            raise ParameterError(message(api, name, "(keyword)", f"the parameters ({', '.join(params)})"))
        i = params.index(name)
        if i < len(args):
            raise ParameterError(message(api, name, "given twice", "each parameter once"))
        values[i] = value
    missing = [p for p, v in zip(params, values, strict=True) if v is None]
    if missing:
        raise ParameterError(message(api, missing[0], "missing", f"all of ({', '.join(params)})"))
    return values


def check_reg(api: str, param: str, reg: object, accepted: frozenset[type[dt.DType]] | None = None) -> RegTensor[Any]:
    if not isinstance(reg, RegTensor):
        raise ParameterError(message(api, param, type(reg).__name__, "a Reg.RegTensor"))
    if accepted is not None and reg.dtype not in accepted:
        raise DTypeError(message(api, param, f"RegTensor[{reg.dtype.name}]", f"RegTensor of {dt.names(accepted)} on Ascend 950"))
    return reg


def check_mask(api: str, param: str, mask: object) -> MaskReg:
    if not isinstance(mask, MaskReg):
        raise ParameterError(message(api, param, type(mask).__name__, "a Reg.MaskReg"))
    return mask


def check_same(api: str, params: Sequence[str], regs: Sequence[RegTensor[Any]]) -> None:
    """All register operands share the first one's dtype and trait (one C++ type U)."""
    first = regs[0]
    for name, reg in zip(params[1:], regs[1:], strict=True):
        if reg.dtype is not first.dtype or reg.trait != first.trait:
            raise DTypeError(
                message(
                    api,
                    name,
                    f"RegTensor[{reg.dtype.name}] ({reg.trait!r})",
                    f"the type of {params[0]}: RegTensor[{first.dtype.name}] ({first.trait!r})",
                )
            )


def check_mode(spec: OpSpec, mode: object) -> MaskMergeMode:
    if not isinstance(mode, MaskMergeMode):
        raise ParameterError(message(spec.name, "mode", repr(mode), "a Reg.MaskMergeMode"))
    if mode not in spec.modes:
        accepted = ", ".join(m.name for m in sorted(spec.modes, key=lambda m: m.value))
        raise UnsupportedError(message(spec.name, "mode", mode.name, f"{accepted} (Ascend 950 supports no other)"))
    return mode


def active_lanes(ctx: VfContext, api: str, param: str, mask: MaskReg, stride: int) -> Bools:
    """The predicate of each lane: bit `i * stride` of `mask` (a read-only view)."""
    written = mask._written
    if written is not None and ctx.config.check_uninitialized and not written[::stride].all():
        lane = int(np.argmin(written[::stride]))
        raise UninitializedReadError(f"{api}: {param} is a MaskReg whose bit for lane {lane} was never written")
    return mask._bits[::stride]


def read_lanes(ctx: VfContext, api: str, param: str, reg: RegTensor[Any], active: Bools | None) -> npt.NDArray[Any]:
    """The lanes of a source register; an active lane never written raises (when checked)."""
    if ctx.config.check_uninitialized:
        written = reg._lane_bytes_valid()
        if written is not None:
            bad = ~written if active is None else active & ~written
            if bad.any():
                lane = int(np.flatnonzero(bad)[0])
                raise UninitializedReadError(f"{api}: {param} lane {lane} is read by an active lane but was never written")
    return reg._get()


def commit(dst: RegTensor[Any], values: npt.NDArray[Any], active: Bools, mode: MaskMergeMode) -> None:
    """dst[i] = active[i] ? values[i] : (ZEROING ? 0 : dst[i]) — the one place masking happens."""
    merging = mode is MaskMergeMode.MERGING
    lanes = dst._view
    if lanes is not None:  # one register: write through its typed view
        if not merging:
            lanes.fill(0)
        np.copyto(lanes, values, where=active)
    else:
        dst._put(np.where(active, values, dst._get() if merging else np.zeros_like(values)))
    dst._mark_lanes_valid(active if merging else None)


def commit_predicate(ctx: VfContext, dst: MaskReg, lanes: Bools, stride: int) -> None:
    """Write a predicate in the MaskReg layout (lane i at bit i * stride; see Config.mask_fill)."""
    dst._set_lanes(lanes, stride, ctx.config.mask_fill)


def elementwise(spec: OpSpec, args: Sequence[Any], kwargs: Mapping[str, Any], mode: object) -> None:
    """Run an elementwise op of the table: validate, read, compute lanes, mask, write."""
    api = spec.name
    ctx = vf_context(api)
    values = args if not kwargs and len(args) == len(spec.params) else bind(api, spec.params, args, kwargs)
    regs: list[RegTensor[Any]] = []
    for i in spec.reg_params:
        reg = values[i]
        if not isinstance(reg, RegTensor) or reg.dtype not in spec.dtypes:
            check_reg(api, spec.params[i], reg, spec.dtypes)  # raises with the message
        if regs and (reg.dtype is not regs[0].dtype or reg.trait is not regs[0].trait):
            check_same(api, [spec.params[spec.reg_params[0]], spec.params[i]], [regs[0], reg])
        regs.append(reg)
    merge = mode if mode is MaskMergeMode.ZEROING and mode in spec.modes else check_mode(spec, mode)
    dst = regs[0]
    mask = check_mask(api, "mask", values[-1])
    carry = check_mask(api, "carry", values[0]) if spec.carry_out else None
    stride = mask_stride(dst.dtype, dst.trait)
    active = active_lanes(ctx, api, "mask", mask, stride)
    operands = [read_lanes(ctx, api, spec.params[i], values[i], active) for i in spec.reg_params[1:]]
    if spec.carry_in:
        operands.append(active_lanes(ctx, api, "carry_src", check_mask(api, "carry_src", values[-2]), stride))
    assert spec.lane is not None
    out = spec.lane(*operands)  # VFs run under np.errstate(all="ignore"): no FP exceptions
    if carry is not None:
        result, carry_lanes = out
        commit(dst, result, active, merge)
        commit_predicate(ctx, carry, carry_lanes & active, stride)
    else:
        commit(dst, out, active, merge)
