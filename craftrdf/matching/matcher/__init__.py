"""A ConceptMapper-like dictionary matcher over the store's ontologies (docs/matcher.md).

The stages, each its own module: :mod:`.config` (the seven parameters and their grid),
:mod:`.tokenize` (sentences and tokens), :mod:`.normalize` (case, stemmer, stop words),
:mod:`.dictionary` (names from the store, normalized, cached), :mod:`.search` (the
matching itself) and :mod:`.annotate` (orchestration, shared work) and
:mod:`.run` (a run's inputs and outputs).

>>> from craftrdf.matching.matcher import MatcherConfig, annotate_texts
>>> out = annotate_texts({"d": "The lens fibers."}, {"UBERON:0002444": "lens fiber"}, MatcherConfig())
>>> [(a.class_id, a.spans[0].start, a.spans[0].end) for a in out["d"]]
[('UBERON:0002444', 4, 15)]
"""

from __future__ import annotations

from .annotate import ANNOTATOR, Matcher, MatchingSession, annotate_texts
from .config import (
    PARAMETERS,
    CaseMatch,
    FindAllMatches,
    MatcherConfig,
    OrderIndependentLookup,
    SearchKey,
    SearchStrategy,
    Stemmer,
    StopWords,
    Synonyms,
    TextNormalization,
    canonical,
    distinct_grid,
    grid,
)
from .dictionary import (
    Dictionary,
    DictionaryTerm,
    default_cache_dir,
    fetch_terms,
    load_dictionary,
    terms_from_names,
)
from .run import RunReport, read_inputs, run_annotation, write_bionlp_files

__all__ = [
    "ANNOTATOR",
    "PARAMETERS",
    "CaseMatch",
    "Dictionary",
    "DictionaryTerm",
    "FindAllMatches",
    "Matcher",
    "MatcherConfig",
    "MatchingSession",
    "OrderIndependentLookup",
    "RunReport",
    "SearchKey",
    "SearchStrategy",
    "Stemmer",
    "StopWords",
    "Synonyms",
    "TextNormalization",
    "annotate_texts",
    "canonical",
    "default_cache_dir",
    "distinct_grid",
    "fetch_terms",
    "grid",
    "load_dictionary",
    "load_terms",
    "read_inputs",
    "run_annotation",
    "terms_from_names",
    "write_bionlp_files",
]
