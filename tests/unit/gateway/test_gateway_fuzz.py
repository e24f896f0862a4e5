"""Hostile and malformed input against the gateway's HTTP routes: 4xx with a message, never 500.

The real ASGI app (:func:`runtime.gateway.server.build_app`) runs in process through
``httpx.ASGITransport`` over the virtual gateway of ``virtual_gateway.py`` (fake servers, a
virtual clock), so no socket is opened and a model load costs no real time. Hypothesis
generates bodies for ``POST /v1/chat/completions`` (not JSON, invalid UTF-8, JSON of the wrong
shape, ``model`` of the wrong type, unknown or unicode model names, ``max_tokens`` negative,
zero or not a number, ``stream`` of any type, nesting deeper than Python's recursion limit,
integers longer than Python converts, bodies of megabytes) and model names for
``POST /models/{name}/load`` and ``/unload``. Every answer must be 200 or a 4xx whose JSON
body says what is wrong, and afterwards no slot may hold an admission, a queued request or a
model half-way through a swap, and the ledger stays within the budget.

The upstream 400 for a bad ``max_tokens`` comes from the fake server, as vLLM answers it: the
gateway forwards bodies unchanged and passes the server's 4xx back, it does not re-validate.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import httpx
import hypothesis.strategies as st
from hypothesis import given, settings

from runtime.gateway.policies import ModelState
from runtime.gateway.server import build_app
from runtime.settings import Device
from tests.unit.gateway.virtual_gateway import MB, ModelSpec, VirtualGateway, virtual_gateway

MODELS = ("a", "b", "c")
SPECS = [ModelSpec("a", 600 * MB), ModelSpec("b", 500 * MB), ModelSpec("c", 400 * MB)]
SCHEDULING = {"idle_ttl_s": None, "max_wait_s": 0.5, "drain_timeout_s": 1.0, "linger_s": 0.1}
FUZZ_EXAMPLES = max(50, settings().max_examples // 2)  # the loaded profile's

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(max_size=20),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
model_name = st.one_of(
    st.sampled_from([*MODELS, "", " a", "a ", "A", "../a", "a/b", "x" * 200, "ünï", "\u202ea"]),
    st.text(max_size=40),
)
max_tokens = st.one_of(
    st.integers(-(10**6), 64),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.none(),
    st.lists(st.integers(), max_size=2),
)


@st.composite
def chat_bodies(draw: st.DrawFn) -> bytes:
    """A chat completion body: plausible, wrong-typed, malformed or hostile."""
    kind = draw(st.sampled_from(["plausible", "any-json", "bytes", "deep", "long-int", "huge"]))
    if kind == "bytes":
        return draw(st.binary(max_size=200))
    if kind == "any-json":
        return json.dumps(draw(json_value)).encode()
    if kind == "deep":  # nesting past Python's recursion limit
        depth = draw(st.integers(1_000, 100_000))
        opener = draw(st.sampled_from(["[", '{"model":']))
        closer = "]" if opener == "[" else "}"
        return f'{{"model":"a","messages":{opener * depth}1{closer * depth}}}'.encode()
    if kind == "long-int":  # longer than int() converts (4300 digits)
        digits = draw(st.integers(4_000, 20_000))
        return ('{"model":"a","max_tokens":' + "7" * digits + "}").encode()
    body: dict[str, Any] = {
        "model": draw(st.one_of(model_name, json_value)),
        "messages": draw(
            st.one_of(
                st.just([{"role": "user", "content": "hi"}]),
                json_value,
            )
        ),
    }
    if draw(st.booleans()):
        body["max_tokens"] = draw(max_tokens)
    if draw(st.booleans()):
        body["stream"] = draw(st.one_of(st.booleans(), json_value))
    body["x_service_s"] = 0.01
    if kind == "huge":  # megabytes of prompt
        body["messages"] = [{"role": "user", "content": "x" * draw(st.integers(2**20, 2**23))}]
    return json.dumps(body).encode()


def _check_answer(reply: httpx.Response) -> None:
    assert reply.status_code == 200 or 400 <= reply.status_code < 500, (
        reply.status_code,
        reply.text[:300],
    )
    if reply.status_code == 200:
        return
    error = reply.json()["error"]
    assert isinstance(error["message"], str) and error["message"].strip(), reply.text[:300]


def _check_nothing_stuck(gw: VirtualGateway) -> None:
    gw.loop.advance(5.0)  # swaps and drains in progress finish
    service = gw.service
    for slot in service.slots.values():
        assert slot.in_flight == 0, f"{slot.name}: {slot.in_flight} admissions leaked"
        assert not slot.live_waiters(), f"{slot.name}: a request stayed queued"
        assert slot.state not in (ModelState.STARTING, ModelState.STOPPING), slot.state
    assert service.ledger.device_used <= service.ledger.device_budget
    assert not service.ledger.violations and not gw.device.ooms


def _client(gw: VirtualGateway) -> httpx.AsyncClient:
    app = build_app(gw.service)  # its lifespan is not run: the gateway is already started
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    return httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")


def test_hostile_chat_bodies_get_a_4xx_and_leave_no_slot_stuck() -> None:
    with virtual_gateway(SPECS, 1000 * MB, device=Device.CPU, scheduling=SCHEDULING) as gw:
        client = _client(gw)

        @settings(max_examples=FUZZ_EXAMPLES)
        @given(body=chat_bodies())
        def post(body: bytes) -> None:
            reply = gw.loop.run(client.post("/v1/chat/completions", content=body))
            _check_answer(reply)
            _check_nothing_stuck(gw)

        try:
            post()
        finally:
            gw.loop.run(client.aclose())


def test_hostile_model_names_on_load_and_unload_get_a_4xx() -> None:
    with virtual_gateway(SPECS, 1000 * MB, device=Device.CPU, scheduling=SCHEDULING) as gw:
        client = _client(gw)

        @settings(max_examples=FUZZ_EXAMPLES)
        @given(name=model_name, action=st.sampled_from(["load", "unload"]))
        def call(name: str, action: str) -> None:
            path = f"/models/{quote(name, safe='/')}/{action}"
            reply = gw.loop.run(client.post(path))
            if reply.status_code != 404 or "no route" not in reply.text:
                _check_answer(reply)
            if name in MODELS:
                assert reply.status_code == 200, reply.text
            _check_nothing_stuck(gw)

        try:
            call()
        finally:
            gw.loop.run(client.aclose())


# -- the shrunk counterexamples the fuzzing found, kept as regression tests ---------------


def _post_once(body: bytes) -> httpx.Response:
    with virtual_gateway(SPECS, 1000 * MB, device=Device.CPU, scheduling=SCHEDULING) as gw:
        client = _client(gw)
        try:
            reply = gw.loop.run(client.post("/v1/chat/completions", content=body))
        finally:
            gw.loop.run(client.aclose())
        _check_nothing_stuck(gw)
    return reply


def test_an_integer_longer_than_python_converts_is_a_400_not_a_500() -> None:
    """``json.loads`` raises a plain ValueError past 4300 digits; it was a 500."""
    reply = _post_once(('{"model":"a","max_tokens":' + "7" * 4301 + "}").encode())
    assert reply.status_code == 400
    assert "not JSON the gateway can read" in reply.json()["error"]["message"]


def test_json_nested_past_the_recursion_limit_is_a_400_not_a_500() -> None:
    """``json.loads`` raises RecursionError on deep nesting; it was a 500."""
    depth = 100_000
    reply = _post_once(f'{{"model":"a","messages":{"[" * depth}1{"]" * depth}}}'.encode())
    assert reply.status_code == 400
    assert "nested too deeply" in reply.json()["error"]["message"]
