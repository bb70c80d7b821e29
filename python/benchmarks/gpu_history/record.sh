#!/bin/bash
# Record a GPU history for python/benchmarks/history_gpu.py: a warm-up run, then RUNS
# consecutive runs (default 30) of three CuPy kernels at 7 sizes, saxpy doing SLOW times the
# work (default 1.03) from run FROM (default 16) on; with TO, a creep instead: the work grows
# in equal steps from run FROM to SLOW times at run TO. Needs a CUDA GPU, NVIDIA's cuda-bench
# and CuPy (pip install cuda-bench cupy-cuda12x). About 8 s per run on an H200.
#
#   bash python/benchmarks/gpu_history/record.sh OUTDIR
#   python python/benchmarks/history_gpu.py OUTDIR --changed-from 16
set -euo pipefail
out=${1:?usage: record.sh OUTDIR}
runs=${RUNS:-30}; from=${FROM:-16}; slow=${SLOW:-1.03}; to=${TO:-$from}
here=$(cd "$(dirname "$0")" && pwd)
opts=(--min-time 0.1 --timeout 0.5)
mkdir -p "$out"
python3 "$here/kernels.py" "${opts[@]}" --json "$out/warmup.json" > "$out/warmup.log" 2>&1
for k in $(seq 1 "$runs"); do
  name=$(printf 'run-%02d' "$k")
  factor=$(python3 -c 'import sys
k, a, b, s = (float(v) for v in sys.argv[1:])
print(1.0 if k < a else s if k >= b else 1.0 + (s - 1.0) * (k - a + 1) / (b - a + 1))' \
    "$k" "$from" "$to" "$slow")
  AA_SLOW=$factor python3 "$here/kernels.py" "${opts[@]}" --jsonbin "$out/$name.json" \
    > "$out/$name.log" 2>&1
  echo "$name slow=$factor"
done
