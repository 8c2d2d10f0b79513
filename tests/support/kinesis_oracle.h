// An independent Kinesis client for tests: botocore (python3), against the moto server of
// S3TestServer (moto serves Kinesis on the same port). Tests create streams, put records and
// reshard with it, so what tributary reads was written by another implementation of the
// protocol. Header-only: each call runs `python3 -c <script> <endpoint> <command JSON>`.

#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/child_process.h"
#include "support/s3_test_server.h"
#include "tributary/result.h"

namespace tributary::testing {

// The script: one command (JSON) in, its result (JSON) on stdout.
inline constexpr const char* kKinesisOracleScript = R"(import base64, json, sys
import botocore.session
client = botocore.session.get_session().create_client(
    'kinesis', region_name='us-east-1', endpoint_url=sys.argv[1],
    aws_access_key_id='testing', aws_secret_access_key='testing')
command = json.loads(sys.argv[2])
op, stream = command['op'], command.get('stream')
if op == 'create':
    client.create_stream(StreamName=stream, ShardCount=command['shards'])
    # moto creates a stream ACTIVE (AWS takes seconds; a test against AWS would wait with
    # botocore's stream_exists waiter): anything else is an error, not something to wait for.
    status = client.describe_stream_summary(StreamName=stream)[
        'StreamDescriptionSummary']['StreamStatus']
    if status != 'ACTIVE':
        raise SystemExit('stream %s is %s after CreateStream, not ACTIVE' % (stream, status))
    result = None
elif op == 'put':
    result = []
    records = command['records']
    for first in range(0, len(records), 500):
        entries = [{'PartitionKey': r['key'], 'Data': base64.b64decode(r['data'])}
                   for r in records[first:first + 500]]
        answer = client.put_records(StreamName=stream, Records=entries)
        if answer.get('FailedRecordCount'):
            raise SystemExit('put_records failed: %r' % answer)
        result += [{'shard': r['ShardId'], 'seq': r['SequenceNumber']}
                   for r in answer['Records']]
elif op == 'split':
    client.split_shard(StreamName=stream, ShardToSplit=command['shard'],
                       NewStartingHashKey=command['hash'])
    result = None
elif op == 'merge':
    client.merge_shards(StreamName=stream, ShardToMerge=command['shard'],
                        AdjacentShardToMerge=command['adjacent'])
    result = None
elif op == 'shards':
    result = [s['ShardId'] for s in client.list_shards(StreamName=stream)['Shards']]
elif op == 'last_arrival_ms':
    result = 0
    for shard in client.list_shards(StreamName=stream)['Shards']:
        iterator = client.get_shard_iterator(
            StreamName=stream, ShardId=shard['ShardId'],
            ShardIteratorType='TRIM_HORIZON')['ShardIterator']
        while iterator:
            page = client.get_records(ShardIterator=iterator, Limit=10000)
            for record in page['Records']:
                result = max(result, round(
                    record['ApproximateArrivalTimestamp'].timestamp() * 1000))
            iterator = page.get('NextShardIterator') if page['Records'] else None
else:
    raise SystemExit('unknown command ' + op)
print(json.dumps(result))
)";

/// `bytes` as base64 (the oracle's command JSON carries record data so, any byte allowed).
inline std::string Base64ForKinesisOracle(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t chunk = static_cast<uint32_t>(static_cast<uint8_t>(bytes[i])) << 16;
    if (i + 1 < bytes.size()) {
      chunk |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[i + 1])) << 8;
    }
    if (i + 2 < bytes.size()) {
      chunk |= static_cast<uint8_t>(bytes[i + 2]);
    }
    out += kAlphabet[(chunk >> 18) & 63];
    out += kAlphabet[(chunk >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(chunk >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[chunk & 63] : '=';
  }
  return out;
}

/// Runs one oracle command; its JSON result, or an IOError with python's stderr.
inline Result<nlohmann::json> KinesisOracle(const nlohmann::json& command) {
  ChildOptions options;
  // python3 found on PATH, as the moto server's is.
  options.args = {
      "/usr/bin/env", "python3", "-c", kKinesisOracleScript, S3TestServer::Get().Endpoint(),
      command.dump()};
  std::string out_path = "/tmp/tributary-kinesis-oracle-XXXXXX";
  const int out_fd = mkstemp(out_path.data());
  if (out_fd < 0) {
    return Status::IOError("cannot create the Kinesis oracle's output file");
  }
  close(out_fd);
  options.stdout_path = out_path;
  options.stderr_path = out_path + ".err";
  ChildResult result = RunChild(options);
  std::remove(options.stdout_path.c_str());
  std::remove(options.stderr_path.c_str());
  if (result.exit_code != 0) {
    return Status::IOError("the botocore Kinesis oracle " + command.dump() + " " +
                           result.Describe() +
                           " (is botocore installed? pip install 'moto[server]')");
  }
  nlohmann::json parsed =
      nlohmann::json::parse(result.stdout_text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return Status::IOError("the botocore Kinesis oracle printed no JSON: " + result.stdout_text);
  }
  return parsed;
}

/// Where PutRecords put one record.
struct KinesisPut {
  std::string shard_id;
  std::string sequence_number;
};

/// Creates `stream` with `shards` shards and waits until it is ACTIVE.
inline Status KinesisOracleCreateStream(const std::string& stream, int shards) {
  return KinesisOracle({{"op", "create"}, {"stream", stream}, {"shards", shards}}).status();
}

/// PutRecords of (partition key, data) pairs, in order; where each one went.
inline Result<std::vector<KinesisPut>> KinesisOraclePut(
    const std::string& stream, const std::vector<std::pair<std::string, std::string>>& records) {
  nlohmann::json entries = nlohmann::json::array();
  for (const auto& [key, data] : records) {
    entries.push_back({{"key", key}, {"data", Base64ForKinesisOracle(data)}});
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      nlohmann::json result,
      KinesisOracle({{"op", "put"}, {"stream", stream}, {"records", std::move(entries)}}));
  std::vector<KinesisPut> puts;
  for (const nlohmann::json& put : result) {
    puts.push_back({put["shard"].get<std::string>(), put["seq"].get<std::string>()});
  }
  return puts;
}

/// SplitShard `shard` at hash key `hash` (decimal).
inline Status KinesisOracleSplit(const std::string& stream, const std::string& shard,
                                 const std::string& hash) {
  return KinesisOracle({{"op", "split"}, {"stream", stream}, {"shard", shard}, {"hash", hash}})
      .status();
}

/// MergeShards `shard` with the adjacent `adjacent`.
inline Status KinesisOracleMerge(const std::string& stream, const std::string& shard,
                                 const std::string& adjacent) {
  return KinesisOracle(
             {{"op", "merge"}, {"stream", stream}, {"shard", shard}, {"adjacent", adjacent}})
      .status();
}

/// The stream's shard ids, as ListShards orders them.
inline Result<std::vector<std::string>> KinesisOracleShards(const std::string& stream) {
  TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json result,
                            KinesisOracle({{"op", "shards"}, {"stream", stream}}));
  return result.get<std::vector<std::string>>();
}

/// The latest arrival time, in milliseconds, of the records in `stream`'s shards (0 when it has
/// none). The test server stamps each record a whole millisecond after the one before
/// (tests/support/moto_server.py), so records put afterwards arrive at this time + 1 or later.
inline Result<int64_t> KinesisOracleLastArrivalMs(const std::string& stream) {
  TRIBUTARY_ASSIGN_OR_RAISE(nlohmann::json result,
                            KinesisOracle({{"op", "last_arrival_ms"}, {"stream", stream}}));
  return result.get<int64_t>();
}

}  // namespace tributary::testing
