"""Whole kernels: GM tensors, DataCopy, queues and pipes, a grid of cores (the floor above the lowerings)."""
