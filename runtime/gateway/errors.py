"""Errors the gateway answers clients with; each carries its HTTP status."""

from __future__ import annotations


class GatewayError(RuntimeError):
    """A request the gateway cannot serve; ``status`` is the HTTP status to answer."""

    status = 500
    kind = "gateway_error"

    def __init__(self, message: str, *, retry_after_s: int | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


class UnknownModelError(GatewayError):
    """No model of that name is configured."""

    status = 404
    kind = "model_not_found"


class BadRequestError(GatewayError):
    """The request cannot be routed (not JSON, no ``model``)."""

    status = 400
    kind = "invalid_request_error"


class QueueFullError(GatewayError):
    """The bounded queue is full; retry after ``retry_after_s``."""

    status = 429
    kind = "queue_full"


class ModelUnavailableError(GatewayError):
    """The model could not be made ready (it failed to start, or was evicted mid-request)."""

    status = 503
    kind = "model_unavailable"


class DeadlineExceededError(GatewayError):
    """The request's deadline passed (queued, loading or answering)."""

    status = 504
    kind = "deadline_exceeded"


class UpstreamError(GatewayError):
    """The model's server failed or died while answering."""

    status = 502
    kind = "upstream_error"


class UnauthorizedError(GatewayError):
    """The request lacks this gateway's bearer token (401 with ``WWW-Authenticate``)."""

    status = 401
    kind = "authentication_error"
