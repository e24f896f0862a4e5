"""The errors the gateway answers clients with (:mod:`runtime.gateway.errors`).

The module only declares them: each its HTTP status and its OpenAI-style ``type``, which the
routes answer with and clients (the graph's calls, the OpenAI SDK) act on: a 429 or 503 is
retried, a 504 means the deadline passed, a 4xx is the request's fault.
"""

from __future__ import annotations

import pytest

from runtime.gateway import errors
from runtime.gateway.errors import (
    BadRequestError,
    DeadlineExceededError,
    GatewayError,
    ModelUnavailableError,
    QueueFullError,
    UnauthorizedError,
    UnknownModelError,
    UpstreamError,
)

DECLARED: dict[type[GatewayError], tuple[int, str]] = {
    GatewayError: (500, "gateway_error"),
    UnknownModelError: (404, "model_not_found"),
    BadRequestError: (400, "invalid_request_error"),
    QueueFullError: (429, "queue_full"),
    ModelUnavailableError: (503, "model_unavailable"),
    DeadlineExceededError: (504, "deadline_exceeded"),
    UpstreamError: (502, "upstream_error"),
    UnauthorizedError: (401, "authentication_error"),
}


def test_every_error_the_module_declares_is_listed_here() -> None:
    declared = {
        value
        for value in vars(errors).values()
        if isinstance(value, type) and issubclass(value, GatewayError)
    }
    assert declared == set(DECLARED)


@pytest.mark.parametrize(
    ("error", "expected"), DECLARED.items(), ids=[e.__name__ for e in DECLARED]
)
def test_each_error_carries_its_status_and_kind(
    error: type[GatewayError], expected: tuple[int, str]
) -> None:
    raised = error("what went wrong")
    assert (raised.status, raised.kind) == expected
    assert str(raised) == "what went wrong" and raised.retry_after_s is None
    assert isinstance(raised, RuntimeError)  # a bug's handler (except Exception) sees it


def test_a_refusal_says_when_to_retry() -> None:
    full = QueueFullError("the queue is full", retry_after_s=7)
    assert full.retry_after_s == 7 and full.status == 429
    assert ModelUnavailableError("cooling down", retry_after_s=3).retry_after_s == 3
