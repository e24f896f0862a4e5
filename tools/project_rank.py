"""Which snippets of a :mod:`tools.project_map` a task needs, rendered to fit a prompt.

Entries are scored against the task's words (:func:`tools.project_map.tokens`) by BM25, with
bonuses for an entry the task names (a symbol, a file), for the kind it asks for ("config",
"table", "helper") and for every table when it mentions the database; what the best entries
use (a helper, a constant, a file they open, a table they join) is pulled in after them.
:func:`project_context` keeps the strong matches that fit a budget of characters, best
first, then lists the other files.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from tools.project_map import WORD_PART, Entry, EntryKind, ProjectMap, build_map, tokens

__all__ = ["ProjectContext", "project_context", "rank", "render"]


@dataclass(frozen=True)
class ProjectContext:
    """The part of a map that fits a prompt."""

    text: str
    """A listing of the other files, then the snippets within the budget, the best last
    (nearest the task that follows them); "" if none fit."""
    used: tuple[str, ...]
    """``path:name`` of each entry shown, best first."""
    notes: tuple[str, ...]
    """The map's notes (skips, errors)."""
    imports: str = ""
    """``from module import name, ...`` for the Python snippets shown, a line a module: what
    code written in the project's root can import of them (:func:`import_lines`)."""
    symbols: dict[str, str] = field(default_factory=dict)
    """Every name the whole project's Python defines, to its import (:func:`symbol_imports`):
    what a candidate that forgot an import is given (:mod:`agents.repair`)."""
    tables: tuple[str, ...] = ()
    """Every table and view of the project's databases: a candidate's statement creating one
    again is dropped (:func:`agents.repair.without_existing_creates`)."""


# Ranking -----------------------------------------------------------------------------------


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


_KIND_WORDS: dict[EntryKind, frozenset[str]] = {
    "database": _word_set(
        "database databases db table tables query queries sql sqlite schema column columns"
    ),
    "config": _word_set("config configs configuration settings setting rates rate options"),
    "data": _word_set("format line lines report log logs parse file files csv data records"),
    "python": _word_set("helper helpers function functions project module utility existing"),
    "doc": _word_set("docs documentation readme spec guide"),
}
_K1 = 1.2
_B = 0.75
_NAME_BONUS = 3.0
_STEM_BONUS = 1.0
_KIND_BONUS = 1.0
_DATABASE_BONUS = 2.0
_FEW_OF_A_KIND = 3
_PULL = 0.8
_PULL_FROM = 8
_PULL_EACH = 4
_RELATIVE_FLOOR = 0.25
_LISTING_CHARS = 300


@dataclass(frozen=True)
class _Query:
    """A task, read the ways ranking needs it."""

    tokens: frozenset[str]
    words: frozenset[str]
    identifiers: frozenset[str]
    mentions: frozenset[str]

    @classmethod
    def of(cls, task: str) -> _Query:
        lowered = task.lower()
        return cls(
            tokens=frozenset(tokens(task)),
            words=frozenset(re.findall(r"[a-z0-9]+", lowered)),
            identifiers=frozenset(re.findall(r"[a-z_][a-z0-9_]*", lowered)),
            mentions=frozenset(m.rstrip(".") for m in re.findall(r"[\w./-]+", lowered)),
        )


def rank(project: ProjectMap, task: str) -> list[tuple[float, Entry]]:
    """Score every entry against ``task``; those above zero, best first.

    BM25 over the entries' words, plus bonuses: the entry's name or file is named in the
    task, the task asks for its kind ("config", "table", "helper"), every table when it
    mentions the database. Then entries referenced by the best ones are pulled in after them.
    """
    entries = project.entries
    if not entries or not task.strip():
        return []
    query = _Query.of(task)
    counts = Counter(entry.kind for entry in entries)
    base = _bm25(entries, query.tokens)
    scores = [b + _bonus(e, b, query, counts[e.kind]) for e, b in zip(entries, base, strict=True)]
    _pull_references(entries, scores)
    order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    return [(round(scores[i], 4), entries[i]) for i in order]


def _bm25(entries: Sequence[Entry], terms: frozenset[str]) -> list[float]:
    """BM25 with binary term frequencies (an entry's words are a set)."""
    n = len(entries)
    frequency = Counter(term for entry in entries for term in entry.words & terms)
    idf = {t: math.log(1 + (n - c + 0.5) / (c + 0.5)) for t, c in frequency.items()}
    average = sum(len(entry.words) for entry in entries) / n or 1.0
    return [
        sum(idf[t] for t in entry.words & terms)
        * (_K1 + 1)
        / (1 + _K1 * (1 - _B + _B * len(entry.words) / average))
        for entry in entries
    ]


def _bonus(entry: Entry, base: float, query: _Query, of_its_kind: int) -> float:
    path = PurePosixPath(entry.path)
    bonus = _name_bonus(entry.name, query)
    if {entry.path.lower(), path.name.lower()} & query.mentions:
        bonus += _NAME_BONUS
    stem = tokens(path.stem)
    if stem and set(stem) <= query.tokens:
        bonus += _STEM_BONUS
    asked = bool(query.words & _KIND_WORDS[entry.kind])
    # Only a small project's "the config" means every config it has.
    if asked and (base > 0 or bonus > 0 or of_its_kind <= _FEW_OF_A_KIND):
        bonus += _KIND_BONUS
    if asked and entry.kind == "database":
        bonus += _DATABASE_BONUS
    return bonus


def _name_bonus(name: str, query: _Query) -> float:
    """The bonus for an entry the task names.

    In full for an identifier like ``round_cents``; a third for a plain word like
    ``total``, which a task may say for another reason.
    """
    if len(name) < 3 or name.lower() not in query.identifiers:
        return 0.0
    compound = "_" in name.strip("_") or len(WORD_PART.findall(name)) > 1
    return _NAME_BONUS if compound else _NAME_BONUS / 3


def _pull_references(entries: Sequence[Entry], scores: list[float]) -> None:
    """Raise what the best entries use to just below them, two references deep."""
    index = _ReferenceIndex.of(entries)
    ranked = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: (-scores[i], i))
    frontier = ranked[:_PULL_FROM]
    for _ in range(2):
        pulled: list[int] = []
        for parent in frontier:
            for child in index.used_by(parent)[:_PULL_EACH]:
                if scores[parent] * _PULL > scores[child]:
                    scores[child] = scores[parent] * _PULL
                    pulled.append(child)
        frontier = pulled[:_PULL_FROM]


@dataclass(frozen=True)
class _ReferenceIndex:
    """Which entries define a name, hold a file, or belong to a database."""

    entries: Sequence[Entry]
    by_name: dict[str, list[int]]
    by_file: dict[str, list[int]]

    @classmethod
    def of(cls, entries: Sequence[Entry]) -> _ReferenceIndex:
        by_name: dict[str, list[int]] = defaultdict(list)
        by_file: dict[str, list[int]] = defaultdict(list)
        for i, entry in enumerate(entries):
            for name in entry.defines:
                by_name[name].append(i)
            if entry.kind != "database":
                by_file[entry.path].append(i)
                by_file[PurePosixPath(entry.path).name].append(i)
        return cls(entries, by_name, by_file)

    def used_by(self, i: int) -> list[int]:
        """Entries that entry ``i`` uses: same file first, then in map order."""
        entry = self.entries[i]
        if entry.kind == "database":
            found = {
                j
                for j, other in enumerate(self.entries)
                if other.kind == "database" and other.path == entry.path and other.refs & entry.refs
            }
        else:
            found = {
                j
                for ref in entry.refs
                for j in (*self.by_name.get(ref, ()), *self.by_file.get(ref, ()))
            }
        found.discard(i)
        return sorted(found, key=lambda j: (self.entries[j].path != entry.path, j))


# Rendering ---------------------------------------------------------------------------------


def render(entries: Sequence[Entry]) -> str:
    """The entries' snippets, each under its header line, separated by blank lines."""
    return "\n\n".join(entry.text for entry in entries)


def project_context(
    root: Path | None,
    task: str,
    *,
    database: Path | None = None,
    budget_chars: int = 3500,
    project: ProjectMap | None = None,
) -> ProjectContext:
    """The snippets of ``root`` and ``database`` most relevant to ``task``, within budget.

    Entries scoring at least a quarter of the best are chosen best first; one that does not
    fit is skipped for smaller ones after it. A one-line listing of the other files opens the
    text when there is room; the snippets follow it, the best last, where the task follows.
    The prompt puts the task right after them, and the 0.5B coder leans on what it read
    last: measured on the dev split of bench/tasks-project (27 tasks, plain and stub prompts,
    greedy and 2 samples at 0.4, ``python -m bench.sampling``), best first solved 5.5 tasks
    an answer on average and 5 with any answer; best last 10 and 7 (22_is_cancelled,
    29_fines_total, 17_apply_coupon, 04_parse_nights, 07_final_exam_grade new; 02, 10 and
    20 lost). Best first, the answers often copied the last, weakest snippet (a ledger class
    beside a task about tax rates). ``project``: their map, built already (else it is
    built here).
    """
    if project is None:
        project = build_map(root, database)
    scored = rank(project, task)
    if not scored:
        return ProjectContext(
            text="",
            used=(),
            notes=project.notes,
            symbols=symbol_imports(project.entries),
            tables=_tables(project),
        )
    # A weak match costs a small model more attention than it gives: keep the strong ones.
    floor = scored[0][0] * _RELATIVE_FLOOR
    ranked = [entry for score, entry in scored if score >= floor]
    reserve = min(_LISTING_CHARS, budget_chars // 8) + 2 if len(project.files) > 1 else 0
    chosen = _fit(ranked, budget_chars - reserve)
    text = render(chosen[::-1])
    room = budget_chars - len(text) - (2 if text else 0)
    if listing := _other_files(project.files, chosen, room):
        text = f"{listing}\n\n{text}" if text else listing
    used = tuple(f"{entry.path}:{entry.name}" for entry in chosen)
    return ProjectContext(
        text=text,
        used=used,
        notes=project.notes,
        imports=import_lines(chosen),
        symbols=symbol_imports(project.entries),
        tables=_tables(project),
    )


def _tables(project: ProjectMap) -> tuple[str, ...]:
    return tuple(sorted({entry.name for entry in project.entries if entry.kind == "database"}))


def import_lines(entries: Sequence[Entry]) -> str:
    """The import statements of the Python entries' names, from the project's root.

    ``pkg/money.py`` is ``pkg.money``, ``pkg/__init__.py`` is ``pkg``; a file whose path is no
    dotted module name (``my-scripts/x.py``) is left out. Names in the order first shown.
    """
    modules: dict[str, list[str]] = {}
    for entry in entries:
        module = _module_of(entry)
        if module is None:
            continue
        names = modules.setdefault(module, [])
        names += [name for name in sorted(entry.defines) if name not in names]
    return "\n".join(
        f"from {module} import {', '.join(names)}" for module, names in modules.items() if names
    )


MAX_SYMBOLS = 5000
"""Names at most in :func:`symbol_imports` (a large repository's map holds more)."""


def symbol_imports(entries: Sequence[Entry]) -> dict[str, str]:
    """Each name the project's Python defines, and its module, to the one import that brings it.

    ``round_cents`` -> ``from pricing import round_cents``, ``ids`` -> ``from clinic import
    ids``. A name defined in two places is left out: which one was meant is a guess.
    """
    found: dict[str, set[str]] = {}
    for entry in entries:
        module = _module_of(entry)
        if module is None:
            continue
        package, _, leaf = module.rpartition(".")
        found.setdefault(leaf, set()).add(
            f"from {package} import {leaf}" if package else f"import {leaf}"
        )
        for name in entry.defines:
            found.setdefault(name, set()).add(f"from {module} import {name}")
    unique = {name: next(iter(lines)) for name, lines in found.items() if len(lines) == 1}
    return dict(sorted(unique.items())[:MAX_SYMBOLS])


def _module_of(entry: Entry) -> str | None:
    """The dotted module of a Python entry's file, or None (not Python, or no module name)."""
    if entry.kind != "python" or not entry.path.endswith(".py"):
        return None
    parts = entry.path.removesuffix(".py").split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    if not parts or not all(part.isidentifier() for part in parts):
        return None
    return ".".join(parts)


def _fit(entries: Sequence[Entry], limit: int) -> list[Entry]:
    chosen: list[Entry] = []
    size = 0
    for entry in entries:
        cost = len(entry.text) + (2 if chosen else 0)
        if size + cost <= limit:
            chosen.append(entry)
            size += cost
    return chosen


def _other_files(files: Sequence[str], chosen: Sequence[Entry], room: int) -> str:
    shown = {entry.path for entry in chosen}
    others = [name for name in files if name not in shown]
    limit = min(room, _LISTING_CHARS)
    kept: list[str] = []
    for i, name in enumerate(others):
        if len(_listing([*kept, name], len(others) - i - 1)) > limit:
            break
        kept.append(name)
    return _listing(kept, len(others) - len(kept)) if kept else ""


def _listing(names: Sequence[str], more: int) -> str:
    return f"Other files: {', '.join(names)}" + (f" (and {more} more)" if more else "")
