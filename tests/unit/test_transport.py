"""agents.transport: what a failed request to the model endpoint means for the caller, wait and
resend (a restart, a full queue), a deadline (no second try), or a final refusal."""

from __future__ import annotations

import httpx
import pytest

from agents.transport import (
    EndpointDeadlineError,
    EndpointUnavailableError,
    retry_after,
    status_failure,
    unreachable,
)


def test_retry_after_is_read_in_seconds_and_never_negative() -> None:
    assert retry_after({"retry-after": "2.5"}) == 2.5
    assert retry_after({"retry-after": "-3"}) == 0.0
    assert retry_after(httpx.Headers({"Retry-After": "7"})) == 7.0  # any case, as HTTP has it
    assert retry_after({}) is None
    assert retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None  # a date


@pytest.mark.parametrize("status", [429, 502, 503])
def test_a_restart_or_a_full_queue_is_transient(status: int) -> None:
    failure = status_failure("m", status, {"retry-after": "3"}, "busy")
    assert isinstance(failure, EndpointUnavailableError)
    assert str(failure) == f"model m: {status}: busy"
    assert failure.status == status and failure.retry_after_s == 3.0 and failure.model == "m"
    assert failure.backpressure == (status == 429)  # only a full queue said when to come back


def test_the_endpoints_deadline_is_a_timeout_and_other_refusals_are_final() -> None:
    deadline = status_failure("m", 504, {}, "took too long")
    assert isinstance(deadline, EndpointDeadlineError) and isinstance(deadline, TimeoutError)
    assert str(deadline) == "model m: the endpoint's deadline passed: took too long"
    for status in (400, 401, 404, 500):
        assert status_failure("m", status, {"retry-after": "1"}, "no") is None


def test_an_unreachable_endpoint_is_named_by_the_transports_own_error() -> None:
    refused = ConnectionRefusedError(111, "Connection refused")
    wrapped = httpx.ConnectError("wrapper")
    wrapped.__cause__ = refused
    outer = RuntimeError("the client's wrapper")
    outer.__cause__ = wrapped
    failure = unreachable("m", outer)
    assert str(failure) == (
        "model m: the endpoint did not answer (ConnectionRefusedError: [Errno 111] "
        "Connection refused)"
    )
    assert failure.status == 0 and failure.retry_after_s is None and not failure.backpressure
    bare = unreachable("m", ConnectionResetError())
    assert str(bare) == "model m: the endpoint did not answer (ConnectionResetError)"
