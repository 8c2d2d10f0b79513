#include "plan/logical_plan.h"

#include <fmt/format.h>

#include "expr/interval_text.h"

namespace tributary::plan {

namespace {

std::string JoinBound(const std::vector<BoundExprPtr>& expressions) {
  std::string out;
  for (size_t i = 0; i < expressions.size(); ++i) {
    out += (i > 0 ? ", " : "") + expressions[i]->ToString();
  }
  return out;
}

SchemaPtr MakeSchema(std::vector<columnar::Field> fields) {
  return std::make_shared<columnar::Schema>(std::move(fields));
}

void ExplainInto(const LogicalPlan& plan, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(plan.ToString());
  out->push_back('\n');
  for (const LogicalPlanPtr& input : plan.Inputs()) {
    ExplainInto(*input, depth + 1, out);
  }
}

}  // namespace

LogicalPlan::LogicalPlan(PlanKind kind, SchemaPtr schema, std::vector<std::string> qualifiers,
                         std::vector<LogicalPlanPtr> inputs)
    : kind_(kind),
      schema_(std::move(schema)),
      qualifiers_(std::move(qualifiers)),
      inputs_(std::move(inputs)) {
  qualifiers_.resize(static_cast<size_t>(schema_->NumFields()));
  for (const LogicalPlanPtr& input : inputs_) {
    streaming_ = streaming_ || input->IsStreaming();
  }
}

LogicalPlanPtr LogicalPlan::WithAlias(const std::string& alias) const {
  std::shared_ptr<LogicalPlan> copy = Clone();
  std::fill(copy->qualifiers_.begin(), copy->qualifiers_.end(), alias);
  return copy;
}

std::string ExplainLogical(const LogicalPlan& plan) {
  std::string out;
  ExplainInto(plan, 0, &out);
  return out;
}

const columnar::Field& ScanSource::FieldAt(int index) const {
  const int num_fields = schema->NumFields();
  return index < num_fields ? schema->FieldAt(index)
                            : hidden_columns[static_cast<size_t>(index - num_fields)];
}

// ---- Scan

namespace {

SchemaPtr ScanSchema(const ScanSource& source, const std::vector<int>& columns) {
  std::vector<columnar::Field> fields;
  fields.reserve(columns.size());
  for (int index : columns) {
    fields.push_back(source.FieldAt(index));
  }
  return MakeSchema(std::move(fields));
}

}  // namespace

ScanNode::ScanNode(ScanSource source, std::vector<int> columns, const std::string& qualifier,
                   ExprPtr pushed_filter, bool streaming)
    : LogicalPlan(PlanKind::kScan, ScanSchema(source, columns),
                  std::vector<std::string>(columns.size(), qualifier), {}),
      source_(std::move(source)),
      columns_(std::move(columns)),
      pushed_filter_(std::move(pushed_filter)) {
  streaming_ = streaming;
}

std::string ScanNode::ToString() const {
  std::string out = "Scan " + source_.description;
  if (columns_.size() != static_cast<size_t>(source_.schema->NumFields())) {
    out += " [";
    for (size_t i = 0; i < columns_.size(); ++i) {
      out += (i > 0 ? ", " : "") + source_.FieldAt(columns_[i]).Name();
    }
    out += "]";
  }
  if (pushed_filter_ != nullptr) {
    out += " pushed: " + pushed_filter_->ToString();
  }
  return out;
}

LogicalPlanPtr ScanNode::WithInputs(std::vector<LogicalPlanPtr> /*inputs*/) const {
  return Clone();
}

std::shared_ptr<LogicalPlan> ScanNode::Clone() const {
  return std::make_shared<ScanNode>(*this);
}

// ---- Filter

FilterNode::FilterNode(LogicalPlanPtr input, BoundExprPtr condition)
    : LogicalPlan(PlanKind::kFilter, input->Schema(), input->Qualifiers(), {input}),
      condition_(std::move(condition)) {}

std::string FilterNode::ToString() const {
  return "Filter " + condition_->ToString();
}

LogicalPlanPtr FilterNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<FilterNode>(std::move(inputs.at(0)), condition_);
}

std::shared_ptr<LogicalPlan> FilterNode::Clone() const {
  return std::make_shared<FilterNode>(*this);
}

// ---- Project

namespace {

SchemaPtr ProjectSchema(const std::vector<BoundExprPtr>& expressions,
                        const std::vector<std::string>& names, const columnar::Schema& input) {
  std::vector<columnar::Field> fields;
  for (size_t i = 0; i < expressions.size(); ++i) {
    const expr::BoundExpression& e = *expressions[i];
    // A passed-through column keeps its nullability and metadata; computed values may be null.
    if (e.GetOp() == expr::Op::kColumn) {
      fields.push_back(input.FieldAt(e.Index()).WithName(names[i]));
    } else {
      fields.emplace_back(names[i], e.Type(), true);
    }
  }
  return MakeSchema(std::move(fields));
}

}  // namespace

ProjectNode::ProjectNode(LogicalPlanPtr input, std::vector<BoundExprPtr> expressions,
                         const std::vector<std::string>& names, std::vector<std::string> qualifiers)
    : LogicalPlan(PlanKind::kProject, ProjectSchema(expressions, names, *input->Schema()),
                  std::move(qualifiers), {input}),
      expressions_(std::move(expressions)) {}

namespace {

SchemaPtr ExpandSchema(const std::vector<std::vector<BoundExprPtr>>& projections,
                       const std::vector<std::string>& names, const columnar::Schema& input) {
  SchemaPtr first = ProjectSchema(projections.front(), names, input);
  std::vector<columnar::Field> fields = first->Fields();
  for (size_t c = 0; c < fields.size(); ++c) {
    for (const std::vector<BoundExprPtr>& projection : projections) {
      const expr::BoundExpression& e = *projection[c];
      const bool nullable = e.GetOp() != expr::Op::kColumn || input.FieldAt(e.Index()).Nullable();
      if (nullable) {
        fields[c] = fields[c].WithNullable(true);
      }
    }
  }
  return MakeSchema(std::move(fields));
}

}  // namespace

ExpandNode::ExpandNode(LogicalPlanPtr input, std::vector<std::vector<BoundExprPtr>> projections,
                       const std::vector<std::string>& names, std::vector<std::string> qualifiers)
    : LogicalPlan(PlanKind::kExpand, ExpandSchema(projections, names, *input->Schema()),
                  std::move(qualifiers), {input}),
      projections_(std::move(projections)) {}

std::string ExpandNode::ToString() const {
  std::string out = "Expand";
  for (const std::vector<BoundExprPtr>& projection : projections_) {
    out += " [";
    for (size_t i = 0; i < projection.size(); ++i) {
      out += (i > 0 ? ", " : "") + projection[i]->ToString();
    }
    out += "]";
  }
  return out;
}

LogicalPlanPtr ExpandNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  std::vector<std::string> names;
  for (const columnar::Field& field : Schema()->Fields()) {
    names.push_back(field.Name());
  }
  return std::make_shared<ExpandNode>(std::move(inputs.at(0)), projections_, names, Qualifiers());
}

std::shared_ptr<LogicalPlan> ExpandNode::Clone() const {
  return std::make_shared<ExpandNode>(*this);
}

std::string ProjectNode::ToString() const {
  std::string out = "Project ";
  for (size_t i = 0; i < expressions_.size(); ++i) {
    out += (i > 0 ? ", " : "") + expressions_[i]->ToString() + " AS " +
           Schema()->FieldAt(static_cast<int>(i)).Name();
  }
  return out;
}

LogicalPlanPtr ProjectNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  std::vector<std::string> names;
  for (const columnar::Field& field : Schema()->Fields()) {
    names.push_back(field.Name());
  }
  return std::make_shared<ProjectNode>(std::move(inputs.at(0)), expressions_, std::move(names),
                                       Qualifiers());
}

std::shared_ptr<LogicalPlan> ProjectNode::Clone() const {
  return std::make_shared<ProjectNode>(*this);
}

// ---- Aggregate

AggregateNode::AggregateNode(LogicalPlanPtr input, std::vector<BoundExprPtr> keys,
                             std::vector<exec::AggregateCall> aggregates, SchemaPtr schema,
                             std::optional<StatefulExecution> execution)
    : LogicalPlan(PlanKind::kAggregate, std::move(schema), {}, {input}),
      keys_(std::move(keys)),
      aggregates_(std::move(aggregates)),
      execution_(std::move(execution)) {}

LogicalPlanPtr AggregateNode::WithExecution(StatefulExecution execution) const {
  return std::make_shared<AggregateNode>(Inputs()[0], keys_, aggregates_, Schema(),
                                         std::move(execution));
}

std::string AggregateNode::ToString() const {
  std::string out = "Aggregate keys=[" + JoinBound(keys_) + "] aggs=[";
  for (size_t i = 0; i < aggregates_.size(); ++i) {
    const exec::AggregateCall& call = aggregates_[i];
    out += (i > 0 ? ", " : "") + call.function + "(" + (call.distinct ? "DISTINCT " : "") +
           JoinBound(call.arguments) + ")";
  }
  out += "]";
  if (execution_) {
    out += fmt::format(" state={}", execution_->runtime->operator_id);
  }
  return out;
}

LogicalPlanPtr AggregateNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<AggregateNode>(std::move(inputs.at(0)), keys_, aggregates_, Schema(),
                                         execution_);
}

std::shared_ptr<LogicalPlan> AggregateNode::Clone() const {
  return std::make_shared<AggregateNode>(*this);
}

// ---- Deduplicate

DeduplicateNode::DeduplicateNode(LogicalPlanPtr input, std::vector<int> key_columns,
                                 bool within_watermark, std::optional<StatefulExecution> execution)
    : LogicalPlan(PlanKind::kDeduplicate, input->Schema(), input->Qualifiers(), {input}),
      key_columns_(std::move(key_columns)),
      within_watermark_(within_watermark),
      execution_(std::move(execution)) {}

LogicalPlanPtr DeduplicateNode::WithExecution(StatefulExecution execution) const {
  return std::make_shared<DeduplicateNode>(Inputs()[0], key_columns_, within_watermark_,
                                           std::move(execution));
}

std::string DeduplicateNode::ToString() const {
  std::string out = within_watermark_ ? "DeduplicateWithinWatermark [" : "Deduplicate [";
  for (size_t i = 0; i < key_columns_.size(); ++i) {
    out += (i > 0 ? ", " : "") + Schema()->FieldAt(key_columns_[i]).Name();
  }
  out += "]";
  if (execution_) {
    out += fmt::format(" state={}", execution_->runtime->operator_id);
  }
  return out;
}

LogicalPlanPtr DeduplicateNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<DeduplicateNode>(std::move(inputs.at(0)), key_columns_, within_watermark_,
                                           execution_);
}

std::shared_ptr<LogicalPlan> DeduplicateNode::Clone() const {
  return std::make_shared<DeduplicateNode>(*this);
}

// ---- Join

namespace {

SchemaPtr JoinSchema(const LogicalPlan& left, const LogicalPlan& right, exec::JoinType type) {
  std::vector<columnar::Field> fields;
  const bool left_nullable = type == exec::JoinType::kRight || type == exec::JoinType::kFull;
  const bool right_nullable = type == exec::JoinType::kLeft || type == exec::JoinType::kFull;
  for (const columnar::Field& field : left.Schema()->Fields()) {
    fields.push_back(left_nullable ? field.WithNullable(true) : field);
  }
  if (type != exec::JoinType::kLeftSemi && type != exec::JoinType::kLeftAnti) {
    for (const columnar::Field& field : right.Schema()->Fields()) {
      fields.push_back(right_nullable ? field.WithNullable(true) : field);
    }
  }
  return MakeSchema(std::move(fields));
}

std::vector<std::string> JoinQualifiers(const LogicalPlan& left, const LogicalPlan& right,
                                        exec::JoinType type) {
  std::vector<std::string> qualifiers = left.Qualifiers();
  if (type != exec::JoinType::kLeftSemi && type != exec::JoinType::kLeftAnti) {
    qualifiers.insert(qualifiers.end(), right.Qualifiers().begin(), right.Qualifiers().end());
  }
  return qualifiers;
}

}  // namespace

JoinNode::JoinNode(LogicalPlanPtr left, LogicalPlanPtr right, exec::JoinType type,
                   std::vector<BoundExprPtr> left_keys, std::vector<BoundExprPtr> right_keys,
                   BoundExprPtr residual, std::optional<StreamJoinExecution> execution)
    : LogicalPlan(PlanKind::kJoin, JoinSchema(*left, *right, type),
                  JoinQualifiers(*left, *right, type), {left, right}),
      type_(type),
      left_keys_(std::move(left_keys)),
      right_keys_(std::move(right_keys)),
      residual_(std::move(residual)),
      execution_(std::move(execution)) {}

LogicalPlanPtr JoinNode::WithExecution(StreamJoinExecution execution) const {
  return std::make_shared<JoinNode>(Inputs()[0], Inputs()[1], type_, left_keys_, right_keys_,
                                    residual_, std::move(execution));
}

std::string JoinNode::ToString() const {
  std::string out = fmt::format("Join {}", exec::JoinTypeName(type_));
  if (!left_keys_.empty()) {
    out += " keys=[" + JoinBound(left_keys_) + "] = [" + JoinBound(right_keys_) + "]";
  }
  if (residual_ != nullptr) {
    out += " residual=" + residual_->ToString();
  }
  if (execution_) {
    out += fmt::format(" state={}", execution_->runtime->operator_id);
  }
  return out;
}

LogicalPlanPtr JoinNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<JoinNode>(std::move(inputs.at(0)), std::move(inputs.at(1)), type_,
                                    left_keys_, right_keys_, residual_, execution_);
}

std::shared_ptr<LogicalPlan> JoinNode::Clone() const {
  return std::make_shared<JoinNode>(*this);
}

// ---- Sort

SortNode::SortNode(LogicalPlanPtr input, std::vector<exec::SortKey> keys,
                   std::optional<int64_t> limit)
    : LogicalPlan(PlanKind::kSort, input->Schema(), input->Qualifiers(), {input}),
      keys_(std::move(keys)),
      limit_(limit) {}

std::string SortNode::ToString() const {
  std::string out = limit_ ? fmt::format("TopN {} ", *limit_) : "Sort ";
  for (size_t i = 0; i < keys_.size(); ++i) {
    out += (i > 0 ? ", " : "") + keys_[i].expression->ToString() +
           (keys_[i].ascending ? " ASC" : " DESC") +
           (keys_[i].nulls_first ? " NULLS FIRST" : " NULLS LAST");
  }
  return out;
}

LogicalPlanPtr SortNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<SortNode>(std::move(inputs.at(0)), keys_, limit_);
}

std::shared_ptr<LogicalPlan> SortNode::Clone() const {
  return std::make_shared<SortNode>(*this);
}

// ---- Limit

LimitNode::LimitNode(LogicalPlanPtr input, int64_t limit, int64_t offset)
    : LogicalPlan(PlanKind::kLimit, input->Schema(), input->Qualifiers(), {input}),
      limit_(limit),
      offset_(offset) {}

std::string LimitNode::ToString() const {
  return offset_ > 0 ? fmt::format("Limit {} offset {}", limit_, offset_)
                     : fmt::format("Limit {}", limit_);
}

LogicalPlanPtr LimitNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<LimitNode>(std::move(inputs.at(0)), limit_, offset_);
}

std::shared_ptr<LogicalPlan> LimitNode::Clone() const {
  return std::make_shared<LimitNode>(*this);
}

// ---- Union

namespace {

SchemaPtr UnionSchema(const std::vector<LogicalPlanPtr>& inputs) {
  std::vector<columnar::Field> fields = inputs.front()->Schema()->Fields();
  for (size_t i = 0; i < fields.size(); ++i) {
    bool nullable = false;
    for (const LogicalPlanPtr& input : inputs) {
      nullable = nullable || input->Schema()->FieldAt(static_cast<int>(i)).Nullable();
    }
    fields[i] = fields[i].WithNullable(nullable);
  }
  return MakeSchema(std::move(fields));
}

}  // namespace

UnionNode::UnionNode(const std::vector<LogicalPlanPtr>& inputs)
    : LogicalPlan(PlanKind::kUnion, UnionSchema(inputs), {}, inputs) {}

LogicalPlanPtr UnionNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<UnionNode>(std::move(inputs));
}

std::shared_ptr<LogicalPlan> UnionNode::Clone() const {
  return std::make_shared<UnionNode>(*this);
}

// ---- Generate

namespace {

SchemaPtr GenerateSchema(const LogicalPlan& input, const std::vector<columnar::Field>& generated) {
  std::vector<columnar::Field> fields = input.Schema()->Fields();
  fields.insert(fields.end(), generated.begin(), generated.end());
  return MakeSchema(std::move(fields));
}

}  // namespace

GenerateNode::GenerateNode(LogicalPlanPtr input, exec::GenerateSpec spec,
                           std::vector<columnar::Field> generated)
    : LogicalPlan(PlanKind::kGenerate, GenerateSchema(*input, generated), input->Qualifiers(),
                  {input}),
      spec_(std::move(spec)),
      generated_(std::move(generated)) {}

std::string GenerateNode::ToString() const {
  return std::string("Generate ") + (spec_.with_position ? "posexplode" : "explode") +
         (spec_.outer ? "_outer(" : "(") + spec_.collection->ToString() + ")";
}

LogicalPlanPtr GenerateNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<GenerateNode>(std::move(inputs.at(0)), spec_, generated_);
}

LogicalPlanPtr GenerateNode::With(LogicalPlanPtr input, BoundExprPtr collection) const {
  exec::GenerateSpec spec = spec_;
  spec.collection = std::move(collection);
  return std::make_shared<GenerateNode>(std::move(input), std::move(spec), generated_);
}

std::shared_ptr<LogicalPlan> GenerateNode::Clone() const {
  return std::make_shared<GenerateNode>(*this);
}

// ---- Window

WindowNode::WindowNode(LogicalPlanPtr input, std::vector<exec::WindowFunction> functions,
                       std::vector<columnar::Field> outputs)
    : LogicalPlan(PlanKind::kWindow, GenerateSchema(*input, outputs), input->Qualifiers(), {input}),
      functions_(std::move(functions)),
      outputs_(std::move(outputs)) {}

std::string WindowNode::ToString() const {
  std::string out = "Window ";
  for (size_t i = 0; i < outputs_.size(); ++i) {
    out += (i > 0 ? ", " : "") + outputs_[i].Name();
  }
  return out;
}

LogicalPlanPtr WindowNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  return std::make_shared<WindowNode>(std::move(inputs.at(0)), functions_, outputs_);
}

LogicalPlanPtr WindowNode::With(LogicalPlanPtr input,
                                std::vector<exec::WindowFunction> functions) const {
  return std::make_shared<WindowNode>(std::move(input), std::move(functions), outputs_);
}

std::shared_ptr<LogicalPlan> WindowNode::Clone() const {
  return std::make_shared<WindowNode>(*this);
}

// ---- Watermark

WatermarkNode::WatermarkNode(LogicalPlanPtr input, int event_time, int64_t delay_micros)
    : LogicalPlan(PlanKind::kWatermark, input->Schema(), input->Qualifiers(), {input}),
      event_time_(event_time),
      delay_micros_(delay_micros) {}

const std::string& WatermarkNode::EventTimeColumn() const {
  return Schema()->FieldAt(event_time_).Name();
}

std::string WatermarkNode::ToString() const {
  return fmt::format("EventTimeWatermark {}, {}", EventTimeColumn(),
                     expr::IntervalText(delay_micros_));
}

LogicalPlanPtr WatermarkNode::WithInputs(std::vector<LogicalPlanPtr> inputs) const {
  auto node = std::make_shared<WatermarkNode>(std::move(inputs.at(0)), event_time_, delay_micros_);
  node->stats_ = stats_;
  return node;
}

LogicalPlanPtr WatermarkNode::With(LogicalPlanPtr input, int event_time) const {
  auto node = std::make_shared<WatermarkNode>(std::move(input), event_time, delay_micros_);
  node->stats_ = stats_;
  return node;
}

LogicalPlanPtr WatermarkNode::WithStats(std::shared_ptr<exec::EventTimeStats> stats) const {
  auto node = std::make_shared<WatermarkNode>(*this);
  node->stats_ = std::move(stats);
  return node;
}

std::shared_ptr<LogicalPlan> WatermarkNode::Clone() const {
  return std::make_shared<WatermarkNode>(*this);
}

}  // namespace tributary::plan
