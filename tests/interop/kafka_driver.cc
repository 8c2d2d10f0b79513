// The Kafka queries kafka_process_test.cc starts as child processes and kills at crash points,
// through the public API as a user's program runs them:
//
//   kafka_driver --bootstrap SERVERS --topic IN --checkpoint DIR
//                (--table DIR | --output-topic OUT --transactional-id ID)
//                [--trigger available-now|processing-time-ms=N] [--source-option key=value]...
//
// The source is Kafka topic IN from the earliest offsets (source options add to or override
// that: maxOffsetsPerTrigger, failOnDataLoss, kafka.*). With --table the query appends
// (key, value, partition, offset), the record's key and value as strings, to the Delta table
// at DIR; with --output-topic it writes each record's key and value to topic OUT through the
// Kafka sink, exactly once (kafka.transactional.id = ID). The trigger is AvailableNow unless
// given. Exit status: 0 when the query ended cleanly, 1 when it failed (the error on stderr), 2
// for bad arguments.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tributary/session.h"
#include "tributary/streaming.h"

namespace {

int KafkaDriverFail(const std::string& message) {
  std::fprintf(stderr, "kafka_driver: %s\n", message.c_str());
  return 1;
}

int KafkaDriverUsage(const std::string& message) {
  std::fprintf(stderr,
               "kafka_driver: %s\nusage: kafka_driver --bootstrap SERVERS --topic IN "
               "--checkpoint DIR (--table DIR | --output-topic OUT --transactional-id ID) "
               "[--trigger available-now|processing-time-ms=N] [--source-option key=value]...\n",
               message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args;
  std::map<std::string, std::string> source_options;
  for (int i = 1; i < argc; i += 2) {
    if (i + 1 >= argc) {
      return KafkaDriverUsage(std::string("no value after ") + argv[i]);
    }
    const std::string_view name = argv[i];
    const std::string value = argv[i + 1];
    if (name == "--source-option") {
      const size_t equals = value.find('=');
      if (equals == std::string::npos) {
        return KafkaDriverUsage("--source-option takes key=value, not " + value);
      }
      source_options[value.substr(0, equals)] = value.substr(equals + 1);
    } else {
      args[std::string(name)] = value;
    }
  }
  for (const char* required : {"--bootstrap", "--topic", "--checkpoint"}) {
    if (!args.contains(required)) {
      return KafkaDriverUsage(std::string("missing ") + required);
    }
  }
  const bool to_kafka = args.contains("--output-topic");
  if (to_kafka == args.contains("--table") || (to_kafka && !args.contains("--transactional-id"))) {
    return KafkaDriverUsage("give --table, or --output-topic with --transactional-id");
  }
  tributary::Trigger trigger = tributary::Trigger::AvailableNow();
  if (const std::string& kind = args["--trigger"]; kind.starts_with("processing-time-ms=")) {
    trigger = tributary::Trigger::ProcessingTime(
        std::chrono::milliseconds(std::atoll(kind.c_str() + std::strlen("processing-time-ms="))));
  } else if (!kind.empty() && kind != "available-now") {
    return KafkaDriverUsage("--trigger must be available-now or processing-time-ms=N");
  }

  auto session = tributary::Session::Builder().TimeZone("UTC").Build();
  if (!session.ok()) {
    return KafkaDriverFail(session.status().ToString());
  }
  std::map<std::string, std::string> options = {
      {"kafka.bootstrap.servers", args["--bootstrap"]},
      {"subscribe", args["--topic"]},
      {"startingOffsets", "earliest"},
  };
  for (const auto& [key, value] : source_options) {
    options[key] = value;
  }
  const tributary::DataFrame input =
      (*session)->ReadStream().Format("kafka").Options(options).Load();
  const auto start = [&]() -> tributary::Result<tributary::StreamingQuery> {
    if (to_kafka) {
      return input.SelectExpr({"key", "value"})
          .WriteStream()
          .Format("kafka")
          .Option("kafka.bootstrap.servers", args["--bootstrap"])
          .Option("topic", args["--output-topic"])
          .Option("kafka.transactional.id", args["--transactional-id"])
          .Option("checkpointLocation", args["--checkpoint"])
          .Trigger(trigger)
          .Start();
    }
    return input
        .SelectExpr(
            {"CAST(key AS STRING) AS key", "CAST(value AS STRING) AS value", "partition", "offset"})
        .WriteStream()
        .Format("delta")
        .Option("checkpointLocation", args["--checkpoint"])
        .Trigger(trigger)
        .Start(args["--table"]);
  };
  tributary::Result<tributary::StreamingQuery> query = start();
  if (!query.ok()) {
    return KafkaDriverFail(query.status().ToString());
  }
  const tributary::Status ended = query->AwaitTermination();
  if (!ended.ok()) {
    return KafkaDriverFail(ended.ToString());
  }
  return 0;
}
