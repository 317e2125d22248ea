"""The view in a real browser (Debian's headless Chromium through chromedriver): search, expand, map, offline file,
the Symbol tab with nothing in it, the map of a few hundred files.

A JavaScript error or a failed request in the browser's console fails the test. Without Chromium the tests skip
locally with the reason; under CI=true they fail, since CI installs it (``.ci/browser``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from _factories import make_plain_repo, open_service

from igraph_mcp.cli import main
from igraph_mcp.service import IGraphService
from igraph_mcp.view.aggregate import MAX_LABELS, MAX_UNITS
from igraph_mcp.view.assets import load_vis
from igraph_mcp.view.data import RELATED_HOPS, RELATED_LIMIT, ViewData
from igraph_mcp.view.server import build_view_app, new_token, view_url

CHROMIUM = os.environ.get("IGRAPH_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("IGRAPH_CHROMEDRIVER", "/usr/bin/chromedriver")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,900",
)
WAIT_S = 30.0


def _missing() -> str | None:
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install -e '.[dev]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) or shutil.which(path)):
            return f"{path} not found: install Debian's chromium and chromium-driver (bash .ci/browser)"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium with a fresh profile, logging the console."""
    why = _missing()
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the browser tests must run in CI: {why}")
        pytest.skip(why)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    profile = tempfile.mkdtemp(prefix="igraph-chromium-")
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT_S)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def _wait(driver: Any, script: str, what: str) -> Any:
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        value = driver.execute_script(script)
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}; console: {driver.get_log('browser')}")


def _console_errors(driver: Any) -> list[dict[str, Any]]:
    return [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "ERROR")]


def _click_node(driver: Any, tab: str, node_id: str) -> None:
    """A real mouse click where vis-network drew the node."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    _wait(driver, f"return window.igraphView.ready['{tab}']", f"the {tab} graph to settle")
    pos = driver.execute_script("return window.igraphView.nodePosition(arguments[0], arguments[1])", tab, node_id)
    box = driver.find_element(By.ID, f"graph-{tab}")
    dx, dy = int(pos["x"] - pos["width"] / 2), int(pos["y"] - pos["height"] / 2)
    ActionChains(driver).move_to_element_with_offset(box, dx, dy).click().perform()


@contextmanager
def _serving(service: IGraphService) -> Iterator[str]:
    """The live view of ``service`` served on a free loopback port, in a thread; yields its URL."""
    import uvicorn

    token = new_token()
    app = build_view_app(ViewData(service), load_vis(), token=token, host="127.0.0.1", title="repo")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_config=None, access_log=False, lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    _until(lambda: server.started, "the view server to start")
    try:
        yield view_url("127.0.0.1", sock.getsockname()[1], token)
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()


@pytest.fixture
def live_url(indexed_service: IGraphService) -> Iterator[str]:
    """The live view of SAMPLE_REPO."""
    with _serving(indexed_service) as url:
        yield url


def _until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


def _node_id(service: IGraphService, name: str) -> int:
    return int(service.db.rows("SELECT id FROM nodes WHERE name = ?", (name,))[0][0])


def test_live_page_search_expand_map(browser: Any, live_url: str, indexed_service: IGraphService) -> None:
    from selenium.webdriver.common.by import By

    browser.get(live_url)
    box = browser.find_element(By.ID, "q")
    box.send_keys("log a user in")
    browser.find_element(By.ID, "search-go").click()
    _wait(browser, "return document.querySelectorAll('#hits li').length", "the hits")
    hits = [li.text for li in browser.find_elements(By.CSS_SELECTOR, "#hits li")]
    assert any("login" in h for h in hits), hits
    assert "fts5 #" in " ".join(hits)  # each hit shows its channel ranks
    assert browser.find_element(By.ID, "agent-text").get_attribute("textContent").startswith("1. ")
    # Each neighbour shows how it hangs off its via-node, exactly as the explore call says.
    said = indexed_service.explore("log a user in").neighbours
    shown = browser.execute_script(
        "return [...document.querySelectorAll('#neighbours li')].map((li) => "
        "[Number(li.dataset.nodeId), Number(li.dataset.via), Number(li.dataset.distance), "
        "li.querySelector('.relation').textContent])"
    )
    assert said and shown == [
        [n.nodeId, n.viaNodeId, n.distance, f"{n.direction} of {n.viaName}, distance {n.distance}"] for n in said
    ]

    # A hit opens its symbol; clicking a callee on the drawing expands it in place.
    login_id = _node_id(indexed_service, "login")
    browser.find_element(By.CSS_SELECTOR, f"#hits li[data-node-id='{login_id}']").click()
    _wait(browser, "return document.getElementById('symbol-source')", "the symbol's source")
    assert "def login" in browser.find_element(By.ID, "symbol-source").text
    related = indexed_service.related_by_id(login_id, "both", RELATED_HOPS, RELATED_LIMIT).related
    rows = browser.execute_script(
        "return [...document.querySelectorAll('#related li')].map((li) => "
        "[Number(li.dataset.nodeId), li.querySelector('.relation').textContent])"
    )
    assert len(related) >= 4 and rows == [
        [n.nodeId, f"{n.direction} of {n.viaName}, distance {n.distance}"] for n in related
    ]
    assert any(n.distance == 2 for n in related)
    before = browser.execute_script("return window.igraphView.graphs.symbol.nodes.length")
    check, hashing = (f"n{_node_id(indexed_service, n)}" for n in ("check_password", "hash_password"))
    _click_node(browser, "symbol", check)
    _wait(browser, "return window.igraphView.expandedCount === 2", "the clicked symbol to expand")
    after = browser.execute_script("return window.igraphView.graphs.symbol.nodes.getIds()")
    edges = browser.execute_script("return window.igraphView.graphs.symbol.edges.getIds()")
    assert len(after) >= before and hashing in after and f"{check}>{hashing}>calls" in edges
    assert "def check_password" in browser.find_element(By.ID, "symbol-source").text
    graphml = browser.execute_script(
        "const t = window.igraphView.exportText('graphml');"
        "return new DOMParser().parseFromString(t, 'application/xml').getElementsByTagName('node').length"
    )
    assert graphml == len(after)

    browser.find_element(By.CSS_SELECTOR, "[data-tab=map]").click()
    _wait(browser, "return window.igraphView.ready.map", "the map")
    ids = browser.execute_script("return window.igraphView.graphs.map.nodes.getIds()")
    assert set(ids) == {"app/auth.py", "app/db.py", "main.py"}
    assert "python 3" in browser.find_element(By.ID, "status").text
    _click_node(browser, "map", "app/auth.py")
    _wait(browser, "return document.querySelector('#map-selection li')", "the file's outline")
    assert "Session.refresh" in browser.find_element(By.ID, "map-selection").text
    assert _console_errors(browser) == []


def test_offline_file_opens_with_no_network(browser: Any, indexed_service: IGraphService, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By

    out = tmp_path / "view.html"
    assert main(["view", "--root", str(indexed_service.root), "--out", str(out), "--query", "session refresh"]) == 0
    browser.get(out.as_uri())
    _wait(browser, "return document.querySelectorAll('#hits li').length", "the held search's hits")
    browser.find_element(By.CSS_SELECTOR, "[data-tab=map]").click()
    _wait(browser, "return window.igraphView.ready.map", "the offline map")
    assert browser.execute_script("return window.igraphView.graphs.map.nodes.length") == 3
    # Another query is not in the file: the old answer and its graph go, and the page says why and what to do.
    browser.find_element(By.CSS_SELECTOR, "[data-tab=search]").click()
    assert browser.execute_script("return window.igraphView.graphs.search.nodes.length") > 0
    box = browser.find_element(By.ID, "q")
    box.clear()
    box.send_keys("something else")
    browser.find_element(By.ID, "search-go").click()
    _wait(browser, "return document.getElementById('search-failed')", "the page to say it cannot answer")
    assert browser.execute_script("return window.igraphView.graphs.search") is None
    assert browser.execute_script("return document.querySelectorAll('#hits li, #neighbours li').length") == 0
    assert not browser.find_elements(By.CSS_SELECTOR, "#graph-search canvas")
    said = browser.find_element(By.ID, "search-failed").text
    assert "cannot answer “something else”" in said and "run `igraph-mcp view`" in said
    assert "igraph-mcp view" in browser.find_element(By.ID, "notice").text
    # The held query still answers (its button), and draws again.
    browser.find_element(By.XPATH, "//aside[@id='search-side']//button[text()='session refresh']").click()
    _wait(browser, "return document.querySelectorAll('#hits li').length", "the held search again")
    assert browser.execute_script("return window.igraphView.graphs.search.nodes.length") > 0
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert _console_errors(browser) == []


def test_the_symbol_tab_says_how_to_pick_a_symbol(browser: Any, live_url: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(live_url + "&tab=symbol")
    _wait(browser, "return document.getElementById('symbol-empty')", "the empty Symbol tab")
    side = browser.find_element(By.ID, "symbol-side").text
    assert side.startswith("No symbol chosen") and "click a hit" in side and "Map tab" in side
    # An id the index does not hold: the tab says so, and how to pick one, with no drawing left.
    browser.get(live_url + "&tab=symbol&id=999999999")
    _wait(browser, "return document.getElementById('symbol-side').textContent.includes('not found')", "not found")
    side = browser.find_element(By.ID, "symbol-side").text
    assert "no symbol with id 999999999" in side and "search again" in side and "click a hit" in side
    assert browser.execute_script("return window.igraphView.graphs.symbol") is None
    assert _console_errors(browser) == []


def _many_files() -> dict[str, str]:
    """A repository of a few hundred files: 96 in eight packages (calling each other in a ring, 1 to 4 functions
    each) and 180 tests in two folders under tests/."""
    files: dict[str, str] = {}
    packages = ["accounts", "billing", "catalog", "delivery", "events", "frontend_adapters", "geo", "history"]
    for p, pkg in enumerate(packages):
        for m in range(12):
            nxt = (m + 1) % 12
            body = f"from src.{pkg}.module_with_a_long_name_{nxt} import step_{nxt}\n\n\n"
            body += f"def step_{m}(x):\n    return step_{nxt}(x) + {m}\n"
            body += "".join(f"\n\ndef helper_{k}(x):\n    return step_{m}(x) * {k}\n" for k in range((p + m) % 4))
            files[f"src/{pkg}/module_with_a_long_name_{m}.py"] = body
    for i in range(120):
        files[f"tests/unit/test_unit_{i}.py"] = (
            "from src.accounts.module_with_a_long_name_0 import step_0\n\n\n"
            f"def test_unit_{i}():\n    assert step_0({i})\n"
        )
    for i in range(60):
        files[f"tests/integration/test_flow_{i}.py"] = f"def test_flow_{i}():\n    assert True\n"
    return files


def test_the_map_of_a_few_hundred_files_stays_legible(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.actions.wheel_input import ScrollOrigin
    from selenium.webdriver.common.by import By

    files = _many_files()
    assert len(files) == 276
    with open_service(make_plain_repo(tmp_path, files), index=True) as svc, _serving(svc) as url:
        browser.get(url + "&tab=map")
        _wait(browser, "return window.igraphView.ready.map", "the map")
        nodes = browser.execute_script(
            "const g = window.igraphView.graphs.map;"
            "return g.nodes.get().map((n) => ({id: n.id, label: n.label, font: n.font && n.font.size,"
            " box: g.network.getBoundingBox(n.id)}))"
        )
        scale = browser.execute_script("return window.igraphView.graphs.map.network.getScale()")
        ids = [n["id"] for n in nodes]
        assert len(ids) <= MAX_UNITS
        # The tests are one folded node; none of their 180 files is drawn.
        assert "tests/" in ids and not [i for i in ids if i.startswith("tests/") and i != "tests/"]
        doc = browser.execute_script("return window.igraphView.graphs.map.doc.nodes.find((n) => n.id === 'tests/')")
        assert doc["folded"] and doc["files"] == 180
        # A bounded set of labels, each readable on screen, no two overlapping.
        labelled = [n for n in nodes if n["label"]]
        assert 3 <= len(labelled) <= MAX_LABELS and len(labelled) < len(nodes) / 2
        assert all(n["font"] * scale >= 12 for n in labelled)
        boxes = [n["box"] for n in labelled]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                apart = (
                    a["right"] <= b["left"]
                    or b["right"] <= a["left"]
                    or a["bottom"] <= b["top"]
                    or b["bottom"] <= a["top"]
                )
                assert apart, (a, b)
        # Zoomed in with the mouse wheel, every unit is labelled.
        graph = browser.find_element(By.ID, "graph-map")
        for _ in range(40):
            if browser.execute_script("return window.igraphView.graphs.map.allLabels"):
                break
            ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(graph), 0, -300).perform()
        assert browser.execute_script("return window.igraphView.graphs.map.nodes.get().every((n) => n.label)")
        # A click on the folded node says what it is; a double-click opens its map, which unfolds it.
        browser.execute_script("window.igraphView.graphs.map.network.fit()")
        _click_node(browser, "map", "tests/")
        _wait(browser, "return document.getElementById('folded-note')", "the folded node's note")
        browser.find_element(By.ID, "open-folder").click()
        _wait(browser, "return window.igraphView.mapFocus === 'tests' && window.igraphView.ready.map", "its map")
        inner = browser.execute_script(
            "return window.igraphView.graphs.map.doc.nodes.filter((n) => !n.outside).map((n) => n.id)"
        )
        assert len(inner) > 2 and all(i.startswith("tests/") and i != "tests/" for i in inner), inner
    assert _console_errors(browser) == []
