"""The article viewer end to end in headless Chromium (Debian's /usr/bin/chromium, driven by playwright).

The viewer's routes are served by uvicorn on a loopback port; expected values come from
the bundled sample's raw Knowtator XML, article text and OBO files, read here without
craftrdf. Screenshots go to ``tmp_path`` and, when ``CRAFTRDF_ARTIFACTS`` is set, are
copied there.
"""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Self

import pytest

from craftrdf.apps.demo import sample_dir
from tests.helpers.sample import article_text, raw_set

CHROMIUM = Path("/usr/bin/chromium")
PMID = "11319941"
DISC_ID = "UBERON_Instance_30000"  # "granule cell layer of ... dentate gyrus", two pieces

playwright_api = pytest.importorskip("playwright.sync_api", reason="python playwright is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="uvicorn is not installed")
if not CHROMIUM.is_file():
    pytest.skip(
        "Debian chromium not installed at /usr/bin/chromium (apt-get install chromium)", allow_module_level=True
    )

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def obo_stanza(module_folder: str, curie: str) -> dict[str, list[str]]:
    """Tag -> values of one [Term] stanza of a sample OBO file (read from its zip, not by craftrdf)."""
    folder = sample_dir() / "concept-annotation" / module_folder
    (zpath,) = folder.glob("*.obo.zip")
    with zipfile.ZipFile(zpath) as z:
        text = z.read(z.namelist()[0]).decode("utf-8")
    for block in text.split("\n\n"):
        lines = block.strip().splitlines()
        if lines and lines[0] == "[Term]" and f"id: {curie}" in lines:
            out: dict[str, list[str]] = {}
            for line in lines[1:]:
                tag, _, value = line.partition(": ")
                out.setdefault(tag, []).append(value)
            return out
    raise AssertionError(f"{curie} not in {zpath}")


def save_artifact(page, tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    page.screenshot(path=str(path), full_page=False)
    dest = os.environ.get("CRAFTRDF_ARTIFACTS")
    if dest:
        Path(dest).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(dest) / name)
    return path


class Served:
    """A uvicorn server in a background thread, on a socket bound to a free loopback port."""

    def __init__(self, app: object) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.sock.close()


def serve(store) -> Served:
    from starlette.applications import Starlette

    from craftrdf.publishing.server.viewer import viewer_routes

    return Served(Starlette(routes=viewer_routes(store, base_iri="http://127.0.0.1/")))


@pytest.fixture(scope="module")
def server(sample_store) -> Iterator[str]:
    with serve(sample_store) as s:
        yield s.url


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser, server):
    """A fresh page that may only talk to the test server; anything else (a CDN) fails the test."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    outside: list[str] = []
    errors: list[str] = []

    def gate(route) -> None:
        if route.request.url.startswith(server):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    context.route("**/*", gate)
    pg = context.new_page()
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("dialog", lambda d: (errors.append("dialog: " + d.message), d.dismiss()))
    yield pg
    context.close()
    assert outside == [], f"the page fetched outside the server: {outside}"
    assert errors == [], f"script errors on the page: {errors}"


def shown_annotations(page, set_key: str) -> int:
    """Distinct annotations of a set highlighted in the text (a discontinuous one counts once)."""
    return page.evaluate(
        "k => new Set([...document.querySelectorAll(`#text mark.ann[data-set='${k}']`)].map(m => m.dataset.ann)).size",
        set_key,
    )


def test_article_page_highlights_toggles_hovers_and_clicks(page, server, tmp_path):
    anns = raw_set("UBERON/UBERON+extensions")[PMID]
    expected = sum(1 for a in anns if any(e > s for s, e in a.spans))
    cl_expected = sum(1 for a in raw_set("CL/CL+extensions")[PMID] if any(e > s for s, e in a.spans))
    disc = next(a for a in anns if a.id == DISC_ID)
    label = obo_stanza("UBERON/UBERON+extensions", disc.cls)["name"][0]
    text = article_text(PMID)

    page.goto(f"{server}/doc/{PMID}")
    page.wait_for_selector("#text mark.ann")
    assert page.title() == f"{text.splitlines()[0].strip()} · craftrdf"  # the article's first line
    # both sets are shown by default: every annotation with text is highlighted, once
    assert shown_annotations(page, "UBERON_EXT") == expected == 233
    assert shown_annotations(page, "CL_EXT") == cl_expected
    assert page.locator("#text").inner_text() == text  # highlighting leaves the text as it was
    save_artifact(page, tmp_path, f"viewer-{PMID}.png")

    # switch UBERON_EXT off: its highlights go, CL_EXT's stay
    page.locator("#legend input[data-set='UBERON_EXT']").uncheck()
    assert shown_annotations(page, "UBERON_EXT") == 0
    assert shown_annotations(page, "CL_EXT") == cl_expected
    page.locator("#legend input[data-set='UBERON_EXT']").check()
    assert shown_annotations(page, "UBERON_EXT") == expected

    # the discontinuous annotation: hovering one piece lights both, and the tooltip names the class
    page.goto(f"{server}/doc/{PMID}?sets=UBERON_EXT")
    page.wait_for_selector("#text mark.ann")
    first, second = disc.spans
    index = page.evaluate(
        "id => JSON.parse(document.getElementById('viewer-data').textContent).annotations"
        ".findIndex(a => a.set === 'UBERON_EXT' && a.id === id)",
        DISC_ID,
    )
    assert index >= 0
    # a piece of it with no other annotation inside, so the pointer lands on this annotation
    leaf = page.locator(f"#text mark[data-ann='{index}']:not(:has(mark))").first
    leaf.hover()
    lit = page.locator("#text mark.hl")
    lit_ids = set(lit.evaluate_all("ms => ms.map(m => m.dataset.ann)"))
    assert lit_ids == {str(index)}
    lit_text = "".join(
        lit.evaluate_all("ms => ms.filter(m => !m.parentElement.closest('mark.hl')).map(m => m.textContent)")
    )
    assert lit_text == text[first[0] : first[1]] + text[second[0] : second[1]]
    tip = page.locator("#tip")
    assert tip.is_visible()
    top = page.locator("#tip .tip-row.top")
    assert top.locator(".tip-label").inner_text() == label == "dentate gyrus granule cell layer"
    assert top.locator(".tip-id").inner_text() == disc.cls == "UBERON:0005381"
    assert "2 pieces" in top.inner_text()
    save_artifact(page, tmp_path, f"viewer-{PMID}-hover.png")

    # click: the class page of the annotation's class
    leaf.click()
    page.wait_for_url(f"**/class/{disc.cls}")
    assert page.locator("#class-label").inner_text() == label
    assert page.locator("#class-id").inner_text() == disc.cls
    definition = obo_stanza("UBERON/UBERON+extensions", disc.cls)["def"][0]
    assert page.locator("#definition").inner_text() == definition.split('" [')[0].strip('"')
    save_artifact(page, tmp_path, "viewer-class.png")

    # and links back to the article, with the sets that use the class and its annotations outlined
    uses = [
        (key, a)
        for key, folder in (("UBERON", "UBERON/UBERON"), ("UBERON_EXT", "UBERON/UBERON+extensions"))
        for a in raw_set(folder)[PMID]
        if a.cls == disc.cls
    ]
    page.locator("a.doc-link").first.click()
    page.wait_for_selector("#text mark.ann")
    assert "sets=UBERON,UBERON_EXT" in page.url
    outlined = page.locator("#text mark.focus").evaluate_all(
        "ms => [...new Set(ms.map(m => m.dataset.set + ' ' + m.dataset.class + ' ' + m.dataset.ann))]"
    )
    assert len(outlined) == len(uses) == 2
    assert {o.split()[0] for o in outlined} == {"UBERON", "UBERON_EXT"}


def _char_set(spans) -> frozenset[int]:
    return frozenset(i for s, e in spans for i in range(s, e))


def test_view_toggles_match_an_independent_nesting(page, server):
    """UBERON_EXT and CL_EXT shown: class and nesting filters, counted from the raw spans.

    Nested: inside another annotation of a set shown ("granule cell" in "granule cell layer").
    """
    folders = {"UBERON_EXT": "UBERON/UBERON+extensions", "CL_EXT": "CL/CL+extensions"}
    anns = [
        (key, a) for key, folder in folders.items() for a in raw_set(folder)[PMID] if any(e > s for s, e in a.spans)
    ]
    chars = [_char_set(a.spans) for _, a in anns]
    nested = [i for i, c in enumerate(chars) if any(c < d for d in chars)]
    extension = [i for i, (_, a) in enumerate(anns) if a.cls.split(":")[0].endswith("_EXT")]
    assert nested and extension  # the test needs both kinds

    def shown() -> int:
        return sum(shown_annotations(page, key) for key in folders)

    page.goto(f"{server}/doc/{PMID}?sets=UBERON_EXT,CL_EXT")
    page.wait_for_selector("#text mark.ann")
    assert shown() == len(anns)
    page.locator("#view-nested").uncheck()
    assert shown() == len(anns) - len(nested)
    page.locator("#view-nested").check()
    page.locator("#view-outermost").uncheck()
    assert shown() == len(nested)
    page.locator("#view-outermost").check()
    page.locator("#view-extension").uncheck()
    assert shown() == len(anns) - len(extension)
    assert page.locator("#text mark.ann.ext").count() == 0
    # the choice is kept in the address, so the view can be shared
    assert "extension=0" in page.url
    # nesting follows the sets shown: with CL_EXT off, its annotations no longer make UBERON_EXT ones nested
    page.locator("#view-extension").check()
    page.locator("#view-outermost").uncheck()
    uberon = [i for i, (key, _) in enumerate(anns) if key == "UBERON_EXT"]
    inside_cl = [i for i in uberon if any(chars[i] < c for c in chars)]
    assert shown_annotations(page, "UBERON_EXT") == len(inside_cl) > 0
    page.locator("#legend input[data-set='CL_EXT']").uncheck()
    uberon = [i for i, (key, _) in enumerate(anns) if key == "UBERON_EXT"]
    assert shown_annotations(page, "UBERON_EXT") == sum(1 for i in uberon if any(chars[i] < chars[j] for j in uberon))


def test_hostile_label_and_text_are_shown_as_text(browser, tmp_path):
    from tests.helpers.hostile import hostile_store

    store, label, covered = hostile_store(tmp_path)
    with serve(store) as s:
        context = browser.new_context()
        pg = context.new_page()
        dialogs: list[str] = []
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        pg.goto(f"{s.url}/doc/1")
        pg.wait_for_selector("#text mark.ann")
        pg.locator("#text mark.ann").first.hover()
        assert pg.locator("#tip .tip-label").first.inner_text() == label
        assert pg.locator("#text").inner_text().startswith(covered)
        assert pg.locator("#text img, #text script, #tip script").count() == 0
        pg.locator("#text mark.ann").first.click()
        pg.wait_for_selector("#class-label")
        assert pg.locator("#class-label").inner_text() == label
        assert pg.locator("script").count() == 0  # the class page has no script at all
        context.close()
        assert dialogs == []
