"""The memory-level APIs (`AscendC::` on LocalTensors) and the C API compares, lowered onto Reg ops."""
