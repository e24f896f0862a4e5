"""The benchmark's swarm-level parts; each returns plain data for the results file.

One module per part; ``common`` holds what several parts share (the task statements, the
stack budgets, one swarm run and its timings):

- ``batching``, :func:`swarm_batching`: N = 1, 2, 4, 8 concurrent swarm runs straight to one
  vLLM CPU server and through a gateway in front of that same server, each arm a fixed time
  window: runs/min, tokens/s, their ratio; and the share of each real run's wall time that was
  not spent waiting for the model.
- ``prefix``, :func:`prefix_caching`: vLLM's prefix-cache hit rate over the prompts of one
  swarm run and of 10 concurrent runs, with the shipped prompt layout (stable parts first) and
  the reverse.
- ``guided``, :func:`guided_cost`: tokens/s of the agents' schema-guided answers vs
  unconstrained generation of the same length, same prompts.
- ``scripted``, :func:`orchestration_overhead`: milliseconds per node of graph + lease hook
  (+ gateway) with an instant fake model.
- ``scripted``, :func:`context_pruning`: prompt tokens per node over 0-3 revisions with and
  without the summarization nodes (scripted fake answers, real prompts, the model's real
  tokenizer). ``scripted`` also holds the fake server and the scripted answers.
- ``evaluation``, :func:`effectiveness`: ``edgeswarm eval`` over the first dev tasks one at a
  time, as a user runs a task: the swarm's wall time per task against one plain call of its
  coder model.
- ``busy``, :func:`busy_machine`: the swarm arm of ``edgeswarm eval`` over 6 dev tasks on the
  idle machine and beside a CPU hog (:mod:`bench.hog`), back to back: solved counts, wall
  times, their ratio.

The swarm runs in this process (the graph is a library); the models run in their servers.
"""

from __future__ import annotations

from bench.swarm_parts.batching import SwarmBatchSizes, swarm_batching
from bench.swarm_parts.busy import BusySizes, busy_machine, sample_tasks
from bench.swarm_parts.evaluation import EffectivenessSizes, effectiveness, wait_ratio
from bench.swarm_parts.guided import GuidedSizes, guided_cost
from bench.swarm_parts.prefix import PrefixSizes, prefix_caching, record_prompts, replay_runs
from bench.swarm_parts.scripted import (
    OverheadSizes,
    PruningSizes,
    context_pruning,
    fake_server,
    orchestration_overhead,
)

__all__ = [
    "BusySizes",
    "EffectivenessSizes",
    "GuidedSizes",
    "OverheadSizes",
    "PrefixSizes",
    "PruningSizes",
    "SwarmBatchSizes",
    "busy_machine",
    "context_pruning",
    "effectiveness",
    "fake_server",
    "guided_cost",
    "orchestration_overhead",
    "prefix_caching",
    "record_prompts",
    "replay_runs",
    "sample_tasks",
    "swarm_batching",
    "wait_ratio",
]
