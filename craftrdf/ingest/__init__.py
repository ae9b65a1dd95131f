"""Readers that turn files (OBO, Knowtator XML, BioNLP, mapping files) into records and quads."""
