"""``edgeswarm gateway --config FILE [--host 127.0.0.1] [--port N]``: run the model gateway.

Also runnable as ``python -m runtime.gateway.cli`` (the embedded gateway starts it that way).
Listening beyond loopback (``--host 0.0.0.0``, a LAN address) needs a bearer token
(``EDGESWARM_GATEWAY_TOKEN``, or the config's ``auth`` section); every route then requires it.
With ``--leases DIR`` (how the embedded gateway is started) it also stops by itself once no
live process holds a lease file in DIR (:mod:`runtime.gateway.leases`), and removes DIR then.
Exit codes: 0 when it stops by itself (``--leases``), 2 for an invalid config or usage (a
non-loopback host without a token included), 3 when the environment refuses (another gateway
owns the device, a model is not pulled, the port is taken); on SIGINT or SIGTERM it shuts down
gracefully and uvicorn raises the signal again: 130 or 143.
What clients may send and how slowly (body size, head and body timeouts, open connections)
and the host names it answers to come from the config's ``http`` section; at start it raises
its open-files limit toward the hard limit (:mod:`runtime.gateway.limits`).
One gateway per device on this machine, whoever starts it and whatever its state directory:
the device lock lives in ``/run/edgeswarm`` if writable, else ``<tempdir>/edgeswarm-locks``
(``EDGESWARM_LOCK_DIR`` overrides it); a second gateway names the first's pid, URL and config.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import socket
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import uvicorn
from uvicorn.config import STARTUP_FAILURE

from runtime.gateway.auth import is_loopback
from runtime.gateway.config import ConfigError, format_bytes, schema_text
from runtime.gateway.leases import LeaseWatch, remove_leases
from runtime.gateway.limits import raise_open_files_limit
from runtime.gateway.lock import (
    LOCK_DIR_ENV,
    DeviceBusyError,
    DeviceLock,
    LockHolder,
    device_key,
    lock_dir,
)
from runtime.gateway.server import serve_config
from runtime.gateway.service import GatewayService, GatewaySetup, prepare
from runtime.logs import add_secrets, configure_logging
from runtime.settings import LogFormat, Settings, SettingsError, load_settings

EXIT_OK, EXIT_USAGE, EXIT_ENVIRONMENT = 0, 2, 3
DEFAULT_PORT = 8100
GRACEFUL_SHUTDOWN_S = 5
LOG_LEVELS = ("debug", "info", "warning", "error")

DESCRIPTION = """\
Serve several models behind one OpenAI-compatible API (/v1), starting, sleeping and stopping
their servers so that those loaded fit the config's memory budget. One gateway per device on
this machine. Its status page is /ui, its Prometheus metrics /metrics (docs/gateway.md)."""

EPILOG = """\
examples:
  edgeswarm gateway --config gateway.yaml             serve on http://127.0.0.1:8100/v1
  edgeswarm gateway --config gateway.yaml --port 9000
  EDGESWARM_GATEWAY_TOKEN=... edgeswarm gateway --config gateway.yaml --host 0.0.0.0
  edgeswarm gateway --print-schema > gateway.schema.json
  (an example config: examples/gateway.example.yaml)

Listening beyond loopback needs a bearer token (EDGESWARM_GATEWAY_TOKEN, or the config's
auth section); every route then requires it.

exit codes:
  0    stopped by itself (--leases: no live lease left)
  2    an invalid config or usage (no --config, a bad --port, a non-loopback --host
       without a token)
  3    the environment refuses: the port is in use or cannot be listened on, another
       gateway owns the device, a model is not pulled
  130  SIGINT (Ctrl-C); 143: SIGTERM (it shuts down gracefully first)"""


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs kept as written (examples, tables); each default shown.

    An option whose help already names its default, or whose default means "not given"
    (None, a flag's False, an empty list), is left as written.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        unset = default is None or default is False or default == [] or default == ""
        if not action.option_strings or unset or default is argparse.SUPPRESS:
            return text
        if "default" in text or "%(default)" in text:
            return text
        return f"{text} (default: %(default)s)"


def add_settings_options(parser: argparse.ArgumentParser, *, subcommand: bool = False) -> None:
    """``--env-file``, ``--log-format`` and ``--log-level`` on ``parser``.

    ``subcommand``: the options of a command's own parser, which win over the same options
    given before the command and leave them alone when not given.
    """
    unset: dict[str, Any] = {"default": argparse.SUPPRESS} if subcommand else {}
    group = parser.add_argument_group("settings (also from EDGESWARM_* variables)")
    group.add_argument(
        "--env-file",
        metavar="FILE",
        help="settings file (default: ./edgeswarm.env if present; docs/configuration.md)",
        **unset,
    )
    group.add_argument(
        "--log-format",
        choices=[f.value for f in LogFormat],
        help="how stderr shows log events: auto = a quiet terminal on a terminal (warnings, "
        "one short line each), JSON lines off one; console = the readable log; json = JSON "
        "lines, also on a terminal (default: auto, or EDGESWARM_LOG_FORMAT)",
        **unset,
    )
    group.add_argument(
        "--log-level",
        choices=LOG_LEVELS,
        help="the lowest level of the events on stderr; log files get every level (default: "
        "info, or EDGESWARM_LOG_LEVEL; a quiet terminal shows warning and up unless given)",
        **unset,
    )


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 1 to 65535.

    ``--port 99999`` is then a usage error, not a traceback from the socket layer.
    """
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 1 to 65535, not {port}")
    return port


def _add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="the gateway's YAML config file (default: none; required unless --print-schema)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on; any but loopback needs a bearer token",
    )
    parser.add_argument(
        "--port", type=port_number, default=DEFAULT_PORT, help="port to listen on, 1 to 65535"
    )
    parser.add_argument(
        "--leases",
        metavar="DIR",
        help="stop once no live process holds a lease file in DIR, as the embedded gateway "
        "does (default: none: it serves until stopped)",
    )
    parser.add_argument(
        "--print-schema", action="store_true", help="print the config's JSON schema and exit"
    )


def add_gateway_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``gateway`` subcommand to an ``add_subparsers()`` object; returns its parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "gateway",
        help="serve several models behind one OpenAI-compatible API, swapping under a budget",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    _add_arguments(parser)
    add_settings_options(parser, subcommand=True)
    parser.set_defaults(handler=run_gateway)
    return parser


def _err(message: str) -> None:
    sys.stderr.write(f"edgeswarm gateway: error: {message}\n")


def _settings(args: argparse.Namespace) -> Settings:
    return load_settings(
        env_file=getattr(args, "env_file", None),
        log_format=getattr(args, "log_format", None),
        log_level=getattr(args, "log_level", None),
    )


def run_gateway(args: argparse.Namespace) -> int:
    """Run the gateway until SIGINT or SIGTERM; the exit code."""
    if args.print_schema:
        sys.stdout.write(schema_text())
        return EXIT_OK
    if not args.config:
        _err("--config FILE is required (see examples/gateway.example.yaml)")
        return EXIT_USAGE
    try:
        settings = _settings(args)
        configure_logging(settings.log_format, settings.log_level)
        setup = prepare(Path(args.config), settings)
    except (ConfigError, SettingsError) as err:
        _err(str(err))
        return EXIT_USAGE
    add_secrets(*setup.secrets)
    if setup.token is None and not is_loopback(args.host):
        _err(_exposed(setup, args.host))
        return EXIT_USAGE
    url = f"http://{args.host}:{args.port}"
    try:
        lock = DeviceLock(
            lock_dir(settings.lock_dir), device_key(setup.device, setup.config.gpu_index)
        )
        lock.acquire(LockHolder(os.getpid(), url, str(Path(args.config).resolve())))
    except DeviceBusyError as err:
        _err(str(err))
        return EXIT_ENVIRONMENT
    except OSError as err:  # the lock directory
        _err(f"cannot take the device lock: {err}; set {LOCK_DIR_ENV} to a writable directory")
        return EXIT_ENVIRONMENT
    leases = Path(args.leases) if getattr(args, "leases", None) else None
    try:
        return _serve(setup, args.host, args.port, leases)
    finally:
        if leases is not None:
            remove_leases(leases)
        lock.release()


def _exposed(setup: GatewaySetup, host: str) -> str:
    """Why the gateway refuses to listen on a non-loopback ``host`` without a token."""
    return (
        f"refusing to listen on {host} without a bearer token: anyone who reaches it could use, "
        f"load and unload your models. Set {setup.config.auth.token_env} (or auth.token_file "
        f"in {setup.origin}) to a token of 16 characters or more, or listen on 127.0.0.1"
    )


def port_holder(port: int) -> str | None:
    """Which process listens on TCP ``port`` ("pid N (command)"), if /proc says cheaply.

    None when nothing found: another user's process (its fds are not ours to read), another
    network namespace, or no /proc.
    """
    wanted = {f"socket:[{inode}]" for inode in _listening_inodes(port)}
    if not wanted:
        return None
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and any(target in wanted for target in _fd_targets(entry)):
            return f"pid {entry.name} ({_command_line(entry)})"
    return None


def _listening_inodes(port: int) -> set[str]:
    """The socket inodes listening on TCP ``port`` (IPv4 and IPv6), from /proc/net."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text("ascii").splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()  # local address, remote, state (0A: LISTEN), ..., inode
            listening = len(fields) > 9 and fields[3] == "0A" and fields[9] != "0"
            if listening and fields[1].endswith(f":{port:04X}"):
                inodes.add(fields[9])
    return inodes


def _fd_targets(proc: Path) -> Iterator[str]:
    """What a process's open file descriptors point at (none readable: none)."""
    try:
        fds = list((proc / "fd").iterdir())
    except OSError:
        return
    for fd in fds:
        try:
            yield os.readlink(fd)
        except OSError:
            continue


def _command_line(proc: Path, limit: int = 80) -> str:
    try:
        raw = (proc / "cmdline").read_bytes()
    except OSError:
        return "?"
    text = " ".join(raw.replace(b"\0", b" ").decode("utf-8", "replace").split()) or "?"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def listen_problem(host: str, port: int) -> str | None:
    """Why the gateway could not listen on ``host``:``port`` now; None when it can.

    Binds a socket as uvicorn will (``SO_REUSEADDR``) and closes it at once. A port in use
    names the process that holds it when it can be found.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                holder = port_holder(port)
                by = f" by {holder}" if holder else ""
                return (
                    f"port {port} on {host} is already in use{by}; stop that, or choose "
                    "another --port"
                )
            why = err.strerror or str(err)
            if err.errno == errno.EACCES and port < 1024:
                why += " (ports under 1024 need privileges; choose --port 1024 or above)"
            return f"cannot listen on {host}:{port}: {why}"
    return None


def _serve(setup: GatewaySetup, host: str, port: int, leases: Path | None = None) -> int:
    problem = listen_problem(host, port)  # before the banner: one clear line, not uvicorn's
    if problem is not None:
        _err(problem)
        return EXIT_ENVIRONMENT
    try:
        service = GatewayService(setup)
    except FileNotFoundError as err:
        _err(str(err))
        return EXIT_ENVIRONMENT
    raise_open_files_limit()  # before the cap on connections is derived from it
    config = serve_config(
        service,
        host,
        port,
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_S,
    )
    server = uvicorn.Server(config)
    sys.stdout.write(
        f"edgeswarm gateway: {len(service.slots)} models on http://{host}:{port}/v1 "
        f"(device {setup.device}, budget {format_bytes(setup.budget.device_bytes)} from "
        f"{setup.budget.source}; {'bearer token required' if setup.token else 'no token'})\n"
    )
    sys.stdout.flush()
    watch = LeaseWatch(leases, lambda: setattr(server, "should_exit", True)) if leases else None
    if watch is not None:
        watch.start()
    try:
        asyncio.run(server.serve())
    except SystemExit as stop:  # uvicorn's own exit when it cannot start: our line instead
        if server.started or stop.code != STARTUP_FAILURE:
            raise
    finally:
        if watch is not None:
            watch.stop()
    if not server.started:
        problem = listen_problem(host, port)
        _err(problem or f"could not serve on {host}:{port} (see the log above)")
        return EXIT_ENVIRONMENT
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m runtime.gateway.cli``: the gateway alone, with the settings flags."""
    parser = argparse.ArgumentParser(
        prog="edgeswarm gateway",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=HelpFormatter,
    )
    _add_arguments(parser)
    add_settings_options(parser)
    return run_gateway(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
