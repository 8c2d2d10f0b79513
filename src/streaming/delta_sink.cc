#include "streaming/delta_sink.h"

#include <fmt/format.h>

#include "common/ascii.h"
#include "exec/read_ahead.h"
#include "formats/reader_options.h"
#include "streaming/schema_change.h"

namespace tributary::streaming {

namespace {

std::vector<std::string> SplitColumnList(const std::string& text) {
  std::vector<std::string> names;
  size_t begin = 0;
  while (begin <= text.size()) {
    size_t end = text.find(',', begin);
    if (end == std::string::npos) {
      end = text.size();
    }
    std::string name = text.substr(begin, end - begin);
    const size_t first = name.find_first_not_of(' ');
    const size_t last = name.find_last_not_of(' ');
    if (first != std::string::npos) {
      names.push_back(name.substr(first, last - first + 1));
    }
    begin = end + 1;
  }
  return names;
}

}  // namespace

Result<DeltaSinkOptions> DeltaSinkOptions::FromMap(
    const std::map<std::string, std::string>& options) {
  DeltaSinkOptions out;
  for (const auto& [key, value] : options) {
    const std::string lowered = AsciiLower(key);
    if (lowered == "mergeschema") {
      TRIBUTARY_ASSIGN_OR_RAISE(out.merge_schema, formats::BooleanOption(key, value));
    } else if (lowered == "partitionby") {
      out.partition_by = SplitColumnList(value);
    } else if (lowered.starts_with("delta.")) {
      out.properties[key] = value;
    }
  }
  return out;
}

DeltaSink::DeltaSink(std::string table_root, DeltaSinkOptions options)
    : table_root_(std::move(table_root)), options_(std::move(options)) {}

Result<std::unique_ptr<DeltaSink>> DeltaSink::Make(
    std::string table_root, const std::map<std::string, std::string>& options,
    std::vector<std::string> partition_by) {
  auto parsed = DeltaSinkOptions::FromMap(options);
  if (!parsed.ok()) {
    return parsed.status().WithContext(fmt::format("DeltaSink[{}]", table_root));
  }
  if (!partition_by.empty()) {
    parsed->partition_by = std::move(partition_by);
  }
  return std::unique_ptr<DeltaSink>(new DeltaSink(std::move(table_root), std::move(*parsed)));
}

std::string DeltaSink::Description() const {
  return fmt::format("DeltaSink[{}]", table_root_);
}

Result<int64_t> DeltaSink::AddBatch(const MicroBatch& batch) {
  if (batch.context == nullptr || batch.context->fs == nullptr) {
    return Status::InvalidArgument(
        fmt::format("{}: batch {} comes without a file system", Description(), batch.batch_id));
  }
  delta::TableWriteOptions write;
  // Complete output mode: the batch's rows are the whole result, replacing the table's rows in
  // the same commit as the batch's txn (Spark's DeltaSink truncates and adds at once).
  const bool complete = batch.output_mode == exec::OutputMode::kComplete;
  write.mode = complete ? delta::SaveMode::kOverwrite : delta::SaveMode::kAppend;
  write.partition_by = options_.partition_by;
  write.properties = options_.properties;
  write.merge_schema = options_.merge_schema;
  // The batch's columns are encoded and compressed on its threads.
  write.data.parquet.threads = batch.context->threads;
  write.txn = std::make_pair(batch.query_id, batch.batch_id);
  // DeltaOperations.StreamingUpdate, as Spark's DeltaSink records it.
  write.operation = "STREAMING UPDATE";
  write.operation_parameters = {{"outputMode", complete ? "Complete" : "Append"},
                                {"queryId", batch.query_id},
                                {"epochId", std::to_string(batch.batch_id)}};
  for (int attempt = 0;; ++attempt) {
    // The table's snapshot is kept between batches and brought up to date by reading only the
    // commits since (this sink's last one, and any other writer's), not replayed per batch.
    if (snapshot_ == nullptr) {
      auto loaded = delta::Snapshot::Load(*batch.context->fs, table_root_);
      if (!loaded.ok() && !loaded.status().IsNotFound()) {
        return loaded.status();
      }
      snapshot_ = loaded.ok() ? *loaded : nullptr;
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(snapshot_, delta::Snapshot::Update(*batch.context->fs, snapshot_));
    }
    write.read_snapshot = snapshot_;
    // The rows go to the Parquet writers batch by batch as the plan yields them, so a
    // micro-batch is never held whole (nor its buffers faulted in afresh).
    TRIBUTARY_ASSIGN_OR_RAISE(exec::OperatorPtr root, batch.Execute());
    root = exec::AheadOfWriter(std::move(root), *batch.context);
    int64_t num_rows = 0;
    auto next = [&]() -> Result<columnar::RecordBatchPtr> {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr rows, root->Next());
      if (rows != nullptr) {
        num_rows += rows->NumRows();
      }
      return rows;
    };
    auto written =
        delta::WriteTableFrom(*batch.context->fs, table_root_, batch.plan->Schema(), next, write);
    if (written.ok()) {
      if (!written->committed) {
        // A batch the table already holds is still run, as before, so that its source
        // metrics count its rows.
        TRIBUTARY_RETURN_NOT_OK(exec::Drain(*root).status());
        return 0;
      }
      return num_rows;
    }
    // A commit the transaction layer could not put on top of a concurrent one (the table was
    // created or its schema changed meanwhile) is written again from a fresh snapshot: the txn
    // check then also sees whether this batch made it after all.
    // The engine names this sink (StreamExecution::RunBatch), so the context does not repeat
    // it; a schema change found while reading the batch passes through as it is, to be
    // reported in one line.
    if (!written.status().IsConflict() || attempt >= options_.conflict_retries) {
      if (IsSchemaChange(written.status())) {
        return written.status();
      }
      return written.status().WithContext(
          fmt::format("writing batch {} of query {}", batch.batch_id, batch.query_id));
    }
  }
}

}  // namespace tributary::streaming
