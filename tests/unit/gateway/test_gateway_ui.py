"""The gateway's status page in a real browser: headless Chromium from Debian, driven by Selenium.

The gateway runs in the test's event loop with fake vLLM servers; every browser call is
blocking, so each runs in a thread while the loop serves the page.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from runtime.process import free_port
from tests.fakes import fake_command
from tests.support.gateway import (
    MB,
    TOKEN,
    fake_model,
    live_gateway,
    with_token_file,
    write_config,
)
from tests.support.network import allow_loopback_port

T = TypeVar("T")
PHONE = (390, 844)
"""A phone-width window: the page must stay readable there."""
WIDE = """return [...document.querySelectorAll('body *')]
  .filter(e => !e.closest('.scroll') && e.getBoundingClientRect().right > window.innerWidth + 1)
  .map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5);"""
"""Elements that stick out of the window (a table may scroll inside its own box)."""
ROW = """const row = document.querySelector(arguments[0]);
  if (!row) return null;
  const out = {};
  for (const td of row.querySelectorAll('td[data-col]')) out[td.dataset.col] = td.textContent;
  out.state = row.querySelector('.state') && row.querySelector('.state').textContent;
  out.since = row.querySelector('.since') && row.querySelector('.since').textContent;
  out.buttons = [...row.querySelectorAll('button')].map(b => b.name + '=' + b.textContent);
  return out;"""
"""A table row's cells by column (``data-col``), its state, time in state and buttons."""
DESKTOP = (1280, 1000)
"""The docs' picture is taken this wide, every column in view."""


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[WebDriver]:
    """Headless Chromium (Debian's ``chromium`` and ``chromedriver``; ``make testdeps``)."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    assert chromium and driver, "chromium is missing: sudo apt-get install chromium chromium-driver"
    os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager look for a browser online
    options = Options()
    options.binary_location = chromium
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    # a phone's viewport (a desktop window has a minimum width of about 500 px)
    metrics = {"width": PHONE[0], "height": PHONE[1], "pixelRatio": 2}
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium'}")
    port = free_port()
    allow_loopback_port(port)  # Selenium talks to chromedriver on loopback
    web = webdriver.Chrome(service=Service(driver, port=port), options=options)
    web.set_page_load_timeout(30)
    try:
        yield web
    finally:
        web.quit()


async def wait_for(
    web: WebDriver, check: Callable[[WebDriver], T | None], seconds: float = 20
) -> T:
    """Wait in a thread (the gateway serves meanwhile) until ``check`` holds; its value."""

    def until() -> T:
        return cast(T, WebDriverWait(web, seconds, 0.1).until(check))  # never None: it held

    return await asyncio.to_thread(until)


def text_of(selector: str) -> Callable[[WebDriver], str | None]:
    """The text of the first element matching ``selector`` now (the page redraws each second,
    so it is read in one script, never through a held element)."""

    def read(web: WebDriver) -> str | None:
        script = "const e = document.querySelector(arguments[0]); return e && e.textContent;"
        found = web.execute_script(script, selector)
        return str(found) if found is not None else None

    return read


def state_of(model: str) -> Callable[[WebDriver], str | None]:
    return text_of(f'#models tr[data-model="{model}"] .state')


def row_of(selector: str) -> Callable[[WebDriver], dict[str, Any] | None]:
    """The row matching ``selector`` as :data:`ROW` reads it (None while there is none)."""

    def read(web: WebDriver) -> dict[str, Any] | None:
        found = web.execute_script(ROW, selector)
        return dict(found) if found else None

    return read


def model_row(model: str, state: str) -> Callable[[WebDriver], dict[str, Any] | None]:
    """The row of ``model`` once it shows ``state`` (all its cells from one redraw)."""

    def read(web: WebDriver) -> dict[str, Any] | None:
        row = row_of(f'#models tr[data-model="{model}"]')(web)
        return row if row is not None and row["state"] == state else None

    return read


def request_rows(count: int) -> Callable[[WebDriver], list[dict[str, Any]] | None]:
    """The last requests' rows, newest first, once there are ``count`` of them."""

    def read(web: WebDriver) -> list[dict[str, Any]] | None:
        rows = [row_of(f"#requests tbody tr:nth-child({n})")(web) for n in range(1, count + 1)]
        return [row for row in rows if row is not None] if all(rows) else None

    return read


async def test_the_page_shows_the_models_and_a_load_without_a_reload(
    tmp_path: Path, tag: str, browser: WebDriver
) -> None:
    models = [
        fake_model("a", tag, footprint=400 * MB, load_time=0.5, tokens=40),
        fake_model("b", tag, footprint=300 * MB, load_time=4),
        fake_model("c", tag, footprint=200 * MB),
    ]
    models[2]["command"] = fake_command(footprint=200 * MB, tag=tag, exit_at_start=3)  # fails
    config = write_config(tmp_path, models, 1000 * MB)
    async with live_gateway(config, tag) as live:
        await asyncio.to_thread(browser.get, f"{live.url}/ui")
        for name in "abc":
            assert await wait_for(browser, state_of(name)) == "stopped"
        # a stopped model offers a load and nothing else; the backend as the config names it
        stopped = await wait_for(browser, model_row("a", "stopped"))
        assert stopped["buttons"] == ["load:a=load"], stopped
        assert stopped["backend"] == "command" and stopped["countdown"] == "-", stopped
        # a marker that a reload would wipe
        await asyncio.to_thread(browser.execute_script, "window.sameDocument = 42;")
        # the table is redrawn every second: click the button as it is now
        click = "document.querySelector('button[name=\"load:a\"]').click()"
        await asyncio.to_thread(browser.execute_script, click)
        ready = await wait_for(browser, model_row("a", "ready"))
        assert await asyncio.to_thread(browser.execute_script, "return window.sameDocument") == 42
        # a ready model: unload only, its time in the state, its idle countdown (TTL 600 s)
        assert ready["buttons"] == ["unload:a=unload"], ready
        assert ready["since"] and ready["since"].endswith(" s"), ready
        assert ready["countdown"].startswith("unloads in "), ready
        # the swap and the memory it holds show up too, in the config's binary units
        await wait_for(browser, lambda web: "load" in (text_of("#swaps tbody")(web) or ""))
        legend = text_of("#legend")(browser) or ""
        assert "resident 381.47 MiB" in legend and "budget 953.67 MiB" in legend, legend
        totals = text_of("#totals")(browser) or ""
        assert "1 load," in totals and "0 unloads" in totals and "swap" not in totals, totals
        width = await asyncio.to_thread(
            browser.execute_script, "return document.documentElement.scrollWidth"
        )
        wide = await asyncio.to_thread(browser.execute_script, WIDE)
        assert width <= PHONE[0] and not wide, f"wider than a phone's screen: {width} px, {wide}"

        # requests through the gateway: whole, streamed with usage, streamed without, a 404
        assert (await live.chat("a")).status_code == 200
        usage = {"stream": True, "stream_options": {"include_usage": True}}
        assert (await live.chat("a", **usage)).status_code == 200
        assert (await live.chat("a", stream=True)).status_code == 200
        assert (await live.chat("nope")).status_code == 404

        # the page polls: wait until it has listed the last request (the 404), not any five
        def listed(web: WebDriver) -> list[dict[str, Any]] | None:
            rows = request_rows(5)(web)
            return rows if rows and rows[0]["model"] == "nope" else None

        unknown, estimated, streamed, whole, load = await wait_for(browser, listed)
        assert (unknown["model"], unknown["outcome"]) == ("nope", "404 model_not_found")
        assert streamed["ttft"] != "-" and streamed["speed"] != "-", streamed
        assert streamed["tokens"] == "5 / 40", streamed
        assert estimated["tokens"].startswith("? / ~") and estimated["ttft"] != "-", estimated
        assert whole["ttft"] == "-" and whole["speed"] != "-", whole
        # the page's load call, with the swap it waited for
        assert load["kind"] == "load" and "(" in load["wait"], load
        assert "HeadlessChrome" in load["caller"] or "Mozilla" in load["caller"], load
        # the model's recent tokens/s, from the records
        await wait_for(
            browser, lambda web: (model_row("a", "ready")(web) or {}).get("speed", "-") != "-"
        )

        # a model that fails to start offers a retry, not an unload
        assert (await live.http.post(f"{live.url}/models/c/load")).status_code == 503
        failed = await wait_for(browser, model_row("c", "failed"))
        assert failed["buttons"] == ["load:c=retry"], failed
        # a starting model shows how long it has been starting, and no button
        loading = asyncio.create_task(live.http.post(f"{live.url}/models/b/load"))
        starting = await wait_for(browser, model_row("b", "starting"))
        assert starting["buttons"] == [] and starting["since"], starting
        assert (await loading).status_code == 200
        await wait_for(browser, model_row("b", "ready"))

        # the docs' picture: the page as wide as a desktop's, every column in view
        metrics = {
            "width": DESKTOP[0],
            "height": DESKTOP[1],
            "deviceScaleFactor": 1,
            "mobile": False,
        }
        await asyncio.to_thread(
            browser.execute_cdp_cmd, "Emulation.setDeviceMetricsOverride", metrics
        )
        drawn = int(browser.execute_script("return document.body.dataset.updated"))
        await wait_for(
            browser,
            lambda web: int(web.execute_script("return document.body.dataset.updated")) > drawn,
        )
        shot = tmp_path / "gateway-ui.png"
        assert await asyncio.to_thread(browser.save_screenshot, str(shot))
        assert shot.stat().st_size > 1000
        if target := os.environ.get("UI_SCREENSHOT"):
            shutil.copyfile(shot, target)  # how the docs' picture is made
        assert live.service.slots["a"].state == "ready"


async def test_with_a_token_the_page_asks_for_it_and_refuses_without_it(
    tmp_path: Path, tag: str, browser: WebDriver
) -> None:
    config = with_token_file(write_config(tmp_path, [fake_model("a", tag)], 1000 * MB))
    async with live_gateway(config, tag) as live:
        await asyncio.to_thread(browser.get, f"{live.url}/ui")
        await wait_for(browser, lambda web: web.current_url.endswith("/ui/login"))
        status = await asyncio.to_thread(
            browser.execute_script,
            "return fetch('/ui/status').then(r => r.status)",
        )
        assert status == 401

        async def sign_in(token: str) -> None:
            field = browser.find_element(By.ID, "token")
            await asyncio.to_thread(field.send_keys, token)
            submit = browser.find_element(By.CSS_SELECTOR, "button[type=submit]")
            await asyncio.to_thread(submit.click)

        await sign_in("not-the-token-at-all")
        await wait_for(browser, lambda web: "not the token" in web.page_source)
        await sign_in(TOKEN)
        await wait_for(browser, lambda web: web.current_url.endswith("/ui"))
        assert "not the token" not in browser.page_source
        assert await wait_for(browser, state_of("a")) == "stopped"
