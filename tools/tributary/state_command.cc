#include "state_command.h"

#include <fmt/format.h>

#include "state/state_inspection.h"
#include "storage/uri_file_system.h"

namespace tributary::tools {

namespace {

Status ListState(storage::FileSystem& fs, const std::string& checkpoint, std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(const auto summary, state::SummarizeCheckpointState(&fs, checkpoint));
  if (summary.last_committed_batch.has_value()) {
    out << fmt::format("last committed batch: {} (state version {})\n",
                       *summary.last_committed_batch, summary.committed_version);
  } else {
    out << "last committed batch: none (state version 0)\n";
  }
  if (summary.operators.empty()) {
    out << "no stateful operators\n";
  }
  for (const state::StateOperatorSummary& op : summary.operators) {
    out << fmt::format("operator {} {}: {} partitions\n", op.operator_id,
                       op.operator_name.empty() ? "(no metadata)" : op.operator_name,
                       op.num_partitions);
    for (const state::StatePartitionSummary& partition : op.partitions) {
      out << fmt::format(
          "  partition {}: {} rows, {} state files, {} bytes\n", partition.partition_id,
          partition.num_rows.has_value() ? std::to_string(*partition.num_rows) : std::string("?"),
          partition.num_files, partition.file_bytes);
    }
  }
  return Status::OK();
}

}  // namespace

Status StateCommand(const StateCommandOptions& options, std::ostream& out) {
  storage::UriFileSystem fs;
  if (!options.operator_id.has_value()) {
    if (options.batch.has_value()) {
      return Status::InvalidArgument("--batch needs --operator");
    }
    return ListState(fs, options.checkpoint, out);
  }
  std::optional<int64_t> batch = options.batch;
  if (!batch.has_value()) {
    TRIBUTARY_ASSIGN_OR_RAISE(batch, state::LastCommittedBatch(&fs, options.checkpoint));
    if (!batch.has_value()) {
      return Status::NotFound(
          fmt::format("{} has no committed batch: give --batch", options.checkpoint));
    }
  }
  return state::ReadStateRows(&fs, options.checkpoint, *options.operator_id, *batch + 1,
                              [&out](std::string_view line) {
                                out << line << '\n';
                                return Status::OK();
                              });
}

}  // namespace tributary::tools
