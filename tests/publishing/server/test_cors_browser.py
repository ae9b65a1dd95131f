"""A SPARQL query from a page of another origin, in headless Chromium (the viewer tests' set-up).

Two loopback servers: craftrdf's endpoint with ``cors_origin`` set to the page server's origin,
and a page server on another port serving one HTML page that queries the endpoint with
``fetch`` (a GET, and a POST with ``application/sparql-query``, which needs a preflight).
A page from a third origin, not allowed, must fail to read the answer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from craftrdf.publishing.server.app import create_app
from craftrdf.publishing.server.config import ServerConfig
from craftrdf.publishing.server.workers import StoreOpener, WorkerPool
from craftrdf.store.local import AnnotationStore
from tests.helpers.server import free_port, running

CHROMIUM = Path("/usr/bin/chromium")
playwright_api = pytest.importorskip("playwright.sync_api", reason="python playwright is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed")
if not CHROMIUM.is_file():
    pytest.skip("Debian chromium not installed at /usr/bin/chromium", allow_module_level=True)

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]

PAGE = """<!DOCTYPE html><html><body><pre id=out>waiting</pre><script>
const endpoint = "ENDPOINT";
async function run() {
  const q = "SELECT ?o WHERE { GRAPH ?g { <http://s> <http://p> ?o } }";
  const a = await fetch(endpoint + "?query=" + encodeURIComponent(q),
                        {headers: {Accept: "application/sparql-results+json"}});
  const b = await fetch(endpoint, {method: "POST", body: "ASK { GRAPH ?g { <http://s> <http://p> 42 } }",
                        headers: {"Content-Type": "application/sparql-query", Accept: "application/sparql-results+json"}});
  const rows = (await a.json()).results.bindings.map(r => r.o.value);
  return JSON.stringify({rows, ask: (await b.json()).boolean});
}
run().then(t => { document.getElementById("out").textContent = t; },
           e => { document.getElementById("out").textContent = "failed: " + e; });
</script></body></html>"""


@contextlib.contextmanager
def serving(app: Any, port: int) -> Iterator[str]:
    """``app`` on ``port``; yields its origin (no trailing slash)."""
    with running(app, port=port) as url:
        yield url.rstrip("/")


def page_app(endpoint: str) -> Any:
    from starlette.applications import Starlette
    from starlette.responses import HTMLResponse
    from starlette.routing import Route

    async def index(request: Any) -> HTMLResponse:
        return HTMLResponse(PAGE.replace("ENDPOINT", endpoint))

    return Starlette(routes=[Route("/", index)])


def test_a_page_of_the_allowed_origin_queries_and_another_cannot(tmp_path: Path) -> None:
    store = tmp_path / "s.store"
    with AnnotationStore.open(store) as s:
        s.raw.add(ox.Quad(ox.NamedNode("http://s"), ox.NamedNode("http://p"), ox.Literal(42), ox.NamedNode("http://g")))
    allowed_port, other_port, api_port = free_port(), free_port(), free_port()
    with WorkerPool(StoreOpener(str(store)), size=1) as pool:
        api = create_app(
            pool,
            config=ServerConfig(
                base_iri=f"http://127.0.0.1:{api_port}/", cors_origin=f"http://127.0.0.1:{allowed_port}"
            ),
            dump_dir=tmp_path / "dumps",
            viewer=False,
        )
        endpoint = f"http://127.0.0.1:{api_port}/sparql"
        with (
            serving(api, api_port),
            serving(page_app(endpoint), allowed_port) as allowed,
            serving(page_app(endpoint), other_port) as other,
            playwright_api.sync_playwright() as p,
        ):
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            try:
                page = browser.new_page()
                page.goto(allowed + "/")
                page.wait_for_function("document.getElementById('out').textContent !== 'waiting'", timeout=20_000)
                assert page.text_content("#out") == '{"rows":["42"],"ask":true}'
                page.goto(other + "/")
                page.wait_for_function("document.getElementById('out').textContent !== 'waiting'", timeout=20_000)
                assert page.text_content("#out").startswith("failed: TypeError")  # CORS blocks the read
            finally:
                browser.close()
