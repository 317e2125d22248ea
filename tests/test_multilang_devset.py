"""The multi-language devset (benchmarks/multilang/instances.jsonl): format, halves, coverage, no reserved project;
and the miner that derives its mined rows, on a small real git history."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

_DIR = Path(__file__).resolve().parents[1] / "benchmarks" / "multilang"


def _load(name: str) -> ModuleType:
    if str(_DIR) not in sys.path:
        sys.path.insert(0, str(_DIR))  # fetch_tree imports mine as its neighbour
    spec = importlib.util.spec_from_file_location(name, _DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


mine = _load("mine")
fetch_tree = _load("fetch_tree")
ROWS = mine.read_instances()
LANGUAGES = {"c", "cpp", "java", "rust", "go", "typescript", "javascript"}
FAMILY = {"c": "c/c++", "cpp": "c/c++"}  # the issue asks for C/C++ as one language in both halves


def test_rows_have_the_format() -> None:
    keys = {"instance_id", "repo", "language", "base_commit", "split", "problem_statement", "gold_files"}
    for r in ROWS:
        assert keys | {"gold_functions", "source"} <= set(r), r["instance_id"]
        assert r["language"] in LANGUAGES and r["split"] in {"tuning", "heldout"}
        assert re.fullmatch(r"[0-9a-f]{40}", r["base_commit"]) and re.fullmatch(r"[\w.-]+/[\w.-]+", r["repo"])
        assert 1 <= len(r["gold_files"]) <= 3 and len(r["problem_statement"]) >= 150
        for fn in r["gold_functions"]:
            path, _, name = fn.partition("::")
            assert path in r["gold_files"] and name, fn
        assert r["source"] in {"multi-swe-bench", "commit"}
    assert len({r["instance_id"] for r in ROWS}) == len(ROWS)
    assert len({r["problem_statement"] for r in ROWS}) == len(ROWS)


def test_counts_halves_and_languages() -> None:
    assert len(ROWS) >= 150
    assert len({r["repo"] for r in ROWS}) >= 25
    halves: dict[str, set[str]] = defaultdict(set)
    languages: dict[str, set[str]] = defaultdict(set)
    per_repo: dict[str, int] = defaultdict(int)
    for r in ROWS:
        halves[r["repo"]].add(r["split"])
        languages[r["repo"]].add(r["language"])
        per_repo[r["repo"]] += 1
    assert all(len(h) == 1 for h in halves.values()), "a repository is in both halves"
    assert all(len(langs) == 1 for langs in languages.values())
    assert max(per_repo.values()) <= 25
    seen = {(FAMILY.get(r["language"], r["language"]), r["split"]) for r in ROWS}
    for language in {FAMILY.get(x, x) for x in LANGUAGES}:
        assert {(language, "tuning"), (language, "heldout")} <= seen, language


def test_no_reserved_project() -> None:
    for repo in {r["repo"] for r in ROWS} | set(mine.REPOSITORIES):
        assert mine.mc.refusal(repo) is None, repo
    for reserved in ("BurntSushi/ripgrep", "axios/axios", "FasterXML/jackson-databind", "fastify/fastify"):
        assert mine.mc.refusal(reserved) is not None


def test_mined_rows_follow_the_rules() -> None:
    mined = [r for r in ROWS if r["source"] == "commit"]
    assert mined and {r["repo"] for r in mined} == set(mine.REPOSITORIES)
    for r in mined:
        assert (r["language"], r["split"]) == mine.REPOSITORIES[r["repo"]][:2]
        assert re.fullmatch(r"[0-9a-f]{40}", r["fix_commit"])
        assert r["instance_id"] == f"{r['repo'].replace('/', '__')}-{r['fix_commit'][:10]}"
        for path in r["gold_files"]:
            assert mine.gold_file_ok(path, r["language"]), path
            assert path not in r["problem_statement"], r["instance_id"]  # masked
    counts: dict[str, int] = defaultdict(int)
    for r in mined:
        counts[r["repo"]] += 1
    assert max(counts.values()) <= mine.CAP_PER_REPOSITORY


def test_statement_drops_trailers_and_references_and_masks_the_files() -> None:
    message = (
        "fix(parser): stop at a nested backquote (#41)\n\n"
        "The parser in syntax/parser.go kept reading past a closing backquote when\n"
        "the backslashes were fewer than expected.  See parser.go for details.\n"
        "diff --git a/x b/x\n\n"
        "Fixes #40\n"
        "Signed-off-by: Dev One <dev@example.org>\n"
    )
    text = mine.statement_of(message, ["syntax/parser.go"])
    assert text.startswith("parser: stop at a nested backquote\n\nThe parser in <file> kept")
    assert "See <file> for details." in text
    for gone in ("#41", "#40", "Fixes", "Signed-off-by", "diff --git", "parser.go"):
        assert gone not in text


@pytest.mark.parametrize(
    ("path", "source", "ranges", "expected"),
    [
        (
            "p/s.go",
            "package p\n\ntype S struct{}\n\nfunc (s *S) Run(x int) int {\n\tf := func() int { return x }\n"
            "\treturn f()\n}\n\nfunc Top() {}\n",
            [(6, 6), (10, 10)],
            ["S.Run", "Top"],
        ),
        (
            "src/a.ts",
            "export class A {\n  m(x: number) {\n    return x\n  }\n}\ninterface I { z(): void }\n"
            "namespace N { export function q() {} }\n",
            [(3, 3), (6, 6), (7, 7)],
            ["A.m", "q"],  # an interface's method signature is no function; the namespace is left out
        ),
        ("src/b.js", "function f() {\n  return 1\n}\nconst x = 2\n", [(4, 4)], []),
        ("src/c.js", "function f() {\n  a()\n  b()\n}\n", [(3, 2)], ["f"]),  # insertion inside f
        ("src/d.js", "function f() {}\n\nfunction g() {}\n", [(2, 1)], []),  # insertion between two
        (
            "src/lib.rs",
            "fn add() {}\n\n#[cfg(test)]\nmod tests {\n    fn test_add() {}\n    fn helper() {}\n}\n",
            [(1, 1), (5, 5), (6, 6)],
            ["add"],  # tests beside the code are no gold
        ),
    ],
)
def test_function_names(path: str, source: str, ranges: list[tuple[int, int]], expected: list[str]) -> None:
    assert mine.function_names(source.encode(), path, ranges) == expected


@pytest.mark.parametrize(
    ("path", "language", "ok"),
    [
        ("src/core.ts", "typescript", True),
        ("src/types.d.ts", "typescript", False),
        ("src/core.test.ts", "typescript", False),
        ("deno_dist/core.ts", "typescript", False),
        ("pkg/conn.go", "go", True),
        ("pkg/conn_test.go", "go", False),
        ("lib/x.js", "typescript", False),
        ("dist/jquery.js", "javascript", False),
        ("dist-module/jquery.node-module-wrapper.js", "javascript", False),
        ("src/main/java/a/FooTest.java", "java", False),
        ("src/unix/core.c", "c", True),
        ("vendor/x/y.go", "go", False),
        ("Gruntfile.js", "javascript", False),
        ("packages/a/vite.config.ts", "typescript", False),
    ],
)
def test_gold_file_rules(path: str, language: str, ok: bool) -> None:
    assert mine.gold_file_ok(path, language) is ok


@pytest.mark.parametrize(
    ("subject", "refused"),
    [
        ("Added unit tests for stty to improve test coverage", True),
        ("Test on Node 18 and drop EOL Node 10", True),
        ("regex-automata/test: ignore some tests in 32-bit targets", True),
        ("interp: test and fix `read` with regular files as stdin", False),
        ("syntax: error on unclosed nested backquotes", False),
    ],
)
def test_test_only_subjects(subject: str, refused: bool) -> None:
    assert bool(mine._TESTS_SUBJECT.search(subject)) is refused


def test_pick_dedupes_and_caps_deterministically() -> None:
    rows = [{"problem_statement": f"text {i // 2}"} for i in range(30)]  # each text twice
    first = mine.pick(rows, cap=6)
    assert first == mine.pick(rows, cap=6) and len(first) == 6
    assert len({r["problem_statement"] for r in first}) == 6
    assert mine.pick(rows[:4], cap=6) == [rows[0], rows[2]]


def _git(root: Path, *args: str) -> str:
    env = {
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Dev",
        "GIT_AUTHOR_EMAIL": "dev@example.org",
        "GIT_COMMITTER_NAME": "Dev",
        "GIT_COMMITTER_EMAIL": "dev@example.org",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True, env=env).stdout


def _commit(root: Path, message: str, files: dict[str, str]) -> str:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", message)
    return _git(root, "rev-parse", "HEAD").strip()


GO_V1 = "package conn\n\nfunc Dial(addr string) error {\n\treturn nil\n}\n\nfunc Close() {}\n"
GO_V2 = GO_V1.replace("{\n\treturn nil", '{\n\tif addr == "" {\n\t\treturn errEmpty\n\t}\n\treturn nil')
BODY = (
    "Dialing an empty address hung forever instead of failing, because the\n"
    "resolver was asked for the default route and never answered. Return an\n"
    "error up front so callers see what went wrong."
)


def test_miner_on_a_real_history(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    base = _commit(root, "Initial import", {"conn/conn.go": GO_V1, "README.md": "# conn\n"})
    fix = _commit(
        root,
        f"conn: fail fast on an empty address\n\n{BODY}\n\nFixes #7\n",
        {
            "conn/conn.go": GO_V2,
            "conn/conn_test.go": "package conn\n",
        },
    )
    _commit(root, f"conn: same kind of text without a reference\n\n{BODY}\n", {"conn/conn.go": GO_V2 + "\n"})
    _commit(root, "Fix #8: short", {"conn/conn.go": GO_V1})
    commented = GO_V1.replace("func Close", "// Close closes.\nfunc Close")
    _commit(root, f"conn: document Close\n\n{BODY}\n\nFixes #9\n", {"conn/conn.go": commented})
    why: dict[str, int] = defaultdict(int)
    rows = mine.mine_repository("acme/conn", "go", "tuning", root / ".git", why)  # type: ignore[arg-type]
    assert len(rows) == 1 and why["short_text"] == 1 and why["comments_only"] == 1
    row = rows[0]
    assert row["base_commit"] == base and row["fix_commit"] == fix
    assert row["gold_files"] == ["conn/conn.go"]  # the test file is not gold
    assert row["gold_functions"] == ["conn/conn.go::Dial"]
    assert row["problem_statement"] == f"conn: fail fast on an empty address\n\n{BODY}"
    assert row["instance_id"] == f"acme__conn-{fix[:10]}"


def test_tree_script_writes_the_base_commit(tmp_path: Path) -> None:
    mirror = tmp_path / "mirrors" / "acme+conn" / "repo"
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q", "-b", "main")
    base = _commit(work, "Initial import", {"conn/conn.go": GO_V1})
    _commit(work, "later", {"conn/conn.go": GO_V2, "conn/new.go": "package conn\n"})
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirror)], check=True)
    row = {"instance_id": "acme__conn-1", "repo": "acme/conn", "base_commit": base, "gold_files": ["conn/conn.go"]}
    tree = fetch_tree.write_tree(row, tmp_path / "mirrors", tmp_path / "cache")
    assert (tree / "conn" / "conn.go").read_text() == GO_V1
    assert not (tree / "conn" / "new.go").exists()
    assert fetch_tree.write_tree(row, tmp_path / "mirrors", tmp_path / "cache") == tree  # written once
    with pytest.raises(SystemExit, match="fetch github:acme/other"):
        fetch_tree.write_tree({**row, "repo": "acme/other"}, tmp_path / "mirrors", tmp_path / "cache")


def test_rows_file_is_json_lines() -> None:
    for line in mine.INSTANCES.read_text().splitlines():
        assert isinstance(json.loads(line), dict)
