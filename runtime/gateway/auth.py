"""Who may use the gateway: a bearer token, required to listen beyond loopback.

The token comes from the config's ``auth`` section: a file (``auth.token_file``) or an
environment variable (``auth.token_env``, by default ``EDGESWARM_GATEWAY_TOKEN``), never from
the YAML itself. With a token, :class:`BearerAuth` guards every route: a request without
``Authorization: Bearer <token>`` (compared in constant time) gets a 401 with
``WWW-Authenticate: Bearer``, except ``GET /health``, which answers a bare ``{"status": "ok"}``
(for load balancers and start checks) and its details only with the token.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Mapping
from pathlib import Path

from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.gateway.config import AuthConfig, ConfigError
from runtime.gateway.errors import UnauthorizedError
from runtime.gateway.proxy import error_body

MIN_TOKEN_CHARS = 16
_REALM = 'Bearer realm="edgeswarm"'


def is_loopback(host: str) -> bool:
    """Whether listening on ``host`` keeps the gateway to this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any interface


def resolve_token(auth: AuthConfig, origin: str, environ: Mapping[str, str]) -> str | None:
    """The gateway's bearer token, or None when none is configured.

    Raises:
        ConfigError: the token file is unreadable, an explicitly named variable is unset, or
            the token is too short or holds whitespace; the message names the key.
    """
    if auth.token_file is not None:
        key = "auth.token_file"
        path = auth.token_file.expanduser()
        if not path.is_absolute():
            path = Path(origin).parent / path
        try:
            token = path.read_text("utf-8").strip()
        except (OSError, UnicodeDecodeError) as err:
            raise ConfigError(f"{origin}: {key}: cannot read the token: {err}") from None
    else:
        key = f"auth.token_env ({auth.token_env})"
        token = environ.get(auth.token_env, "").strip()
        if not token and "token_env" not in auth.model_fields_set:
            return None
        if not token:
            raise ConfigError(f"{origin}: {key}: the variable is not set")
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ConfigError(
            f"{origin}: {key}: the token must be at least {MIN_TOKEN_CHARS} characters without "
            "spaces (e.g. `openssl rand -hex 32`)"
        )
    return token


COOKIE = "edgeswarm_token"
"""The status page's login cookie: the token itself (HttpOnly, SameSite=Strict)."""
LOGIN_PATH = "/ui/login"


class BearerAuth:
    """ASGI middleware: every HTTP request must carry the gateway's bearer token.

    In ``Authorization: Bearer``, or, for a browser on the status page, in the cookie its
    login form sets (``/ui/login`` itself needs no token; an unauthorized ``GET /ui`` is sent
    there).
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass an authorized request (or a lifespan event) on; answer the others."""
        if scope["type"] != "http" or scope["path"] == LOGIN_PATH:
            await self.app(scope, receive, send)
            return
        credentials = self._credentials(scope)
        if credentials is not None and self.accepts(credentials):
            await self.app(scope, receive, send)
            return
        response: Response
        if scope["path"] == "/health" and scope["method"] in ("GET", "HEAD"):
            response = JSONResponse({"status": "ok"})
        elif scope["path"] == "/ui" and scope["method"] == "GET":
            response = RedirectResponse(LOGIN_PATH, status_code=303)
        else:
            response = _unauthorized(wrong=credentials is not None)
        await response(scope, receive, send)

    def accepts(self, credentials: bytes) -> bool:
        """Whether ``credentials`` are this gateway's token (compared in constant time)."""
        return hmac.compare_digest(credentials, self._token)

    @staticmethod
    def _credentials(scope: Scope) -> bytes | None:
        """The token of the ``Authorization: Bearer`` header, else of the login cookie."""
        cookie: bytes | None = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, credentials = value.strip().partition(b" ")
                return credentials.strip() if scheme.lower() == b"bearer" else None
            if name == b"cookie":
                cookie = _cookie(value, COOKIE.encode()) or cookie
        return cookie


def _cookie(header: bytes, name: bytes) -> bytes | None:
    for pair in header.split(b";"):
        key, _, value = pair.strip().partition(b"=")
        if key == name and value:
            return value
    return None


def _unauthorized(*, wrong: bool) -> Response:
    if wrong:
        error = UnauthorizedError("the bearer token is not this gateway's token")
        challenge = f'{_REALM}, error="invalid_token"'
    else:
        error = UnauthorizedError(
            "this gateway requires `Authorization: Bearer <token>` with its token "
            "(edgeswarm clients send EDGESWARM_API_KEY)"
        )
        challenge = _REALM
    return JSONResponse(
        error_body(error), status_code=error.status, headers={"WWW-Authenticate": challenge}
    )
