// What src/api reaches inside the public API objects: their constructors from internal state,
// their internal accessors, and the Impl behind a Column and a Row, kept out of the public
// headers (as RocksDB's WriteBatchInternal). The public classes name ApiAccess their friend;
// nothing else may.

#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "columnar/record_batch.h"
#include "expr/expression.h"
#include "tributary/column.h"
#include "tributary/dataframe.h"
#include "tributary/pipeline.h"
#include "tributary/row.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {

/// Never changed once a Column holds it: a changed column gets a changed copy.
struct Column::Impl {
  expr::ExprPtr expr;
  /// Why the column cannot be built, or "".
  std::string error;
  /// Output name in Select/Agg, or "".
  std::string alias;
  bool ascending = true;
  bool nulls_first = true;
};

/// One per result batch, shared by its rows.
struct Row::Impl {
  columnar::RecordBatchPtr batch;
};

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
  static Row MakeRow(columnar::RecordBatchPtr batch, int64_t row) {
    return Row(std::make_shared<const Row::Impl>(Row::Impl{std::move(batch)}), row);
  }
  /// Appends the rows of `batch` to `rows`; they share one Row::Impl.
  static void AppendRows(columnar::RecordBatchPtr batch, std::vector<Row>* rows) {
    const int64_t num_rows = batch->NumRows();
    auto shared = std::make_shared<const Row::Impl>(Row::Impl{std::move(batch)});
    for (int64_t r = 0; r < num_rows; ++r) {
      rows->push_back(Row(shared, r));
    }
  }

  /// A column wrapping the expression tree `expr`.
  static Column MakeColumn(expr::ExprPtr expr) {
    auto impl = std::make_shared<Column::Impl>();
    impl->expr = std::move(expr);
    return Column(std::move(impl));
  }
  static const expr::ExprPtr& Expr(const Column& column) { return column.impl_->expr; }
  static const std::string& AliasName(const Column& column) { return column.impl_->alias; }
  static bool Ascending(const Column& column) { return column.impl_->ascending; }
  static bool NullsFirst(const Column& column) { return column.impl_->nulls_first; }
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
