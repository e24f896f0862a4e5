#!/usr/bin/env bash
# Wheels the gateway needs beyond what the lent GPU machine has (Python 3.12, PyTorch,
# nvidia-ml-py, httpx, PyYAML; no registry there), at this venv's versions, into .whl/
# (ignored by git). Then carry .whl and run, there:
#   python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl &&
#   PYTHONPATH=/tmp/site:. python3 -m bench.gpu_check --out $OUT
set -euo pipefail
cd "$(dirname "$0")/.."
grep -qx '/.whl/' .git/info/exclude 2>/dev/null || echo '/.whl/' >> .git/info/exclude
names=(pydantic pydantic-core pydantic-settings annotated-types typing-inspection
       python-dotenv platformdirs starlette uvicorn structlog)
pins=()
for name in "${names[@]}"; do
  pins+=("$name==$(.venv/bin/python -m pip show "$name" | awk '/^Version:/ {print $2}')")
done
platforms=()
for tag in manylinux_2_28_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$tag")
done
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
  --implementation cp "${platforms[@]}" -d .whl "${pins[@]}"
ls -la .whl
