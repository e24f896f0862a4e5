"""The edgeswarm graph: its state, per-run context, nodes and the compiled ``StateGraph``.

The application around it (CLI, runs, report, eval) lives in ``app``.
"""
