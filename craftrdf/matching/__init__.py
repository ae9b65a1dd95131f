"""Annotating text: the dictionary matcher, its parameter sweeps and the trained matcher."""
