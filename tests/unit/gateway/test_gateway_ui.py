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
from typing import TypeVar

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from runtime.process import free_port
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


async def wait_for(web: WebDriver, check: Callable[[WebDriver], T], seconds: float = 20) -> T:
    """Wait in a thread (the gateway serves meanwhile) until ``check`` holds; its value."""
    return await asyncio.to_thread(WebDriverWait(web, seconds, 0.1).until, check)


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


async def test_the_page_shows_the_models_and_a_load_without_a_reload(
    tmp_path: Path, tag: str, browser: WebDriver
) -> None:
    models = [fake_model("a", tag, load_time=0.5), fake_model("b", tag)]
    config = write_config(tmp_path, models, 1000 * MB)
    async with live_gateway(config, tag) as live:
        await asyncio.to_thread(browser.get, f"{live.url}/ui")
        assert await wait_for(browser, state_of("a")) == "stopped"
        assert await wait_for(browser, state_of("b")) == "stopped"
        # a marker that a reload would wipe
        await asyncio.to_thread(browser.execute_script, "window.sameDocument = 42;")
        # the table is redrawn every second: click the button as it is now
        click = "document.querySelector('button[name=\"load:a\"]').click()"
        await asyncio.to_thread(browser.execute_script, click)
        await wait_for(browser, lambda web: state_of("a")(web) == "ready")
        assert await asyncio.to_thread(browser.execute_script, "return window.sameDocument") == 42
        # the swap and the memory it holds show up too
        await wait_for(browser, lambda web: "load" in (text_of("#swaps tbody")(web) or ""))
        legend = text_of("#legend")(browser) or ""
        assert "resident 600 MB" in legend and "budget 1.00 GB" in legend, legend
        width = await asyncio.to_thread(
            browser.execute_script, "return document.documentElement.scrollWidth"
        )
        wide = await asyncio.to_thread(browser.execute_script, WIDE)
        assert width <= PHONE[0] and not wide, f"wider than a phone's screen: {width} px, {wide}"
        shot = tmp_path / "gateway-ui.png"
        assert await asyncio.to_thread(browser.save_screenshot, str(shot))
        assert shot.stat().st_size > 1000
        if target := os.environ.get("UI_SCREENSHOT"):
            shutil.copyfile(shot, target)  # how the README's screenshot is made
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
