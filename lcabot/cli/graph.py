"""``lcabot graph build | stats | show ENTITY``: the knowledge graph of the local library."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lcabot import messages
from lcabot.graph import ontology
from lcabot.graph.build import load, stats
from lcabot.graph.sync import sync_fragments
from lcabot.wiring import Deps

if TYPE_CHECKING:
    import networkx as nx

console = Console(soft_wrap=True)


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``graph`` subcommand to the ``lcabot`` parser's subcommands."""
    g = sub.add_parser("graph", help="the LCA knowledge graph: build, stats, show ENTITY")
    g_sub = g.add_subparsers(required=True, metavar="WHAT")
    b = g_sub.add_parser("build", help="extract what is missing (resumes after a stop) and rebuild the graph")
    b.set_defaults(func=cmd_build)
    s = g_sub.add_parser("stats", help="nodes, edges, types, top entities and merges")
    s.add_argument("--json", action="store_true", help="print one JSON object")
    s.set_defaults(func=cmd_stats)
    sh = g_sub.add_parser("show", help="one entity with its facts and citations")
    sh.add_argument("entity", help="a concept name or alias, e.g. CFF, GWP, 'carbon dioxide'")
    sh.set_defaults(func=cmd_show)


def cmd_build(args: argparse.Namespace, deps: Deps) -> int:
    done = sync(deps, progress=lambda text: console.print(escape(text)))
    graph = load(deps.artifacts)
    if graph is None:  # nothing indexed: no graph was written
        console.print(messages.no_graph_yet())
        return 1
    figures = stats(graph)
    console.print(f"graph: {figures['nodes']} nodes, {figures['edges']} edges from {figures['documents']} documents "
                  f"({done['extracted']} extracted, {done['removed']} removed) in {done['seconds']:.1f} s")
    return 0


def sync(deps: Deps, progress: Callable[[str], object]) -> dict[str, Any]:
    """:func:`lcabot.graph.sync.sync_fragments` on ``deps``' library."""
    s = deps.settings
    return sync_fragments(deps.index, deps.artifacts, deps.graph_extractor, deps.embedder, max_pdf_mb=s.max_pdf_mb,
                          max_pages=s.max_pages, progress=progress)


def _graph(deps: Deps) -> nx.MultiDiGraph[str] | None:
    """The local merged graph, or ``None`` after telling the user how to build one."""
    try:
        graph = load(deps.artifacts)
    except (ValueError, KeyError, TypeError):
        console.print(messages.graph_unreadable())
        return None
    if graph is None:
        console.print(messages.no_graph_yet())
    return graph


def cmd_stats(args: argparse.Namespace, deps: Deps) -> int:
    graph = _graph(deps)
    if graph is None:
        return 1
    figures = stats(graph)
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
        return 0
    console.print(f"{figures['documents']} documents → {figures['nodes']} nodes ({figures['concepts']} concepts), "
                  f"{figures['edges']} edges")
    table = Table("node type", "count")
    for kind, n in figures["node_types"].items():
        table.add_row(kind, str(n))
    console.print(table)
    table = Table("relation", "count")
    for rel, n in figures["relations"].items():
        table.add_row(rel, str(n))
    console.print(table)
    table = Table("top entity", "type", "mentions")
    for name, kind, n in figures["top_entities"]:
        table.add_row(escape(name), kind, str(n))
    console.print(table)
    r, e = figures["resolution"], figures["extraction"]
    console.print(f"merges: {r['alias']} by alias, {r['key']} by name form, {r['embedding']} by embedding "
                  f"similarity; {r['types']} names seen with two types resolved")
    console.print(f"extraction: {e.get('triples', 0)} triples, {e.get('dropped', 0)} dropped as off-ontology, "
                  f"{e.get('failed_chunks', 0)} chunks fell back to the offline extractor")
    return 0


def cmd_show(args: argparse.Namespace, deps: Deps) -> int:
    graph = _graph(deps)
    if graph is None:
        return 1
    node = find_node(graph, args.entity)
    if node is None:
        console.print(escape(messages.no_such_entity(args.entity)))
        return 1
    data = graph.nodes[node]
    console.print(f"[bold]{escape(data['name'])}[/] ({data['type']}), {data.get('mentions', 0)} mentions")
    for c in data["citations"]:
        console.print(f"  {_where(graph, c)}: “{escape(c.get('quote', ''))}”")
    edges = [(s, t, d) for s, t, d in graph.out_edges(node, data=True)]
    edges += [(s, t, d) for s, t, d in graph.in_edges(node, data=True)]
    for s, t, d in sorted(edges, key=lambda e: (-e[2]["weight"], e[2]["relation"], e[0], e[1])):
        console.print(f"\n{escape(graph.nodes[s]['name'])} —{d['relation'].replace('_', ' ')}→ "
                      f"{escape(graph.nodes[t]['name'])}  (weight {d['weight']})")
        for c in d["citations"][:2]:
            console.print(f"  {_where(graph, c)}: “{escape(c.get('quote', '')[:300])}”")
    return 0


def find_node(graph: nx.MultiDiGraph[str], entity: str) -> str | None:
    """The node named ``entity``: an ontology name or alias, else a node name (any case)."""
    canonical = ontology.load().canonical(entity)
    if canonical and f"{canonical[1]}:{canonical[0]}" in graph:
        return f"{canonical[1]}:{canonical[0]}"
    wanted = entity.strip().casefold()
    return next((n for n in sorted(graph.nodes) if str(graph.nodes[n]["name"]).casefold() == wanted), None)


def _where(graph: nx.MultiDiGraph[str], citation: dict[str, Any]) -> str:
    title = graph.graph.get("documents", {}).get(citation["doc_id"], citation["doc_id"])
    section = f", {citation['section']}" if citation.get("section") else ""
    return f"{title}{section}, p. {citation.get('page_label') or citation['page']}"
