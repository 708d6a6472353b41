"""``lcabot graph build | stats | show ENTITY``: the knowledge graph of the local library."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from lcabot import messages, wiring
from lcabot.config import Settings
from lcabot.errors import ObjectNotFoundError
from lcabot.graph import ontology
from lcabot.graph.build import FRAGMENT_PREFIX, load, rebuild, stats, valid_fragment, write_fragment
from lcabot.graph.fragments import FORMAT, fragment_key

console = Console(soft_wrap=True)


def add_parser(sub: argparse._SubParsersAction) -> None:
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


def sync_fragments(settings: Settings, index, embedder, progress=print) -> dict:
    """Make the local artifacts match the index: a fragment for every indexed document that lacks a current one
    (re-parsing its file), none for documents no longer indexed, then the merged graph. A stopped build resumes
    where it stopped: documents whose fragment is current are skipped.

    Returns:
        ``{"extracted", "removed", "skipped_missing_file", "seconds", "rounds"}``.
    """
    from lcabot.ingest.chunking import chunk_document
    from lcabot.ingest.pdf import ParsedDocument
    from lcabot.ingest.pipeline import parse_document

    started = time.perf_counter()
    store = wiring.build_artifacts(settings)
    onto = ontology.load()
    extractor = wiring.build_graph_extractor(settings)
    documents = index.documents()
    wanted = {fragment_key(d.source_key): d for d in documents}
    extracted = missing = 0
    for key, record in wanted.items():
        if _current(store, key, record.doc_id):
            continue
        path = Path(record.source_key)
        if not path.is_file():
            missing += 1
            progress(f"skipped {record.source}: its file {path} is gone (remove it with `lcabot remove`)")
            continue
        parsed = parse_document(path.read_bytes(), record.source, settings.max_pdf_mb, settings.max_pages)
        if isinstance(parsed, ParsedDocument):
            write_fragment(store, record, chunk_document(parsed, record.doc_id, record.source), extractor, onto)
            extracted += 1
            progress(f"graph fragment of {record.source}")
    removed = 0
    indexed = {fragment_key(d.source_key) for d in index.documents()}  # now: an ingest may have run meanwhile
    for key in store.keys(FRAGMENT_PREFIX):
        if key not in indexed:
            store.delete(key)
            removed += 1
    result = rebuild(store, onto, embedder)
    return {"extracted": extracted, "removed": removed, "skipped_missing_file": missing,
            "seconds": time.perf_counter() - started, "rounds": result.rounds}


def _current(store, key: str, doc_id: str) -> bool:
    try:
        fragment = json.loads(store.get(key))
    except (ObjectNotFoundError, ValueError):  # missing, not JSON, not UTF-8: extract again
        return False
    return valid_fragment(fragment) and fragment["doc_id"] == doc_id and fragment["format"] == FORMAT


def cmd_build(args: argparse.Namespace, settings: Settings) -> int:
    embedder = wiring.build_embedder(settings)
    done = sync_fragments(settings, wiring.build_index(settings), embedder,
                          progress=lambda text: console.print(escape(text)))
    figures = stats(load(wiring.build_artifacts(settings)))
    console.print(f"graph: {figures['nodes']} nodes, {figures['edges']} edges from {figures['documents']} documents "
                  f"({done['extracted']} extracted, {done['removed']} removed) in {done['seconds']:.1f} s")
    return 0


def _graph(settings: Settings):
    """The local merged graph, or ``None`` after telling the user how to build one."""
    try:
        graph = load(wiring.build_artifacts(settings))
    except (ValueError, KeyError, TypeError):
        console.print(messages.graph_unreadable())
        return None
    if graph is None:
        console.print(messages.no_graph_yet())
    return graph


def cmd_stats(args: argparse.Namespace, settings: Settings) -> int:
    graph = _graph(settings)
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


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    graph = _graph(settings)
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


def find_node(graph, entity: str) -> str | None:
    """The node named ``entity``: an ontology name or alias, else a node name (any case)."""
    canonical = ontology.load().canonical(entity)
    if canonical and f"{canonical[1]}:{canonical[0]}" in graph:
        return f"{canonical[1]}:{canonical[0]}"
    wanted = entity.strip().casefold()
    return next((n for n, d in sorted(graph.nodes(data=True)) if d["name"].casefold() == wanted), None)


def _where(graph, citation: dict) -> str:
    title = graph.graph.get("documents", {}).get(citation["doc_id"], citation["doc_id"])
    section = f", {citation['section']}" if citation.get("section") else ""
    return f"{title}{section}, p. {citation.get('page_label') or citation['page']}"
