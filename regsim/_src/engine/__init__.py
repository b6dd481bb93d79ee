"""The op engine: op specs and the registry, executors by op shape, the backend seam, the VF context."""
