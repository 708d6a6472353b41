"""The LCA knowledge graph: the closed ontology, extraction per chunk, per-document fragments, the merged
networkx artifact with entity resolution, and the query-time facts fused into answers."""

from lcabot.graph.fragments import FRAGMENT_PREFIX, document_fragment, dumps, fragment_key

__all__ = ["FRAGMENT_PREFIX", "document_fragment", "dumps", "fragment_key"]
