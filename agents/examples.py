"""Checks read out of the task statement itself, without a model.

A user's statement often carries its own examples: doctests in a pasted stub
(``>>> slugify("A b")`` then ``'a-b'``), or prose such as ``roman_to_int("XIV") == 14``,
``f(3) -> 9`` or "``count([1, 1])`` returns 2". They are the one source of expected values
that no model wrote, so selection trusts them most. Only literal calls of the entry point are
taken: an example whose arguments or value are not Python literals is skipped, never guessed.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import keyword
import re

from tools.check_runner import Check, CheckSource, EntryPoint
from tools.pysource import parse

TRUSTED: frozenset[CheckSource] = frozenset({"statement", "project"})
"""Sources whose checks a right solution passes for sure: selection trusts them."""

_MAX_CHECKS = 12
_MAX_SOURCE = 400


def is_expression(text: str) -> bool:
    """Whether ``text`` parses as one Python expression."""
    try:
        parse(text, mode="eval")
    except SyntaxError:
        return False
    return True


def _is_literal(text: str) -> bool:
    """Whether ``text`` is one Python literal; a tuple only in parentheses.

    In prose, ``gives True, "off" gives False`` holds no tuple ``True, "off"``.
    """
    source = text.strip()
    try:
        tree = parse(source, mode="eval")
        ast.literal_eval(tree)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return source in {"True", "False", "None"}
    return not isinstance(tree.body, ast.Tuple) or source.startswith("(")


def _stub_entry(tree: ast.Module) -> EntryPoint | None:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            return EntryPoint(node.name, "function", tuple(a.arg for a in node.args.args))
        if isinstance(node, ast.ClassDef):
            init = next(
                (m for m in node.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"),
                None,
            )
            params = tuple(a.arg for a in init.args.args[1:]) if init else ()
            return EntryPoint(node.name, "class", params)
    return None


_STUB = re.compile(r"^\s*(?:def|class)\s+\w+", re.MULTILINE)
_FENCE = re.compile(r"```(?:python|py)?\n(.*?)```", re.DOTALL)
_NAMED = re.compile(r"`([A-Za-z_]\w*)\(([^`]*)\)`")
_DEF = re.compile(r"\b(?:def|class)\s+([A-Za-z_]\w*)")
_ASKED = re.compile(
    r"\b(?:write|implement|define|create|add|make|code)\s+(?:(?:a|an|the|me)\s+)?"
    r"(?:(?:python|pure|small|simple|new|async|static)\s+)*"
    r"(?:(?:function|method|class|helper|procedure)\s+)?(?:(?:called|named)\s+)?"
    r"([A-Za-z_]\w*)\(([^()\n]*)\)",
    re.IGNORECASE,
)
"""A request in plain prose: "Write is_leap(year): ...", "Implement a class Stack()"."""


def stub_source(statement: str) -> str | None:
    """The Python stub inside a statement (all of it, or a fenced block), if one parses."""
    candidates: list[str] = [str(block) for block in _FENCE.findall(statement)]
    candidates.append(statement)
    for text in candidates:
        if not _STUB.search(text):
            continue
        start = _STUB.search(text)
        body = text[start.start() :] if start else text
        try:
            parse(body)
        except SyntaxError:
            continue
        return body
    return None


def _positional(params: str) -> tuple[str, ...] | None:
    """The positional parameters of a written signature, or None when it is none.

    ``text: str, n=2, *, strict`` gives ``("text", "n")``; ``2 * x`` gives None.
    """
    try:
        tree = parse(f"def f({params}): pass")
    except SyntaxError:
        return None
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef) or len(tree.body) != 1:  # "x): pass\ndef g(y"
        return None
    return tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))


def entry_point_of(statement: str) -> EntryPoint | None:
    """The function or class a statement asks for: a pasted stub's, else the first named one.

    Prose names it in backticks with its parameters (`` `word_count(text)` ``), or asks for
    it unquoted ("Write is_leap(year): ..."); a class is a name that starts with a capital
    letter. None when the statement names nothing callable.
    """
    stub = stub_source(statement)
    if stub is not None:
        entry = _stub_entry(parse(stub))
        if entry is not None:
            return entry
    # Backticked first (`word_count(text)`), then as users type it ("Write is_leap(year)").
    for pattern in (_NAMED, _ASKED):
        for name, params in pattern.findall(statement):
            names = _positional(params)
            if names is None or keyword.iskeyword(name):
                continue
            if pattern is _ASKED and hasattr(builtins, name):  # "add print(x) calls"
                continue
            return EntryPoint(name, "class" if name[0].isupper() else "function", names)
    found = _DEF.search(statement)
    if found:
        name = found[1]
        return EntryPoint(name, "class" if name[0].isupper() else "function")
    return None


def _doctest_checks(text: str) -> list[Check]:
    checks: list[Check] = []
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return checks
    setup: list[str] = []
    for example in examples:
        source = example.source.strip()
        want = example.want.strip()
        if not is_expression(source) and not want:
            setup.append(source)
            continue
        if example.exc_msg is not None:
            name = want.splitlines()[-1].split(":")[0].strip().split(".")[-1]
            if name.isidentifier():
                checks.append(Check(source, "None", "statement", tuple(setup), raises=name))
            continue
        if not want:
            setup.append(source)  # a call kept for its effect: s.push(1)
            continue
        if is_expression(source) and is_expression(want):
            checks.append(Check(source, want, "statement", tuple(setup)))
            if setup:
                # A session with state (s = Stack() above): the shown call acts on it too, so
                # later checks run it first, as the doctest session does.
                setup.append(source)
    return checks


_AFTER_CALL = re.compile(
    r"^`?\s*(?:==|->|→|=>|returns?|should\s+return|gives?|is|evaluates\s+to|yields?)\s*`?\s*",
    re.IGNORECASE,
)


def _balanced_call(text: str, start: int) -> int | None:
    """The index just past the ``)`` that closes the ``(`` at ``start``."""
    depth, quote = 0, ""
    for index in range(start, len(text)):
        char = text[index]
        if quote:
            if char == quote and text[index - 1] != "\\":
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None


def _literal_prefix(text: str) -> str | None:
    """The longest prefix of ``text`` that is a Python literal (stops at a sentence's end)."""
    text = text.strip()
    for end in range(min(len(text), _MAX_SOURCE), 0, -1):
        piece = text[:end].strip().rstrip("`").strip()
        if piece.endswith(".") and _is_literal(piece[:-1]):
            piece = piece[:-1]  # a sentence's full stop, not a float: "f(0) == 1."
        if piece and piece[-1] not in ",;" and _is_literal(piece):
            # Whole words only: "True" inside "Trueish" is not a value.
            rest = text[end : end + 1]
            if rest and (rest.isalnum() or rest == "_") and piece[-1].isalnum():
                continue
            return piece
    return None


def _prose_checks(text: str, entry: str) -> list[Check]:
    checks: list[Check] = []
    for found in re.finditer(rf"\b{re.escape(entry)}\(", text):
        end = _balanced_call(text, found.end() - 1)
        if end is None:
            continue
        call = text[found.start() : end]
        try:
            parsed = parse(call, mode="eval").body
        except SyntaxError:
            continue
        if not isinstance(parsed, ast.Call) or not all(
            _is_literal(ast.unparse(arg)) for arg in parsed.args
        ):
            continue
        after = _AFTER_CALL.match(text[end:])
        if after is None:
            continue
        value = _literal_prefix(text[end + after.end() :])
        if value is not None:
            checks.append(Check(call, value, "statement"))
    return checks


_EMPTY = {"string": '""', "str": '""', "list": "[]", "dict": "{}", "tuple": "()", "set": "set()"}
_EMPTY_IN = re.compile(
    r"\b(?:an?|the)\s+empty\s+(?:or\s+[\w-]+\s+)?(string|str|list|dict|tuple|set)\s+"
    r"(?:returns?|gives?)\s+",
    re.IGNORECASE,
)
_EMPTY_OUT = re.compile(r"(?:an?\s+)?empty\s+(string|str|list|dict|tuple|set)\b", re.IGNORECASE)
_BECOMES = re.compile(r"\s+(?:becomes|turns\s+into|gives?|yields?|->|→|=>)\s+")


def _value_at(text: str) -> str | None:
    """A literal, or "an empty list" and the like, at the start of ``text``."""
    spoken = _EMPTY_OUT.match(text)
    if spoken:
        return _EMPTY[spoken[1].lower()]
    return _literal_prefix(text)


def _one_argument_checks(text: str, entry: str) -> list[Check]:
    """Examples a statement gives in words for a function of one argument.

    ``"aaabcc" becomes "a3b1c2"`` and ``an empty list returns []`` (or ``returns an empty
    dict``): the argument is a literal (quoted or bracketed), or the empty value named.
    """
    checks: list[Check] = []
    for found in _EMPTY_IN.finditer(text):
        value = _value_at(text[found.end() :])
        if value is not None:
            checks.append(Check(f"{entry}({_EMPTY[found[1].lower()]})", value, "statement"))
    for arrow in _BECOMES.finditer(text):
        argument = _literal_before(text, arrow.start())
        value = _literal_prefix(text[arrow.end() : arrow.end() + _MAX_SOURCE])
        if argument is not None and value is not None:
            checks.append(Check(f"{entry}({argument})", value, "statement"))
    return checks


def _literal_before(text: str, end: int) -> str | None:
    """The quoted or bracketed literal that ends at ``end``, if one does (the nearest start).

    Only the arrows' left sides are tried, one parse per opening quote or bracket, so a long
    statement full of brackets costs no more than its arrows.
    """
    for start in range(end - 1, max(-1, end - _MAX_SOURCE - 1), -1):
        if text[start] not in "\"'[{(" or (start and text[start - 1].isalnum()):
            continue
        if _is_literal(text[start:end]):
            return text[start:end]
    return None


def _doctest_texts(statement: str) -> list[str]:
    """Where a statement's doctests live: a stub's docstrings, else the whole text."""
    stub = stub_source(statement)
    if stub is None:
        return [statement]
    nodes = ast.walk(parse(stub))
    kinds = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    return [doc for node in nodes if isinstance(node, kinds) and (doc := ast.get_docstring(node))]


def statement_checks(statement: str, entry: EntryPoint | None) -> list[Check]:
    """The checks a statement states itself: its doctests, then its prose examples."""
    checks = [check for text in _doctest_texts(statement) for check in _doctest_checks(text)]
    if entry is not None and entry.kind == "function":
        seen = {check.call for check in checks}
        checks += [c for c in _prose_checks(statement, entry.name) if c.call not in seen]
        if len(entry.parameters) == 1:
            seen = {check.call for check in checks}
            spoken = _one_argument_checks(statement, entry.name)
            checks += [c for c in spoken if c.call not in seen]
    unique: dict[tuple[tuple[str, ...], str], Check] = {}
    for check in checks:
        if len(check.call) <= _MAX_SOURCE and len(check.expected) <= _MAX_SOURCE:
            unique.setdefault((check.setup, check.call), check)
    return list(unique.values())[:_MAX_CHECKS]


_DATABASE_PARAMETER = re.compile(r"(?:^|_)(?:db|database|path|file|filename|conn)(?:_|$)")


def project_checks(entry: EntryPoint | None, database: str | None) -> list[Check]:
    """A call on the run's own database that a right solution answers with a value.

    For a function whose only parameter is the database (``best_selling_title(db_path)``):
    called with the database's file name (the checks run beside a copy of it), it must
    return something, not raise (``no such table``, ``view ... already exists``) and not
    return None. No expected value is guessed: only that the code runs on the real data.
    """
    if entry is None or entry.kind != "function" or not database or len(entry.parameters) != 1:
        return []
    if not _DATABASE_PARAMETER.search(entry.parameters[0].lower()):
        return []
    name = database.replace("\\", "/").rsplit("/", 1)[-1]
    return [Check(f"{entry.name}({name!r}) is not None", "True", "project")]
