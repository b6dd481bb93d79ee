"""The model: dtypes and their codecs, enums and structs, registers, one core's UB and special registers."""
