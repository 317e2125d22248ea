"""Parsing in worker processes: the same index as a serial build, and a worker that dies costs only its file."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest
from _factories import make_repo, make_service, snapshot, subprocess_env

from igraph_mcp.index import parse_pool
from igraph_mcp.index.parse_pool import ParseJob, ParseOutcome, parse_all, parse_job, worker_count

CRASH_MARK = b"KILL_THE_PARSER"

# One file per language family, a syntax error and generated code nested past the limit, so the parallel build
# has to carry parse errors and skip reasons across the process boundary too.
FILES: dict[str, str | bytes] = {
    "app/service.py": '''
        """Orders."""
        from app.util import total

        class OrderService:
            def place(self, items):
                return total(items)
        ''',
    "app/util.py": "def total(items):\n    return sum(items)\n",
    "app/broken.py": "def half(:\n    return\n",
    "web/client.ts": "import { send } from './net';\nexport class Client { run(): void { send(1); } }\n",
    "web/net.js": "export function send(x) { return fetch('/api?x=' + x); }\n",
    "svc/main.go": 'package main\n\nimport "fmt"\n\nfunc Greet(n string) { fmt.Println(n) }\n',
    "lib/src/lib.rs": "pub struct Ledger { n: u32 }\nimpl Ledger { pub fn add(&mut self) { self.n += 1; } }\n",
    "java/Shop.java": "class Shop { int count() { return helper(); } int helper() { return 1; } }\n",
    "src/deep.js": "x = " + "[\n" * 600 + "]\n" * 600 + ";\n",
}


def _crash_on_mark(job: ParseJob) -> ParseOutcome:
    """A parse task whose worker dies (as from a crash inside a grammar) on files holding CRASH_MARK."""
    if CRASH_MARK in job.data:
        os._exit(3)
    return parse_job(job)


def _die_in_any_worker(job: ParseJob) -> ParseOutcome:
    """A parse task no worker survives (as where processes cannot start), but the indexer process can run."""
    if multiprocessing.parent_process() is not None:
        os._exit(3)
    return parse_job(job)


def _jobs(root: Path) -> list[ParseJob]:
    from igraph_mcp.vocab.languages import language_for_path

    out = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        language = language_for_path(rel)
        if language is not None:
            out.append(ParseJob(rel, language, path.read_bytes()))
    return out


def test_workers_return_what_a_serial_parse_returns_in_job_order(tmp_path: Path) -> None:
    jobs = _jobs(make_repo(tmp_path, FILES))
    serial = list(parse_all(jobs, 1))
    parallel = list(parse_all(jobs, 2))
    assert parallel == serial
    # A consumer that stores outcomes a batch at a time has the next batch queued: here the whole run at once.
    assert list(parse_all(jobs, 2, batch=len(jobs))) == serial
    # Each file's rows come drafted (module first, every node an FTS text in the same order), ready for ids.
    for job, outcome in zip(jobs, serial, strict=True):
        draft = outcome.draft
        assert draft is not None and draft.symbol_count == max(len(outcome.parsed.symbols), 1)
        assert [t.node_id for t in draft.texts] == list(range(draft.node_count)), job.path
    assert {o.skipped for o in serial} == {None, "too_deeply_nested"}
    assert any(o.parsed.has_error and o.skipped is None for o in serial)  # app/broken.py keeps a partial tree


def test_a_file_that_kills_its_worker_is_skipped_and_the_rest_parse(tmp_path: Path) -> None:
    files = {**FILES, "app/poison.py": f"# {CRASH_MARK.decode()}\ndef poison():\n    pass\n"}
    jobs = _jobs(make_repo(tmp_path, files))
    outcomes = list(parse_all(jobs, 2, _crash_on_mark))
    assert len(outcomes) == len(jobs)
    by_path = dict(zip((j.path for j in jobs), outcomes, strict=True))
    assert by_path["app/poison.py"].skipped == "parser_crashed"
    assert by_path["app/poison.py"].parsed.symbols == []  # indexed as its module text only
    clean = [j for j in jobs if j.path != "app/poison.py"]
    assert [by_path[j.path] for j in clean] == [parse_job(j) for j in clean]


def test_when_no_worker_can_run_the_indexer_parses_everything_itself(tmp_path: Path) -> None:
    jobs = _jobs(make_repo(tmp_path, FILES))
    outcomes = list(parse_all(jobs, 2, _die_in_any_worker))
    assert outcomes == [parse_job(j) for j in jobs]
    assert all(o.skipped != "parser_crashed" for o in outcomes)


@pytest.mark.parametrize(
    ("configured", "size", "cpus", "expected"),
    [
        (1, 10**9, 8, 1),  # IGRAPH_PARSE_WORKERS=1: always serial
        (3, 10, 1, 3),  # an explicit count is obeyed
        (0, parse_pool.PARALLEL_MIN_BYTES - 1, 8, 1),  # a small job is not worth starting processes
        (0, parse_pool.PARALLEL_MIN_BYTES, 2, 2),
        (0, 10**9, 1, 1),
        (0, 10**9, 64, parse_pool.MAX_AUTO_WORKERS),
    ],
)
def test_worker_count(configured: int, size: int, cpus: int, expected: int) -> None:
    assert worker_count(configured, size, cpus) == expected


def test_parallel_and_serial_builds_store_the_same_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    results = {}
    snaps = {}
    for workers in ("1", "2"):
        monkeypatch.setenv("IGRAPH_PARSE_WORKERS", workers)
        svc = make_service(make_repo(tmp_path, FILES, name=f"repo{workers}"))
        results[workers] = svc.index()
        snaps[workers] = snapshot(svc.db)
        svc.close()
    assert results["1"].parseWorkers == 1 and results["2"].parseWorkers == 2
    assert snaps["2"] == snaps["1"]
    assert results["2"].skipped["too_deeply_nested"] == results["1"].skipped["too_deeply_nested"] == 1
    assert results["2"].parseErrors == results["1"].parseErrors >= 2


def test_an_index_run_survives_a_worker_that_dies(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from igraph_mcp.index.indexer import Indexer
    from igraph_mcp.store.db import SqliteDatabase

    files = {**FILES, "app/poison.py": f"# {CRASH_MARK.decode()}\ndef poison():\n    pass\n"}
    root = make_repo(tmp_path, files)
    db = SqliteDatabase(tmp_path / "index.db")
    indexer = Indexer(root, db, parse_workers=2)
    monkeypatch.setattr(indexer, "parse_task", _crash_on_mark)
    result = indexer.run(full=True)
    assert result.skipped["parser_crashed"] == 1
    assert result.parsed == len(_jobs(root))
    names = {r[0] for r in db.rows("SELECT qualified_name FROM nodes")}
    assert "app.poison" in names and "poison" not in names  # its module node, nothing parsed out of it
    assert {"OrderService.place", "Ledger", "Shop.count"} <= names
    db.close()


def _shout(job: ParseJob) -> ParseOutcome:
    """A parse task that prints, as a chatty grammar or library might."""
    print("WORKER-STDOUT-MARK", flush=True)
    return parse_job(job)


def test_a_worker_never_writes_to_stdout_which_belongs_to_the_stdio_protocol(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = make_repo(tmp_path, FILES)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from test_parse_pool import _jobs, _shout\n"
        "from igraph_mcp.index.parse_pool import parse_all\n"
        "if __name__ == '__main__':\n"
        "    outcomes = list(parse_all(_jobs(Path(sys.argv[1])), 2, _shout))\n"
        "    sys.stderr.write(f'parsed {len(outcomes)}\\n')\n"
    )
    env = subprocess_env(tests=True)  # the child imports this module's _jobs and _shout
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env, check=True)
    assert done.stdout == ""
    assert "WORKER-STDOUT-MARK" in done.stderr and f"parsed {len(_jobs(root))}" in done.stderr
