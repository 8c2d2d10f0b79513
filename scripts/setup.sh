#!/usr/bin/env bash
# Installs everything tributary builds and tests with, idempotently, on Debian 12.
# Nothing is assumed preinstalled: the toolchain is named too (see README, "Dependencies").
set -euo pipefail
cd "$(dirname "$0")/.."

# Why each package is here is documented in README.md ("Dependencies").
packages=(
  g++ clang libclang-rt-14-dev clang-format clang-tidy cmake ninja-build pkg-config ccache git nodejs
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbrotli-dev libroaring-dev
  librocksdb-dev libssl-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  tzdata libre2-dev libxxhash-dev
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# The DuckDB test oracle: an independent Parquet/JSON/SQL reader, kept out of git.
oracle_dir=build/oracle
duckdb_version=1.5.6-r.1
if [ ! -f "$oracle_dir/node_modules/@duckdb/node-api/package.json" ] ||
   ! grep -q "\"version\": \"$duckdb_version\"" "$oracle_dir/node_modules/@duckdb/node-api/package.json"; then
  echo "setup: installing @duckdb/node-api@$duckdb_version into $oracle_dir"
  mkdir -p "$oracle_dir"
  [ -f "$oracle_dir/package.json" ] || echo '{"name":"tributary-oracle","private":true}' > "$oracle_dir/package.json"
  (cd "$oracle_dir" && npm install --silent --no-audit --no-fund "@duckdb/node-api@$duckdb_version")
fi
echo "setup: ok"
