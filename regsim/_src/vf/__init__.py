"""The VF runtime: loops run batched or in order, the batched backend, trace and debug printing."""
