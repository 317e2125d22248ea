"""Shared fixtures: a repository factory, an indexed service (deterministic embedder), the anyio backend."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pytest

from igraph_mcp.embed.hashing import HashingEmbedder
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


def _make_repo(tmp_path: Path, files: Mapping[str, str | bytes]) -> Path:
    root = tmp_path / "repo"
    root.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_repo() -> RepoFactory:
    """Factory: ``make_repo(tmp_path, {"pkg/mod.py": "...", ...})`` writes the files under tmp_path/repo."""
    return _make_repo


@pytest.fixture
def anyio_backend() -> str:
    """Run anyio tests on asyncio only."""
    return "asyncio"


@pytest.fixture
def sample_repo(tmp_path: Path) -> Path:
    """SAMPLE_REPO written to tmp_path/repo (not indexed): app/auth.py, app/db.py, main.py."""
    return _make_repo(tmp_path, SAMPLE_REPO)


@pytest.fixture
def indexed_service(sample_repo: Path) -> Iterator[IGraphService]:
    """An IGraphService over SAMPLE_REPO, indexed with HashingEmbedder(64) (fast, deterministic, offline)."""
    svc = IGraphService(sample_repo, embedder=HashingEmbedder(64))
    svc.index()
    yield svc
    svc.close()
