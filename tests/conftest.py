"""Shared fixtures: a repository factory, an indexed service (deterministic embedder), every service closed at the
end of its test, the anyio backend."""

from __future__ import annotations

import importlib.util
import os
import weakref
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from _factories import make_plain_repo, open_service

from igraph_mcp.service import IGraphService

# Tests never reach the Hugging Face hub; a stray model load fails fast instead of hanging.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test of the torch extra fails, not skips, when the extra is missing: it was asked for (``-m torch``)."""
    if item.get_closest_marker("torch") is not None and importlib.util.find_spec("sentence_transformers") is None:
        pytest.fail("this test needs the torch extra: pip install -e '.[torch]' (a CPU build of torch first on Linux)")


RepoFactory = Callable[[Path, Mapping[str, str | bytes]], Path]

SAMPLE_REPO: dict[str, str] = {
    "app/auth.py": (
        '"""Authentication helpers."""\n\n'
        "from app.db import connect\n\n\n"
        "def hash_password(password):\n"
        '    """Hash a password with a salt."""\n'
        "    return password[::-1]\n\n\n"
        "def check_password(user, password):\n"
        '    """Compare a password with the stored hash."""\n'
        "    return hash_password(password) == user.password_hash\n\n\n"
        "def login(user, password):\n"
        '    """Log a user in and open a session."""\n'
        "    if not check_password(user, password):\n"
        "        return None\n"
        "    return Session(user)\n\n\n"
        "class Session:\n"
        '    """A logged-in session."""\n\n'
        "    def __init__(self, user):\n"
        "        self.user = user\n"
        "        self.db = connect()\n\n"
        "    def refresh(self):\n"
        '        """Extend the session lifetime."""\n'
        "        return login(self.user, None)\n"
    ),
    "app/db.py": (
        '"""Database access."""\n\n\ndef connect():\n    """Open a database connection."""\n    return object()\n'
    ),
    "main.py": "from app.auth import login\n\n\ndef main():\n    return login(None, 'secret')\n",
}


@pytest.fixture
def make_repo() -> RepoFactory:
    """Factory: ``make_repo(tmp_path, {"pkg/mod.py": "...", ...})`` writes the files under tmp_path/repo.

    New tests import make_repo or make_plain_repo from _factories; this fixture hands out the latter.
    """
    return make_plain_repo


@pytest.fixture(autouse=True)
def _close_every_service(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close every IGraphService the test opened when it ends, passed or failed, so a failing assertion never
    leaves a connection (and its file handles) open for the next test. Services of wider-scoped fixtures are
    opened before this starts watching and are closed by their fixtures."""
    opened: weakref.WeakSet[IGraphService] = weakref.WeakSet()
    real_init = IGraphService.__init__

    def tracking_init(self: IGraphService, *args: Any, **kwargs: Any) -> None:
        real_init(self, *args, **kwargs)
        opened.add(self)

    monkeypatch.setattr(IGraphService, "__init__", tracking_init)
    yield
    for svc in list(opened):
        svc.close()


@pytest.fixture
def anyio_backend() -> str:
    """Run anyio tests on asyncio only."""
    return "asyncio"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """SAMPLE_REPO written to tmp_path/repo (not indexed): app/auth.py, app/db.py, main.py."""
    return make_plain_repo(tmp_path, SAMPLE_REPO)


@pytest.fixture
def indexed_service(sample_repo: Path) -> Iterator[IGraphService]:
    """An IGraphService over SAMPLE_REPO, indexed with HashingEmbedder(64) (fast, deterministic, offline)."""
    with open_service(sample_repo, index=True) as svc:
        yield svc
