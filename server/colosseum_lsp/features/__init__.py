"""Server features: one module per concern. Request features take a FeatureContext; commands and
hooks are marked with features.registry's decorators and take the server's context."""
