#!/usr/bin/env bash
# Installs what the MPI engine (cargo feature `mpi`) needs, from the OS's packages,
# when missing: OpenMPI (mpirun and its headers) and libclang, which the `mpi`
# crate's bindgen build uses. Debian/Ubuntu (apt); elsewhere install the equivalents.
set -euo pipefail

need=()
command -v mpirun >/dev/null 2>&1 || need+=(openmpi-bin)
dpkg -s libopenmpi-dev >/dev/null 2>&1 || need+=(libopenmpi-dev)
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
if ((${#need[@]} == 0)); then
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install-mpi.sh: no apt-get here; install OpenMPI (mpirun, mpicc, headers) and libclang yourself: ${need[*]}" >&2
  exit 1
fi
sudo=()
if [ "$(id -u)" != 0 ]; then
  sudo=(sudo)
fi
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq "${need[@]}"
