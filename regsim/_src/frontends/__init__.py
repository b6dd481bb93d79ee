"""Front ends: the C API (capi), the C++ front end (cpp), the `regsim` command (cli)."""
