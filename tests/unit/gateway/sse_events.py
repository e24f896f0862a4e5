"""Server-sent events as a vLLM server streams them, for the tests of what reads them."""

from __future__ import annotations

import json
from typing import Any

DONE = b"data: [DONE]\n\n"
"""The last event of a stream: the client has the whole answer."""


def sse(payload: dict[str, Any]) -> bytes:
    """One event carrying ``payload``."""
    return f"data: {json.dumps(payload)}\n\n".encode()


def piece(text: str) -> bytes:
    """One event of a streamed chat answer carrying ``text``."""
    return sse({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]})
