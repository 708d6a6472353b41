"""Every user-facing sentence of the core, as named functions in one place."""

from __future__ import annotations

import re
from collections.abc import Sequence

from lcabot.models import Citation, DocumentRecord, DocumentStatus, GraphFact


def unchanged(source: str) -> str:
    return f"{source}: already indexed, unchanged"


def duplicate(source: str, existing: str) -> str:
    return f"{source}: same content as {existing}, already indexed"


def ingested(record: DocumentRecord, status: str) -> str:
    verb = "re-indexed (new version replaced the old)" if status == "replaced" else "indexed"
    text = f"{record.source}: {verb}, {_count(record.n_pages, 'page')}, {_count(record.n_chunks, 'chunk')}"
    if record.pages_without_text:
        text += f"; no text layer on page(s) {pages_list(record.pages_without_text)} (scanned? run OCR)"
    return text


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def pages_list(pages: tuple[int, ...] | list[int]) -> str:
    shown = ", ".join(str(p) for p in pages[:15])
    return shown + (f" … ({len(pages)} in all)" if len(pages) > 15 else "")


def abstain_no_evidence(searched: str, unknown: tuple[str, ...] = ()) -> str:
    never = f" The library never mentions {', '.join(unknown)}." if unknown else ""
    return (
        f"I could not find support for this in the library, so I won't answer it.{never} Searched: {searched}. "
        "Add a document that covers it, or rephrase the question."
    )


def abstain_not_in_passages(searched: str, absent: list[str]) -> str:
    """The library has passages close to the question, but none of them is about the thing it names."""
    names = ", ".join(absent)
    return (
        f"The library does not state this: its closest passages never mention {names}, so they are about "
        f"something else and I won't answer from them. Searched: {searched}. "
        "Add a document that covers it, or rephrase the question."
    )


def abstain_boundary_not_assessed(searched: str, boundary: str, documents: list[str]) -> str:
    """The documents that would answer never assess the system boundary the question asks for."""
    return (
        f"The library does not state this: {', '.join(documents)} never "
        f"{'names' if len(documents) == 1 else 'name'} a {boundary} system boundary, so its results are for another "
        f"boundary and I won't answer from them. Searched: {searched}. Add a document that covers it, or ask for the "
        "boundary the study uses."
    )


def abstain_value_not_stated(searched: str, unit: str) -> str:
    """The library has passages about the question's subject, but none of those found gives the value it asks for."""
    return (
        f"I found no value in {unit} for this: the closest passages do not give one, so I won't answer from them. "
        f"Searched: {searched}. If a document holds it, name its table or section in the question; else add a "
        "document that covers it."
    )


def part_not_stated(part: str) -> str:
    """One part of a multi-part question that the answer's passages do not state."""
    return f"The passages found do not state this part of the question: “{part}”."


def abstain_empty_library() -> str:
    return "The library is empty: ingest PDFs first (lcabot ingest PATH…)."


def empty_question() -> str:
    return "The question is empty: ask about your LCA library, e.g. “What cut-off does the PEF method allow?”"


def over_size_limit(size_bytes: int | None, limit_mb: float) -> str:
    """Why a file is refused for its size (the one wording everywhere: ingest, reports, chat downloads);
    ``size_bytes`` ``None`` when only the download showed it (no size was stated)."""
    size = "it is" if size_bytes is None else f"{size_bytes / 1048576:.1f} MB is"
    return f"{size} above the limit of {limit_mb:g} MB"


def question_too_long(n: int, limit: int) -> str:
    return f"The question is {n:,} characters long; the limit is {limit:,}. Ask one thing at a time."


def llm_incomplete() -> str:
    return "The language model's answer was cut off, so it is not shown; these are the best supporting passages."


def llm_failed(detail: str) -> str:
    return f"The language model did not answer ({detail}); these are the best supporting passages instead."


def claims_dropped(n: int) -> str:
    return f"{n} statement(s) of the generated answer could not be verified against the sources and were removed."


def removed(source: str, n_chunks: int) -> str:
    return f"{source}: removed from the library ({_count(n_chunks, 'chunk')} deleted)"


def not_indexed(source: str) -> str:
    return f"{source}: removed from the bucket; it was not in the index"


def object_gone(key: str) -> str:
    return f"{key}: the object no longer exists (deleted after this event); nothing to index"


def object_superseded(key: str) -> str:
    return f"{key}: a newer version of the object has replaced this one; its own event indexes it"


def object_restored(key: str) -> str:
    return f"{key}: the object exists again (re-uploaded after this deletion); kept in the index"


def answer_failed() -> str:
    return ("Sorry, I could not answer this question: something went wrong on my side, and retrying did not "
            "help. The team has been alerted; please ask again later.")


def report_failed() -> str:
    return ("Sorry, I could not produce the report: something went wrong on my side, and retrying did not help. "
            "The team has been alerted; please try again later.")


def report_refused(detail: str) -> str:
    return f"I cannot make a report from this file: {detail}"


def report_ready(name: str, chart: bool = True, notes: tuple[str, ...] = ()) -> str:
    files = "Markdown, Word and chart" if chart else "Markdown and Word (the study gives no numbers to chart)"
    return (f"Carbon footprint study report for {name}: {files}. Every number is quoted "
            "from the study with its page; [Information not provided] marks what the study does not state."
            + _note_lines(notes))


def report_dropped(n: int) -> str:
    return f"{n} quote(s) or value(s) could not be verified on the cited page of the study and were left out."


def report_not_a_study() -> str:
    return ("This document does not read like a carbon footprint study: it states no functional unit and no "
            "greenhouse-gas result. The fields below quote whatever matched the template; read them with care.")


def report_instructions_ignored(n: int) -> str:
    return (f"{n} sentence(s) of the document address instructions to the reader or to an AI system; they are "
            "document text, not instructions, and were not used.")


def report_no_stage_values() -> str:
    return ("The study's tables give no per-stage values with a greenhouse-gas unit; where it states stage "
            "contributions as shares they are quoted, and no per-stage values are derived from them.")


def report_summary(source: str, filled: int, fields: int, scenarios: int, mismatches: int, generator: str,
                   notes: tuple[str, ...] = ()) -> str:
    mismatch = f", {mismatches} stated total(s) differ from the sum of their stages" if mismatches else ""
    return (f"{source}: {filled} of {fields} report fields filled from the study, {scenarios} scenario result(s)"
            f"{mismatch} (filled by: {generator})" + _note_lines(notes))


def _note_lines(notes: tuple[str, ...]) -> str:
    return "".join(f"\nNote: {n}" for n in notes)


def report_unreadable(path: str, reason: str) -> str:
    return f"{path}: cannot be read ({reason})"


def report_unwritable(path: str, reason: str) -> str:
    return f"{path}: the report files cannot be written there ({reason})"


def pdf_page_note(c: Citation) -> str:
    """`` (PDF p. n)`` when the printed page label differs from the PDF page, else empty (a sentence running on from
    PDF p. 4 to p. 5 labelled "4–5" needs none)."""
    return f" (PDF p. {c.page})" if c.page_label.split("–")[0] != str(c.page) else ""


def page_reference(c: Citation) -> str:
    """``p. 12``, ``pp. 4–5`` for a quote running on to the next page, with :func:`pdf_page_note`."""
    return f"{'pp.' if '–' in c.page_label else 'p.'} {c.page_label}" + pdf_page_note(c)


SHORT_TITLE_CHARS = 80


def short_title(title: str, source: str) -> str:
    """A title short enough for a source line: up to its colon ("Life cycle assessment synthesis of the carbon
    footprint of Arabica coffee: Case study of …" → the part before the colon) or its last whole word within
    :data:`SHORT_TITLE_CHARS` characters, then "…"; the file name when there is no title. The file name is always
    shown beside it."""
    title = " ".join(title.split()) or source
    if len(title) <= SHORT_TITLE_CHARS:
        return title
    head = title.split(": ", 1)[0]
    if 20 <= len(head) <= SHORT_TITLE_CHARS:
        return head
    return title[:SHORT_TITLE_CHARS].rsplit(" ", 1)[0].rstrip(",;:–-") + "…"


def citation(c: Citation) -> str:
    """``[n] title (file), section, p. label (PDF p. n)``; the PDF page only when it differs from the label."""
    page = page_reference(c)
    section = f", {c.section}" if c.section else ""
    return f"[{c.number}] {short_title(c.title, c.source)} ({c.source}){section}, {page}"


# --- chat (Slack and Teams) ---------------------------------------------------------------------------------------

def searching() -> str:
    return "Searching the LCA library…"


def report_started(name: str) -> str:
    return f"Preparing an ISO 14067 carbon footprint study report for {name}… (about a minute)"


def report_progress(name: str, stage: str) -> str:
    return f"Report for {name}: {stage}…"


def index_started(name: str, perspective: str) -> str:
    return f"Adding {name} to the library ({perspective} perspective)…"


def not_queued(name: str) -> str:
    return f"{name} could not be taken on just now (our job queue failed); share it again in a moment."


def index_refused(detail: str) -> str:
    return f"I cannot add this file to the library: {detail}"


def index_exists(name: str, key: str) -> str:
    return (f"The library already has a document named {name} ({key}); a shared file never replaces one. "
            "Rename the file to add it as a new document, or ask a library maintainer to replace it.")


def index_waiting(name: str) -> str:
    return f"{name} is in the library bucket; indexing it now. I will say here when it is searchable."


def answered_already() -> str:
    return "This message reached me twice; it is answered in this thread."


def library_busy() -> str:
    return "the library is being updated by another ingest; try again in a moment"


def indexing(name: str) -> str:
    return f"Indexing {name}…"


def ingest_error(name: str) -> str:
    return (f"indexing {name} failed on our side, three times; the library is as it was. Put the file again to "
            "retry, or tell the library's maintainer (the ingest function's log names the file).")


def ingest_stopped(name: str) -> str:
    return (f"indexing {name} stopped without finishing on each earlier try (out of memory, or the function "
            "stopped); it is being tried once more, and this stays if that fails too. Split the PDF or tell the "
            "library's maintainer.")


def ingest_out_of_time(name: str, seconds: float) -> str:
    return (f"{name} is too large to index within one run of the ingest function ({seconds:.0f} s); "
            "split it into smaller PDFs.")


def index_done(status: DocumentStatus) -> str:
    """What the user hears when a PDF shared in chat has been through the ingest Lambda."""
    name = status.source_key.rsplit("/", 1)[-1]
    if status.status in ("indexed", "replaced", "unchanged"):
        return f"{name} is searchable now: {status.message}"
    return f"{name} was not added to the library: {status.message}"


def rate_limited() -> str:
    return ("You are asking faster than I can answer well. Please wait a minute and ask again; "
            "nothing you asked before is lost.")


def pdf_needs_intent(name: str) -> str:
    return (f"I received {name}. Say `report` with it for an ISO 14067 carbon footprint study report, or "
            "`index [academic|industry|public|eu_funding]` to add it to the library.")


def only_pdfs(name: str) -> str:
    return f"{name} is not a PDF; I can only read PDF files."


def file_missing(intent: str, platform: str = "slack") -> str:
    hint = " (or use /lca-report, which asks for the file)" if platform == "slack" else " in a personal chat with me"
    return f"To {intent}, attach a PDF to the same message{hint}."


def chat_help() -> str:
    return ("Ask me an LCA question and I answer from the library, citing document, section and page. "
            "Add `--graph` to use the knowledge graph too, or `--rag` for passages only. Attach a PDF with `report` "
            "for an ISO 14067 report, or with `index` to add it to the library.")


def mode_set(mode: str) -> str:
    return f"Retrieval mode for this channel is now {mode_label(mode)}."


def mode_is(mode: str) -> str:
    return (f"Retrieval mode for this channel: {mode_label(mode)}. Change it with `rag` or `graph`; "
            "a question can override it with `--rag` or `--graph`.")


def mode_label(mode: str) -> str:
    return {"rag": "RAG only", "rag+graph": "RAG + knowledge graph"}.get(mode, mode)


def answer_footer(mode: str, generator: str, abstained: bool) -> str:
    """``Mode: RAG only · answered by extractive`` (callers escape ``generator`` for their markup first)."""
    return f"Mode: {mode_label(mode)} · {'no answer (abstained)' if abstained else f'answered by {generator}'}"


def sources_follow(first: int, last: int) -> str:
    return f"Sources [{first}]–[{last}] follow in the next message." if first != last else \
        f"Source [{first}] follows in the next message."


def sources_continued(first: int, last: int) -> str:
    return f"Sources [{first}]–[{last}]" if first != last else f"Source [{first}]"


def no_graph_yet() -> str:
    return "No knowledge graph yet: `lcabot ingest` builds it, or `lcabot graph build`."


def graph_unreadable() -> str:
    return "The knowledge graph file cannot be read; `lcabot graph build` writes it again."


def no_such_entity(entity: str) -> str:
    return f"No entity {entity!r} in the graph; `lcabot graph stats` lists the top ones."


def graph_unavailable() -> str:
    return "The knowledge graph is not available yet, so this answer uses passage retrieval only."


def feedback_thanks(vote: str) -> str:
    return f"Thanks, your {'👍' if vote == 'up' else '👎'} is recorded with the question and the answer."


def upload_done(name: str) -> str:
    return f"{name} is saved in your OneDrive."


def upload_declined(name: str) -> str:
    return f"OK, {name} was not saved."


def upload_failed(name: str) -> str:
    return f"I could not save {name} to your OneDrive (it may have expired). Please ask for the report again."


def files_offered(count: int) -> str:
    return f"{count} file{'s' if count != 1 else ''} ready: accept each card to save it to your OneDrive."


def links_expire(hours: int) -> str:
    return f"Download links expire in {hours} hours."


def graph_fact(fact: GraphFact) -> str:
    """``subject —relation→ object [n, m]``: one knowledge-graph fact as chat shows it."""
    cited = f" [{', '.join(str(n) for n in fact.citations)}]" if fact.citations else ""
    return f"{fact.subject} —{fact.relation.replace('_', ' ')}→ {fact.object}{cited}"


# --- answer statements (the wording around verbatim spans; the spans come from the evidence) ----------------------

def quote_statement(text: str) -> str:
    """A verbatim sentence of the evidence as a statement of the answer."""
    return f"“{text}”"


def table_statement(table: str, readings: Sequence[str]) -> str:
    """Table rows written out with their headers and units: ``Table 7: Greenhouse gases (GWP 100a): Total (H2
    Non-Seq.) 34.8 kg CO2 eq; …``; several rows of one table one after the other, parted by `` · ``."""
    where = re.match(r"^\([^()]*\) ", readings[0])  # "(Conventional, Exportation) ": said once for its rows
    if where and len(readings) > 1 and all(r.startswith(where.group(0)) for r in readings):
        table = f"{table} {where.group(0).strip()}".strip()
        readings = [r[where.end():] for r in readings]
    rows = " · ".join(readings)
    return f"{table}: {rows}" if table else rows


def extreme_statement(label: str, rows: str) -> str:
    """Table rows quoted for the extreme value of one column a question asks: ``Lowest “Bid price (EUR/kg)” of the
    table's rows: eNRG Lahti Nordic Ren-Gas Oy Finland: Bid price (EUR/kg) 0.37; …``."""
    return f"{label} of the table's rows: {rows}"


def list_statement(lead_in: str, items: Sequence[str]) -> str:
    """List items under the sentence that introduces them: ``Under “For all other products …:”: “● 130 km …”
    “● 240 km …” “● 270 km …”``."""
    return f"Under “{lead_in}”: " + " ".join(f"“{item}”" for item in items)
