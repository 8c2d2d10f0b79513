// The batch (bounded) read of Kafka as a plan: what `Read().Format("kafka").Load()` and SQL's
// `read_kafka(...)` without STREAM build. The records between startingOffsets (default
// earliest) and endingOffsets (default latest) are read when the plan is made
// (ReadKafkaBatch), so the plan holds them as values, as table_changes holds a change feed.

#pragma once

#include <map>
#include <string>

#include "plan/logical_plan.h"
#include "tributary/result.h"

namespace tributary::streaming {

/// A scan of the Kafka records the options select, in KafkaSchema rows (with `headers` when
/// includeHeaders is true), qualified by `qualifier`. Errors: KafkaSourceOptions::FromMap's
/// for bad options, and ReadKafkaBatch's.
Result<plan::LogicalPlanPtr> KafkaBatchScan(const std::map<std::string, std::string>& options,
                                            const std::string& qualifier);

}  // namespace tributary::streaming
