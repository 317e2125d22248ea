"""Tests for the service: node/file/related, staleness, status, corrupt/newer DBs, two writers, config."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from _factories import as_agent, as_person, edit_file, index_repo, make_repo, make_service, store_for

from igraph_mcp.config import CONFIG_DIR, load_config, write_default_config
from igraph_mcp.errors import ConfigError, IndexBusy, InvalidInput, NotIndexed, PathOutsideRoot, SchemaTooNew
from igraph_mcp.store.db import SqliteDatabase
from igraph_mcp.store.schema import SCHEMA_VERSION

FILES = {
    "svc/models.py": '''
        class Account:
            """A customer account."""

            def deposit(self, amount):
                return self.apply(amount)

            def apply(self, amount):
                return validate_amount(amount)

        def validate_amount(amount):
            """Reject negative amounts."""
            return amount >= 0
        ''',
    "svc/api.py": """
        from svc.models import Account

        def handle_deposit(req):
            return Account().deposit(req.amount)

        def helper():
            return 1
        """,
    "other/tools.py": "def helper():\n    return 2\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, FILES)


@pytest.fixture(scope="module")
def shared_svc(tmp_path_factory: pytest.TempPathFactory, store_kind: str):  # type: ignore[no-untyped-def]
    """FILES indexed once per store, for the tests that only read the index."""
    service = index_repo(make_repo(tmp_path_factory.mktemp("service"), FILES))
    try:
        yield service
    finally:
        service.close()


@pytest.fixture
def svc(repo: Path):  # type: ignore[no-untyped-def]
    service = index_repo(repo)
    try:
        yield service
    finally:
        service.close()


# -- node / file / related -----------------------------------------------------------------------------------
@pytest.mark.both_stores
def test_node_found_with_source_and_edges(shared_svc) -> None:  # type: ignore[no-untyped-def]
    d = shared_svc.node("Account.apply")
    assert d.found and d.node.qualifiedName == "Account.apply" and d.node.filePath == "svc/models.py"
    assert d.source.lstrip().startswith("def apply(self, amount):") and not d.sourceTruncated
    assert [c.qualifiedName for c in d.callers] == ["Account.deposit"]
    assert [(c.name, c.resolution) for c in d.callees] == [("validate_amount", "same_file")]
    assert d.stale is False


@pytest.mark.both_stores
@pytest.mark.parametrize("name", ["Account::apply", "Account#apply", "svc.models.Account.apply", " Account.apply "])
def test_node_name_forms(shared_svc, name: str) -> None:  # type: ignore[no-untyped-def]
    d = shared_svc.node(name)
    assert d.found and d.node.qualifiedName == "Account.apply"


@pytest.mark.both_stores
def test_node_ambiguous_lists_candidates_and_file_disambiguates(shared_svc) -> None:  # type: ignore[no-untyped-def]
    d = shared_svc.node("helper")
    assert not d.found and "ambiguous" in d.message
    assert sorted(c.filePath for c in d.candidates) == ["other/tools.py", "svc/api.py"]
    one = shared_svc.node("helper", file="other/tools.py")
    assert one.found and one.node.filePath == "other/tools.py"


@pytest.mark.both_stores
def test_node_not_found_is_a_normal_answer(shared_svc) -> None:  # type: ignore[no-untyped-def]
    d = shared_svc.node("does_not_exist")
    assert d.found is False and d.node is None and "igraph_explore" in as_agent(d.message)


@pytest.mark.both_stores
@pytest.mark.parametrize("bad", ["", "   ", "x" * 501])
def test_node_bad_names_rejected(shared_svc, bad: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InvalidInput, match="name"):
        shared_svc.node(bad)


@pytest.mark.both_stores
def test_file_outline_exact_and_suffix(shared_svc) -> None:  # type: ignore[no-untyped-def]
    f = shared_svc.file("svc/models.py")
    assert f.found and f.language == "python" and f.parseStatus == "ok"
    assert [s.qualifiedName for s in f.symbols] == [
        "Account",
        "Account.deposit",
        "Account.apply",
        "validate_amount",
    ]
    assert shared_svc.file("models.py").filePath == "svc/models.py"
    assert shared_svc.file("./svc/api.py").found
    assert shared_svc.file("api.py").imports == ["svc.models.Account"]


@pytest.mark.both_stores
def test_file_not_found_and_outside_root(shared_svc) -> None:  # type: ignore[no-untyped-def]
    missing = shared_svc.file("nope.py")
    assert missing.found is False and "igraph_index" in as_agent(missing.message)
    with pytest.raises(PathOutsideRoot):
        shared_svc.file("../../etc/passwd")
    with pytest.raises(PathOutsideRoot):
        shared_svc.file("/etc/passwd")


@pytest.mark.both_stores
def test_related_callers_and_callees(shared_svc) -> None:  # type: ignore[no-untyped-def]
    r = shared_svc.related("Account.apply", "both", 1)
    got = {(n.qualifiedName, n.direction) for n in r.related}
    assert got == {("Account.deposit", "caller"), ("validate_amount", "callee")}
    callers2 = shared_svc.related("Account.apply", "callers", 2)
    assert {(n.qualifiedName, n.distance) for n in callers2.related} == {
        ("Account.deposit", 1),
        ("handle_deposit", 2),
    }
    assert shared_svc.related("nothing_here").found is False
    assert shared_svc.related("helper").candidates
    with pytest.raises(InvalidInput, match="direction"):
        shared_svc.related("Account.apply", "sideways")
    with pytest.raises(InvalidInput, match="hops"):
        shared_svc.related("Account.apply", "both", 0)


# -- staleness and status ------------------------------------------------------------------------------------
@pytest.mark.both_stores
def test_stale_files_flagged_after_an_edit(svc, repo: Path) -> None:  # type: ignore[no-untyped-def]
    edit_file(repo, "svc/models.py", (repo / "svc/models.py").read_text() + "\n# edited\n")
    assert svc.node("validate_amount").stale is True
    assert svc.file("svc/models.py").stale is True and svc.file("svc/api.py").stale is False
    r = svc.explore("validate_amount", hops=0)
    assert r.hits[0].stale and "svc/models.py" in r.diagnostics.staleFiles and "igraph_index" in as_agent(r.note)
    st = svc.status()
    assert st.staleCount == 1 and st.staleFiles == ["svc/models.py"]
    svc.index()
    assert svc.status().staleCount == 0 and not svc.node("validate_amount").stale


@pytest.mark.both_stores
def test_deleted_file_is_stale(svc, repo: Path) -> None:  # type: ignore[no-untyped-def]
    (repo / "other/tools.py").unlink()
    assert svc.status().staleFiles == ["other/tools.py"]


@pytest.mark.both_stores
def test_status_counts(shared_svc) -> None:  # type: ignore[no-untyped-def]
    st = shared_svc.status()
    nodes = shared_svc.db.scalar("SELECT count(*) FROM nodes")
    assert st.indexed and st.files == shared_svc.db.scalar("SELECT count(*) FROM files")
    assert st.symbols == nodes - st.files  # every file has one module node
    assert st.edges == shared_svc.db.scalar("SELECT count(*) FROM edges WHERE target_id IS NOT NULL")
    assert st.edgeKinds["calls"] >= 3 and st.edgeKinds["contains"] >= 5
    assert st.languages == {"python": st.files}
    assert st.embedder == "hash:64" and st.embedderDimension == 64
    assert st.vectors == nodes and st.denseCoverage == 1.0
    assert st.schemaVersion == SCHEMA_VERSION and st.dbBytes > 0 and st.lastBuild


@pytest.mark.both_stores
def test_status_before_any_index(repo: Path) -> None:
    st = make_service(repo).status()
    assert st.indexed is False and st.files == 0 and "igraph-mcp index" in as_person(st.notes[0])


@pytest.mark.both_stores
def test_queries_before_index_say_what_to_do(repo: Path) -> None:
    service = make_service(repo)
    try:
        with pytest.raises(NotIndexed) as caught:
            service.explore("anything")
        assert "igraph-mcp index" in as_person(str(caught.value))
        with pytest.raises(NotIndexed):
            service.node("Account")
    finally:
        service.close()


def test_root_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="not a directory"):
        make_service(tmp_path / "missing")


# -- durability: D4, D5, D6 ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "garbage", [b"garbage bytes, definitely not sqlite" * 50, b"SQLite format 3\x00" + b"\x07" * 5000]
)
def test_corrupt_db_is_moved_aside_and_rebuilt(repo: Path, garbage: bytes) -> None:
    write_default_config(repo)
    mounts = repo / CONFIG_DIR / "mounts.json"
    mounts.write_text('{"sources": []}', encoding="utf-8")
    db_path = repo / CONFIG_DIR / "igraph.db"
    db_path.write_bytes(garbage)
    service = make_service(repo)
    try:
        r = service.index()
        assert r.recoveredFrom is not None and r.files > 0
        assert service.node("validate_amount").found
        aside = list((repo / CONFIG_DIR).glob("igraph.db.corrupt-*"))
        assert aside and aside[0].read_bytes() == garbage
        assert json.loads((repo / CONFIG_DIR / "config.json").read_text())["retrieval"]["rrfK"] == 60
        assert mounts.read_text(encoding="utf-8") == '{"sources": []}'  # the user's state survives
    finally:
        service.close()


def test_corrupt_db_detected_by_status_too(repo: Path) -> None:
    db_path = repo / CONFIG_DIR / "igraph.db"
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"\x00" * 4096)
    st = make_service(repo).status()
    assert st.indexed is False


@pytest.mark.both_stores
def test_newer_schema_is_refused_with_upgrade(svc, repo: Path) -> None:  # type: ignore[no-untyped-def]
    with svc._writer() as db, db.atomic() as con:
        con.execute("INSERT INTO migrations(version, applied_at) VALUES(?, 0)", (SCHEMA_VERSION + 1,))
    svc.close()
    other = make_service(repo)
    try:
        with pytest.raises(SchemaTooNew, match="upgrade"):
            other.status()
        with pytest.raises(SchemaTooNew, match="upgrade"):
            other.index()
        if store_for(repo).url is None:
            assert (repo / CONFIG_DIR / "igraph.db").exists()  # refused, never destroyed
        assert other.db.schema_version() == SCHEMA_VERSION + 1  # nothing migrated down or dropped
    finally:
        other.close()


@pytest.mark.both_stores
def test_two_writers_second_gets_index_busy(svc, repo: Path) -> None:  # type: ignore[no-untyped-def]
    other = make_service(repo)
    try:
        with svc._writer():
            with pytest.raises(IndexBusy, match="another igraph-mcp process"):
                other.index()
            with pytest.raises(IndexBusy, match="already running"):
                svc.index()
            assert other.explore("validate_amount", hops=0).hits  # readers keep working
        assert other.index().parsed == 0  # and the lock is released afterwards
    finally:
        other.close()


def test_database_open_does_not_corrupt_a_live_index(svc, repo: Path) -> None:  # type: ignore[no-untyped-def]
    second = SqliteDatabase(repo / CONFIG_DIR / "igraph.db")
    try:
        assert second.recovered_from is None and second.scalar("SELECT count(*) FROM files") > 0
    finally:
        second.close()


# -- configuration -------------------------------------------------------------------------------------------
def test_config_defaults(tmp_path: Path) -> None:
    cfg = load_config(tmp_path, env={})
    r = cfg.retrieval
    assert (
        r.fileTopK,
        r.nodeTopK,
        r.fallbackThreshold,
        r.graphHops,
        r.fusion,
        r.rrfK,
        r.denseWeight,
        r.ftsWeight,
        r.resourceTopK,
    ) == (10, 10, 0.75, 2, "rrf", 60, 1.0, 1.0, 3)
    assert cfg.embedder.backend == "local"


def test_written_default_config_loads_back(tmp_path: Path) -> None:
    write_default_config(tmp_path)
    assert load_config(tmp_path, env={}).retrieval.maxTokens == 4000


@pytest.mark.parametrize(
    ("var", "value", "section", "key", "expected"),
    [
        ("IGRAPH_RRF_K", "20", "retrieval", "rrfK", 20),
        ("IGRAPH_FILE_TOP_K", "3", "retrieval", "fileTopK", 3),
        ("IGRAPH_FALLBACK_THRESHOLD", "0.5", "retrieval", "fallbackThreshold", 0.5),
        ("IGRAPH_DENSE_WEIGHT", "2", "retrieval", "denseWeight", 2.0),
        ("IGRAPH_MAX_TOKENS", "900", "retrieval", "maxTokens", 900),
        ("IGRAPH_EMBEDDER", "hash", "embedder", "backend", "hash"),
        ("IGRAPH_EMBED_DIMENSION", "32", "embedder", "dimension", 32),
    ],
)
def test_env_overrides(tmp_path: Path, var: str, value: str, section: str, key: str, expected: object) -> None:
    cfg = load_config(tmp_path, env={var: value})
    assert getattr(getattr(cfg, section), key) == expected


def test_env_overrides_the_file(tmp_path: Path) -> None:
    (tmp_path / CONFIG_DIR).mkdir()
    (tmp_path / CONFIG_DIR / "config.json").write_text('{"retrieval": {"rrfK": 10, "ftsWeight": 0.5}}')
    cfg = load_config(tmp_path, env={"IGRAPH_RRF_K": "30", "IGRAPH_FTS_WEIGHT": ""})
    assert cfg.retrieval.rrfK == 30 and cfg.retrieval.ftsWeight == 0.5  # empty variables are ignored


@pytest.mark.parametrize(
    "data",
    [
        {"embedder": {"apiKey": "sk-123"}},
        {"api_key": "x"},
        {"retrieval": {"token": "t"}},
        {"password": "p"},
        {"embedder": {"nested": {"client_secret": "s"}}},
    ],
)
def test_credential_like_keys_rejected(tmp_path: Path, data: dict[str, object]) -> None:
    (tmp_path / CONFIG_DIR).mkdir()
    (tmp_path / CONFIG_DIR / "config.json").write_text(json.dumps(data))
    with pytest.raises(ConfigError, match="credential-like key") as exc:
        load_config(tmp_path, env={})
    assert "sk-123" not in str(exc.value)  # the value itself is never echoed


@pytest.mark.parametrize(
    ("data", "env", "field"),
    [
        ({"retrieval": {"rrfK": 0}}, {}, "retrieval.rrfK"),
        ({"retrieval": {"fallbackThreshold": 1.5}}, {}, "retrieval.fallbackThreshold"),
        ({"retrieval": {"fusion": "sum"}}, {}, "retrieval.fusion"),
        ({"retrieval": {"unknownKnob": 1}}, {}, "retrieval.unknownKnob"),
        ({}, {"IGRAPH_GRAPH_HOPS": "nine"}, "retrieval.graphHops"),
        ({}, {"IGRAPH_EMBEDDER": "magic"}, "embedder.backend"),
    ],
)
def test_invalid_values_name_the_field(
    tmp_path: Path, data: dict[str, object], env: dict[str, str], field: str
) -> None:
    (tmp_path / CONFIG_DIR).mkdir()
    (tmp_path / CONFIG_DIR / "config.json").write_text(json.dumps(data))
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        load_config(tmp_path, env=env)


@pytest.mark.parametrize("text", ["{not json", "[1, 2]", "\xff\xfe"])
def test_unreadable_config_is_a_clear_error(tmp_path: Path, text: str) -> None:
    (tmp_path / CONFIG_DIR).mkdir()
    (tmp_path / CONFIG_DIR / "config.json").write_text(text, encoding="latin-1")
    with pytest.raises(ConfigError, match=r"config\.json"):
        load_config(tmp_path, env={})


@pytest.mark.both_stores
def test_service_reads_config_rrf_k(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("IGRAPH_RRF_K", "1")
    service = index_repo(repo)
    try:
        top = service.explore("validate_amount", hops=0).hits[0]
        assert service.config.retrieval.rrfK == 1
        assert top.score == pytest.approx(sum(1 / (1 + r) for r in top.ranks.values()) * 3.0)  # exactName boost
    finally:
        service.close()


def test_allowed_dirs_come_only_from_the_environment(tmp_path: Path) -> None:
    from igraph_mcp.config import load_config
    from igraph_mcp.errors import ConfigError

    root = tmp_path / "cloned"
    (root / ".igraph").mkdir(parents=True)
    cfg_file = root / ".igraph" / "config.json"
    cfg_file.write_text('{"multimodal": {"allowedDirs": ["/etc"]}}', encoding="utf-8")
    with pytest.raises(ConfigError, match="IGRAPH_ALLOWED_DIRS"):
        load_config(root, env={})
    cfg_file.write_text("{}", encoding="utf-8")
    cfg = load_config(root, env={"IGRAPH_ALLOWED_DIRS": f"/srv/specs{os.pathsep}/srv/schemas"})
    assert cfg.multimodal.allowedDirs == ["/srv/specs", "/srv/schemas"]
