#!/usr/bin/env bash
# The merge step of a Kubernetes matrix run (ci/k8s/merge-job.yaml): `port report` over the
# JUnit of every index; an index without a completion marker (deleted, evicted, past its
# deadline, never scheduled) makes the report partial, naming the shard.
# Environment: PORT_RESULTS, PORT_MATRIX_RUN_ID (the matrix Job's uid), PORT_SHARD_COUNT,
# PORT_PYTHON (default: python3 with rocm-port installed, else this checkout on PYTHONPATH).
# Arguments: passed on to `port report` (e.g. a reference directory). Exit: the verdict's.
set -euo pipefail
: "${PORT_RESULTS:?PORT_RESULTS is not set}"
: "${PORT_MATRIX_RUN_ID:?PORT_MATRIX_RUN_ID (the matrix Job uid) is not set}"
: "${PORT_SHARD_COUNT:?PORT_SHARD_COUNT is not set}"
run_dir="$PORT_RESULTS/$PORT_MATRIX_RUN_ID"
py=${PORT_PYTHON:-python3}
mkdir -p "$run_dir/junit"
args=()
for ((i = 0; i < PORT_SHARD_COUNT; i++)); do
  if [ ! -f "$run_dir/done/index-$i" ]; then
    args+=(--incomplete "shard $((i + 1))/$PORT_SHARD_COUNT (completion index $i) did not finish: deleted, evicted or past its deadline")
  fi
done
set +e
# "$@" first: `port report` takes its input paths before the options
"$py" -m porting report "$run_dir/junit" "$@" --out "$run_dir/report" "${args[@]}"
rc=$?
set -e
echo "port-merge: verdict exit $rc; report in $run_dir/report"
exit "$rc"
