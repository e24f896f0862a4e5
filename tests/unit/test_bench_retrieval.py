"""bench.retrieval: where a repository's helper ranks for a task that needs it, measured on
a small repository made here (the benchmark itself runs on this one)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bench import retrieval
from bench.retrieval import CASES, Case, main, measure


def repo(root: Path) -> Path:
    (root / "money").mkdir(parents=True)
    (root / "money" / "__init__.py").write_text("")
    (root / "money" / "rounding.py").write_text(
        "def round_cents(amount):\n"
        '    """Round a euro amount to whole cents, half up, as invoices do."""\n'
        "    return int(amount * 100 + 0.5)\n"
    )
    (root / "money" / "vat.py").write_text(
        "RATE = 0.21\n\n\ndef with_vat(cents):\n"
        '    """A net price in cents with value-added tax added."""\n'
        "    return round(cents * (1 + RATE))\n"
    )
    (root / "notes.txt").write_text("shopping list: bread, milk\n")
    return root


def test_a_helper_the_task_describes_is_ranked_and_shown(tmp_path: Path) -> None:
    cases = [
        Case(
            "Write invoice_total(amounts) that sums euro amounts, rounded to cents as "
            "invoices do, with the project's rounding.",
            "money/rounding.py:round_cents",
        ),
        Case("Write greet(name) that says hello.", "money/vat.py:with_vat"),  # nothing asks
    ]
    summary, results = measure(repo(tmp_path), cases)
    assert summary["cases"] == 2 and summary["files"] == 4
    found, missed = results
    assert found.rank == 1 and found.shown and found.shown_before == []
    assert found.bm25_rank == 1
    assert missed.rank is None and missed.bm25_rank is None and not missed.shown
    assert summary["shown"] == 1 and summary["top5"] == 1 and summary["bm25_top5"] == 1


def test_the_command_prints_each_case_and_writes_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    case = Case(
        "Add VAT to a net price in cents with the project's tax helper.", "money/vat.py:with_vat"
    )
    monkeypatch.setattr(retrieval, "CASES", (case,))
    out = tmp_path / "out.json"
    assert main(["--root", str(repo(tmp_path / "r")), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "money/vat.py:with_vat" in printed and "shown 1, top 5 1" in printed
    data = json.loads(out.read_text())
    assert data["results"][0]["helper"] == "money/vat.py:with_vat" and data["shown"] == 1
    with pytest.raises(SystemExit) as exit_:
        main(["--root", str(tmp_path / "missing")])
    assert exit_.value.code == 2


def test_every_case_names_a_helper_of_this_repository_its_task_does_not_name() -> None:
    root = Path(__file__).resolve().parents[2]
    for case in CASES:
        path, name = case.helper.split(":")
        assert f"def {name}(" in (root / path).read_text(), case.helper
        assert not re.search(rf"\b{name}\b", case.task), case.helper  # ("a parser" may)
