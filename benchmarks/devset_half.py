"""The devset split: a tuning half and a held-out half, fixed once and committed as devset_split.json.

Within each repository the instances are ordered by sha1(instance_id) and dealt alternately (first to
``tuning``), so every repository with two or more instances is on both sides and the split does not
depend on file order. sha1 is a stable shuffle key here, not a security measure.

    python benchmarks/devset_half.py            # (re)write benchmarks/devset_split.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import defaultdict
from pathlib import Path

import common

DEFAULT_DEVSET = common.devset_path()
SPLIT_FILE = Path(__file__).resolve().parent / "devset_split.json"
HALVES = ("tuning", "heldout")


def split_instances(rows: list[tuple[str, str]]) -> dict[str, list[str]]:
    """(instance_id, repo) rows -> {"tuning": [...], "heldout": [...]}, ids sorted within each half."""
    by_repo: dict[str, list[str]] = defaultdict(list)
    for instance_id, repo in rows:
        by_repo[repo].append(instance_id)
    out: dict[str, list[str]] = {h: [] for h in HALVES}
    for ids in by_repo.values():
        ordered = sorted(set(ids), key=lambda i: hashlib.sha1(i.encode()).hexdigest())
        for n, instance_id in enumerate(ordered):
            out[HALVES[n % 2]].append(instance_id)
    return {h: sorted(v) for h, v in out.items()}


def load_split(path: Path = SPLIT_FILE) -> dict[str, str]:
    """instance_id -> half, from the committed split file."""
    data = json.loads(path.read_text(encoding="utf-8"))
    return {i: half for half in HALVES for i in data[half]}


def main(argv: list[str] | None = None) -> int:
    """Write the split file from the devset."""
    devset = Path(argv[0]) if argv else DEFAULT_DEVSET
    rows = []
    with devset.open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                r = json.loads(line)
                rows.append((r["instance_id"], r["repo"]))
    split = split_instances(rows)
    payload = {
        "rule": "per repository: sort by sha1(instance_id), deal alternately starting with tuning",
        "source": devset.name,
        **split,
    }
    SPLIT_FILE.write_text(json.dumps(payload, indent=1) + "\n", encoding="utf-8")
    print(f"tuning {len(split['tuning'])}, heldout {len(split['heldout'])} -> {SPLIT_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
