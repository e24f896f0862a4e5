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
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvicorn

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
    parser.add_argument("--config", help="the gateway's YAML config file")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=port_number, default=DEFAULT_PORT, help="port to listen on")
    parser.add_argument(
        "--leases",
        metavar="DIR",
        help="stop once no live process holds a lease file in DIR (the embedded gateway)",
    )
    parser.add_argument(
        "--print-schema", action="store_true", help="print the config's JSON schema and exit"
    )


def add_gateway_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``gateway`` subcommand to an ``add_subparsers()`` object; returns its parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "gateway",
        help="serve several models behind one OpenAI-compatible API, swapping under a budget",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser)
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


def _serve(setup: GatewaySetup, host: str, port: int, leases: Path | None = None) -> int:
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
    finally:
        if watch is not None:
            watch.stop()
    if not server.started:
        _err(f"could not serve on {host}:{port} (see the log above)")
        return EXIT_ENVIRONMENT
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m runtime.gateway.cli``: the gateway alone, with the settings flags."""
    parser = argparse.ArgumentParser(prog="edgeswarm gateway", description=__doc__)
    parser.add_argument("--env-file", help="settings file (default: ./edgeswarm.env if present)")
    parser.add_argument("--log-format", choices=[f.value for f in LogFormat])
    parser.add_argument("--log-level", choices=["debug", "info", "warning", "error"])
    _add_arguments(parser)
    return run_gateway(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
