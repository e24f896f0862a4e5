"""``python -m bench.seeded_sampling``: its requests and its refusals (no server starts here)."""

from __future__ import annotations

import pytest

from bench import seeded_sampling


def test_every_request_is_seeded_and_sampled_and_half_meet_a_long_prefill() -> None:
    bodies = [seeded_sampling._body("m", i) for i in range(len(seeded_sampling.ASKS))]
    assert len({b["seed"] for b in bodies}) == len(bodies)  # one seed per ask, every round
    assert all(b["temperature"] > 0 and b["model"] == "m" for b in bodies)
    long = [b for b in bodies if seeded_sampling.NOTES in b["messages"][0]["content"]]
    assert len(long) == len(bodies) // 2  # prefills that a chunking server would split
    assert "--enable-chunked-prefill" in seeded_sampling.CHUNKED


def test_one_round_compares_nothing_and_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        seeded_sampling.main(["--rounds", "1"])
    assert stop.value.code == 2 and "at least 2" in capsys.readouterr().err
