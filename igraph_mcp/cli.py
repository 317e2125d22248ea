"""Command line: a thin shell over the workspace; library errors become one clean line and a documented exit code.

Each command is declared once, its options beside its handler (``@command``); ``build_parser`` only assembles
them. Messages from below leave their advice as next steps (``next_step``); this front words them as the commands
and flags a person types here (``PERSON_WORDS``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from igraph_mcp import __version__
from igraph_mcp.cli_tokens import token_options
from igraph_mcp.errors import IGraphError, IndexBusy
from igraph_mcp.explore_request import DEFAULT_HOPS, DEFAULT_TOP_K, HOPS_MAX, SNIPPET_HITS, TOP_K_MAX
from igraph_mcp.next_step import NextStep, Words, word, word_data
from igraph_mcp.vocab.kinds import filterable_kinds

if TYPE_CHECKING:
    # Types only: pydantic and the result models load with the command that answers with them, so `--help`, a
    # usage error and `token` start without them.
    from pydantic import BaseModel

    from igraph_mcp.index.phases import Progress

log = logging.getLogger("igraph_mcp")

# Exit codes (also in --help and the README): scripts can tell "not there" from "several" from "broken".
EXIT_OK = 0
EXIT_ERROR = 1  # bad input, no index yet, damaged index, storage or embedder failure: the message says what to do
EXIT_USAGE = 2  # unknown command or option (argparse)
EXIT_NOT_FOUND = 3  # node / file / related / unmount: nothing matches
EXIT_AMBIGUOUS = 4  # node / file / related: several candidates, listed; narrow with a qualified name or --file
EXIT_BUSY = 5  # another process is writing the index: retry when it is done
EXIT_INTERRUPTED = 130
EXIT_CODES_HELP = """exit codes:
  0  success (a search with no matches included)
  1  error: bad input, no index yet, damaged index, storage or embedder failure (the message says what to do)
  2  usage error (unknown command or option)
  3  not found: node, file, related or unmount matched nothing
  4  ambiguous: several symbols or files match; they are listed, narrow with a qualified name or --file
  5  busy: another igraph-mcp process is writing this index; retry when it is done
  130 interrupted (the index stays consistent; run the command again)"""

# How a person at the command line is told each next step: the command or flag to type.
PERSON_WORDS: Words = {
    NextStep.INDEX: "`igraph-mcp index`",
    NextStep.FULL_REBUILD: "`igraph-mcp index --full`",
    NextStep.REPLACE: "--replace",
    NextStep.ALLOW_MASS_DELETE: "--allow-mass-delete",
    NextStep.INSTALL_EXTRA: "pip install 'igraph-mcp[{detail}]'",
    NextStep.EXPLORE: "`igraph-mcp search`",
    NextStep.NODE: "`igraph-mcp node`",
    NextStep.FILE: "`igraph-mcp file`",
    NextStep.RESOURCES: "`igraph-mcp resources`",
    NextStep.STATUS: "`igraph-mcp status`",
    NextStep.NARROW_FILE: "--file",
    NextStep.TOP_K: "--top-k",
    NextStep.MAX_TOKENS: "--max-tokens",
    NextStep.CONTEXT_FILES: "--context-file",
    NextStep.SKIPPED_FILES: "`igraph-mcp index --verbose` lists them all",
}


def say(text: str) -> str:
    """``text`` with its next steps worded for a person at the command line."""
    return word(text, PERSON_WORDS)


# -- the command registry -------------------------------------------------------------------------------------
Options = Literal["common", "stores", "none"]
AddArguments = Callable[[argparse.ArgumentParser], object]  # declares a command's own options


@dataclass(frozen=True)
class Command:
    """One sub-command: its name and help, the shared options it takes, its own options, and its handler."""

    name: str
    help: str
    add_arguments: AddArguments
    run: Callable[[argparse.Namespace], int] | None
    options: Options = "common"
    one_shot: bool = False
    """A read that leaves nothing to finish or clean up: its process may end as soon as the answer is out."""


COMMANDS: list[Command] = []


def command(
    name: str, help: str, add_arguments: AddArguments = lambda _: None, **kw: Any
) -> Callable[[Callable[[argparse.Namespace], int]], Callable[[argparse.Namespace], int]]:
    """Register the decorated handler as sub-command ``name`` with the options ``add_arguments`` declares."""

    def register(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
        COMMANDS.append(Command(name, help, add_arguments, run, **kw))
        return run

    return register


# -- shared helpers -------------------------------------------------------------------------------------------
def _lookup_code(result: BaseModel) -> int:
    """Exit code of a lookup answer: found, not found, or ambiguous (candidates listed)."""
    if getattr(result, "found", True):
        return EXIT_OK
    return EXIT_AMBIGUOUS if getattr(result, "candidates", None) else EXIT_NOT_FOUND


def _emit(result: BaseModel | dict[str, Any], as_json: bool, render: Callable[[Any], str]) -> None:
    if as_json:
        data = result if isinstance(result, dict) else result.model_dump(mode="json")
        sys.stdout.write(json.dumps(word_data(data, PERSON_WORDS), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(say(render(result)) + "\n")


@contextmanager
def _progress(enabled: bool) -> Iterator[Progress | None]:
    """A progress bar on a terminal; nothing when piped (scripts read only the summary)."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from igraph_mcp.progress_bar import ProgressBar

    bar = ProgressBar()
    try:
        yield bar.update
    finally:
        bar.close()


def _root(args: argparse.Namespace) -> str:
    """The (first) --root, for commands that act on one repository (init, view)."""
    from igraph_mcp.workspace import parse_root

    roots = args.root if isinstance(args.root, list) else [args.root]
    return parse_root(roots[0])[1] if roots and roots[0] else "."


def _query_warmup(args: argparse.Namespace) -> threading.Thread | None:
    """Start loading the query embedder of a one-repository search before the rest loads (see query_warmup)."""
    roots = args.root or ["."]
    if args.workspace or len(roots) != 1:
        return None
    from igraph_mcp.query_warmup import start_query_warmup

    return start_query_warmup(roots[0])


def _service(args: argparse.Namespace, **kwargs: Any) -> Any:
    from igraph_mcp.service import IGraphService
    from igraph_mcp.workspace import store_options

    return IGraphService(Path(_root(args)), **store_options(args), **kwargs)


def _workspace(args: argparse.Namespace, **kwargs: Any) -> Any:
    """The repositories of the command: one --root as always, or several (--root repeated, --workspace FILE)."""
    from igraph_mcp.service import IGraphService
    from igraph_mcp.workspace import Workspace, store_options, workspace_roots

    roots = workspace_roots(args.root, getattr(args, "workspace", None))
    kwargs.update(store_options(args, roots=len(roots)))
    if len(roots) == 1:
        return Workspace.single(IGraphService(roots[0].root, **kwargs))
    return Workspace.open(roots, **kwargs)


# -- commands -------------------------------------------------------------------------------------------------
def _index_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("path", nargs="?", help="repository root (same as --root)")
    s.add_argument("--full", action="store_true", help="rebuild from scratch")
    s.add_argument("--dry-run", action="store_true", help="show what would change, write nothing")
    s.add_argument("--no-embed", action="store_true", help="structure and FTS only, skip embeddings")
    s.add_argument(
        "-v",
        "--verbose",
        dest="all_skipped",
        action="store_true",
        help="name every skipped file (default: the first 20, then a count)",
    )
    s.add_argument(
        "--replace",
        action="store_true",
        help="in a shared store: take over a --repo-name bound to another repository (its index becomes this one's)",
    )
    s.add_argument(
        "--allow-mass-delete",
        action="store_true",
        help="allow a run that deletes more than half of the indexed files (refused by default: a wrong root?)",
    )


@command("index", "build or update the index (incremental)", _index_options)
def cmd_index(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_index

    if args.path:
        args.root = [args.path]
    ws = _workspace(args)
    names = ws.targets(args.repo)
    code = EXIT_OK
    for name in names:  # a workspace without --repo: every repository in turn; one that fails does not stop the rest
        try:
            with _progress(not args.json) as progress:
                kwargs = {
                    "full": args.full,
                    "dry_run": args.dry_run,
                    "embed": not args.no_embed,
                    "all_skipped": args.all_skipped or args.verbose,
                    "replace": args.replace,
                    "allow_mass_delete": args.allow_mass_delete,
                }
                result = ws.service(name).index(**kwargs, progress=progress)
        except IGraphError as exc:
            if len(names) == 1:
                raise
            sys.stderr.write(f"igraph-mcp: {name}: {say(str(exc))}\n")
            code = code or (EXIT_BUSY if isinstance(exc, IndexBusy) else EXIT_ERROR)
            continue
        _emit(ws.labelled(result, name), args.json, render_index)
    return code


def _search_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("query")
    s.add_argument(
        "--top-k",
        type=int,
        default=None,
        help=f"ranked symbols to return, 1-{TOP_K_MAX} (default: retrieval.nodeTopK of the config, {DEFAULT_TOP_K}; "
        f"{SNIPPET_HITS} with snippets)",
    )
    s.add_argument(
        "--hops",
        type=int,
        default=None,
        help=f"call-graph hops around the hits, 0-{HOPS_MAX} (default: retrieval.graphHops of the config, "
        f"{DEFAULT_HOPS}); 0 = hits only",
    )
    s.add_argument(
        "--kind", action="append", help=f"only symbols of this kind (repeatable): {', '.join(filterable_kinds())}"
    )
    s.add_argument("--context-file", action="append", help="boost symbols in this file (repeatable)")
    s.add_argument("--max-tokens", type=int, default=None)
    s.add_argument("--channels", choices=("hybrid", "fts", "dense"), default="hybrid")


@command(
    "search",
    "hybrid search: 10 hits plus their callers/callees and linked documents (as the igraph_explore tool)",
    _search_options,
    one_shot=True,
)
def cmd_search(args: argparse.Namespace) -> int:
    channels = {"hybrid": ("fts", "dense"), "fts": ("fts",), "dense": ("dense",)}[args.channels]
    warmup = _query_warmup(args) if "dense" in channels else None
    from igraph_mcp.render import render_explore

    ws = _workspace(args, resident_vectors=False)
    try:
        result = ws.explore_for(
            args.query,
            repo=args.repo,
            top_k=args.top_k,
            hops=args.hops,
            kinds=args.kind or None,
            context_files=args.context_file or (),
            max_tokens=args.max_tokens,
            channels=channels,
        )
    finally:
        # The process may end without the interpreter's teardown (one_shot): leave no connection open and no
        # warm-up half done (it has finished unless the answer needed no query vector).
        ws.close()
        if warmup is not None:
            warmup.join()
    _emit(result, args.json, render_explore)
    return 0


def _node_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("name")
    s.add_argument("--file", default=None, help="the path, or path:LINE, that picks one symbol of an ambiguous name")


@command("node", "details of one symbol", _node_options)
def cmd_node(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_node

    result = _workspace(args).node_for(args.name, args.file, repo=args.repo)
    _emit(result, args.json, render_node)
    return _lookup_code(result)


@command("file", "outline of one file", lambda s: s.add_argument("path"))
def cmd_file(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_file

    result = _workspace(args).file_for(args.path, repo=args.repo)
    _emit(result, args.json, render_file)
    return _lookup_code(result)


def _related_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("name")
    s.add_argument("--direction", choices=("callers", "callees", "both"), default="both")
    s.add_argument("--hops", type=int, default=1)
    s.add_argument("--limit", type=int, default=None, help="symbols to list, 1-1000 (default 100); the rest is counted")
    s.add_argument("--file", default=None, help="the path, or path:LINE, that picks one symbol of an ambiguous name")


@command("related", "callers / callees of a symbol", _related_options)
def cmd_related(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_related

    result = _workspace(args).related_for(args.name, args.direction, args.hops, args.limit, args.file, repo=args.repo)
    _emit(result, args.json, render_related)
    return _lookup_code(result)


@command("status", "index statistics")
def cmd_status(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_status

    _emit(_workspace(args, embed=False).status_for(args.repo), args.json, render_status)
    return 0


@command(
    "init", "write .igraph/config.json with the defaults", lambda s: s.add_argument("--force", action="store_true")
)
def cmd_init(args: argparse.Namespace) -> int:
    from igraph_mcp.config import write_default_config

    path = write_default_config(Path(_root(args)), overwrite=args.force)
    sys.stdout.write(f"wrote {path}\n")
    return 0


def _mount_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("path")
    s.add_argument("--type", choices=("prd", "db", "auto"), default="auto")
    s.add_argument("--name", default=None)


@command("mount", "mount a PRD or DB schema", _mount_options)
def cmd_mount(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_mount

    result = _workspace(args).mount_for(args.path, args.type, args.name, repo=args.repo)
    _emit(result, args.json, render_mount)
    return 0


@command("unmount", "unmount a resource by id or path", lambda s: s.add_argument("target"))
def cmd_unmount(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_unmount

    result = _workspace(args).unmount_for(args.target, repo=args.repo)
    _emit(result, args.json, render_unmount)
    return _lookup_code(result)


@command("resources", "list mounted resources")
def cmd_resources(args: argparse.Namespace) -> int:
    from igraph_mcp.render import render_resources

    _emit(_workspace(args, embed=False).resources_for(args.repo), args.json, render_resources)
    return 0


def _serve_options(s: argparse.ArgumentParser) -> None:
    s.add_argument(
        "--root",
        action="append",
        default=[],
        metavar="[NAME=]PATH",
        help="repository root (default: current directory); repeat for a workspace of several, each named by "
        "its directory or NAME=",
    )
    s.add_argument(
        "--workspace",
        default=None,
        metavar="FILE",
        help='a workspace file: {"repos": [{"name": "api", "root": "../api"}, ...]} (roots relative to the file)',
    )
    s.add_argument("--transport", choices=("stdio", "http", "sse"), default="stdio")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=8765)
    s.add_argument("--watch", action="store_true", help="keep the index current with a file watcher")
    s.add_argument("--allow-remote", action="store_true", help="allow binding a non-loopback host (needs a token)")
    s.add_argument(
        "--no-auto-index",
        action="store_true",
        help="do not build the index on start, nor finish one a killed build left unfinished",
    )
    s.add_argument(
        "--tokens",
        default=None,
        metavar="FILE",
        help="named bearer tokens (igraph-mcp token add), re-read when it changes; default $IGRAPH_HTTP_TOKENS_FILE",
    )
    s.add_argument("--log-queries", action="store_true", help="put tool arguments (query text) in the access log lines")


@command("serve", "run the MCP server", _serve_options, options="stores")
def cmd_serve(args: argparse.Namespace) -> int:
    started = None
    if args.transport == "stdio":
        from igraph_mcp.server_state import open_state

        # The background work (the first build, or finishing an interrupted one) starts before the MCP SDK is
        # imported: that import takes a second, several on a busy machine, and the embedding runs meanwhile.
        started = open_state(args)
        started.attach()
    from igraph_mcp.server import serve

    return serve(args, started=started)


def _view_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--root", default=".")
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--port", type=int, default=0, help="default: any free port (the URL is printed)")
    s.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host (the token still applies)")
    s.add_argument("--open", action="store_true", help="open the page in the default browser")
    s.add_argument("--out", default=None, help="write FILE.html (opens offline) or the map as FILE.graphml / .json")
    s.add_argument("--query", action="append", help="with --out FILE.html: a search the file answers (repeatable)")
    s.add_argument("--focus", default="", help="with --out .graphml/.json: the folder whose map to write")


@command(
    "view",
    "a browser view of what the agent sees: search, a symbol's neighbourhood, the map, resources "
    "(needs the 'view' extra)",
    _view_options,
    options="stores",
)
def cmd_view(args: argparse.Namespace) -> int:
    from igraph_mcp.view import launch

    svc = _service(args)
    if args.out:
        sys.stdout.write(launch.write_out(svc, Path(args.out), queries=args.query or [], focus=args.focus) + "\n")
    else:
        launch.serve(svc, host=args.host, port=args.port, allow_remote=args.allow_remote, open_browser=args.open)
    return 0


COMMANDS.append(
    Command("token", "named bearer tokens for `serve --transport http --tokens FILE`", token_options, None, "none")
)


def _register_options(s: argparse.ArgumentParser) -> None:
    s.add_argument("--target", choices=("claude-code", "cursor", "claude-desktop"), required=True)
    s.add_argument("--root", default=".")
    s.add_argument("--config-path", default=None, help="override the client's config file location")
    s.add_argument(
        "--command",
        dest="launch_command",
        default=None,
        help="command the client should run (default: the absolute path of this igraph-mcp, "
        "or `uvx --from <source> igraph-mcp` when run under uvx)",
    )
    s.add_argument(
        "--url", default=None, help="register a running HTTP server (e.g. https://igraph.example.com/mcp) instead"
    )
    s.add_argument(
        "--token-env",
        default="IGRAPH_HTTP_TOKEN",
        metavar="VAR",
        help="with --url: the environment variable the client reads the bearer token from (default %(default)s)",
    )


@command("register", "add igraph-mcp to an MCP client's configuration", _register_options, options="none")
def cmd_register(args: argparse.Namespace) -> int:
    from igraph_mcp.register import register

    return register(args)


# -- parser ---------------------------------------------------------------------------------------------------
def _shared_options() -> dict[Options, list[argparse.ArgumentParser]]:
    """The option groups commands share: the store (`--store`, `--repo-name`), and the repositories and output."""
    stores = argparse.ArgumentParser(add_help=False)
    stores.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="where the index lives: postgresql://... (default: $IGRAPH_DATABASE_URL, else $IGRAPH_DATABASE_URL_FILE, "
        "else the SQLite file in .igraph/); `sqlite` forces the file",
    )
    stores.add_argument(
        "--repo-name",
        default=None,
        metavar="NAME",
        help="the repository's name in a shared PostgreSQL store (default: the root folder's name)",
    )
    common = argparse.ArgumentParser(add_help=False, parents=[stores])
    common.add_argument(
        "--root",
        action="append",
        default=None,
        metavar="[NAME=]PATH",
        help="repository root (default: current directory); repeat for a workspace of several repositories",
    )
    common.add_argument("--workspace", default=None, metavar="FILE", help="a workspace file (see `serve --help`)")
    common.add_argument("--repo", default=None, metavar="NAME", help="in a workspace: only this repository")
    common.add_argument("--json", action="store_true", help="machine-readable output")
    return {"common": [common], "stores": [stores], "none": []}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and docs): every registered command with its own options."""
    p = argparse.ArgumentParser(
        prog="igraph-mcp",
        description="Code graph + hybrid retrieval for AI agents. "
        "With no command, serves MCP over stdio for the current directory.",
        epilog=EXIT_CODES_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--version", action="version", version=f"igraph-mcp {__version__}")
    p.add_argument("-v", "--verbose", action="store_true", help="debug logging on stderr")
    shared = _shared_options()
    sub = p.add_subparsers(dest="command")
    for cmd in COMMANDS:
        s = sub.add_parser(cmd.name, parents=shared[cmd.options], help=cmd.help)
        cmd.add_arguments(s)
        if cmd.run is not None:
            s.set_defaults(func=cmd.run, one_shot=cmd.one_shot)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``igraph-mcp`` console script (``argv`` None: this process's own command line, and a
    one-shot command then ends the process itself, see ``_end_process``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.WARNING,
        stream=sys.stderr,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if args.command is None:
        args = parser.parse_args(["serve", *(argv or [])])
    code = _dispatch(args)
    if argv is None and code == EXIT_OK and getattr(args, "one_shot", False):
        _end_process(code)
    return code


def _dispatch(args: argparse.Namespace) -> int:
    """Run the command; library errors become one line on stderr and their exit code."""
    try:
        return int(args.func(args))
    except IndexBusy as exc:
        sys.stderr.write(f"igraph-mcp: {say(str(exc))}\n")
        return EXIT_BUSY
    except IGraphError as exc:
        sys.stderr.write(f"igraph-mcp: {say(str(exc))}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("igraph-mcp: interrupted; the index stays consistent, run the command again to finish\n")
        return EXIT_INTERRUPTED


def _end_process(code: int) -> None:
    """End the process with ``code`` once its output is out, skipping the interpreter's teardown: a search has
    loaded ONNX Runtime, numpy and the model, and freeing them one by one takes longer than the search's FTS and
    ranking together. Only after a success, when no thread has work left. Returns (the interpreter then exits as
    usual) when the output cannot be flushed, so a closed pipe reads as before."""
    logging.shutdown()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return None
    os._exit(code)
