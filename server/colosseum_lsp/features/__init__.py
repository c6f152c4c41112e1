"""Server features: one module per concern, each taking the shared ServerContext."""
