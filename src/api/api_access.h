// What src/api and the CLI reach inside the public API objects: their constructors from
// internal state and their internal accessors, kept out of the public headers (as RocksDB's
// WriteBatchInternal). The public classes name ApiAccess their friend; nothing else may.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "tributary/column.h"
#include "tributary/dataframe.h"
#include "tributary/pipeline.h"
#include "tributary/row.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {

class ApiAccess {
 public:
  static Session MakeSession(std::shared_ptr<SessionState> state) {
    return Session(std::move(state));
  }
  static std::shared_ptr<Session> MakeSharedSession(std::shared_ptr<SessionState> state) {
    return std::make_shared<Session>(Session(std::move(state)));
  }
  static const std::shared_ptr<SessionState>& State(const Session& session) {
    return session.State();
  }

  static DataFrame MakeDataFrame(std::shared_ptr<const DataFrameState> state) {
    return DataFrame(std::move(state));
  }
  static const std::shared_ptr<const DataFrameState>& State(const DataFrame& frame) {
    return frame.State();
  }

  /// Row `row` of `batch`.
  static Row MakeRow(std::shared_ptr<const columnar::RecordBatch> batch, int64_t row) {
    return Row(std::move(batch), row);
  }

  /// A column wrapping the expression tree `expr`.
  static Column MakeColumn(std::shared_ptr<const expr::Expression> expr) {
    return Column(std::move(expr));
  }
  static const std::shared_ptr<const expr::Expression>& Expr(const Column& column) {
    return column.Expr();
  }
  static const std::string& AliasName(const Column& column) { return column.AliasName(); }
  static bool Ascending(const Column& column) { return column.Ascending(); }
  static bool NullsFirst(const Column& column) { return column.NullsFirst(); }
  /// `column` carrying `error`.
  static Column WithError(const Column& column, std::string error) {
    return column.WithError(std::move(error));
  }

  static GroupedData MakeGroupedData(DataFrame input, std::vector<Column> keys) {
    return GroupedData(std::move(input), std::move(keys));
  }
  static DataFrameWriter MakeDataFrameWriter(DataFrame frame) {
    return DataFrameWriter(std::move(frame));
  }
  static DataFrameReader MakeDataFrameReader(std::shared_ptr<SessionState> session) {
    return DataFrameReader(std::move(session));
  }
  static DataStreamReader MakeDataStreamReader(std::shared_ptr<SessionState> session) {
    return DataStreamReader(std::move(session));
  }
  static DataStreamWriter MakeDataStreamWriter(DataFrame frame) {
    return DataStreamWriter(std::move(frame));
  }
  static StreamingQuery MakeStreamingQuery(std::shared_ptr<StreamingQueryHandle> handle) {
    return StreamingQuery(std::move(handle));
  }
  static MemoryStream MakeMemoryStream(std::shared_ptr<SessionState> session,
                                       std::shared_ptr<MemoryStreamState> stream) {
    return MemoryStream(std::move(session), std::move(stream));
  }
};

}  // namespace tributary
