"""A server finishes on start what a killed build left undone (RELIABILITY F1), on both stores.

The unfinished index comes from a real `igraph-mcp index` SIGKILLed at an embedding batch (crashpoints), so the
server meets exactly what a crash leaves. Progress is polled against a deadline, never waited for by sleeping.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from _factories import as_agent, edit_file, make_service, store_for, subprocess_env, write_file
from mcp import Client
from test_server_stdio import server_params

from igraph_mcp.embed.base import Vectors
from igraph_mcp.embed.hashing import HashingEmbedder
from igraph_mcp.index.phases import RateMeter
from igraph_mcp.models import BuildActivity
from igraph_mcp.render import render_activity
from igraph_mcp.retrieve.dense_state import finishing_note
from igraph_mcp.server import create_server
from igraph_mcp.server_state import ServerState
from igraph_mcp.service import IGraphService

pytestmark = pytest.mark.both_stores

DEADLINE_S = 120.0
FILES = 100  # 4 symbols a file with its module: 400 nodes, two embedding batches of 256


class CountingEmbedder(HashingEmbedder):
    """The CLI's hashing embedder (same id, same vectors) that remembers every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__(64)
        self.texts: list[str] = []

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed and count."""
        self.texts.extend(texts)
        return super().embed(texts)


def _module(i: int) -> str:
    return (
        f'"""Ledger module {i}."""\n\n\n'
        f"def post_entry_{i}(amount):\n"
        f'    """Post an entry of {i}."""\n'
        f"    return amount + {i}\n\n\n"
        f"class Account{i}:\n"
        f"    def balance_{i}(self):\n"
        f"        return post_entry_{i}(0)\n"
    )


def _tree(root: Path) -> Path:
    for i in range(FILES):
        write_file(root, f"ledger/mod_{i}.py", _module(i))
    return root


def _env(root: Path, **extra: str) -> dict[str, str]:
    url = store_for(root).url
    return subprocess_env(IGRAPH_EMBEDDER="hash", **extra, **({"IGRAPH_DATABASE_URL": url} if url else {}))


def _killed_index(root: Path) -> None:
    """`igraph-mcp index` SIGKILLed inside its second embedding batch: structure whole, 256 vectors committed."""
    done = subprocess.run(
        [sys.executable, "-m", "igraph_mcp", "index", "--root", str(root)],
        env=_env(root, IGRAPH_CRASH_AT="embed.batch:2"),
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()[-2000:]


def _vectors(svc: IGraphService) -> tuple[int, int]:
    """(vectors, nodes)."""
    st = svc.status()
    return st.vectors, st.symbols + st.files


def _poll(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not check():
        assert time.monotonic() < deadline, f"{what}: not within {DEADLINE_S} s"
        threading.Event().wait(0.05)


# -- pure parts ------------------------------------------------------------------------------------------------
def test_rate_meter_times_a_phase_from_its_first_report() -> None:
    now = [100.0]
    meter = RateMeter(clock=lambda: now[0])
    assert meter.update("parse", 0) == 0.0
    now[0] = 104.0
    assert meter.update("embed", 0) == 0.0  # a new phase: the parse seconds are not its own
    now[0] = 106.0
    assert meter.update("embed", 256) == pytest.approx(128.0)
    now[0] = 108.0
    assert meter.update("embed", 512) == pytest.approx(128.0)
    assert meter.update("embed", 512) == pytest.approx(128.0)


def _activity(phase: str, done: int, total: int, rate: float) -> BuildActivity:
    return BuildActivity.measured(phase=phase, done=done, total=total, rate=rate, pid=4711)


@pytest.mark.sqlite_only
@pytest.mark.parametrize(
    ("activity", "pending", "note"),
    [
        (_activity("embed", 768, 2732, 49.1), False, "finishing in the background, about 40 s left"),
        (_activity("embed", 0, 40_000, 50.0), False, "finishing in the background, about 13 min left"),
        (_activity("embed", 0, 2732, 0.0), False, "finishing in the background"),
        (_activity("parse", 12, 450, 30.0), False, "index build is running in the background (parse 12/450)"),
        (None, True, "finishing in the background (starting)"),
        (None, False, "no build is running: call igraph_index to finish it"),
    ],
)
def test_finishing_note(activity: BuildActivity | None, pending: bool, note: str) -> None:
    assert note in as_agent(finishing_note(activity, pending=pending))


@pytest.mark.sqlite_only
def test_render_activity_names_rate_and_time_left() -> None:
    line = render_activity(_activity("embed", 768, 2732, 49.1))
    assert line == "building: embed 768/2732 at 49.1 vectors/s, about 40 s left (pid 4711)"


# -- the service and the server's background work --------------------------------------------------------------
def test_resume_embeds_only_the_missing_vectors_without_a_request(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    _killed_index(root)
    embedder = CountingEmbedder()
    svc = make_service(root, embedder=embedder)
    try:
        before, nodes = _vectors(svc)
        assert before == 256 and nodes == 4 * FILES
        work = svc.unfinished_work()
        assert work is not None and not work.update
        assert work.reasons == (f"embedding {nodes - before} symbol(s) without a vector",)
        state = ServerState(svc, auto_index=True)
        state.attach()
        try:
            _poll(lambda: _vectors(svc)[0] == nodes and state.building is None, "the resume")
        finally:
            state.detach()
        assert len(embedder.texts) == nodes - before  # no vector made twice
        assert [p.phase for p in state.phases()] == ["embed"]  # the tree was neither walked nor parsed again
        assert svc.unfinished_work() is None and svc.activity() is None
        assert svc.explore("post an entry", hops=0).degraded is False
    finally:
        svc.close()


def test_resume_updates_files_changed_while_no_server_ran(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    svc = make_service(root)
    try:
        svc.index()
        edit_file(root, "ledger/mod_3.py", _module(3) + "\n\ndef refund_entry_3(amount):\n    return -amount\n")
        work = svc.unfinished_work()
        assert work is not None and work.update and work.reasons == ("1 file(s) changed since the last build",)
        state = ServerState(svc, auto_index=True)
        state.attach()
        try:
            _poll(lambda: svc.status().staleCount == 0 and state.building is None, "the update")
        finally:
            state.detach()
        assert svc.node("refund_entry_3").found
        assert "scan" in [p.phase for p in state.phases()]
        assert svc.unfinished_work() is None
    finally:
        svc.close()


@pytest.mark.anyio
async def test_server_without_auto_index_leaves_the_index_alone_and_says_what_to_do(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    _killed_index(root)
    svc = make_service(root)
    try:
        async with Client(create_server(ServerState(svc, auto_index=False))) as client:
            answer = await client.call_tool("igraph_explore", {"query": "post an entry", "hops": 0})
            status = await client.call_tool("igraph_status", {})
        data = answer.structured_content or {}
        assert data["degraded"] is True
        assert (
            f"dense channel: 256/{4 * FILES} symbols embedded; no build is running: call igraph_index" in data["note"]
        )
        assert (status.structured_content or {})["vectors"] == 256
        assert "activity" not in (status.structured_content or {})
    finally:
        svc.close()


# -- two real servers on one index -----------------------------------------------------------------------------
def _text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return dict(result.structured_content or {})


@pytest.mark.anyio
async def test_waiting_server_reports_the_holder_then_takes_over_when_it_dies(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    hold = tmp_path / "hold"
    log = (tmp_path / "holder.log").open("wb")
    # Server A builds the first index and is held inside its second embedding batch (256 of 400 vectors
    # committed, its rate measured), holding the writer lock.
    holder = subprocess.Popen(
        [sys.executable, "-m", "igraph_mcp", "serve", "--root", str(root)],
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=log,
        env=_env(root, IGRAPH_HOLD_AT="embed.batch:2", IGRAPH_HOLD_FILE=str(hold)),
    )
    try:
        _poll(lambda: os.path.exists(str(hold) + ".held"), "server A reaching its hold")
        params = server_params(["serve", "--root", str(root)], cwd=root)
        with anyio.fail_after(DEADLINE_S):
            async with Client(params) as client:
                # Server B finds the same work, finds the lock taken, and waits: it reports A's build.
                status_text = await client.call_tool("igraph_status", {})
                status = _data(status_text)
                answer = _data(await client.call_tool("igraph_explore", {"query": "post an entry", "hops": 0}))
                cli = subprocess.run(
                    [sys.executable, "-m", "igraph_mcp", "status", "--root", str(root)],
                    env=_env(root),
                    capture_output=True,
                    timeout=120,
                )
                holder.kill()
                holder.wait()
                # A's death releases the lock; B's next look takes over and finishes with no request.
                done = status
                while done["vectors"] < 4 * FILES or "activity" in done:
                    await anyio.sleep(0.05)
                    done = _data(await client.call_tool("igraph_status", {}))
                late = _data(await client.call_tool("igraph_explore", {"query": "post an entry", "hops": 0}))
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        log.close()
    running = status["activity"]
    assert running["pid"] == holder.pid and running["phase"] == "embed"
    assert (running["done"], running["total"]) == (256, 4 * FILES)
    assert running["rate"] > 0 and running["secondsLeft"] is not None
    assert "building: embed 256/400 at" in _text(status_text)
    assert cli.returncode == 0 and "building: embed 256/400 at" in cli.stdout.decode()  # CLI status: the same record
    assert status["vectors"] == 256  # B did not write while A held the lock
    assert answer["degraded"] is True
    assert f"dense channel: 256/{4 * FILES} symbols embedded; finishing in the background, about" in answer["note"]
    assert done["denseCoverage"] == 1.0
    assert late.get("degraded", False) is False and "dense" in late["diagnostics"]["channels"]
