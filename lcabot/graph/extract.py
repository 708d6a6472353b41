"""Concept and relation extraction from chunks, under the closed ontology.

Every result keeps its evidence: the chunk, the PDF page and the quotable unit (a sentence or table row of the
evidence ledger, :func:`lcabot.answer.ledger.quotable_units`) that states it, so a graph fact can be quoted and verified
like a passage.

:class:`OfflineExtractor` (no API key) finds concepts with the ontology's alias map and relations with its sentence
cues: two neighbouring concepts in one sentence with a cue in the short gap between them and no negation (``… the EF
method covers climate change …``). A candidate whose subject and object types the relation does not allow is dropped
and counted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from lcabot.answer.ledger import quotable_units
from lcabot.graph.ontology import Mention, Ontology, normalise
from lcabot.models import Chunk

MAX_CUE_GAP = 45  # characters between two neighbouring concepts for a cue to link them
_LIST_GAP = re.compile(r"^\s*(?:,|;|and|or|, and|, or|as well as)\s*$", re.I)
_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|cannot|without)\b|n't\b", re.I)


@dataclass(frozen=True)
class Sighting:
    """A concept named in a quotable unit: canonical ``name`` and ``type``, and where (``page`` is 1-based)."""

    name: str
    type: str
    chunk_id: str
    page: int
    quote: str
    surface: str = ""  # the name as written, when it differs from ``name`` (an alias)


@dataclass(frozen=True)
class Triple:
    """``subject`` —``relation``→ ``object`` as stated by ``quote`` on ``page`` of chunk ``chunk_id``."""

    subject: str
    subject_type: str
    relation: str
    object: str
    object_type: str
    chunk_id: str
    page: int
    quote: str


@dataclass
class Extraction:
    """What one document yielded. ``dropped``: malformed or off-ontology triples left out; ``failed_chunks``:
    chunks an LLM could not do (they got the offline extraction instead)."""

    extractor: str
    sightings: list[Sighting] = field(default_factory=list)
    triples: list[Triple] = field(default_factory=list)
    dropped: int = 0
    failed_chunks: int = 0


class GraphExtractor(Protocol):
    """Chunks of one document → its :class:`Extraction` (never raises for a bad chunk or a failing LLM)."""

    name: str

    def extract(self, chunks: Sequence[Chunk]) -> Extraction: ...


@dataclass(frozen=True)
class Unit:
    """A quotable unit of a chunk with its concept mentions (offsets into ``normalised``)."""

    chunk_id: str
    page: int
    quote: str
    normalised: str
    mentions: tuple[Mention, ...]


def units(chunk: Chunk, ontology: Ontology) -> list[Unit]:
    """The chunk's quotable units, each with the concepts it names."""
    out = []
    for unit in quotable_units(chunk):
        norm = normalise(unit.text)
        out.append(Unit(chunk.chunk_id, chunk.page_at(unit.offset), unit.text, norm, tuple(ontology.mentions(norm))))
    return out


class OfflineExtractor:
    """Alias-map concepts and cue-phrase relations (see the module docstring)."""

    name = "offline"

    def __init__(self, ontology: Ontology) -> None:
        self._ontology = ontology

    def extract(self, chunks: Sequence[Chunk]) -> Extraction:
        result = Extraction(self.name)
        for chunk in chunks:
            self.extract_chunk(chunk, result)
        return result

    def extract_chunk(self, chunk: Chunk, into: Extraction) -> None:
        """Add one chunk's sightings and cue triples to ``into``."""
        for unit in units(chunk, self._ontology):
            into.sightings.extend(Sighting(m.name, m.type, unit.chunk_id, unit.page, unit.quote,
                                           m.surface if m.surface != m.name else "")
                                  for m in unit.mentions)
            self._relations(unit, into)

    def _relations(self, unit: Unit, into: Extraction) -> None:
        """Only neighbouring concepts (no other concept between them), a short gap holding a cue, and no negation
        in it: "carbon dioxide does not contribute to ozone depletion" states no relation."""
        mentions = unit.mentions
        seen: set[tuple[str, str, str]] = set()
        for i, (left, right) in enumerate(zip(mentions, mentions[1:], strict=False)):
            gap = unit.normalised[left.end:right.start]
            if len(gap) > MAX_CUE_GAP or left.name == right.name or _NEGATION.search(gap):
                continue
            cue = next((c for c in self._ontology.cues if c.pattern.search(gap)), None)
            if cue is None:
                continue
            pairs = [(right, left)] if cue.reverse else [(left, right)]
            if not cue.reverse:  # "covers climate change, acidification and eutrophication": each listed object
                for prev, nxt in zip(mentions[i + 1:], mentions[i + 2:], strict=False):
                    if not _LIST_GAP.match(unit.normalised[prev.end:nxt.start]):
                        break
                    pairs.append((left, nxt))
            for subject, obj in pairs:
                key = (subject.name, cue.relation, obj.name)
                if key in seen or subject.name == obj.name:
                    continue
                seen.add(key)
                if not self._ontology.allows(cue.relation, subject.type, obj.type):
                    into.dropped += 1
                    continue
                into.triples.append(Triple(subject.name, subject.type, cue.relation, obj.name, obj.type,
                                           unit.chunk_id, unit.page, unit.quote))
