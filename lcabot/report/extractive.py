"""The offline filler: each field is filled with verbatim sentences (or table rows) of the study. No text is
written that the study does not contain; a field with no admissible sentence stays ``[Information not provided]``.

Candidates are the units of the passages retrieved for the field's query, plus (a study being small) every other
unit of the study that matches the field's cue, ranked below the retrieved ones. A unit is admitted only when it
matches the cue; it is ranked by cosine similarity to the query, the rank of its passage and whether it speaks of
this study, whether it uses the field's preferred wording and is a whole sentence, and ranked down when it cites
other work or lies in a paragraph comparing with the literature. Lines the parser cut off are not quoted.
"""

from __future__ import annotations

import re

import numpy as np

from lcabot.ingest.normalize import match_key
from lcabot.report.model import FieldResult
from lcabot.report.study import Study
from lcabot.report.template import FieldSpec, SectionSpec, field_specs
from lcabot.report.units import CITATION, OWN_STUDY, Unit

_WHOLE = re.compile(r"^[A-Z0-9“\"'(].*[.!?][\"'”’)]*$", re.S)

PASSAGES = 8  # passages retrieved per field (a study has tens to a few hundred)
MAX_CHARS = 700  # longer units are not quoted whole
WEIGHTS = (0.5, 0.15, 0.2, 0.15, 0.05)  # cosine, passage rank, speaks of this study, field's preferred wording,
# a whole sentence (capital to full stop)
PENALTIES = (0.2, 0.15)  # cites other work; lies in a literature-comparison paragraph
EMBED_AT_MOST = 40  # candidates per field ranked by cosine similarity (embedding is the costly step)


class ExtractiveFiller:
    """Fills fields with the best cue-matching units of the study (see the module docstring)."""

    name = "extractive"

    def __init__(self, study: Study, passages: int = PASSAGES) -> None:
        self._study = study
        self._k = passages

    def candidates(self, spec: FieldSpec) -> list[tuple[Unit, int]]:
        """Admissible units as ``(unit, passage rank)``; units found only by the cue scan get rank ``k``."""
        retrieved = self._study.retrieve_units(spec.query, self._k)
        ranks = {u.order: r for u, r in retrieved}
        return [(u, ranks.get(u.order, self._k)) for u in self._study.all_units() if self._admits(spec, u)]

    def _admits(self, spec: FieldSpec, unit: Unit) -> bool:
        if not unit.usable or not spec.min_chars <= len(unit.text) <= MAX_CHARS:
            return False
        if unit.cites_other and not spec.other_studies:
            return False
        if spec.exclude is not None and spec.exclude.search(unit.text):
            return False
        if (unit.kind == "table" and not spec.tables) or (not spec.citing and CITATION.search(unit.text)):
            return False
        if unit.literature and not spec.literature:
            return False
        if unit.fragment and spec.min_chars >= 25:  # cut-off lines; short fields (dates) are labels, not sentences
            return False
        return spec.cue.search(unit.text) is not None

    def rank(self, spec: FieldSpec) -> list[Unit]:
        """Admissible units, best first."""
        units, cheap = self._shortlist(spec)
        if not units:
            return []
        score = WEIGHTS[0] * self._study.similarity(spec.query, units) + cheap
        return [units[int(i)] for i in np.argsort(-score, kind="stable")]

    def _shortlist(self, spec: FieldSpec) -> tuple[list[Unit], np.ndarray]:
        """The :data:`EMBED_AT_MOST` candidates with the best score before cosine similarity, and that score."""
        found = self.candidates(spec)
        if not found:
            return [], np.zeros(0)
        rank = np.array([1.0 / (1 + r) if r < self._k else 0.0 for _, r in found])
        features = np.array([[
            1.0 if OWN_STUDY.search(u.text) else 0.0,
            1.0 if spec.prefer is not None and spec.prefer.search(u.text) else 0.0,
            1.0 if _WHOLE.match(u.text) else 0.0,
            -1.0 if CITATION.search(u.text) else 0.0,
            -1.0 if u.literature else 0.0,
        ] for u, _ in found])
        cheap = WEIGHTS[1] * rank + features @ np.array([*WEIGHTS[2:], *PENALTIES])
        keep = np.argsort(-cheap, kind="stable")[:EMBED_AT_MOST]
        return [found[int(i)][0] for i in keep], cheap[keep]

    def fill_all(self, study: Study | None = None) -> list[FieldResult]:
        """Every field of the template, in order. Queries and shortlisted units are embedded in two batches."""
        specs = field_specs()
        self._study.prime([spec.query for _, spec in specs])
        self._study.prime([], [u for _, spec in specs for u in self._shortlist(spec)[0]])
        return [self.fill(section, spec) for section, spec in specs]

    def fill(self, section: SectionSpec, spec: FieldSpec) -> FieldResult:
        picked: list[Unit] = []
        for unit in self.rank(spec):
            if any(_overlaps(unit, p) for p in picked):
                continue
            picked.append(unit)
            if len(picked) == spec.max_quotes:
                break
        return FieldResult(spec.key, spec.label, section.title, spec.clause,
                           tuple(self._study.quote(u) for u in picked))


def _overlaps(a: Unit, b: Unit) -> bool:
    ka, kb = match_key(a.text), match_key(b.text)
    return ka in kb or kb in ka
