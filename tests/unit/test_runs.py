"""Durable runs: checkpointed `edgeswarm run`, `resume` after a SIGKILL, `runs`, bad input.

Tests taking ``runs_db`` run twice: on the default SQLite file and on a PostgreSQL database
of the throwaway server (``EDGESWARM_RUNS_DB`` set to its URL).
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from langgraph.graph import START, StateGraph

from app.cli import EXIT_ENVIRONMENT, EXIT_NO_RUN, EXIT_OK, EXIT_RUN_BUSY, EXIT_USAGE, main
from app.runs import (
    LeaseKeeper,
    RunOptions,
    RunRecord,
    RunStore,
    this_host,
    thread_config,
    using,
)
from graphs.state import InputState, OutputState, State
from runtime.process import process_alive, process_start
from runtime.settings import PostgresURL
from tests.fakes import FakeOpenAI
from tests.support import ROOT
from tests.support.scripts import GOOD_CODE, approve_script, audit, brief, code, suite


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("EDGESWARM_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("EDGESWARM_STATE_DIR", str(tmp_path / "state"))


def db(tmp_path: Path) -> Path:
    return tmp_path / "state" / "runs.sqlite"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def runs_db(
    request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path | PostgresURL:
    """The test's runs database: the default SQLite file, or a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return db(tmp_path)
    url: str = request.getfixturevalue("postgres_url")
    monkeypatch.setenv("EDGESWARM_RUNS_DB", url)
    return PostgresURL(url)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "app.cli", *args]


def start_cli(*args: str, stderr: Path) -> subprocess.Popen[bytes]:
    """`edgeswarm ARGS` as a user starts it: its own process group, the settings of this test."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    with stderr.open("wb") as err:
        return subprocess.Popen(
            cli(*args), env=env, stdout=subprocess.PIPE, stderr=err, start_new_session=True
        )


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=30)
    if process.stdout is not None:
        process.stdout.close()


def wait_for(condition: Callable[[], bool], seconds: float = 90) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.2)


def calls(fake: FakeOpenAI) -> Counter[str]:
    """Requests the fake received, per schema (ResearchBrief: researcher, StageSummary: the
    summarizer, code: the coder's grammar-guided block, TestSuite: the test writer,
    AuditReport: the auditors)."""
    return Counter(
        (body.get("response_format") or {}).get("json_schema", {}).get("name", "code")
        for body in fake.requests()
    )


def runs_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, object]]:
    capsys.readouterr()
    assert main(["runs", "--json", *args]) == EXIT_OK
    rows: list[dict[str, object]] = json.loads(capsys.readouterr().out)
    return rows


def last_node(capsys: pytest.CaptureFixture[str]) -> object:
    """The newest run's last finished node, as `edgeswarm runs` shows it (None: no run yet)."""
    rows = runs_json(capsys)
    return rows[0]["last_node"] if rows else None


def test_killed_run_resumes_without_redoing_finished_nodes(
    fake_openai: FakeOpenAI,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    runs_db: Path | PostgresURL,
) -> None:
    # the greedy candidate takes a minute (the three sampled ones fail at once): the run is
    # killed while it waits for it
    fake_openai.script(brief(), suite(), {**code(GOOD_CODE), "delay_s": 60})
    url = fake_openai.base_url
    run = start_cli("run", "--json", "--base-url", url, "add two numbers", stderr=tmp_path / "1")
    try:
        # killed once the test writer's answer is saved beside the coder in flight
        wait_for(
            lambda: (
                run.poll() is not None
                or (calls(fake_openai)["code"] >= 4 and last_node(capsys) == "test_writer")
            )
        )
    finally:
        stop(run)
    assert run.returncode == -signal.SIGKILL, (tmp_path / "1").read_text()
    thread = re.search(r"thread ([0-9a-f-]{36})", (tmp_path / "1").read_text())
    assert thread is not None
    thread_id = thread.group(1)
    before = calls(fake_openai)
    # the four candidates' requests; a sampled one that failed may have been resent already
    assert before["ResearchBrief"] == 1 and before["TestSuite"] == 1 and before["code"] >= 4

    [row] = runs_json(capsys)
    assert row["thread_id"] == thread_id
    assert row["status"] == "interrupted" and row["last_node"] == "test_writer"
    assert row["task"] == "add two numbers" and row["outcome"] is None

    # resume takes the endpoint from the run's record: no --base-url here
    fake_openai.script(*[code(GOOD_CODE)] * 4, audit("security"), audit("performance"))
    resume = start_cli("resume", thread_id, "--json", stderr=tmp_path / "2")
    try:
        out, _ = resume.communicate(timeout=120)
    finally:
        stop(resume)
    err = (tmp_path / "2").read_text()
    assert resume.returncode == EXIT_OK, err
    output = json.loads(out)
    assert output["thread_id"] == thread_id and output["task"] == "add two numbers"
    assert output["status"] == "done" and output["report"]["outcome"] == "approved"
    assert output["report"]["files"]["solution.py"] == GOOD_CODE
    assert output["endpoint"] == url
    # the researcher and the test writer (its write saved before the kill) ran once; the coder
    # in flight ran again, and the rest once after
    after = calls(fake_openai)
    assert after["ResearchBrief"] == 1 and after["TestSuite"] == 1 and after["AuditReport"] == 2
    assert after["code"] - before["code"] == 4
    assert f"resuming thread {thread_id} after test_writer" in err
    assert "[researcher]" not in err and "[summarize_brief]" not in err and "[coder]" in err
    assert "unregistered type" not in err  # the checkpoint revived only the state's own types

    [row] = runs_json(capsys)
    assert row["status"] == "done" and row["outcome"] == "approved"
    assert row["last_node"] == "finish"

    # resuming a finished run shows its stored result and exits as the run did
    fake_openai.reset()
    assert main(["resume", thread_id, "--json"]) == EXIT_OK
    captured = capsys.readouterr()
    assert json.loads(captured.out) == output
    assert "already finished" in captured.err
    assert fake_openai.requests() == []


def test_run_records_its_options_and_prints_its_thread(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str], runs_db: Path | PostgresURL
) -> None:
    approve_script(fake_openai)
    args = ["run", "--json", "--max-revisions", "1", "--model", "fake-model"]
    code_ = main([*args, "--base-url", fake_openai.base_url, "--out", "out", "add\ntwo numbers"])
    captured = capsys.readouterr()
    assert code_ == EXIT_OK, captured.err
    thread_id = json.loads(captured.out)["thread_id"]
    assert f"thread {thread_id}" in captured.err
    record = using(runs_db, lambda store: store.get(thread_id))
    assert record.task == "add\ntwo numbers" and record.status == "done"
    options = record.options
    assert options.base_url == fake_openai.base_url and options.model == "fake-model"
    assert options.out == "out" and options.workspace is None
    assert options.overrides["max_revisions"] == 1
    assert options.overrides["coder_model"] == "fake-model"
    assert options.overrides["fallback_model"] is None
    assert record.result is not None and record.result["thread_id"] == thread_id
    assert record.summary()["task"] == "add"


def test_metadata_round_trips_and_lists_newest_first(runs_db: Path | PostgresURL) -> None:
    options = RunOptions(
        model="m",
        base_url="http://127.0.0.1:9/v1",
        overrides={"max_revisions": 3, "node_timeout_s": 1.5, "fallback_model": None},
        workspace="/w",
        database="/d.db",
        out="o",
    )

    async def create_three(store: RunStore) -> list[RunRecord]:
        return [await store.create(f"task {n}\nmore", options) for n in range(3)]

    created = using(runs_db, create_three)
    assert all(record.options == options for record in created)
    listed = using(runs_db, lambda store: store.list(2), create=False)
    assert [r.thread_id for r in listed] == [r.thread_id for r in reversed(created)][:2]
    first = listed[0]
    assert first.task == "task 2\nmore" and first.status == "running"  # this process runs it
    assert first.pid == os.getpid() and first.last_node is None and first.result is None
    assert first.summary()["task"] == "task 2"


def test_a_dead_or_reused_pid_reads_as_interrupted(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "pass"], check=True)
    assert gone.returncode == 0
    me = os.getpid()
    assert process_alive(me, process_start(me))
    assert not process_alive(me, (process_start(me) or 0) + 1)  # same pid, another process
    record = using(db(tmp_path), lambda store: store.create("t", RunOptions(model="m")))
    with sqlite3.connect(db(tmp_path)) as conn:
        conn.execute("UPDATE runs SET pid = ?, pid_start = NULL", (2**22 + 1,))  # > pid_max
    [row] = using(db(tmp_path), lambda store: store.list())
    assert row.thread_id == record.thread_id and row.status == "interrupted"


def test_resume_of_a_running_run_is_refused(
    capsys: pytest.CaptureFixture[str], runs_db: Path | PostgresURL
) -> None:
    record = using(runs_db, lambda store: store.create("t", RunOptions(model="m")))
    assert main(["resume", record.thread_id]) == EXIT_RUN_BUSY
    assert f"run {record.thread_id} is still running (pid {os.getpid()})" in capsys.readouterr().err


def test_resume_unknown_thread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["resume", "no-such-thread"]) == EXIT_NO_RUN
    assert "there are no runs yet (no database at" in capsys.readouterr().err
    assert not db(tmp_path).exists()  # looking does not create it
    using(db(tmp_path), lambda store: store.create("t", RunOptions(model="m")))
    assert main(["resume", "no-such-thread"]) == EXIT_NO_RUN
    assert "no run has thread id 'no-such-thread'" in capsys.readouterr().err


def test_corrupt_database_is_reported_and_left_alone(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = db(tmp_path)
    path.parent.mkdir(parents=True)
    garbage = b"not a database, but someone's file " * 200
    path.write_bytes(garbage)
    for args in (
        ["runs"],
        ["resume", "some-thread"],
        ["run", "--base-url", fake_openai.base_url, "add"],
    ):
        assert main(args) == EXIT_ENVIRONMENT
        err = capsys.readouterr().err
        assert f"runs database {path} cannot be used (file is not a database)" in err
        assert "EDGESWARM_RUNS_DB" in err
    assert path.read_bytes() == garbage
    assert fake_openai.requests() == []  # run stopped before it asked anything


@pytest.mark.parametrize("where", ["directory", "under_a_file"])
def test_unusable_database_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str
) -> None:
    if where == "directory":
        target = tmp_path / "a-directory"
        target.mkdir()
    else:
        (tmp_path / "a-file").write_text("x")
        target = tmp_path / "a-file" / "runs.sqlite"
    monkeypatch.setenv("EDGESWARM_RUNS_DB", str(target))
    assert main(["run", "--base-url", "http://127.0.0.1:9/v1", "add"]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert f"runs database {target} cannot be opened for writing" in err, err
    assert "move it away" not in err


def test_runs_listing_text_and_limits(
    capsys: pytest.CaptureFixture[str], runs_db: Path | PostgresURL
) -> None:
    assert main(["runs"]) == EXIT_OK
    assert capsys.readouterr().out == "no runs yet\n"
    assert runs_json(capsys) == []
    record = using(runs_db, lambda store: store.create("add\nnumbers", RunOptions(model="m")))
    assert main(["runs"]) == EXIT_OK
    out = capsys.readouterr().out
    assert record.thread_id in out and "running" in out and "add" in out and "numbers" not in out
    assert main(["runs", "--limit", "0"]) == EXIT_USAGE
    assert "--limit must be at least 1" in capsys.readouterr().err


def test_run_stopped_before_its_first_step_resumes_from_the_start(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str], runs_db: Path | PostgresURL
) -> None:
    # the embedded model is not pulled: the run stops before any node, and says how to go on
    assert main(["run", "add two numbers"]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert "edgeswarm models pull" in err and "edgeswarm resume" in err
    [row] = runs_json(capsys)
    assert row["status"] == "interrupted" and row["last_node"] is None
    # a run recorded against a server, stopped before its first checkpoint
    options = RunOptions(model="fake-model", base_url=fake_openai.base_url)

    async def stopped(store: RunStore) -> RunRecord:
        record = await store.create("add two numbers", options)
        await store.interrupted(record.thread_id)
        return record

    record = using(runs_db, stopped)
    approve_script(fake_openai)
    assert main(["resume", record.thread_id, "--json"]) == EXIT_OK
    captured = capsys.readouterr()
    assert f"resuming thread {record.thread_id} from the start" in captured.err
    assert json.loads(captured.out)["report"]["outcome"] == "approved"
    assert calls(fake_openai)["ResearchBrief"] == 1


def test_a_run_recorded_with_earlier_field_names_resumes(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """Context fields renamed since a run was recorded (research_tokens -> researcher_tokens)."""
    earlier = {"research_tokens": 700, "summary_tokens": 300, "audit_tokens": 200}
    options = RunOptions(model="fake-model", base_url=fake_openai.base_url, overrides=earlier)

    async def stopped(store: RunStore) -> RunRecord:
        record = await store.create("add two numbers", options)
        await store.interrupted(record.thread_id)
        return record

    record = using(db(tmp_path), stopped)
    approve_script(fake_openai)
    assert main(["resume", record.thread_id, "--json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)["report"]["outcome"] == "approved"
    budgets = {
        (body.get("response_format") or {}).get("json_schema", {}).get("name"): body.get(
            "max_completion_tokens"
        )
        for body in fake_openai.requests()
    }
    assert budgets["ResearchBrief"] == 700 and budgets["AuditReport"] == 200


def test_a_run_checkpointed_before_the_check_types_moved_resumes(
    fake_openai: FakeOpenAI, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A runs database written when Check and EntryPoint lived in ``agents.examples``.

    tests/fixtures/runs-agents-examples.sqlite: a run of "add two numbers" killed after the
    test writer (its checks and the brief's entry point are in the checkpoints under the old
    module's name), made by the kill test's steps before the types moved to
    ``tools.check_runner``.
    """
    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "runs-agents-examples.sqlite"
    path = db(tmp_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(fixture.read_bytes())
    with sqlite3.connect(path) as conn:
        blobs = [row[0] for row in conn.execute("SELECT checkpoint FROM checkpoints")]
        assert any(b"agents.examples" in blob for blob in blobs)  # really the old names
        [(thread_id, options)] = conn.execute("SELECT thread_id, options FROM runs").fetchall()
        moved = {**json.loads(options), "base_url": fake_openai.base_url}
        conn.execute(
            "UPDATE runs SET options = ?, status = 'interrupted', pid = NULL, host = NULL,"
            " lease_until = NULL",
            (json.dumps(moved),),
        )
    conn.close()
    fake_openai.script(*[code(GOOD_CODE)] * 4, audit("security"), audit("performance"))
    assert main(["resume", thread_id, "--json"]) == EXIT_OK
    captured = capsys.readouterr()
    output = json.loads(captured.out)
    assert f"resuming thread {thread_id} after test_writer" in captured.err
    assert output["report"]["outcome"] == "approved"
    assert "Blocked deserialization" not in captured.err
    assert "unregistered type" not in captured.err
    # the written checks and the entry point came back as the tools' types, and ran
    assert output["report"]["tests"]["passed"] == 2
    assert output["report"]["checks"] == [
        "PASS [writer] add(2, 3) == 5",
        "PASS [writer] add(-1, 1) == 0",
    ]
    assert calls(fake_openai)["TestSuite"] == 0 and calls(fake_openai)["ResearchBrief"] == 0


def test_an_unreadable_record_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = using(db(tmp_path), lambda store: store.create("t", RunOptions(model="m")))
    with sqlite3.connect(db(tmp_path)) as conn:
        conn.execute('UPDATE runs SET options = \'{"model": "m", "colour": 1}\'')
    assert main(["runs"]) == EXIT_ENVIRONMENT
    assert f"the record of run {record.thread_id} is unreadable" in capsys.readouterr().err
    assert main(["resume", record.thread_id]) == EXIT_ENVIRONMENT


def test_a_garbled_checkpoint_is_reported_before_anything_starts(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 41, finding 10: a checkpoint that no longer decodes surfaced as a bare ValueError
    on resume's first read (reported as a usage error, after the models had started)."""
    options = RunOptions(model="fake-model", base_url=fake_openai.base_url)

    async def stopped(store: RunStore) -> RunRecord:
        record = await store.create("add two numbers", options)
        await store.interrupted(record.thread_id)
        return record

    record = using(db(tmp_path), stopped)
    with sqlite3.connect(db(tmp_path)) as conn:
        conn.execute(
            "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint,"
            " metadata) VALUES (?, '', '1', 'msgpack', ?, ?)",
            (record.thread_id, b"\xc1garbled", b"{}"),
        )
    assert main(["resume", record.thread_id]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert f"the checkpoint of run {record.thread_id} is unreadable" in err, err
    assert "resuming" not in err
    assert fake_openai.requests() == []


def test_a_run_stopped_at_a_step_this_version_lacks_is_refused_before_anything_starts(
    fake_openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A checkpoint written by a version whose graph had a step this one lacks (a node since
    renamed: summarize_code, now gather_evidence) has nothing left to run here and no report:
    resumed, it ended at once with an empty result recorded as the run's."""
    options = RunOptions(model="fake-model", base_url=fake_openai.base_url)
    older = StateGraph(State, input_schema=InputState, output_schema=OutputState)
    older.add_node("setup", lambda state: {"started_at": 1.0})
    older.add_node("summarize_code", lambda state: {})
    older.add_edge(START, "setup")
    older.add_edge("setup", "summarize_code")

    async def stopped(store: RunStore) -> RunRecord:
        record = await store.create("add two numbers", options)
        swarm = older.compile(checkpointer=store.saver, interrupt_before=["summarize_code"])
        await swarm.ainvoke(InputState(task="add two numbers"), thread_config(record.thread_id))
        await store.node_done(record.thread_id, "setup")
        await store.interrupted(record.thread_id)
        return record

    record = using(db(tmp_path), stopped)
    assert main(["resume", record.thread_id]) == EXIT_ENVIRONMENT
    err = capsys.readouterr().err
    assert f"run {record.thread_id} stopped after setup at a step this version" in err, err
    assert "edgeswarm run" in err and "resuming" not in err
    assert fake_openai.requests() == []
    [row] = runs_json(capsys)
    assert row["status"] == "interrupted" and row["outcome"] is None  # nothing recorded


_FULL_DISK = """
import asyncio, resource, signal, sys
from pathlib import Path
from app.runs import RunOptions, RunStore
from app.runs_db import RunsDatabaseError

async def main() -> None:
    async with RunStore.open(Path(sys.argv[1])) as store:
        await store.create("x" * 200_000, RunOptions(model="m"))

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG)
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[2]), int(sys.argv[2])))
try:
    asyncio.run(main())
except RunsDatabaseError as err:
    print(err)
"""


def test_a_full_disk_is_not_called_a_broken_database(tmp_path: Path) -> None:
    """Issue 41, finding 10: a disk that takes no more writes made every operation say
    "disk I/O error ... move it away", though the database was intact once space was freed.
    A file size limit (RLIMIT_FSIZE) fails the writes as a full disk does."""
    path = db(tmp_path)
    first = using(path, lambda store: store.create("kept", RunOptions(model="m")))
    size = path.stat().st_size
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _FULL_DISK, str(path), str(size + 4096)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    message = done.stdout.strip()
    assert f"runs database {path} could not be read or written" in message, done
    assert "free of" in message and "move it away" not in message
    kept = using(path, lambda store: store.get(first.thread_id))  # intact, and usable
    assert kept.task == "kept"
    assert using(path, lambda store: store.create("again", RunOptions(model="m"))).task == "again"


def _as_if_elsewhere(where: Path | PostgresURL, thread_id: str, lease_left_s: float) -> None:
    """Make the run's row look claimed by a process on another host (or pid namespace)."""

    async def move(store: RunStore) -> None:
        await store._db.write(
            "UPDATE runs SET status = 'running', pid = 999999999, pid_start = 1, host = ?, "
            "lease_until = ? WHERE thread_id = ?",
            ("other-host boot pid:[1]", time.time() + lease_left_s, thread_id),
        )

    using(where, move)


def test_a_run_leased_on_another_host_is_not_resumed_here(
    capsys: pytest.CaptureFixture[str], runs_db: Path | PostgresURL
) -> None:
    """Issue 41, finding 8: a claim was checked against this host's /proc only, so a run that
    another host (or pid namespace) runs read as interrupted here, and both resumed it."""
    record = using(runs_db, lambda store: store.create("t", RunOptions(model="m")))
    _as_if_elsewhere(runs_db, record.thread_id, lease_left_s=60)
    [row] = runs_json(capsys)
    assert row["status"] == "running"
    assert main(["resume", record.thread_id]) == EXIT_RUN_BUSY
    err = capsys.readouterr().err
    assert "is still running (pid 999999999 on other-host" in err, err
    # its lease ran out: the other host's process stopped renewing it
    _as_if_elsewhere(runs_db, record.thread_id, lease_left_s=-1)
    [row] = runs_json(capsys)
    assert row["status"] == "interrupted"
    claimed = using(runs_db, lambda store: store.claim(record.thread_id))
    assert claimed.status == "interrupted"
    mine = using(runs_db, lambda store: store.get(record.thread_id))
    assert mine.status == "running" and mine.pid == os.getpid() and mine.host == this_host()


def test_a_living_run_keeps_renewing_its_lease(runs_db: Path | PostgresURL) -> None:
    record = using(runs_db, lambda store: store.create("t", RunOptions(model="m")))

    def lease() -> float:
        rows = using(
            runs_db,
            lambda store: store._db.rows(
                "SELECT lease_until FROM runs WHERE thread_id = ?", (record.thread_id,)
            ),
        )
        return float(rows[0][0])

    first = lease()
    with LeaseKeeper(runs_db, record.thread_id, every_s=0.2):
        wait_for(lambda: lease() > first, seconds=30)
    assert lease() > first


def test_a_runs_table_from_before_leases_gets_their_columns(tmp_path: Path) -> None:
    path = db(tmp_path)
    path.parent.mkdir(parents=True)
    with sqlite3.connect(path) as conn:
        conn.execute(
            "CREATE TABLE runs (thread_id TEXT PRIMARY KEY, started TEXT NOT NULL, updated TEXT "
            "NOT NULL, task TEXT NOT NULL, options TEXT NOT NULL, status TEXT NOT NULL, pid "
            "INTEGER, pid_start BIGINT, last_node TEXT, result TEXT)"
        )
        conn.execute(
            "INSERT INTO runs VALUES ('old', '2026-01-01', '2026-01-01', 't', '{\"model\": \"m\"}',"
            " 'running', 999999999, 1, NULL, NULL)"
        )
    old = using(path, lambda store: store.get("old"))
    assert old.status == "interrupted" and old.host is None
    assert using(path, lambda store: store.claim("old")).thread_id == "old"
