"""What a failed request to the model endpoint means for the caller: wait and resend, or not.

A gateway restarting (connection refused or reset), a model server restarting or swapped out
under the request (502, 503) and a full queue (429, with ``Retry-After``) are transient: the
same request may succeed a moment later, so the caller resends it with backoff, within its
deadline (:func:`agents.call.call_structured`). A deadline the endpoint enforced (504) is a
timeout: a hung model gets no second try. Any other refusal (400, 401, 404, 500) is final for
that model: resending the same request would get the same answer.
"""

from __future__ import annotations

from collections.abc import Mapping

TRANSIENT_STATUSES = frozenset({429, 502, 503})


class EndpointUnavailableError(RuntimeError):
    """The endpoint could not take the request now; the same request may succeed later."""

    def __init__(
        self, model: str, reason: str, *, retry_after_s: float | None = None, status: int = 0
    ) -> None:
        self.model = model
        self.retry_after_s = retry_after_s
        """The server's ``Retry-After``, in seconds (None when it gave none)."""
        self.status = status
        """The HTTP status (0: no answer at all)."""
        super().__init__(f"model {model}: {reason}")

    @property
    def backpressure(self) -> bool:
        """A full queue (429): the endpoint is alive and said when to come back."""
        return self.status == 429


class EndpointDeadlineError(TimeoutError):
    """The endpoint gave up at its own deadline (504), or the client's timeout passed."""


def retry_after(headers: Mapping[str, str]) -> float | None:
    """``Retry-After`` in seconds; None when absent or an HTTP date (not sent by our gateway)."""
    value = headers.get("retry-after")
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None


def unreachable(model: str, err: BaseException) -> EndpointUnavailableError:
    """The endpoint did not answer: refused, reset or closed the connection."""
    cause = err
    while cause.__cause__ is not None:  # the transport's own error, under the clients' wrappers
        cause = cause.__cause__
    detail = f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__
    return EndpointUnavailableError(model, f"the endpoint did not answer ({detail})")


def status_failure(
    model: str, status: int, headers: Mapping[str, str], detail: str
) -> EndpointUnavailableError | EndpointDeadlineError | None:
    """What a failed status means: wait and resend, a deadline, or None (a final refusal)."""
    if status == 504:
        return EndpointDeadlineError(f"model {model}: the endpoint's deadline passed: {detail}")
    if status in TRANSIENT_STATUSES:
        return EndpointUnavailableError(
            model, f"{status}: {detail}", retry_after_s=retry_after(headers), status=status
        )
    return None
