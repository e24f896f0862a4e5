"""The model gateway: one OpenAI-compatible front that swaps models under a memory budget.

Three parts with one owner each (see ``DESIGN.md`` beside this file): process machinery
(:mod:`runtime.gateway.backends`, carried out by :mod:`runtime.gateway.residency`), scheduling
(:mod:`runtime.gateway.policies`, pure, driven by :class:`runtime.gateway.swap.SwapScheduler`)
and eviction (:mod:`runtime.gateway.eviction`, pure). Run it with ``edgeswarm gateway``
(:mod:`runtime.gateway.cli`) or for the runs that need it with
:func:`runtime.gateway.embedded.embedded_gateway` (shared by them, while any holds a lease on
it: :mod:`runtime.gateway.leases`); graph nodes lease their model with
``POST /models/{name}/load`` before each call.
"""
