"""Named bearer tokens: the token file (hashed at rest), its edits, and the table a server keeps current.

The file is JSON, written by ``igraph-mcp token add`` and read by ``serve --tokens FILE``::

    {"version": 1, "tokens": [
      {"name": "alice", "sha256": "<hex of sha256(token)>", "role": "write", "repos": null, "created": "..."},
      {"name": "ci-bot", "sha256": "...", "role": "read", "repos": ["igraph-mcp"], "created": "..."}]}

Only the hash is stored. Tokens are 256 random bits made by ``new_token``, so a fast hash is enough: a slow
KDF would cost every request and protects nothing that 2**256 guesses do not. The server re-reads the file when
its stat signature changes (checked on every request: one ``stat``), so ``token revoke`` takes effect on the next
request; a malformed file keeps the last good table and logs one error, it never opens the door.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from igraph_mcp.access import Identity, Role, is_path
from igraph_mcp.errors import ConfigError, InvalidInput

log = logging.getLogger(__name__)

TOKENS_FILE_ENV = "IGRAPH_HTTP_TOKENS_FILE"
ENV_TOKEN_NAME = "env"  # noqa: S105 - the name IGRAPH_HTTP_TOKEN acts as (write, every repository), not a secret
TOKEN_PREFIX = "igraph_"  # noqa: S105 - a public prefix that lets secret scanners recognise a leaked token
MAX_FILE_BYTES = 1_000_000
FILE_VERSION = 1
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$")  # safe to print in a log line as it is
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class TokenEntry:
    """One row of the token file (the token itself is never kept, only its sha256)."""

    name: str
    sha256: str
    role: Role = "write"
    repos: tuple[str, ...] | None = None
    created: str = ""

    def identity(self) -> Identity:
        """The identity a request presenting this token acts as."""
        return Identity(self.name, self.role, self.repos)

    def to_json(self) -> dict[str, Any]:
        """The row as written to the file."""
        return {
            "name": self.name,
            "sha256": self.sha256,
            "role": self.role,
            "repos": list(self.repos) if self.repos is not None else None,
            "created": self.created,
        }


# -- tokens and hashes ---------------------------------------------------------------------------------------
def new_token() -> str:
    """A fresh random bearer token (256 bits)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """The hex sha256 stored for ``token``."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_name(name: str) -> str:
    """A token name fit for the file and the log, or InvalidInput saying what is allowed."""
    if not _NAME.match(name):
        raise InvalidInput(
            "a token name is 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit"
        )
    if name == ENV_TOKEN_NAME:
        raise InvalidInput(f"'{ENV_TOKEN_NAME}' names IGRAPH_HTTP_TOKEN; choose another name")
    return name


def parse_table(text: str) -> tuple[TokenEntry, ...]:
    """The entries of a token file's text; ConfigError naming the first problem."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ConfigError("nested too deeply to be a token file") from None
    if not isinstance(data, dict) or not isinstance(data.get("tokens"), list):
        raise ConfigError('expected an object {"version": 1, "tokens": [...]}')
    if data.get("version") != FILE_VERSION:
        raise ConfigError(f"unsupported version {data.get('version')!r} (this igraph-mcp reads {FILE_VERSION})")
    entries: list[TokenEntry] = []
    names: set[str] = set()
    for i, row in enumerate(data["tokens"]):
        entries.append(_parse_row(i, row))
        if entries[-1].name in names:
            raise ConfigError(f"tokens[{i}]: the name '{entries[-1].name}' appears twice")
        names.add(entries[-1].name)
    return tuple(entries)


def _parse_row(i: int, row: object) -> TokenEntry:
    where = f"tokens[{i}]"
    if not isinstance(row, dict):
        raise ConfigError(f"{where} is not an object")
    name, digest, role, repos = row.get("name"), row.get("sha256"), row.get("role", "write"), row.get("repos")
    if not isinstance(name, str) or not _NAME.match(name) or name == ENV_TOKEN_NAME:
        raise ConfigError(f"{where}: 'name' must be 1-64 letters, digits, '.', '_', '@' or '-' (not 'env')")
    if not isinstance(digest, str) or not _HEX64.match(digest):
        raise ConfigError(f"{where} ({name}): 'sha256' must be 64 lower-case hex digits")
    if role not in ("read", "write"):
        raise ConfigError(f"{where} ({name}): 'role' must be 'read' or 'write'")
    if repos is not None and (not isinstance(repos, list) or not all(isinstance(r, str) and r for r in repos)):
        raise ConfigError(f"{where} ({name}): 'repos' must be null (all) or a list of names or paths")
    if repos is not None and any(is_path(r) and not os.path.isabs(r) for r in repos):
        # relative to what? the server's working directory is no one's intent
        raise ConfigError(f"{where} ({name}): a path in 'repos' must be absolute (or give the directory name)")
    created = row.get("created", "")
    return TokenEntry(
        name, digest, role, tuple(repos) if repos is not None else None, created if isinstance(created, str) else ""
    )


def read_table(path: Path) -> tuple[TokenEntry, ...]:
    """Read and check a token file; ConfigError saying what is wrong and what to do."""
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise ConfigError(f"token file {path} is not a regular file")
        if os.name == "posix" and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            # whoever can write the file can add a token for themselves
            raise ConfigError(f"token file {path} is writable by other users; run chmod 600 {path}")
        if hasattr(os, "geteuid") and info.st_uid not in (os.geteuid(), 0):
            # a file swapped in by another user (in a shared directory such as /tmp) is theirs, not the admin's
            raise ConfigError(f"token file {path} belongs to another user; keep it owned by the server's user or root")
        if info.st_size > MAX_FILE_BYTES:
            raise ConfigError(f"token file {path} is larger than {MAX_FILE_BYTES} bytes")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"token file {path} does not exist; create it with `igraph-mcp token add NAME --tokens {path}`"
        ) from None
    except PermissionError:
        raise ConfigError(
            f"token file {path} cannot be read by this user; chown it to the server's user "
            "(or chmod 640 and share a group)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"token file {path} cannot be read ({exc.__class__.__name__})") from None
    try:
        return parse_table(text)
    except ConfigError as exc:
        raise ConfigError(f"token file {path}: {exc}; fix it (igraph-mcp token list checks it)") from None


def write_table(path: Path, entries: tuple[TokenEntry, ...]) -> None:
    """Replace the token file atomically, readable and writable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps({"version": FILE_VERSION, "tokens": [e.to_json() for e in entries]}, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)  # mkstemp: mode 0600
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        if path.exists():  # keep who may read it (the server may run as another user), never who may write
            old = path.stat()
            os.chmod(tmp, stat.S_IMODE(old.st_mode) & ~(stat.S_IWGRP | stat.S_IWOTH))
            if hasattr(os, "chown") and os.geteuid() == 0:
                os.chown(tmp, old.st_uid, old.st_gid)
        os.replace(tmp, path)  # a server reading at this moment sees the old file or the new one, never half
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add_token(path: Path, name: str, *, role: Role, repos: tuple[str, ...] | None) -> tuple[str, TokenEntry]:
    """Create a token named ``name``; returns the token (shown once, never stored) and its row."""
    check_name(name)
    if repos is not None:  # a path is stored absolute: the server resolves it, from its own directory
        repos = tuple(os.path.realpath(r) if is_path(r) else r for r in repos)
    with _editing(path):
        entries = read_table(path) if path.exists() else ()
        if any(e.name == name for e in entries):
            raise InvalidInput(f"a token named '{name}' exists; revoke it first (igraph-mcp token revoke {name})")
        token = new_token()
        created = datetime.now(UTC).replace(microsecond=0).isoformat()
        entry = TokenEntry(name, token_hash(token), role, repos, created)
        write_table(path, (*entries, entry))
    return token, entry


def revoke_token(path: Path, name: str) -> TokenEntry:
    """Remove the token named ``name``; InvalidInput when there is none."""
    with _editing(path):
        entries = read_table(path)
        kept = tuple(e for e in entries if e.name != name)
        if len(kept) == len(entries):
            raise InvalidInput(f"no token named '{name}' in {path}; igraph-mcp token list shows the names")
        write_table(path, kept)
    return next(e for e in entries if e.name == name)


@contextmanager
def _editing(path: Path) -> Iterator[None]:
    """One editor of a token file at a time: two `token add` at once would otherwise lose one of the tokens."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        import fcntl
    except ImportError:  # no advisory locks (Windows): edits stay atomic, only a simultaneous one can be lost
        yield
        return
    with open(path.with_name(f".{path.name}.lock"), "a", encoding="utf-8") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


# -- the server's table --------------------------------------------------------------------------------------
def _signature(info: os.stat_result) -> tuple[int, ...]:
    # an atomic replace changes the inode; an edit in place changes size or mtime (ctime catches the rest)
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@dataclass
class TokenTable:
    """The tokens a server accepts: IGRAPH_HTTP_TOKEN (as 'env') and the rows of a token file, kept current."""

    env_token: str | None = None
    path: Path | None = None
    _entries: tuple[TokenEntry, ...] = ()
    _seen: tuple[int, ...] | None = field(default=None, repr=False)

    @property
    def required(self) -> bool:
        """True when requests must carry a token (decided by configuration, never by what the file holds)."""
        return self.env_token is not None or self.path is not None

    def load(self) -> None:
        """First read at start: a missing or malformed file is a ConfigError (the server does not start)."""
        if self.path is None:
            return
        signature = _signature(self.path.stat()) if self.path.exists() else None
        self._entries = read_table(self.path)
        self._seen = signature

    def refresh(self) -> None:
        """Re-read the file when its stat signature changed; keep the last good table when it is malformed."""
        if self.path is None:
            return
        try:
            signature: tuple[int, ...] | None = _signature(self.path.stat())
        except FileNotFoundError:
            signature = None
        except OSError as exc:
            log.error("token file %s cannot be checked (%s); keeping the last good table", self.path, exc)
            return
        if signature == self._seen:
            return
        self._seen = signature
        if signature is None:
            # deleted: fail closed (every named token stops working) rather than keep serving revoked ones
            log.error("token file %s was removed; no named token is accepted until it is back", self.path)
            self._entries = ()
            return
        try:
            self._entries = read_table(self.path)
        except ConfigError as exc:
            log.error("%s; keeping the last good table (%d tokens)", exc, len(self._entries))
            return
        log.warning("token file %s reloaded: %d tokens", self.path, len(self._entries))

    def authenticate(self, presented: str | None) -> Identity | None:
        """The identity holding ``presented``, or None; every candidate is compared, in constant time."""
        if not presented:
            return None
        self.refresh()
        found: Identity | None = None
        digest = token_hash(presented).encode("ascii")
        if self.env_token is not None and hmac.compare_digest(
            presented.encode("utf-8"), self.env_token.encode("utf-8")
        ):
            found = Identity(ENV_TOKEN_NAME)
        for entry in self._entries:  # no early exit: the time taken does not say which row matched
            if hmac.compare_digest(digest, entry.sha256.encode("ascii")) and found is None:
                found = entry.identity()
        return found

    def names(self) -> tuple[str, ...]:
        """The names of the accepted tokens (for the start-up line)."""
        return ((ENV_TOKEN_NAME,) if self.env_token else ()) + tuple(e.name for e in self._entries)
