"""SHACL shapes for craftrdf's data, shipped with the package.

``webanno.ttl`` describes the W3C Web Annotation model craftrdf writes
(:mod:`craftrdf.querying.webanno`; docs/rdf-model.md). Validate a store with pySHACL over the
read-only rdflib view::

    import pyshacl
    from craftrdf.publishing.shapes import webanno_shapes

    conforms, report, text = pyshacl.validate(store.to_rdflib(), shacl_graph=webanno_shapes())
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ...core._extras import needs_extra

if TYPE_CHECKING:
    import rdflib

#: The Turtle file of the Web Annotation shapes, inside the installed package.
WEBANNO_SHAPES = cast(Path, files(__name__) / "webanno.ttl")


def webanno_shapes() -> rdflib.Graph:
    """The Web Annotation shapes as an ``rdflib.Graph``; MissingExtraError without the ``rdflib`` extra."""
    with needs_extra():
        import rdflib

    return rdflib.Graph().parse(data=WEBANNO_SHAPES.read_text(encoding="utf-8"), format="turtle")
