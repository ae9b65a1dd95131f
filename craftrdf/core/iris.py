"""IRIs of the resources craftrdf mints: documents, annotations, sets and graphs.

All are under :data:`craftrdf.core.vocab.BASE`; every part taken from data is
percent-encoded, so no input string can change an IRI's structure.
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from .errors import ConfigError
from .rdf import mint
from .vocab import BASE

#: The graph holding every document resource (ids, split, text).
DOCUMENTS_GRAPH = BASE + "documents"

#: The graph of derived character-containment links between annotations (see views.py).
CONTAINMENT_GRAPH = BASE + "derived/containment"

_SET_KEY = re.compile(r"^[A-Za-z][A-Za-z0-9_+\-]*$")


def check_set_key(key: str) -> str:
    """Return a set key if it is a plain identifier (letters, digits, ``_+-``); else ConfigError."""
    if not _SET_KEY.match(key):
        raise ConfigError(f"invalid set key {key!r}: use letters, digits, '_', '+' or '-'")
    return key


def document_iri(pmid: str) -> str:
    """``https://w3id.org/craftrdf/doc/<PMID>``."""
    return mint(BASE, "doc", pmid)


def set_iri(key: str) -> str:
    """The IRI of an annotation set, which is also the name of its graph."""
    return mint(BASE, "set", key)


def annotation_iri(key: str, pmid: str, local_id: str) -> str:
    """An annotation: set key, document and the source file's own annotation id."""
    return mint(BASE, "ann", key, pmid, local_id)


def annotation_document(iri: str) -> str | None:
    """The PubMed id inside an IRI minted by :func:`annotation_iri`; None for any other IRI.

    >>> annotation_document(annotation_iri("CL", "11319941", "a/b"))
    '11319941'
    >>> annotation_document("http://example.org/ann/1") is None
    True
    """
    prefix = BASE + "ann/"
    if not iri.startswith(prefix):
        return None
    parts = iri[len(prefix) :].split("/")
    return unquote(parts[1]) if len(parts) == 3 and all(parts) else None


def ontology_graph(name: str) -> str:
    """The graph of one ontology file (``UBERON+extensions``, ``GO``, ...)."""
    return mint(BASE, "ontology", name)


def ontology_name(graph: str) -> str:
    """The ontology name of a graph minted by :func:`ontology_graph`; ConfigError for any other IRI.

    >>> ontology_name(ontology_graph("UBERON+extensions"))
    'UBERON+extensions'
    """
    prefix = BASE + "ontology/"
    name = unquote(graph[len(prefix) :]) if graph.startswith(prefix) else ""
    if not name or "/" in name or ontology_graph(name) != graph:
        raise ConfigError(f"{graph} is not an ontology graph of craftrdf ({prefix}<name>)")
    return name


def mapping_graph(key: str) -> str:
    """The graph of a set's mapping files and its parallel extension classes."""
    return mint(BASE, "mappings", key)


def relations_graph(ontology: str) -> str:
    """The derived graph of direct class-to-class edges beside an ontology graph (IRI or name).

    >>> relations_graph("UBERON+extensions")
    'https://w3id.org/craftrdf/relations/UBERON+extensions'
    >>> relations_graph(ontology_graph("SO"))
    'https://w3id.org/craftrdf/relations/SO'
    """
    return _derived("relations", ontology)


def inferred_graph(ontology: str) -> str:
    """The derived graph of a reasoner's inferred ``rdfs:subClassOf`` for an ontology (IRI or name)."""
    return _derived("inferred", ontology)


def _derived(kind: str, ontology: str) -> str:
    prefix = BASE + "ontology/"
    if ontology.startswith(prefix):
        return BASE + kind + "/" + ontology[len(prefix) :]
    return mint(BASE, kind, ontology)
