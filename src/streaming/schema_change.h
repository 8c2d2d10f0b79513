// A streaming query's stop for a schema change: a source's schema grew (new columns), what a
// restart needs was recorded first, and a restart of the same query continues with the new
// schema. It is a streaming outcome, not a kind of failure of its own: the status that carries
// it out of the source, the scan or the sink is InvalidArgument (Spark fails the query with
// UNKNOWN_FIELD_EXCEPTION or DELTA_SCHEMA_CHANGED, which the user answers by restarting it)
// with a SchemaChange detail, which the engine and StreamingQuery::StoppedBySchemaChange test.

#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "tributary/status.h"

namespace tributary::streaming {

/// The detail of a schema-change stop. Printed as "SchemaChanged: <message>".
class SchemaChange final : public StatusDetail {
 public:
  std::string_view Name() const override { return "SchemaChanged"; }
};

/// The status that stops a query for a schema change; `message` names what changed.
inline Status SchemaChangedStatus(std::string message) {
  static const std::shared_ptr<const SchemaChange> kDetail = std::make_shared<SchemaChange>();
  return Status::InvalidArgument(std::move(message)).WithDetail(kDetail);
}

/// Whether `status` is a schema-change stop (SchemaChangedStatus, with any context added).
inline bool IsSchemaChange(const Status& status) {
  return dynamic_cast<const SchemaChange*>(status.Detail()) != nullptr;
}

}  // namespace tributary::streaming
