"""The closed LCA ontology (package data ``lcabot/data/ontology.json``): node types, relation types with their allowed
subject and object types, the concept alias map, and the sentence cues of the offline extractor.

Names are matched as the field writes them: a name holding an upper-case letter (an acronym or formula such as
``CO2``, ``CO``, ``Co``, ``DQR``, ``EoL``) only with that exact case, so carbon dioxide, carbon monoxide and
cobalt never meet; other names in any case and with a plural ``s``. Text is NFKC-normalised first, so ``CO₂`` is
``CO2``.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

ONTOLOGY_PATH = resources.files("lcabot") / "data" / "ontology.json"
_DASHES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2014": "-", "\u2010": "-", "\u2011": "-"})
_WS = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFKC (subscripts and ligatures), one kind of dash, single spaces: the form names are matched in."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text).replace("\u00ad", "").translate(_DASHES)).strip()


def name_key(name: str) -> str:
    """The identity of a name for resolution: normalised; an acronym or formula (an upper-case letter after the
    first character, or a digit) keeps its case, other names are lower-cased and lose a plural ending
    (``system boundaries`` → ``system boundary``, ``LCAs`` stays apart from ``LCA`` only by its case rule)."""
    text = normalise(name)
    if is_acronym(text):
        return text
    text = text.lower()
    words = text.split(" ")
    last = words[-1]
    if len(last) > 4 and last.endswith("ies"):
        words[-1] = last[:-3] + "y"
    elif len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is")):
        words[-1] = last[:-1]
    return " ".join(words)


def is_acronym(name: str) -> bool:
    """An acronym, formula or short capitalised name (``CO2``, ``DQR``, ``EoL``, ``Co``): matched and resolved
    only in its own case."""
    return any(c.isupper() for c in name[1:]) or any(c.isdigit() for c in name) or (
        len(name) <= 3 and name[:1].isupper())


@dataclass(frozen=True)
class Mention:
    """A concept named in a text: ``start``/``end`` are offsets in the *normalised* text."""

    start: int
    end: int
    name: str  # canonical concept name
    type: str
    surface: str = ""  # as written in the text


@dataclass(frozen=True)
class Cue:
    relation: str
    pattern: re.Pattern[str]
    reverse: bool


class Ontology:
    """The ontology file, loaded.

    Attributes:
        node_types: the concept types (11); ``structural_types`` adds ``document`` and ``section``.
        relations: relation name → ``(domain, range)`` sets of allowed subject and object types (``*``: any).
        concepts: canonical name → type.
        aliases: :func:`name_key` of every canonical name and alias → ``(canonical name, type)``.
        broader: canonical name → the concepts it is a kind of (``cradle-to-gate`` → ``{system boundary}``).
        cues: the offline extractor's sentence patterns, in file order.
    """

    def __init__(self, data: dict[str, Any]) -> None:
        self.node_types: tuple[str, ...] = tuple(data["node_types"])
        self.structural_types: tuple[str, ...] = tuple(data["structural_types"])
        self.relations: dict[str, tuple[frozenset[str], frozenset[str]]] = {
            name: (frozenset(r["domain"]), frozenset(r["range"])) for name, r in data["relations"].items()
        }
        self.concepts: dict[str, str] = {}
        self.aliases: dict[str, tuple[str, str]] = {}
        self.broader: dict[str, frozenset[str]] = {}
        surfaces: list[tuple[str, str, str]] = []  # (surface, canonical, type)
        for concept in data["concepts"]:
            name, kind = concept["name"], concept["type"]
            if kind not in self.node_types:
                raise ValueError(f"ontology: concept {name!r} has unknown type {kind!r}")
            self.concepts[name] = kind
            if concept.get("broader"):
                self.broader[name] = frozenset(concept["broader"])
            for surface in (name, *concept["aliases"]):
                self.aliases.setdefault(name_key(surface), (name, kind))
                surfaces.append((normalise(surface), name, kind))
        for name, broader in self.broader.items():
            if not broader <= self.concepts.keys():
                raise ValueError(f"ontology: concept {name!r} is a kind of an unknown concept {sorted(broader)!r}")
        self.cues = tuple(Cue(c["relation"], re.compile(c["pattern"], re.I), bool(c.get("reverse")))
                          for c in data["cues"])
        for cue in self.cues:
            if cue.relation not in self.relations:
                raise ValueError(f"ontology: cue for unknown relation {cue.relation!r}")
        self._matchers = _matchers(surfaces)

    def canonical(self, name: str) -> tuple[str, str] | None:
        """``(canonical name, type)`` when ``name`` is a concept name or alias (by :func:`name_key`), else None."""
        return self.aliases.get(name_key(name))

    def allows(self, relation: str, subject_type: str, object_type: str) -> bool:
        """True when ``relation`` may link a ``subject_type`` node to an ``object_type`` node."""
        if relation not in self.relations:
            return False
        domain, range_ = self.relations[relation]
        return ("*" in domain or subject_type in domain) and ("*" in range_ or object_type in range_)

    def kinds(self, name: str) -> frozenset[str]:
        """The concept ``name`` (canonical) and the concepts it is a kind of: what a passage naming it names."""
        return frozenset({name, *self.broader.get(name, ())})

    def mentions(self, text: str) -> list[Mention]:
        """Concepts named in ``text`` (already :func:`normalise`\\ d), longest match first, left to right, never
        overlapping."""
        found: list[Mention] = []
        for pattern, table in self._matchers:
            for m in pattern.finditer(text):
                surface = m.group(1)
                hit = table.get(surface) or table.get(surface.lower()) or table.get(_singular(surface.lower()))
                if hit:
                    found.append(Mention(m.start(1), m.end(1), *hit, surface))
        found.sort(key=lambda x: (x.start, -(x.end - x.start)))
        kept: list[Mention] = []
        for mention in found:
            if not kept or mention.start >= kept[-1].end:
                kept.append(mention)
        return kept


def _singular(word: str) -> str:
    return word[:-2] if word.endswith("es") else word[:-1] if word.endswith("s") else word


def _matchers(surfaces: list[tuple[str, str, str]]) -> list[tuple[re.Pattern[str], dict[str, tuple[str, str]]]]:
    """One exact-case and one case-insensitive alternation (longest surface first)."""
    exact: dict[str, tuple[str, str]] = {}
    loose: dict[str, tuple[str, str]] = {}
    for surface, name, kind in surfaces:
        if is_acronym(surface) or any(c.isupper() for c in surface):
            exact.setdefault(surface, (name, kind))
        else:
            loose.setdefault(surface.lower(), (name, kind))
    out = []
    # an acronym or formula followed by a space and a digit is a split subscript ("CO 2" is CO2, not CO), and one
    # followed by a private-use glyph is a formula the PDF drew with a symbol font
    for table, flags, plural, after in ((exact, 0, "", r"|\s\d|[\ue000-\uf8ff]"), (loose, re.I, r"(?:e?s)?", "")):
        alternation = "|".join(re.escape(s) for s in sorted(table, key=len, reverse=True))
        out.append((re.compile(rf"(?<![\w-])((?:{alternation}){plural})(?!\w|-\w{after})", flags), table))
    return out


@cache
def load(path: Traversable = ONTOLOGY_PATH) -> Ontology:
    """The ontology at ``path`` (cached).

    Raises:
        FileNotFoundError: the file is missing; ValueError: a concept or cue names an unknown type, relation or
        broader concept.
    """
    return Ontology(json.loads(path.read_text(encoding="utf-8")))
