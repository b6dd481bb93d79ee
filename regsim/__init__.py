"""regsim: a bit-exact CPU model of the Ascend 950 vector core's register-level (Reg) API.

    import regsim as rs
    from regsim import Reg

See README.md for a tour, docs/api.md for the public API and docs/cpp-to-python.md for how
C++ maps to Python.
"""

from regsim import capi, cpp, errors, registry, strategies, testing
from regsim._src.api import ascendc as AscendC
from regsim._src.api.ascendc import GetVecLen
from regsim._src.cost.lint import Finding
from regsim._src.cost.profile import BankConflict, Profile, profile
from regsim._src.engine.context import Ref
from regsim._src.frontends.lint import lint
from regsim._src.kernel.gm import GmPtr
from regsim._src.kernel.launch import Kernel, KernelRun, kernel, launch
from regsim._src.kernel.pipes import PipeEvent
from regsim._src.lowerings.explorer import lower
from regsim._src.model.config import Config, configure
from regsim._src.model.dtypes import (
    DType,
    bfloat16,
    bool_,
    complex32,
    complex64,
    float32,
    float64,
    fp4x2_e1m2,
    fp4x2_e2m1,
    fp8_e4m3fn,
    fp8_e5m2,
    fp8_e8m0,
    half,
    hifloat8,
    int4x2,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from regsim._src.model.enums import CMPMODE
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.ops import namespace as Reg
from regsim._src.vf.debug import asc_dump, asc_dump_reg, asc_dump_ubuf, printf
from regsim._src.vf.loops import explain, vf_range
from regsim._src.vf.runtime import VEC_SCOPE, asc_vf_call, simd_callee, simd_vf
from regsim._src.vf.trace import Trace, trace

MicroAPI = Reg

__version__ = "0.1.0"

__all__ = [
    "CMPMODE",
    "VEC_SCOPE",
    "AscendC",
    "BankConflict",
    "Config",
    "DType",
    "Finding",
    "GetVecLen",
    "GmPtr",
    "Kernel",
    "KernelRun",
    "LocalTensor",
    "MicroAPI",
    "PipeEvent",
    "Profile",
    "Ref",
    "Reg",
    "Trace",
    "UbPtr",
    "UnifiedBuffer",
    "asc_dump",
    "asc_dump_reg",
    "asc_dump_ubuf",
    "asc_vf_call",
    "bfloat16",
    "bool_",
    "capi",
    "complex32",
    "complex64",
    "configure",
    "cpp",
    "errors",
    "explain",
    "float32",
    "float64",
    "fp4x2_e1m2",
    "fp4x2_e2m1",
    "fp8_e4m3fn",
    "fp8_e5m2",
    "fp8_e8m0",
    "half",
    "hifloat8",
    "int4x2",
    "int8",
    "int16",
    "int32",
    "int64",
    "kernel",
    "launch",
    "lint",
    "lower",
    "printf",
    "profile",
    "registry",
    "simd_callee",
    "simd_vf",
    "strategies",
    "testing",
    "trace",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "vf_range",
]  # fmt: skip
