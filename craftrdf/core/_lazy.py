"""Public names of a package imported from their modules on first use (PEP 562).

A process that needs one module (a server worker, a CLI command, ``import craftrdf.store.local``)
then starts without what the package's other modules pull in (numpy, Starlette, ...).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` for names living in its submodules.

    ``homes`` maps each public name to its module, relative to ``package`` (``"store"`` for
    ``package.store``). Assign the pair to the package's ``__getattr__, __dir__``; an unknown
    name raises :class:`AttributeError` as a plain module would.
    """

    def getattr_(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f".{home}", package), name)

    def dir_() -> list[str]:
        return sorted({*vars(sys.modules[package]), *homes})

    return getattr_, dir_
