"""How fast the browser view opens on a big repository, and screenshots of each view.

    python benchmarks/view_scale.py                                   # Django 3.0.14 sdist (~34k symbols)
    python benchmarks/view_scale.py --tree . --shots /tmp/view-shots --readme-shot docs/view.png

Downloads the sdist with pip into ``$IGRAPH_BENCH_CACHE`` (default ``~/.cache/igraph-mcp-bench``)/view, indexes it
structure-only (``igraph-mcp index --no-embed``) unless ``--tree`` names an indexed tree, then times: the map's
JSON (cold: first read of the aggregates; warm), its size, and in headless Chromium the page from navigation to
a settled map, a search and a symbol. Needs the view extra, selenium and Debian's chromium + chromium-driver.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from igraph_mcp.service import IGraphService
from igraph_mcp.view.assets import load_vis
from igraph_mcp.view.data import ViewData
from igraph_mcp.view.server import build_view_app, new_token, view_url

FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync --disable-dev-shm-usage"
).split()


def cache_dir() -> Path:
    env = os.environ.get("IGRAPH_BENCH_CACHE")
    return (Path(env).expanduser() if env else Path.home() / ".cache" / "igraph-mcp-bench") / "view"


def django_tree(version: str) -> Path:
    """The extracted sdist, downloaded once."""
    cache = cache_dir()
    tree = cache / f"Django-{version}"
    if tree.is_dir():
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"Django-{version}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                f"django=={version}",
                "--no-deps",
                "--no-binary",
                ":all:",
                "-d",
                str(cache),
                "-q",
            ],
            check=True,
        )
    with tarfile.open(archive) as tar:
        tar.extractall(cache, filter="data")
    return tree


def index(tree: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "igraph_mcp", "index", "--no-embed", str(tree)], check=True)
    return time.perf_counter() - start


def browser(width: int, height: int) -> Any:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in (*FLAGS, f"--window-size={width},{height}", f"--user-data-dir={tempfile.mkdtemp()}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver: Any, script: str, limit: float = 60.0) -> float:
    start = time.perf_counter()
    while not driver.execute_script(script):
        if time.perf_counter() - start > limit:
            raise SystemExit(f"timed out: {script}; console {driver.get_log('browser')}")
        time.sleep(0.02)
    return time.perf_counter() - start


def serve(svc: IGraphService, title: str) -> tuple[str, Any]:
    import uvicorn

    token = new_token()
    app = build_view_app(ViewData(svc), load_vis(), token=token, host="127.0.0.1", title=title)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return view_url("127.0.0.1", sock.getsockname()[1], token), server


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--django", default="3.0.14", help="Django version whose sdist to measure")
    p.add_argument("--tree", type=Path, help="measure this tree instead (indexed here unless --no-index)")
    p.add_argument("--no-index", action="store_true", help="the tree is indexed already")
    p.add_argument("--query", default="where is the request's session saved")
    p.add_argument("--runs", type=int, default=3, help="page loads timed (median printed)")
    p.add_argument("--shots", type=Path, help="save a screenshot of each view here")
    p.add_argument("--readme-shot", type=Path, help="save one small PNG of the search view here")
    p.add_argument("--title", help="the name shown in the page's header (default: the tree's folder name)")
    args = p.parse_args()

    tree = (args.tree or django_tree(args.django)).resolve()
    if not args.no_index:
        print(f"index --no-embed {tree}: {index(tree):.1f} s")
    svc = IGraphService(tree, embed=bool(args.tree))
    status = svc.status()
    print(
        f"{status.files} files, {status.symbols} symbols, {status.edges} edges, dense coverage {status.denseCoverage}"
    )
    data = ViewData(svc)
    t0 = time.perf_counter()
    doc = data.map()
    cold = time.perf_counter() - t0
    warm = []
    for _ in range(5):
        t0 = time.perf_counter()
        data.map()
        warm.append(time.perf_counter() - t0)
    size = len(json.dumps(doc))
    print(
        f"map JSON: cold {cold * 1000:.0f} ms (reads the aggregates), "
        f"warm median {statistics.median(warm) * 1000:.0f} ms, "
        f"{len(doc['nodes'])} nodes, {len(doc['edges'])} edges, {size / 1024:.0f} KB"
    )

    url, server = serve(svc, args.title or tree.name)
    driver = browser(1400, 900)
    try:
        loads = []
        for _ in range(max(1, args.runs)):
            t0 = time.perf_counter()
            driver.get(url + "&tab=map")
            wait(driver, "return window.igraphView && window.igraphView.ready.map")
            loads.append(time.perf_counter() - t0)
        print(f"page load to a settled map: median {statistics.median(loads):.2f} s of {[round(x, 2) for x in loads]}")
        if args.shots:
            args.shots.mkdir(parents=True, exist_ok=True)
            driver.save_screenshot(str(args.shots / "map.png"))
        folder = driver.execute_script(
            "const n = window.igraphView.graphs.map.doc.nodes.filter(x => x.type === 'folder' && !x.outside);"
            "n.sort((a, b) => b.size - a.size); return n.length ? n[0].id : null"
        )
        if folder:
            t0 = time.perf_counter()
            driver.execute_script(
                "window.igraphView.ready.map = false;"
                "window.igraphView.graphs.map.network.emit('doubleClick', {nodes: [arguments[0]]})",
                folder,
            )
            wait(driver, "return window.igraphView.ready.map && window.igraphView.mapFocus !== ''")
            print(f"open folder {folder}: {time.perf_counter() - t0:.2f} s")
            if args.shots:
                driver.save_screenshot(str(args.shots / "map-folder.png"))
        driver.execute_script("document.querySelector('[data-tab=search]').click()")
        box = driver.find_element("id", "q")
        box.clear()
        box.send_keys(args.query)
        t0 = time.perf_counter()
        driver.find_element("id", "search-go").click()
        wait(driver, "return document.querySelectorAll('#hits li').length && window.igraphView.ready.search")
        print(f"search {args.query!r}: {time.perf_counter() - t0:.2f} s to hits and a settled graph")
        if args.shots:
            driver.save_screenshot(str(args.shots / "search.png"))
        if args.readme_shot:
            args.readme_shot.parent.mkdir(parents=True, exist_ok=True)
            small = browser(1200, 700)
            try:
                small.get(url)
                sbox = small.find_element("id", "q")
                sbox.send_keys(args.query)
                small.find_element("id", "search-go").click()
                wait(small, "return document.querySelectorAll('#hits li').length && window.igraphView.ready.search")
                small.save_screenshot(str(args.readme_shot))
            finally:
                small.quit()
            print(f"README screenshot: {args.readme_shot} ({args.readme_shot.stat().st_size // 1024} KB)")
        # The hit with the most edges in the answer's graph: the symbol view worth a look.
        busiest = driver.execute_script(
            "const d = window.igraphView.graphs.search.doc; const deg = {};"
            "for (const e of d.edges) { deg[e.from] = (deg[e.from] || 0) + 1; deg[e.to] = (deg[e.to] || 0) + 1; }"
            "const hits = d.nodes.filter(n => n.type === 'hit');"
            "hits.sort((a, b) => (deg[b.id] || 0) - (deg[a.id] || 0)); return hits[0].nodeId"
        )
        t0 = time.perf_counter()
        driver.find_element("css selector", f"#hits li[data-node-id='{busiest}']").click()
        wait(driver, "return window.igraphView.ready.symbol && document.getElementById('symbol-source')")
        print(f"open the first hit's symbol: {time.perf_counter() - t0:.2f} s")
        first = driver.execute_script(
            "const g = window.igraphView.graphs.symbol; const c = g.doc.meta.centre;"
            "const o = g.doc.nodes.find(n => n.nodeId && n.id !== c); return o ? o.nodeId : null"
        )
        if first is not None:
            t0 = time.perf_counter()
            driver.execute_script(
                "window.igraphView.graphs.symbol.network.emit('click', {nodes: [arguments[0]]})", f"n{first}"
            )
            wait(driver, "return window.igraphView.expandedCount === 2")
            print(f"expand a neighbour: {time.perf_counter() - t0:.2f} s")
        if args.shots:
            driver.save_screenshot(str(args.shots / "symbol.png"))
            driver.execute_script("document.querySelector('[data-tab=resources]').click()")
            wait(driver, "return window.igraphView.ready.resources")
            driver.save_screenshot(str(args.shots / "resources.png"))
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        print(f"console errors: {len(errors)}" + (f" {errors[:3]}" if errors else ""))
    finally:
        driver.quit()
        server.should_exit = True
        svc.close()
    if shutil.which("uptime"):
        print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
