import json
from pathlib import Path

import pytest

from runtime.settings import Device
from runtime.vllm import (
    COMPACT_JSON,
    GPU_MEMORY_FLAG,
    STRUCTURED_OUTPUTS_FLAG,
    VLLMServer,
    VLLMSpec,
    detect_device,
    gpu_share,
    small_cpu_environment,
)


def test_cpu_command_is_eager_module_invocation(tmp_path: Path) -> None:
    spec = VLLMSpec(
        model_dir=tmp_path,
        served_name="m",
        device=Device.CPU,
        cpu_kvcache_gib=3,
        extra_args=("--seed", "1"),
    )
    cmd = spec.command(8123)
    assert cmd[1:3] == ["-m", "vllm.entrypoints.openai.api_server"]
    assert "--enforce-eager" in cmd and "--enable-sleep-mode" not in cmd
    assert cmd[cmd.index("--port") + 1] == "8123" and cmd[cmd.index("--host") + 1] == "127.0.0.1"
    assert cmd[-2:] == ["--seed", "1"]
    env = spec.environment()
    assert env["VLLM_CPU_KVCACHE_SPACE"] == "3" and env["HF_HUB_OFFLINE"] == "1"


def test_cpu_blocks_are_small_enough_to_cache_a_prompt_prefix(tmp_path: Path) -> None:
    cmd = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CPU).command(1)
    assert cmd[cmd.index("--block-size") + 1] == "32"
    own = VLLMSpec(
        model_dir=tmp_path, served_name="m", device=Device.CPU, extra_args=("--block-size=128",)
    ).command(1)
    assert "--block-size" not in own and own[-1] == "--block-size=128"


def test_a_cpu_server_prefills_whole_so_sampled_requests_keep_their_seeds(tmp_path: Path) -> None:
    """vLLM's CPU build kills its engine on a seeded sampled request in a chunked prefill's
    partial step: a CPU server prefills whole unless the user chose its chunking."""

    def spec(*extra: str, device: Device = Device.CPU, length: int = 4096) -> VLLMSpec:
        return VLLMSpec(tmp_path, "m", device, max_model_len=length, extra_args=extra)

    cmd = spec(length=8192).command(1)
    assert "--no-enable-chunked-prefill" in cmd and "--enable-chunked-prefill" not in cmd
    assert cmd[cmd.index("--max-num-batched-tokens") + 1] == "8192"  # a whole prompt a step
    short = spec(length=1024).command(1)  # never below vLLM's own CPU step of 2048 tokens
    assert short[short.index("--max-num-batched-tokens") + 1] == "2048"
    assert spec().seeds_sampling and spec(length=1024).seeds_sampling
    for own in (
        ("--enable-chunked-prefill",),
        ("--max-num-batched-tokens", "512"),
        ("--max-num-batched-tokens=512",),
    ):  # the user's chunking wins, and then a sampled seed is not safe
        cmd = spec(*own).command(1)
        assert "--no-enable-chunked-prefill" not in cmd and cmd[-len(own) :] == list(own)
        assert not spec(*own).seeds_sampling
    assert spec("--no-enable-chunked-prefill", "--max-num-batched-tokens", "9000").seeds_sampling
    assert spec("--no-enable-chunked-prefill").command(1).count("--no-enable-chunked-prefill") == 1
    cuda = spec(device=Device.CUDA)
    assert "--no-enable-chunked-prefill" not in cuda.command(1) and cuda.seeds_sampling
    assert spec("--enable-chunked-prefill", device=Device.CUDA).seeds_sampling


def test_cuda_sleep_mode_command(tmp_path: Path) -> None:
    spec = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CUDA, sleep_mode=True)
    cmd = spec.command(1)
    assert "--enforce-eager" not in cmd and "--enable-sleep-mode" in cmd
    assert "--block-size" not in cmd  # CUDA's own default (16) already caches short prefixes
    env = spec.environment()
    assert env["VLLM_SERVER_DEV_MODE"] == "1" and "VLLM_CPU_KVCACHE_SPACE" not in env


def test_server_refuses_a_directory_without_a_model(tmp_path: Path) -> None:
    spec = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CPU)
    with pytest.raises(FileNotFoundError, match="edgeswarm models pull"):
        VLLMServer(spec, tmp_path)


def test_server_logs_to_a_file_per_port(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    server = VLLMServer(
        VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CPU),
        tmp_path / "logs",
        port=9999,
    )
    assert server.base_url == "http://127.0.0.1:9999/v1"
    assert server.log_path == tmp_path / "logs" / "vllm-m-9999.log"
    assert server.health_url == "http://127.0.0.1:9999/health"


def test_detect_device_honours_explicit_choice_and_finds_the_cpu_build() -> None:
    assert detect_device(Device.CUDA) is Device.CUDA
    assert detect_device(Device.AUTO) is Device.CPU  # this environment has vllm-cpu, no GPU


def test_a_small_cpu_machine_gives_the_model_every_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert small_cpu_environment(2) == {
        "VLLM_ENABLE_V1_MULTIPROCESSING": "0",
        "OMP_NUM_THREADS": "2",
        "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
    }
    assert small_cpu_environment(4)["OMP_NUM_THREADS"] == "4"
    assert small_cpu_environment(16) == {}  # vLLM's own choices on a larger machine
    spec = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CPU)
    for key in small_cpu_environment(2):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    env = spec.environment()
    assert env["VLLM_ENABLE_V1_MULTIPROCESSING"] == "0" and env["OMP_NUM_THREADS"] == "2"
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: set(range(16)))
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" not in spec.environment()
    monkeypatch.setattr("os.sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setenv("OMP_NUM_THREADS", "1")  # the user's choice wins
    assert spec.environment()["OMP_NUM_THREADS"] == "1"
    cuda = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CUDA)
    assert "VLLM_ENABLE_V1_MULTIPROCESSING" not in cuda.environment()


def test_guided_json_is_compact_unless_the_user_configures_structured_outputs(
    tmp_path: Path,
) -> None:
    cmd = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CPU).command(1)
    flag = cmd.index(STRUCTURED_OUTPUTS_FLAG)
    assert json.loads(cmd[flag + 1]) == {"backend": "xgrammar", "disable_any_whitespace": True}
    assert cmd.count(STRUCTURED_OUTPUTS_FLAG) == 1
    for theirs in (
        (STRUCTURED_OUTPUTS_FLAG, '{"backend": "guidance"}'),
        (STRUCTURED_OUTPUTS_FLAG + ".backend", "guidance"),
        (STRUCTURED_OUTPUTS_FLAG + '={"backend": "guidance"}',),
    ):
        spec = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CPU, extra_args=theirs)
        cmd = spec.command(1)
        assert COMPACT_JSON not in cmd and cmd[-len(theirs) :] == list(theirs)
    off = VLLMSpec(model_dir=tmp_path, served_name="m", device=Device.CUDA, compact_json=False)
    assert STRUCTURED_OUTPUTS_FLAG not in off.command(1)


def test_a_cuda_server_takes_the_share_of_the_gpu_it_is_given_unless_the_user_sets_one(
    tmp_path: Path,
) -> None:
    def spec(device: Device, *extra: str) -> VLLMSpec:
        return VLLMSpec(tmp_path, "m", device, extra_args=extra, gpu_memory_utilization=0.25)

    cuda = spec(Device.CUDA).command(1)
    assert cuda[cuda.index(GPU_MEMORY_FLAG) + 1] == "0.2500"
    assert GPU_MEMORY_FLAG not in spec(Device.CPU).command(1)
    for theirs in ((GPU_MEMORY_FLAG, "0.5"), (GPU_MEMORY_FLAG + "=0.5",)):
        cmd = spec(Device.CUDA, *theirs).command(1)
        assert cmd.count("0.2500") == 0 and cmd[-len(theirs) :] == list(theirs)
    assert gpu_share(300, 1200) == 0.25 and gpu_share(400, 1200) == 0.3333
    assert gpu_share(1, 10**12) == 0.0001  # never 0: vLLM would refuse it


@pytest.mark.parametrize("vllm_models", [1, 2])
async def test_vllm_servers_sharing_cpu_cores_wait_passively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, vllm_models: int
) -> None:
    """Two vLLM CPU servers spinning at their OpenMP barriers steal each other's cores (1600
    tokens took 132-189 s instead of 22-25): a gateway with more than one starts them passive;
    one alone keeps spinning (faster alone); the user's own setting wins."""
    import yaml

    from runtime.gateway.backends import ProcessBackend
    from runtime.gateway.service import GatewayService, prepare

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    weights = tmp_path / "weights"
    weights.mkdir()
    (weights / "config.json").write_text("{}")
    models: list[dict[str, object]] = [
        {"name": f"m{i}", "backend": "vllm", "model": str(weights), "footprint": 2**28}
        for i in range(vllm_models)
    ]
    models.append({"name": "far", "backend": "remote", "url": "http://10.0.0.9:8000/v1"})
    data = {"device": "cpu", "state_dir": str(tmp_path), "budget": {"bytes": 2**30}}
    config = tmp_path / "gateway.yaml"
    config.write_text(yaml.safe_dump({**data, "models": models}))

    async def environments() -> list[dict[str, str]]:
        service = GatewayService(prepare(config))
        try:
            return [
                slot.backend._launch().process.env  # built, never started
                for slot in service.slots.values()
                if isinstance(slot.backend, ProcessBackend)
            ]
        finally:
            await service.client.aclose()

    envs = await environments()
    assert len(envs) == vllm_models
    expected = "PASSIVE" if vllm_models > 1 else None
    assert all(env.get("OMP_WAIT_POLICY") == expected for env in envs)
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    assert all(env["OMP_WAIT_POLICY"] == "ACTIVE" for env in await environments())
