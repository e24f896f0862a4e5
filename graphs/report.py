"""How the CLI shows results: readable text on a terminal, or JSON with ``--json``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from runtime.provision import LocalModel, PullResult


def print_run(output: dict[str, Any], *, as_json: bool) -> None:
    """Print a run's output state."""
    if as_json:
        print(json.dumps(output, indent=2))
        return
    print(f"run {output['run_id']}: {output['status']} in {output['seconds']} s")
    if output.get("error"):
        print(f"  error: {output['error']}")
    brief = output.get("brief")
    if brief:
        print(f"  summary:     {brief['summary']}")
        print(f"  kind:        {brief['kind']} ({brief['difficulty']})")
        print(f"  entry point: {brief['entry_point']}")
        print("  requirements:")
        for item in brief["requirements"]:
            print(f"    - {item}")
        if brief["constraints"]:
            print("  constraints:")
            for item in brief["constraints"]:
                print(f"    - {item}")
        print("  test cases:")
        for case in brief["test_cases"]:
            print(f"    - {case['call']} == {case['expected']}   # {case['description']}")
    for metric in output.get("metrics", []):
        print(
            f"  [{metric['node']}] {metric['model']}: {metric['prompt_tokens']} prompt + "
            f"{metric['completion_tokens']} completion tokens, {metric['seconds']} s"
        )


def print_pull(result: PullResult) -> None:
    """One line per pulled model."""
    if result.changed:
        print(
            f"{result.name}: ready at {result.path} ({result.seconds:.0f} s); "
            f"check answer: {result.check_answer!r}"
        )
    else:
        print(f"{result.name}: already present at {result.path}")


def print_models(models: Sequence[LocalModel], *, as_json: bool) -> None:
    """A table of catalogue models and their local state."""
    rows = [
        {
            "name": m.entry.name,
            "model": m.entry.display_name,
            "dtype": m.entry.dtype,
            "license": m.entry.license,
            "status": "ready" if m.ready else ("incomplete" if m.size_bytes else "not pulled"),
            "size_bytes": m.size_bytes,
            "path": str(m.path),
        }
        for m in models
    ]
    if as_json:
        print(json.dumps(rows, indent=2))
        return
    print(f"{'NAME':32} {'DTYPE':9} {'STATUS':11} {'SIZE':>9}  LICENSE")
    for row in rows:
        size_bytes = int(row["size_bytes"])
        size = f"{size_bytes / 1e6:.0f} MB" if size_bytes else "-"
        print(f"{row['name']:32} {row['dtype']:9} {row['status']:11} {size:>9}  {row['license']}")
