#!/usr/bin/env bash
# The MPI engine's tests: separate binaries (MPI initialises once per process) started
# by mpirun on 1 to 3 ranks (oversubscribed: more ranks than cores), each under
# `mpirun --timeout` so that nothing can hang; then the fault tests, which must end
# the job non-zero, quickly. Needs scripts/install-mpi.sh first.
set -euo pipefail
cd "$(dirname "$0")/.."

# Runs as root in CI containers: OpenMPI refuses that unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# `mpirun --timeout` ends a job whose ranks hang; coreutils' timeout around it ends
# mpirun itself, which OpenMPI 4.1 can leave wedged after its ranks are gone (seen
# here: a rank that finalized while the others aborted; every rank a zombie, mpirun
# waiting forever, its own --timeout never firing).
mpirun_=(timeout --kill-after=10 150 mpirun --oversubscribe --timeout 120)

# The test executables, built with the feature.
binaries=$(cargo test -p ferrax --features mpi --test mpi_collectives --test mpi_faults --no-run \
  --message-format=json 2>/dev/null |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"].startswith("mpi_"):
        print(m["target"]["name"], m["executable"])')
collectives=$(awk '$1 == "mpi_collectives" {print $2}' <<<"$binaries")
faults=$(awk '$1 == "mpi_faults" {print $2}' <<<"$binaries")
if [ -z "$collectives" ] || [ -z "$faults" ]; then
  echo "mpi-tests.sh: the MPI test binaries did not build" >&2
  exit 1
fi

for n in 1 2 3; do
  "${mpirun_[@]}" -np "$n" "$collectives"
done

# The data-parallel example as README.md runs it, on 2 MPI ranks.
example=$(cargo build -p ferrax --example data_parallel --features mpi --message-format=json 2>/dev/null |
  python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "data_parallel":
        print(m["executable"])')
if [ -z "$example" ]; then
  echo "mpi-tests.sh: the data_parallel example did not build" >&2
  exit 1
fi
"${mpirun_[@]}" -np 2 "$example" --epochs 20
"${mpirun_[@]}" -np 2 "$example" --epochs 20 --zero --quiet

# A rank that panics, reaches another collective, or never arrives: the job must end
# non-zero within seconds (the engine's timeout in mpi_faults is 3 s).
for fault in panic mismatch absent exit shape; do
  # The engine ends each of these jobs within its 3 s timeout. After a rank that
  # exited normally, mpirun itself may wedge (above): that job is bounded by the
  # outer timeout instead, and only its exit status is checked.
  limit=30
  outer=(timeout --kill-after=5 60 mpirun --oversubscribe --timeout 50)
  start=$(date +%s)
  if FERRAX_FAULT=$fault "${outer[@]}" -x FERRAX_FAULT -np 3 "$faults" >/tmp/ferrax-mpi-fault.log 2>&1; then
    echo "mpi-tests.sh: fault '$fault': the job succeeded; it must fail" >&2
    exit 1
  fi
  took=$(($(date +%s) - start))
  pkill -9 -f "$faults" 2>/dev/null || true
  if [ "$fault" = exit ]; then
    limit=70
  fi
  if ((took > limit)); then
    echo "mpi-tests.sh: fault '$fault': the job took ${took} s to end" >&2
    exit 1
  fi
  if ! grep -q "ferrax-dist: rank" /tmp/ferrax-mpi-fault.log; then
    echo "mpi-tests.sh: fault '$fault': no message naming a rank:" >&2
    cat /tmp/ferrax-mpi-fault.log >&2
    exit 1
  fi
  echo "mpi fault '$fault': the job ended non-zero in ${took} s, naming the rank"
done
