"""`AscendC::`: the namespace above `Reg` (`rs.AscendC`). So far: `VF_CALL`, the shared enums,
and `Reg` itself (`rs.AscendC.Reg is rs.Reg`); the LocalTensor-level APIs are lowerings to come.
"""

from regsim._src import reg as Reg
from regsim._src.context import VF_CALL
from regsim._src.enums import CMPMODE, RoundMode, SpecialPurposeReg, TPosition

MicroAPI = Reg

__all__ = ["CMPMODE", "VF_CALL", "MicroAPI", "Reg", "RoundMode", "SpecialPurposeReg", "TPosition"]
