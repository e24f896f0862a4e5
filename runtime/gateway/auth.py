"""Who may use the gateway: a bearer token, required to listen beyond loopback.

The token comes from the config's ``auth`` section: a file (``auth.token_file``) or an
environment variable (``auth.token_env``, by default ``EDGESWARM_GATEWAY_TOKEN``), never from
the YAML itself. With a token, :class:`BearerAuth` guards every route: a request without
``Authorization: Bearer <token>`` (compared in constant time) gets a 401 with
``WWW-Authenticate: Bearer``, except ``GET /health``, which answers a bare ``{"status": "ok"}``
(for load balancers and start checks) and its details only with the token.

What a web page may make the gateway do: :class:`OriginGuard` refuses, with 403, a request
whose ``Origin`` is another site's (cross-site request forgery: a page the user visits posting
to the gateway on localhost), on the routes that change something (every method but GET,
HEAD and OPTIONS), and on every route when no token is configured. Without a token it also
refuses a ``Host`` that is not one of the gateway's names (DNS rebinding: a page whose own
name has been pointed at 127.0.0.1), which are the names it is bound on, ``localhost``,
``127.0.0.1``, ``::1`` and the config's ``http.allowed_hosts``. Requests without an Origin
(curl, the OpenAI client, the runs) pass; so do the gateway's own pages, whose Origin is the
gateway itself. With a token a foreign ``Host`` is not refused: a rebinding page cannot send
the token, and a gateway bound on ``0.0.0.0`` is reached by names it cannot know.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import NamedTuple
from urllib.parse import urlsplit

from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from runtime.gateway.config import AuthConfig, ConfigError, host_name
from runtime.gateway.errors import GatewayError, UnauthorizedError
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


LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
"""Names a gateway on this machine always answers to (the Host header)."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
"""Methods that change nothing: a foreign Origin is refused only on the others (with a token)."""


class ForbiddenError(GatewayError):
    """The request came from a web page on another site, or by a foreign host name (403)."""

    status = 403
    kind = "permission_error"


class _Place(NamedTuple):
    """A host name and the port written with it (None: the scheme's default)."""

    host: str
    port: int | None


def trusted_hosts(bound: Iterable[str], allowed: Iterable[str] = ()) -> frozenset[str]:
    """The host names the gateway answers to.

    They are ``bound`` (the addresses it listens on, less wildcards), the loopback names and
    ``allowed`` (``http.allowed_hosts``).
    """
    names = {*LOOPBACK_NAMES, *allowed}
    for host in bound:
        try:
            name = host_name(host)
        except ValueError:
            continue
        if name not in ("0.0.0.0", "::"):  # noqa: S104 (a wildcard names no host)
            names.add(name)
    return frozenset(names)


class OriginGuard:
    """ASGI middleware: refuse what a web page on another site may have sent (see above)."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        hosts: frozenset[str],
        allowed: frozenset[str] = frozenset(),
        everything: bool,
        refused: Callable[[str], None] | None = None,
    ) -> None:
        self.app = app
        self.hosts = hosts
        """The gateway's names (:func:`trusted_hosts`)."""
        self.allowed = allowed
        """``http.allowed_hosts``: pages there may call the gateway, whatever their port."""
        self.everything = everything
        """Check every route and the Host header too (no token is configured)."""
        self.refused = refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass a request from no page or from the gateway's own; answer the others."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        problem = self.problem(scope)
        if problem is None:
            await self.app(scope, receive, send)
            return
        reason, message = problem
        if self.refused is not None:
            self.refused(reason)
        error = ForbiddenError(message)
        await JSONResponse(error_body(error), status_code=error.status)(scope, receive, send)

    def problem(self, scope: Scope) -> tuple[str, str] | None:
        """Why the request is refused (a reason for the metrics, a message); None: it is not."""
        host_header = _header(scope, b"host")
        origin = _header(scope, b"origin")
        host = _place(host_header) if host_header is not None else None
        if self.everything and host_header is not None and (host is None or not self._ours(host)):
            return "foreign_host", (
                f"the Host {host_header!r} is not a name of this gateway, which has no token "
                f"and answers only to {', '.join(sorted(self.hosts))} (a web page may be "
                "reaching it through DNS rebinding); if the name is yours, add it to "
                "http.allowed_hosts in the gateway config"
            )
        if origin is None or not (self.everything or scope["method"] not in SAFE_METHODS):
            return None
        if self._same_site(origin, host):
            return None
        return "foreign_origin", (
            f"a request from the web page at {origin!r} may not use this gateway: only its own "
            "pages may (clients that send no Origin, such as curl or the OpenAI client, are "
            "not affected); if that site is yours, add its host to http.allowed_hosts in the "
            "gateway config"
        )

    def _ours(self, host: _Place) -> bool:
        return host.host in self.hosts

    def _same_site(self, origin: str, host: _Place | None) -> bool:
        """Whether a page at ``origin`` is the gateway's own (or an allowed site's)."""
        try:
            parts = urlsplit(origin)
            port = parts.port
        except ValueError:
            return False
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return False  # "null": a sandboxed frame, a file, a redirect across sites
        try:
            name = host_name(parts.hostname)
        except ValueError:
            return False
        if name in self.allowed:
            return True
        if host is None:
            return False
        return port == host.port and (name == host.host or name in self.hosts)


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            text: str = value.decode("latin-1")
            return text
    return None


def _place(header: str) -> _Place | None:
    """The host and port of a ``Host`` header; None when it is not one."""
    text = header.strip()
    port_text: str | None = None
    if text.startswith("["):
        name, bracket, rest = text[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return None
        port_text = rest[1:] if rest else None
    elif ":" in text:
        name, _, port_text = text.rpartition(":")
    else:
        name = text
    if port_text is not None and not port_text.isdigit():
        return None
    try:
        return _Place(host_name(name), int(port_text) if port_text is not None else None)
    except ValueError:
        return None
