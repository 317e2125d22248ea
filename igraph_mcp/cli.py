"""Command line: a thin shell over IGraphService; library errors become one clean line and exit code 1."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from igraph_mcp import __version__
from igraph_mcp.errors import IGraphError

log = logging.getLogger("igraph_mcp")


def _emit(result: BaseModel | dict[str, Any], as_json: bool, render: Callable[[Any], str]) -> None:
    if as_json:
        data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(render(result) + "\n")


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[str, int, int], None] | None]:
    """A rich progress bar on a terminal; nothing when piped (scripts read only the summary)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description:<8}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
    ) as bar:
        tasks: dict[str, Any] = {}

        def update(phase: str, done: int, total: int) -> None:
            if phase not in tasks:
                tasks[phase] = bar.add_task(phase, total=total or 1)
            bar.update(tasks[phase], completed=done, total=total or 1)

        yield update


def _service(args: argparse.Namespace, **kwargs: Any) -> Any:
    from igraph_mcp.service import IGraphService

    return IGraphService(Path(args.root), **kwargs)


# -- commands -------------------------------------------------------------------------------------------------
def cmd_index(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_index

    root = Path(args.path or args.root)
    args.root = str(root)
    svc = _service(args)
    with _progress(not args.json) as progress:
        result = svc.index(full=args.full, dry_run=args.dry_run, embed=not args.no_embed, progress=progress)
    _emit(result, args.json, render_index)
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_explore

    svc = _service(args)
    channels = {"hybrid": ("fts", "dense"), "fts": ("fts",), "dense": ("dense",)}[args.channels]
    result = svc.explore(
        args.query,
        top_k=args.top_k,
        hops=args.hops,
        kinds=args.kind or None,
        context_files=args.context_file or (),
        max_tokens=args.max_tokens,
        channels=channels,
    )
    _emit(result, args.json, render_explore)
    return 0


def cmd_node(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_node

    _emit(_service(args).node(args.name, args.file), args.json, render_node)
    return 0


def cmd_file(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_file

    _emit(_service(args).file(args.path), args.json, render_file)
    return 0


def cmd_related(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_related

    _emit(_service(args).related(args.name, args.direction, args.hops), args.json, render_related)
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_status

    _emit(_service(args, embed=False).status(), args.json, render_status)
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from igraph_mcp.config import write_default_config

    path = write_default_config(Path(args.root), overwrite=args.force)
    sys.stdout.write(f"wrote {path}\n")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    from igraph_mcp.server import serve

    return serve(args)


def cmd_register(args: argparse.Namespace) -> int:
    from igraph_mcp.register import register

    return register(args)


def cmd_mount(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_mount

    _emit(_service(args).mount(args.path, source_type=args.type, name=args.name), args.json, render_mount)
    return 0


def cmd_unmount(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_unmount

    _emit(_service(args).unmount(args.target), args.json, render_unmount)
    return 0


def cmd_resources(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_resources

    _emit(_service(args, embed=False).list_resources(), args.json, render_resources)
    return 0


# -- parser ---------------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs)."""
    p = argparse.ArgumentParser(
        prog="igraph-mcp",
        description="Code graph + hybrid retrieval for AI agents. "
        "With no command, serves MCP over stdio for the current directory.",
    )
    p.add_argument("--version", action="version", version=f"igraph-mcp {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--root", default=".", help="repository root (default: current directory)")
    common.add_argument("--json", action="store_true", help="machine-readable output")
    sub = p.add_subparsers(dest="command")

    s = sub.add_parser("index", parents=[common], help="build or update the index (incremental)")
    s.add_argument("path", nargs="?", help="repository root (same as --root)")
    s.add_argument("--full", action="store_true", help="rebuild from scratch")
    s.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    s.add_argument("--no-embed", action="store_true", help="structure and FTS only, skip embeddings")
    s.set_defaults(func=cmd_index)

    s = sub.add_parser("search", parents=[common], help="hybrid search (the igraph_explore engine)")
    s.add_argument("query")
    s.add_argument("--top-k", type=int, default=10)
    s.add_argument("--hops", type=int, default=0, help="graph expansion hops (default 0)")
    s.add_argument("--kind", action="append", help="only these kinds (repeatable)")
    s.add_argument("--context-file", action="append", help="boost symbols in this file (repeatable)")
    s.add_argument("--max-tokens", type=int, default=None)
    s.add_argument("--channels", choices=("hybrid", "fts", "dense"), default="hybrid")
    s.set_defaults(func=cmd_search)

    s = sub.add_parser("node", parents=[common], help="details of one symbol")
    s.add_argument("name")
    s.add_argument("--file", default=None)
    s.set_defaults(func=cmd_node)

    s = sub.add_parser("file", parents=[common], help="outline of one file")
    s.add_argument("path")
    s.set_defaults(func=cmd_file)

    s = sub.add_parser("related", parents=[common], help="callers / callees of a symbol")
    s.add_argument("name")
    s.add_argument("--direction", choices=("callers", "callees", "both"), default="both")
    s.add_argument("--hops", type=int, default=1)
    s.set_defaults(func=cmd_related)

    s = sub.add_parser("status", parents=[common], help="index statistics")
    s.set_defaults(func=cmd_status)

    s = sub.add_parser("init", parents=[common], help="write .igraph/config.json with the defaults")
    s.add_argument("--force", action="store_true")
    s.set_defaults(func=cmd_init)

    s = sub.add_parser("mount", parents=[common], help="mount a PRD or DB schema")
    s.add_argument("path")
    s.add_argument("--type", choices=("prd", "db", "auto"), default="auto")
    s.add_argument("--name", default=None)
    s.set_defaults(func=cmd_mount)

    s = sub.add_parser("unmount", parents=[common], help="unmount a resource by id or path")
    s.add_argument("target")
    s.set_defaults(func=cmd_unmount)

    s = sub.add_parser("resources", parents=[common], help="list mounted resources")
    s.set_defaults(func=cmd_resources)

    s = sub.add_parser("serve", help="run the MCP server")
    s.add_argument("--root", default=".")
    s.add_argument("--transport", choices=("stdio", "http", "sse"), default="stdio")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--watch", action="store_true", help="keep the index current with a file watcher")
    s.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback host (needs a token)")
    s.add_argument("--no-auto-index", action="store_true", help="do not index on start when there is no index")
    s.set_defaults(func=cmd_serve)

    s = sub.add_parser("register", help="add igraph-mcp to an MCP client's configuration")
    s.add_argument("--target", choices=("claude-code", "cursor", "claude-desktop"), required=True)
    s.add_argument("--root", default=".")
    s.add_argument("--config-path", default=None, help="override the client's config file location")
    s.add_argument(
        "--command",
        dest="launch_command",
        default=None,
        help="command the client should run (default: igraph-mcp)",
    )
    s.set_defaults(func=cmd_register)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``igraph-mcp`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    try:
        return int(args.func(args))
    except IGraphError as exc:
        sys.stderr.write(f"igraph-mcp: {exc}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("igraph-mcp: interrupted; the index stays consistent, run the command again to finish\n")
        return 130
