"""Every known bug of ``make mutants`` still applies to the gateway as it is.

A mutant is a text replacement in a copy of the tree (bench/mutants.py). When the code it
targets is rewritten, the mutant no longer applies and the mutation run reports it broken
instead of caught: this keeps each one pointing at a line that exists, once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.mutants import GATEWAY, MUTANTS, ROOT, Mutant, apply


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda mutant: mutant.name)
def test_each_mutant_applies_once(mutant: Mutant, tmp_path: Path) -> None:
    for name, old, new in mutant.edits:
        assert old != new
        source = ROOT / GATEWAY / name
        copy = tmp_path / GATEWAY / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(source.read_text())
    assert apply(mutant, tmp_path) == ""
    for name, _, new in mutant.edits:
        assert new in (tmp_path / GATEWAY / name).read_text()


def test_a_mutant_whose_text_is_gone_says_so(tmp_path: Path) -> None:
    gone = Mutant("gone", "targets nothing", (("swap.py", "no such line\n", "x\n"),))
    copy = tmp_path / GATEWAY / "swap.py"
    copy.parent.mkdir(parents=True)
    copy.write_text((ROOT / GATEWAY / "swap.py").read_text())
    assert apply(gone, tmp_path) == "swap.py: the text to replace occurs 0 times, not once"
