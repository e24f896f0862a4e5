"""The benchmark task sets in ``bench/tasks`` and ``bench/tasks-hard`` are complete and sound.

``bench/tasks-hard`` holds the first held-out split, moved out of ``bench/tasks`` as too hard;
the two sets together are numbered 01, 02, ... without gaps. For every task in either set: the
statement names the entry point with its exact parameters, the reference solution passes the
hidden tests, and a do-nothing solution (the entry point exists but returns None for
everything) fails them, both under pytest (this repository's conftest, ini options
and plugins kept out) and under the built-in runner that ``edgeswarm eval`` grades with in the
sandbox, where pytest is not importable (so the hidden tests use the standard library only).
Each run gets its own temporary directory, sys.path and freshly imported modules; two driver
subprocesses share the tasks, so the module takes seconds, not a minute.
"""

from __future__ import annotations

import ast
import doctest
import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from agents.examples import entry_point_of, statement_checks
from app.evaluate import task_folders
from tools.check_runner import run_checks
from tools.sandbox import TEST_RUNNER_CODE

ROOT = Path(__file__).resolve().parents[2]
TASKS_DIR = ROOT / "bench" / "tasks"
HARD_TASKS_DIR = ROOT / "bench" / "tasks-hard"
TASK_SETS = (TASKS_DIR, HARD_TASKS_DIR)
TASK_FILES = frozenset({"task.txt", "test_hidden.py", "reference.py"})
DIR_NAME = re.compile(r"(?P<number>\d{2,3})_(?P<entry>[a-z][a-z0-9_]*)")
MIN_TASKS = 60  # in bench/tasks
MAX_STATEMENT_CHARS = 400
MAX_STUB_CHARS = 1200
# A long stub: a ``def`` with type hints whose docstring spells out the rules and edge cases
# with 3-5 examples, 600-1800 characters (150-400 tokens of the Qwen tokenizer).
MIN_LONG_STUB_CHARS, MAX_LONG_STUB_CHARS = 600, 1800
MIN_LONG_STUB_EXAMPLES, MAX_LONG_STUB_EXAMPLES = 3, 5
MIN_LONG_STUBS = 30  # in bench/tasks
MIN_STUB_SHARE = 1 / 3
SPLITS_FILE = "held_out.txt"
MIN_TESTS, MAX_TESTS = 4, 8
ALLOWED_IMPORTS = frozenset(sys.stdlib_module_names) | {"solution"}


def task_id(task: Path) -> str:
    """The task's set and name: ``tasks/01_is_palindrome``."""
    return f"{task.parent.name}/{task.name}"


TASKS = [task for tasks_dir in TASK_SETS for task in task_folders(tasks_dir)]
TASK_IDS = [task_id(task) for task in TASKS]


@dataclass(frozen=True)
class EntryPoint:
    """What ``test_hidden.py`` imports from ``solution``, as the reference defines it."""

    name: str
    node: ast.FunctionDef | ast.ClassDef

    @property
    def is_class(self) -> bool:
        return isinstance(self.node, ast.ClassDef)

    def methods(self) -> list[ast.FunctionDef]:
        if not isinstance(self.node, ast.ClassDef):
            return []
        return [item for item in self.node.body if isinstance(item, ast.FunctionDef)]


def parameters(function: ast.FunctionDef, *, skip_self: bool) -> str:
    """The parameter list as a statement writes it: ``text, shift`` or ``balance=0``."""
    args = function.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise AssertionError(f"{function.name}: use plain positional parameters only")
    names = [arg.arg for arg in args.args]
    if skip_self:
        names = names[1:]
    defaults = [ast.unparse(default) for default in args.defaults]
    padded: list[str | None] = [None] * (len(names) - len(defaults)) + list(defaults)
    return ", ".join(
        name if default is None else f"{name}={default}"
        for name, default in zip(names, padded, strict=True)
    )


def entry_point(task: Path) -> EntryPoint:
    """The single name ``test_hidden.py`` imports from ``solution``, found in the reference."""
    tests = ast.parse((task / "test_hidden.py").read_text())
    imported = [
        alias.name
        for node in ast.walk(tests)
        if isinstance(node, ast.ImportFrom) and node.module == "solution"
        for alias in node.names
    ]
    assert len(imported) == 1, f"{task.name}: import exactly one name from solution: {imported}"
    name = imported[0]
    reference = ast.parse((task / "reference.py").read_text())
    for node in reference.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
            return EntryPoint(name, node)
    raise AssertionError(f"{task.name}: reference.py defines no top-level {name}")


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def null_solution(entry: EntryPoint) -> str:
    """A solution.py whose entry point exists but returns None for everything."""
    if not entry.is_class:
        return f"def {entry.name}(*args, **kwargs):\n    return None\n"
    lines = [f"class {entry.name}:", "    def __init__(self, *args, **kwargs):", "        pass"]
    for method in entry.methods():
        if method.name != "__init__":
            lines += [f"    def {method.name}(self, *args, **kwargs):", "        return None"]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class Run:
    """The hidden tests against one solution under one runner."""

    returncode: int
    output: str


VARIANTS = ("reference", "null")
RUNNERS = ("pytest", "sandbox runner")


@dataclass(frozen=True)
class Outcome:
    """The hidden tests against the reference and the null solution, under both runners."""

    runs: dict[tuple[str, str], Run]

    def failures(self, variant: str, expected: int) -> str:
        """Each runner's output for ``variant`` whose exit code is not ``expected``."""
        return "\n".join(
            f"--- {variant} solution under {runner}: exit {run.returncode}\n{run.output}"
            for runner in RUNNERS
            if (run := self.runs[variant, runner]).returncode != expected
        )


# Runs in a subprocess, one per half of the tasks, so that pytest is imported twice, not once
# per run. For each job (a directory holding solution.py and test_hidden.py) it runs pytest
# (this repository's conftest, ini options and plugins kept out) and the sandbox's built-in
# runner, each with a fresh sys.path and fresh ``solution`` and ``test_hidden`` modules, and
# prints one JSON line per run: [job, runner, exit code, output].
DRIVER = """
import contextlib, importlib, io, json, os, sys
import pytest

spec = json.load(sys.stdin)
runner_code = compile(spec["runner"], "<sandbox runner>", "exec")
base_path, out = list(sys.path), sys.stdout

def fresh(workdir):
    sys.path[:] = base_path
    for module in ("solution", "test_hidden"):
        sys.modules.pop(module, None)
    importlib.invalidate_caches()
    os.chdir(workdir)

def under_pytest(workdir):
    fresh(workdir)
    args = ["-q", "-p", "no:cacheprovider", "--noconftest", "-c", os.devnull,
            "--rootdir", workdir, "test_hidden.py"]
    return int(pytest.main(args))

def under_runner(workdir):
    fresh(workdir)
    sys.path.insert(0, workdir)  # as for the sandbox's main.py
    try:
        exec(runner_code, {"__name__": "__main__"})
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
    return 0

for job, workdir in spec["jobs"]:
    for name, run in (("pytest", under_pytest), ("sandbox runner", under_runner)):
        captured = io.StringIO()
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured):
            code = run(workdir)
        print(json.dumps([job, name, code, captured.getvalue()]), file=out, flush=True)
"""
DRIVER_TIMEOUT_S = 400
"""A bound for a driver that hangs, not a speed target: on a busy 2-core machine the
references and null solutions of a split took more than 120 s; under the 600 s per-test
timeout of pytest-timeout, which the module fixture counts against its first test."""


def driver_env() -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST_")}
    env.pop("PYTHONPATH", None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_driver(jobs: list[tuple[str, Path]]) -> dict[tuple[str, str], Run]:
    """Run the driver over ``jobs``; the runs by (job, runner)."""
    if not jobs:
        return {}
    spec = {"runner": TEST_RUNNER_CODE, "jobs": [(job, str(workdir)) for job, workdir in jobs]}
    try:
        process = subprocess.run(
            [sys.executable, "-c", DRIVER],
            input=json.dumps(spec),
            env=driver_env(),
            capture_output=True,
            text=True,
            timeout=DRIVER_TIMEOUT_S,
            check=False,
        )
        stdout, problem = process.stdout, process.stderr
    except subprocess.TimeoutExpired as error:
        stdout, problem = "", f"timed out after {DRIVER_TIMEOUT_S} s: {error.stdout!r}"
    runs: dict[tuple[str, str], Run] = {}
    for line in stdout.splitlines():
        job, runner, code, output = json.loads(line)
        runs[job, runner] = Run(code, output)
    missing = Run(-1, f"the driver did not finish this run:\n{problem[-4000:]}")
    return {
        (job, runner): runs.get((job, runner), missing) for job, _ in jobs for runner in RUNNERS
    }


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Outcome]:
    """The outcome for each task a selected test asks about: two drivers, half the tasks each."""
    wanted: set[Path] = set()
    for item in request.session.items:
        if not isinstance(item, pytest.Function) or item.module is not request.module:
            continue
        if "outcomes" in item.fixturenames:
            task = item.callspec.params["task"]
            assert isinstance(task, Path)
            wanted.add(task)
    root = tmp_path_factory.mktemp("eval-tasks")
    per_task: list[list[tuple[str, Path]]] = []
    for task in sorted(wanted, key=task_id):
        sources = {
            "reference": (task / "reference.py").read_text(),
            "null": null_solution(entry_point(task)),
        }
        per_task.append([])
        for variant, source in sources.items():
            workdir = root / task_id(task) / variant
            workdir.mkdir(parents=True)
            (workdir / "solution.py").write_text(source)
            shutil.copyfile(task / "test_hidden.py", workdir / "test_hidden.py")
            per_task[-1].append((f"{task_id(task)}/{variant}", workdir))
    halves = [[job for jobs in per_task[start::2] for job in jobs] for start in (0, 1)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = {key: run for part in pool.map(run_driver, halves) for key, run in part.items()}
    return {
        task_id(task): Outcome(
            {
                (variant, runner): runs[f"{task_id(task)}/{variant}", runner]
                for variant in VARIANTS
                for runner in RUNNERS
            }
        )
        for task in wanted
    }


def test_there_are_enough_tasks_numbered_consecutively() -> None:
    assert len(task_folders(TASKS_DIR)) >= MIN_TASKS
    names = [task.name for task in TASKS]
    matches = [DIR_NAME.fullmatch(name) for name in names]
    assert all(matches), [name for name, match in zip(names, matches, strict=True) if not match]
    numbers = [int(match["number"]) for match in matches if match]
    entries = [match["entry"] for match in matches if match]
    assert sorted(numbers) == list(range(1, len(names) + 1)), "number both sets 01, 02, ..."
    assert len(set(entries)) == len(entries)
    for tasks_dir in TASK_SETS:
        assert (tasks_dir / "README.md").is_file()


@pytest.mark.parametrize("task", TASKS, ids=TASK_IDS)
def test_task_files_and_statement(task: Path) -> None:
    files = {path.name for path in task.iterdir() if path.name != "__pycache__"}
    assert files == TASK_FILES

    statement = (task / "task.txt").read_text()
    assert statement.strip(), "task.txt is empty"
    entry = entry_point(task)
    match = DIR_NAME.fullmatch(task.name)
    assert match and match["entry"] == snake_case(entry.name), "name the directory NN_entry"
    if is_long_stub(statement):
        check_long_stub(statement, entry)
        return
    if is_stub(statement):
        check_stub(statement, entry)
        return
    assert len(statement) <= MAX_STATEMENT_CHARS, f"task.txt has {len(statement)} characters"
    if isinstance(entry.node, ast.FunctionDef):
        signature = f"{entry.name}({parameters(entry.node, skip_self=False)})"
        assert signature in statement, f"task.txt must name {signature}"
        return
    init = [method for method in entry.methods() if method.name == "__init__"]
    constructor = parameters(init[0], skip_self=True) if init else ""
    signatures = [f"{entry.name}({constructor})"] + [
        f"{method.name}({parameters(method, skip_self=True)})"
        for method in entry.methods()
        if not method.name.startswith("_")
    ]
    missing = [signature for signature in signatures if signature not in statement]
    assert not missing, f"task.txt must name {missing}"


def is_stub(statement: str) -> bool:
    """Whether a task is in stub form: a ``def`` or ``class`` with a docstring, as pasted."""
    return statement.lstrip().startswith(("def ", "class "))


def stub_examples(statement: str) -> int:
    """How many doctest examples the docstrings of a stub hold (0 when it does not parse)."""
    try:
        tree = ast.parse(statement)
    except SyntaxError:
        return 0
    parser = doctest.DocTestParser()
    return sum(
        len(parser.get_examples(ast.get_docstring(node) or ""))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    )


def is_long_stub(statement: str) -> bool:
    """Whether a task is in long stub form: a ``def`` of 600+ characters with 3-5 examples.

    Every other stub is an ordinary one, held to :data:`MAX_STUB_CHARS`.
    """
    return (
        statement.lstrip().startswith("def ")
        and len(statement) >= MIN_LONG_STUB_CHARS
        and MIN_LONG_STUB_EXAMPLES <= stub_examples(statement) <= MAX_LONG_STUB_EXAMPLES
    )


def _signature_of(node: ast.FunctionDef, *, skip_self: bool) -> list[str]:
    names = [arg.arg for arg in node.args.args]
    return names[1:] if skip_self else names


def check_long_stub(statement: str, entry: EntryPoint) -> None:
    """A long stub is a stub of at most 1800 characters whose def has every type hint."""
    check_stub(statement, entry, max_chars=MAX_LONG_STUB_CHARS)
    stub = ast.parse(statement).body[0]
    assert isinstance(stub, ast.FunctionDef), "a long stub is a def"
    bare = [arg.arg for arg in stub.args.args if arg.annotation is None]
    assert not bare and stub.returns is not None, f"type hint every parameter {bare} and the return"


def check_stub(statement: str, entry: EntryPoint, *, max_chars: int = MAX_STUB_CHARS) -> None:
    """A stub parses, defines the entry point with the reference's parameters, has examples."""
    assert len(statement) <= max_chars, f"the stub has {len(statement)} characters"
    tree = ast.parse(statement)
    stubs = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    assert [n.name for n in stubs] == [entry.name], "the stub defines exactly the entry point"
    stub = stubs[0]
    docstring = ast.get_docstring(stub)
    assert docstring and docstring.count(">>> ") >= 2, "the stub's docstring has 2+ examples"
    if isinstance(stub, ast.FunctionDef) and isinstance(entry.node, ast.FunctionDef):
        assert _signature_of(stub, skip_self=False) == _signature_of(entry.node, skip_self=False)
        return
    assert isinstance(stub, ast.ClassDef), "the stub and the reference define the same kind"
    stub_methods = {m.name: m for m in stub.body if isinstance(m, ast.FunctionDef)}
    for method in entry.methods():
        if method.name.startswith("_") and method.name != "__init__":
            continue
        assert method.name in stub_methods, f"the stub lacks {method.name}"
        assert _signature_of(stub_methods[method.name], skip_self=True) == _signature_of(
            method, skip_self=True
        )


@pytest.mark.parametrize("tasks_dir", TASK_SETS, ids=[path.name for path in TASK_SETS])
def test_a_third_of_the_tasks_are_stubs_and_the_held_out_split_is_known(tasks_dir: Path) -> None:
    tasks = task_folders(tasks_dir)
    stubs = [task for task in tasks if is_stub((task / "task.txt").read_text())]
    assert len(stubs) >= MIN_STUB_SHARE * len(tasks), f"{len(stubs)} stubs of {len(tasks)}"
    held_out = (tasks_dir / SPLITS_FILE).read_text().split()
    names = {task.name for task in tasks}
    assert set(held_out) <= names, sorted(set(held_out) - names)
    assert len(set(held_out)) == len(held_out)
    assert len(held_out) >= len(tasks) / 4, "hold out at least a quarter of the tasks"


def test_the_task_set_has_long_stubs() -> None:
    long_stubs = [
        task.name
        for task in task_folders(TASKS_DIR)
        if is_long_stub((task / "task.txt").read_text())
    ]
    assert len(long_stubs) >= MIN_LONG_STUBS, f"{len(long_stubs)} long stubs: {long_stubs}"


STUB_TASKS = [task for task in TASKS if is_stub((task / "task.txt").read_text())]


@pytest.mark.parametrize("task", STUB_TASKS, ids=[task_id(task) for task in STUB_TASKS])
def test_a_stubs_examples_hold_for_the_reference(task: Path) -> None:
    docstrings = [
        ast.get_docstring(node) or ""
        for node in ast.walk(ast.parse((task / "task.txt").read_text()))
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    ]
    namespace: dict[str, object] = {}
    exec(compile((task / "reference.py").read_text(), "reference.py", "exec"), namespace)
    parser, runner = doctest.DocTestParser(), doctest.DocTestRunner(verbose=False)
    for number, docstring in enumerate(docstrings):
        test = parser.get_doctest(docstring, dict(namespace), f"stub{number}", None, 0)
        runner.run(test, out=lambda _: None)
    assert runner.failures == 0, f"{runner.failures} of {runner.tries} stub examples fail"


@pytest.mark.parametrize("task", TASKS, ids=TASK_IDS)
def test_the_checks_read_from_the_statement_hold_for_the_reference(task: Path) -> None:
    # What the swarm reads from a statement without a model (agents.examples) must be true:
    # a wrong check fails every right candidate.
    statement = (task / "task.txt").read_text()
    entry = entry_point_of(statement)
    checks = statement_checks(statement, entry)
    if not checks:
        return
    run = run_checks((task / "reference.py").read_text(), checks, entry)
    assert run.gate == "", run.gate
    wrong = [c.label() for c, v in zip(checks, run.verdicts, strict=True) if not v.ok]
    assert not wrong, f"the reference fails checks read from task.txt: {wrong}"


@pytest.mark.parametrize("task", TASKS, ids=TASK_IDS)
def test_hidden_tests_are_small_and_standard_library_only(task: Path) -> None:
    tree = ast.parse((task / "test_hidden.py").read_text())
    tests = [
        node
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    ]
    assert MIN_TESTS <= len(tests) <= MAX_TESTS, f"{len(tests)} test functions"
    for source in (tree, ast.parse((task / "reference.py").read_text())):
        for node in ast.walk(source):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            outside = [name for name in modules if name.split(".")[0] not in ALLOWED_IMPORTS]
            assert not outside, f"standard library only (the sandbox has no pytest): {outside}"


@pytest.mark.parametrize("task", TASKS, ids=TASK_IDS)
def test_reference_passes_the_hidden_tests(task: Path, outcomes: dict[str, Outcome]) -> None:
    failures = outcomes[task_id(task)].failures("reference", expected=0)
    assert not failures, failures


@pytest.mark.parametrize("task", TASKS, ids=TASK_IDS)
def test_a_null_solution_fails_the_hidden_tests(task: Path, outcomes: dict[str, Outcome]) -> None:
    # 1 is "some tests failed" for both runners, not a collection or usage error.
    failures = outcomes[task_id(task)].failures("null", expected=1)
    assert not failures, failures
