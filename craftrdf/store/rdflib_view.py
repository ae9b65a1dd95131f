"""A read-only rdflib view of the Oxigraph store, for rdflib-based tools (pySHACL, owlrl, ...).

:func:`read_only_dataset` wraps the very ``pyoxigraph.Store`` an
:class:`~craftrdf.store.local.AnnotationStore` holds in an oxrdflib store: no triple is copied,
rdflib's pattern matching and SPARQL go straight to Oxigraph, and what craftrdf writes
later is visible at once. It takes no lock of its own (an AnnotationStore opened with
``mode="read"`` keeps only its shared reader lock), and it refuses every write
(:class:`~craftrdf.core.errors.StoreError`): craftrdf's own writers keep the store's
invariants (batches, derived graphs). A tool that must add triples (owlrl's closure, for
example) works on a copy: ``g = rdflib.Graph(); g += dataset.graph(iri)``.

Needs the ``rdflib`` extra (``pip install craftrdf[rdflib]``: rdflib and oxrdflib).

>>> import pyoxigraph as ox
>>> raw = ox.Store()
>>> raw.add(ox.Quad(ox.NamedNode("http://e/s"), ox.NamedNode("http://e/p"), ox.Literal("o"), ox.NamedNode("http://e/g")))
>>> ds = read_only_dataset(raw)
>>> [str(o) for o in ds.graph("http://e/g").objects()]
['o']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn

import pyoxigraph as ox

from ..core.errors import ConfigError, StoreError

if TYPE_CHECKING:
    import rdflib

_READ_ONLY = (
    "the rdflib view of a craftrdf store is read-only: load data with craftrdf (build, load, views), "
    "or copy a graph first (g = rdflib.Graph(); g += dataset.graph(iri)) and change the copy"
)


def _store_class() -> type:
    try:
        from oxrdflib import OxigraphStore
    except ImportError:  # pragma: no cover - depends on the installed extras
        raise ConfigError(
            "AnnotationStore.to_rdflib needs rdflib and oxrdflib: pip install 'craftrdf[rdflib]'"
        ) from None

    class ReadOnlyOxigraphStore(OxigraphStore):
        """oxrdflib's store over an existing pyoxigraph store, every write refused."""

        def _refuse(self, *args: Any, **kwargs: Any) -> NoReturn:
            raise StoreError(_READ_ONLY)

        add = addN = remove = update = remove_graph = _refuse

        def add_graph(self, graph: Any) -> None:
            """Nothing to do: ``Dataset.graph(iri)`` calls this to read a graph; an absent one reads empty."""

    return ReadOnlyOxigraphStore


def read_only_dataset(raw: ox.Store) -> rdflib.Dataset:
    """An ``rdflib.Dataset`` over ``raw`` (no copy, no lock); writes raise StoreError.

    Its default graph is the store's default graph; each named graph of the store is
    ``dataset.graph(iri)``, and ``dataset.quads((s, p, o, None))`` spans all of them.
    ConfigError when rdflib or oxrdflib is not installed.
    """
    import rdflib

    store = _store_class()(store=raw)
    return rdflib.Dataset(store=store)
