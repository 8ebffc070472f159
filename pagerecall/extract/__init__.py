"""Turning source files into pages: PDF and text-layer extraction."""
