"""Helpers the tests share: where the corpus is, the bundled sample as a store, raw-file readers, servers.

Import as ``from tests.helpers import ...`` (``tests`` is a package, so nothing touches ``sys.path``).
"""
