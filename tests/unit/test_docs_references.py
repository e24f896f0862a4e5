"""What the docs name exists: files they link or quote, make targets, CLI flags, settings
variables and ``Context`` fields.

The docs are read by people who then type what they read. A newcomer's check of 41 claims
found 14 wrong or stale (issue 43); the concrete references, at least, cannot drift: each
is checked here against the tree, the Makefile, the argument parsers, the settings and the
run context.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from graphs.context import Context
from graphs.roles import KINDS, ROLES, field_name
from runtime.settings import ENV_PREFIX, Settings

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted(
    [
        ROOT / "README.md",
        ROOT / "runtime" / "gateway" / "DESIGN.md",
        ROOT / "tools" / "README.md",
        ROOT / "bench" / "tasks" / "README.md",
        *(ROOT / "docs").glob("*.md"),
    ]
)
TOP = frozenset(
    {"app", "graphs", "agents", "tools", "runtime", "tests", "bench", "docs", "examples"}
)
"""A quoted path is checked when it starts at one of these (``config/shipping.toml`` in an
example project, or ``demo-out/report.md`` that a run writes, are not the repository's)."""

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_CODE = re.compile(r"`([^`\n]+)`")
_PATH = re.compile(r"^[\w.-]+(?:/[\w.*-]+)+/?$")
_MAKE = re.compile(r"\bmake ([a-z][a-z-]*)")
_FLAG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9-]*)")
_ENV = re.compile(r"\bEDGESWARM_[A-Z0-9_]+\b")
_CONTEXT_ROW = re.compile(r"^\| `([a-z_]+)` \| Context \|", re.M)
_GENERATED = ("bench/results/", "tests/fakes/__pycache__")
"""Paths a command writes (a bench run's results): named as patterns, not files."""


def _text(doc: Path) -> str:
    return doc.read_text(encoding="utf-8")


def _code(text: str) -> str:
    """The doc's code: its code spans and the lines of its fenced blocks (not its prose)."""
    spans = _CODE.findall(text)
    blocks = re.findall(r"^\s*```[^\n]*\n(.*?)^\s*```", text, re.M | re.S)
    return "\n".join([*spans, *blocks])


def _exists(path: str) -> bool:
    if "*" in path or "<" in path or path.startswith(_GENERATED):
        return True
    return (ROOT / path.rstrip("/")).exists()


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(doc: Path) -> None:
    missing = []
    for target in _LINK.findall(_text(doc)):
        path = target.split("#", 1)[0]
        if not path or "://" in target or target.startswith("mailto:"):
            continue
        if not (doc.parent / path).resolve().exists():
            missing.append(target)
    assert not missing


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_quoted_repository_path_exists(doc: Path) -> None:
    quoted = {
        code.strip()
        for code in _CODE.findall(_text(doc))
        if _PATH.match(code.strip()) and code.strip().split("/", 1)[0] in TOP
    }
    assert not sorted(path for path in quoted if not _exists(path))


def _make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    return set(re.findall(r"^([a-z][a-z-]*)\s*:", makefile, re.M))


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_make_target_named_exists(doc: Path) -> None:
    targets = _make_targets()
    named = set(_MAKE.findall(_code(_text(doc))))
    assert not sorted(named - targets)


def _defined_flags() -> set[str]:
    sources = [
        ROOT / "app" / "cli.py",
        ROOT / "runtime" / "gateway" / "cli.py",
        *(ROOT / "bench").glob("*.py"),
    ]
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources)
    return set(re.findall(r"""["'](--[a-z][a-z0-9-]*)["']""", text))


def _edgeswarm_commands(text: str) -> list[str]:
    """The command lines that run edgeswarm (or its bench), in code spans and code blocks."""
    return [
        line
        for line in _code(text).splitlines()
        if re.match(r"\s*(\$ )?(edgeswarm|python -m bench\.)", line)
    ]


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_flag_of_an_edgeswarm_command_is_defined(doc: Path) -> None:
    flags = _defined_flags()
    used = {flag for line in _edgeswarm_commands(_text(doc)) for flag in _FLAG.findall(line)}
    used -= {"--help", "--version"}  # argparse's own
    assert not sorted(used - flags)


def _settings_variables() -> set[str]:
    return {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields}


@pytest.mark.parametrize("doc", DOCS, ids=lambda doc: str(doc.relative_to(ROOT)))
def test_every_settings_variable_named_is_read(doc: Path) -> None:
    known = _settings_variables()
    source = "\n".join(
        path.read_text(encoding="utf-8")
        for package in ("app", "graphs", "agents", "tools", "runtime", "bench")
        for path in (ROOT / package).rglob("*.py")
    )
    named = set(_ENV.findall(_text(doc)))
    unread = {
        name
        for name in named
        if name not in known
        and name not in source
        and "{ENV_PREFIX}" + name.removeprefix(ENV_PREFIX) not in source  # e.g. a refused one
    }
    assert not sorted(unread)


def test_the_context_rows_of_the_configuration_doc_are_context_fields() -> None:
    rows = set(_CONTEXT_ROW.findall(_text(ROOT / "docs" / "configuration.md")))
    assert len(rows) >= 30
    assert not sorted(rows - {field.name for field in dataclasses.fields(Context)})


def test_every_role_has_its_rows_in_the_configuration_doc() -> None:
    """A role added to ROLES is documented with its three fields (the other direction of the
    check above: the docs' role tables follow ROLES)."""
    rows = set(_CONTEXT_ROW.findall(_text(ROOT / "docs" / "configuration.md")))
    wanted = {field_name(spec.name, kind) for spec in ROLES for kind in KINDS}
    assert not sorted(wanted - rows)


def test_the_role_table_lists_the_declared_roles_and_their_default_models() -> None:
    """docs/how-it-works.md's "Default model per role": one row per role of ROLES (and the
    fallback), each with the RoleSpec's default model."""
    text = _text(ROOT / "docs" / "how-it-works.md")
    table = text.split("## Default model per role", 1)[1].split("\n\n| role |", 1)[1]
    rows = re.findall(r"^\| ([a-z_]+) \| [^|]+ \| ([^|]+) \|$", table.split("\n\n")[0], re.M)
    documented = {role: model.strip().lower() for role, model in rows}
    assert documented.pop("fallback") == Context().fallback_model
    assert documented == {spec.name: spec.model for spec in ROLES}


def test_the_checks_find_what_is_missing(tmp_path: Path) -> None:
    """Each check fails on a doc that names something that is not there."""
    doc = (
        "[gone](../nowhere.md) `tools/no_such_module.py` `make no-such-target` "
        "`edgeswarm run --no-such-flag` EDGESWARM_NO_SUCH_SETTING"
    )
    assert _LINK.findall(doc) == ["../nowhere.md"]
    assert not _exists("tools/no_such_module.py")
    assert "no-such-target" not in _make_targets()
    assert "--no-such-flag" not in _defined_flags()
    assert "--no-such-flag" in {
        flag for line in _edgeswarm_commands(doc) for flag in _FLAG.findall(line)
    }
    assert "EDGESWARM_NO_SUCH_SETTING" not in _settings_variables()
