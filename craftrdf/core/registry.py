"""The module registry: which sets, ontology files and filters CRAFT has.

The registry is data (``core/modules.toml``, shipped in the wheel); this module
only reads it into frozen records and locates the files in a CRAFT directory.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from .errors import ConfigError

Variant = Literal["proper", "extensions"]
ONTOLOGY_SUFFIXES = (".obo", ".obo.zip", ".obo.gz", ".owl", ".owl.zip", ".owl.gz", ".ttl", ".nt", ".rdf")


@dataclass(frozen=True, slots=True)
class ModuleSpec:
    """One CRAFT module (an ontology) and the corpus README's filters for it."""

    name: str
    proper: str | None
    extensions: str | None
    namespace: str | None
    keep_prefixes: tuple[str, ...]
    exclude_subtrees: tuple[str, ...]
    synonym_scopes: tuple[str, ...]
    parallel_prefix: str | None


@dataclass(frozen=True, slots=True)
class AnnotationSetSpec:
    """One annotation set: key, module, variant, annotation folder, format and ontology file."""

    key: str
    module: str
    variant: Variant
    annotations: str
    format: Literal["knowtator", "knowtator2"]
    ontology: str | None

    @property
    def ontology_name(self) -> str | None:
        """The name of the ontology graph, from the file name (``GO`` for ``GO.obo.zip``)."""
        if self.ontology is None:
            return None
        return ontology_name(Path(self.ontology))

    def mapping_files(self) -> dict[Literal["related", "unused", "substitute"], str]:
        """Relative paths of the corpus mapping files this set has (by kind), per the README."""
        folder = str(Path(self.annotations).parent)
        m = self.module
        if self.variant == "proper":
            return {"unused": f"{folder}/unused_classes_for_{m}_annotations.txt"}
        return {
            "related": f"{folder}/{m}_extension_classes_and_related_{m}_classes.txt",
            "substitute": (
                f"{folder}/unused_classes_and_substitute_extension_classes_for_{m}+extensions_annotations.txt"
            ),
        }


def ontology_name(path: Path) -> str:
    """``UBERON+extensions`` for ``.../UBERON+extensions.obo.zip``."""
    name = path.name
    for suffix in sorted(ONTOLOGY_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


@dataclass(frozen=True, slots=True)
class Registry:
    """All modules and annotation sets, in registry order."""

    modules: Mapping[str, ModuleSpec]
    sets: Mapping[str, AnnotationSetSpec]

    def set(self, key: str) -> AnnotationSetSpec:
        """The set with this key, matched case-insensitively; ConfigError if unknown."""
        for k, spec in self.sets.items():
            if k.lower() == key.lower():
                return spec
        raise ConfigError(f"unknown annotation set {key!r}; known: {', '.join(self.sets)}")

    def module(self, name: str) -> ModuleSpec:
        """The module with this name, matched case-insensitively; ConfigError if unknown."""
        for k, spec in self.modules.items():
            if k.lower() == name.lower():
                return spec
        raise ConfigError(f"unknown module {name!r}; known: {', '.join(self.modules)}")

    def locate_ontology(self, craft_dir: Path, relative: str) -> Path | None:
        """The ontology file in a CRAFT directory: the registered name, else any ontology file there."""
        exact = craft_dir / "concept-annotation" / relative
        if exact.is_file():
            return exact
        folder = exact.parent
        if not folder.is_dir():
            return None
        found = sorted(p for p in folder.iterdir() if p.is_file() and p.name.endswith(ONTOLOGY_SUFFIXES))
        return found[0] if len(found) == 1 else None


def _tuple(entry: Mapping[str, Any], key: str) -> tuple[str, ...]:
    return tuple(entry.get(key, ()))


def parse_registry(data: Mapping[str, Any]) -> Registry:
    """Build a Registry from the parsed TOML mapping; ConfigError naming the bad entry."""
    modules: dict[str, ModuleSpec] = {}
    sets: dict[str, AnnotationSetSpec] = {}
    for name, entry in data.get("modules", {}).items():
        try:
            modules[name] = ModuleSpec(
                name=name,
                proper=entry.get("proper"),
                extensions=entry.get("extensions"),
                namespace=entry.get("namespace"),
                keep_prefixes=_tuple(entry, "keep_prefixes"),
                exclude_subtrees=_tuple(entry, "exclude_subtrees"),
                synonym_scopes=_tuple(entry, "synonym_scopes"),
                parallel_prefix=entry.get("parallel_prefix"),
            )
            if "sets" in entry:
                for key, s in entry["sets"].items():
                    sets[key] = AnnotationSetSpec(
                        key,
                        name,
                        s.get("variant", "proper"),
                        s["annotations"],
                        s.get("format", "knowtator"),
                        s.get("ontology", entry.get("proper")),
                    )
            else:
                sets[name] = AnnotationSetSpec(
                    name, name, "proper", entry["annotations_proper"], "knowtator", entry.get("proper")
                )
                sets[f"{name}_EXT"] = AnnotationSetSpec(
                    f"{name}_EXT",
                    name,
                    "extensions",
                    entry["annotations_extensions"],
                    "knowtator",
                    entry.get("extensions"),
                )
        except (KeyError, TypeError) as exc:
            raise ConfigError(f"module registry entry {name!r} is incomplete: {exc}") from exc
    return Registry(modules, sets)


def load_registry(path: Path | None = None) -> Registry:
    """The registry shipped with craftrdf, or one read from ``path``."""
    if path is None:
        text = resources.files("craftrdf.core").joinpath("modules.toml").read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    try:
        return parse_registry(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path or 'modules.toml'}: {exc}") from exc
