"""Runs in PostgreSQL: the setting, bad URLs and servers, the password kept out of sight, and
the row lock of a resume. The LangGraph server's checkpointer (app/checkpointer.py) is tested
in test_checkpointer.py.

The shared behaviour (run, SIGKILL and resume, listing) runs on both backends in
test_runs.py; these tests use the throwaway server of tests/postgres.py.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import psycopg
import pytest

from app import checkpointer as server_checkpointer
from app.cli import EXIT_ENVIRONMENT, EXIT_OK, EXIT_RUN_BUSY, EXIT_USAGE, main
from app.runs import RunBusyError, RunOptions, RunRecord, RunStore, using
from runtime.process import free_port
from runtime.settings import PostgresURL, SettingsError, load_settings
from tests.fakes import FakeOpenAI
from tests.postgres import PostgresServer
from tests.support.scripts import approve_script

pytestmark = pytest.mark.postgres
PASSWORD = "s3cret-Pass"


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))
    for name in server_checkpointer.URL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


def test_url_prints_and_scrubs_without_its_password() -> None:
    url = PostgresURL(f"postgresql://me:{PASSWORD}@db.example:5433/runs?sslmode=require")
    assert str(url) == "postgresql://me:***@db.example:5433/runs?sslmode=require"
    assert PASSWORD not in repr(url) and PASSWORD not in f"{url}"
    scrubbed = url.scrub(f"failed for {url.url}, password {PASSWORD}")
    assert scrubbed == f"failed for {url}, password ***"
    encoded = PostgresURL("postgres://me:p%40ss%2Fword@h/d?password=other-secret")
    assert str(encoded) == "postgres://me:***@h/d?password=***"
    assert set(encoded.passwords()) == {"p%40ss%2Fword", "p@ss/word", "other-secret"}
    assert str(PostgresURL("postgresql://h/d")) == "postgresql://h/d"  # nothing to hide


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (f"postgresql://me:{PASSWORD}@[::1/runs", "not a valid PostgreSQL URL"),
        (f"postgresql://me:{PASSWORD}@h:notaport/runs", "port 'notaport'"),
        (f"postgresql://me:{PASSWORD}@h/runs?colour=blue", 'invalid URI query parameter: "colour"'),
        (f"mysql://me:{PASSWORD}@h/runs", "must be a SQLite file path or a postgresql:// URL"),
    ],
)
def test_malformed_url_is_a_settings_error_without_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], value: str, problem: str
) -> None:
    monkeypatch.setenv("EDGESWARM_RUNS_DB", value)
    with pytest.raises(SettingsError) as raised:
        load_settings()
    assert "runs_db (from the environment variable EDGESWARM_RUNS_DB)" in str(
        raised.value
    ) and problem in str(raised.value)
    assert PASSWORD not in str(raised.value)
    assert main(["runs"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "EDGESWARM_RUNS_DB" in err and PASSWORD not in err


def test_settings_tell_a_file_from_a_database(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EDGESWARM_RUNS_DB", "~/runs.sqlite")
    assert load_settings().runs_database() == Path("~/runs.sqlite").expanduser()
    monkeypatch.setenv("EDGESWARM_RUNS_DB", f"postgresql://me:{PASSWORD}@127.0.0.1/runs")
    settings = load_settings()
    assert settings.runs_database() == PostgresURL(f"postgresql://me:{PASSWORD}@127.0.0.1/runs")
    assert PASSWORD not in repr(settings)


def unusable(capsys: pytest.CaptureFixture[str], fake: FakeOpenAI, url: str, reason: str) -> None:
    """Every runs command fails with exit code 3, naming the database and the setting only."""
    masked = str(PostgresURL(url))
    for args in (["runs"], ["resume", "some-thread"], ["run", "--base-url", fake.base_url, "add"]):
        assert main(args) == EXIT_ENVIRONMENT, args
        captured = capsys.readouterr()
        assert f"runs database {masked} cannot be used" in captured.err, captured.err
        assert reason in captured.err and "EDGESWARM_RUNS_DB" in captured.err, captured.err
        assert PASSWORD not in captured.err + captured.out
    assert fake.requests() == []  # run stopped before it asked anything


def test_unreachable_server(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"postgresql://edgeswarm:{PASSWORD}@127.0.0.1:{free_port()}/runs"  # nobody listens
    monkeypatch.setenv("EDGESWARM_RUNS_DB", url)
    unusable(capsys, fake_openai, url, "Connection refused")


def test_wrong_password_or_database(
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.url(password=PASSWORD)
    monkeypatch.setenv("EDGESWARM_RUNS_DB", url)
    unusable(capsys, fake_openai, url, 'password authentication failed for user "edgeswarm"')
    url = postgres_server.url("no_such_db")
    monkeypatch.setenv("EDGESWARM_RUNS_DB", url)
    unusable(capsys, fake_openai, url, 'database "no_such_db" does not exist')
    # the server's real password never shows either
    assert postgres_server.password not in capsys.readouterr().err


def test_a_run_in_postgres_never_shows_the_password(
    fake_openai: FakeOpenAI,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    postgres_url: str,
    postgres_server: PostgresServer,
) -> None:
    monkeypatch.setenv("EDGESWARM_RUNS_DB", postgres_url)
    approve_script(fake_openai)
    args = ["--log-format", "json", "--log-level", "debug", "run", "--json"]
    assert main([*args, "--base-url", fake_openai.base_url, "add two numbers"]) == EXIT_OK
    captured = capsys.readouterr()
    thread_id = json.loads(captured.out)["thread_id"]
    assert main(["runs", "--json"]) == EXIT_OK
    runs = capsys.readouterr().out
    assert json.loads(runs)[0]["thread_id"] == thread_id
    assert postgres_server.password not in captured.err + captured.out + runs
    with psycopg.connect(postgres_url) as conn:  # the checkpoints are in the database
        row = conn.execute("SELECT count(*) FROM checkpoints WHERE thread_id = %s", (thread_id,))
        assert (row.fetchone() or (0,))[0] >= 8


async def test_two_resumes_at_once_one_wins(postgres_url: str) -> None:
    url = PostgresURL(postgres_url)
    async with RunStore.open(url) as store:
        record = await store.create("t", RunOptions(model="m"))
        await store.interrupted(record.thread_id)

    async def claim() -> RunRecord | RunBusyError:
        async with RunStore.open(url) as store:
            try:
                return await store.claim(record.thread_id)
            except RunBusyError as err:
                return err

    outcomes = await asyncio.gather(claim(), claim(), claim())
    assert sorted(type(outcome).__name__ for outcome in outcomes) == [
        "RunBusyError",
        "RunBusyError",
        "RunRecord",
    ]


def test_resume_of_a_running_run_in_postgres_is_refused(
    postgres_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("EDGESWARM_RUNS_DB", postgres_url)
    record = using(PostgresURL(postgres_url), lambda s: s.create("t", RunOptions(model="m")))
    assert main(["resume", record.thread_id]) == EXIT_RUN_BUSY
    assert "is still running" in capsys.readouterr().err
