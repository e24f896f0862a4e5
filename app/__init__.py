"""The edgeswarm application around the graph.

The CLI, running and resuming runs, the runs store, the report, the evaluation and the
LangGraph server's checkpointer. It imports the graph (``graphs``) and the runtime; nothing in
``graphs`` imports it (tests/unit/test_layers.py).
"""
