"""A run's calls are cut by their progress, never by a fixed deadline: the vLLM work counters
a silent call is judged by (runtime.progress), what a cut answer keeps and when an answer is
looping (agents.coder), and the stragglers a round of candidates cuts (graphs.coding).

The streamed call itself, and when it counts as stalled (agents.stream), is tested in
test_stream.py.
"""

from __future__ import annotations

import asyncio
import time

from agents.coder import looping, partial_code
from agents.stream import StreamSink
from graphs.coding import _without_stragglers
from runtime.progress import ProgressClock, work_done

ANSWER = "```python\ndef double(x):\n    return 2 * x\n```"


def test_a_cut_answer_competes_only_with_a_whole_block() -> None:
    assert partial_code(ANSWER + "\nprint(double(2))\n") == "def double(x):\n    return 2 * x\n"
    assert partial_code("```python\ndef double(x):\n    return") is None
    assert partial_code("    return 2 * x\n```\n", begun="```python\ndef double(x):\n") == (
        "def double(x):\n    return 2 * x\n"
    )
    assert partial_code("") is None


def test_work_is_read_from_vllm_counters() -> None:
    text = (
        "# HELP vllm:prompt_tokens_total x\n"
        'vllm:prompt_tokens_total{model_name="m"} 120.0\n'
        'vllm:generation_tokens_total{model_name="m"} 30.0\n'
        "vllm:num_requests_running 2\n"
    )
    assert work_done(text) == 150.0
    assert work_done("fake_footprint_bytes 12\n") is None
    clock = ProgressClock(last=0.0)
    assert not clock.observe(150.0, now=5.0)  # the first reading only sets the mark
    assert clock.observe(151.0, now=6.0) and clock.last == 6.0
    assert not clock.observe(None, now=9.0) and clock.silent_for(now=9.0) == 3.0


def test_an_answer_that_repeats_itself_is_looping_and_progress_is_not() -> None:
    line = "    result.append(value * 2)  # double it\n"
    assert looping("```python\ndef f(values):\n" + line * 8)
    progress = "".join(f"    total_{i} = compute_{i}(values, {i})\n" for i in range(12))
    assert not looping("```python\ndef f(values):\n" + progress)
    assert not looping(line * 2)  # too short to tell


async def _stream_into(sink: StreamSink, text: str, pause_s: float) -> str:
    for start in range(0, len(text), 40):
        sink.text += text[start : start + 40]
        await asyncio.sleep(pause_s)
    return "done"


async def test_after_the_greedy_answer_only_a_looping_sample_is_cut() -> None:
    sinks = [StreamSink(), StreamSink(), StreamSink()]
    line = "    result.append(value * 2)  # double it\n"
    progress = "".join(f"    total_{i} = compute_{i}(values, {i})\n" for i in range(30))
    calls = [
        _stream_into(sinks[0], "def f(): pass\n", 0.05),  # the greedy one: quick
        _stream_into(sinks[1], progress, 0.1),  # slow, but new lines: writes on
        _stream_into(sinks[2], line * 200, 0.02),  # repeats itself: cut
    ]
    cuts: dict[int, str] = {}
    answers = await _without_stragglers(calls, 1.0, None, cuts, sinks)
    assert answers[:2] == ["done", "done"] and answers[2] is None
    assert cuts == {2: "looping"}


async def test_the_run_budget_cuts_what_still_writes() -> None:
    sinks = [StreamSink(), StreamSink()]
    progress = "".join(f"    total_{i} = compute_{i}(values, {i})\n" for i in range(60))
    calls = [
        _stream_into(sinks[0], "def f(): pass\n", 0.05),
        _stream_into(sinks[1], progress, 0.2),
    ]
    cuts: dict[int, str] = {}
    started = time.monotonic()
    answers = await _without_stragglers(calls, 1.0, 1.0, cuts, sinks)
    assert time.monotonic() - started < 3
    assert answers == ["done", None] and cuts == {1: "budget"} and sinks[1].text
