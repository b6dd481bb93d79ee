"""Front ends: the register-level C API, the C++ front end's parser and declarations."""
