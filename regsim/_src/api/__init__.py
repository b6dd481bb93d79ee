"""The public namespaces assembled from the floors below (`AscendC`), and the command line."""
