// The arguments of the message-bus table functions, read_kafka(...) and read_kinesis(...), as
// Databricks SQL spells them: named only (`name => value`, a dotted name in backquotes), values
// constant, names mapped to the sources' option names (Spark's for Kafka). The sources check
// the names (an unknown one is refused with the closest known one).

#include <map>
#include <string>

#include <fmt/format.h>

#include "common/ascii.h"
#include "sql/binder_internal.h"

namespace tributary::sql::internal {

namespace {

std::string SqlLiteralText(const expr::Scalar& value) {
  return value.Type()->Id() == columnar::TypeId::kString ? value.BytesValue() : value.ToString();
}

}  // namespace

Result<std::map<std::string, std::string>> MessageBusOptions(const Statement& statement,
                                                             const Relation& relation) {
  const bool kafka = relation.function_name == "read_kafka";
  std::map<std::string, std::string> options;
  std::map<std::string, std::string> seen;  // lowercased option -> as written
  for (const TableFunctionArgument& argument : relation.arguments) {
    const expr::Expression& value = *argument.value;
    if (argument.name.empty()) {
      return StatusAt(statement,
                      Status::InvalidArgument(fmt::format(
                          "{} takes only named arguments: {}(name => value, ...), e.g. {}",
                          relation.function_name, relation.function_name,
                          kafka ? "bootstrapServers => 'host:9092', subscribe => 'events'"
                                : "streamName => 'events', region => 'us-east-1'")),
                      value);
    }
    const std::string lowered = AsciiLower(argument.name);
    if (value.GetOp() != expr::Op::kLiteral || value.Literal().IsNull()) {
      return StatusAt(
          statement,
          Status::InvalidArgument(fmt::format("{} argument '{}' must be a constant (a literal)",
                                              relation.function_name, argument.name)),
          value);
    }
    std::string option = argument.name;
    if (kafka && lowered == "bootstrapservers") {
      option = "kafka.bootstrap.servers";
    }
    const std::string key = AsciiLower(option);
    if (auto it = seen.find(key); it != seen.end()) {
      return StatusAt(
          statement,
          Status::InvalidArgument(fmt::format("{}: '{}' is given twice (also as '{}')",
                                              relation.function_name, argument.name, it->second)),
          value);
    }
    seen.emplace(key, argument.name);
    options[option] = SqlLiteralText(value.Literal());
  }
  if (kafka && seen.find("kafka.bootstrap.servers") == seen.end()) {
    return StatusAt(
        statement,
        Status::InvalidArgument("read_kafka needs bootstrapServers => 'host:port[,host:port...]'"),
        relation.position);
  }
  return options;
}

}  // namespace tributary::sql::internal
