"""What a new process loads: a search or status never loads the indexer, `--help` and usage errors load no
pydantic, and numpy's BLAS runs on one thread unless the user chose otherwise; and how a search's process ends."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from _factories import make_repo, subprocess_env

# Run in a child, so the modules this test process already imported do not hide what the front itself loads.
_LOADED = """
import json, sys
from igraph_mcp.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
mods = sorted(m for m in sys.modules if m.split(".")[0] in ("pydantic", "numpy", "onnxruntime", "tree_sitter")
              or m.startswith("igraph_mcp.index.") or m == "igraph_mcp.overview")
sys.stderr.write("\\n" + json.dumps({"code": code, "modules": mods}) + "\\n")
"""


def _front(*argv: str, env: dict[str, str] | None = None) -> tuple[int, list[str], str]:
    done = subprocess.run(
        [sys.executable, "-c", _LOADED, *argv],
        env=env or subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return int(report["code"] or 0), list(report["modules"]), done.stdout


def test_help_and_a_usage_error_load_no_models() -> None:
    code, modules, out = _front("--help")
    assert code == 0 and "search" in out
    assert not [m for m in modules if m.startswith(("pydantic", "numpy", "onnxruntime", "igraph_mcp.index."))]
    code, modules, _ = _front("search")  # the query is missing: argparse's usage error
    assert code == 2
    assert not [m for m in modules if m.startswith(("pydantic", "numpy", "igraph_mcp.index."))]


def test_search_and_status_never_load_the_indexer(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"pkg/mod.py": "def parse_header(value):\n    return value.strip()\n"})
    code, _, _ = _front("index", "--root", str(root), "--no-embed")
    assert code == 0
    for argv in (("search", "parse header", "--root", str(root), "--channels", "fts"), ("status", "--root", str(root))):
        code, modules, out = _front(*argv)
        assert code == 0, out
        assert "pydantic" in modules  # the answer's models did load: the check itself sees imports
        indexer = [m for m in modules if m in ("igraph_mcp.index.build", "igraph_mcp.index.indexer")]
        assert indexer == [] and not [m for m in modules if m.startswith("tree_sitter")], argv
        if argv[0] == "search":  # nor the build's phase timings, which only index and status print
            assert "igraph_mcp.index.phases" not in modules
    code, modules, _ = _front("index", "--root", str(root), "--no-embed")
    assert code == 0 and "igraph_mcp.index.build" in modules


def test_blas_runs_on_one_thread_unless_set() -> None:
    probe = "import os, igraph_mcp; print(os.environ['OPENBLAS_NUM_THREADS'])"
    env = {k: v for k, v in subprocess_env().items() if k != "OPENBLAS_NUM_THREADS"}
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "1"
    env["OPENBLAS_NUM_THREADS"] = "3"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "3"


# The console script's way in: main() with no arguments reads the process's own command line.
_ENDS = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("teardown ran\\n"))
from igraph_mcp.cli import main
raise SystemExit(main())
"""


def _ends(*argv: str) -> subprocess.CompletedProcess[str]:
    env = subprocess_env(IGRAPH_EMBEDDER="hash")
    return subprocess.run(
        [sys.executable, "-c", _ENDS, *argv], env=env, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_search_ends_its_process_at_once_and_a_failure_ends_as_usual(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"pkg/mod.py": "def parse_header(value):\n    return value.strip()\n"})
    done = _ends("index", "--root", str(root))
    assert done.returncode == 0 and "teardown ran" in done.stderr  # a build is no one-shot read
    done = _ends("search", "parse header", "--root", str(root))
    assert done.returncode == 0 and "parse_header" in done.stdout, done.stderr
    assert "teardown ran" not in done.stderr  # the answer is out: the interpreter's teardown was skipped
    done = _ends("search", "parse header", "--root", str(tmp_path / "missing"))
    assert done.returncode == 1 and "teardown ran" in done.stderr
