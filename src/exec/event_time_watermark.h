// Spark's EventTimeWatermarkExec: a streaming query's withWatermark point. Rows pass through
// unchanged; the operator gathers the batch's event-time statistics (min, max, sum, count) so
// that the streaming layer can move the watermark after the batch (max seen - delay) and
// report progress `eventTime`. Batch queries never plan it (withWatermark is a no-op there).

#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "exec/operator.h"
#include "exec/physical_plan.h"

namespace tributary::exec {

/// The event times one watermark point saw in one batch, in microseconds since the epoch.
/// Filled by the operator (any number of them at once: partitions may run in parallel), read
/// and reset by the streaming layer between batches.
class EventTimeStats {
 public:
  struct Snapshot {
    int64_t min = 0;
    int64_t max = 0;
    /// Sum of the event times over `count` rows, as double (Spark keeps an average).
    double sum = 0;
    int64_t count = 0;
  };
  /// Folds a batch's own min/max/sum/count in.
  void Add(const Snapshot& batch);
  Snapshot Get() const;
  void Reset();

 private:
  mutable std::mutex mutex_;
  Snapshot stats_;
};

/// Its input, unchanged, gathering the event times of input column `event_time` (a timestamp,
/// or a window struct whose `end` is one) into `stats`. Null event times are skipped.
class EventTimeWatermarkNode final : public PhysicalNode {
 public:
  EventTimeWatermarkNode(PhysicalNodePtr input, int event_time, int64_t delay_micros,
                         std::shared_ptr<EventTimeStats> stats)
      : PhysicalNode(PhysicalNodeKind::kEventTimeWatermark, {std::move(input)}),
        event_time_(event_time),
        delay_micros_(delay_micros),
        stats_(std::move(stats)) {}
  int EventTime() const { return event_time_; }
  int64_t DelayMicros() const { return delay_micros_; }
  const std::shared_ptr<EventTimeStats>& Stats() const { return stats_; }
  /// "EventTimeWatermark(#2, delay=600000000us)".
  std::string ToString() const override;

 private:
  int event_time_;
  int64_t delay_micros_;
  std::shared_ptr<EventTimeStats> stats_;
};

class EventTimeWatermarkOperator final : public Operator {
 public:
  EventTimeWatermarkOperator(std::shared_ptr<const EventTimeWatermarkNode> node, OperatorPtr input)
      : node_(std::move(node)), input_(std::move(input)) {}
  const SchemaPtr& OutputSchema() const override { return input_->OutputSchema(); }
  Result<RecordBatchPtr> Next() override;
  std::string ToString() const override { return node_->ToString(); }
  std::vector<const Operator*> Children() const override { return {input_.get()}; }

 private:
  std::shared_ptr<const EventTimeWatermarkNode> node_;
  OperatorPtr input_;
};

}  // namespace tributary::exec
