"""`rs.cpp`: run unmodified Ascend C `__simd_vf__` source on the Reg model (docs/cpp.md).

    mod = rs.cpp.load("kernel.asc")               # parse once (in a child process)
    mod.AddVF[rs.uint32](dst, src0, src1, n)      # a template VF, instantiated for its arguments

Needs the `libclang` wheel (`pip install regsim[cpp]`); anything it cannot run faithfully is a
`CppError` naming the file and line.
"""

from regsim._src.frontends.cpp.module import (
    CppError,
    CppModule,
    VfFunction,
    load,
    make_arguments,
    parse_template_args,
    run_cli,
)

__all__ = ["CppError", "CppModule", "VfFunction", "load", "make_arguments", "parse_template_args", "run_cli"]
