"""Ingestion: PDF bytes -> parsed structure (sections, tables, printed page labels) -> chunks -> the index, the graph
fragment and the document status."""
