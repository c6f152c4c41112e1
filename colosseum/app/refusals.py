"""A run refused before it starts. Kept apart from ``stops`` (which reads the model layer's errors)
so that what only checks a paper, like the catalog's place, can refuse without loading it."""


class RunRefused(Exception):
    """The run cannot do what was asked (nothing to review, no such claim): said before any call."""
