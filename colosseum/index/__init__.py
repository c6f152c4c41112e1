"""The project index: the stage that composes scan, chunks, walk, link, graph and checks."""

from colosseum.index.project_index import IndexSnapshot, ProjectError, ProjectIndex

__all__ = ["IndexSnapshot", "ProjectError", "ProjectIndex"]
