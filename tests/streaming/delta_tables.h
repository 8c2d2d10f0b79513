// Small Delta tables for the Delta source and sink tests: appends from JSON rows, the rows of
// a scan as sorted canonical JSON lines, and Delta sources opened over a test checkpoint.

#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "columnar/canonical_json.h"
#include "delta/snapshot.h"
#include "delta/table_writes.h"
#include "exec/operator.h"
#include "plan/plan_builder.h"
#include "storage/local_file_system.h"
#include "streaming/delta_source.h"
#include "streaming/sink.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::testing {

/// Appends `rows_json` (a JSON array of rows in `schema`) to the table at `root`, creating it
/// partitioned by `partition_by`; `merge_schema` adds new columns. The version written.
inline Result<int64_t> AppendRows(storage::FileSystem& fs, const std::string& root,
                                  const columnar::SchemaPtr& schema, const std::string& rows_json,
                                  std::vector<std::string> partition_by = {},
                                  bool merge_schema = false) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto batch, BatchFromJson(schema, rows_json));
  delta::TableWriteOptions options;
  options.mode = delta::SaveMode::kAppend;
  options.partition_by = std::move(partition_by);
  options.merge_schema = merge_schema;
  TRIBUTARY_ASSIGN_OR_RAISE(auto written, delta::WriteTable(fs, root, schema, {batch}, options));
  return written.version;
}

/// Every row of `plan`, as sorted canonical JSON lines.
inline Result<std::vector<std::string>> SortedRows(storage::FileSystem& fs,
                                                   plan::LogicalPlanPtr plan) {
  exec::ExecContext context;
  context.fs = &fs;
  streaming::MicroBatch batch;
  batch.plan = std::move(plan);
  batch.context = &context;
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, batch.Collect());
  std::vector<std::string> rows;
  for (const auto& b : batches) {
    for (std::string& row : columnar::CanonicalJsonRows(*b)) {
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  return rows;
}

/// The rows of a scan source, as sorted canonical JSON lines.
inline Result<std::vector<std::string>> SortedRows(storage::FileSystem& fs,
                                                   plan::ScanSource source) {
  return SortedRows(fs, plan::Scan(std::move(source), ""));
}

/// Every row of the latest version of the Delta table at `root`, as sorted canonical JSON lines.
inline Result<std::vector<std::string>> DeltaTableRows(storage::FileSystem& fs,
                                                       const std::string& root) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, delta::Snapshot::Load(fs, root));
  plan::ScanSource source;
  source.kind = plan::ScanSource::Kind::kDelta;
  source.schema = snapshot->Schema();
  source.snapshot = std::move(snapshot);
  return SortedRows(fs, std::move(source));
}

/// A Delta stream source over the table at `root` with `options`, its checkpoint folder
/// `checkpoint` (source 0's metadata below it); `definition` receives its definition. A failure
/// fails the test and gives null.
inline std::unique_ptr<streaming::Source> OpenDeltaSource(
    storage::FileSystem& fs, const std::string& root,
    const std::map<std::string, std::string>& options, const std::string& checkpoint,
    std::shared_ptr<const streaming::DeltaSourceDefinition>* definition) {
  auto made = streaming::DeltaSourceDefinition::Make(fs, root, options);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  if (!made.ok()) {
    return nullptr;
  }
  *definition = *made;
  streaming::SourceContext context;
  context.fs = &fs;
  context.checkpoint_location = checkpoint;
  context.metadata_dir = checkpoint + "/sources/0";
  auto source = (*definition)->Open(context);
  EXPECT_TRUE(source.ok()) << source.status().ToString();
  return source.ok() ? std::move(*source) : nullptr;
}

}  // namespace tributary::testing
