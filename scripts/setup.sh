#!/usr/bin/env bash
# Installs everything tributary builds and tests with, idempotently, on Debian 12.
# Nothing is assumed preinstalled: the toolchain is named too (see README, "Dependencies").
set -euo pipefail
cd "$(dirname "$0")/.."

# Why each package is here is documented in README.md ("Dependencies").
packages=(
  g++ clang libclang-rt-14-dev clang-format clang-tidy cmake ninja-build pkg-config ccache lld git nodejs
  libgtest-dev libgmock-dev libbenchmark-dev
  libsimdjson-dev libzstd-dev libsnappy-dev liblz4-dev zlib1g-dev libbrotli-dev libroaring-dev
  librocksdb-dev libssl-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  tzdata libre2-dev libxxhash-dev libcurl4-openssl-dev libpugixml-dev
  librdkafka-dev kcat libedit-dev tmux
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

# The test oracles, kept out of git in $oracle_dir: npm package $1 at exactly version $2.
oracle_dir=build/oracle
install_oracle_package() {
  local manifest="$oracle_dir/node_modules/$1/package.json"
  if [ ! -f "$manifest" ] || ! grep -q "\"version\": \"$2\"" "$manifest"; then
    echo "setup: installing $1@$2 into $oracle_dir"
    mkdir -p "$oracle_dir"
    [ -f "$oracle_dir/package.json" ] || echo '{"name":"tributary-oracle","private":true}' > "$oracle_dir/package.json"
    (cd "$oracle_dir" && npm install --silent --no-audit --no-fund "$1@$2")
  fi
}
# DuckDB: an independent Parquet/JSON/SQL reader.
install_oracle_package @duckdb/node-api 1.5.6-r.1
# The AWS SDK for JavaScript: an S3 client independent of tributary's, for the S3 tests.
install_oracle_package @aws-sdk/client-s3 3.1175.0
# kafkajs: a Kafka client independent of librdkafka, producing to and reading (read_committed)
# from the test broker in the Kafka tests.
install_oracle_package kafkajs 2.2.4
# The S3 API server the tests start on loopback (moto) and the independent signer they check
# SigV4 against (botocore): the machine's Python has both (../shared/TESTING.md); Debian has no
# moto package, so a machine without them gets them from PyPI or fails here, not in a test.
if ! python3 -c 'import moto.server, botocore' 2>/dev/null; then
  echo "setup: installing moto[server] (S3 test server) with pip"
  python3 -m pip install --quiet 'moto[server]' boto3 ||
    { echo "setup: python3 cannot import moto.server and botocore, and pip could not install them" >&2; exit 1; }
fi
echo "setup: ok"
