"""Several agents and a terminal on one repository (RELIABILITY D3, D4): two real MCP stdio servers and the CLI.

Server W indexes (full and incremental, alternately) while the coordinator edits files between rounds; server R
queries and mounts documents; the CLI searches and tries to index as a second writer. For a fixed number of
rounds: no error other than a clear "busy" that names the holder's progress, no partial answer (every status
counts every file, every query finds its symbol), no mount lost, no file moved aside as corrupt.

Overlap is shown, not assumed: W's first build is held inside its write transaction (``IGRAPH_HOLD_AT``) until
R and the CLI have answered beside it, and every answer is counted as overlapping when the lock file was held
by the same build (same holder record) just before it was asked and just after it arrived.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import apsw
import pytest
from _factories import (
    edit_file,
    flock_holders,
    make_service,
    needs_proc_locks,
    pg_lock_holder,
    store_for,
    subprocess_env,
    write_file,
)
from mcp import Client, StdioServerParameters
from mcp_types import CallToolResult

from igraph_mcp.config import CONFIG_DIR, DB_FILE
from igraph_mcp.errors import IndexBusy
from igraph_mcp.repo_identity import read_identity
from igraph_mcp.store.lock import LOCK_FILE, WriterLock
from igraph_mcp.structured import entries

pytestmark = [pytest.mark.anyio, pytest.mark.both_stores]
_NO_ROWS: dict[str, list[str]] = {"columns": [], "rows": []}  # an error answer has no hits table

FILES = 160


def _module(i: int, rev: int) -> str:
    return (
        f'"""Settlement module {i}."""\n\n\n'
        f"def settle_batch_{i}(entries):\n"
        f'    """Settle a batch of entries (revision {rev})."""\n'
        f"    return sum(entries) + {rev}\n\n\n"
        f"class Clearing{i}:\n"
        f"    def clear_{i}(self, amount):\n"
        f"        return settle_batch_{i}([amount, {rev}])\n"
    )


def _doc(k: int) -> str:
    return f"# Note {k}\n\nClearing runs `settle_batch_{k}` for every batch.\n\n## Limits\n\nAt most {k} retries.\n"


def _env(**extra: str) -> dict[str, str]:
    return subprocess_env(inherit=False, IGRAPH_EMBEDDER="hash", **extra)


def _server(root: Path, **env: str) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "igraph_mcp", "serve", "--root", str(root), "--no-auto-index"],
        env=_env(**env),
        cwd=root,
    )


def _cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "igraph_mcp", *args, "--root", str(root), "--json"],
        env=subprocess_env(IGRAPH_EMBEDDER="hash"),
        capture_output=True,
        text=True,
        timeout=300,
    )


def _text(result: CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def lock_holder(root: Path) -> tuple[int, str] | None:
    """(pid, holder record) of the process holding the index lock, read without locking: from /proc/locks for the
    SQLite lock file, from pg_locks and the progress row for PostgreSQL's advisory lock."""
    url = store_for(root).url
    if url is not None:
        return pg_lock_holder(url, root.name)
    lock = root / CONFIG_DIR / LOCK_FILE
    try:
        record = lock.read_text(encoding="utf-8")
        pids = flock_holders(lock)
    except OSError:
        return None
    if not pids:
        return None
    try:
        since = json.loads(record)["since"]
    except (ValueError, KeyError, TypeError):
        since = None
    return min(pids), str(since)


@dataclass
class Tally:
    """What every role saw."""

    answers: int = 0
    overlapped: int = 0  # answers asked and received while one build held the lock
    busy: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    builds: int = 0
    mounted: set[str] = field(default_factory=set)

    def note(self, root: Path, before: tuple[int, str] | None) -> None:
        self.answers += 1
        if before is not None and lock_holder(root) == before:
            self.overlapped += 1


def _busy_with_progress(message: str) -> bool:
    # The lock file's answer says "this repository"; a PostgreSQL store holds many, so its answer names one.
    return re.search(r"indexing (this repository|repository '[^']+') \(", message) is not None or (
        "already running" in message
    )


async def _run(root: Path, rounds: int, hold: Path) -> Tally:
    tally = Tally()
    done = anyio.Event()
    held_reads = anyio.Event()

    async def writer(w: Client) -> None:
        for r in range(rounds):
            if r:  # an incremental round has something to do: a few files get a new revision
                for i in range(r % 7, FILES, 17):
                    edit_file(root, f"ledger/mod_{i}.py", _module(i, r))
            while True:  # a busy answer (the CLI or a mount holds the writer) is retried, as an agent would
                result = await w.call_tool("igraph_index", {"full": r % 2 == 0})
                if not result.is_error:
                    tally.builds += 1
                    assert (result.structured_content or {})["files"] == FILES
                    break
                if not _busy_with_progress(_text(result)):
                    tally.errors.append("W: " + _text(result))
                    break
                tally.busy.append("W: " + _text(result))
                await anyio.sleep(0.05)
        done.set()

    async def reader(rd: Client) -> None:
        k = 0
        while not done.is_set():
            before = lock_holder(root)
            i = k * 7 % FILES
            status = await rd.call_tool("igraph_status", {})
            hits = await rd.call_tool("igraph_explore", {"query": f"settle_batch_{i}", "topK": 3})
            node = await rd.call_tool("igraph_node", {"name": f"Clearing{i}.clear_{i}"})
            for what, res in (("status", status), ("explore", hits), ("node", node)):
                if res.is_error:
                    tally.errors.append(f"R {what}: {_text(res)}")
            if not status.is_error and (status.structured_content or {})["files"] != FILES:
                tally.errors.append(f"R: partial index: {status.structured_content}")
            top = [h["qualifiedName"] for h in entries((hits.structured_content or {}).get("hits", _NO_ROWS))][:1]
            if not hits.is_error and top != [f"settle_batch_{i}"]:
                tally.errors.append(f"R: settle_batch_{i} not found first: {_text(hits)[:300]}")
            if not node.is_error and not (node.structured_content or {})["found"]:
                tally.errors.append(f"R: Clearing{i}.clear_{i} not found")
            tally.note(root, before)
            if tally.overlapped >= 3:
                held_reads.set()
            if k % 4 == 3 and held_reads.is_set():  # mount a new note, retrying while a build holds the writer
                path = f"docs/note_{k}.md"
                write_file(root, path, _doc(k))
                while True:
                    m = await rd.call_tool("igraph_mount_resource", {"path": path})
                    if not m.is_error:
                        tally.mounted.add(path)
                        break
                    if not _busy_with_progress(_text(m)):
                        tally.errors.append(f"R mount: {_text(m)}")
                        break
                    tally.busy.append("R mount: " + _text(m))
                    await anyio.sleep(0.05)
            k += 1

    async def terminal() -> None:
        k = 0
        while not done.is_set():
            before = lock_holder(root)
            i = k * 11 % FILES
            found = await anyio.to_thread.run_sync(_cli, root, "search", f"settle_batch_{i}", "--channels", "fts")
            if found.returncode != 0:
                tally.errors.append(f"CLI search: {found.stderr[-500:]}")
            elif [h["name"] for h in json.loads(found.stdout)["hits"]][:1] != [f"settle_batch_{i}"]:
                tally.errors.append(f"CLI search: settle_batch_{i} not found first")
            tally.note(root, before)
            # A second writer: it either builds or says whose build it waits for. It starts once W's first build is
            # held, so that build is W's and the hold is reached whatever the machine's load.
            if k % 3 == 0 and Path(str(hold) + ".held").exists():
                built = await anyio.to_thread.run_sync(_cli, root, "index")
                if built.returncode == 0:
                    tally.builds += 1
                elif _busy_with_progress(built.stderr):
                    tally.busy.append("CLI: " + built.stderr.strip())
                else:
                    tally.errors.append(f"CLI index: {built.stderr[-500:]}")
            k += 1

    async def release_when_overlapped() -> None:
        # W's first build waits inside its transaction until reads have provably run beside it.
        with anyio.fail_after(300):  # generous: a loaded 2-core CI machine runs four processes here
            while not Path(str(hold) + ".held").exists():
                await anyio.sleep(0.02)
            await held_reads.wait()
            while not any(b.startswith("CLI") for b in tally.busy):
                await anyio.sleep(0.02)
        Path(str(hold) + ".release").touch()

    hold_env = {"IGRAPH_HOLD_AT": "index.batch:1", "IGRAPH_HOLD_FILE": str(hold)}
    async with Client(_server(root, **hold_env)) as w, Client(_server(root)) as rd:
        async with anyio.create_task_group() as tg:
            tg.start_soon(writer, w)
            tg.start_soon(reader, rd)
            tg.start_soon(terminal)
            tg.start_soon(release_when_overlapped)
        final = await w.call_tool("igraph_index", {})
        listed = await rd.call_tool("igraph_list_resources", {})
    assert not final.is_error, _text(final)
    sources = entries((listed.structured_content or {})["sources"])
    paths = {s["path"] for s in sources if s.get("indexed", True)}  # left out when true: the schema says so
    lost = tally.mounted - paths
    if lost:
        tally.errors.append(f"mounts lost: {sorted(lost)}")
    return tally


def _check_after(root: Path, tally: Tally) -> None:
    assert not tally.errors, "\n".join(tally.errors[:20])
    assert tally.overlapped >= 3, f"only {tally.overlapped} answers overlapped a held write"
    assert any(b.startswith("CLI") for b in tally.busy), "the CLI never met the held build"
    assert any("(pid " in b for b in tally.busy), "no busy answer named the holder and its progress"
    if store_for(root).url is None:
        con = apsw.Connection(str(root / CONFIG_DIR / DB_FILE), flags=apsw.SQLITE_OPEN_READONLY)
        try:
            assert con.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
            assert con.execute("SELECT count(*) FROM files").fetchone() == (FILES,)
        finally:
            con.close()
    else:
        svc = make_service(root)
        try:
            assert svc.status().files == FILES and svc.db.scalar("SELECT count(*) FROM files") == FILES
        finally:
            svc.close()
    assert not list((root / CONFIG_DIR).glob("*.corrupt-*"))
    mounts = json.loads((root / CONFIG_DIR / "mounts.json").read_text())["mounts"]
    assert {m["path"] for m in mounts} == tally.mounted


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for i in range(FILES):
        write_file(root, f"ledger/mod_{i}.py", _module(i, 0))
    svc = make_service(root)
    try:
        svc.index()
    finally:
        svc.close()
    return root


@needs_proc_locks
async def test_two_servers_and_the_cli_share_one_repository(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    tally = await _run(root, rounds=4, hold=tmp_path / "hold")
    _check_after(root, tally)
    assert tally.builds >= 4 and tally.mounted  # every round of W built (after waiting out any busy answer)


@needs_proc_locks
@pytest.mark.long
@pytest.mark.timeout(3600)
async def test_two_servers_and_the_cli_soak(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    started = time.monotonic()
    tally = await _run(root, rounds=int(os.environ.get("IGRAPH_SOAK_ROUNDS", "2600")), hold=tmp_path / "hold")
    minutes = (time.monotonic() - started) / 60
    sys.stderr.write(
        f"soak: {minutes:.1f} min, {tally.builds} builds, {tally.answers} answers ({tally.overlapped} beside a "
        f"held write), {len(tally.busy)} busy answers, {len(tally.mounted)} mounts, {len(tally.errors)} errors\n"
    )
    _check_after(root, tally)


@pytest.mark.sqlite_only  # the lock file; the advisory lock's form follows
def test_second_writer_is_told_whose_build_it_waits_for(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    holder = WriterLock(root / CONFIG_DIR, root / CONFIG_DIR / DB_FILE)
    other = make_service(root)
    try:
        with holder.hold():
            holder.report("parse", 120, 160)
            with pytest.raises(IndexBusy, match=rf"\(pid {os.getpid()}, parse 120/160, for \d+ s\)"):
                other.index()
            assert other.node("settle_batch_3").found  # reads carry on beside the holder
        other.index()  # released: the second writer gets its turn
    finally:
        other.close()


@pytest.mark.postgresql_only
def test_second_writer_is_told_whose_advisory_lock_it_waits_for(tmp_path: Path) -> None:
    from igraph_mcp.store.pg_lock import PgWriterLock

    root = _repo(tmp_path)
    url = store_for(root).url
    assert url is not None
    holder = PgWriterLock(url, root.name, identity=lambda: read_identity(root))
    other = make_service(root)
    try:
        with holder.hold():
            holder.report("parse", 120, 160)
            assert lock_holder(root) is not None and lock_holder(root)[0] == os.getpid()  # type: ignore[index]
            with pytest.raises(IndexBusy, match=rf"\(pid {os.getpid()}, parse 120/160, for \d+ s\)"):
                other.index()
            assert other.node("settle_batch_3").found  # reads carry on beside the holder
        assert lock_holder(root) is None
        other.index()  # released: the second writer gets its turn
    finally:
        other.close()


@pytest.mark.postgresql_only
def test_a_killed_writer_releases_the_advisory_lock(tmp_path: Path) -> None:
    """The PostgreSQL form of a stale lock file: the holder is SIGKILLed inside its write transaction; the server
    drops its connections, so the lock is free, the next writer builds, and nothing half-written is seen."""
    root = _repo(tmp_path)
    for i in range(0, FILES, 5):
        edit_file(root, f"ledger/mod_{i}.py", _module(i, 1))
    hold = tmp_path / "hold"
    env = _env(IGRAPH_HOLD_AT="index.batch:1", IGRAPH_HOLD_FILE=str(hold))
    proc = subprocess.Popen(
        [sys.executable, "-m", "igraph_mcp", "index", "--root", str(root)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        while not Path(str(hold) + ".held").exists():
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "the indexer never reached its hold point"
            time.sleep(0.05)
        assert lock_holder(root) is not None and lock_holder(root)[0] == proc.pid  # type: ignore[index]
        svc = make_service(root)
        try:
            with pytest.raises(IndexBusy, match=rf"pid {proc.pid}"):
                svc.index()
            proc.kill()
            proc.wait(timeout=60)
            deadline = time.monotonic() + 60
            while lock_holder(root) is not None:  # the server notices the closed connection at once, or nearly
                assert time.monotonic() < deadline, "the advisory lock outlived its killed holder"
                time.sleep(0.05)
            assert svc.status().files == FILES  # the last committed state: every file, none half-written
            assert svc.index().files == FILES  # and the next run completes the killed one's work
            assert "(revision 1)" in svc.node("settle_batch_5").docstring
        finally:
            svc.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stderr:
            proc.stderr.close()
