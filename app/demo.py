"""``make demo``'s last step: the run's solution.py against the demo task's hidden tests.

``python -m app.demo OUT_DIR TESTS [--database DB] [--workspace DIR]`` grades
``OUT_DIR/solution.py`` as ``edgeswarm eval`` grades (in the sandbox, among the project's
files: the database by its file name) and prints one line. Exit 0 when every hidden test
passed, 1 when some failed or there is no solution, 2 on bad arguments.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.evaluate import grade
from tools.project_files import ProjectFiles


def main(argv: list[str] | None = None) -> int:
    """Grade a run's solution.py with hidden tests; one line on stdout, the exit status."""
    parser = argparse.ArgumentParser(prog="python -m app.demo", description=__doc__)
    parser.add_argument("out", type=Path, help="the run's --out folder (holds solution.py)")
    parser.add_argument("tests", type=Path, help="the hidden tests (test_*.py)")
    parser.add_argument("--database", type=Path, help="the run's SQLite file")
    parser.add_argument("--workspace", type=Path, help="the run's workspace")
    args = parser.parse_args(argv)
    if not args.tests.is_file():
        parser.error(f"no hidden tests at {args.tests}")
    solution = args.out / "solution.py"
    code = solution.read_text("utf-8") if solution.is_file() else None
    project = ProjectFiles.scan(args.workspace, args.database)
    checked = grade(code, args.tests.read_text("utf-8"), project=project)
    if code is None:
        print(f"demo: no solution at {solution}")
        return 1
    verdict = "correct" if checked.solved else "not correct"
    print(
        f"demo: the solution is {verdict}: hidden tests {checked.passed} passed, "
        f"{checked.failed} failed ({args.tests})"
    )
    if not checked.solved and checked.detail:
        print(checked.detail, file=sys.stderr)
    return 0 if checked.solved else 1


if __name__ == "__main__":
    sys.exit(main())
