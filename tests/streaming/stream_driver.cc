// The stream the crash-recovery test kills: JSON files -> filter -> projection -> Delta table,
// through the public API, run with Trigger.AvailableNow (everything present at start, in
// batches of --max-files files) and then exit. The test starts it as a child process with
// TRIBUTARY_CRASH_AT set (common/crash_point.h) and restarts it on the same checkpoint.
//
//   stream_driver --input DIR --table DIR --checkpoint DIR --max-files N [--source json|cloudFiles]
//                 [--query windowed|joined]
//
// `--source cloudFiles` reads through Auto Loader instead of Spark's JSON file source: the seen
// files are tracked in RocksDB in the checkpoint and the schema is inferred (inferColumnTypes)
// into a schema location inside the checkpoint on the first start, so both must survive kills.
// Exit status: 0 when the stream ended cleanly, 1 when it failed (the error on stderr), 2 for
// bad arguments. The input rows are {"id":BIGINT,"status":STRING,"qty":INT,"note":STRING};
// the table gets the rows whose status is not 'cancelled', as (id, qty, note, bucket = id % 7).
// `--query windowed` instead appends (start, status, count): rows per status per 100-second
// window of the event time CAST(id AS TIMESTAMP), with a watermark of no delay (state in
// RocksDB in the checkpoint).
// `--query joined` instead appends (pair, qty, rqty): a left outer stream-stream join of the
// input with itself, its active rows (event time id + 1 seconds after the epoch, watermark of no
// delay) with the pending row of id + 1 at that same time (the time a watermarked join key, so
// both sides' state is evicted as the watermark passes it); an active row whose id + 1 is not
// pending comes out with a null rqty once the watermark passes it.

#include <cstdio>
#include <map>
#include <string>
#include <string_view>

#include "tributary/column.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "stream_driver: %s\n", message.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) {
    args[argv[i]] = argv[i + 1];
  }
  for (const char* required : {"--input", "--table", "--checkpoint", "--max-files"}) {
    if (!args.contains(required) || argc % 2 != 1) {
      std::fprintf(stderr,
                   "usage: stream_driver --input DIR --table DIR --checkpoint DIR --max-files N\n");
      return 2;
    }
  }
  auto session = tributary::Session::Builder().TimeZone("UTC").Build();
  if (!session.ok()) {
    return Fail(session.status().ToString());
  }
  const bool auto_loader = args["--source"] == "cloudFiles";
  if (!auto_loader && args.contains("--source") && args["--source"] != "json") {
    std::fprintf(stderr, "stream_driver: --source must be json or cloudFiles\n");
    return 2;
  }
  tributary::DataStreamReader reader = (*session)->ReadStream();
  if (auto_loader) {
    reader.Format("cloudFiles")
        .Option("cloudFiles.format", "json")
        .Option("cloudFiles.inferColumnTypes", "true")
        .Option("cloudFiles.schemaLocation", args["--checkpoint"] + "/schema");
  } else {
    reader.Format("json").Schema("id BIGINT, status STRING, qty INT, note STRING");
  }
  tributary::DataFrame input =
      reader.Option("maxFilesPerTrigger", args["--max-files"]).Load(args["--input"]);
  tributary::DataFrame output =
      input.Filter("status <> 'cancelled'").SelectExpr({"id", "qty", "note", "id % 7 AS bucket"});
  const std::string query_kind = args.contains("--query") ? args["--query"] : "";
  if (query_kind == "windowed") {
    // Stateful: rows per status in 100-second windows of the event time id seconds after the
    // epoch, appended as the watermark (no delay) passes each window.
    output = input.SelectExpr({"status", "CAST(id AS TIMESTAMP) AS ts"})
                 .WithWatermark("ts", "0 seconds")
                 .GroupBy({tributary::Window(tributary::Col("ts"), "100 seconds"),
                           tributary::Col("status")})
                 .Count()
                 .Select({tributary::Col("window.start").Alias("start"), tributary::Col("status"),
                          tributary::Col("count")});
  } else if (query_kind == "joined") {
    const tributary::DataFrame active =
        input.Filter("status = 'active'")
            .SelectExpr({"id + 1 AS pair", "CAST(id + 1 AS TIMESTAMP) AS ts", "qty"})
            .WithWatermark("ts", "0 seconds")
            .Alias("l");
    const tributary::DataFrame pending =
        input.Filter("status = 'pending'")
            .SelectExpr({"id AS pair", "CAST(id AS TIMESTAMP) AS rts", "qty AS rqty"})
            .Alias("r");
    output = active
                 .Join(pending,
                       tributary::Col("l.pair") == tributary::Col("r.pair") &&
                           tributary::Col("l.ts") == tributary::Col("r.rts"),
                       "left_outer")
                 .Select({tributary::Col("l.pair"), tributary::Col("qty"), tributary::Col("rqty")});
  } else if (!query_kind.empty()) {
    std::fprintf(stderr, "stream_driver: --query must be windowed or joined\n");
    return 2;
  }
  auto query = output.WriteStream()
                   .Format("delta")
                   .Option("checkpointLocation", args["--checkpoint"])
                   .Trigger(tributary::Trigger::AvailableNow())
                   .Start(args["--table"]);
  if (!query.ok()) {
    return Fail(query.status().ToString());
  }
  const tributary::Status ended = query->AwaitTermination();
  if (!ended.ok()) {
    return Fail(ended.ToString());
  }
  return 0;
}
