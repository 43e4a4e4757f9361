#!/usr/bin/env bash
# Installs the Debian 12 packages aoe builds and tests with.
set -euo pipefail
packages=(
  build-essential cmake
  libboost-dev libboost-filesystem-dev   # Boost.DLL loads plugins
  libonnx-dev libprotobuf-dev protobuf-compiler
  nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev
  libgtest-dev libgmock-dev
  zlib1g-dev                             # the replay device reads gzip-compressed cachefiles
  libopenblas-dev                        # OpenBLAS: a GEMM the cpu device may pick; its benchmark compares with it
  libdnnl-dev                            # oneDNN: a Conv the cpu device may pick
  libonnx-testdata                       # ONNX's node tests: the cpu device's conformance test
  pkg-config
  ccache                                 # compiler cache: a rebuild, or a fresh clone in another folder, compiles only what changed
  python3 python3-jsonschema             # result files are validated against their JSON Schema
  python3-dev pybind11-dev python3-pytest  # the Python package aoe and its tests
  python3-numpy                          # Session.run takes and returns NumPy arrays
  dpkg-dev file                          # cpack -G DEB finds the packages' library dependencies
  libopenmpi-dev openmpi-bin             # gdat measures allreduce splits under mpirun
  clang-16 libclang-rt-16-dev llvm-16    # the asan preset and the fuzzers (libFuzzer)
  chromium                               # the HTML report's test loads it in a headless browser
)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
