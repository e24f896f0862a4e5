"""The gateway's bearer token: where it comes from, what it guards, who sends it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import httpx
import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from graphs.context import Context
from graphs.llm import NodeFailedError, ask, lease_model
from runtime.gateway.auth import is_loopback, resolve_token
from runtime.gateway.cli import main
from runtime.gateway.config import AuthConfig, ConfigError
from runtime.gateway.policies import ModelState
from tests.support.gateway import (
    MB,
    TOKEN,
    fake_model,
    live_gateway,
    with_token_file,
    write_config,
)

BEARER = {"Authorization": f"Bearer {TOKEN}"}
CHAT = {"model": "a", "messages": [{"role": "user", "content": "hi"}]}
ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/models", None),
    ("POST", "/v1/chat/completions", CHAT),
    ("POST", "/v1/completions", {"model": "a", "prompt": "hi"}),
    ("GET", "/running", None),
    ("POST", "/models/a/load", None),
    ("POST", "/models/a/unload", None),
    ("GET", "/metrics", None),
    ("GET", "/ui/status", None),
]


async def test_every_route_needs_the_token(tmp_path: Path, tag: str) -> None:
    config = with_token_file(write_config(tmp_path, [fake_model("a", tag)], 1000 * MB))
    async with live_gateway(config, tag) as live:
        for method, path, body in ROUTES:
            for headers in ({}, {"Authorization": "Bearer not-the-token-at-all"}, {"X": "1"}):
                reply = await live.http.request(
                    method, f"{live.url}{path}", json=body, headers=headers
                )
                assert reply.status_code == 401, (method, path, reply.text)
                assert reply.headers["www-authenticate"].startswith("Bearer")
                assert reply.json()["error"]["type"] == "authentication_error"
            ok = await live.http.request(method, f"{live.url}{path}", json=body, headers=BEARER)
            assert ok.status_code == 200, (method, path, ok.text)
        bare = await live.http.get(f"{live.url}/health")
        assert bare.status_code == 200 and bare.json() == {"status": "ok"}
        full = await live.http.get(f"{live.url}/health", headers=BEARER)
        assert full.json() == {"status": "ok", "models": 1}


class Verdict(BaseModel):
    verdict: Literal["pass", "fail"]
    reason: str


async def test_the_graph_leases_and_asks_with_its_api_key(tmp_path: Path, tag: str) -> None:
    config = with_token_file(write_config(tmp_path, [fake_model("a", tag)], 1000 * MB))
    async with live_gateway(config, tag) as live:
        ctx = Context(
            base_url=f"{live.url}/v1", api_key=TOKEN, coder_model="a", fallback_model=None
        )
        answer = await ask(ctx, "coder", "coder", Verdict, [HumanMessage("judge")])
        assert answer.value.verdict in ("pass", "fail")
        info = (await live.http.get(f"{live.url}/running", headers=BEARER)).json()
        assert [m["state"] for m in info["models"]] == ["ready"]
        ctx = replace(ctx, api_key="EMPTY")
        with pytest.raises(NodeFailedError, match="401"):
            await ask(ctx, "coder", "coder", Verdict, [HumanMessage("judge")])
        # A lease is a load call sent with the key as the bearer token: unloaded first, the
        # model is loaded by the lease with the token and left alone by one without it.
        sent: list[httpx.Request] = []

        def state() -> ModelState:
            return live.service.slots["a"].state

        async def note(request: httpx.Request) -> None:
            sent.append(request)

        async with httpx.AsyncClient(trust_env=False, event_hooks={"request": [note]}) as http:
            unloaded = await http.post(f"{live.url}/models/a/unload", headers=BEARER)
            assert unloaded.status_code == 200 and state() is ModelState.STOPPED
            sent.clear()
            with pytest.raises(httpx.HTTPStatusError, match="401"):
                await lease_model(http, f"{live.url}/v1", "a", "wrong-token-0123456789")
            assert state() is ModelState.STOPPED  # refused: nothing was loaded
            await lease_model(http, f"{live.url}/v1", "a", TOKEN)
            assert state() is ModelState.READY  # accepted: the lease loaded it
        assert [(r.method, r.url.path, r.headers.get("authorization")) for r in sent] == [
            ("POST", "/models/a/load", "Bearer wrong-token-0123456789"),
            ("POST", "/models/a/load", f"Bearer {TOKEN}"),
        ]


def test_the_token_comes_from_a_file_or_the_environment(tmp_path: Path) -> None:
    origin = str(tmp_path / "gw.yaml")
    assert resolve_token(AuthConfig(), origin, {}) is None
    assert resolve_token(AuthConfig(), origin, {"EDGESWARM_GATEWAY_TOKEN": TOKEN}) == TOKEN
    (tmp_path / "tok").write_text(f"  {TOKEN}\n")
    by_file = AuthConfig(token_file=Path("tok"))
    assert resolve_token(by_file, origin, {"EDGESWARM_GATEWAY_TOKEN": "ignored-0123456789"}) == (
        TOKEN
    )
    problems = [
        (AuthConfig(token_file=Path("missing")), {}, "auth.token_file: cannot read"),
        (AuthConfig(token_env="MY_TOKEN"), {}, r"\(MY_TOKEN\): the variable is not set"),
        (AuthConfig(), {"EDGESWARM_GATEWAY_TOKEN": "short"}, "at least 16 characters"),
    ]
    for auth, environ, message in problems:
        with pytest.raises(ConfigError, match=message) as err:
            resolve_token(auth, origin, environ)
        assert origin in str(err.value)


def test_loopback_hosts() -> None:
    assert all(map(is_loopback, ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"]))
    assert not any(map(is_loopback, ["0.0.0.0", "::", "192.168.1.20", "gpu-box", ""]))


def test_listening_beyond_loopback_without_a_token_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, [fake_model("a", "refused")], 1000 * MB)
    for host in ("0.0.0.0", "192.168.1.20", "::"):
        assert main(["--config", str(config), "--host", host, "--port", "1"]) == 2
        err = capsys.readouterr().err
        assert f"refusing to listen on {host} without a bearer token" in err
        assert "EDGESWARM_GATEWAY_TOKEN" in err and str(config) in err
    assert not (tmp_path / "state" / "gateway").exists(), "it took the device lock first"


async def test_the_status_page_signs_in_with_a_cookie_and_only_with_the_token(
    tmp_path: Path, tag: str
) -> None:
    config = with_token_file(write_config(tmp_path, [fake_model("a", tag)], 1000 * MB))
    async with live_gateway(config, tag) as live:
        page = await live.http.get(f"{live.url}/ui")
        assert page.status_code == 303 and page.headers["location"] == "/ui/login"
        form = await live.http.get(f"{live.url}/ui/login")
        assert form.status_code == 200 and 'name="token"' in form.text
        wrong = await live.http.post(f"{live.url}/ui/login", data={"token": "x" * 20})
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        right = await live.http.post(f"{live.url}/ui/login", data={"token": TOKEN})
        assert right.status_code == 303 and right.headers["location"] == "/ui"
        cookie = right.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=strict" in cookie, cookie
        jar = {"Cookie": f"edgeswarm_token={TOKEN}"}
        status = await live.http.get(f"{live.url}/ui/status", headers=jar)
        assert status.status_code == 200 and status.json()["running"]["models"][0]["name"] == "a"
        assert (await live.http.get(f"{live.url}/ui", headers=jar)).status_code == 200
        bad = {"Cookie": "edgeswarm_token=not-the-token-at-all"}
        assert (await live.http.get(f"{live.url}/running", headers=bad)).status_code == 401
