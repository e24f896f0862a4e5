"""Would the selection rules as they stand now choose differently on recorded runs?

``python -m bench.replay FILE... [--failing-alike]`` ranks every swarm run's recorded
candidates again with the coder's own :func:`graphs.coding.choose`, and
compares the choice with the recorded one. Each candidate's own hidden grade is in the record
(``hidden_solved``), so a changed choice says at once whether it gains or loses a task. No
model runs and nothing is graded again: a rule is measured on thousands of choices in seconds.
Run it at two commits to compare two forms of a rule.

What a record lacks is the value each check's call returned: only whether it passed. A
passing call returned the expected value, so two passing candidates agree on it. A failing
call's value is unknown: it is counted as differing from every other candidate's, or, with
``--failing-alike``, as the same for every candidate that failed it. The truth lies between,
so a rule that gains under both and loses under neither holds. The probes' outcomes and the
peer asserts' verdicts are recorded as they were. A tool's blocking finding is not recorded:
no candidate is blocked.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from graphs.coding import choose
from graphs.state import Candidate
from tools.check_runner import Check, CheckSource, Verdict

ROOT = Path(__file__).resolve().parents[1]
_CHECK = re.compile(r"^(?:PASS|FAIL) \[(\w+)\] (.*)$", re.S)
_RAISES = re.compile(r"^(.*) raises (\w+)$", re.S)


@dataclass
class FileReplay:
    """One eval file's choices, recorded and replayed."""

    path: str
    choices: int = 0
    """Runs with at least one gated-in candidate (where the rank chooses)."""
    recorded_right: int = 0
    replayed_right: int = 0
    same: int = 0
    """Choices the rules as they stand make as recorded."""
    changed: list[dict[str, Any]] = field(default_factory=list)
    """Each changed choice: the task, its split, and whether the recorded and the replayed
    candidate passed the hidden tests."""
    skipped: int = 0
    """Runs whose checks or verdicts cannot be read back."""


def parse_check(line: str) -> Check | None:
    """A check from its recorded line (``PASS [writer] f(1) == 2``); None if unreadable.

    A setup (``s = Stack(); s.push(1) == None``) stays in the call: the rank reads only the
    source, the expected value and the exception.
    """
    found = _CHECK.match(line)
    if found is None:
        return None
    source, body = found.group(1), found.group(2)
    kind = next((k for k in get_args(CheckSource) if k == source), None)
    if kind is None:
        return None
    call, sep, expected = body.partition(" == ")
    if sep:
        return Check(call=call, expected=expected, source=kind)
    raising = _RAISES.match(body)
    if raising is None:
        return None
    return Check(call=raising.group(1), expected="", source=kind, raises=raising.group(2))


def workspace_names(task_dir: Path) -> dict[str, str]:
    """The functions and classes the task's workspace defines (what ``project_calls`` counts)."""
    names: dict[str, str] = {}
    for path in sorted((task_dir / "workspace").rglob("*.py")):
        try:
            tree = ast.parse(path.read_text("utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names[node.name] = path.stem
    return names


def _candidates(attempts: Sequence[Mapping[str, Any]], alike: bool) -> list[Candidate]:
    def got(i: int, k: int, ok: bool) -> str:
        if ok:
            return f"expected {k}"
        return f"failed {k}" if alike else f"failed {k} by {i}"

    return [
        Candidate(
            code=a["code"],
            revision=a["revision"],
            greedy=a["greedy"],
            seed=0,
            gate=a["gate"],
            verdicts=[Verdict(ok=ok, got=got(i, k, ok)) for k, ok in enumerate(a["checks_passed"])],
            observed=list(a.get("observed") or []),
            peers=list(a.get("peers") or []),
            id=f"c{i}",
        )
        for i, a in enumerate(attempts)
    ]


def replay_run(
    task: Mapping[str, Any], task_dir: Path | None, alike: bool = False
) -> tuple[int, int] | None:
    """The recorded and the replayed choice of one swarm run; None where there is none.

    The choice is :func:`graphs.coding.choose`'s, as the coder makes it. A run where no
    candidate passed the gate has none to replay (the greedy one stands).
    """
    swarm = task.get("swarm") or {}
    attempts: list[dict[str, Any]] = swarm.get("attempts") or []
    checks = [parse_check(line) for line in swarm.get("checks") or []]
    chosen = next((i for i, a in enumerate(attempts) if a.get("chosen")), None)
    readable = [c for c in checks if c is not None]
    if chosen is None or len(readable) != len(checks) or all(a["gate"] for a in attempts):
        return None
    if any(len(a["checks_passed"]) != len(checks) and not a["gate"] for a in attempts):
        return None
    done = _candidates(attempts, alike)
    symbols = workspace_names(task_dir) if task_dir is not None else {}
    best = choose(readable, done, symbols=symbols, entry=str(task["task"]).split("_", 1)[-1])
    return chosen, next(i for i, c in enumerate(done) if c is best.best)


def replay_file(path: Path, alike: bool = False) -> FileReplay:
    """Every swarm run of one eval file, replayed."""
    data = json.loads(path.read_text("utf-8"))
    result = FileReplay(str(path))
    tasks_dir = ROOT / str(data.get("tasks_dir", ""))
    for task in data.get("tasks", []):
        if not (task.get("swarm") or {}).get("attempts"):
            continue
        folder = tasks_dir / str(task["task"])
        pair = replay_run(task, folder if folder.is_dir() else None, alike)
        if pair is None:
            result.skipped += 1
            continue
        recorded, replayed = pair
        attempts = task["swarm"]["attempts"]
        was = bool(attempts[recorded]["hidden_solved"])
        now = bool(attempts[replayed]["hidden_solved"])
        result.choices += 1
        result.recorded_right += was
        result.replayed_right += now
        if recorded == replayed:
            result.same += 1
        else:
            result.changed.append(
                {"task": task["task"], "split": task.get("split"), "recorded": was, "now": now}
            )
    return result


def main(argv: Sequence[str] | None = None) -> int:
    """Replay the files, print each one's choices and the changed ones, then the total."""
    parser = argparse.ArgumentParser(prog="python -m bench.replay", description=__doc__)
    parser.add_argument("files", nargs="+", type=Path, help="eval JSON files (bench/results)")
    parser.add_argument(
        "--failing-alike",
        action="store_true",
        help="count a failing check's unknown value as the same for every candidate failing it",
    )
    parser.add_argument("--out", type=Path, help="write every file's replay as JSON here")
    args = parser.parse_args(argv)
    results = []
    for path in args.files:
        data = json.loads(path.read_text("utf-8"))
        if not isinstance(data, dict) or "tasks" not in data:
            continue  # not an eval's record (a plot's data, a sampling probe)
        results.append(replay_file(path, args.failing_alike))
    for r in results:
        print(
            f"{Path(r.path).name}: {r.choices} choices, right {r.recorded_right} recorded, "
            f"{r.replayed_right} now, {r.same} the same"
        )
        for c in r.changed:
            mark = "+" if c["now"] and not c["recorded"] else "-" if c["recorded"] else " "
            print(f"  {mark} {c['task']} ({c['split']}): {c['recorded']} -> {c['now']}")
    total = {
        "choices": sum(r.choices for r in results),
        "recorded_right": sum(r.recorded_right for r in results),
        "replayed_right": sum(r.replayed_right for r in results),
        "changed": sum(len(r.changed) for r in results),
        "gained": sum(1 for r in results for c in r.changed if c["now"] and not c["recorded"]),
        "lost": sum(1 for r in results for c in r.changed if c["recorded"] and not c["now"]),
    }
    print(json.dumps(total))
    if args.out:
        args.out.write_text(
            json.dumps({"total": total, "files": [r.__dict__ for r in results]}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
