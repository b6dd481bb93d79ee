"""`regsim run FILE.py --kernel NAME --block-dim N --args ...`: launch a kernel of a Python file on host arrays.

One `--args` value per kernel parameter, in order:

    x.npy               a numpy file (its array is the GM buffer)
    half[8,2048]        a new array of that shape, random (floats uniform in [-10, 10), integers over their range)
    float32[1024]=0     filled with a value;  int32[64]=iota  0, 1, 2, ...
    1024, 0.5           a number (a scalar parameter);  none  a null pointer

The kernel's keyword-only (C++ template) parameters: `--template name=value,...` (ints, floats, true / false).
After the launch each array is summarised in a line; `--save DIR` writes them as DIR/<parameter>.npy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import numpy.typing as npt

from regsim._src.cost.profile import profile_call
from regsim._src.kernel.launch import Kernel, launch
from regsim._src.model import dtypes as dt

_ARRAY = re.compile(r"^(\w+)\[([\d,\s]+)\](?:=(.+))?$")


def host_value(spec: str, rng: np.random.Generator) -> Any:
    """An `--args` value: a host array, a number, or None. A `ValueError` says what is wrong with the spelling."""
    text = spec.strip()
    if text.lower() in ("none", "nullptr"):
        return None
    if text.endswith(".npy"):
        if not Path(text).is_file():
            raise ValueError(f"{text}: no such .npy file")
        return np.ascontiguousarray(np.load(text))
    m = _ARRAY.match(text)
    if m is None:
        try:
            return int(text, 0)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                spellings = "DTYPE[N] (e.g. half[1024] or float32[8,2048]), DTYPE[N]=V, DTYPE[N]=iota, FILE.npy, a number or none"
                raise ValueError(f"{text!r}: write {spellings}") from None
    name, dims, fill = m.groups()
    dtype = getattr(dt, name, None)
    if not dt.is_dtype(dtype):
        raise ValueError(f"{text!r}: {name} is not a regsim dtype (half, float32, int8, uint8, ...)")
    shape = tuple(int(d) for d in dims.split(",") if d.strip())
    np_dtype: Any = dtype.np_dtype  # type: ignore[union-attr]
    if fill is None:
        if np.issubdtype(np_dtype, np.integer):
            info = np.iinfo(np_dtype)
            return rng.integers(info.min, info.max, shape, dtype=np_dtype, endpoint=True)
        return rng.uniform(-10, 10, shape).astype(np_dtype)
    if fill == "iota":
        return np.arange(int(np.prod(shape))).reshape(shape).astype(np_dtype)
    return np.full(shape, float(fill) if "." in fill else int(fill, 0)).astype(np_dtype)


def template_values(text: str) -> dict[str, Any]:
    """`--template a=1,b=true,scale=0.5` as keyword arguments."""
    out: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in text.split(","))):
        name, eq, value = item.partition("=")
        if not eq or not name.isidentifier():
            raise ValueError(f"--template {item!r}: write name=value (e.g. total_length=16384)")
        low = value.strip().lower()
        out[name.strip()] = low == "true" if low in ("true", "false") else host_value(value, np.random.default_rng(0))
    return out


def run_kernel(
    k: Kernel[Any],
    block_dim: int,
    specs: Sequence[str],
    template: str,
    workers: int | None,
    seed: int,
    save: str | None,
    out: TextIO,
    profile: bool = False,
    chrome: str | None = None,
) -> None:
    """Launch `k` on the host values `specs` describe; print each array's summary, save them if asked."""
    rng = np.random.default_rng(seed)
    params = [p for p in k.signature.parameters.values() if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(specs) != len(params):
        names = ", ".join(p.name for p in params)
        raise ValueError(f"--args gives {len(specs)} values, kernel {k.name} takes {len(params)} ({names})")
    values = [host_value(spec, rng) for spec in specs]
    kw = template_values(template)
    if profile:
        if workers is not None:
            raise ValueError("--profile runs the blocks in this process: drop --workers")
        prof = profile_call(lambda: launch(k, block_dim, *values, **kw), k.name)[1]
        if chrome is not None:
            prof.chrome_trace(chrome)
    else:
        launch(k, block_dim, *values, workers=workers, **kw)
    how = "in order" if workers is None else f"in {workers} worker processes"
    out.write(f"OK kernel {k.name} on {block_dim} blocks ({how})\n")
    for p, v in zip(params, values, strict=True):
        if isinstance(v, np.ndarray):
            out.write(f"  {p.name}: {v.dtype}{list(v.shape)}  {_summary(v)}\n")
            if save is not None:
                Path(save).mkdir(parents=True, exist_ok=True)
                np.save(Path(save) / f"{p.name}.npy", v)
    if profile:
        out.write(prof.report() + "\n")


def _summary(v: npt.NDArray[Any]) -> str:
    flat = v.reshape(-1)
    head = " ".join(str(x) for x in flat[:4].tolist())
    return f"[{head}{' ...' if flat.size > 4 else ''}]"
