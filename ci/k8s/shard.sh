#!/usr/bin/env bash
# One shard of the certification matrix in a pod of the Indexed Job ci/k8s/matrix-job.yaml.
# `port matrix` takes its shard from JOB_COMPLETION_INDEX (0-based) and PORT_SHARD_COUNT, and
# its run id from PORT_MATRIX_RUN_ID (the Job's uid, set by the manifest).
#
# Environment: PORT_RESULTS (the results volume; this run writes PORT_RESULTS/<run id>/junit
# and done/), PORT_PYTHON (an interpreter with rocm-port installed; unset: make /venv on top of
# the image's torch and install this checkout), PORT_BUILD (1: `port build` first).
# Arguments: passed on to `port matrix`.
#
# This shell is PID 1 of its container: PID 1 gets no default signal handling, so SIGTERM
# (pod deletion, activeDeadlineSeconds) is forwarded to `port matrix`, which writes the JUnit
# of what ran, marked incomplete; the completion marker is then not written.
set -euo pipefail
: "${PORT_RESULTS:?PORT_RESULTS (the results volume) is not set}"
: "${PORT_MATRIX_RUN_ID:?PORT_MATRIX_RUN_ID is not set (the manifest sets it from the Job uid)}"
: "${JOB_COMPLETION_INDEX:?JOB_COMPLETION_INDEX is not set: not a pod of an Indexed Job}"
run_dir="$PORT_RESULTS/$PORT_MATRIX_RUN_ID"
mkdir -p "$run_dir/junit" "$run_dir/done"

py=${PORT_PYTHON:-}
if [ -z "$py" ]; then
  python3 -m venv --system-site-packages /venv  # keeps the image's ROCm (or CUDA) torch
  /venv/bin/python -m pip install -q --disable-pip-version-check -e '.[matrix]'
  py=/venv/bin/python
fi
if [ "${PORT_BUILD:-1}" = 1 ]; then
  "$py" -m porting build
fi

interrupted=0
"$py" -m porting matrix --junit "$run_dir/junit" "$@" &
child=$!
trap 'interrupted=1; kill -TERM "$child" 2>/dev/null || true' TERM INT
set +e
wait "$child"
rc=$?
while kill -0 "$child" 2>/dev/null; do  # a trapped signal ended the first wait early
  wait "$child"
  rc=$?
done
set -e
if [ "$interrupted" = 0 ]; then
  marker="$run_dir/done/index-$JOB_COMPLETION_INDEX"
  echo "exit $rc on ${PORT_NODE_NAME:-$(hostname)} at $(date -u +%FT%TZ)" > "$marker.tmp"
  mv -f "$marker.tmp" "$marker"
fi
exit "$rc"
