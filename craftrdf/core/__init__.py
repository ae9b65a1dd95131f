"""The shared core: errors, RDF vocabulary, records, IRIs and CURIEs, the module registry, the SPARQL lexer."""
