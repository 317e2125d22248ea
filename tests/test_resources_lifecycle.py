"""Mounted resources: mount/unmount/list, idempotence, surviving rebuilds, path safety, re-linking."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from _factories import FILLER, edit_file, make_service, write_file

from igraph_mcp.config import Config, MultimodalConfig
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.errors import InvalidInput, PathOutsideRoot, ResourceError
from igraph_mcp.render import render_mount, render_resources, render_unmount
from igraph_mcp.resources.linking import Thresholds, identifier_links
from igraph_mcp.resources.mounts import MountsFile
from igraph_mcp.service import IGraphService
from igraph_mcp.store import resources as res_store
from igraph_mcp.store.db import Database

pytestmark = pytest.mark.both_stores

FIXTURE = Path(__file__).parent / "fixtures" / "orders_repo"


def make_orders_repo(tmp_path: Path) -> Path:
    """A copy of the orders fixture (plus filler code for sane BM25) that tests may change."""
    root = tmp_path / "repo"
    shutil.copytree(FIXTURE, root)
    for rel, text in FILLER.items():
        write_file(root, rel, text)
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_orders_repo(tmp_path)


@pytest.fixture
def svc(root: Path) -> Iterator[IGraphService]:
    service = make_service(root, embedder=HashingEmbedder(64))
    try:
        service.index()
        yield service
    finally:
        service.close()


def counts(db: Database) -> dict[str, int]:
    """Rows in every resource table (0 for a vector table that does not exist yet)."""
    tables = ("resource_sources", "resources", "resources_fts", "resource_vectors", "resource_links")
    return {t: int(db.scalar(f"SELECT count(*) FROM {t}")) if db.has_table(t) else 0 for t in tables}


def mounts_json(root: Path) -> list[dict[str, object]]:
    return json.loads((root / ".igraph" / "mounts.json").read_text(encoding="utf-8"))["mounts"]


# -- mount / remount / unmount -------------------------------------------------------------------------------
def test_mount_stores_chunks_vectors_links_and_user_state(svc: IGraphService, root: Path) -> None:
    res = svc.mount("docs/PRD.md")
    assert (res.sourceType, res.path, res.name) == ("prd", "docs/PRD.md", "PRD")
    c = counts(svc.db)
    assert c["resources"] == res.chunks == c["resources_fts"] == c["resource_vectors"] >= 5
    assert res.links == c["resource_links"] > 0
    assert res.embedded == res.chunks and res.note is None
    assert mounts_json(root) == [
        {
            "path": "docs/PRD.md",
            "type": "auto",
            "name": None,
            "mountedAt": pytest.approx(mounts_json(root)[0]["mountedAt"]),
        }
    ]
    assert "chunks" in render_mount(res) and "PRD" in render_mount(res)


def test_mount_is_idempotent(svc: IGraphService, root: Path) -> None:
    first = svc.mount("docs/PRD.md")
    before = counts(svc.db)
    again = svc.mount("./docs/../docs/PRD.md")  # another spelling of the same file
    assert counts(svc.db) == before
    assert again.replaced and again.unchanged and again.reusedVectors == first.chunks and again.embedded == 0
    assert len(svc.list_resources().sources) == 1 and len(mounts_json(root)) == 1


def test_remount_after_edit_updates(svc: IGraphService, root: Path) -> None:
    svc.mount("docs/PRD.md")
    prd = root / "docs" / "PRD.md"
    text = prd.read_text(encoding="utf-8").replace(
        "## Loyalty programme", "## Gift cards\n\nSell gift vouchers.\n\n## Loyalty programme"
    )
    prd.write_text(text.replace("loyalty points", "bonus stars"), encoding="utf-8")
    res = svc.mount("docs/PRD.md")
    assert res.replaced and not res.unchanged and res.embedded == 2  # the new section + the edited one
    titles = [r.title for r in res_store.all_resources(svc.db)]
    assert "Gift cards" in titles and titles.count("Loyalty programme") == 1
    assert res_store.fts_resources(svc.db, ["vouchers"], 5) and not res_store.fts_resources(svc.db, ["loyalty_x"], 5)
    assert not res_store.fts_resources(svc.db, ["points"], 5)  # the old wording is gone from the search index
    assert counts(svc.db)["resources"] == counts(svc.db)["resources_fts"] == counts(svc.db)["resource_vectors"]


@pytest.mark.parametrize("by", ["id", "path"])
def test_unmount_removes_chunks_vectors_links(svc: IGraphService, root: Path, by: str) -> None:
    prd = svc.mount("docs/PRD.md")
    svc.mount("db/schema.sql")
    res = svc.unmount(str(prd.id) if by == "id" else "docs/PRD.md")
    assert res.found and res.path == "docs/PRD.md" and res.chunks == prd.chunks
    left = res_store.list_sources(svc.db)
    assert [s.path for s in left] == ["db/schema.sql"]
    c = counts(svc.db)
    assert c["resources"] == c["resources_fts"] == c["resource_vectors"] == left[0].chunks
    assert c["resource_links"] == left[0].links
    assert [m["path"] for m in mounts_json(root)] == ["db/schema.sql"]
    assert "unmounted" in render_unmount(res)


def test_unmount_unknown_is_not_found(svc: IGraphService) -> None:
    res = svc.unmount("999")
    assert not res.found and "nothing mounted" in res.message
    with pytest.raises(InvalidInput):
        svc.unmount("  ")


def test_bad_type_and_bad_file_are_clear_errors(svc: IGraphService, root: Path) -> None:
    with pytest.raises(InvalidInput):
        svc.mount("docs/PRD.md", source_type="pdfx")
    with pytest.raises(InvalidInput):
        svc.mount("docs")
    with pytest.raises(ResourceError):
        svc.mount("docs/nope.md")
    write_file(root, "docs/empty.md", "")
    with pytest.raises(ResourceError):
        svc.mount("docs/empty.md")
    assert counts(svc.db)["resource_sources"] == 0 and svc.list_resources().sources == []


# -- user state survives rebuilds ----------------------------------------------------------------------------
def test_mounts_survive_full_index(svc: IGraphService) -> None:
    svc.mount("docs/PRD.md")
    svc.mount("db/schema.sql")
    before = counts(svc.db)
    svc.index(full=True)
    after = counts(svc.db)
    assert after["resource_sources"] == 2 and after["resources"] == before["resources"]
    assert after["resource_vectors"] == before["resource_vectors"]
    assert after["resource_links"] > 0  # links cascade away with the old nodes and are rebuilt for the new ones
    assert {s.path for s in svc.list_resources().sources} == {"docs/PRD.md", "db/schema.sql"}


@pytest.mark.sqlite_only  # a corrupt SQLite file is moved aside and rebuilt
def test_mounts_restored_after_corrupt_index(root: Path) -> None:
    svc = make_service(root, embedder=HashingEmbedder(64))
    try:
        svc.index()
        svc.mount("docs/PRD.md")
        chunks = counts(svc.db)["resources"]
    finally:
        svc.close()
    (root / ".igraph" / "igraph.db").write_bytes(b"this is not a database" * 100)
    for suffix in ("-wal", "-shm"):
        Path(str(root / ".igraph" / "igraph.db") + suffix).unlink(missing_ok=True)
    svc = make_service(root, embedder=HashingEmbedder(64))
    try:
        result = svc.index()
        assert result.recoveredFrom
        listed = svc.list_resources().sources
        assert [(s.path, s.indexed, s.chunks) for s in listed] == [("docs/PRD.md", True, chunks)]
        assert counts(svc.db)["resource_vectors"] == chunks and counts(svc.db)["resource_links"] > 0
    finally:
        svc.close()


def test_deleted_source_is_reported_not_dropped(svc: IGraphService, root: Path) -> None:
    svc.mount("docs/PRD.md")
    (root / "docs" / "PRD.md").unlink()
    listed = svc.list_resources()
    assert listed.sources[0].missing and listed.notes
    assert "MISSING" in render_resources(listed)
    svc.index()  # an index run keeps the last copy and the user's entry
    assert svc.list_resources().sources[0].missing and counts(svc.db)["resources"] > 0
    assert mounts_json(root)[0]["path"] == "docs/PRD.md"
    note = svc.explore("refund requests for delivered orders").diagnostics.resourceNote
    assert note is not None and "missing on disk" in note


@pytest.mark.sqlite_only  # deletes the SQLite file
def test_missing_source_after_rebuild_is_listed(root: Path) -> None:
    MountsFile(root / ".igraph").save([])
    svc = make_service(root, embedder=HashingEmbedder(64))
    try:
        svc.mount("docs/PRD.md")
    finally:
        svc.close()
    (root / ".igraph" / "igraph.db").unlink()
    (root / "docs" / "PRD.md").unlink()
    svc = make_service(root, embedder=HashingEmbedder(64))
    try:
        svc.index()
        [entry] = svc.list_resources().sources
        assert (entry.id, entry.missing, entry.indexed) == (0, True, False)
        assert "MISSING" in render_resources(svc.list_resources())
    finally:
        svc.close()


def test_edited_source_refreshed_by_index(svc: IGraphService, root: Path) -> None:
    svc.mount("docs/PRD.md")
    edit_file(
        root,
        "docs/PRD.md",
        (root / "docs" / "PRD.md").read_text(encoding="utf-8") + "\n## Invoices\n\nMerchants send PDF invoices.\n",
    )
    assert svc.list_resources().sources[0].changed
    svc.index()
    assert not svc.list_resources().sources[0].changed
    assert "Invoices" in [r.title for r in res_store.all_resources(svc.db)]


def test_unreadable_mounts_file_is_kept_and_reported(svc: IGraphService, root: Path) -> None:
    state = root / ".igraph" / "mounts.json"
    state.parent.mkdir(exist_ok=True)  # a PostgreSQL store keeps no index here: only the user's state
    state.write_text("{broken", encoding="utf-8")
    assert svc.list_resources().notes and state.read_text(encoding="utf-8") == "{broken"
    with pytest.raises(ResourceError):
        svc.mount("docs/PRD.md")
    svc.index()  # indexing still works; the file is left for the user to fix
    assert state.read_text(encoding="utf-8") == "{broken"


# -- paths ---------------------------------------------------------------------------------------------------
def test_mount_outside_root_rejected(svc: IGraphService, root: Path, tmp_path: Path) -> None:
    outside = write_file(tmp_path, "outside/secret.md", "# Secret\n\ntext\n")
    sibling = write_file(tmp_path, "repo_evil/x.md", "# X\n\ntext\n")
    for bad in ("../outside/secret.md", str(outside), str(sibling), "../repo_evil/x.md"):
        with pytest.raises(PathOutsideRoot):
            svc.mount(bad)
    with pytest.raises(InvalidInput):
        svc.mount("docs/PRD.md\x00")
    assert not (root / ".igraph" / "mounts.json").exists() and counts(svc.db)["resource_sources"] == 0


def test_symlink_to_outside_rejected(svc: IGraphService, root: Path, tmp_path: Path) -> None:
    outside = write_file(tmp_path, "outside/secret.md", "# Secret\n\ntext\n")
    os.symlink(outside, root / "docs" / "link.md")
    os.symlink(outside.parent, root / "docs" / "linkdir")
    for bad in ("docs/link.md", "docs/linkdir/secret.md"):
        with pytest.raises(PathOutsideRoot):
            svc.mount(bad)
    assert counts(svc.db)["resource_sources"] == 0


def test_allowed_dir_outside_root(root: Path, tmp_path: Path) -> None:
    specs = write_file(tmp_path, "specs/api.md", "# API\n\nThe `export_orders_csv` endpoint.\n")
    cfg = Config(multimodal=MultimodalConfig(allowedDirs=[str(specs.parent)]))
    svc = make_service(root, embedder=HashingEmbedder(64), config=cfg)
    try:
        svc.index()
        res = svc.mount(str(specs))
        assert res.path == specs.resolve().as_posix() and res.links >= 1
    finally:
        svc.close()


def test_hand_edited_mounts_file_cannot_escape_root(root: Path, tmp_path: Path) -> None:
    outside = write_file(tmp_path, "outside/secret.md", "# Secret\n\ntext\n")
    (root / ".igraph").mkdir()
    MountsFile(root / ".igraph").save([])
    (root / ".igraph" / "mounts.json").write_text(json.dumps({"mounts": [{"path": str(outside)}]}), "utf-8")
    svc = make_service(root, embedder=HashingEmbedder(64))
    try:
        svc.index()
        assert counts(svc.db)["resource_sources"] == 0  # never read, only listed as missing
        assert svc.list_resources().sources[0].missing
    finally:
        svc.close()


# -- links ---------------------------------------------------------------------------------------------------
def _links(db: Database, title: str, method: str = "identifier") -> dict[str, tuple[float, str]]:
    """qualified name -> (score, method) of one chunk's links of one method."""
    return {
        str(r[0]): (float(r[1]), str(r[2]))
        for r in db.rows(
            "SELECT n.qualified_name, l.score, l.method FROM resource_links l "
            "JOIN resources r ON r.id = l.resource_id "
            "JOIN nodes n ON n.id = l.node_id WHERE r.title = ? AND l.method = ?",
            (title, method),
        )
    }


def test_identifier_links_for_tables_and_quoted_names(svc: IGraphService) -> None:
    svc.mount("docs/PRD.md")
    svc.mount("db/schema.sql")
    orders = _links(svc.db, "orders")
    assert orders["orders.repository"][0] >= 0.85 and orders["Order"] == (0.9, "identifier")
    assert "customers.service" not in orders  # shares only generic columns with the orders table
    assert _links(svc.db, "Customer accounts")["find_customer_by_email"] == (0.95, "identifier")
    assert _links(svc.db, "Orders CSV export")["export_orders_csv"][0] == 0.95
    assert _links(svc.db, "Refund requests") == {}  # not implemented: nothing to link to
    # The whole-document chunk does not re-link what its subsections already link.
    assert "find_customer_by_email" not in _links(svc.db, "Shop PRD")


def test_links_refreshed_for_changed_files(svc: IGraphService, root: Path) -> None:
    svc.mount("docs/PRD.md")
    assert "request_refund" not in _links(svc.db, "Refund requests")
    prd = root / "docs" / "PRD.md"
    prd.write_text(
        prd.read_text(encoding="utf-8").replace("Status: not implemented yet.", "Implemented by `request_refund()`."),
        encoding="utf-8",
    )
    svc.mount("docs/PRD.md")
    write_file(root, "orders/refunds.py", "def request_refund(order, reason):\n    return (order, reason)\n")
    svc.index()
    assert _links(svc.db, "Refund requests")["request_refund"] == (0.95, "identifier")
    edit_file(root, "orders/refunds.py", "def approve_refund(order):\n    return order\n")
    svc.index()
    assert "request_refund" not in _links(svc.db, "Refund requests")


def test_thresholds_come_from_config_and_cut_links(svc: IGraphService) -> None:
    svc.mount("db/schema.sql")
    rows = [r for r in res_store.all_resources(svc.db) if r.title == "orders"]
    strict = identifier_links(svc.db, rows, Thresholds(strong=0.99, weak=0.9))
    loose = identifier_links(svc.db, rows, Thresholds(strong=0.85, weak=0.7))
    assert strict and all(link.score >= 0.9 for link in strict) and len(loose) > len(strict)
    cfg = Config(multimodal=MultimodalConfig(strongLinkThreshold=0.6, weakLinkThreshold=0.8))
    assert Thresholds.from_config(cfg.multimodal) == Thresholds(0.6, 0.6)  # weak never above strong


def test_without_embeddings_keyword_and_identifier_links_only(root: Path) -> None:
    svc = make_service(root, embedder=None, embed=False)
    try:
        svc.index()
        res = svc.mount("docs/PRD.md")
        assert res.embedded == 0 and res.note and "keyword" in res.note
        c = counts(svc.db)
        assert c["resource_links"] > 0 and set(svc.db.rows("SELECT DISTINCT method FROM resource_links")) == {
            ("identifier",)
        }
        out = svc.explore("refund requests for delivered orders")
        assert "Refund requests" in [r.title for r in out.resources]
        assert out.diagnostics.resourceNote and "keyword" in out.diagnostics.resourceNote
    finally:
        svc.close()
    # Later with an embedder: the next index run embeds the chunks and adds semantic links.
    svc = make_service(root, embedder=HashingEmbedder(64))
    try:
        svc.index()
        assert counts(svc.db)["resource_vectors"] == c["resources"]
    finally:
        svc.close()


def test_embedder_change_reembeds_resources(svc: IGraphService, root: Path) -> None:
    svc.mount("docs/PRD.md")
    svc.close()
    other = make_service(root, embedder=HashingEmbedder(32))
    try:
        other.index()
        c = counts(other.db)
        assert c["resource_vectors"] == c["resources"] and other.db.get_meta("embedder_dim") == "32"
        assert other.explore("refund requests").resources
    finally:
        other.close()
