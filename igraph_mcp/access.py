"""Who is asking, and may they: identities, roles, repository allow-lists, the request's identity, the access log.

The identity of the request being served travels in a context variable set by the HTTP guard (transport). The
SDK hands each message to its handler in the context of the request that carried it, so a tool sees the token of
*its* request, and nothing a client sends (a header, an argument) can set it. Where the tokens come from is
tokens.py.
"""

from __future__ import annotations

import contextvars
import json
import logging
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal

access_log = logging.getLogger("igraph_mcp.access")

_PLAIN_FIELD = re.compile(r"^[A-Za-z0-9._@:/+-]+$")  # printed as is; anything else is quoted (no forged lines)
Role = Literal["read", "write"]


# -- records -------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Repository:
    """A repository a request is about: its directory name and its real path."""

    name: str
    path: str

    @classmethod
    def of(cls, root: str | os.PathLike[str]) -> Repository:
        """The repository served from ``root``."""
        real = os.path.realpath(root)
        return cls(name=os.path.basename(real) or real, path=real)


@dataclass(frozen=True)
class Identity:
    """The holder of one token: a name for the log, a role, and the repositories it may see (None: all)."""

    name: str
    role: Role = "write"
    repos: tuple[str, ...] | None = None

    @property
    def can_write(self) -> bool:
        """True when the token may index, mount and unmount."""
        return self.role == "write"

    def may_see(self, repo: Repository) -> bool:
        """True when the allow-list is absent or names ``repo`` by directory name or by (absolute) real path."""
        if self.repos is None:
            return True
        return any(
            os.path.realpath(entry) == repo.path if is_path(entry) else entry == repo.name for entry in self.repos
        )


def is_path(entry: str) -> bool:
    """An allow-list entry naming a directory by path (it has a separator) rather than by name."""
    return "/" in entry or os.sep in entry


@dataclass(frozen=True)
class RequestAccess:
    """What the HTTP guard established about the request being served."""

    identity: Identity
    repo: Repository
    log_queries: bool = False


# -- the identity of the current request ---------------------------------------------------------------------
_current: contextvars.ContextVar[RequestAccess | None] = contextvars.ContextVar("igraph_request_access", default=None)


def current_access() -> RequestAccess | None:
    """The access of the request being served; None outside an HTTP request (stdio, in-process clients)."""
    return _current.get()


@contextmanager
def acting_as(access: RequestAccess) -> Iterator[None]:
    """Bind ``access`` to everything that runs for this request (used by the HTTP guard only)."""
    reset = _current.set(access)
    try:
        yield
    finally:
        _current.reset(reset)


def refusal(access: RequestAccess | None, tool: str, *, writes: bool, repo: Repository | None = None) -> str | None:
    """Why ``access`` may not call ``tool`` (a writing tool when ``writes``) on ``repo``, or None when it may.

    ``repo`` defaults to the server's repository; a server of several repositories passes the one a call names,
    and a repository the token may not see is answered as if it did not exist (nothing about it leaks).
    """
    if access is None:
        return None  # stdio and in-process: the user's own process, full access
    who = access.identity
    if repo is not None and repo != access.repo and not who.may_see(repo):
        return f"no repository '{repo.name}' on this server"
    if not who.may_see(access.repo):
        return f"token '{who.name}' may not use this repository; ask the server's admin to add it to the token"
    if writes and not who.can_write:
        return (
            f"token '{who.name}' is read-only: {tool} changes the index or its resources. Use the read tools "
            "(igraph_explore, igraph_node, igraph_file, igraph_related, igraph_status, igraph_list_resources), "
            "or ask the server's admin for a write token (igraph-mcp token add NAME)"
        )
    return None


def log_call(
    access: RequestAccess | None, tool: str, seconds: float, outcome: str, arguments: Mapping[str, Any]
) -> None:
    """One access-log line per tool call: who, tool, repository (the one a workspace call names), duration,
    outcome (arguments only if asked)."""
    if access is None:
        return
    named = arguments.get("repo")
    repo = named[:100] if isinstance(named, str) else access.repo.name
    line = (
        f"access user={access.identity.name} role={access.identity.role} tool={tool} "
        f"repo={log_field(repo)} ms={seconds * 1000:.1f} outcome={outcome}"
    )
    if access.log_queries:
        # json.dumps escapes newlines and control characters: one argument cannot forge a second log line
        line += " args=" + json.dumps(dict(arguments), ensure_ascii=True, default=str)[:2000]
    access_log.info("%s", line)


def log_refusal(who: str, repo: Repository, status: int, reason: str, client: str) -> None:
    """The access-log line of a request the HTTP guard refused (no tool ran)."""
    access_log.info(
        "access user=%s repo=%s status=%d outcome=refused reason=%s client=%s",
        log_field(who),
        log_field(repo.name),
        status,
        reason,
        log_field(client),
    )


def log_field(value: str) -> str:
    """``value`` as one space-free log field: quoted and escaped (JSON) unless it is plain."""
    return value if _PLAIN_FIELD.match(value) else json.dumps(value, ensure_ascii=True)
