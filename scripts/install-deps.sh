#!/usr/bin/env bash
# Installs what rocktile needs to build and test: Debian's LLVM/MLIR/lld 22
# and build tools, then the pinned Python packages. Idempotent, and quick
# when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake ninja-build ccache gcc g++ zlib1g-dev libzstd-dev libgtest-dev
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22 liblld-22-dev)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if ! "$PYTHON" - <<'PY' 2>/dev/null
import importlib.metadata as md, re, sys
for line in open("requirements.txt"):
    line = line.split("#")[0].strip()
    if line:
        name, version = re.split("==", line)
        if md.version(name) != version:
            sys.exit(1)
PY
then
  echo "install-deps: installing Python requirements"
  "$PYTHON" -m pip install --quiet --disable-pip-version-check -r requirements.txt
fi
