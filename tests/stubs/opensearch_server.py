"""A local stand-in for the OpenSearch REST API subset lcabot uses (no OpenSearch can run here; DESIGN.md §7).

A threaded HTTP server on 127.0.0.1 with in-memory indices. It answers with OpenSearch's response shapes and
refuses what OpenSearch (3.x, k-NN plugin) refuses: ``nmslib`` (no new indices since 3.0), a ``knn_vector`` without
``dimension`` or without ``index.knn: true``, unknown field types, analyzers, settings and URL parameters, documents
that break a ``strict`` mapping or carry a vector of the wrong length (or a zero vector under ``cosinesimil``), kNN
queries with a wrong-length vector, on a non-vector field or with k > 10 000, unknown query types, ``from + size`` over
``index.max_result_window`` (10 000), sorting on a text field, searching a field with ``index: false``, ``_bulk``
bodies without the final newline or with another content type than JSON/NDJSON, ``PUT`` on an existing index, and
anything on a missing one (``action.auto_create_index`` is taken to be false, so a write never creates an index).

Scoring is real enough to test ranking: Okapi BM25 as Lucene computes it (k1 = 1.2, b = 0.75, idf =
ln(1 + (N − n + 0.5) / (n + 0.5))) over an ``english`` analyzer close to OpenSearch's (UAX#29-like tokens, possessive
``'s`` removed, lower case, Lucene's English stop words with position gaps, the Porter stemmer); ``match_phrase`` on
token positions; exact kNN with the ``filter`` inside the ``knn`` clause applied before the top k are taken (efficient
filtering), while a kNN clause inside ``bool`` takes its top k over the whole index first (post-filtering), and
``_score`` per space type as the k-NN plugin computes it.

Visibility is modelled: a write is searchable only after a refresh (``refresh=true|wait_for`` on the request or
``POST /<index>/_refresh``), as with ``refresh_interval: -1``; ``auto_refresh=True`` makes every write visible at once.
``serverless=True`` plays an OpenSearch Serverless vector collection as lcabot must treat it: writes are visible at
once (eventual consistency, instantly), and the ``refresh`` parameter, ``_refresh``, ``_delete_by_query`` and custom
``_id``s on index/create are refused. ``sigv4=SigV4Check(...)`` verifies every request's AWS Signature V4 (403 when it
is missing or wrong). Every request is recorded; faults can be scripted (:meth:`OpenSearchStub.fail_next_bulk_items`,
:meth:`OpenSearchStub.fail_next_requests`).
"""

from __future__ import annotations

import copy
import fnmatch
import hashlib
import json
import math
import re
import secrets
import threading
import uuid
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import numpy as np

MAX_RESULT_WINDOW = 10_000
MAX_K = 10_000
MAX_TERMS = 65_536
MAX_DIMENSION = 16_000
K1, B = 1.2, 0.75
ENGINE_SPACES = {"faiss": {"l2", "innerproduct", "cosinesimil"}, "lucene": {"l2", "cosinesimil", "innerproduct"}}
ENGLISH_STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then there these they "
    "this to was will with".split()
)
_COMMON_PARAMS = {"pretty", "human", "error_trace"}
_PARAMS = {  # what each endpoint accepts besides _COMMON_PARAMS; anything else is "unrecognized" (400)
    "bulk": {"refresh", "timeout", "wait_for_active_shards", "routing", "pipeline", "require_alias"},
    "search": {"timeout", "preference", "routing", "request_cache", "allow_partial_search_results",
               "ignore_unavailable", "allow_no_indices", "expand_wildcards", "search_type", "typed_keys"},
    "msearch": {"max_concurrent_searches", "search_type", "typed_keys", "rest_total_hits_as_int"},
    "count": {"preference", "routing", "ignore_unavailable", "allow_no_indices", "expand_wildcards"},
    "delete_by_query": {"refresh", "conflicts", "wait_for_completion", "timeout", "scroll_size", "slices",
                        "requests_per_second", "wait_for_active_shards"},
    "refresh": {"ignore_unavailable", "allow_no_indices", "expand_wildcards"},
    "create_index": {"timeout", "master_timeout", "cluster_manager_timeout", "wait_for_active_shards"},
    "delete_index": {"timeout", "master_timeout", "cluster_manager_timeout", "ignore_unavailable"},
    "exists": {"local", "ignore_unavailable", "allow_no_indices", "expand_wildcards", "include_defaults"},
    "get_mapping": {"local", "ignore_unavailable", "allow_no_indices", "expand_wildcards", "master_timeout",
                    "cluster_manager_timeout"},
    "info": set(),
}
_SEARCH_KEYS = {"query", "size", "from", "_source", "sort", "search_after", "track_total_hits"}
_KNOWN_SETTINGS = {"index.knn", "index.number_of_shards", "index.number_of_replicas", "index.refresh_interval",
                   "index.max_result_window", "index.knn.algo_param.ef_search"}


# -- errors ----------------------------------------------------------------------------------------------------


class StubError(Exception):
    """An error answered in OpenSearch's shape: ``{"error": {"root_cause": [...], "type", "reason"}, "status"}``."""

    def __init__(self, status: int, kind: str, reason: str, *, search: str | None = None, plain: bool = False,
                 **extra: Any) -> None:
        super().__init__(f"{status} {kind}: {reason}")
        self.status = status
        cause = {"type": kind, "reason": reason, **extra}
        self.error: Any
        if plain:  # some REST-layer refusals answer a bare string: {"error": "…", "status": 406}
            self.error = reason
        elif search is not None:  # a failure inside a search: wrapped as all shards failing
            self.error = {"root_cause": [cause], "type": "search_phase_execution_exception", "reason": "all shards "
                          "failed", "phase": "query", "grouped": True,
                          "failed_shards": [{"shard": 0, "index": search, "node": "stub-node", "reason": cause}]}
        else:
            self.error = {"root_cause": [cause], **cause}

    def body(self) -> dict[str, Any]:
        return {"error": self.error, "status": self.status}


def _bad(reason: str, kind: str = "illegal_argument_exception", **extra: Any) -> StubError:
    return StubError(400, kind, reason, **extra)


def _mapper(reason: str) -> StubError:
    return StubError(400, "mapper_parsing_exception", reason)


def _query_error(index: str, reason: str, kind: str = "illegal_argument_exception") -> StubError:
    return StubError(400, kind, reason, search=index)


def _no_index(name: str) -> StubError:
    return StubError(404, "index_not_found_exception", f"no such index [{name}]", index=name,
                     **{"resource.type": "index_or_alias", "resource.id": name, "index_uuid": "_na_"})


# -- analysis --------------------------------------------------------------------------------------------------

Token = tuple[int, str]  # (position, term)
_STANDARD_TOKEN = re.compile(r"\w+(?:(?:[.'’]|(?<=\d),(?=\d))\w+)*")


def porter_stem(word: str) -> str:
    """Martin Porter's stemmer (the revised C version Lucene's ``porter_stem`` follows)."""
    if len(word) <= 2:
        return word
    return _Porter(word).stem()


class _Porter:
    def __init__(self, word: str) -> None:
        self.b = word
        self.k = len(word) - 1
        self.j = 0

    def cons(self, i: int) -> bool:
        ch = self.b[i]
        if ch in "aeiou":
            return False
        if ch == "y":
            return i == 0 or not self.cons(i - 1)
        return True

    def m(self) -> int:
        n, i = 0, 0
        while True:
            if i > self.j:
                return n
            if not self.cons(i):
                break
            i += 1
        i += 1
        while True:
            while True:
                if i > self.j:
                    return n
                if self.cons(i):
                    break
                i += 1
            i += 1
            n += 1
            while True:
                if i > self.j:
                    return n
                if not self.cons(i):
                    break
                i += 1
            i += 1

    def vowel_in_stem(self) -> bool:
        return any(not self.cons(i) for i in range(self.j + 1))

    def double_c(self, j: int) -> bool:
        return j >= 1 and self.b[j] == self.b[j - 1] and self.cons(j)

    def cvc(self, i: int) -> bool:
        if i < 2 or not self.cons(i) or self.cons(i - 1) or not self.cons(i - 2):
            return False
        return self.b[i] not in "wxy"

    def ends(self, s: str) -> bool:
        if len(s) > self.k + 1 or self.b[self.k - len(s) + 1:self.k + 1] != s:
            return False
        self.j = self.k - len(s)
        return True

    def set_to(self, s: str) -> None:
        self.b = self.b[:self.j + 1] + s + self.b[self.j + 1 + len(s):]
        self.k = self.j + len(s)

    def r(self, s: str) -> None:
        if self.m() > 0:
            self.set_to(s)

    def stem(self) -> str:
        self.step1ab()
        if self.k > 0:
            self.step1c()
            self.step2()
            self.step3()
            self.step4()
            self.step5()
        return self.b[:self.k + 1]

    def step1ab(self) -> None:
        if self.b[self.k] == "s":
            if self.ends("sses"):
                self.k -= 2
            elif self.ends("ies"):
                self.set_to("i")
            elif self.b[self.k - 1] != "s":
                self.k -= 1
        if self.ends("eed"):
            if self.m() > 0:
                self.k -= 1
        elif (self.ends("ed") or self.ends("ing")) and self.vowel_in_stem():
            self.k = self.j
            if self.ends("at"):
                self.set_to("ate")
            elif self.ends("bl"):
                self.set_to("ble")
            elif self.ends("iz"):
                self.set_to("ize")
            elif self.double_c(self.k):
                self.k -= 1
                if self.b[self.k] in "lsz":
                    self.k += 1
            elif self.m() == 1 and self.cvc(self.k):
                self.set_to("e")

    def step1c(self) -> None:
        if self.ends("y") and self.vowel_in_stem():
            self.b = self.b[:self.k] + "i" + self.b[self.k + 1:]

    _STEP2 = {
        "a": (("ational", "ate"), ("tional", "tion")), "c": (("enci", "ence"), ("anci", "ance")),
        "e": (("izer", "ize"),),
        "l": (("bli", "ble"), ("alli", "al"), ("entli", "ent"), ("eli", "e"), ("ousli", "ous")),
        "o": (("ization", "ize"), ("ation", "ate"), ("ator", "ate")),
        "s": (("alism", "al"), ("iveness", "ive"), ("fulness", "ful"), ("ousness", "ous")),
        "t": (("aliti", "al"), ("iviti", "ive"), ("biliti", "ble")), "g": (("logi", "log"),),
    }
    _STEP3 = {
        "e": (("icate", "ic"), ("ative", ""), ("alize", "al")), "i": (("iciti", "ic"),),
        "l": (("ical", "ic"), ("ful", "")), "s": (("ness", ""),),
    }
    _STEP4 = {
        "a": ("al",), "c": ("ance", "ence"), "e": ("er",), "i": ("ic",), "l": ("able", "ible"),
        "n": ("ant", "ement", "ment", "ent"), "o": ("ion", "ou"), "s": ("ism",), "t": ("ate", "iti"), "u": ("ous",),
        "v": ("ive",), "z": ("ize",),
    }

    def step2(self) -> None:
        for suffix, repl in self._STEP2.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                self.r(repl)
                return

    def step3(self) -> None:
        for suffix, repl in self._STEP3.get(self.b[self.k], ()):
            if self.ends(suffix):
                self.r(repl)
                return

    def step4(self) -> None:
        for suffix in self._STEP4.get(self.b[self.k - 1], ()):
            if self.ends(suffix):
                if suffix == "ion" and not (self.j >= 0 and self.b[self.j] in "st"):
                    continue
                break
        else:
            return
        if self.m() > 1:
            self.k = self.j

    def step5(self) -> None:
        self.j = self.k
        if self.b[self.k] == "e":
            a = self.m()
            if a > 1 or (a == 1 and not self.cvc(self.k - 1)):
                self.k -= 1
        if self.b[self.k] == "l" and self.double_c(self.k) and self.m() > 1:
            self.k -= 1


def _standard_tokens(text: str) -> list[Token]:
    return [(i, m.group()) for i, m in enumerate(_STANDARD_TOKEN.finditer(text))]


def _split_tokens(pattern: re.Pattern[str]) -> Callable[[str], list[Token]]:
    return lambda text: [(i, t) for i, t in enumerate(t for t in pattern.split(text) if t)]


_TOKENIZERS: dict[str, Callable[[str], list[Token]]] = {
    "standard": _standard_tokens,
    "whitespace": lambda text: list(enumerate(text.split())),
    "keyword": lambda text: [(0, text)],
    "letter": lambda text: list(enumerate(re.findall(r"[^\W\d_]+", text))),
}
_FILTERS: dict[str, Callable[[list[Token]], list[Token]]] = {
    "lowercase": lambda toks: [(p, t.lower()) for p, t in toks],
    "stop": lambda toks: [(p, t) for p, t in toks if t not in ENGLISH_STOP_WORDS],  # positions keep their gaps
    "porter_stem": lambda toks: [(p, porter_stem(t)) for p, t in toks],
    "english_possessive_stemmer": lambda toks: [(p, re.sub(r"['’][sS]$", "", t)) for p, t in toks],
}


@dataclass(frozen=True)
class Analyzer:
    tokenizer: Callable[[str], list[Token]]
    filters: tuple[str, ...] = ()

    def analyze(self, text: str) -> list[Token]:
        tokens = self.tokenizer(text)
        for name in self.filters:
            tokens = _FILTERS[name](tokens)
        return [(p, t) for p, t in tokens if t]


BUILTIN_ANALYZERS = {
    "standard": Analyzer(_standard_tokens, ("lowercase",)),
    "english": Analyzer(_standard_tokens, ("english_possessive_stemmer", "lowercase", "stop", "porter_stem")),
    "simple": Analyzer(_TOKENIZERS["letter"], ("lowercase",)),
    "whitespace": Analyzer(_TOKENIZERS["whitespace"]),
    "keyword": Analyzer(_TOKENIZERS["keyword"]),
}


def _build_analyzers(analysis: dict[str, Any]) -> dict[str, Analyzer]:
    unknown = set(analysis) - {"analyzer", "tokenizer"}
    if unknown:
        raise _bad(f"stub: analysis sections {sorted(unknown)} are not implemented")
    tokenizers = dict(_TOKENIZERS)
    for name, spec in (analysis.get("tokenizer") or {}).items():
        if spec.get("type") != "pattern" or set(spec) - {"type", "pattern"}:
            raise _bad(f"stub: tokenizer [{name}] {spec} is not implemented (only type pattern with a pattern)")
        tokenizers[name] = _split_tokens(re.compile(spec.get("pattern", r"\W+")))
    analyzers = dict(BUILTIN_ANALYZERS)
    for name, spec in (analysis.get("analyzer") or {}).items():
        if spec.get("type", "custom") != "custom" or set(spec) - {"type", "tokenizer", "filter"}:
            raise _bad(f"stub: analyzer [{name}] {spec} is not implemented (only custom analyzers)")
        if spec.get("tokenizer") not in tokenizers:
            raise _bad(f"Custom Analyzer [{name}] failed to find tokenizer under name [{spec.get('tokenizer')}]")
        filters = spec.get("filter") or []
        for f in filters:
            if f not in _FILTERS:
                raise _bad(f"Custom Analyzer [{name}] failed to find filter under name [{f}]")
        analyzers[name] = Analyzer(tokenizers[spec["tokenizer"]], tuple(filters))
    return analyzers


# -- mappings and documents ------------------------------------------------------------------------------------


@dataclass
class Field:
    path: str
    type: str
    indexed: bool = True
    analyzer: Analyzer | None = None
    search_analyzer: Analyzer | None = None
    dimension: int = 0
    space: str = ""
    engine: str = ""
    subfields: dict[str, Field] = field(default_factory=dict)


@dataclass
class ObjectMapping:
    properties: dict[str, Field | ObjectMapping]
    enabled: bool = True
    dynamic: str = "true"


_NUMERIC = {"integer", "long", "short", "byte", "float", "double"}
_FIELD_PARAMS = {
    "keyword": {"index", "doc_values", "ignore_above", "store", "null_value", "fields"},
    "text": {"index", "analyzer", "search_analyzer", "store", "fields", "norms", "index_options"},
    "boolean": {"index", "doc_values", "store", "null_value"},
    "knn_vector": {"dimension", "method", "space_type", "data_type"},
    **{t: {"index", "doc_values", "store", "null_value", "coerce"} for t in _NUMERIC},
}


def _parse_object(props: dict[str, Any], analyzers: dict[str, Analyzer], knn_enabled: bool, prefix: str = "",
                  enabled: bool = True, dynamic: str = "true") -> ObjectMapping:
    out: dict[str, Field | ObjectMapping] = {}
    for name, spec in props.items():
        path = prefix + name
        if not isinstance(spec, dict):
            raise _mapper(f"Expected map for property [fields] on field [{path}] but got a {type(spec).__name__}")
        kind = spec.get("type", "object" if "properties" in spec or "enabled" in spec else None)
        if kind is None:
            raise _mapper(f"No type specified for field [{path}]")
        if kind == "object":
            extra = set(spec) - {"type", "properties", "enabled", "dynamic"}
            if extra:
                raise _mapper(f"unknown parameter [{sorted(extra)[0]}] on mapper [{path}] of type [object]")
            out[name] = _parse_object(spec.get("properties") or {}, analyzers, knn_enabled, path + ".",
                                      spec.get("enabled", True) is not False, str(spec.get("dynamic", dynamic)).lower())
            continue
        out[name] = _parse_field(path, kind, spec, analyzers, knn_enabled)
    return ObjectMapping(out, enabled, dynamic)


def _parse_field(path: str, kind: str, spec: dict[str, Any], analyzers: dict[str, Analyzer],
                 knn_enabled: bool) -> Field:
    if kind not in _FIELD_PARAMS:
        raise _mapper(f"No handler for type [{kind}] declared on field [{path}]")
    extra = set(spec) - _FIELD_PARAMS[kind] - {"type"}
    if extra:
        raise _mapper(f"unknown parameter [{sorted(extra)[0]}] on mapper [{path}] of type [{kind}]")
    f = Field(path, kind, indexed=spec.get("index", True) is not False)
    if kind == "text":
        for key in ("analyzer", "search_analyzer"):
            name = spec.get(key, spec.get("analyzer", "standard"))
            if name not in analyzers:
                raise _mapper(f"analyzer [{name}] has not been configured in mappings")
        f.analyzer = analyzers[spec.get("analyzer", "standard")]
        f.search_analyzer = analyzers[spec.get("search_analyzer", spec.get("analyzer", "standard"))]
    if kind == "knn_vector":
        _parse_knn(f, spec, knn_enabled)
    for sub, sub_spec in (spec.get("fields") or {}).items():
        sub_kind = sub_spec.get("type")
        if sub_kind not in ("text", "keyword"):
            raise _mapper(f"stub: sub-field [{path}.{sub}] of type [{sub_kind}] is not implemented")
        f.subfields[sub] = _parse_field(f"{path}.{sub}", sub_kind, sub_spec, analyzers, knn_enabled)
    return f


def _parse_knn(f: Field, spec: dict[str, Any], knn_enabled: bool) -> None:
    if "dimension" not in spec:
        raise _mapper(f"Dimension value missing for vector: {f.path}")
    dim = spec["dimension"]
    if not isinstance(dim, int) or isinstance(dim, bool) or not 1 <= dim <= MAX_DIMENSION:
        raise _mapper(f"Dimension value must be an integer between 1 and {MAX_DIMENSION} for vector: {f.path}, "
                      f"got {dim!r}")
    if spec.get("data_type", "float") != "float":
        raise _mapper(f"stub: data_type [{spec['data_type']}] is not implemented")
    method = spec.get("method") or {}
    extra = set(method) - {"name", "engine", "space_type", "parameters"}
    if extra:
        raise _mapper(f"stub: knn method parameters {sorted(extra)} are not implemented")
    engine = method.get("engine", "faiss")
    if engine == "nmslib":
        raise _mapper("nmslib engine is deprecated in OpenSearch and cannot be used for new index creation "
                      "starting from version 3.0.0.")
    if engine not in ENGINE_SPACES:
        raise _mapper(f"Invalid engine: {engine}")
    if method and method.get("name") != "hnsw":
        raise _mapper(f"stub: knn method [{method.get('name')}] is not implemented (only hnsw; ivf needs training)")
    params = method.get("parameters") or {}
    if set(params) - {"m", "ef_construction", "ef_search"}:
        raise _mapper(f"Invalid parameter for method hnsw: {sorted(set(params) - {'m', 'ef_construction'})}")
    top, inner = spec.get("space_type"), method.get("space_type")
    if top and inner and top != inner:
        raise _mapper(f"Space type in \"method\" and top level space type should be same or one of them should be "
                      f"defined: top level space type [{top}], method space type [{inner}]")
    space = top or inner or "l2"
    if space not in ENGINE_SPACES[engine]:
        raise _mapper(f"{engine} engine does not support space type [{space}]")
    if not knn_enabled:
        raise _mapper(f"stub: knn_vector field [{f.path}] needs the index setting index.knn: true (OpenSearch would "
                      "build no HNSW graph for it)")
    f.dimension, f.space, f.engine = dim, space, engine


@dataclass
class Doc:
    """A stored document and what was derived from it at index time."""

    id: str
    seq: int
    source: dict[str, Any]
    values: dict[str, list[Any]] = field(default_factory=dict)  # keyword/numeric/boolean values by field path
    tokens: dict[str, list[Token]] = field(default_factory=dict)  # analyzed text by field path
    vectors: dict[str, np.ndarray] = field(default_factory=dict)


_METADATA_FIELDS = {"_id", "_index", "_source", "_routing", "_seq_no", "_primary_term", "_version", "_type"}


class Index:
    def __init__(self, name: str, body: dict[str, Any]) -> None:
        unknown = set(body) - {"settings", "mappings", "aliases"}
        if unknown:
            raise _bad(f"unknown key [{sorted(unknown)[0]}] for create index", "parse_exception")
        if body.get("aliases"):
            raise _bad("stub: aliases are not implemented")
        settings = _flatten_settings(body.get("settings") or {})
        analysis = _unflatten({k[len("index.analysis."):]: v for k, v in settings.items()
                               if k.startswith("index.analysis.")})
        settings = {k: v for k, v in settings.items() if not k.startswith("index.analysis.")}
        for key in settings:
            if key not in _KNOWN_SETTINGS:
                raise _bad(f"unknown setting [{key}] please check that any required plugins are installed, or check "
                           "the breaking changes documentation for removed settings")
        self.analyzers = _build_analyzers(analysis)
        knn_enabled = str(settings.get("index.knn", "false")).lower() == "true"
        mappings = body.get("mappings") or {}
        unknown = set(mappings) - {"properties", "dynamic", "_meta"}
        if unknown:
            raise _mapper(f"stub: mapping keys {sorted(unknown)} are not implemented")
        self.root = _parse_object(mappings.get("properties") or {}, self.analyzers, knn_enabled,
                                  dynamic=str(mappings.get("dynamic", "true")).lower())
        self.fields: dict[str, Field] = {}
        self._collect(self.root)
        self.name = name
        self.uuid = uuid.uuid4().hex[:22]
        self.body = copy.deepcopy(body)
        self.settings = settings
        self.max_result_window = int(settings.get("index.max_result_window", MAX_RESULT_WINDOW))
        self.docs: dict[str, Doc] = {}  # every write (what GET by id would see)
        self.visible: dict[str, Doc] = {}  # the last refresh (what search sees)
        self.seq = 0
        self._stats: dict[str, tuple[int, float, Counter[str]]] = {}

    def _collect(self, obj: ObjectMapping) -> None:
        for value in obj.properties.values():
            if isinstance(value, ObjectMapping):
                if value.enabled:
                    self._collect(value)
                continue
            self.fields[value.path] = value
            for sub in value.subfields.values():
                self.fields[sub.path] = sub

    def refresh(self) -> None:
        self.visible = dict(self.docs)
        self._stats.clear()

    def searchable(self) -> list[Doc]:
        return sorted(self.visible.values(), key=lambda d: d.seq)

    def stats(self, path: str) -> tuple[int, float, Counter[str]]:
        """(documents holding the field, their average length in tokens, document frequency of each term)."""
        if path not in self._stats:
            lengths, df = [], Counter()
            for doc in self.visible.values():
                tokens = doc.tokens.get(path)
                if tokens:
                    lengths.append(len(tokens))
                    df.update({t for _, t in tokens})
            n = len(lengths)
            self._stats[path] = (n, (sum(lengths) / n) if n else 0.0, df)
        return self._stats[path]

    def parse(self, doc_id: str, source: Any) -> Doc:
        """Validate ``source`` against the mapping (as OpenSearch does on indexing) and derive what is searched."""
        if not isinstance(source, dict):
            raise _mapper("failed to parse, document is empty" if source is None else "failed to parse")
        self.seq += 1
        doc = Doc(doc_id, self.seq, source)
        self._walk(doc, source, self.root, "")
        return doc

    def _walk(self, doc: Doc, obj: dict[str, Any], mapping: ObjectMapping, prefix: str) -> None:
        for name, value in obj.items():
            path = prefix + name
            if not prefix and name in _METADATA_FIELDS:
                raise _mapper(f"Field [{name}] is a metadata field and cannot be added inside a document. Use the "
                              "index API request parameters.")
            target = mapping.properties.get(name)
            if target is None:
                if mapping.dynamic == "strict":
                    raise StubError(400, "strict_dynamic_mapping_exception", f"mapping set to strict, dynamic "
                                    f"introduction of [{name}] within [{prefix[:-1] or '_doc'}] is not allowed")
                continue  # dynamic true/false: kept in _source only (the stub maps nothing dynamically)
            if isinstance(target, ObjectMapping):
                if not target.enabled or value is None:
                    continue
                for item in value if isinstance(value, list) else [value]:
                    if not isinstance(item, dict):
                        raise _mapper(f"object mapping for [{path}] tried to parse field [{name}] as object, but "
                                      "found a concrete value")
                    self._walk(doc, item, target, path + ".")
                continue
            self._index_value(doc, target, value)

    def _index_value(self, doc: Doc, f: Field, value: Any) -> None:  # noqa: C901
        def fail(detail: str) -> StubError:
            preview = json.dumps(value)[:60]
            err = _mapper(f"failed to parse field [{f.path}] of type [{f.type}] in document with id '{doc.id}'. "
                          f"Preview of field's value: '{preview}'")
            err.error["caused_by"] = {"type": "illegal_argument_exception", "reason": detail}
            return err

        if f.type == "knn_vector":
            if not isinstance(value, list) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                      for v in value):
                raise fail("the vector must be an array of numbers")
            if len(value) != f.dimension:
                raise fail(f"Vector dimension mismatch. Expected: {f.dimension}, Given: {len(value)}")
            vec = np.asarray(value, dtype=np.float32)
            if not np.isfinite(vec).all():
                raise fail("KNN vector values cannot be NaN or Infinity")
            if f.space == "cosinesimil" and not vec.any():
                raise fail("zero vector is not supported when space type is [cosinesimil]")
            doc.vectors[f.path] = vec
            return
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict | list):
                raise fail(f"Can't get text on a {'START_OBJECT' if isinstance(item, dict) else 'START_ARRAY'}")
        items = [i for i in items if i is not None]
        if f.type == "text":
            text_items = [("true" if i else "false") if isinstance(i, bool) else str(i) for i in items]
            if f.indexed:
                tokens: list[Token] = []
                for text in text_items:  # array values: position_increment_gap 100
                    base = (tokens[-1][0] + 101) if tokens else 0
                    tokens += [(base + p, t) for p, t in f.analyzer.analyze(text)]
                doc.tokens[f.path] = tokens
            for sub in f.subfields.values():
                self._index_value(doc, sub, text_items if len(text_items) != 1 else text_items[0])
            return
        converted = []
        for item in items:
            if f.type == "keyword":
                converted.append(("true" if item else "false") if isinstance(item, bool) else str(item))
            elif f.type == "boolean":
                if item not in (True, False, "true", "false"):
                    raise fail(f"Failed to parse value [{item}] as only [true] or [false] are allowed.")
                converted.append(item in (True, "true"))
            else:
                try:
                    number = float(item) if not isinstance(item, bool) else math.nan
                except (TypeError, ValueError):
                    number = math.nan
                if math.isnan(number):
                    raise fail(f"For input string: \"{item}\"")
                if f.type in ("integer", "long", "short", "byte"):
                    number = int(number)
                    limit = {"integer": 2**31, "long": 2**63, "short": 2**15, "byte": 2**7}[f.type]
                    if not -limit <= number < limit:
                        raise fail(f"Value [{item}] is out of range for an {f.type}")
                converted.append(number)
        doc.values[f.path] = converted
        for sub in f.subfields.values():
            self._index_value(doc, sub, value)


def _flatten_settings(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in settings.items():
        path = prefix + key
        if isinstance(value, dict):
            out.update(_flatten_settings(value, path + "."))
        else:
            out[path] = value
    if not prefix:
        out = {(k if k.startswith("index.") else "index." + k): v for k, v in out.items()}
    return out


def _unflatten(flat: dict[str, Any]) -> dict[str, Any]:
    """``{"analyzer.x.type": "custom"}`` → ``{"analyzer": {"x": {"type": "custom"}}}`` (for analysis settings)."""
    out: dict[str, Any] = {}
    for key, value in flat.items():
        parts = key.split(".")
        node = out
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return out


# -- search ----------------------------------------------------------------------------------------------------


def _single(spec: Any, query: str) -> tuple[str, Any]:
    if not isinstance(spec, dict) or len(spec) != 1:
        found = sorted(spec) if isinstance(spec, dict) else spec
        raise _bad(f"[{query}] query doesn't support multiple fields, found {found}", "parsing_exception")
    return next(iter(spec.items()))


def _bm25(idf: float, tf: float, dl: int, avgdl: float) -> float:
    return idf * tf / (tf + K1 * (1 - B + B * dl / avgdl)) if avgdl else 0.0


def _idf(n_docs: int, df: int) -> float:
    return math.log(1 + (n_docs - df + 0.5) / (df + 0.5))


def knn_score(space: str, query: np.ndarray, vector: np.ndarray) -> float:
    """``_score`` of a kNN hit as the k-NN plugin computes it for ``space``."""
    if space == "cosinesimil":
        cos = float(query @ vector) / float(np.linalg.norm(query) * np.linalg.norm(vector))
        return (1.0 + cos) / 2.0
    if space == "innerproduct":
        ip = float(query @ vector)
        return ip + 1.0 if ip >= 0 else 1.0 / (1.0 - ip)
    return 1.0 / (1.0 + float(np.sum((query - vector) ** 2)))


class _Searcher:
    """Evaluates a query against the searchable documents of one index: ``{doc id: score}`` of the matches."""

    def __init__(self, index: Index) -> None:
        self.index = index
        self.all = index.searchable()

    def run(self, query: dict[str, Any], docs: list[Doc]) -> dict[str, float]:
        if not isinstance(query, dict) or len(query) != 1:
            raise _query_error(self.index.name, "query malformed, must be an object with exactly one query type",
                               "parsing_exception")
        kind, spec = next(iter(query.items()))
        handler = getattr(self, f"q_{kind}", None)
        if handler is None:
            raise _query_error(self.index.name, f"no [query] registered for [{kind}]", "parsing_exception")
        return handler(spec, docs)

    def field(self, path: str, query: str) -> Field | None:
        f = self.index.fields.get(path)
        if f is not None and not f.indexed:
            raise _query_error(self.index.name, f"failed to create query: Cannot search on field [{path}] since it "
                               "is not indexed.", "query_shard_exception")
        if f is not None and f.type == "knn_vector" and query != "knn":
            raise _query_error(self.index.name, f"Field [{path}] of type [knn_vector] does not support [{query}] "
                               "queries", "query_shard_exception")
        return f

    def q_match_all(self, spec: dict[str, Any], docs: list[Doc]) -> dict[str, float]:
        return {d.id: float(spec.get("boost", 1.0)) for d in docs}

    def q_match_none(self, spec: dict[str, Any], docs: list[Doc]) -> dict[str, float]:
        return {}

    def q_bool(self, spec: dict[str, Any], docs: list[Doc]) -> dict[str, float]:
        unknown = set(spec) - {"must", "filter", "should", "must_not", "minimum_should_match", "boost"}
        if unknown:
            raise _query_error(self.index.name, f"[bool] query does not support [{sorted(unknown)[0]}]",
                               "parsing_exception")

        def clauses(name: str) -> list[dict[str, Any]]:
            value = spec.get(name) or []
            return value if isinstance(value, list) else [value]

        scores = {d.id: 0.0 for d in docs}
        for clause in clauses("must"):
            matched = self.run(clause, docs)
            docs = [d for d in docs if d.id in matched]
            for d in docs:
                scores[d.id] += matched[d.id]
        for clause in clauses("filter"):
            matched = self.run(clause, docs)
            docs = [d for d in docs if d.id in matched]
        for clause in clauses("must_not"):
            matched = self.run(clause, docs)
            docs = [d for d in docs if d.id not in matched]
        should = clauses("should")
        if should:
            default = 0 if clauses("must") or clauses("filter") else 1
            needed = int(spec.get("minimum_should_match", default))
            hits = Counter[str]()
            for clause in should:
                matched = self.run(clause, docs)
                for d in docs:
                    if d.id in matched:
                        hits[d.id] += 1
                        scores[d.id] += matched[d.id]
            docs = [d for d in docs if hits[d.id] >= needed]
        boost = float(spec.get("boost", 1.0))
        return {d.id: scores[d.id] * boost for d in docs}

    def _value_spec(self, spec: Any, query: str) -> tuple[str, Any, float]:
        path, value = _single(spec, query)
        boost = 1.0
        if isinstance(value, dict):
            if set(value) - {"value", "boost", "case_insensitive"}:
                raise _query_error(self.index.name, f"[{query}] query does not support {sorted(value)}",
                                   "parsing_exception")
            boost = float(value.get("boost", 1.0))
            value = value.get("value")
        return path, value, boost

    def _equals(self, f: Field, doc: Doc, wanted: list[Any]) -> bool:
        if f.type == "text":
            terms = {t for _, t in doc.tokens.get(f.path, ())}
            return any(str(w) in terms for w in wanted)
        have = doc.values.get(f.path, ())
        if f.type == "keyword":
            keys = {("true" if w else "false") if isinstance(w, bool) else str(w) for w in wanted}
            return any(h in keys for h in have)
        if f.type == "boolean":
            return any(h in {w in (True, "true") for w in wanted} for h in have)
        numbers = set()
        for w in wanted:
            try:
                numbers.add(float(w))
            except (TypeError, ValueError):
                raise _query_error(self.index.name, f"For input string: \"{w}\"", "number_format_exception") from None
        return any(float(h) in numbers for h in have)

    def q_term(self, spec: Any, docs: list[Doc]) -> dict[str, float]:
        path, value, boost = self._value_spec(spec, "term")
        if isinstance(value, list | dict) or value is None:
            raise _query_error(self.index.name, "[term] query does not support array of values", "parsing_exception")
        f = self.field(path, "term")
        return {} if f is None else {d.id: boost for d in docs if self._equals(f, d, [value])}

    def q_terms(self, spec: Any, docs: list[Doc]) -> dict[str, float]:
        spec = dict(spec)
        boost = float(spec.pop("boost", 1.0))
        path, values = _single(spec, "terms")
        if not isinstance(values, list):
            raise _query_error(self.index.name, "[terms] query does not support [" + path + "]", "parsing_exception")
        if len(values) > MAX_TERMS:
            raise _query_error(self.index.name, f"The number of terms [{len(values)}] used in the Terms Query request "
                               f"has exceeded the allowed maximum of [{MAX_TERMS}].")
        f = self.field(path, "terms")
        return {} if f is None else {d.id: boost for d in docs if self._equals(f, d, values)}

    def q_ids(self, spec: dict[str, Any], docs: list[Doc]) -> dict[str, float]:
        wanted = set(spec.get("values") or [])
        return {d.id: 1.0 for d in docs if d.id in wanted}

    def q_exists(self, spec: dict[str, Any], docs: list[Doc]) -> dict[str, float]:
        path = spec.get("field")
        return {d.id: 1.0 for d in docs if d.values.get(path) or d.tokens.get(path) or path in d.vectors}

    def q_range(self, spec: Any, docs: list[Doc]) -> dict[str, float]:
        path, bounds = _single(spec, "range")
        if not isinstance(bounds, dict) or set(bounds) - {"gt", "gte", "lt", "lte", "boost"}:
            raise _query_error(self.index.name, f"[range] query does not support {bounds}", "parsing_exception")
        f = self.field(path, "range")
        if f is None:
            return {}
        if f.type == "text":
            raise _query_error(self.index.name, f"stub: range on text field [{path}] is not implemented")
        key = (lambda v: str(v)) if f.type == "keyword" else float
        checks = {"gt": lambda a, b: a > b, "gte": lambda a, b: a >= b, "lt": lambda a, b: a < b,
                  "lte": lambda a, b: a <= b}

        def inside(value: Any) -> bool:
            return all(checks[op](key(value), key(limit)) for op, limit in bounds.items() if op != "boost")

        return {d.id: 1.0 for d in docs if any(inside(v) for v in d.values.get(path, ()))}

    def _text_spec(self, spec: Any, query: str, allowed: set[str]) -> tuple[str, dict[str, Any]]:
        path, value = _single(spec, query)
        options = value if isinstance(value, dict) else {"query": value}
        if set(options) - allowed - {"query", "boost"}:
            raise _query_error(self.index.name, f"[{query}] query does not support "
                               f"[{sorted(set(options) - allowed - {'query', 'boost'})[0]}]", "parsing_exception")
        if not isinstance(options.get("query"), str | int | float) or isinstance(options.get("query"), bool):
            raise _query_error(self.index.name, f"[{query}] unknown token [{type(options.get('query')).__name__}]",
                               "parsing_exception")
        return path, options

    def q_match(self, spec: Any, docs: list[Doc]) -> dict[str, float]:
        path, options = self._text_spec(spec, "match", {"operator", "minimum_should_match", "zero_terms_query"})
        f = self.field(path, "match")
        if f is None:
            return {}
        boost = float(options.get("boost", 1.0))
        if f.type != "text":
            return {d.id: boost for d in docs if self._equals(f, d, [options["query"]])}
        terms = [t for _, t in f.search_analyzer.analyze(str(options["query"]))]
        if not terms:
            return {d.id: boost for d in docs} if options.get("zero_terms_query") == "all" else {}
        operator = str(options.get("operator", "or")).lower()
        needed = len(set(terms)) if operator == "and" else int(options.get("minimum_should_match", 1))
        n_docs, avgdl, df = self.index.stats(path)
        out = {}
        for d in docs:
            tokens = d.tokens.get(path)
            if not tokens:
                continue
            tf = Counter(t for _, t in tokens)
            if sum(1 for t in set(terms) if tf[t]) < needed:
                continue
            out[d.id] = boost * sum(_bm25(_idf(n_docs, df[t]), tf[t], len(tokens), avgdl) for t in terms if tf[t])
        return out

    def q_match_phrase(self, spec: Any, docs: list[Doc]) -> dict[str, float]:
        path, options = self._text_spec(spec, "match_phrase", {"slop", "zero_terms_query", "analyzer"})
        if options.get("slop", 0):
            raise _query_error(self.index.name, "stub: match_phrase with slop is not implemented")
        f = self.field(path, "match_phrase")
        if f is None:
            return {}
        boost = float(options.get("boost", 1.0))
        if f.type != "text":
            return {d.id: boost for d in docs if self._equals(f, d, [options["query"]])}
        analyzer = f.search_analyzer
        if "analyzer" in options:
            if options["analyzer"] not in self.index.analyzers:
                raise _query_error(self.index.name, f"analyzer [{options['analyzer']}] not found")
            analyzer = self.index.analyzers[options["analyzer"]]
        phrase = analyzer.analyze(str(options["query"]))
        if not phrase:
            return {d.id: boost for d in docs} if options.get("zero_terms_query") == "all" else {}
        first = phrase[0][0]
        offsets = [(p - first, t) for p, t in phrase]
        n_docs, avgdl, df = self.index.stats(path)
        idf = sum(_idf(n_docs, df[t]) for _, t in offsets)
        out = {}
        for d in docs:
            tokens = d.tokens.get(path)
            if not tokens:
                continue
            at = {(p, t) for p, t in tokens}
            freq = sum(1 for p, t in tokens if t == offsets[0][1] and all((p + o, w) in at for o, w in offsets))
            if freq:
                out[d.id] = boost * _bm25(idf, freq, len(tokens), avgdl)
        return out

    def q_knn(self, spec: Any, docs: list[Doc]) -> dict[str, float]:
        path, params = _single(spec, "knn")
        f = self.index.fields.get(path)
        if f is None or f.type != "knn_vector":
            raise _query_error(self.index.name, f"Field '{path}' is not knn_vector type.")
        if not isinstance(params, dict) or set(params) - {"vector", "k", "filter", "boost"}:
            unknown = sorted(set(params) - {"vector", "k", "filter", "boost"}) if isinstance(params, dict) else params
            raise _query_error(self.index.name, f"[knn] unknown token {unknown}", "parsing_exception")
        vector = params.get("vector")
        if not isinstance(vector, list) or not vector:
            raise _query_error(self.index.name, "[knn] requires query vector", "parsing_exception")
        if len(vector) != f.dimension:
            raise _query_error(self.index.name, f"Query vector has invalid dimension: {len(vector)}. Dimension should "
                               f"be: {f.dimension}")
        k = params.get("k")
        if not isinstance(k, int) or isinstance(k, bool) or not 0 < k <= MAX_K:
            raise _query_error(self.index.name, f"[knn] requires k to be in the range (0, {MAX_K}]")
        query = np.asarray(vector, dtype=np.float32)
        if f.space == "cosinesimil" and not query.any():
            raise _query_error(self.index.name, "zero vector is not supported when space type is [cosinesimil]")
        candidates = [d for d in self.all if path in d.vectors]  # the whole index, not the caller's candidates:
        if params.get("filter") is not None:  # the filter inside the clause runs first (efficient filtering)
            allowed = self.run(params["filter"], candidates)
            candidates = [d for d in candidates if d.id in allowed]
        scored = sorted(((knn_score(f.space, query, d.vectors[path]), d.seq, d.id) for d in candidates),
                        key=lambda s: (-s[0], s[1]))[:k]
        boost = float(params.get("boost", 1.0))
        inside = {d.id for d in docs}
        return {doc_id: score * boost for score, _, doc_id in scored if doc_id in inside}


def _source_filter(source: dict[str, Any], spec: Any) -> dict[str, Any] | None:
    if spec is False:
        return None
    if spec is None or spec is True:
        return source
    includes, excludes = spec, []
    if isinstance(spec, dict):
        includes = spec.get("includes", spec.get("include", []))
        excludes = spec.get("excludes", spec.get("exclude", []))
    includes = [includes] if isinstance(includes, str) else list(includes)
    excludes = [excludes] if isinstance(excludes, str) else list(excludes)
    return {k: v for k, v in source.items()
            if (not includes or any(fnmatch.fnmatchcase(k, p) for p in includes))
            and not any(fnmatch.fnmatchcase(k, p) for p in excludes)}


# -- the server ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recorded:
    method: str
    path: str  # without the query string, percent-decoded
    params: dict[str, str]
    headers: dict[str, str]  # lower-cased names
    body: Any  # parsed JSON, a list of parsed NDJSON lines, the raw text when unparsable, or None


_AUTHORIZATION = re.compile(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request, ?"
                            r"SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})")


@dataclass(frozen=True)
class SigV4Check:
    """The credentials the stub expects requests to be signed with (AWS Signature V4)."""

    access_key: str
    secret_key: str
    region: str
    service: str  # "es" | "aoss"
    token: str | None = None

    def problem(self, method: str, raw_path: str, headers: dict[str, str], body: bytes) -> str | None:
        """Why the request's signature is not valid (None when it is). Recomputed with botocore."""
        from botocore.auth import SigV4Auth
        from botocore.awsrequest import AWSRequest
        from botocore.credentials import Credentials

        match = _AUTHORIZATION.fullmatch(headers.get("authorization", ""))
        if not match:
            return "Missing Authentication Token" if "authorization" not in headers else "Authorization header " \
                "requires 'Credential', 'SignedHeaders' and 'Signature' (AWS4-HMAC-SHA256)"
        key, day, region, service, signed, signature = match.groups()
        if (key, region, service) != (self.access_key, self.region, self.service):
            return f"Credential should be scoped to {self.access_key}/{self.region}/{self.service}, got " \
                   f"{key}/{region}/{service}"
        amz_date = headers.get("x-amz-date", "")
        try:
            when = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        except ValueError:
            return "x-amz-date is missing or malformed"
        if not amz_date.startswith(day) or abs((datetime.now(UTC) - when).total_seconds()) > 300:
            return "Signature expired or not yet valid"
        names = signed.split(";")
        if "host" not in names or any(n not in headers for n in names):
            return f"Signed headers {names} are missing from the request or do not include host"
        if headers.get("x-amz-content-sha256") not in (None, hashlib.sha256(body).hexdigest()):
            return "The provided 'x-amz-content-sha256' header does not match what was computed."
        if self.token is not None and headers.get("x-amz-security-token") != self.token:
            return "The security token included in the request is invalid."
        request = AWSRequest(method=method, url=f"http://{headers['host']}{raw_path}", data=body,
                             headers={n: headers[n] for n in names})
        request.context["timestamp"] = amz_date
        auth = SigV4Auth(Credentials(self.access_key, self.secret_key, self.token), service, region)
        expected = auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)
        if expected != signature:
            return "The request signature we calculated does not match the signature you provided. Check your AWS " \
                   "Secret Access Key and signing method."
        return None


@dataclass
class _Fault:
    status: int
    times: int
    method: str | None
    path: re.Pattern[str] | None


class OpenSearchStub:
    """Start with ``with OpenSearchStub() as stub:`` (or ``start()`` / ``stop()``); point the client at ``stub.url``.

    ``indices`` maps names to :class:`Index` (documents in ``.docs``, what search sees in ``.visible``).
    """

    def __init__(self, *, serverless: bool = False, auto_refresh: bool | None = None,
                 sigv4: SigV4Check | None = None) -> None:
        self.serverless = serverless
        self.auto_refresh = serverless if auto_refresh is None else auto_refresh
        self.sigv4 = sigv4
        self.indices: dict[str, Index] = {}
        self.requests: list[Recorded] = []
        self._bulk_plans: deque[dict[int, int]] = deque()
        self._faults: list[_Fault] = []
        self._lock = threading.RLock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), name="opensearch-stub",
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> OpenSearchStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> OpenSearchStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- test hooks --------------------------------------------------------------------------------------------

    def fail_next_bulk_items(self, statuses: dict[int, int], *, times: int = 1) -> None:
        """The next ``times`` ``_bulk`` requests answer the items at these 0-based positions with these statuses
        instead of applying them: 429 ``rejected_execution_exception`` (OpenSearch's name for what Elasticsearch
        called ``es_rejected_execution_exception``), 400 ``mapper_parsing_exception``, others a generic error."""
        with self._lock:
            self._bulk_plans.extend(dict(statuses) for _ in range(times))

    def clear_faults(self) -> None:
        """Forget every fault planned with :meth:`fail_next_bulk_items` and :meth:`fail_next_requests`."""
        with self._lock:
            self._bulk_plans.clear()
            self._faults.clear()

    def fail_next_requests(self, status: int, *, times: int = 1, method: str | None = None,
                           path: str | None = None) -> None:
        """The next ``times`` requests (with this method, whose path matches the regex ``path``) answer ``status``
        with an OpenSearch error body (429: ``rejected_execution_exception``) and change nothing."""
        with self._lock:
            self._faults.append(_Fault(status, times, method, re.compile(path) if path else None))

    def requests_to(self, endpoint: str, method: str | None = None) -> list[Recorded]:
        """Recorded requests whose path ends with ``endpoint`` (e.g. ``"/_bulk"``)."""
        return [r for r in self.requests if r.path.endswith(endpoint) and (method is None or r.method == method)]

    def refresh_all(self) -> None:
        with self._lock:
            for index in self.indices.values():
                index.refresh()

    # -- dispatch ----------------------------------------------------------------------------------------------

    def handle(self, method: str, raw_path: str, headers: dict[str, str], raw: bytes) -> tuple[int, Any]:
        """Answer one request: ``(status, JSON body or None)``."""
        parts = urlsplit(raw_path)
        path = unquote(parts.path)
        params = dict(parse_qsl(parts.query, keep_blank_values=True))
        with self._lock:
            self.requests.append(Recorded(method, path, params, headers, _parse_for_record(raw)))
            if self.sigv4 is not None:
                problem = self.sigv4.problem(method, raw_path, headers, raw)
                if problem:
                    return 403, {"message": problem}
            fault = self._take_fault(method, path)
            if fault is not None:
                kind = "rejected_execution_exception" if fault == 429 else "stub_injected_exception"
                return fault, StubError(fault, kind, f"stub: injected {fault}").body()
            try:
                return self._route(method, path, params, headers, raw)
            except StubError as err:
                return err.status, err.body()

    def _take_fault(self, method: str, path: str) -> int | None:
        for fault in self._faults:
            if (fault.method in (None, method)) and (fault.path is None or fault.path.search(path)):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault.status
        return None

    def _route(self, method: str, path: str, params: dict[str, str], headers: dict[str, str],
               raw: bytes) -> tuple[int, Any]:
        segments = [s for s in path.split("/") if s]
        if not segments:
            if method in ("GET", "HEAD"):
                self._check_params("info", params, path)
                return 200, {"name": "stub-node", "cluster_name": "lcabot-stub", "cluster_uuid": "stub",
                             "version": {"distribution": "opensearch", "number": "3.1.0"},
                             "tagline": "The OpenSearch Project: https://opensearch.org/"}
        elif segments[0].startswith("_"):
            if segments == ["_bulk"] and method in ("POST", "PUT"):
                return self._bulk(None, params, headers, raw, path)
            if segments == ["_msearch"] and method in ("GET", "POST"):
                return self._msearch(None, params, headers, raw, path)
        elif len(segments) == 1:
            name = segments[0]
            if method == "PUT":
                return self._create_index(name, params, headers, raw, path)
            if method == "HEAD":
                self._check_params("exists", params, path)
                return (200 if name in self.indices else 404), None
            if method == "DELETE":
                self._check_params("delete_index", params, path)
                self._index(name)
                del self.indices[name]
                return 200, {"acknowledged": True}
            if method == "GET":
                index = self._index(name)
                settings = {k.removeprefix("index."): json.dumps(v).strip('"') for k, v in index.settings.items()}
                return 200, {name: {"aliases": {}, "mappings": index.body.get("mappings", {}),
                                    "settings": {"index": {**settings, "provided_name": name, "uuid": index.uuid}}}}
        elif len(segments) == 2:
            name, action = segments
            routes: dict[tuple[str, str], Callable[..., tuple[int, Any]]] = {
                ("POST", "_bulk"): self._bulk, ("PUT", "_bulk"): self._bulk,
                ("GET", "_search"): self._search_endpoint, ("POST", "_search"): self._search_endpoint,
                ("GET", "_msearch"): self._msearch, ("POST", "_msearch"): self._msearch,
                ("GET", "_count"): self._count, ("POST", "_count"): self._count,
                ("POST", "_delete_by_query"): self._delete_by_query,
                ("POST", "_refresh"): self._refresh, ("GET", "_refresh"): self._refresh,
                ("GET", "_mapping"): self._get_mapping, ("GET", "_mappings"): self._get_mapping,
            }
            handler = routes.get((method, action))
            if handler is not None:
                return handler(name, params, headers, raw, path)
        return 400, {"error": f"no handler found for uri [{path}] and method [{method}]", "status": 400}

    def _index(self, name: str) -> Index:
        if name not in self.indices:
            raise _no_index(name)
        return self.indices[name]

    def _check_params(self, endpoint: str, params: dict[str, str], path: str) -> None:
        for key in params:
            if key not in _PARAMS[endpoint] | _COMMON_PARAMS:
                raise _bad(f"request [{path}] contains unrecognized parameter: [{key}]")
        if self.serverless and "refresh" in params:
            raise _bad("stub(aoss): the refresh parameter is not supported by OpenSearch Serverless")

    def _json(self, headers: dict[str, str], raw: bytes, *, required: bool = False) -> Any:
        if not raw:
            if required:
                raise _bad("request body is required", "parse_exception")
            return None
        self._content_type(headers, ("application/json",))
        try:
            return json.loads(raw)
        except ValueError as err:
            raise _bad(f"Failed to parse content to map: {err}", "parse_exception") from None

    @staticmethod
    def _content_type(headers: dict[str, str], allowed: tuple[str, ...]) -> None:
        kind = headers.get("content-type", "").split(";")[0].strip().lower()
        if kind not in allowed:
            raise StubError(406, "content_type_exception", f"Content-Type header [{headers.get('content-type', '')}] "
                            "is not supported", plain=True)

    @staticmethod
    def _check_refresh(params: dict[str, str], *, boolean_only: bool = False) -> None:
        """Refuse a bad ``refresh`` value before anything is done (as OpenSearch parses the request first)."""
        value = params.get("refresh")
        allowed = {"", "true", "false"} if boolean_only else {"", "true", "false", "wait_for"}
        if value is not None and value not in allowed:
            raise _bad(f"Unknown value for refresh: [{value}]." if not boolean_only else
                       f"Failed to parse value [{value}] as only [true] or [false] are allowed.")

    def _refresh_param(self, params: dict[str, str], names: set[str]) -> None:
        if params.get("refresh") in ("", "true", "wait_for") or self.auto_refresh:
            for name in names:
                if name in self.indices:
                    self.indices[name].refresh()

    # -- endpoints ---------------------------------------------------------------------------------------------

    def _create_index(self, name: str, params: dict[str, str], headers: dict[str, str], raw: bytes,
                      path: str) -> tuple[int, Any]:
        self._check_params("create_index", params, path)
        if name in self.indices:
            raise _bad(f"index [{name}/{self.indices[name].uuid}] already exists", "resource_already_exists_exception",
                       index=name, index_uuid=self.indices[name].uuid)
        if (name != name.lower() or name.startswith(("_", "-", "+")) or name in (".", "..")
                or any(c in name for c in '\\/*?"<>| ,#:') or len(name.encode()) > 255):
            raise _bad(f"Invalid index name [{name}], must be lowercase, must not start with '_', '-' or '+', and "
                       "must not contain \\ / * ? \" < > | space , # :", "invalid_index_name_exception", index=name)
        body = self._json(headers, raw) or {}
        self.indices[name] = Index(name, body)
        return 200, {"acknowledged": True, "shards_acknowledged": True, "index": name}

    def _get_mapping(self, name: str, params: dict[str, str], headers: dict[str, str], raw: bytes,
                     path: str) -> tuple[int, Any]:
        self._check_params("get_mapping", params, path)
        return 200, {name: {"mappings": copy.deepcopy(self._index(name).body.get("mappings", {}))}}

    def _refresh(self, name: str, params: dict[str, str], headers: dict[str, str], raw: bytes,
                 path: str) -> tuple[int, Any]:
        if self.serverless:
            raise _bad("stub(aoss): _refresh is not supported by OpenSearch Serverless")
        self._check_params("refresh", params, path)
        self._index(name).refresh()
        return 200, {"_shards": {"total": 2, "successful": 1, "failed": 0}}

    def _search_endpoint(self, name: str, params: dict[str, str], headers: dict[str, str], raw: bytes,
                         path: str) -> tuple[int, Any]:
        self._check_params("search", params, path)
        return 200, self._search(self._index(name), self._json(headers, raw) or {})

    def _count(self, name: str, params: dict[str, str], headers: dict[str, str], raw: bytes,
               path: str) -> tuple[int, Any]:
        self._check_params("count", params, path)
        index = self._index(name)
        body = self._json(headers, raw) or {}
        if set(body) - {"query"}:
            raise _bad(f"request does not support [{sorted(set(body) - {'query'})[0]}]", "parsing_exception")
        searcher = _Searcher(index)
        matched = searcher.run(body.get("query") or {"match_all": {}}, searcher.all)
        return 200, {"count": len(matched), "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0}}

    def _search(self, index: Index, body: dict[str, Any]) -> dict[str, Any]:  # noqa: C901
        if not isinstance(body, dict):
            raise _bad("the search body must be an object", "parsing_exception")
        unknown = set(body) - _SEARCH_KEYS
        if unknown:
            raise _bad(f"Unknown key for a START_OBJECT in [{sorted(unknown)[0]}].", "parsing_exception")
        size, start = body.get("size", 10), body.get("from", 0)
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in (size, start)):
            raise _bad(f"[size] and [from] must be non-negative integers, got {size!r} and {start!r}",
                       "parsing_exception")
        if size + start > index.max_result_window:
            raise _query_error(index.name, f"Result window is too large, from + size must be less than or equal to: "
                               f"[{index.max_result_window}] but was [{size + start}]. See the scroll api for a more "
                               "efficient way to request large data sets. This limit can be set by changing the "
                               "[index.max_result_window] index level setting.")
        searcher = _Searcher(index)
        scores = searcher.run(body.get("query") or {"match_all": {}}, searcher.all)
        matched = [d for d in searcher.all if d.id in scores]
        sort = self._sort_spec(index, body.get("sort"))
        by_field = any(name != "_score" for name, _ in sort)

        def sort_values(doc: Doc) -> list[Any]:
            out = []
            for name, order in sort:
                if name == "_score":
                    out.append(scores[doc.id])
                    continue
                values = doc.values.get(name) or []
                out.append((min(values) if order == "asc" else max(values)) if values else None)
            return out

        def key(doc: Doc) -> tuple[Any, ...]:
            parts: list[Any] = []
            for (_, order), value in zip(sort, sort_values(doc), strict=True):
                parts.append(_Ordered(value, order == "desc"))
            return (*parts, doc.seq)

        matched.sort(key=key)
        after = body.get("search_after")
        if after is not None:
            if not sort or body.get("sort") is None or len(after) != len(sort):
                raise _query_error(index.name, "search_after requires sort with as many values as search_after",
                                   "illegal_argument_exception")
            bound = tuple(_Ordered(v, order == "desc") for (_, order), v in zip(sort, after, strict=True))
            matched = [d for d in matched if tuple(key(d)[:len(sort)]) > bound]
        total = len(matched)
        track = body.get("track_total_hits", MAX_RESULT_WINDOW)
        limit = total if track is True else (0 if track is False else int(track))
        hits = []
        for doc in matched[start:start + size]:
            hit: dict[str, Any] = {"_index": index.name, "_id": doc.id, "_score": None if by_field else scores[doc.id]}
            source = _source_filter(doc.source, body.get("_source"))
            if source is not None:
                hit["_source"] = copy.deepcopy(source)
            if body.get("sort") is not None:
                hit["sort"] = sort_values(doc)
            hits.append(hit)
        max_score = None if by_field or not matched else max(scores[d.id] for d in matched)
        out: dict[str, Any] = {"took": 1, "timed_out": False,
                               "_shards": {"total": 1, "successful": 1, "skipped": 0, "failed": 0},
                               "hits": {"max_score": max_score, "hits": hits}}
        if track is not False:
            out["hits"]["total"] = {"value": min(total, limit), "relation": "eq" if total <= limit else "gte"}
        return out

    def _sort_spec(self, index: Index, spec: Any) -> list[tuple[str, str]]:
        if spec is None:
            return [("_score", "desc")]
        out = []
        for item in spec if isinstance(spec, list) else [spec]:
            if isinstance(item, str):
                name, order = item, "desc" if item == "_score" else "asc"
            else:
                name, value = _single(item, "sort")
                order = value.get("order", "asc") if isinstance(value, dict) else value
            if order not in ("asc", "desc"):
                raise _bad(f"Unknown SortOrder [{order}]", "parsing_exception")
            if name != "_score":
                f = index.fields.get(name)
                if f is None:
                    raise _query_error(index.name, f"No mapping found for [{name}] in order to sort on",
                                       "query_shard_exception")
                if f.type in ("text", "knn_vector"):
                    raise _query_error(index.name, f"Text fields are not optimised for operations that require "
                                       f"per-document field data like aggregations and sorting, so these operations "
                                       f"are disabled by default. Please use a keyword field instead. Alternatively, "
                                       f"set fielddata=true on [{name}] in order to load field data by uninverting "
                                       f"the inverted index.")
            out.append((name, order))
        return out

    def _msearch(self, name: str | None, params: dict[str, str], headers: dict[str, str], raw: bytes,
                 path: str) -> tuple[int, Any]:
        self._check_params("msearch", params, path)
        self._content_type(headers, ("application/json", "application/x-ndjson"))
        text = raw.decode()
        if not text.endswith("\n"):
            raise _bad("The msearch request must be terminated by a newline [\\n]")
        lines = text.split("\n")[:-1]
        if len(lines) % 2:
            raise _bad("msearch: every search needs a header line and a body line")
        responses = []
        for i in range(0, len(lines), 2):
            try:
                header, body = json.loads(lines[i] or "{}"), json.loads(lines[i + 1])
            except ValueError as err:
                raise _bad(f"msearch line {i + 1}: {err}", "parse_exception") from None
            if set(header) - {"index", "preference", "routing", "search_type", "request_cache"}:
                raise _bad(f"key [{sorted(header)[0]}] is not supported in the metadata section")
            try:
                target = header.get("index") or name
                if target is None:
                    raise _bad("msearch: no index given", "action_request_validation_exception")
                responses.append({**self._search(self._index(target), body), "status": 200})
            except StubError as err:
                responses.append(err.body())
        return 200, {"took": 1, "responses": responses}

    def _delete_by_query(self, name: str, params: dict[str, str], headers: dict[str, str], raw: bytes,
                         path: str) -> tuple[int, Any]:
        if self.serverless:
            raise _bad("stub(aoss): _delete_by_query is not available on OpenSearch Serverless vector collections "
                       "(lcabot deletes by _id there)")
        self._check_params("delete_by_query", params, path)
        if params.get("conflicts", "abort") not in ("abort", "proceed"):
            raise _bad(f"conflicts may only be \"proceed\" or \"abort\" but was [{params['conflicts']}]")
        self._check_refresh(params, boolean_only=True)
        if params.get("wait_for_completion", "true") != "true":
            raise _bad("stub: asynchronous delete by query (tasks) is not implemented")
        index = self._index(name)
        body = self._json(headers, raw, required=True)
        if not isinstance(body, dict) or "query" not in body:
            raise _bad("Validation Failed: 1: query is missing;", "action_request_validation_exception")
        if set(body) - {"query"}:
            raise _bad(f"stub: delete by query with {sorted(set(body) - {'query'})} is not implemented")
        searcher = _Searcher(index)
        matched = searcher.run(body["query"], searcher.all)
        deleted = conflicts = 0
        failures = []
        for doc in searcher.all:
            if doc.id not in matched:
                continue
            current = index.docs.get(doc.id)
            if current is None or current.seq != doc.seq:  # changed or deleted since the last refresh
                conflicts += 1
                failures.append({"index": name, "id": doc.id, "status": 409, "cause": {
                    "type": "version_conflict_engine_exception", "reason": f"[{doc.id}]: version conflict"}})
                continue
            del index.docs[doc.id]
            deleted += 1
        self._refresh_param(params, {name})
        abort = conflicts and params.get("conflicts", "abort") == "abort"
        return (409 if abort else 200), {
            "took": 1, "timed_out": False, "total": len(matched), "deleted": deleted, "batches": 1 if matched else 0,
            "version_conflicts": conflicts, "noops": 0, "retries": {"bulk": 0, "search": 0}, "throttled_millis": 0,
            "requests_per_second": -1.0, "throttled_until_millis": 0, "failures": failures if abort else [],
        }

    def _bulk(self, name: str | None, params: dict[str, str], headers: dict[str, str], raw: bytes,  # noqa: C901
              path: str) -> tuple[int, Any]:
        self._check_params("bulk", params, path)
        self._check_refresh(params)
        self._content_type(headers, ("application/json", "application/x-ndjson"))
        text = raw.decode()
        if not text.strip():
            raise _bad("Validation Failed: 1: no requests added;", "action_request_validation_exception")
        if not text.endswith("\n"):
            raise _bad("The bulk request must be terminated by a newline [\\n]")
        lines = text.split("\n")[:-1]
        actions: list[tuple[str, dict[str, Any], Any]] = []
        i = 0
        while i < len(lines):
            try:
                action = json.loads(lines[i])
            except ValueError:
                raise _bad(f"Malformed action/metadata line [{i + 1}], expected START_OBJECT") from None
            if not isinstance(action, dict) or len(action) != 1:
                raise _bad(f"Malformed action/metadata line [{i + 1}], expected a single action")
            op, meta = next(iter(action.items()))
            if op == "update":
                raise _bad("stub: bulk update is not implemented")
            if op not in ("index", "create", "delete"):
                raise _bad(f"Malformed action/metadata line [{i + 1}], expected field [create], [delete], [index] or "
                           f"[update] but found [{op}]")
            unknown = set(meta) - {"_index", "_id", "routing", "pipeline", "require_alias"}
            if unknown:
                raise _bad(f"Action/metadata line [{i + 1}] contains an unknown parameter [{sorted(unknown)[0]}]")
            if not (meta.get("_index") or name):
                raise _bad("Validation Failed: 1: index is missing;", "action_request_validation_exception")
            if op == "delete" and meta.get("_id") is None:
                raise _bad("Validation Failed: 1: id is missing;", "action_request_validation_exception")
            source = None
            if op != "delete":
                if i + 1 >= len(lines):
                    raise _bad("The bulk request must be terminated by a newline [\\n]")
                try:
                    source = json.loads(lines[i + 1])
                except ValueError as err:
                    raise _bad(f"failed to parse document on line [{i + 2}]: {err}", "mapper_parsing_exception") \
                        from None
                i += 1
            actions.append((op, meta, source))
            i += 1
        plan = self._bulk_plans.popleft() if self._bulk_plans else {}
        items, touched = [], set()
        for pos, (op, meta, source) in enumerate(actions):
            target = meta.get("_index") or name
            if pos in plan:
                items.append({op: _item_error(target, meta.get("_id"), plan[pos])})
                continue
            items.append({op: self._apply(op, target, meta, source)})
            touched.add(target)
        self._refresh_param(params, touched)
        errors = any(next(iter(i.values())).get("error") for i in items)
        return 200, {"took": 1, "errors": errors, "items": items}

    def _apply(self, op: str, name: str, meta: dict[str, Any], source: Any) -> dict[str, Any]:
        doc_id = meta.get("_id")
        index = self.indices.get(name)
        if index is None:
            return {"_index": name, "_id": doc_id, "status": 404, "error": _no_index(name).error}
        if op == "delete":
            existed = index.docs.pop(str(doc_id), None) is not None
            return {"_index": name, "_id": doc_id, "_version": 2 if existed else 1,
                    "result": "deleted" if existed else "not_found", "_shards": _SHARDS, "_seq_no": index.seq,
                    "_primary_term": 1, "status": 200 if existed else 404}
        if doc_id is not None and self.serverless:
            return {"_index": name, "_id": doc_id, "status": 400, "error": _bad(
                "Document ID is not supported in create/index operation request").error}
        if doc_id is not None and len(str(doc_id).encode()) > 512:
            return {"_index": name, "_id": doc_id, "status": 400, "error": _bad(
                f"id [{doc_id}] is too long, must be no longer than 512 bytes but was: {len(str(doc_id).encode())}",
                "action_request_validation_exception").error}
        doc_id = str(doc_id) if doc_id is not None else secrets.token_urlsafe(15)[:20]
        existed = doc_id in index.docs
        if op == "create" and existed:
            return {"_index": name, "_id": doc_id, "status": 409, "error": StubError(
                409, "version_conflict_engine_exception",
                f"[{doc_id}]: version conflict, document already exists (current version [1])").error}
        try:
            index.docs[doc_id] = index.parse(doc_id, source)
        except StubError as err:
            return {"_index": name, "_id": doc_id, "status": err.status, "error": err.error}
        return {"_index": name, "_id": doc_id, "_version": 2 if existed else 1,
                "result": "updated" if existed else "created", "_shards": _SHARDS, "_seq_no": index.seq,
                "_primary_term": 1, "status": 200 if existed else 201}

    # -- HTTP --------------------------------------------------------------------------------------------------

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _serve(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                status, body = stub.handle(self.command, self.path, headers, raw)
                data = b"" if body is None else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json; charset=UTF-8")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _serve  # noqa: N815 (http.server's naming)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (base-class signature)
                pass

        return Handler


_SHARDS = {"total": 2, "successful": 1, "failed": 0}


class _Ordered:
    """A sort key: ``None`` (missing value) sorts last either way; ``desc`` reverses the order."""

    __slots__ = ("value", "desc")

    def __init__(self, value: Any, desc: bool) -> None:
        self.value, self.desc = value, desc

    def _cmp(self, other: _Ordered) -> int:
        if self.value == other.value:
            return 0
        if self.value is None or other.value is None:
            return 1 if self.value is None else -1
        less = self.value < other.value
        return (1 if less else -1) if self.desc else (-1 if less else 1)

    def __lt__(self, other: _Ordered) -> bool:
        return self._cmp(other) < 0

    def __gt__(self, other: _Ordered) -> bool:
        return self._cmp(other) > 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Ordered) and self._cmp(other) == 0

    __hash__ = None  # type: ignore[assignment]


def _item_error(index: str | None, doc_id: Any, status: int) -> dict[str, Any]:
    if status == 429:
        error = {"type": "rejected_execution_exception", "reason": "rejected execution of coordinating operation "
                 "[coordinating_and_primary_bytes=0, replica_bytes=0, all_bytes=0, coordinating_operation_bytes=1, "
                 "max_coordinating_and_primary_bytes=0]"}
    elif status == 400:
        error = {"type": "mapper_parsing_exception", "reason": "stub: injected failure to parse the document"}
    else:
        error = {"type": "stub_injected_exception", "reason": f"stub: injected {status}"}
    return {"_index": index, "_id": doc_id, "status": status, "error": error}


def _parse_for_record(raw: bytes) -> Any:
    if not raw:
        return None
    text = raw.decode(errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    except ValueError:
        return text

