"""Bibliographic metadata per file, and resolving a reference to its files and pages."""
