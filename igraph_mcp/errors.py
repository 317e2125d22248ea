"""Error hierarchy: every message tells the user or agent what to do next."""

from __future__ import annotations

from igraph_mcp.next_step import NextStep, steps


class IGraphError(Exception):
    """Base class for expected failures that are reported to the user, never as tracebacks.

    The message leaves its advice as next-step slots (``next_step.ask``); each front words them in its terms."""

    @property
    def next_steps(self) -> list[tuple[NextStep, str]]:
        """The steps the message advises, in order, each with its detail."""
        return steps(str(self))


class InvalidInput(IGraphError):
    """A query, path or argument that cannot be accepted as given."""


class PathOutsideRoot(InvalidInput):
    """A path argument that resolves outside the repository root."""


class UnknownRepository(InvalidInput):
    """A ``repo`` argument that names no repository of this server (or one the caller may not see)."""


class NotIndexed(IGraphError):
    """The repository has no index yet."""


class IndexBusy(IGraphError):
    """Another process or task is already writing the index."""


class SchemaTooNew(IGraphError):
    """The index was written by a newer igraph-mcp."""


class ConfigError(IGraphError):
    """The configuration file is invalid or unsafe."""


class EmbedderError(IGraphError):
    """The embedding backend failed or is unavailable."""


class ResourceError(IGraphError):
    """A document or schema could not be mounted."""


class StorageError(IGraphError):
    """The index could not be written (disk full, I/O error); what was committed before still answers."""


class IndexDamaged(StorageError):
    """The store reports the index itself as damaged (a SQLite file that is no longer a database)."""


class NameTaken(IGraphError):
    """A repository name in a shared store that is bound to another repository."""


class NothingToIndex(IGraphError):
    """A tree where the walk finds no file to index (a wrong root, or ignore rules that leave out everything)."""


class MassDelete(IGraphError):
    """A run that would delete most of a repository's index (a wrong root, an emptied checkout): refused."""
