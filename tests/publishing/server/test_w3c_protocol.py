"""The W3C SPARQL 1.1 Protocol tests (34 cases) against the server.

The suite's folder is W3C_PROTOCOL_DIR, else w3c-sparql11-protocol beside the corpus (CRAFT_DIR's
parent) or the repository (../shared); the tests skip, saying so, when it is absent.

The manifest is read with pyoxigraph; each case's HTTP requests are replayed in order through
the app (``/sparql/`` paths as given) and each response is checked as the manifest says:
status class, result kind (boolean / tabular / RDF by media type) and the ASK answer.
Queries run against a read-only server too; the 14 update cases (names containing "update")
against a server started with updates enabled, the harness sending the bearer token as an
authorised client would. Before a case the store is reset to the case's ``ut:graphData``.

All 34 pass; there are no exceptions (docs/server.md, "W3C conformance").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox
import pytest

from tests.helpers.corpus import find_w3c_protocol_dir
from tests.helpers.server import load_graphs

FOUND = find_w3c_protocol_dir()
SUITE = FOUND or Path("<absent>")
MANIFEST = SUITE / "manifest.ttl"

MF = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
HT = "http://www.w3.org/2011/http#"
CNT = "http://www.w3.org/2011/content#"
HTS = "http://www.w3.org/2011/http-statusCodes#"
UT = "http://www.w3.org/2009/sparql/tests/test-update#"
RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"

TOKEN = "w3c-protocol-test-token-0123456789"

BOOLEAN_TYPES = {"application/sparql-results+json", "application/sparql-results+xml"}
TABULAR_TYPES = BOOLEAN_TYPES | {"text/csv", "text/tab-separated-values"}
RDF_TYPES = {"application/rdf+xml", "text/turtle", "application/n-triples"}  # the manifest's list (RDFa aside)


@dataclass(frozen=True)
class Step:
    method: str
    path: str
    headers: tuple[tuple[str, str], ...]
    body: bytes | None
    statuses: frozenset[str]  # "2xx", "4xx", ...
    format: str | None
    boolean: bool | None


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    steps: tuple[Step, ...]
    graphs: tuple[tuple[str, str], ...]  # (data file, graph IRI)


def _manifest() -> ox.Store:
    g = ox.Store()
    g.load(path=str(MANIFEST), format=ox.RdfFormat.TURTLE, base_iri=MANIFEST.as_uri())
    return g


def _objects(g: ox.Store, s: object, p: str) -> list[object]:
    return [q.object for q in g.quads_for_pattern(s, ox.NamedNode(p), None)]


def _one(g: ox.Store, s: object, p: str) -> object | None:
    objs = _objects(g, s, p)
    return objs[0] if objs else None


def _list(g: ox.Store, head: object) -> list[object]:
    out = []
    while head != ox.NamedNode(RDF + "nil"):
        out.append(_one(g, head, RDF + "first"))
        head = _one(g, head, RDF + "rest")
    return out


def load_cases() -> list[Case]:
    """Every entry of the manifest, in order."""
    if not MANIFEST.is_file():
        return []
    g = _manifest()
    manifest = next(
        q.subject for q in g.quads_for_pattern(None, ox.NamedNode(RDF + "type"), ox.NamedNode(MF + "Manifest"))
    )
    cases = []
    for entry in _list(g, _one(g, manifest, MF + "entries")):
        action = _one(g, entry, MF + "action")
        steps = []
        for req in _list(g, _one(g, action, HT + "requests")):
            body_node = _one(g, req, HT + "body")
            body = None
            if body_node is not None:
                chars = _one(g, body_node, CNT + "chars").value
                enc = _one(g, body_node, CNT + "characterEncoding")
                body = chars.encode(enc.value if enc is not None else "utf-8")
            headers_node = _one(g, req, HT + "headers")
            headers = tuple(
                (_one(g, h, HT + "fieldName").value, _one(g, h, HT + "fieldValue").value)
                for h in (_list(g, headers_node) if headers_node is not None else [])
            )
            resp = _one(g, req, HT + "resp")
            statuses = frozenset(
                o.value[len(HTS + "StatusCode") :].lower() for o in _objects(g, resp, MF + "expectedStatus")
            )
            fmt = _one(g, resp, MF + "expectedFormat")
            boolean = _one(g, resp, MF + "expectedBoolean")
            steps.append(
                Step(
                    _one(g, req, HT + "methodName").value,
                    _one(g, req, HT + "absolutePath").value,
                    headers,
                    body,
                    statuses,
                    fmt.value if fmt is not None else None,
                    None if boolean is None else boolean.value == "true",
                )
            )
        graphs = []
        for gd in _objects(g, entry, UT + "graphData"):
            file = _one(g, gd, UT + "graph").value
            graphs.append((str(Path(file.removeprefix("file://"))), _one(g, gd, RDFS + "label").value))
        cases.append(
            Case(entry.value.rsplit("#", 1)[-1], _one(g, entry, MF + "name").value, tuple(steps), tuple(sorted(graphs)))
        )
    return cases


CASES = load_cases()
pytestmark = pytest.mark.skipif(
    not CASES,
    reason="W3C SPARQL 1.1 Protocol tests not found: set W3C_PROTOCOL_DIR or put them at ../shared/w3c-sparql11-protocol",
)


def test_the_manifest_has_34_cases():
    assert len(CASES) == 34
    assert sum("update" in c.name for c in CASES) == 14


@pytest.fixture(scope="module")
def writer_app(tmp_path_factory):
    """A server with updates enabled over a new store: one writer process."""
    from starlette.testclient import TestClient

    from craftrdf.publishing.server.app import create_app
    from craftrdf.publishing.server.config import ServerConfig
    from craftrdf.publishing.server.workers import StoreOpener, WorkerPool

    root = tmp_path_factory.mktemp("w3c-rw")
    with WorkerPool(StoreOpener(str(root / "rw.store"), "write"), size=1) as writer:
        app = create_app(
            writer,
            config=ServerConfig(base_iri="http://www.example/", allow_update=True, token=TOKEN, timeout=20),
            dump_dir=root / "dumps",
            viewer=False,
        )
        yield TestClient(app, base_url="http://www.example"), writer


def _run(client, step: Step, extra: dict[str, str]):
    headers = dict(step.headers) | extra
    return client.request(step.method, step.path, headers=headers, content=step.body)


def _check(step: Step, response) -> None:
    status_class = f"{response.status_code // 100}xx"
    assert status_class in step.statuses, (response.status_code, response.text[:300])
    if step.format is None:
        return
    mtype = response.headers["content-type"].split(";")[0].strip()
    if step.format == "boolean":
        assert mtype in BOOLEAN_TYPES
        fmt = ox.QueryResultsFormat.JSON if mtype.endswith("json") else ox.QueryResultsFormat.XML
        result = ox.parse_query_results(response.content, fmt)
        assert isinstance(result, ox.QueryBoolean)
        if step.boolean is not None:
            assert bool(result) is step.boolean
    elif step.format == "tabular":
        assert mtype in TABULAR_TYPES
    elif step.format == "RDF":
        assert mtype in RDF_TYPES
        list(ox.parse(response.content, ox.RdfFormat.from_media_type(mtype)))  # parses


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_w3c_protocol_case(case: Case, writer_app):
    """Every case against a server with updates enabled (token sent), its graphs loaded first."""
    client, writer = writer_app
    writer.call(load_graphs, [(str(SUITE / Path(f).name), g) for f, g in case.graphs], timeout=30)
    for step in case.steps:
        _check(step, _run(client, step, {"Authorization": f"Bearer {TOKEN}"}))


@pytest.fixture(scope="module", params=[False, True], ids=["default-graph-empty", "union-default-graph"])
def read_only_app(tmp_path_factory, request):
    """A read-only server over a store holding data1..3 in the graphs the manifest names; with and without
    ``--union-default-graph`` (each case names its dataset, and a named dataset takes precedence)."""
    from starlette.testclient import TestClient

    from craftrdf.publishing.server.app import create_app
    from craftrdf.publishing.server.config import ServerConfig
    from craftrdf.publishing.server.workers import StoreOpener, WorkerPool

    root = tmp_path_factory.mktemp("w3c-ro")
    graphs = sorted({(str(SUITE / Path(f).name), g) for c in CASES for f, g in c.graphs})
    with WorkerPool(StoreOpener(str(root / "ro.store"), "write"), size=1) as w:
        w.call(load_graphs, graphs, timeout=30)
    with WorkerPool(StoreOpener(str(root / "ro.store"), "read"), size=1) as pool:
        config = ServerConfig(base_iri="http://www.example/", timeout=20, union_default_graph=request.param)
        app = create_app(pool, config=config, dump_dir=root / "dumps", viewer=False)
        yield TestClient(app, base_url="http://www.example")


QUERY_CASES = [c for c in CASES if "update" not in c.name]


@pytest.mark.parametrize("case", QUERY_CASES, ids=[c.name for c in QUERY_CASES])
def test_w3c_query_case_read_only(case: Case, read_only_app):
    """The 20 query cases also pass against the default, read-only server (no token), union default graph or not."""
    for step in case.steps:
        _check(step, _run(read_only_app, step, {}))


def test_read_only_server_refuses_the_update_cases(read_only_app):
    """Without --allow-update every update case's first request is refused with a 4xx."""
    for case in CASES:
        if case.name.startswith("update_"):
            r = _run(read_only_app, case.steps[0], {})
            assert r.status_code == 403, (case.name, r.status_code)
