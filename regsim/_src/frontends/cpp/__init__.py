"""The C++ front end: libclang parses Ascend C source in a child process (parse), the Reg and C API functions
are declared to it from the op registry (declarations), each function is lowered to Python over the Reg model
(lowering), and a parsed file's VFs are instantiated, checked and run (module; `regsim/cpp.py` is its face)."""
