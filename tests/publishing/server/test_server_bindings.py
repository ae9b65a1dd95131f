"""Bound parameters cannot change a query's structure: adversarial strings through every library query.

Every parameter of every ``querying/queries/*.rq`` is bound (through ``craftrdf.querying.library.run_query``, as the
CLI and the server's library code do) to strings full of SPARQL syntax: quotes, braces, ``}``,
``#``, newlines, ``> . } DROP ALL {``, backslashes, unicode. Each such value matches nothing in
the store, so if it stays a single term the query returns exactly what it returns for a plain
value that matches nothing ("zz-no-such-value"), apart from the parameter's own column, which
echoes the bound value; and the store is unchanged. A value that broke
out of its term would change the result, raise a syntax error, or drop data.
"""

from __future__ import annotations

import pyoxigraph as ox
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from craftrdf.core.curie import CurieMap
from craftrdf.querying.library import bind_value, library, run_query
from tests.helpers.queries import uses_functions

# The queries calling craftrdf:wang and its kin bind their values through the same code; their
# adversarial values are checked in tests/core/test_bindings.py (each call here would build an index).
PARAMETERISED = [(name, p) for name, q in library().items() if not uses_functions(name) for p in q.params]

NASTY = [
    '"',
    "'",
    '"""',
    "'''",
    "}",
    "{",
    "#",
    "\n",
    "\r\n",
    "> . } DROP ALL {",
    '" . } DROP ALL { "',
    "\\",
    '\\"',
    "?x",
    "$x",
    "<http://evil/>",
    ">",
    "<",
    "\u2028",
    "é",
    "𝔘",
    "\x00",
    ") ;",
    "'\"}#\n",
]

adversarial = st.tuples(st.text(max_size=12), st.sampled_from(NASTY), st.text(max_size=12)).map("".join)


def _rows(store, name: str, param: str, value: str) -> list[tuple[str, ...]]:
    """The rows for ``param`` bound to ``value``, without the parameter's own column (it echoes the value)."""
    result = run_query(store, library()[name], {param: value})
    keep = [i for i, c in enumerate(result.columns) if c != param]
    return sorted(tuple("" if row[i] is None else str(row[i]) for i in keep) for row in result.rows)


@pytest.fixture(scope="module")
def reference() -> dict[tuple[str, str, str], list[tuple[str, ...]]]:
    """Rows for the benign values, computed once per query and parameter."""
    return {}


def test_every_parameterised_query_is_covered():
    assert len(PARAMETERISED) >= 30


@pytest.mark.parametrize(("name", "param"), PARAMETERISED, ids=[f"{n}-{p}" for n, p in PARAMETERISED])
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=adversarial)
def test_adversarial_value_stays_one_term(sample_store, reference, name, param, value):
    store = sample_store
    curies = CurieMap()
    kind = bind_value(value, curies)
    benign = "http://example.invalid/no-such-value" if isinstance(kind, ox.NamedNode) else "zz-no-such-value"
    size = len(store)
    key = (name, param, benign)
    if key not in reference:
        reference[key] = _rows(store, name, param, benign)
    assert _rows(store, name, param, value) == reference[key]
    assert len(store) == size
