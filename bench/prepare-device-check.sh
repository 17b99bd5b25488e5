#!/usr/bin/env bash
# Prepares build-device/ on the development machine, for bench/device-check.sh
# on a GPU machine that has no nlohmann-json and no MLIR (bench/README.md):
#   build-device/include/nlohmann/   the nlohmann-json headers
#   build-device/packages/<name>/    kernel packages to verify and time
#   build-device/packages/expect-fault/<name>/
#                                    packages that must be reported "faulted"
#   build-device/moe-packages/<name>/
#                                    the MoE suite's packages (the entries of
#                                    bench/suites/moe.json's device_check list,
#                                    every entry with MOE_ALL=1) for the
#                                    device check's moe step, when kgen-opt
#                                    has kgen-lower-moe-to-tiles; else none
#                                    (the moe step then times the baselines
#                                    alone)
# The folder is git-ignored (/build*/): name it in the device tool's `carry`.
#
# usage: bench/prepare-device-check.sh [PKG_OR_DIR...] [--expect-fault PKG]...
#                                      [--no-moe]
#   PKG_OR_DIR   a package folder (holding manifest.json), or a folder of them
#                (e.g. generated packages); default: the runtime's test
#                packages, runtime/test/data/packages/*
#   --expect-fault PKG
#                a package that must fault (default, with the test packages:
#                faulting_kernel)
#   --no-moe     leave build-device/moe-packages/ out (removed)
# Environment: KGEN_NLOHMANN_INCLUDE_DIR, the folder holding nlohmann/
# (default /usr/include); BUILD_DIR (kgen-opt's build, default build);
# MOE_TARGET (default sm_90a); MOE_ALL=1 for every entry of the MoE suite.
set -eu -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEST=$ROOT/build-device
NLOHMANN=${KGEN_NLOHMANN_INCLUDE_DIR:-/usr/include}/nlohmann
TEST_PACKAGES=$ROOT/runtime/test/data/packages

SOURCES=()
FAULTY=()
MOE=1
while [ $# -gt 0 ]; do
  case "$1" in
    --expect-fault) FAULTY+=("${2:?--expect-fault needs a package folder}"); shift 2 ;;
    --no-moe) MOE=0; shift ;;
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

# The MoE suite's packages: one kgen.moe per entry (suite-to-mlir.py), each
# a package of six kernels (eleven for DeepSeek-V3's block-scaled layer),
# once kgen-lower-moe-to-tiles is in kgen-opt.
KGEN_OPT=${BUILD_DIR:-$ROOT/build}/bin/kgen-opt
MOE_DEST=$DEST/moe-packages
rm -rf "$MOE_DEST" "$MOE_DEST.mlir"
if [ $MOE = 0 ]; then
  echo "moe: left out (--no-moe)"
elif [ ! -x "$KGEN_OPT" ]; then
  echo "moe: no $KGEN_OPT; no moe packages (the moe step times the baselines alone)"
elif ! "$KGEN_OPT" --help 2>/dev/null | grep -q -- '--kgen-lower-moe-to-tiles'; then
  echo "moe: kgen-opt has no kgen-lower-moe-to-tiles yet; no moe packages (the moe step times the baselines alone)"
else
  PICK=(--device-check)
  [ "${MOE_ALL:-0}" = 1 ] && PICK=()
  python3 "$ROOT/bench/suite-to-mlir.py" "$ROOT/bench/suites/moe.json" "${PICK[@]}" > "$MOE_DEST.mlir"
  mkdir -p "$MOE_DEST"
  echo "kgen-opt: moe packages ..."
  "$KGEN_OPT" "$MOE_DEST.mlir" --kgen-pipeline="target=${MOE_TARGET:-sm_90a} output-dir=$MOE_DEST" \
    -o /dev/null
  echo "moe: $(find "$MOE_DEST" -name manifest.json | wc -l) packages ($(du -sh "$MOE_DEST" | cut -f1))"
fi

echo "prepared $DEST ($(du -sh "$DEST" | cut -f1)):"
LISTED=("$DEST/packages")
[ -d "$MOE_DEST" ] && LISTED+=("$MOE_DEST")
find "${LISTED[@]}" -name manifest.json -printf '  %h\n' | sed "s|$DEST/||" | sort
cat <<EOF
device tool: command 'bash bench/device-check.sh --packages build-device/packages --json-include build-device/include --out \$OUT'
             carry ["build-device"], timeout_s 600 (with the attention packages: ~9 min)
EOF
if [ -f "$DEST/candidates.tar.xz" ]; then
  cat <<EOF
then:        command 'bash bench/device-check.sh --steps ceilings,sweep,moe --json-include build-device/include --out \$OUT'
             carry ["build-device"], timeout_s 480 (the tuning bars, the MoE suite: ~5.5 min)
EOF
else
  cat <<EOF
then:        command 'bash bench/device-check.sh --steps ceilings,moe --json-include build-device/include --out \$OUT'
             carry ["build-device"], timeout_s 300 (the MoE suite: ~2.5 min with the build)
EOF
fi
