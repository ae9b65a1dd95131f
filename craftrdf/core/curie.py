"""CURIE <-> IRI conversion for OBO identifiers, in one place.

CRAFT uses OBO CURIEs (``UBERON:0000955``) and extension-class CURIEs whose prefixes
combine ontologies (``CL_GO_EXT:cell``, ``CHEBI_UBERON_EXT:...``). All map into the
OBO PURL space following the OBO-to-OWL convention ``PREFIX:LOCAL`` ->
``http://purl.obolibrary.org/obo/PREFIX_LOCAL``; compression reads the prefix back by the
OBO rule (up to the first ``_EXT`` for extension classes, else up to the first ``_``).
Both directions are pure functions of their argument (see :class:`CurieMap`), so one map
can serve a whole run.
"""

from __future__ import annotations

import re

import curies

from .errors import InputError
from .vocab import OBO

#: Prefixes of the ten CRAFT ontologies, MONDO, and the ontologies their files import.
CRAFT_PREFIXES: tuple[str, ...] = (
    "BFO",
    "CARO",
    "CHEBI",
    "CL",
    "GO",
    "MOP",
    "MONDO",
    "NCBITaxon",
    "PATO",
    "PR",
    "RO",
    "SO",
    "UBERON",
    "IAO",
    "OBI",
    "CHMO",
    "CHEMINF",
)

_CURIE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*):([^\s<>\"{}|^`\\:]+)$")
# In the OBO PURL space an extension prefix ends in _EXT; anything else is a plain prefix.
_OBO_LOCAL = re.compile(r"^([A-Za-z][A-Za-z0-9_]*?_EXT|[A-Za-z][A-Za-z0-9]*)_(.+)$")
_PARALLEL = re.compile(r"^(CHEBI|GO|PR|SO)_EXT:(\d+)$")


def is_extension_curie(curie: str) -> bool:
    """True for CRAFT extension classes: their prefix ends in ``_EXT``."""
    prefix, _, _ = curie.partition(":")
    return prefix.endswith("_EXT")


def parallel_base(curie: str) -> str | None:
    """The base class of a parallel extension class, else None.

    >>> parallel_base("SO_EXT:0000704")
    'SO:0000704'
    >>> parallel_base("UBERON_EXT:bone_element_or_tissue") is None
    True
    """
    m = _PARALLEL.match(curie)
    return f"{m.group(1)}:{m.group(2)}" if m else None


class CurieMap:
    """Expands CURIEs to OBO PURLs and compresses them back; one map serves a whole run.

    The contract: :meth:`expand` and :meth:`compress` are pure functions of their argument.
    Expansion follows the OBO-to-OWL convention (``P:L`` -> ``obo:P_L``, any prefix);
    compression applies the OBO rule to the IRI alone, never the prefixes seen before, so a
    map that has expanded ``GO_REF:0000001`` still compresses ``obo:GO_REF_0000001`` to
    ``GO:REF_0000001``, as a fresh map does. (A longest-prefix match over learned prefixes,
    what a growing :class:`curies.Converter` does, would answer ``GO_REF:0000001`` there.)
    The converter and the two dicts only memoise; sharing a map, as
    :class:`~craftrdf.core.context.RunContext` does, changes no answer. Round trips hold for
    OBO CURIEs (alphanumeric prefix) and ``*_EXT`` CURIEs whose local id has no ``_EXT_``.

    Functions take the map from their caller (the run context's); only store readers that use it
    for conversions alone (``run_query``, ``fetch_annotations``, ``run_view``, ``export_set``, ...)
    accept None and then make a new one, which by this contract answers as the caller's would.

    >>> cm = CurieMap()
    >>> cm.expand("UBERON_EXT:bone_element_or_tissue")
    'http://purl.obolibrary.org/obo/UBERON_EXT_bone_element_or_tissue'
    >>> cm.compress("http://purl.obolibrary.org/obo/UBERON_EXT_bone_element_or_tissue")
    'UBERON_EXT:bone_element_or_tissue'
    >>> cm.compress("http://purl.obolibrary.org/obo/UBERON_0000955")
    'UBERON:0000955'
    """

    def __init__(self) -> None:
        # a prefix registry for expansion: a prefix's IRI base never depends on what else is in it
        self._converter = curies.Converter.from_prefix_map({p: OBO.NS + p + "_" for p in CRAFT_PREFIXES})
        self._cache: dict[str, str] = {}
        self._compressed: dict[str, str] = {}

    def is_curie(self, value: str) -> bool:
        """True when ``value`` has the shape of an OBO CURIE (known prefix or not)."""
        return _CURIE.match(value) is not None

    def expand(self, curie: str, *, source: str | None = None) -> str:
        """The IRI of an OBO CURIE (``P:L`` -> ``obo:P_L``); IRIs pass through unchanged.

        Raises :class:`InputError` (a ``ValueError``) for a string that is neither.
        """
        hit = self._cache.get(curie)
        if hit is not None:
            return hit
        if curie.startswith(("http://", "https://")):
            return curie
        m = _CURIE.match(curie)
        if m is None:
            raise InputError(f"malformed class id {curie!r}: expected PREFIX:LOCAL_ID", source=source)
        prefix = m.group(1)
        if not self._converter.has_prefix(prefix):
            self._converter.add_prefix(prefix, OBO.NS + prefix + "_")
        iri = self._converter.expand(curie)
        assert iri is not None  # the prefix was just registered
        self._cache[curie] = iri
        return iri

    def compress(self, iri: str) -> str:
        """The CURIE of an OBO PURL by the OBO rule; any other IRI comes back unchanged.

        The prefix is everything up to the first ``_EXT`` followed by ``_`` (extension
        classes), else the letters and digits up to the first ``_``; the local id is the
        (non-empty) rest. IRIs in the OBO space that do not fit (``obo/go.owl``) pass through.
        """
        known = self._compressed.get(iri)
        if known is not None:
            return known
        m = _OBO_LOCAL.match(iri[len(OBO.NS) :]) if iri.startswith(OBO.NS) else None
        out = self._compressed[iri] = iri if m is None else f"{m.group(1)}:{m.group(2)}"
        return out
