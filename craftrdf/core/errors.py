"""The exceptions and warnings craftrdf raises.

Every error a user can cause derives from :class:`CraftrdfError`; each also derives
from the builtin a caller would naturally catch, so ``except ValueError`` keeps working::

    CraftrdfError
    ├── InputError (ValueError)         bad input data; names the source and where in it
    │   ├── OboSyntaxError              an OBO line or stanza that cannot be read
    │   ├── AnnotationFormatError       a Knowtator / BioNLP file that cannot be read
    │   └── ValidationError             readable, but inconsistent (span outside text, ...)
    ├── QueryError (ValueError)         unknown query, bad parameter, SPARQL syntax
    ├── ConfigError (ValueError)        bad options, unknown set key or module
    ├── MissingExtraError (ImportError) an optional dependency is absent; names the extra that brings it
    └── StoreError (OSError)            the store cannot be opened or written
        └── StoreLockedError            another process holds the store for writing

    CraftrdfWarning (UserWarning)
    └── DataWarning                     recoverable data problem; the data is still loaded
"""

from __future__ import annotations


class CraftrdfError(Exception):
    """Base class of every error craftrdf raises on purpose."""


class InputError(CraftrdfError, ValueError):
    """Input data that cannot be used, located as precisely as the format allows.

    ``source`` is the file (or a description of the stream), ``line`` a 1-based line
    number when the format has lines, ``element`` a description of the XML element or
    record when it does not.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        line: int | None = None,
        element: str | None = None,
    ) -> None:
        self.message = message
        self.source = source
        self.line = line
        self.element = element
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.source or "<input>"
        if self.line is not None:
            where += f", line {self.line}"
        if self.element:
            where += f", {self.element}"
        return f"{where}: {self.message}"


class OboSyntaxError(InputError):
    """An OBO file has a line or stanza that cannot be read."""


class AnnotationFormatError(InputError):
    """An annotation file (Knowtator XML, Knowtator-2 XML, BioNLP) cannot be read."""


class ValidationError(InputError):
    """Annotations that parse but contradict their text or each other."""


class QueryError(CraftrdfError, ValueError):
    """A query that cannot be found, bound or parsed."""


class ConfigError(CraftrdfError, ValueError):
    """Options or registry entries that make no sense together."""


class MissingExtraError(CraftrdfError, ImportError):
    """A module of an optional extra is not installed; the message names the extra to install."""


class StoreError(CraftrdfError, OSError):
    """The store cannot be opened, read or written."""


class StoreLockedError(StoreError):
    """Another process has the store open for writing."""


class CraftrdfWarning(UserWarning):
    """Base class of craftrdf's warnings."""


class DataWarning(CraftrdfWarning):
    """A recoverable problem in input data; the data was loaded as described."""
