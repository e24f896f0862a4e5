"""The gateway's live status page: ``GET /ui``, its data at ``GET /ui/status``, a login form.

Plain HTML, CSS and a little JavaScript shipped in the package (``ui.html``): no build step,
no CDN. The page polls ``/ui/status`` every second (the scheduler's ``/running`` view, each
model's time in its state, idle countdown and recent tokens/s, the swap counts and the last
swaps) and tails ``/logs`` (``?follow=0&after=N``: the request records that ended since it
last asked); its buttons call the existing load and unload routes, only those that fit a
model's state. With a token configured, the page is guarded like every route: a browser signs
in once at ``/ui/login``, which sets the token as an HttpOnly, SameSite=Strict cookie.
"""

from __future__ import annotations

import hmac
import time
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from runtime.gateway.auth import COOKIE
from runtime.gateway.policies import ModelState
from runtime.gateway.service import GatewayService

_MAX_FORM_BYTES = 4096
_LOGIN = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>edgeswarm gateway: sign in</title>
<style>body{{font:15px system-ui,sans-serif;margin:0;display:grid;place-items:center;
min-height:100vh;background:#f8f9fb}}form{{background:#fff;border:1px solid #e4e7ec;
border-radius:8px;padding:20px;display:grid;gap:10px;width:min(360px,90vw)}}
input,button{{font:inherit;padding:6px}}p{{color:#c62828;margin:0}}</style></head>
<body><form method="post" action="/ui/login"><strong>edgeswarm gateway</strong>
<label for="token">The gateway's token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
{error}<button type="submit">Sign in</button></form></body></html>
"""


@cache
def page() -> str:
    """The status page's HTML, read once from the package."""
    return resources.files("runtime.gateway").joinpath("ui.html").read_text("utf-8")


class StatusPage:
    """The page's routes over a running gateway service."""

    def __init__(self, service: GatewayService) -> None:
        self.service = service

    async def index(self, _: Request) -> Response:
        """The page itself; it fetches its data."""
        return HTMLResponse(page(), headers={"Cache-Control": "no-store"})

    async def status(self, _: Request) -> Response:
        """What the page shows: every model's state, the last swaps and requests.

        Each model of ``/running`` gains what the page shows beside it: ``backend`` as the
        config names it (``vllm``, ``command``, ``remote``), ``swap``, ``state_s`` (seconds
        in its state), ``unloads_in_s`` with ``unload_verb`` (the idle countdown: a ready
        model ``unloads`` after ``idle_ttl_s`` unused, a sleeping one ``stops`` after
        ``sleep_ttl_s``; None while in use or without a TTL) and ``tokens_per_s`` (over its
        last answers). ``counts``: swap steps so far by kind (``load``, ``wake``...).
        ``last_seq``: the newest request record's ``seq`` (the page tails ``GET /logs``).
        """
        service = self.service
        running = service.scheduler.running()
        speeds = service.request_log.speeds()
        now = time.monotonic()
        for model in running["models"]:
            model.update(self._extras(model["name"], now))
            model["tokens_per_s"] = speeds.get(model["name"])
        counts: dict[str, int] = {}
        for (_model, kind), count in service.metrics.swaps.items():
            counts[kind] = counts.get(kind, 0) + count
        return JSONResponse(
            {
                "now": time.time(),
                "running": running,
                "counts": counts,
                "swaps": list(service.metrics.recent_swaps),
                "requests": [r.as_dict() for r in service.request_log.since(tail=20)],
                "last_seq": ring[-1].seq if (ring := service.request_log.ring) else 0,
            },
            headers={"Cache-Control": "no-store"},
        )

    def _extras(self, name: str, now: float) -> dict[str, Any]:
        """What the page shows of model ``name`` beyond ``/running``'s view of it."""
        slot = self.service.slots.get(name)
        kinds = {m.name: m.backend for m in self.service.setup.config.models}
        if slot is None or not slot.managed:
            return {"backend": kinds.get(name, "remote"), "swap": None, "state_s": None}
        scheduling = self.service.setup.config.scheduling
        ttl = {ModelState.READY: scheduling.idle_ttl_s, ModelState.SLEEPING: scheduling.sleep_ttl_s}
        left: float | None = None
        limit = ttl.get(slot.state)
        if limit is not None and not slot.in_flight and not slot.live_waiters():
            left = max(0.0, limit - (now - slot.last_used))
        return {
            "backend": kinds.get(name, slot.backend.kind),
            "swap": slot.swap,
            "state_s": round(max(0.0, now - slot.state_since), 1),
            "unloads_in_s": None if left is None else round(left, 1),
            "unload_verb": "stops" if slot.state is ModelState.SLEEPING else "unloads",
        }

    async def login_form(self, _: Request) -> Response:
        """The sign-in form (straight to the page when the gateway has no token)."""
        if self.service.setup.token is None:
            return RedirectResponse("/ui", status_code=303)
        return HTMLResponse(_LOGIN.format(error=""))

    async def login(self, request: Request) -> Response:
        """Check the form's token; on a match set the cookie and go to the page."""
        token = self.service.setup.token
        if token is None:
            return RedirectResponse("/ui", status_code=303)
        body = await request.body()
        fields = parse_qs(body[:_MAX_FORM_BYTES].decode("utf-8", "replace"))
        given = (fields.get("token") or [""])[0].strip()
        if len(body) > _MAX_FORM_BYTES or not hmac.compare_digest(given.encode(), token.encode()):
            error = "<p>That is not the token of this gateway.</p>"
            return HTMLResponse(_LOGIN.format(error=error), status_code=401)
        response = RedirectResponse("/ui", status_code=303)
        response.set_cookie(
            COOKIE, token, httponly=True, samesite="strict", secure=request.url.scheme == "https"
        )
        return response
