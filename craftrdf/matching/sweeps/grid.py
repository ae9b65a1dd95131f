"""The configurations a sweep runs: the full grid, a quick one, or one read from a TOML file.

A grid file names, for each of ConceptMapper's seven parameters, the values to try; a
parameter left out keeps its default (the paper's best-F1 value)::

    # GRID.toml
    [grid]
    caseMatch = ["CASE_INSENSITIVE", "CASE_IGNORE"]
    stemmer = ["PORTER", "BIOLEMMATIZER"]
    synonyms = "ALL"            # one value, or a list

The grid is the product of the lists, in the order of
:data:`craftrdf.matching.matcher.config.PARAMETERS`. :func:`plan` then folds configurations
that behave alike (equal ``dictionary_key`` and ``search_key``) into one run each and
groups the runs by dictionary, so a worker builds each dictionary once.
"""

from __future__ import annotations

import itertools
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...core.errors import ConfigError
from ..matcher.config import PARAMETERS, MatcherConfig, Synonyms, TextNormalization, grid

#: The values of the ``quick`` grid (16 configurations): cheap normalizations, every search.
QUICK: dict[str, tuple[str, ...]] = {
    "caseMatch": ("CASE_INSENSITIVE", "CASE_SENSITIVE"),
    "findAllMatches": ("NO", "YES"),
    "orderIndependentLookup": ("OFF",),
    "searchStrategy": ("CONTIGUOUS_MATCH", "SKIP_ANY_MATCH"),
    "stemmer": ("PORTER",),
    "stopWords": ("NONE",),
    "synonyms": ("EXACT_ONLY", "ALL"),
}


def product_grid(values: dict[str, Sequence[str] | str]) -> tuple[MatcherConfig, ...]:
    """The product of the values given per parameter (defaults for the others), in grid order.

    Names and values are checked as :meth:`MatcherConfig.from_params` does (ConfigError).

    >>> len(product_grid({"caseMatch": ["CASE_IGNORE", "CASE_SENSITIVE"], "synonyms": "ALL"}))
    2
    """
    lower = {k.lower(): k for k in PARAMETERS}
    chosen: dict[str, tuple[str, ...]] = {}
    for name, v in values.items():
        key = name if name in PARAMETERS else lower.get(name.lower())
        if key is None:
            raise ConfigError(f"unknown matcher parameter {name!r} in the grid; parameters: {', '.join(PARAMETERS)}")
        vs = (v,) if isinstance(v, str) else tuple(v)
        if not vs or not all(isinstance(x, str) for x in vs):
            raise ConfigError(f"grid parameter {key}: give a value or a non-empty list of values (strings)")
        chosen[key] = vs
    default = MatcherConfig().params()
    names = list(PARAMETERS)
    axes = [chosen.get(n, (default[n],)) for n in names]
    configs = [MatcherConfig.from_params(dict(zip(names, combo, strict=True))) for combo in itertools.product(*axes)]
    return tuple(dict.fromkeys(configs))  # a value listed twice gives one configuration


def load_grid(spec: str | Path | None) -> tuple[MatcherConfig, ...]:
    """``all`` (or None): the 576 configurations; ``quick``: :data:`QUICK`; else a GRID.toml path.

    The TOML file holds a ``[grid]`` table (or top-level keys) of parameter -> value or
    list of values. ConfigError for a missing or malformed file, an unknown parameter or value.
    """
    if spec is None or str(spec).strip().lower() == "all":
        return grid()
    if str(spec).strip().lower() == "quick":
        return product_grid(dict(QUICK))
    path = Path(spec)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"--grid {spec}: no such file (use all, quick, or a GRID.toml file)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"--grid {spec}: cannot read it as TOML: {exc}") from None
    table = data.get("grid", data)
    if not isinstance(table, dict) or not table:
        raise ConfigError(f"--grid {spec}: expected a [grid] table of parameter = value or [values]")
    return product_grid(table)


@dataclass(frozen=True, slots=True)
class RunGroup:
    """Configurations sharing one dictionary: each distinct search run once, for the configurations it stands for.

    ``runs[i]`` is the configuration actually run (the first asked for that behaves so)
    and ``stands_for[i]`` every configuration of the grid with the same output.
    """

    normalization: TextNormalization
    synonyms: Synonyms
    runs: tuple[MatcherConfig, ...]
    stands_for: tuple[tuple[MatcherConfig, ...], ...]

    def __len__(self) -> int:
        return sum(len(s) for s in self.stands_for)


def plan(configs: Iterable[MatcherConfig]) -> list[RunGroup]:
    """Group ``configs`` into runs: equal (``dictionary_key``, ``search_key``) -> one run.

    Groups come out ordered by normalization (so the two synonym policies of one
    normalization are neighbours) and keep the grid order inside.

    >>> groups = plan(grid())
    >>> len(groups), sum(len(g.runs) for g in groups), sum(len(g) for g in groups)
    (48, 432, 576)
    """
    by_dict: dict[tuple[TextNormalization, Synonyms], dict[object, list[MatcherConfig]]] = {}
    for c in configs:
        by_dict.setdefault(c.dictionary_key, {}).setdefault(c.search_key, []).append(c)
    out = []
    for (normalization, synonyms), searches in by_dict.items():
        out.append(
            RunGroup(
                normalization,
                synonyms,
                tuple(v[0] for v in searches.values()),
                tuple(tuple(v) for v in searches.values()),
            )
        )
    order = {n: i for i, n in enumerate(dict.fromkeys(g.normalization for g in out))}
    out.sort(key=lambda g: order[g.normalization])
    return out
