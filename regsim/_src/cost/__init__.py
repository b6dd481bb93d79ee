"""The cost floor: what a kernel or a vector function would cost on the 950 (`rs.profile`), read from what the
lower floors record (the detailed `rs.trace`, the pipe event log), priced by one data file (`cost_table.toml`)."""
