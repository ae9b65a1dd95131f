"""The query library: every .rq parses, parameters are bound (never pasted), results format."""

from __future__ import annotations

import csv
import io
import itertools
import json
import re
from pathlib import Path

import pyoxigraph as ox
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from craftrdf.analysis.similarity.sparql import functions_for
from craftrdf.core.curie import CurieMap
from craftrdf.core.errors import ConfigError, QueryError
from craftrdf.querying.library import (
    QueryResult,
    bind_value,
    format_result,
    library,
    resolve_params,
    resolve_query,
    run_query,
)
from craftrdf.store.local import AnnotationStore

REPO = Path(__file__).resolve().parents[2]
QUERIES = REPO / "craftrdf" / "querying" / "queries"


def test_library_has_the_documented_queries():
    lib = library()
    assert {"annotation-counts", "annotations", "annotations-of-class", "sets"} <= set(lib)
    for q in lib.values():
        assert q.description, f"{q.name} has no header"


@pytest.mark.parametrize("name", sorted(library()))
def test_every_query_parses_and_runs_on_an_empty_store(name):
    q = library()[name]
    store = AnnotationStore.memory()
    result = run_query(store, q, functions=functions_for(store).session())  # craftrdf:wang for those using it
    assert result.rows == ()


@pytest.mark.parametrize("name", sorted(n for n, q in library().items() if q.params))
def test_documented_parameters_are_select_variables(name):
    q = library()[name]
    store = AnnotationStore.memory()
    for p in q.params:
        run_query(store, q, {p: "x"}, functions=functions_for(store).session())  # raises if ?p cannot be bound


def test_binding_an_unknown_parameter_is_a_query_error():
    with pytest.raises(QueryError, match=r"no parameter \?nope"):
        run_query(AnnotationStore.memory(), resolve_query("sets"), {"nope": "x"})


def test_a_misspelled_query_name_suggests_the_close_ones_and_points_at_the_list():
    with pytest.raises(QueryError) as info:
        resolve_query("annotation-count")
    message = str(info.value)
    assert "did you mean annotation-counts" in message and "craftrdf query --list" in message
    assert "viewer-document" not in message  # not the whole library
    with pytest.raises(QueryError) as info:
        resolve_query("no-such-query")
    assert "did you mean" not in str(info.value) and "--list" in str(info.value)


def _raw_header(name: str) -> list[str]:
    """The leading comment lines of a library file, read as plain text."""
    text = (QUERIES / f"{name}.rq").read_text(encoding="utf-8")
    return list(itertools.takewhile(lambda line: line.startswith("#"), text.splitlines()))


def test_the_readme_table_lists_the_queries_for_users_and_the_others_say_they_are_internal():
    # the README's query table names the queries meant for users, in backquotes in its first column
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("### The query library", 1)[1].split("\n\n", 2)[1]
    named = {n for row in table.splitlines()[2:] for n in re.findall(r"`([a-z-]+)`", row.split("|")[1])}
    lib = library()
    # a new query is either listed there or marked internal: whoever adds one decides
    assert named == {n for n, q in lib.items() if not q.internal}
    for name, q in lib.items():
        assert q.internal == any(line.startswith("# Internal:") for line in _raw_header(name)), name
        assert q.builtin
    assert 0 < sum(q.internal for q in lib.values()) < len(lib)


def test_the_purpose_is_the_first_sentence_without_the_name():
    # sets.rq's first line, as written: "# sets: the annotation sets in the store, with module, ..."
    assert (
        library()["sets"].purpose == "the annotation sets in the store, with module, variant, ontology graph and size."
    )
    for q in library().values():
        assert q.purpose and len(q.purpose) <= 100 and not q.purpose.startswith(q.name + ":"), q.name


def test_a_set_parameter_is_resolved_like_every_command_s_set_key(sample_store, tmp_path):
    q = resolve_query("annotation-counts")
    assert resolve_params(sample_store, q, {"set": "uberon_ext", "split": "test"}) == {
        "set": "UBERON_EXT",
        "split": "test",
    }
    with pytest.raises(ConfigError) as info:
        resolve_params(sample_store, q, {"set": "UBERN_EXT"})
    assert "UBERN_EXT" in str(info.value) and "UBERON_EXT" in str(info.value) and "\n" not in str(info.value)
    # a query from a file is the user's own: its ?set is a plain value
    mine = tmp_path / "mine.rq"
    mine.write_text("# mine: anything\n#   ?set  whatever\nSELECT ?set WHERE {}\n")
    assert resolve_params(sample_store, resolve_query(str(mine)), {"set": "UBERN_EXT"}) == {"set": "UBERN_EXT"}


def test_bind_value_kinds():
    cm = CurieMap()
    assert bind_value("UBERON:0000955", cm) == ox.NamedNode("http://purl.obolibrary.org/obo/UBERON_0000955")
    assert bind_value("https://example.org/x", cm) == ox.NamedNode("https://example.org/x")
    assert bind_value("UBERON_EXT", cm) == ox.Literal("UBERON_EXT")
    assert bind_value("brain tissue", cm) == ox.Literal("brain tissue")


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_adversarial_values_never_change_query_structure(value):
    # a store with one set whose key is the adversarial value: the query must find exactly it
    store = AnnotationStore.memory()
    g = ox.NamedNode("https://w3id.org/craftrdf/set/x")
    store.raw.add(
        ox.Quad(
            g,
            ox.NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"),
            ox.NamedNode("https://w3id.org/craftrdf/vocab#AnnotationSet"),
            g,
        )
    )
    store.raw.add(ox.Quad(g, ox.NamedNode("https://w3id.org/craftrdf/vocab#key"), ox.Literal("other"), g))
    if "\0" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        return
    bound = bind_value(value, CurieMap())
    result = run_query(store, resolve_query("sets"), {"set": value})
    if isinstance(bound, ox.Literal) and value != "other":
        assert result.rows == ()
    else:
        assert len(result.rows) <= 1


def _result() -> QueryResult:
    return QueryResult(
        ("set", "cls", "n"),
        (
            (
                ox.Literal("UBERON"),
                ox.NamedNode("http://purl.obolibrary.org/obo/UBERON_0000955"),
                ox.Literal("3", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
            ),
            (
                ox.Literal('a,"b"'),
                None,
                ox.Literal("10", datatype=ox.NamedNode("http://www.w3.org/2001/XMLSchema#integer")),
            ),
        ),
    )


def test_csv_and_tsv():
    rows = list(csv.reader(io.StringIO(format_result(_result(), "csv"))))
    assert rows == [
        ["set", "cls", "n"],
        ["UBERON", "http://purl.obolibrary.org/obo/UBERON_0000955", "3"],
        ['a,"b"', "", "10"],
    ]
    assert format_result(_result(), "tsv").splitlines()[0] == "set\tcls\tn"


def test_json_is_sparql_results_json():
    doc = json.loads(format_result(_result(), "json"))
    assert doc["head"]["vars"] == ["set", "cls", "n"]
    first, second = doc["results"]["bindings"]
    assert first["cls"] == {"type": "uri", "value": "http://purl.obolibrary.org/obo/UBERON_0000955"}
    assert first["n"]["datatype"] == "http://www.w3.org/2001/XMLSchema#integer"
    assert "cls" not in second  # unbound stays unbound


def test_table_is_aligned_and_shows_curies():
    lines = format_result(_result(), "table").splitlines()
    assert lines[0].split() == ["set", "cls", "n"]
    assert "UBERON:0000955" in lines[2]
    assert lines[2].index("UBERON:0000955") == lines[0].index("cls")


def test_a_curie_like_value_that_expands_to_no_iri_binds_as_a_string():
    # found by Hypothesis: "A:" + ESC looks like a CURIE, but no IRI may hold a control character
    from craftrdf.core.curie import CurieMap
    from craftrdf.querying.library import bind_value

    bound = bind_value("A:\x1b", CurieMap())
    assert isinstance(bound, ox.Literal) and bound.value == "A:\x1b"
