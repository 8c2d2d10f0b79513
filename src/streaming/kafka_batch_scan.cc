#include "streaming/kafka_batch_scan.h"

#include <fmt/format.h>

#include "plan/plan_builder.h"
#include "streaming/kafka_source.h"

namespace tributary::streaming {

Result<plan::LogicalPlanPtr> KafkaBatchScan(const std::map<std::string, std::string>& options,
                                            const std::string& qualifier) {
  TRIBUTARY_ASSIGN_OR_RAISE(KafkaSourceOptions parsed,
                            KafkaSourceOptions::FromMap(options, /*streaming=*/false));
  plan::ScanSource source;
  source.kind = plan::ScanSource::Kind::kValues;
  source.schema = KafkaSchema(parsed.include_headers);
  TRIBUTARY_ASSIGN_OR_RAISE(source.batches, ReadKafkaBatch(options));
  std::string subscription;
  if (!parsed.subscribe.empty()) {
    subscription = fmt::format("subscribe {}", fmt::join(parsed.subscribe, ","));
  } else if (parsed.subscribe_pattern) {
    subscription = fmt::format("subscribePattern {}", *parsed.subscribe_pattern);
  } else {
    subscription = "assign";
  }
  source.description = fmt::format("kafka {}", subscription);
  return plan::Scan(std::move(source), qualifier);
}

}  // namespace tributary::streaming
