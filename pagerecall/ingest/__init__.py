"""Ingestion: reading, chunking and embedding a corpus into an index generation."""
