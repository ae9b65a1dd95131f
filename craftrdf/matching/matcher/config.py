"""The matcher's seven parameters, named and valued exactly as ConceptMapper's, and their grid.

ConceptMapper (Apache UIMA sandbox; Tanenblatt et al., LREC 2010) as configured in the
CRAFT experiments (Funk et al. 2014; Bada et al. 2017) has seven parameters with
2 to 4 values each, 576 combinations in all:

=========================  =================================================================
``caseMatch``              ``CASE_SENSITIVE`` | ``CASE_INSENSITIVE`` | ``CASE_IGNORE`` |
                           ``CASE_FOLD_DIGITS``
``findAllMatches``         ``YES`` | ``NO``
``orderIndependentLookup`` ``ON`` | ``OFF``
``searchStrategy``         ``CONTIGUOUS_MATCH`` | ``SKIP_ANY_MATCH`` |
                           ``SKIP_ANY_MATCH_ALLOW_OVERLAP``
``stemmer``                ``NONE`` | ``PORTER`` | ``BIOLEMMATIZER``
``stopWords``              ``NONE`` | ``PUBMED``
``synonyms``               ``EXACT_ONLY`` | ``ALL``
=========================  =================================================================

ConceptMapper's code (``ConceptMapper.initialize``) turns order-independent lookup on
whenever the search strategy is ``SKIP_ANY_MATCH`` (its guide says the same of
``SKIP_ANY_MATCH_ALLOW_OVERLAP``, but the code does not), so ``orderIndependentLookup=OFF``
with ``SKIP_ANY_MATCH`` behaves exactly as ``ON``: 96 of the 576 combinations duplicate
others. :func:`canonical` maps a configuration to the one it behaves as, so a sweep can
run 480 configurations and copy the results of the other 96.

The configuration splits along the work it causes (see docs/matcher.md):
:attr:`MatcherConfig.normalization` (case x stemmer x stop words) decides how every
token of a text and of the dictionary is normalized, :attr:`MatcherConfig.dictionary_key`
adds the synonym policy, and :attr:`MatcherConfig.search_key` is what is left for the
search itself. Configurations with equal dictionary and search keys give identical
annotations: 480 distinct after ConceptMapper's forcing, 432 once a further
coincidence of its code is folded too (``search_key``).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...core.errors import ConfigError


class CaseMatch(StrEnum):
    """How tokens are case-folded before lookup (ConceptMapper's ``caseMatch``)."""

    CASE_SENSITIVE = "CASE_SENSITIVE"  #: no folding
    CASE_INSENSITIVE = "CASE_INSENSITIVE"  #: fold tokens that are an initial capital then lower case
    CASE_IGNORE = "CASE_IGNORE"  #: fold every token
    CASE_FOLD_DIGITS = "CASE_FOLD_DIGITS"  #: fold every token holding a digit, and only those


class FindAllMatches(StrEnum):
    """``YES``: every match in the sentence; ``NO``: the longest match at each position."""

    YES = "YES"
    NO = "NO"


class OrderIndependentLookup(StrEnum):
    """``ON``: the order of the tokens of a match is ignored ("cancer breast" = "breast cancer")."""

    ON = "ON"
    OFF = "OFF"


class SearchStrategy(StrEnum):
    """Which token sequences of a sentence may match a dictionary entry."""

    CONTIGUOUS_MATCH = "CONTIGUOUS_MATCH"  #: contiguous tokens, longest first
    SKIP_ANY_MATCH = "SKIP_ANY_MATCH"  #: tokens need not be contiguous; matches do not overlap
    SKIP_ANY_MATCH_ALLOW_OVERLAP = "SKIP_ANY_MATCH_ALLOW_OVERLAP"  #: the same, overlaps allowed


class Stemmer(StrEnum):
    """``PORTER``: the Porter (1980) stemmer; ``BIOLEMMATIZER``: a dictionary lemmatizer (lemminflect)."""

    NONE = "NONE"
    PORTER = "PORTER"
    BIOLEMMATIZER = "BIOLEMMATIZER"


class StopWords(StrEnum):
    """``PUBMED``: words on PubMed's stop-word list are dropped from entries and texts."""

    NONE = "NONE"
    PUBMED = "PUBMED"


class Synonyms(StrEnum):
    """``EXACT_ONLY``: labels and exact synonyms; ``ALL``: synonyms of every scope too."""

    EXACT_ONLY = "EXACT_ONLY"
    ALL = "ALL"


#: The seven parameters, by ConceptMapper name, in the order of the grid and of output columns.
PARAMETERS: Mapping[str, type[StrEnum]] = {
    "caseMatch": CaseMatch,
    "findAllMatches": FindAllMatches,
    "orderIndependentLookup": OrderIndependentLookup,
    "searchStrategy": SearchStrategy,
    "stemmer": Stemmer,
    "stopWords": StopWords,
    "synonyms": Synonyms,
}


@dataclass(frozen=True, slots=True)
class TextNormalization:
    """The part of a configuration that decides how a token is normalized (24 combinations)."""

    caseMatch: CaseMatch
    stemmer: Stemmer
    stopWords: StopWords


@dataclass(frozen=True, slots=True)
class SearchKey:
    """The part of a configuration that only the search uses (9 behaviours; see ``MatcherConfig.search_key``)."""

    findAllMatches: FindAllMatches
    orderIndependentLookup: OrderIndependentLookup
    searchStrategy: SearchStrategy


@dataclass(frozen=True, slots=True)
class MatcherConfig:
    """One matcher configuration; fields are ConceptMapper's parameter names.

    Strings are accepted and turned into the enums; an unknown value raises
    :class:`~craftrdf.core.errors.ConfigError` (a ``ValueError``) listing the allowed ones.
    The defaults are the configuration with the best F1 on UBERON in Bada et al. 2017
    (Table 7): case-insensitive, longest matches, contiguous, Porter stemmer, no stop
    words, exact synonyms.

    >>> MatcherConfig(caseMatch="CASE_IGNORE").caseMatch
    <CaseMatch.CASE_IGNORE: 'CASE_IGNORE'>
    >>> MatcherConfig().params()["stemmer"]
    'PORTER'
    """

    caseMatch: CaseMatch = CaseMatch.CASE_INSENSITIVE
    findAllMatches: FindAllMatches = FindAllMatches.NO
    orderIndependentLookup: OrderIndependentLookup = OrderIndependentLookup.OFF
    searchStrategy: SearchStrategy = SearchStrategy.CONTIGUOUS_MATCH
    stemmer: Stemmer = Stemmer.PORTER
    stopWords: StopWords = StopWords.NONE
    synonyms: Synonyms = Synonyms.EXACT_ONLY

    def __post_init__(self) -> None:
        for name, enum in PARAMETERS.items():
            value = getattr(self, name)
            if not isinstance(value, enum):
                object.__setattr__(self, name, _coerce(name, enum, value))

    @classmethod
    def from_params(cls, params: Mapping[str, str], *, base: MatcherConfig | None = None) -> MatcherConfig:
        """A configuration from ``{name: value}`` (ConceptMapper names), the others from ``base``.

        Names are matched exactly first, then case-insensitively; an unknown name raises
        ConfigError listing the seven.

        >>> MatcherConfig.from_params({"searchStrategy": "SKIP_ANY_MATCH"}).searchStrategy.value
        'SKIP_ANY_MATCH'
        """
        changes: dict[str, Any] = {}
        lower = {k.lower(): k for k in PARAMETERS}
        for name, value in params.items():
            key = name if name in PARAMETERS else lower.get(name.lower())
            if key is None:
                raise ConfigError(f"unknown matcher parameter {name!r}; parameters: {', '.join(PARAMETERS)}")
            changes[key] = _coerce(key, PARAMETERS[key], value)
        return dataclasses.replace(base or cls(), **changes)

    def params(self) -> dict[str, str]:
        """The seven parameters as ``{ConceptMapper name: value}``, in grid order."""
        return {name: getattr(self, name).value for name in PARAMETERS}

    def label(self) -> str:
        """A compact one-line form, ``caseMatch=...;findAllMatches=...;...``."""
        return ";".join(f"{k}={v}" for k, v in self.params().items())

    @property
    def normalization(self) -> TextNormalization:
        """Case folding, stemmer and stop words: how every token is normalized."""
        return TextNormalization(self.caseMatch, self.stemmer, self.stopWords)

    @property
    def dictionary_key(self) -> tuple[TextNormalization, Synonyms]:
        """What decides the normalized dictionary: the normalization and the synonym policy."""
        return self.normalization, self.synonyms

    @property
    def search_key(self) -> SearchKey:
        """What only the search uses: two configurations with equal ``dictionary_key`` and
        ``search_key`` give identical annotations.

        ConceptMapper's forcing is applied (see :func:`canonical`), and one more
        coincidence of its code is folded: with ``findAllMatches=YES`` both skip
        strategies move on by one position after every position, so
        ``SKIP_ANY_MATCH_ALLOW_OVERLAP`` with order-independent lookup searches exactly as
        ``SKIP_ANY_MATCH`` (9 distinct search keys, not 10; 432 distinct searches in the grid).

        >>> a = MatcherConfig(findAllMatches="YES", searchStrategy="SKIP_ANY_MATCH_ALLOW_OVERLAP",
        ...                   orderIndependentLookup="ON")
        >>> a.search_key == MatcherConfig(findAllMatches="YES", searchStrategy="SKIP_ANY_MATCH").search_key
        True
        """
        c = canonical(self)
        strategy = c.searchStrategy
        if (
            c.findAllMatches is FindAllMatches.YES
            and strategy is SearchStrategy.SKIP_ANY_MATCH_ALLOW_OVERLAP
            and c.orderIndependentLookup is OrderIndependentLookup.ON
        ):
            strategy = SearchStrategy.SKIP_ANY_MATCH
        return SearchKey(c.findAllMatches, c.orderIndependentLookup, strategy)


def _coerce(name: str, enum: type[StrEnum], value: object) -> Any:
    if isinstance(value, enum):
        return value
    if isinstance(value, str):
        try:
            return enum(value.strip().upper())
        except ValueError:
            pass
    allowed = " | ".join(m.value for m in enum)
    raise ConfigError(f"invalid value {value!r} for matcher parameter {name}: use {allowed}")


def canonical(config: MatcherConfig) -> MatcherConfig:
    """The configuration ``config`` behaves as: ConceptMapper's own forcing applied.

    Under ``SKIP_ANY_MATCH``, ConceptMapper sets order-independent lookup on whatever
    was asked, so ``orderIndependentLookup=OFF`` becomes ``ON``. Every other
    configuration is its own canonical form. Two configurations with the same
    canonical form give identical annotations.

    >>> c = MatcherConfig(searchStrategy="SKIP_ANY_MATCH", orderIndependentLookup="OFF")
    >>> canonical(c).orderIndependentLookup.value
    'ON'
    >>> canonical(MatcherConfig()) == MatcherConfig()
    True
    """
    if (
        config.searchStrategy is SearchStrategy.SKIP_ANY_MATCH
        and config.orderIndependentLookup is OrderIndependentLookup.OFF
    ):
        return dataclasses.replace(config, orderIndependentLookup=OrderIndependentLookup.ON)
    return config


def _params(names: list[str], values: tuple[Any, ...]) -> dict[str, Any]:
    return dict(zip(names, values, strict=True))


def grid() -> tuple[MatcherConfig, ...]:
    """All 576 configurations, in a fixed order (the product of the values in PARAMETERS order).

    >>> len(grid()), len(set(map(canonical, grid())))
    (576, 480)
    """
    names = list(PARAMETERS)
    return tuple(
        MatcherConfig(**_params(names, values)) for values in itertools.product(*(list(e) for e in PARAMETERS.values()))
    )


def distinct_grid(configs: tuple[MatcherConfig, ...] | None = None) -> dict[MatcherConfig, tuple[MatcherConfig, ...]]:
    """Canonical configuration -> the configurations (of ``configs``, default the grid) it stands for.

    Run each key once and report its result for every configuration in its value.
    """
    out: dict[MatcherConfig, list[MatcherConfig]] = {}
    for c in configs if configs is not None else grid():
        out.setdefault(canonical(c), []).append(c)
    return {k: tuple(v) for k, v in out.items()}
