#include "streaming/console_sink.h"

#include <utility>
#include <vector>

#include "columnar/show_string.h"
#include "plan/plan_builder.h"

namespace tributary::streaming {

ConsoleSink::ConsoleSink(std::ostream& out, int64_t num_rows, bool truncate)
    : out_(out), num_rows_(num_rows), truncate_(truncate) {}

Result<int64_t> ConsoleSink::AddBatch(const MicroBatch& batch) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto rows, batch.Collect());
  int64_t count = 0;
  for (const auto& b : rows) {
    count += b->NumRows();
  }
  out_ << "-------------------------------------------\n"
       << "Batch: " << batch.batch_id << "\n"
       << "-------------------------------------------\n";
  // show() over the collected rows: one more row than shown tells whether to print "only
  // showing top n rows".
  plan::ScanSource source;
  source.kind = plan::ScanSource::Kind::kValues;
  source.schema = batch.plan->Schema();
  source.batches = std::move(rows);
  MicroBatch shown = batch;
  TRIBUTARY_ASSIGN_OR_RAISE(shown.plan,
                            plan::Limit(plan::Scan(std::move(source), ""), num_rows_ + 1));
  TRIBUTARY_ASSIGN_OR_RAISE(auto shown_rows, shown.Collect());
  std::vector<std::string> names;
  for (const columnar::Field& field : batch.plan->Schema()->Fields()) {
    names.push_back(field.Name());
  }
  std::string text;
  columnar::AppendShowString(names, shown_rows, num_rows_, truncate_, &text);
  // Spark's ConsoleSink prints show()'s text with println: a blank line after each batch.
  out_ << text << "\n" << std::flush;
  return count;
}

std::string ConsoleSink::Description() const {
  return "ConsoleSink";
}

}  // namespace tributary::streaming
