#!/usr/bin/env bash
# Prepares build-device/ on the development machine, for bench/device-check.sh
# on a GPU machine that has no nlohmann-json and no MLIR (bench/README.md):
#   build-device/include/nlohmann/   the nlohmann-json headers
#   build-device/packages/<name>/    kernel packages to verify and time
#   build-device/packages/expect-fault/<name>/
#                                    packages that must be reported "faulted"
# The folder is git-ignored (/build*/): name it in the device tool's `carry`.
#
# usage: bench/prepare-device-check.sh [PKG_OR_DIR...] [--expect-fault PKG]...
#   PKG_OR_DIR   a package folder (holding manifest.json), or a folder of them
#                (e.g. generated packages); default: the runtime's test
#                packages, runtime/test/data/packages/*
#   --expect-fault PKG
#                a package that must fault (default, with the test packages:
#                faulting_kernel)
# Environment: KGEN_NLOHMANN_INCLUDE_DIR, the folder holding nlohmann/
# (default /usr/include).
set -eu -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=$ROOT/build-device
NLOHMANN=${KGEN_NLOHMANN_INCLUDE_DIR:-/usr/include}/nlohmann
TEST_PACKAGES=$ROOT/runtime/test/data/packages

SOURCES=()
FAULTY=()
while [ $# -gt 0 ]; do
  case "$1" in
    --expect-fault) FAULTY+=("${2:?--expect-fault needs a package folder}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) SOURCES+=("$1"); shift ;;
  esac
done
if [ ${#SOURCES[@]} -eq 0 ] && [ ${#FAULTY[@]} -eq 0 ]; then
  for pkg in "$TEST_PACKAGES"/*/; do
    pkg=${pkg%/}
    if [ "$(basename "$pkg")" = faulting_kernel ]; then
      FAULTY+=("$pkg")
    else
      SOURCES+=("$pkg")
    fi
  done
fi

if [ ! -f "$NLOHMANN/json.hpp" ]; then
  echo "prepare-device-check: no $NLOHMANN/json.hpp (install nlohmann-json3-dev or set KGEN_NLOHMANN_INCLUDE_DIR)" >&2
  exit 2
fi
rm -rf "$DEST/include" "$DEST/packages"
mkdir -p "$DEST/include" "$DEST/packages/expect-fault"
cp -r "$NLOHMANN" "$DEST/include/"

# Copies package folder $1 into $2/<its name>.
copy_package() {
  if [ ! -f "$1/manifest.json" ]; then
    echo "prepare-device-check: $1 holds no manifest.json" >&2
    exit 2
  fi
  cp -r "$1" "$2/$(basename "$1")"
}

for src in "${SOURCES[@]}"; do
  if [ -f "$src/manifest.json" ]; then
    copy_package "$src" "$DEST/packages"
  else
    found=0
    for pkg in "$src"/*/; do
      [ -f "$pkg/manifest.json" ] || continue
      copy_package "${pkg%/}" "$DEST/packages"
      found=1
    done
    if [ $found -eq 0 ]; then
      echo "prepare-device-check: no packages in $src" >&2
      exit 2
    fi
  fi
done
for pkg in "${FAULTY[@]}"; do
  copy_package "${pkg%/}" "$DEST/packages/expect-fault"
done

echo "prepared $DEST ($(du -sh "$DEST" | cut -f1)):"
find "$DEST/packages" -name manifest.json -printf '  %h\n' | sed "s|$DEST/||" | sort
cat <<EOF
device tool: command 'bash bench/device-check.sh --packages build-device/packages --json-include build-device/include --out \$OUT'
             carry ["build-device"], timeout_s 600 (with the attention packages: ~8.5 min)
EOF
if [ -f "$DEST/candidates.tar.xz" ]; then
  cat <<EOF
then:        command 'bash bench/device-check.sh --steps sweep --json-include build-device/include --out \$OUT'
             carry ["build-device"], timeout_s 360 (the tuning bars)
EOF
fi
