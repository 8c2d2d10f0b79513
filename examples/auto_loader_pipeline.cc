// tributary auto_loader_pipeline: the reference pipeline of the README through the public API,
// in the shape of Spark's readStream.format("cloudFiles") ... writeStream.format("delta")
// ... toTable(...):
//
//   raw_logs         <- Auto Loader over WORK_DIR/landing/raw-logs (JSON, types inferred)
//   gold_active_logs <- the Delta stream of raw_logs WHERE status = 'active'
//
//   auto_loader_pipeline [WORK_DIR]
//
// Lands two JSON log files in WORK_DIR (default: a new directory in /tmp), runs both streams
// with Trigger.AvailableNow, lands a file with a new field (`device`) and a malformed line, and
// runs them again. The new column stops each stream with a schema-change error after the
// stored schema was updated; the program restarts the stream, as a job retry would, and the
// restart reads on with the merged schema. Prints what each run did and the tables.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "tributary/session.h"
#include "tributary/streaming.h"

using tributary::DataFrame;
using tributary::Session;
using tributary::Status;
using tributary::StreamingQuery;
using tributary::Trigger;

namespace {

int Fail(const Status& status) {
  std::cerr << "auto_loader_pipeline: " << status.ToString() << "\n";
  return 1;
}

// Writes `lines` log lines as `name` in `dir`; `extra` is appended inside each object.
void WriteLogs(const std::string& dir, const std::string& name, int first_id, int lines,
               const std::string& extra) {
  std::filesystem::create_directories(dir);
  const char* statuses[] = {"active", "inactive", "active", "pending"};
  const char* countries[] = {"US", "DE", "FR"};
  std::ofstream out(dir + "/" + name);
  for (int i = first_id; i < first_id + lines; ++i) {
    out << R"({"ts":"2026-11-29T10:00:)" << (i % 60 < 10 ? "0" : "") << i % 60 << R"(Z","user_id":)"
        << 100 + i << R"(,"status":")" << statuses[i % 4] << R"(","country":")" << countries[i % 3]
        << R"(","latency_ms":)" << i * 1.5 << R"(,"path":"/api/items")" << extra << "}\n";
  }
}

// Runs one stream to the end of its input (Trigger.AvailableNow). A stream stopped because its
// source's schema gained columns is started again, as a job retry would: the restart picks up
// the stored, merged schema. `start` builds and starts the query.
template <typename StartQuery>
Status RunToEnd(const std::string& table, StartQuery start) {
  for (int attempt = 0; attempt < 5; ++attempt) {
    tributary::Result<StreamingQuery> query = start();
    if (!query.ok()) {
      return query.status();
    }
    Status finished = query->AwaitTermination();
    int64_t rows = 0;
    for (const auto& progress : query->RecentProgress()) {
      rows += progress.sink.num_output_rows;
    }
    std::cout << table << ": " << query->RecentProgress().size() << " batch(es), " << rows
              << " rows written\n";
    if (!query->StoppedBySchemaChange()) {
      return finished;
    }
    std::cout << table << ": restarting with the new schema (" << finished.Message() << ")\n";
  }
  return Status::Internal(table + ": the schema changed on every restart");
}

Status RunPipeline(const Session& session, const std::string& work) {
  Status bronze = RunToEnd("raw_logs", [&] {
    return session.ReadStream()
        .Format("cloudFiles")
        .Option("cloudFiles.format", "json")
        .Option("cloudFiles.schemaLocation", work + "/checkpoints/raw_logs")
        .Option("cloudFiles.inferColumnTypes", "true")
        .Load(work + "/landing/raw-logs")
        .WriteStream()
        .Format("delta")
        .Option("checkpointLocation", work + "/checkpoints/raw_logs")
        .Option("mergeSchema", "true")
        .Trigger(Trigger::AvailableNow())
        .ToTable("raw_logs");
  });
  if (!bronze.ok()) {
    return bronze;
  }
  return RunToEnd("gold_active_logs", [&] {
    return session.ReadStream()
        .Table("raw_logs")
        .Filter("status = 'active'")
        .WriteStream()
        .Format("delta")
        .Option("checkpointLocation", work + "/checkpoints/gold_active_logs")
        .Option("mergeSchema", "true")
        .Trigger(Trigger::AvailableNow())
        .ToTable("gold_active_logs");
  });
}

// Prints raw_logs' counts (`with_device`: the column the second run adds) and gold's rows.
Status ShowTables(const Session& session, bool with_device) {
  const std::string raw_counts =
      std::string("SELECT count(*) AS rows, count(_rescued_data) AS rescued") +
      (with_device ? ", count(device) AS with_device" : "") + " FROM raw_logs";
  for (const std::string& query :
       {raw_counts,
        std::string(
            "SELECT country, count(*) AS active_rows FROM gold_active_logs GROUP BY country "
            "ORDER BY country")}) {
    std::cout << query << "\n";
    if (Status shown = session.Sql(query).Show(); !shown.ok()) {
      return shown;
    }
  }
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  std::string work = argc > 1 ? argv[1] : "";
  if (work.empty()) {
    char pattern[] = "/tmp/tributary-auto-loader-XXXXXX";
    const char* made = mkdtemp(pattern);
    if (made == nullptr) {
      std::cerr << "auto_loader_pipeline: cannot create a work directory\n";
      return 1;
    }
    work = made;
  }
  auto session = Session::Builder().Warehouse(work + "/warehouse").Build();
  if (!session.ok()) {
    return Fail(session.status());
  }
  const std::string landing = work + "/landing/raw-logs";
  WriteLogs(landing, "logs-1.json", 0, 40, "");
  WriteLogs(landing, "logs-2.json", 40, 40, "");
  std::cout << "== first run: 2 files, 80 lines, schema inferred\n";
  if (Status run = RunPipeline(**session, work); !run.ok()) {
    return Fail(run);
  }
  if (Status shown = ShowTables(**session, false); !shown.ok()) {
    return Fail(shown);
  }

  WriteLogs(landing, "logs-3.json", 80, 20, R"(,"device":"mobile")");
  {
    std::ofstream out(landing + "/logs-3.json", std::ios::app);
    out << R"({"ts":"2026-11-29T10:59:59Z","status":"active",)"
        << "\n";
  }
  std::cout << "== second run: 1 new file with a new field `device` and a malformed line\n";
  if (Status run = RunPipeline(**session, work); !run.ok()) {
    return Fail(run);
  }
  if (Status shown = ShowTables(**session, true); !shown.ok()) {
    return Fail(shown);
  }
  return 0;
}
