"""The Colosseum language server: a thin pygls adapter over the ``colosseum`` engine.

Engine data classes are converted to LSP types in ``convert`` and nowhere else; each feature is
a small module in ``features/`` that takes the shared ``ServerContext``."""
