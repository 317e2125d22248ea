"""Storage faults (RELIABILITY D2) and reads from another process during a rebuild (D3)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest
from _factories import flock_holders, make_repo, make_service, needs_proc_locks, open_service, subprocess_env

from igraph_mcp.errors import StorageError
from igraph_mcp.service import IGraphService
from igraph_mcp.store import nodes as node_store


def _repo(tmp_path: Path, n: int) -> Path:
    files = {
        f"module_{i:03d}.py": f'"""Module {i}."""\n\n\ndef compute_total_{i}(items):\n    return sum(items) + {i}\n\n\n'
        f"class Ledger{i}:\n    def post_entry(self, amount):\n        return compute_total_{i}([amount])\n"
        for i in range(n)
    }
    return make_repo(tmp_path, files, filler=False, dedent=False)


def test_disk_full_mid_update_rolls_back_and_reads_keep_working(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = _repo(tmp_path, 8)
    with open_service(root, index=True, dim=32) as svc:
        _disk_full_mid_update(root, svc, monkeypatch)


def _disk_full_mid_update(root: Path, svc: IGraphService, monkeypatch: pytest.MonkeyPatch) -> None:
    before = svc.explore("compute_total_3", channels=("fts",), hops=0)
    target = root / "module_003.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n\ndef refund_entry_3(x):\n    return -x\n")
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))

    calls = {"n": 0}
    real_insert = node_store.insert_nodes

    def failing_insert(con, ids, values):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 1:  # the file's nodes fail to go in, after its file row did, as on a full disk
            raise apsw.FullError("database or disk is full")
        return real_insert(con, ids, values)

    monkeypatch.setattr(node_store, "insert_nodes", failing_insert)
    with pytest.raises(StorageError, match="free disk space"):
        svc.index()
    after = svc.explore("compute_total_3", channels=("fts",), hops=0)
    assert [h.nodeId for h in after.hits] == [h.nodeId for h in before.hits]  # the batch was rolled back
    assert not svc.node("refund_entry_3").found
    assert svc.db.scalar("PRAGMA integrity_check") == "ok"

    monkeypatch.setattr(node_store, "insert_nodes", real_insert)
    result = svc.index()
    assert "module_003.py" in result.reparsedPaths
    assert svc.node("refund_entry_3").found


def _wait_for(path: Path, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 120
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else "the writer exited"
        assert time.monotonic() < deadline, "the writer never reached its hold point"
        time.sleep(0.01)


@needs_proc_locks
def test_reads_from_another_process_never_see_a_partial_rebuild(tmp_path: Path) -> None:
    n = 250
    root = _repo(tmp_path, n)
    with open_service(root, dim=32) as svc:
        svc.index(embed=False)
    for i in range(0, n, 2):  # the rebuild brings new content, so old and new states differ
        (root / f"module_{i:03d}.py").write_text(f"def rebuilt_{i}():\n    return {i}\n", encoding="utf-8")
    hold = tmp_path / "hold"
    # The rebuild stops inside its one transaction, with the second batch of files written but uncommitted.
    env = subprocess_env(IGRAPH_EMBEDDER="none", IGRAPH_HOLD_AT="index.batch:2", IGRAPH_HOLD_FILE=str(hold))
    proc = subprocess.Popen(
        [sys.executable, "-m", "igraph_mcp", "index", "--full", "--no-embed", "--root", str(root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    reader = make_service(root, dim=32)
    try:
        _wait_for(Path(str(hold) + ".held"), proc)
        assert flock_holders(root / ".igraph" / "index.lock") == {proc.pid}  # the rebuild is mid-write
        for _ in range(5):
            files = int(reader.db.scalar("SELECT count(*) FROM files"))
            hits = reader.explore("post_entry compute_total_150", channels=("fts",), hops=0).hits
            assert files == n, "a reader saw a half-built index"
            assert hits and hits[0].name == "compute_total_150", "a reader lost the committed index mid-rebuild"
            assert not reader.node("rebuilt_0").found  # nothing of the uncommitted rebuild leaks
        assert flock_holders(root / ".igraph" / "index.lock") == {proc.pid}  # every read above overlapped it
        Path(str(hold) + ".release").touch()
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        assert int(reader.db.scalar("SELECT count(*) FROM files")) == n
        assert reader.node("rebuilt_0").found and not reader.node("compute_total_0").found
        assert not list((root / ".igraph").glob("*.corrupt-*"))
    finally:
        Path(str(hold) + ".release").touch()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.close()


def test_one_answer_reads_one_committed_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Found by the concurrency soak: explore finds node ids with one query and fetches their rows with the next;
    # a writer committing in between (a re-parsed file gets new node ids) left the answer without its best hit.
    # Every read of one answer now runs in one read transaction, so the commit is simply not seen yet.
    root = _repo(tmp_path, 4)
    with open_service(root, index=True, dim=32) as svc:
        _one_answer_one_state(root, svc, monkeypatch)


def _one_answer_one_state(root: Path, svc: IGraphService, monkeypatch: pytest.MonkeyPatch) -> None:
    from igraph_mcp.retrieve import stages

    target = root / "module_002.py"
    target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    os.utime(target, ns=(time.time_ns(), time.time_ns() + 5_000_000_000))
    real = node_store.nodes_by_ids
    commits: list[int] = []

    def commit_between(db, ids):  # type: ignore[no-untyped-def]
        if not commits:  # once: another process re-indexes the file right now
            with open_service(root, dim=32) as writer:
                commits.append(writer.index().parsed)
        return real(db, ids)

    monkeypatch.setattr(stages.node_store, "nodes_by_ids", commit_between)
    hits = svc.explore("compute_total_2", channels=("fts",), hops=0).hits
    assert commits == [1]  # the write really landed between the two reads
    assert hits and hits[0].name == "compute_total_2"
