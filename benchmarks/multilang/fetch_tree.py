"""Write the source tree of an instances.jsonl row at its base commit and print the tree's path.

    python benchmarks/multilang/fetch_tree.py nlohmann__json-3109 [--mirrors DIR] [--cache DIR]

The history comes from the bare mirror of the row's repository, as ``fetch github:<owner>/<name>`` leaves it in
``<mirrors>/<owner>+<name>/repo`` (``--mirrors``, else $IGRAPH_MIRRORS, else the .mirror folder beside the
checkout). The tree is ``git archive <base_commit> | tar -x``. Fetched snapshots leave out files of 4 MiB and more;
when that breaks the archive, the tree is written file by file and the absent files are listed on stderr.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

from mine import INSTANCES, MIRRORS, find_mirror


def _archive(git_dir: Path, commit: str, dest: Path) -> bool:
    """git archive | tar -x; False when either side fails (a blob the snapshot lacks, say)."""
    archive = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "archive", "--format=tar", commit],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    tar = subprocess.Popen(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, stderr=subprocess.DEVNULL)
    assert archive.stdout is not None
    archive.stdout.close()
    return tar.wait() == 0 and archive.wait() == 0


def _file_by_file(git_dir: Path, commit: str, dest: Path) -> list[str]:
    """Write every blob of commit the mirror holds; returns the paths it lacks."""
    listing = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "-z", commit], check=True, capture_output=True
    ).stdout
    entries: list[tuple[bytes, bytes, str]] = []
    for entry in listing.split(b"\0"):
        if entry:
            meta, path = entry.split(b"\t", 1)
            mode, kind, sha = meta.split()
            if kind == b"blob":  # submodules are left out, as git archive does
                entries.append((mode, sha, path.decode("utf-8", "surrogateescape")))
    missing: list[str] = []
    cat = subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert cat.stdin is not None and cat.stdout is not None
    for mode, sha, path in entries:
        cat.stdin.write(sha + b"\n")
        cat.stdin.flush()
        head = cat.stdout.readline().split()
        if len(head) < 3 or head[1] == b"missing":
            missing.append(path)
            continue
        data = cat.stdout.read(int(head[2]) + 1)[:-1]
        full = dest / path
        full.parent.mkdir(parents=True, exist_ok=True)
        if mode == b"120000":
            try:
                full.symlink_to(data.decode("utf-8", "surrogateescape"))
            except OSError:
                missing.append(path)
            continue
        full.write_bytes(data)
        if mode == b"100755":
            full.chmod(0o755)
    cat.stdin.close()
    cat.wait()
    return missing


def write_tree(row: dict[str, object], mirrors: Path, cache: Path) -> Path:
    """The tree of row at its base commit under cache/ml-trees/<instance_id>, written once."""
    repo, commit = str(row["repo"]), str(row["base_commit"])
    git_dir = find_mirror(mirrors, repo)
    if git_dir is None:
        raise SystemExit(
            f"no mirror of {repo} under {mirrors}: fetch github:{repo} first (it lands in "
            f"<mirrors>/{repo.replace('/', '+')}/repo), then run this again"
        )
    known = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "-e", commit + "^{commit}"], check=False)
    if known.returncode != 0:
        raise SystemExit(f"the mirror {git_dir} lacks base commit {commit}: fetch github:{repo} again")
    dest = cache / "ml-trees" / str(row["instance_id"])
    done = dest.with_name(dest.name + ".ok")  # beside the tree, so the tree holds only the commit's files
    if done.is_file() and dest.is_dir():
        return dest
    part = dest.with_name(dest.name + ".part")
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    if not _archive(git_dir, commit, part):
        shutil.rmtree(part)
        part.mkdir(parents=True)
        missing = _file_by_file(git_dir, commit, part)
        if missing:
            shown = ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
            print(f"{len(missing)} file(s) absent from the mirror, left out: {shown}", file=sys.stderr)
    lost = [p for p in row["gold_files"] if not (part / str(p)).is_file()]  # type: ignore[attr-defined]
    if lost:
        print(f"WARNING: gold file(s) missing from the tree: {lost}", file=sys.stderr)
    shutil.rmtree(dest, ignore_errors=True)
    part.rename(dest)
    done.write_text(commit + "\n")
    return dest


def main(argv: list[str] | None = None) -> int:
    """Write one row's tree and print its path."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("instance_id")
    ap.add_argument("--mirrors", type=Path, default=MIRRORS)
    ap.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "igraph-devset")
    ap.add_argument("--data", type=Path, default=INSTANCES)
    a = ap.parse_args(argv)
    rows = [json.loads(line) for line in a.data.read_text().splitlines() if line.strip()]
    row = next((r for r in rows if r["instance_id"] == a.instance_id), None)
    if row is None:
        raise SystemExit(f"unknown instance_id {a.instance_id} (not in {a.data})")
    print(write_tree(row, a.mirrors, a.cache))
    return 0


if __name__ == "__main__":
    sys.exit(main())
