"""HermiT, through owlready2, over an ontology graph exported as OWL (the ``craftrdf[owl]`` extra).

owlready2 runs HermiT as a Java subprocess: it needs ``java`` on the PATH (any JDK or
JRE 8+), and owlready2 gives the JVM ``memory_mb`` of heap (UBERON+extensions needed
about 2.8 GB). The inferred subsumptions are read back from owlready2's classes: each
named superclass a class gained that its told axioms did not name.
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from pathlib import Path

import pyoxigraph as ox

from ...core.errors import ConfigError
from ...store.local import ReadableStore
from ..owlread import ontology_triples

logger = logging.getLogger(__name__)

Edge = tuple[str, str]


def hermit_available() -> str | None:
    """None when HermiT can run here, else why not (no owlready2, no java)."""
    try:
        import owlready2  # noqa: F401
    except ImportError:
        return "owlready2 is not installed: pip install 'craftrdf[owl]'"
    if shutil.which("java") is None:
        return "HermiT needs Java: no 'java' on the PATH (install a JRE 8 or newer)"
    return None


def classify_hermit(store: ReadableStore, name: str, *, memory_mb: int = 4000) -> set[Edge]:
    """The direct subsumptions ``(child IRI, parent IRI)`` HermiT infers for ontology ``name``.

    Raises ConfigError when owlready2 or Java is missing (see :func:`hermit_available`).
    """
    why = hermit_available()
    if why is not None:
        raise ConfigError(why)
    import owlready2

    with tempfile.TemporaryDirectory(prefix="craftrdf-hermit-") as tmp:
        path = Path(tmp) / "ontology.owl"
        with open(path, "wb") as fh:  # the OWL export's RDF/XML, what owlready2 reads
            ox.serialize(ontology_triples(store, name), fh, ox.RdfFormat.RDF_XML)
        world = owlready2.World()
        onto = world.get_ontology(path.as_uri()).load()
        classes = {c for c in onto.classes() if c.iri.startswith("http")}
        before = {c.iri: _named_parents(c) for c in classes}
        owlready2.reasoning.JAVA_MEMORY = memory_mb
        owlready2.sync_reasoner_hermit(world, infer_property_values=False, debug=0)
        edges = {(c.iri, p) for c in classes for p in _named_parents(c) - before.get(c.iri, set())}
        world.close()
    logger.info("hermit on %s: %d inferred direct subsumptions", name, len(edges))
    return edges


def _named_parents(cls: object) -> set[str]:
    import owlready2

    return {
        p.iri
        for p in getattr(cls, "is_a", ())
        if isinstance(p, owlready2.ThingClass) and p is not owlready2.Thing and "/craftrdf/vocab" not in p.iri
    }
