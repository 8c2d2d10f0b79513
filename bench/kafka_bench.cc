// Kafka -> Delta benchmarks (issue 20), through the public API as a user's program runs a
// stream, against a Kafka broker given by its bootstrap list (`make bench` starts the project's
// test broker, tools/kafka_test_broker: librdkafka's mock cluster over TCP on loopback, so the
// figures include the real protocol and client but no disk or network of a real broker):
//
//   kafka_bench throughput --bootstrap SERVERS --topic T --dir DIR [--rows N] [--repetitions R]
//     Produces N JSON log records (Default: 500000; the streaming benchmarks' log lines) to
//     topic T (untimed; T should be new and may have several partitions), then R times
//     (Default: 5), after one untimed warm-up run, runs each case from the earliest offsets
//     with Trigger::AvailableNow() into a fresh table and checkpoint under DIR, on one thread:
//       bronze   SELECT CAST(key AS STRING), CAST(value AS STRING), topic, partition, offset,
//                timestamp -> Delta (the raw records, as a bronze table keeps them)
//       parsed   SELECT from_json(CAST(value AS STRING), '<the log schema>').*, partition,
//                offset -> Delta (the records parsed into typed columns)
//     Prints per case the median time, rows/s (records read per second) and the times; fails
//     unless every run's table holds exactly N rows.
//
//   kafka_bench latency --bootstrap SERVERS --topic T --dir DIR [--rate R] [--seconds S]
//                       [--trigger-ms M]
//     End-to-end latency: a query Kafka T -> from_json -> Delta with the processing-time
//     trigger of M ms (Default: 0, each batch as soon as the last ended; an idle trigger waits
//     spark.sql.streaming.pollingDelay, 10 ms) runs while one thread produces R records a second
//     (Default: 1000) for S seconds (Default: 10) at a steady pace (librdkafka producer,
//     linger.ms 0), each carrying the steady-clock time it was handed to the producer. A
//     record's latency is from then to the moment the query's listener hears of the batch that
//     holds it (its progress record, sent after the Delta commit and commits/N); which batch
//     holds a record comes from the batches' end offsets (Spark's offsets JSON) and the record's
//     (partition, offset) in the table. The first second of records is warm-up. Prints p50,
//     p90, p99 and max, the batches and the median records per batch; fails unless the table
//     holds every record once.
//
// Exit code 1 on any error or a wrong row count; speed never fails the program.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "bench_util.h"
#include "storage/kafka_client.h"
#include "streaming/kafka_source.h"
#include "tributary/dataframe.h"
#include "tributary/session.h"
#include "tributary/streaming.h"

namespace tributary {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kLogSchema =
    "ts TIMESTAMP, user_id BIGINT, status STRING, country STRING, latency_ms DOUBLE, "
    "path STRING, bytes BIGINT";

int KafkaBenchFail(const std::string& message) {
  std::fprintf(stderr, "kafka_bench: %s\n", message.c_str());
  return 1;
}

Result<std::unique_ptr<storage::KafkaProducer>> KafkaBenchProducer(const std::string& bootstrap) {
  return storage::KafkaProducer::Make(
      {{"bootstrap.servers", bootstrap}, {"linger.ms", "0"}, {"compression.type", "none"}});
}

Status ProduceLogs(const std::string& bootstrap, const std::string& topic, int64_t rows) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto producer, KafkaBenchProducer(bootstrap));
  std::mt19937_64 rng(20261202);
  constexpr int64_t kFlushEvery = 20000;
  for (int64_t i = 0; i < rows; ++i) {
    storage::KafkaRecord record;
    record.topic = topic;
    record.key = fmt::format("user-{}", i % 1000);
    record.value = bench::LogLine(rng, i);
    TRIBUTARY_RETURN_NOT_OK(producer->Produce(record));
    if ((i + 1) % kFlushEvery == 0) {
      TRIBUTARY_RETURN_NOT_OK(producer->Flush(std::chrono::seconds(60)));
    }
  }
  return producer->Flush(std::chrono::seconds(60));
}

Result<std::shared_ptr<Session>> KafkaBenchSession() {
  return Session::Builder().TimeZone("UTC").Warehouse("/nonexistent-warehouse").Build();
}

DataFrame KafkaInput(const Session& session, const std::string& bootstrap,
                     const std::string& topic) {
  return session.ReadStream()
      .Format("kafka")
      .Option("kafka.bootstrap.servers", bootstrap)
      .Option("subscribe", topic)
      .Option("startingOffsets", "earliest")
      .Load();
}

struct KafkaThroughputRun {
  double ms = 0;
  int64_t rows_in = 0;
  int64_t rows_out = 0;
  int64_t table_rows = 0;
};

Result<KafkaThroughputRun> RunKafkaThroughputOnce(const Session& session,
                                                  const std::string& bootstrap,
                                                  const std::string& topic, const std::string& dir,
                                                  const std::string& name) {
  const std::string table = dir + "/" + name + "_table";
  const std::string checkpoint = dir + "/" + name + "_checkpoint";
  std::error_code ignored;
  std::filesystem::remove_all(table, ignored);
  std::filesystem::remove_all(checkpoint, ignored);
  const Clock::time_point start = Clock::now();
  const DataFrame input = KafkaInput(session, bootstrap, topic);
  const DataFrame result =
      name == "bronze"
          ? input.SelectExpr({"CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value",
                              "topic", "partition", "offset", "timestamp"})
          : input
                .SelectExpr(
                    {fmt::format("from_json(CAST(value AS STRING), '{}') AS log", kLogSchema),
                     "partition", "offset"})
                // Spelled out: `struct.*` expansion is not supported yet.
                .SelectExpr({"log.ts AS ts", "log.user_id AS user_id", "log.status AS status",
                             "log.country AS country", "log.latency_ms AS latency_ms",
                             "log.path AS path", "log.bytes AS bytes", "partition", "offset"});
  TRIBUTARY_ASSIGN_OR_RAISE(StreamingQuery query, result.WriteStream()
                                                      .Format("delta")
                                                      .Option("checkpointLocation", checkpoint)
                                                      .Trigger(Trigger::AvailableNow())
                                                      .Start(table));
  TRIBUTARY_RETURN_NOT_OK(query.AwaitTermination());
  KafkaThroughputRun run;
  run.ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  for (const StreamingQueryProgress& progress : query.RecentProgress()) {
    run.rows_in += progress.num_input_rows;
    run.rows_out += progress.sink.num_output_rows;
  }
  TRIBUTARY_ASSIGN_OR_RAISE(run.table_rows, session.Read().Format("delta").Load(table).Count());
  return run;
}

int KafkaThroughput(const std::map<std::string, std::string>& options) {
  const std::string& bootstrap = options.at("bootstrap");
  const std::string& topic = options.at("topic");
  const std::string& dir = options.at("dir");
  const int64_t rows = bench::IntOption(options, "rows", 500000);
  const int64_t repetitions = bench::IntOption(options, "repetitions", 5);
  const Clock::time_point produce_start = Clock::now();
  if (Status produced = ProduceLogs(bootstrap, topic, rows); !produced.ok()) {
    return KafkaBenchFail("producing to " + topic + ": " + produced.ToString());
  }
  const double produce_ms =
      std::chrono::duration<double, std::milli>(Clock::now() - produce_start).count();
  auto session = KafkaBenchSession();
  if (!session.ok()) {
    return KafkaBenchFail(session.status().ToString());
  }
  std::printf("%-8s %10s %12s %10s  %s\n", "case", "median ms", "rows/s", "rows", "times ms");
  for (const std::string name : {"bronze", "parsed"}) {
    std::vector<double> times_ms;
    for (int64_t r = 0; r <= repetitions; ++r) {
      auto run = RunKafkaThroughputOnce(**session, bootstrap, topic, dir, name);
      if (!run.ok()) {
        return KafkaBenchFail(name + ": " + run.status().ToString());
      }
      if (run->rows_in != rows || run->table_rows != rows || run->rows_out != rows) {
        return KafkaBenchFail(fmt::format(
            "{}: run {} read {} records and wrote {} rows ({} in the table), expected {}", name, r,
            run->rows_in, run->rows_out, run->table_rows, rows));
      }
      if (r > 0) {  // run 0 warms the allocator and the broker's connections
        times_ms.push_back(run->ms);
      }
    }
    std::string times;
    for (double ms : times_ms) {
      times += fmt::format("{}{:.0f}", times.empty() ? "" : "/", ms);
    }
    const double median = bench::Percentile(times_ms, 0.5);
    std::printf("%-8s %10.1f %11.2fM %10lld  %s\n", name.c_str(), median,
                static_cast<double>(rows) / median / 1e3, static_cast<long long>(rows),
                times.c_str());
  }
  std::printf(
      "%lld records (%s, JSON log lines of about 200 B) produced in %.0f ms (untimed); "
      "Kafka -> Delta, available-now from the earliest offsets, fresh table and checkpoint per "
      "run in %s, 1 thread, medians of %lld repetitions after one warm-up run; every table holds "
      "all %lld rows\n",
      static_cast<long long>(rows), topic.c_str(), produce_ms, dir.c_str(),
      static_cast<long long>(repetitions), static_cast<long long>(rows));
  return 0;
}

// Remembers when the listener heard of each batch, and the batch's end offsets.
class KafkaCommitLog final : public StreamingQueryListener {
 public:
  void OnQueryProgress(const StreamingQueryProgress& progress) override {
    std::lock_guard lock(mutex_);
    if (!progress.sources.empty() && progress.num_input_rows > 0) {
      batches_.push_back(
          {Clock::now(), progress.sources.front().end_offset, progress.num_input_rows});
      rows_ += progress.num_input_rows;
    }
    changed_.notify_all();
  }

  // Waits until the batches heard of hold `rows` records; false after `timeout`.
  bool WaitForRows(int64_t rows, std::chrono::seconds timeout) {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, timeout, [&] { return rows_ >= rows; });
  }

  struct Batch {
    Clock::time_point heard;
    std::string end_offset;
    int64_t rows = 0;
  };
  std::vector<Batch> Batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Batch> batches_;
  int64_t rows_ = 0;
};

int KafkaLatency(const std::map<std::string, std::string>& options) {
  const std::string& bootstrap = options.at("bootstrap");
  const std::string& topic = options.at("topic");
  const std::string& dir = options.at("dir");
  const int64_t rate = bench::IntOption(options, "rate", 1000);
  const int64_t seconds = bench::IntOption(options, "seconds", 10);
  const int64_t trigger_ms = bench::IntOption(options, "trigger-ms", 0);
  const std::string table = dir + "/latency_table";
  const std::string checkpoint = dir + "/latency_checkpoint";
  std::error_code ignored;
  std::filesystem::remove_all(table, ignored);
  std::filesystem::remove_all(checkpoint, ignored);

  auto session = KafkaBenchSession();
  if (!session.ok()) {
    return KafkaBenchFail(session.status().ToString());
  }
  auto commits = std::make_shared<KafkaCommitLog>();
  (*session)->AddStreamingListener(commits);
  auto query = KafkaInput(**session, bootstrap, topic)
                   .SelectExpr({"from_json(CAST(value AS STRING), 'seq BIGINT, sent_ns BIGINT, "
                                "user_id BIGINT, status STRING') AS e",
                                "partition", "offset"})
                   .SelectExpr({"e.seq AS seq", "e.sent_ns AS sent_ns", "e.user_id AS user_id",
                                "e.status AS status", "partition", "offset"})
                   .WriteStream()
                   .Format("delta")
                   .Option("checkpointLocation", checkpoint)
                   .Trigger(Trigger::ProcessingTime(std::chrono::milliseconds(trigger_ms)))
                   .Start(table);
  if (!query.ok()) {
    return KafkaBenchFail(query.status().ToString());
  }
  auto producer = KafkaBenchProducer(bootstrap);
  if (!producer.ok()) {
    return KafkaBenchFail(producer.status().ToString());
  }
  const int64_t total = rate * seconds;
  const Clock::time_point start = Clock::now();
  const auto since_start_ns = [&](Clock::time_point at) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(at - start).count();
  };
  std::mt19937_64 rng(11);
  for (int64_t seq = 0; seq < total; ++seq) {
    std::this_thread::sleep_until(start + std::chrono::nanoseconds(seq * 1000000000LL / rate));
    storage::KafkaRecord record;
    record.topic = topic;
    record.value = fmt::format(R"({{"seq":{},"sent_ns":{},"user_id":{},"status":"{}"}})", seq,
                               since_start_ns(Clock::now()), rng() % 1000000,
                               rng() % 3 == 0 ? "active" : "pending");
    if (Status sent = (*producer)->Produce(record); !sent.ok()) {
      query->Stop();
      return KafkaBenchFail(fmt::format("producing record {}: {}", seq, sent.ToString()));
    }
  }
  if (Status flushed = (*producer)->Flush(std::chrono::seconds(60)); !flushed.ok()) {
    query->Stop();
    return KafkaBenchFail(flushed.ToString());
  }
  const bool caught_up = commits->WaitForRows(total, std::chrono::seconds(120));
  query->Stop();
  if (!caught_up || !query->Exception().ok()) {
    return KafkaBenchFail(fmt::format("the query did not commit all {} records within 120 s: {}",
                                      total, query->Exception().ToString()));
  }

  // The batches' end offsets: a record (p, o) is in the first batch whose end for p is > o.
  std::vector<KafkaCommitLog::Batch> batches = commits->Batches();
  std::vector<streaming::KafkaPartitionOffsets> ends;
  std::vector<double> rows_per_batch;
  for (const KafkaCommitLog::Batch& batch : batches) {
    auto parsed = streaming::ParseKafkaOffsets(batch.end_offset);
    if (!parsed.ok()) {
      return KafkaBenchFail(parsed.status().ToString());
    }
    ends.push_back(*parsed);
    rows_per_batch.push_back(static_cast<double>(batch.rows));
  }
  auto rows = (*session)
                  ->Read()
                  .Format("delta")
                  .Load(table)
                  .SelectExpr({"seq", "sent_ns", "partition", "offset"})
                  .Collect();
  if (!rows.ok()) {
    return KafkaBenchFail(rows.status().ToString());
  }
  if (static_cast<int64_t>(rows->size()) != total) {
    return KafkaBenchFail(fmt::format("the table holds {} rows, expected {}", rows->size(), total));
  }
  std::vector<bool> seen(static_cast<size_t>(total), false);
  std::vector<double> latencies_ms;
  const int64_t warm_up = rate;  // the first second
  for (const Row& row : *rows) {
    const int64_t seq = *row.GetLong(0);
    if (seq < 0 || seq >= total || seen[static_cast<size_t>(seq)]) {
      return KafkaBenchFail(fmt::format("record {} is in the table twice or unknown", seq));
    }
    seen[static_cast<size_t>(seq)] = true;
    const storage::KafkaTopicPartition tp{topic, static_cast<int32_t>(*row.GetLong(2))};
    const int64_t offset = *row.GetLong(3);
    size_t b = 0;
    while (b < ends.size() && (!ends[b].contains(tp) || ends[b].at(tp) <= offset)) {
      ++b;
    }
    if (b == ends.size()) {
      return KafkaBenchFail(
          fmt::format("record {} ({} offset {}) is in no batch", seq, tp.ToString(), offset));
    }
    if (seq >= warm_up) {
      latencies_ms.push_back(
          static_cast<double>(since_start_ns(batches[b].heard) - *row.GetLong(1)) / 1e6);
    }
  }
  std::printf("%-34s %10s\n", "produce -> committed latency", "ms");
  for (const auto& [label, p] : std::vector<std::pair<const char*, double>>{
           {"p50", 0.5}, {"p90", 0.9}, {"p99", 0.99}, {"max", 1.0}}) {
    std::printf("%-34s %10.2f\n", label, bench::Percentile(latencies_ms, p));
  }
  std::printf(
      "%lld records at %lld/s for %lld s (the first second untimed), trigger ProcessingTime(%lld "
      "ms), Kafka %s -> from_json -> Delta in %s; %zu batches, median %.0f records per batch; "
      "the table holds every record once\n",
      static_cast<long long>(total), static_cast<long long>(rate), static_cast<long long>(seconds),
      static_cast<long long>(trigger_ms), topic.c_str(), dir.c_str(), batches.size(),
      bench::Percentile(rows_per_batch, 0.5));
  return 0;
}

}  // namespace
}  // namespace tributary

int main(int argc, char** argv) {  // NOLINT(bugprone-exception-escape)
  const std::string command = argc > 1 ? argv[1] : "";
  const auto options = tributary::bench::ParseOptions(argc, argv, 2);
  if ((command != "throughput" && command != "latency") || !options.contains("bootstrap") ||
      !options.contains("topic") || !options.contains("dir")) {
    std::fprintf(stderr,
                 "usage: kafka_bench throughput --bootstrap SERVERS --topic T --dir DIR [--rows N] "
                 "[--repetitions R]\n"
                 "       kafka_bench latency --bootstrap SERVERS --topic T --dir DIR [--rate R] "
                 "[--seconds S] [--trigger-ms M]\n");
    return 2;
  }
  std::filesystem::create_directories(options.at("dir"));
  return command == "throughput" ? tributary::KafkaThroughput(options)
                                 : tributary::KafkaLatency(options);
}
