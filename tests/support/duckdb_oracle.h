// The DuckDB test oracle from C++: runs tests/support/duckdb_oracle.mjs under node
// (TESTING.md, "DuckDB: the independent oracle").
//
// Rows come back as canonical JSON lines (../shared/testdata/MANIFEST.md, "Canonical expected
// rows"), byte for byte what columnar::CanonicalJsonRows prints for the same values, in the
// order DuckDB returns them (file order for Parquet files; not sorted). scripts/setup.sh
// installs the oracle; when node or the oracle is missing every call fails with IOError, so
// tests that use it fail rather than skip.
//
// Thread-safety: every call starts its own node process and shares nothing.

#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::testing {

/// The test data folder (../shared/testdata unless CMake's TRIBUTARY_TESTDATA_DIR says else).
std::string TestdataDir();

/// Runs the oracle script with `args` (no shell: any bytes are passed as they are) and returns
/// its stdout. IOError, carrying the script's stderr, when node cannot start or the script
/// exits non-zero.
Result<std::string> RunOracle(const std::vector<std::string>& args);

/// RunOracle for another node script of tests/support (`script`, an absolute path) that takes
/// the oracle's node_modules folder as `--modules`; `name` names it in errors.
Result<std::string> RunNodeOracle(const std::string& script, const std::string& name,
                                  const std::vector<std::string>& args);

/// The rows of the Parquet file `file` (hive partitioning off), in file order, as canonical
/// JSON lines without newlines. `columns` selects and orders columns by name (names must not
/// contain commas). Default: all columns in schema order.
Result<std::vector<std::string>> OracleCatParquet(const std::string& file,
                                                  const std::vector<std::string>& columns = {});

/// What the oracle made of one file in OracleCatParquetMany.
struct OracleFileRows {
  /// The path as given.
  std::string file;
  /// OK, or IOError with DuckDB's message when it could not read the file.
  Status status;
  /// The rows as OracleCatParquet returns them; empty when `status` is not OK.
  std::vector<std::string> rows;
};

/// OracleCatParquet of each of `files` in one node process: one entry per file, in order. A
/// file DuckDB cannot read fails only its own entry; the whole call fails only when the oracle
/// itself does.
Result<std::vector<OracleFileRows>> OracleCatParquetMany(const std::vector<std::string>& files);

/// Writes the result of DuckDB query `sql` to the Parquet file `out` with COPY. `codec` is
/// snappy, zstd, gzip, brotli or uncompressed. `row_group_size` is rows per row group; 0 keeps
/// DuckDB's default (122880).
Status OracleWriteParquet(const std::string& out, const std::string& sql,
                          const std::string& codec = "snappy", int64_t row_group_size = 0);

/// Runs DuckDB query `sql` (session time zone UTC) and returns its rows as canonical JSON
/// lines, in the order DuckDB returns them.
Result<std::vector<std::string>> OracleQuery(const std::string& sql);

/// OracleQuery of each of `queries` in one node process, in order: per query its rows, or
/// IOError with DuckDB's message when that query failed. The call itself fails only when the
/// oracle does.
Result<std::vector<Result<std::vector<std::string>>>> OracleQueryMany(
    const std::vector<std::string>& queries);

}  // namespace tributary::testing
