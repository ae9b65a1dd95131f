"""Stores: the contract every store meets, the local Oxigraph store, the remote SPARQL store, batch replacement."""
