"""The serving dtype follows the CPU (bfloat16 only with bf16 instructions), the user's
``--dtype`` always wins, and the embedded gateway budgets what the servers will hold."""

from __future__ import annotations

from pathlib import Path

import pytest
import structlog

from runtime import cpu
from runtime.cpu import choose_dtype, explicit_dtype, parse_cpu_flags, pick_cpu_dtype
from runtime.gateway.config import crowding_warning, parse_config
from runtime.gateway.embedded import (
    GiB,
    cpu_budget,
    embedded_config,
    estimate_footprint,
    served_weights,
)
from runtime.settings import Device, load_settings
from runtime.vllm import VLLMServer, VLLMSpec, describe_dtype
from tests.support.gateway import fake_pulled

AVX2 = frozenset({"fpu", "sse4_2", "avx", "avx2", "fma"})  # an AMD EPYC without AVX-512
AMX = AVX2 | {"avx512f", "avx512_bf16", "amx_bf16", "amx_tile"}  # a Sapphire Rapids Xeon
X86_CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
flags\t\t: fpu sse4_2 avx avx2 fma
bugs\t\t: sysret_ss_attrs

processor\t: 1
flags\t\t: something else
"""
ARM_CPUINFO = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd sve bf16 i8mm\n"


def test_the_flags_come_from_the_first_processor_of_cpuinfo() -> None:
    assert parse_cpu_flags(X86_CPUINFO) == {"fpu", "sse4_2", "avx", "avx2", "fma"}
    assert "bf16" in parse_cpu_flags(ARM_CPUINFO)
    assert parse_cpu_flags("") == frozenset()
    assert isinstance(cpu.host_flags(), frozenset)


@pytest.mark.parametrize(
    ("flags", "dtype"),
    [
        ("avx2", "float32"),  # bfloat16 emulated: float32 batches 2.3-2.6x faster
        ("avx2 avx512f avx512bw", "float32"),  # AVX-512 without its BF16 extension
        ("avx2 avx512f avx512_bf16", "bfloat16"),
        ("avx2 amx_bf16 amx_tile", "bfloat16"),
        ("fp asimd bf16", "bfloat16"),  # aarch64 with BF16
        ("", "float32"),  # unknown: float32 is exact everywhere
    ],
)
def test_bfloat16_only_where_the_cpu_multiplies_it_in_hardware(flags: str, dtype: str) -> None:
    assert pick_cpu_dtype(flags.split()) == dtype
    assert choose_dtype(Device.CPU, (), flags.split()).dtype == dtype


def test_the_users_dtype_always_wins_and_cuda_keeps_vllms_choice() -> None:
    assert explicit_dtype(["--seed", "1", "--dtype", "bfloat16"]) == "bfloat16"
    assert explicit_dtype(["--dtype=half", "--dtype", "float32"]) == "float32"  # the last one
    assert explicit_dtype(["--dtype"]) is None and explicit_dtype([]) is None
    theirs = choose_dtype(Device.CPU, ("--dtype=bfloat16",), AVX2)
    assert (theirs.dtype, theirs.source, theirs.added_args) == ("bfloat16", "user", ())
    cuda = choose_dtype(Device.CUDA, (), AVX2)
    assert (cuda.dtype, cuda.added_args) == (None, ())
    ours = choose_dtype(Device.CPU, ("--seed", "1"), AVX2)
    assert ours.added_args == ("--dtype", "float32") and "avx512_bf16" in ours.why
    assert ours.describe().startswith("vLLM dtype: float32 (this CPU has no avx512_bf16")
    assert "amx_bf16" in choose_dtype(Device.CPU, (), AMX).describe()


def test_the_cpu_server_command_carries_the_chosen_dtype_unless_the_user_set_one(
    tmp_path: Path,
) -> None:
    def command(device: Device, flags: frozenset[str], *extra: str) -> list[str]:
        spec = VLLMSpec(tmp_path, "m", device, extra_args=extra, cpu_flags=flags)
        return spec.command(1)

    slow = command(Device.CPU, AVX2, "--seed", "1")
    assert slow[slow.index("--dtype") + 1] == "float32" and slow[-2:] == ["--seed", "1"]
    fast = command(Device.CPU, AMX)
    assert fast[fast.index("--dtype") + 1] == "bfloat16" and fast.count("--dtype") == 1
    for theirs in (("--dtype", "bfloat16"), ("--dtype=bfloat16",)):
        cmd = command(Device.CPU, AVX2, *theirs)
        assert "float32" not in cmd and cmd[-len(theirs) :] == list(theirs)
    assert not any(a.startswith("--dtype") for a in command(Device.CUDA, AVX2))
    # without bfloat16 in hardware the default is the `--dtype float32` server, argument for
    # argument: bench.cpu_dtype's float32 rates on such a CPU are the default's
    explicit = command(Device.CPU, AVX2, "--dtype", "float32")
    assert sorted(command(Device.CPU, AVX2)) == sorted(explicit)


def test_a_server_logs_its_dtype_as_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "config.json").write_text("{}")
    spec = VLLMSpec(tmp_path, "coder", Device.CPU, cpu_flags=AVX2)
    server = VLLMServer(spec, tmp_path / "logs", port=9)
    monkeypatch.setattr("runtime.process.ManagedProcess.start", lambda self: None)
    with structlog.testing.capture_logs() as logs:
        server.start()
    event = next(e for e in logs if e["event"] == "vllm_dtype")
    assert (event["model"], event["dtype"], event["source"]) == ("coder", "float32", "cpu")


def test_describe_dtype_says_what_the_runs_servers_serve_in(tmp_path: Path) -> None:
    settings = load_settings(state_dir=tmp_path, device="cpu")
    line = describe_dtype(settings)
    assert line is not None and line.startswith("vLLM dtype: ")
    theirs = load_settings(state_dir=tmp_path, device="cpu", vllm_extra_args=["--dtype=half"])
    assert describe_dtype(theirs) == "vLLM dtype: half (set by --dtype in the vLLM arguments)"
    remote = load_settings(state_dir=tmp_path, base_url="http://127.0.0.1:9/v1")
    assert describe_dtype(remote) is None  # someone else's servers


# -- footprints and budget ------------------------------------------------------------------

QWEN, SMOL = "qwen2.5-coder-0.5b-instruct", "smollm2-135m-instruct"
STORED = {QWEN: 1_260_000_000, SMOL: 269_000_000}  # bfloat16 safetensors directories
GB = 10**9


def default_footprints(flags: frozenset[str], kvcache_gib: int = 2) -> dict[str, int]:
    """The embedded gateway's footprints of the two default models on a CPU with ``flags``."""
    held = list(choose_dtype(Device.CPU, (), flags).added_args)
    return {
        name: estimate_footprint(served_weights(size, "bfloat16", held), Device.CPU, kvcache_gib)
        for name, size in STORED.items()
    }


@pytest.mark.parametrize(
    "total", [24 * GB, 24 * GiB - GiB // 2], ids=["24GB", "23.5GiB (this machine)"]
)
@pytest.mark.parametrize("flags", [AVX2, AMX], ids=["float32", "bfloat16"])
def test_both_default_models_stay_resident_on_a_24_gb_machine_in_either_dtype(
    total: int, flags: frozenset[str]
) -> None:
    footprints = default_footprints(flags)
    idle = total - int(1.5 * GiB)  # what an idle machine has free before the gateway starts
    budget, why = cpu_budget(total, idle)
    assert crowding_warning(footprints, budget, why) is None, (footprints, budget)
    assert budget <= 0.75 * total  # a quarter of the RAM stays for the swarm, sandbox, system


def test_float32_doubles_the_weights_in_the_footprint() -> None:
    fp32, bf16 = default_footprints(AVX2), default_footprints(AMX)
    assert 8.5 * GB < fp32[QWEN] < 8.7 * GB and 5.5 * GB < fp32[SMOL] < 5.7 * GB  # issue 39
    assert fp32[QWEN] - bf16[QWEN] == int(STORED[QWEN] * 1.5)


def test_the_cpu_budget_takes_free_ram_within_a_half_and_three_quarters() -> None:
    total = 32 * GiB
    assert cpu_budget(total, 30 * GiB)[0] == 24 * GiB  # capped at three quarters
    assert cpu_budget(total, 20 * GiB)[0] == 18 * GiB  # free RAM less 2 GiB of headroom
    assert cpu_budget(total, 4 * GiB)[0] == 16 * GiB  # never below half, as before
    assert cpu_budget(total, None)[0] == 24 * GiB  # /proc/meminfo unreadable
    assert "free at start" in cpu_budget(total, 20 * GiB)[1]


def test_the_fit_check_names_each_footprint_and_the_budget() -> None:
    footprints = {QWEN: int(8.6 * GB), SMOL: int(5.6 * GB)}
    warning = crowding_warning(footprints, int(11.75 * GiB), "budget.ram_fraction")
    assert warning is not None
    for figure in (QWEN, "8.01 GiB", SMOL, "5.22 GiB", "13.22 GiB", "11.75 GiB", "swap"):
        assert figure in warning
    assert crowding_warning(footprints, int(14.2 * GB), "x") is None  # exactly enough
    assert crowding_warning({QWEN: 9 * GB}, GB, "x") is None  # one model: check_fits' job


def test_the_embedded_config_budgets_the_chosen_dtype_and_warns_when_models_crowd(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load_settings(models_dir=tmp_path / "models", state_dir=tmp_path / "state")
    fake_pulled(settings.models_dir, SMOL, 10 * 10**6)
    fake_pulled(settings.models_dir, QWEN, 40 * 10**6)

    def footprints(flags: frozenset[str], budget: int) -> list[int]:
        monkeypatch.setattr(cpu, "host_flags", lambda: flags)
        raw = embedded_config(settings, [SMOL, QWEN], device=Device.CPU, budget_bytes=budget)
        parse_config(raw, origin="embedded")
        assert all(entry["extra_args"] == [] for entry in raw["models"])  # the spec adds it
        return [entry["footprint"] for entry in raw["models"]]

    bf16, fp32 = footprints(AMX, 60 * GiB), footprints(AVX2, 60 * GiB)
    grown = [b - a for a, b in zip(bf16, fp32, strict=True)]  # 1.5x the extra weights
    assert abs(grown[0] - 15 * 10**6) < 1000 and abs(grown[1] - 60 * 10**6) < 1000  # manifest
    with structlog.testing.capture_logs() as logs:
        footprints(AVX2, 6 * GiB)  # one fits, not both
    warning = next(e for e in logs if e["event"] == "models_do_not_fit")
    assert warning["log_level"] == "warning" and warning["budget"] == 6 * GiB
    assert set(warning["footprints"]) == {SMOL, QWEN} and "6.00 GiB" in warning["message"]
    monkeypatch.setattr("runtime.gateway.embedded.system_ram", lambda: 24 * GiB)
    monkeypatch.setattr("runtime.gateway.embedded.available_ram", lambda: 22 * GiB)
    raw = embedded_config(settings, [SMOL], device=Device.CPU)
    assert raw["budget"] == {"bytes": 18 * GiB}
