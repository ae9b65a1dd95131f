"""Which optional extra of ``pyproject.toml`` brings each module that is not a base dependency.

A command that imports one of them on a base install fails with one line naming the extra
(:func:`missing_extra`), not with Python's ``ModuleNotFoundError``. tests/test_packaging.py
checks this table against the imports of every module of the package and the extras of the
installed distribution.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from types import MappingProxyType

from .errors import MissingExtraError

#: top-level import name -> the extra that installs its distribution
EXTRA_OF_MODULE = MappingProxyType(
    {
        "starlette": "server",
        "uvicorn": "server",
        "distributed": "dask",
        "rdflib": "rdflib",
        "oxrdflib": "rdflib",
        "owlready2": "owl",
        "oaklib": "oak",
    }
)


def missing_extra(exc: ModuleNotFoundError) -> MissingExtraError | None:
    """The one-line error for ``exc`` when the missing module belongs to an extra, else None.

    None means the module is not optional: a broken install or a bug, which keeps its traceback.
    """
    top = (exc.name or "").partition(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    if extra is None:
        return None
    return MissingExtraError(f"{top} is not installed: this needs the {extra} extra: pip install 'craftrdf[{extra}]'")


@contextmanager
def needs_extra() -> Iterator[None]:
    """Turn a ``ModuleNotFoundError`` of an optional module raised inside into :class:`MissingExtraError`."""
    try:
        yield
    except ModuleNotFoundError as exc:
        error = missing_extra(exc)
        if error is None:
            raise
        raise error from exc
