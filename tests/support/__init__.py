"""Helpers that several test modules share; a test module imports them from here, never
from another test module (and fixtures they share live in the nearest ``conftest.py``).

- :mod:`tests.support.network`: the loopback ports the network guard (``tests/conftest.py``)
  lets unit tests reach.
- :mod:`tests.support.scripts`: scripted answers for the fake OpenAI-compatible server.
- :mod:`tests.support.graph`: the swarm graph run against that server, and what it was asked.
- :mod:`tests.support.gateway`: a live gateway in the test's event loop, or as a process,
  with fake vLLM backends.
- :mod:`tests.support.swarm`: whole swarm runs through a gateway of fake vLLM backends.
- :mod:`tests.support.processes`: processes alive, gone and below another.
- :mod:`tests.support.cli`: ``edgeswarm`` as a subprocess and what an honest result is.
- :mod:`tests.support.studio`: ``langgraph dev`` offline, as Studio's server.

The fake servers themselves, their command lines and :class:`tests.fakes.FakeOpenAI` are in
:mod:`tests.fakes` (the benchmark uses them too).
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The repository root."""
