"""The view in a real browser (Debian's headless Chromium through chromedriver): search, expand, map, offline file.

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
from pathlib import Path
from typing import Any

import pytest

from igraph_mcp.cli import main
from igraph_mcp.service import IGraphService
from igraph_mcp.view.assets import load_vis
from igraph_mcp.view.data import ViewData
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


@pytest.fixture
def live_url(indexed_service: IGraphService) -> Iterator[str]:
    """The live view of SAMPLE_REPO served on a free loopback port, in a thread."""
    import uvicorn

    token = new_token()
    app = build_view_app(ViewData(indexed_service), load_vis(), token=token, host="127.0.0.1", title="repo")
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

    # A hit opens its symbol; clicking a callee on the drawing expands it in place.
    login_id = _node_id(indexed_service, "login")
    browser.find_element(By.CSS_SELECTOR, f"#hits li[data-node-id='{login_id}']").click()
    _wait(browser, "return document.getElementById('symbol-source')", "the symbol's source")
    assert "def login" in browser.find_element(By.ID, "symbol-source").text
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
    # Another query is not in the file: the page says so instead of failing.
    browser.find_element(By.CSS_SELECTOR, "[data-tab=search]").click()
    box = browser.find_element(By.ID, "q")
    box.clear()
    box.send_keys("something else")
    browser.find_element(By.ID, "search-go").click()
    _wait(browser, "return document.getElementById('search-side').textContent.includes('igraph-mcp view')", "a hint")
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert _console_errors(browser) == []
