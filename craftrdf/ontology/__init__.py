"""An ontology graph read back as axioms, extension classes placed, and classification (reasoners)."""
