"""craftrdf: the CRAFT corpus's ontologies and concept annotations as one queryable RDF store.

The names here are the public API; everything else is reached through its module and may
change between versions. In a notebook::

    import craftrdf

    with craftrdf.open("craft.store", mode="write") as store:        # or craftrdf.open() in memory
        craftrdf.build(store, "../shared/craft")                     # a CRAFT directory
        counts = craftrdf.query(store, "annotation-counts", set="UBERON_EXT")
        rows = counts.records()                                        # [{"set": ..., "annotations": 14910}, ...]
        index = craftrdf.similarity_index(store)                       # Wang similarity
        index.similarity("UBERON:0000955", "UBERON:0001017")

Each function's docstring says what it does and which module has every option; the guide
(docs/guide.md) walks through all of them.
"""

import typing as _typing
from importlib.metadata import PackageNotFoundError as _PackageNotFoundError
from importlib.metadata import version as _version
from types import MappingProxyType as _MappingProxyType

from .core._lazy import lazy_exports as _lazy_exports

if _typing.TYPE_CHECKING:
    from ._api import (
        annotate,
        build,
        evaluate,
        export,
        index,
        load,
        open,
        query,
        serve,
        similarity_index,
        sweep,
        train,
        view,
    )
    from .analysis.similarity.wang import WangIndex
    from .core.errors import CraftrdfError
    from .core.model import Annotation, Document, Span
    from .matching.matcher.config import MatcherConfig
    from .querying.library import QueryResult
    from .querying.sets import SetRef
    from .store.local import AnnotationStore, ReadableStore, WritableStore
    from .store.remote import RemoteStore

# The public names are imported on first use (PEP 562): a process that needs one module (a
# server worker, a CLI command, ``import craftrdf.store.local``) then starts without numpy, scipy and the
# rest that ``craftrdf._api`` pulls in: 0.1 s instead of 0.6 s on a quiet machine, paid by every
# spawned worker and every test that runs a child process.
_HOMES = _MappingProxyType(
    {
        **dict.fromkeys(("annotate", "build", "evaluate", "export", "index", "load", "open", "query"), "_api"),
        **dict.fromkeys(("serve", "similarity_index", "sweep", "train", "view"), "_api"),
        "CraftrdfError": "core.errors",
        "MatcherConfig": "matching.matcher.config",
        **dict.fromkeys(("Annotation", "Document", "Span"), "core.model"),
        "QueryResult": "querying.library",
        "RemoteStore": "store.remote",
        "SetRef": "querying.sets",
        "WangIndex": "analysis.similarity.wang",
        **dict.fromkeys(("AnnotationStore", "ReadableStore", "WritableStore"), "store.local"),
    }
)


__getattr__, __dir__ = _lazy_exports(__name__, _HOMES)


try:
    __version__ = _version("craftrdf")
except _PackageNotFoundError:  # pragma: no cover - running from a tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "Annotation",
    "AnnotationStore",
    "CraftrdfError",
    "Document",
    "MatcherConfig",
    "QueryResult",
    "ReadableStore",
    "RemoteStore",
    "SetRef",
    "Span",
    "WangIndex",
    "WritableStore",
    "__version__",
    "annotate",
    "build",
    "evaluate",
    "export",
    "index",
    "load",
    "open",
    "query",
    "serve",
    "similarity_index",
    "sweep",
    "train",
    "view",
]
