"""Shared fixtures: a repository factory, an indexed service (deterministic embedder), every service closed at the
end of its test, the anyio backend, and the store a test runs on.

A test marked ``both_stores`` (or a module with ``pytestmark = pytest.mark.both_stores``) runs once per store,
``[sqlite]`` and ``[postgresql]``: the factories in _factories.py give its services the store of its run, and on
PostgreSQL each run gets a fresh database (``pg_url``). ``sqlite_only`` keeps one test of such a module on SQLite
(the SQLite file's own behaviour: corruption moved aside, WAL, the lock file); ``postgresql_only`` marks a
PostgreSQL analogue. Unmarked tests run on SQLite only.
"""

from __future__ import annotations

import importlib.util
import os
import weakref
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _factories import StoreChoice, current_store, forget_store, make_plain_repo, open_service, use_store
from _pg_server import PgServer, PgUnavailable, ci_requires_postgres

from igraph_mcp.service import IGraphService

# Tests never reach the Hugging Face hub; a stray model load fails fast instead of hanging.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"


def pytest_runtest_setup(item: pytest.Item) -> None:
    """A test of the torch extra fails, not skips, when the extra is missing: it was asked for (``-m torch``)."""
    if item.get_closest_marker("torch") is not None and importlib.util.find_spec("sentence_transformers") is None:
        pytest.fail("this test needs the torch extra: pip install -e '.[torch]' (a CPU build of torch first on Linux)")


STORES = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    """Register the store markers."""
    config.addinivalue_line("markers", "both_stores: run the test once on SQLite and once on PostgreSQL")
    config.addinivalue_line(
        "markers", "sqlite_only: a test of a both_stores module that holds for the SQLite file only"
    )
    config.addinivalue_line("markers", "postgresql_only: a test that holds for the PostgreSQL store only")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise ``store_kind`` (an autouse fixture, so every test has it) by the test's store markers, at module
    scope: a module's module-scoped fixtures (an index shared by its tests) are built once per store."""
    node = metafunc.definition
    if node.get_closest_marker("postgresql_only") is not None:
        metafunc.parametrize("store_kind", ["postgresql"], indirect=True, scope="module")
    elif node.get_closest_marker("both_stores") is not None and node.get_closest_marker("sqlite_only") is None:
        metafunc.parametrize("store_kind", STORES, indirect=True, scope="module")


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PgServer]:
    """The session's PostgreSQL server (IGRAPH_TEST_DATABASE_URL, else a private one); under CI=true a server that
    cannot be reached fails the PostgreSQL tests instead of skipping them."""
    try:
        server = PgServer.open()
    except PgUnavailable as exc:
        message = f"the PostgreSQL tests need a server: {exc}"
        if ci_requires_postgres():
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """The URL of a fresh database with pgvector, dropped when the test ends."""
    url = pg_server.new_database()
    try:
        yield url
    finally:
        pg_server.drop_database(url)


@contextmanager
def _on_store(choice: StoreChoice) -> Iterator[None]:
    """Services made by the factories (and fronts reading the environment) use ``choice`` inside the block."""
    with pytest.MonkeyPatch.context() as mp:
        for var in ("IGRAPH_DATABASE_URL", "IGRAPH_DATABASE_URL_FILE"):
            mp.delenv(var, raising=False)  # a developer's own selection must not move a test onto a server
        if choice.url is not None:
            mp.setenv("IGRAPH_DATABASE_URL", choice.url)
        previous = use_store(choice)
        try:
            yield
        finally:
            use_store(previous)
            if choice.url is not None:
                forget_store(choice.url)


@pytest.fixture(scope="module", autouse=True)
def store_kind(request: pytest.FixtureRequest) -> Iterator[str]:
    """The store of this module's run: "sqlite" unless the markers ask for PostgreSQL (see above). On PostgreSQL,
    the module-scoped fixtures built while it is set up (a shared index) get a database of their own."""
    kind = getattr(request, "param", "sqlite")
    if kind == "sqlite":
        with _on_store(StoreChoice()):
            yield kind
        return
    server: PgServer = request.getfixturevalue("pg_server")
    url = server.new_database()
    try:
        with _on_store(StoreChoice("postgresql", url)):
            yield kind
    finally:
        server.drop_database(url)


@pytest.fixture(autouse=True)
def _store_of_the_test(store_kind: str, request: pytest.FixtureRequest) -> Iterator[StoreChoice]:
    """Each PostgreSQL test gets a fresh database for the repositories it makes; a root that a module fixture
    indexed keeps the module's database (the factories remember which store each root was first used with)."""
    if store_kind == "sqlite":
        yield current_store()
        return
    url = request.getfixturevalue("pg_url")
    choice = StoreChoice("postgresql", url)
    with _on_store(choice):
        yield choice


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
def _close_every_service(monkeypatch: pytest.MonkeyPatch, _store_of_the_test: StoreChoice) -> Iterator[None]:
    """Close every IGraphService the test opened when it ends, passed or failed, so a failing assertion never
    leaves a connection (and its file handles) open for the next test. Services of wider-scoped fixtures are
    opened before this starts watching and are closed by their fixtures. It depends on the test's store so that
    the services close before a PostgreSQL test's database is dropped."""
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
