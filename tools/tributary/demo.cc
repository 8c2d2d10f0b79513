#include "demo.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "columnar/canonical_json.h"
#include "columnar/column_builder.h"
#include "columnar/take.h"
#include "delta/snapshot.h"
#include "delta/table_reader.h"
#include "delta/table_writes.h"
#include "expr/evaluator.h"
#include "storage/local_file_system.h"
#include "storage/path.h"
#include "tributary/session.h"

namespace tributary::tools {
namespace {

using columnar::ColumnBuilder;
using columnar::DataType;
using columnar::Field;
using expr::Col;
using expr::Lit;
using expr::Op;
using expr::Scalar;

// Raw order events as they arrive from upstream: every field is text, one has a bad amount.
struct RawOrder {
  const char* order_id;
  const char* customer;
  const char* amount;
  const char* status;
  const char* placed_at;
};
constexpr RawOrder kRawOrders[] = {
    {"1001", "ada", "120.50", "shipped", "2024-05-01 09:15:00"},
    {"1002", "grace", "35.00", "pending", "2024-05-01T10:02:33Z"},
    {"1003", "linus", "80.25", "shipped", "2024-05-01 11:45:10.5"},
    {"1004", "ada", "12.00", "cancelled", "2024-05-02 08:00:00+02:00"},
    {"1005", "barbara", "n/a", "shipped", "2024-05-02 13:30:00"},
    {"1006", "edsger", "999.99", "shipped", "2024-05-03 07:00:00"},
};

Result<columnar::RecordBatchPtr> RawBatch() {
  std::vector<Field> fields = {
      Field("order_id", DataType::String()), Field("customer", DataType::String()),
      Field("amount", DataType::String()), Field("status", DataType::String()),
      Field("placed_at", DataType::String())};
  std::vector<std::unique_ptr<ColumnBuilder>> builders;
  for (const auto& field : fields) {
    builders.push_back(std::make_unique<ColumnBuilder>(field.Type()));
  }
  for (const RawOrder& order : kRawOrders) {
    const char* values[] = {order.order_id, order.customer, order.amount, order.status,
                            order.placed_at};
    for (size_t i = 0; i < builders.size(); ++i) {
      builders[i]->AppendBytes(values[i]);
    }
  }
  std::vector<columnar::ColumnPtr> columns;
  for (auto& builder : builders) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, builder->Finish());
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(std::make_shared<const columnar::Schema>(std::move(fields)),
                                     std::size(kRawOrders), std::move(columns));
}

// Evaluates named expressions over `batch` into a new batch.
Result<columnar::RecordBatchPtr> Project(
    const columnar::RecordBatch& batch,
    const std::vector<std::pair<std::string, expr::ExprPtr>>& projections,
    const expr::EvalContext& context) {
  std::vector<Field> fields;
  std::vector<columnar::ColumnPtr> columns;
  for (const auto& [name, expression] : projections) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto bound, expr::Bind(*expression, *batch.Schema()));
    TRIBUTARY_ASSIGN_OR_RAISE(auto column, expr::Evaluate(*bound, batch, context));
    fields.emplace_back(name, bound->Type());
    columns.push_back(std::move(column));
  }
  return columnar::RecordBatch::Make(std::make_shared<const columnar::Schema>(std::move(fields)),
                                     batch.NumRows(), std::move(columns));
}

void PrintRows(const columnar::RecordBatch& batch, std::ostream& out) {
  for (const std::string& row : columnar::CanonicalJsonRows(batch)) {
    out << "    " << row << "\n";
  }
}

Result<std::string> WorkingDirectory(const std::string& requested) {
  if (!requested.empty()) {
    return requested;
  }
  std::string pattern = "/tmp/tributary-demo-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("cannot create a demo directory under /tmp");
  }
  return pattern;
}

}  // namespace

Status RunDemo(const DemoOptions& options, std::ostream& out) {
  columnar::TrackingMemoryPool pool("demo");
  expr::EvalContext context;
  context.session_time_zone = options.time_zone;
  context.pool = &pool;
  storage::LocalFileSystem fs;
  TRIBUTARY_ASSIGN_OR_RAISE(std::string dir, WorkingDirectory(options.dir));
  out << fmt::format("tributary demo: {} thread(s), session time zone {}, working in {}\n\n",
                     options.threads, options.time_zone.Name(), dir);

  // 1. Land the raw events as a file, atomically and exactly once.
  TRIBUTARY_ASSIGN_OR_RAISE(auto raw, RawBatch());
  std::string landed;
  for (const std::string& row : columnar::CanonicalJsonRows(*raw)) {
    landed += row + "\n";
  }
  const std::string raw_path = storage::JoinPath(dir, "raw/orders-0001.jsonl");
  Status first = fs.WriteFile(raw_path, landed, storage::WriteMode::kPutIfAbsent);
  if (first.IsAlreadyExists()) {
    out << "1. " << raw_path << " was already landed by an earlier run; keeping it\n";
  } else {
    TRIBUTARY_RETURN_NOT_OK(first);
    out << fmt::format("1. landed {} raw events ({} bytes) at {} with put-if-absent\n",
                       raw->NumRows(), landed.size(), raw_path);
  }
  Status second =
      fs.WriteFile(raw_path, "a competing writer's bytes\n", storage::WriteMode::kPutIfAbsent);
  out << "   a second writer to the same path is refused: " << second.ToString() << "\n";
  TRIBUTARY_ASSIGN_OR_RAISE(std::string read_back, fs.ReadFile(raw_path));
  out << fmt::format("   read back {} bytes, identical to what was written: {}\n\n",
                     read_back.size(), read_back == landed ? "yes" : "no");

  // 2. Type the raw text with CAST; try_cast turns the malformed amount into null.
  TRIBUTARY_ASSIGN_OR_RAISE(auto decimal, DataType::Decimal(10, 2));
  std::vector<std::pair<std::string, expr::ExprPtr>> typing = {
      {"order_id", expr::Cast(Col("order_id"), DataType::Int64())},
      {"customer", Col("customer")},
      {"amount", expr::TryCast(Col("amount"), decimal)},
      {"status", Col("status")},
      {"placed_at", expr::Cast(Col("placed_at"), DataType::Timestamp())}};
  TRIBUTARY_ASSIGN_OR_RAISE(auto typed, Project(*raw, typing, context));
  out << "2. typed the events (zone-less times read in the session zone):\n";
  PrintRows(*typed, out);
  auto strict = Project(*raw, {{"amount", expr::Cast(Col("amount"), decimal)}}, context);
  out << "   the ANSI CAST of the same column fails as Spark does:\n     "
      << strict.status().ToString() << "\n\n";

  // 3. Filter shipped orders over 100 after tax, vectorized over the whole batch.
  auto with_tax = expr::Call(Op::kMultiply, {Col("amount"), Lit(*Scalar::Decimal(108, 3, 2))});
  auto predicate =
      expr::And(expr::Call(Op::kEqual, {Col("status"), Lit(Scalar::String("shipped"))}),
                expr::Call(Op::kGreater, {with_tax, Lit(Scalar::Int32(100))}));
  TRIBUTARY_ASSIGN_OR_RAISE(auto bound_predicate, expr::Bind(*predicate, *typed->Schema()));
  TRIBUTARY_ASSIGN_OR_RAISE(auto mask, expr::Evaluate(*bound_predicate, *typed, context));
  TRIBUTARY_ASSIGN_OR_RAISE(auto shipped, columnar::Filter(*typed, *mask, &pool));
  TRIBUTARY_ASSIGN_OR_RAISE(auto report,
                            Project(*shipped,
                                    {{"order_id", Col("order_id")},
                                     {"customer", Col("customer")},
                                     {"amount_with_tax", with_tax},
                                     {"placed_on", expr::Cast(Col("placed_at"), DataType::Date())}},
                                    context));
  out << fmt::format("3. WHERE {} keeps {} of {} rows:\n", bound_predicate->ToString(),
                     report->NumRows(), typed->NumRows());
  PrintRows(*report, out);

  // 4. Commit the typed events to a Delta table partitioned by status, as a streaming sink
  //    would: idempotently, under the application id and batch number of the job.
  const std::string table = storage::JoinPath(dir, "tables/orders");
  delta::TableWriteOptions write;
  write.mode = delta::SaveMode::kAppend;
  write.partition_by = {"status"};
  write.txn = std::make_pair(std::string("tributary-demo"), int64_t{1});
  TRIBUTARY_ASSIGN_OR_RAISE(auto committed,
                            delta::WriteTable(fs, table, typed->Schema(), {typed}, write));
  if (committed.committed) {
    out << fmt::format("\n4. committed {} Parquet files to the Delta table {} as version {}\n",
                       committed.files_added, table, committed.version);
  } else {
    out << fmt::format("\n4. the Delta table {} already holds this batch (txn tributary-demo/1)\n",
                       table);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto replayed,
                            delta::WriteTable(fs, table, typed->Schema(), {typed}, write));
  out << fmt::format("   replaying the same batch is a no-op: committed {}, version stays {}\n",
                     replayed.committed ? "yes" : "no", replayed.version);

  // 5. Read the table back through log replay and the Parquet reader.
  TRIBUTARY_ASSIGN_OR_RAISE(auto snapshot, delta::Snapshot::Load(fs, table));
  delta::TableReadOptions read;
  read.session_time_zone = options.time_zone;
  read.pool = &pool;
  TRIBUTARY_ASSIGN_OR_RAISE(auto batches, delta::ReadTable(fs, *snapshot, read));
  std::vector<std::string> rows;
  for (const auto& batch : batches) {
    for (auto& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
  std::sort(rows.begin(), rows.end());
  out << fmt::format("5. version {} of the table: {} live files, {} rows\n", snapshot->Version(),
                     snapshot->Files().size(), rows.size());
  for (const auto& add : snapshot->Files()) {
    out << fmt::format("    {} ({} bytes)\n", add.path, add.size);
  }
  for (const std::string& row : rows) {
    out << "    " << row << "\n";
  }
  out << fmt::format("   inspect it with: tributary table describe|history|files|cat {}\n", table);

  // 6. The same table through SQL: the query engine prunes files by partition and aggregates.
  auto session =
      Session::Builder().Warehouse(storage::JoinPath(dir, "tables")).TimeZone("UTC").Build();
  if (!session.ok()) {
    return session.status();
  }
  const std::string query =
      "SELECT status, count(*) AS orders, sum(amount) AS revenue FROM orders "
      "WHERE status <> 'cancelled' GROUP BY status ORDER BY status";
  out << "6. SQL over the table: " << query << "\n";
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> result, (*session)->Sql(query).Collect());
  for (const Row& row : result) {
    out << "    " << row.ToJson() << "\n";
  }
  out << fmt::format("   more with: tributary sql --warehouse {} \"SELECT ...\"\n",
                     storage::JoinPath(dir, "tables"));
  out << fmt::format(
      "\ncolumn memory: peak {} bytes through the demo's pool, {} still held by the "
      "result batches\n",
      pool.PeakBytesAllocated(), pool.BytesAllocated());
  return Status::OK();
}

}  // namespace tributary::tools
