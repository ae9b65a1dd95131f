"""is_a cycles: reported at load with the classes in them; the class pages still answer (issue 17).

An OBO file with an is_a cycle used to load with no warning, and the viewer's page of every
class of that ontology then answered 404 (the similarity index could not be built).
"""

from __future__ import annotations

import warnings
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.building.loader import load_files
from craftrdf.core.errors import DataWarning
from craftrdf.ingest.cycles import find_cycles
from craftrdf.store.local import AnnotationStore

# XX:2 -> XX:3 -> XX:4 -> XX:2 is a cycle; XX:5 is_a itself; XX:6 hangs below the cycle.
CYCLIC = """format-version: 1.2
ontology: xx

[Term]
id: XX:0000001
name: root

[Term]
id: XX:0000002
name: two
is_a: XX:0000001
is_a: XX:0000003

[Term]
id: XX:0000003
name: three
is_a: XX:0000004

[Term]
id: XX:0000004
name: four
is_a: XX:0000002

[Term]
id: XX:0000005
name: self
is_a: XX:0000005

[Term]
id: XX:0000006
name: below
is_a: XX:0000002
"""


def load_cyclic(tmp_path: Path, name: str = "XX.obo", text: str = CYCLIC) -> tuple[AnnotationStore, list[str]]:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    store = AnnotationStore.memory()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_files(store, [f])
    return store, [str(w.message) for w in caught if issubclass(w.category, DataWarning)]


def test_each_cycle_is_one_warning_naming_the_file_and_its_classes(tmp_path: Path) -> None:
    store, messages = load_cyclic(tmp_path)
    cycles = [m for m in messages if "is_a cycle" in m]
    assert len(cycles) == 2, messages
    assert cycles[0].startswith(
        f"{tmp_path / 'XX.obo'}: is_a cycle among 3 class(es): XX:0000002, XX:0000003, XX:0000004"
    )
    assert "1 class(es): XX:0000005" in cycles[1]
    assert store.contains_named_graph("https://w3id.org/craftrdf/ontology/XX")  # the load went on


def test_a_cycle_in_an_rdf_file_is_reported_too(tmp_path: Path) -> None:
    ttl = (
        "@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .\n"
        "<http://example.org/a> rdfs:subClassOf <http://example.org/b> .\n"
        "<http://example.org/b> rdfs:subClassOf <http://example.org/a> .\n"
        "<http://example.org/c> rdfs:subClassOf [ rdfs:subClassOf <http://example.org/c> ] .\n"
    )
    _, messages = load_cyclic(tmp_path, "yy.ttl", ttl)
    assert [m for m in messages if "is_a cycle" in m] == [
        f"{tmp_path / 'yy.ttl'}: is_a cycle among 2 class(es): http://example.org/a, http://example.org/b; "
        "loaded as written, but similarity cannot be computed in this ontology until the cycle is broken"
    ]


def test_no_warning_without_a_cycle(tmp_path: Path) -> None:
    acyclic = CYCLIC.replace("is_a: XX:0000002\n\n[Term]\nid: XX:0000005", "\n[Term]\nid: XX:0000005").replace(
        "is_a: XX:0000005\n", ""
    )
    _, messages = load_cyclic(tmp_path, text=acyclic)
    assert not [m for m in messages if "cycle" in m]


def test_class_pages_answer_and_say_what_they_cannot_compute(tmp_path: Path) -> None:
    from starlette.applications import Starlette
    from starlette.testclient import TestClient

    from craftrdf.publishing.server.viewer import viewer_routes

    store, _ = load_cyclic(tmp_path)
    client = TestClient(Starlette(routes=viewer_routes(store, base_iri="https://example.org/")))
    for curie in ("XX:0000002", "XX:0000005", "XX:0000006", "XX:0000001"):
        page = client.get(f"/class/{curie}")
        assert page.status_code == 200, (curie, page.text[:300])
        assert 'id="similar-unavailable"' in page.text and "cycle" in page.text
        api = client.get(f"/api/class/{curie}").json()
        assert api["similar"] == [] and "cycle" in api["similar_unavailable"]
    # ancestors over a cycle end (the class itself is among them), by hand: 2 -> 3 -> 4 -> 2, 2 -> 1
    api = client.get("/api/class/XX:0000003").json()
    assert sorted(a["curie"] for a in api["ancestors"]) == ["XX:0000001", "XX:0000002", "XX:0000003", "XX:0000004"]


def _reach(graph: dict[int, list[int]], start: int) -> set[int]:
    """Nodes reachable from ``start`` over one edge or more (the oracle: plain search)."""
    seen: set[int] = set()
    todo = list(graph.get(start, ()))
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(graph.get(n, ()))
    return seen


@settings(deadline=None)
@given(st.dictionaries(st.integers(0, 12), st.lists(st.integers(0, 12), max_size=4), max_size=13))
def test_cycles_are_the_mutually_reachable_groups(graph: dict[int, list[int]]) -> None:
    reach = {n: _reach(graph, n) for n in set(graph) | {m for v in graph.values() for m in v}}
    expected = sorted(
        {tuple(sorted(m for m in reach if m in reach[n] and n in reach[m])) for n in reach if n in reach[n]}
    )
    assert [tuple(c) for c in find_cycles(graph)] == expected
