"""The Reg ops, one module per family, each registering its specs; importing this package registers
them all, so `REGISTRY` here is the complete op table (the Reg namespace is `namespace`)."""

from regsim._src.engine.spec import REGISTRY
from regsim._src.ops import (
    arith,
    compare,
    compound,
    convert,
    datamove,
    logic,
    mask,
    mask_data,
    rearrange,
    reduce,
    scalars,
    sync,
    transcendental,
)

__all__ = [
    "REGISTRY",
    "arith",
    "compare",
    "compound",
    "convert",
    "datamove",
    "logic",
    "mask",
    "mask_data",
    "rearrange",
    "reduce",
    "scalars",
    "sync",
    "transcendental",
]
