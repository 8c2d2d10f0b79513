// The Kinesis source (kinesis_source.h has the offset grammar). Per shard it keeps the records
// fetched after some position (KinesisShardCache): LatestOffset appends to it, GetBatch serves
// (start, end] from it when it covers start, else reads again from start, and Commit drops the
// records up to end.

#include "streaming/kinesis_source.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "columnar/column_builder.h"
#include "common/ascii.h"
#include "expr/datetime_pattern.h"
#include "expr/temporal_parsing.h"
#include "storage/aws_config.h"
#include "storage/kinesis_client.h"
#include "storage/path.h"
#include "streaming/metadata_log.h"

namespace tributary::streaming {

namespace {

using Json = nlohmann::json;
using storage::KinesisIteratorStart;
using storage::KinesisRecord;

/// Records per record batch of a GetBatch.
constexpr size_t kKinesisRowsPerBatch = size_t{64} * 1024;

/// One shard's entry in an offset.
struct KinesisShardPosition {
  /// Where reading goes on: kTrimHorizon, kAtTimestamp or kAfterSequenceNumber.
  KinesisIteratorStart start;
  bool closed = false;
  /// Closed and read to its end: its children may be read.
  bool drained = false;
  std::vector<std::string> parents;
};

/// A shard of one of the query's streams: (stream name, shard id).
using KinesisShardKey = std::pair<std::string, std::string>;

using KinesisPositions = std::map<KinesisShardKey, KinesisShardPosition>;

bool KinesisSameStart(const KinesisIteratorStart& a, const KinesisIteratorStart& b) {
  return a.type == b.type && a.sequence_number == b.sequence_number &&
         a.timestamp_ms == b.timestamp_ms;
}

KinesisIteratorStart KinesisAfter(const std::string& sequence_number) {
  return {KinesisIteratorStart::Type::kAfterSequenceNumber, sequence_number, 0};
}

// Offsets JSON: one stream's shards as {"<shardId>": <entry>, ...}; several streams' as
// {"<stream>": {"<shardId>": <entry>, ...}, ...}. A one-stream query keeps the flat form, so its
// checkpoints read as before.
std::string KinesisOffsetsToJson(const KinesisPositions& positions,
                                 const std::vector<std::string>& streams) {
  Json doc = Json::object();
  for (const auto& [key, position] : positions) {
    const auto& [stream, shard_id] = key;
    std::string type = "TRIM_HORIZON";
    std::string where;
    if (position.start.type == KinesisIteratorStart::Type::kAtTimestamp) {
      type = "AT_TIMESTAMP";
      where = std::to_string(position.start.timestamp_ms);
    } else if (position.start.type == KinesisIteratorStart::Type::kAfterSequenceNumber) {
      type = "AFTER_SEQUENCE_NUMBER";
      where = position.start.sequence_number;
    }
    Json entry{{"iteratorType", type},
               {"iteratorPosition", where},
               {"closed", position.closed},
               {"drained", position.drained},
               {"parents", position.parents}};
    if (streams.size() == 1) {
      doc[shard_id] = std::move(entry);
    } else {
      doc[stream][shard_id] = std::move(entry);
    }
  }
  return doc.dump();
}

Result<KinesisPositions> KinesisOffsetsFromJson(const std::string& text,
                                                const std::vector<std::string>& streams) {
  const auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(
        fmt::format("Kinesis source [{}] offset {}: {}", fmt::join(streams, ","), text, why));
  };
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return invalid("not a JSON object");
  }
  KinesisPositions positions;
  // One stream's {"<shardId>": <entry>, ...} into `positions`.
  const auto add_stream = [&](const std::string& stream, const Json& shards) -> Status {
    for (const auto& [shard_id, entry] : shards.items()) {
      if (!entry.is_object() || !entry.value("iteratorType", Json()).is_string() ||
          !entry.value("iteratorPosition", Json()).is_string()) {
        return invalid(fmt::format("shard {} has no iteratorType and iteratorPosition", shard_id));
      }
      KinesisShardPosition position;
      const std::string type = entry["iteratorType"].get<std::string>();
      const std::string where = entry["iteratorPosition"].get<std::string>();
      if (type == "TRIM_HORIZON") {
        position.start.type = KinesisIteratorStart::Type::kTrimHorizon;
      } else if (type == "AT_TIMESTAMP") {
        position.start.type = KinesisIteratorStart::Type::kAtTimestamp;
        const auto [stop, error] =
            std::from_chars(where.data(), where.data() + where.size(), position.start.timestamp_ms);
        if (error != std::errc() || stop != where.data() + where.size()) {
          return invalid(fmt::format("shard {}: AT_TIMESTAMP needs epoch milliseconds", shard_id));
        }
      } else if (type == "AFTER_SEQUENCE_NUMBER" && !where.empty()) {
        position.start = KinesisAfter(where);
      } else {
        return invalid(fmt::format("shard {}: unknown iterator {} '{}'", shard_id, type, where));
      }
      position.closed = entry.value("closed", false);
      position.drained = entry.value("drained", false);
      const Json parents = entry.value("parents", Json::array());
      for (const Json& parent : parents) {
        if (parent.is_string()) {
          position.parents.push_back(parent.get<std::string>());
        }
      }
      positions.emplace(KinesisShardKey{stream, shard_id}, std::move(position));
    }
    return Status::OK();
  };
  if (streams.size() == 1) {
    TRIBUTARY_RETURN_NOT_OK(add_stream(streams.front(), doc));
    return positions;
  }
  for (const auto& [stream, shards] : doc.items()) {
    if (std::find(streams.begin(), streams.end(), stream) == streams.end()) {
      return invalid(fmt::format("stream {} is not one of the query's streams", stream));
    }
    if (!shards.is_object()) {
      return invalid(fmt::format("stream {} does not map shard ids to positions", stream));
    }
    TRIBUTARY_RETURN_NOT_OK(add_stream(stream, shards));
  }
  return positions;
}

/// The records fetched of one shard: records[0] is the first record after `from`.
struct KinesisShardCache {
  KinesisIteratorStart from;
  std::vector<KinesisRecord> records;
  /// Reads on after records.back() (or `from`); empty when none was asked for yet.
  std::string next_iterator;
  /// A closed shard read to its end: nothing comes after records.back().
  bool ended = false;
  int64_t millis_behind_latest = 0;

  /// The index of the first record after `start`, or nullopt when the cache does not reach
  /// back to `start`.
  std::optional<size_t> IndexAfter(const KinesisIteratorStart& start) const {
    if (KinesisSameStart(from, start)) {
      return 0;
    }
    if (start.type != KinesisIteratorStart::Type::kAfterSequenceNumber) {
      return std::nullopt;
    }
    for (size_t i = 0; i < records.size(); ++i) {
      if (records[i].sequence_number == start.sequence_number) {
        return i + 1;
      }
    }
    return std::nullopt;
  }
};

class KinesisSource final : public Source {
 public:
  KinesisSource(KinesisSourceOptions options, std::shared_ptr<storage::KinesisClient> client,
                columnar::SchemaPtr schema, storage::FileSystem* fs, std::string metadata_dir,
                columnar::MemoryPool* pool)
      : options_(std::move(options)),
        client_(std::move(client)),
        schema_(std::move(schema)),
        fs_(fs),
        metadata_dir_(std::move(metadata_dir)),
        pool_(pool) {}

  Result<std::optional<Offset>> LatestOffset(const std::optional<Offset>& start,
                                             bool respect_limits) override {
    TRIBUTARY_ASSIGN_OR_RAISE(KinesisPositions from, StartPositions(start));
    if (available_now_pending_) {
      TRIBUTARY_ASSIGN_OR_RAISE(available_now_end_, Advance(from, /*respect_limits=*/false));
      available_now_pending_ = false;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(KinesisPositions end, Advance(from, respect_limits));
    if (!start.has_value() && std::none_of(end.begin(), end.end(), [](const auto& entry) {
          return entry.second.start.type == KinesisIteratorStart::Type::kAfterSequenceNumber;
        })) {
      return std::optional<Offset>();
    }
    return std::optional<Offset>(KinesisOffsetsToJson(end, Streams()));
  }

  Status PrepareForTriggerAvailableNow() override {
    available_now_pending_ = true;
    return Status::OK();
  }

  Result<plan::ScanSource> GetBatch(const std::optional<Offset>& start,
                                    const Offset& end) override {
    TRIBUTARY_ASSIGN_OR_RAISE(KinesisPositions from, StartPositions(start));
    TRIBUTARY_ASSIGN_OR_RAISE(KinesisPositions to, KinesisOffsetsFromJson(end, Streams()));
    plan::ScanSource source;
    source.kind = plan::ScanSource::Kind::kValues;
    source.schema = schema_;
    source.description = fmt::format("{} {}", Description(), end);
    std::vector<std::pair<const KinesisShardKey*, std::vector<KinesisRecord>>> shards;
    // Shard ids grow with each reshard, so id order puts parents before their children.
    for (const auto& [key, position] : to) {
      if (position.start.type != KinesisIteratorStart::Type::kAfterSequenceNumber) {
        continue;
      }
      KinesisIteratorStart first{KinesisIteratorStart::Type::kTrimHorizon, "", 0};
      if (const auto found = from.find(key); found != from.end()) {
        first = found->second.start;
      }
      if (KinesisSameStart(first, position.start)) {
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<KinesisRecord> records,
                                RecordsBetween(key, first, position.start.sequence_number));
      shards.emplace_back(&key, std::move(records));
    }
    std::vector<std::pair<const KinesisShardKey*, const KinesisRecord*>> rows;
    for (const auto& [key, records] : shards) {
      for (const KinesisRecord& record : records) {
        rows.emplace_back(key, &record);
      }
    }
    for (size_t first = 0; first < rows.size(); first += kKinesisRowsPerBatch) {
      const size_t last = std::min(rows.size(), first + kKinesisRowsPerBatch);
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch, BuildBatch(rows, first, last));
      source.batches.push_back(std::move(batch));
    }
    return source;
  }

  Status Commit(const Offset& end) override {
    TRIBUTARY_ASSIGN_OR_RAISE(KinesisPositions to, KinesisOffsetsFromJson(end, Streams()));
    for (const auto& [key, position] : to) {
      auto cache = caches_.find(key);
      if (cache == caches_.end()) {
        continue;
      }
      if (position.drained) {
        caches_.erase(cache);
        continue;
      }
      const std::optional<size_t> index = cache->second.IndexAfter(position.start);
      if (index.has_value()) {
        auto& records = cache->second.records;
        records.erase(records.begin(), records.begin() + static_cast<ptrdiff_t>(*index));
        cache->second.from = position.start;
      }
    }
    return Status::OK();
  }

  std::map<std::string, std::string> Metrics() const override {
    if (caches_.empty()) {
      return {};
    }
    int64_t min = std::numeric_limits<int64_t>::max();
    int64_t max = 0;
    int64_t sum = 0;
    for (const auto& [key, cache] : caches_) {
      min = std::min(min, cache.millis_behind_latest);
      max = std::max(max, cache.millis_behind_latest);
      sum += cache.millis_behind_latest;
    }
    return {{"avgMsBehindLatest",
             fmt::format("{:.1f}", static_cast<double>(sum) / static_cast<double>(caches_.size()))},
            {"maxMsBehindLatest", std::to_string(max)},
            {"minMsBehindLatest", std::to_string(min)}};
  }

 private:
  const std::vector<std::string>& Streams() const { return options_.stream_names; }
  std::string Description() const {
    return fmt::format("KinesisSource[{}]", fmt::join(Streams(), ","));
  }
  // "shard <id>", with its stream when the query reads several.
  std::string ShardName(const KinesisShardKey& key) const {
    return Streams().size() == 1 ? fmt::format("shard {}", key.second)
                                 : fmt::format("stream {} shard {}", key.first, key.second);
  }

  /// Every shard listed now at initialPosition: the positions a query's first batch starts
  /// from, before they are pinned.
  Result<KinesisPositions> FirstPositions() {
    KinesisIteratorStart first{KinesisIteratorStart::Type::kTrimHorizon, "", 0};
    if (options_.initial_position == "at_timestamp") {
      first = {KinesisIteratorStart::Type::kAtTimestamp, "", *options_.at_timestamp_ms};
    } else if (options_.initial_position == "latest") {
      // LATEST as the arrival time now: unlike a LATEST iterator, it reads the same records
      // again after a restart.
      first = {KinesisIteratorStart::Type::kAtTimestamp, "",
               std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count()};
    }
    KinesisPositions positions;
    for (const std::string& stream : Streams()) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::KinesisShard> shards,
                                client_->ListShards(stream));
      for (const storage::KinesisShard& shard : shards) {
        positions[{stream, shard.shard_id}] =
            KinesisShardPosition{first, shard.Closed(), false, {}};
      }
    }
    return positions;
  }

  /// The positions of `start`, or the pinned initial positions (pinned now on the first call).
  Result<KinesisPositions> StartPositions(const std::optional<Offset>& start) {
    if (start.has_value()) {
      return KinesisOffsetsFromJson(*start, Streams());
    }
    if (initial_.has_value()) {
      return *initial_;
    }
    const std::string path = storage::JoinPath(metadata_dir_, "0");
    TRIBUTARY_ASSIGN_OR_RAISE(
        const std::optional<std::string> line,
        PinLogLine(*fs_, path, "the starting positions",
                   [this]() -> Result<std::optional<std::string>> {
                     TRIBUTARY_ASSIGN_OR_RAISE(KinesisPositions positions, FirstPositions());
                     return std::optional<std::string>(KinesisOffsetsToJson(positions, Streams()));
                   }));
    auto parsed = KinesisOffsetsFromJson(line.value_or(""), Streams());
    if (!parsed.ok()) {
      return Status::Corruption(fmt::format("{} line 2: {}", path, parsed.status().Message()));
    }
    initial_ = std::move(*parsed);
    return *initial_;
  }

  /// The positions after reading on from `from`: the shards listed now (new ones from
  /// TRIM_HORIZON; shards gone past the retention period dropped), each read up to what it
  /// holds now, a shard only once its parents are drained, at most maxRecordsPerFetch records
  /// per shard with `respect_limits`, never past a Trigger.AvailableNow end.
  Result<KinesisPositions> Advance(const KinesisPositions& from, bool respect_limits) {
    std::vector<std::pair<KinesisShardKey, storage::KinesisShard>> listed;
    for (const std::string& stream : Streams()) {
      TRIBUTARY_ASSIGN_OR_RAISE(std::vector<storage::KinesisShard> shards,
                                client_->ListShards(stream));
      for (storage::KinesisShard& shard : shards) {
        KinesisShardKey key{stream, shard.shard_id};
        listed.emplace_back(std::move(key), std::move(shard));
      }
    }
    KinesisPositions next;
    for (const auto& [key, shard] : listed) {
      KinesisShardPosition position;
      if (const auto found = from.find(key); found != from.end()) {
        position = found->second;
      }
      position.closed = shard.Closed();
      position.parents.clear();
      for (const std::string* parent : {&shard.parent_shard_id, &shard.adjacent_parent_shard_id}) {
        if (!parent->empty()) {
          position.parents.push_back(*parent);
        }
      }
      next[key] = std::move(position);
    }
    for (const auto& [key, position] : from) {
      if (!next.contains(key) && !position.drained) {
        std::fprintf(stderr,
                     "%s: %s is no longer listed (past the retention period?); records "
                     "after %s were not read\n",
                     Description().c_str(), ShardName(key).c_str(),
                     position.start.ToString().c_str());
      }
    }
    std::map<KinesisShardKey, std::string> ending;
    for (const auto& [key, shard] : listed) {
      ending[key] = shard.ending_sequence_number;
    }
    for (auto& [key, position] : next) {
      if (position.drained) {
        continue;
      }
      const std::string& stream = key.first;  // a lambda cannot capture a structured binding
      const bool parents_drained =
          std::all_of(position.parents.begin(), position.parents.end(), [&](const auto& parent) {
            const auto found = next.find(KinesisShardKey{stream, parent});
            return found == next.end() || found->second.drained;
          });
      if (!parents_drained) {
        continue;
      }
      std::optional<std::string> cap;
      if (available_now_end_.has_value()) {
        const auto pinned = available_now_end_->find(key);
        if (pinned == available_now_end_->end() ||
            pinned->second.start.type != KinesisIteratorStart::Type::kAfterSequenceNumber) {
          continue;
        }
        cap = pinned->second.start.sequence_number;
      }
      TRIBUTARY_RETURN_NOT_OK(ReadAhead(key, &position, respect_limits, cap));
      // A closed shard is drained once read to its end: the last GetRecords had no next
      // iterator, or its last sequence number was read.
      const KinesisShardCache& cache = caches_[key];
      const bool at_end = cache.records.empty() ||
                          cache.records.back().sequence_number == position.start.sequence_number;
      const std::string& last = ending[key];
      position.drained =
          position.closed &&
          ((cache.ended && at_end) ||
           (!last.empty() &&
            position.start.type == KinesisIteratorStart::Type::kAfterSequenceNumber &&
            storage::CompareKinesisSequenceNumbers(position.start.sequence_number, last) >= 0));
    }
    return next;
  }

  /// The cache of shard `key` reaching back to `start`: the kept one, or a new empty one.
  KinesisShardCache& CacheFrom(const KinesisShardKey& key, const KinesisIteratorStart& start) {
    KinesisShardCache& cache = caches_[key];
    const std::optional<size_t> index = cache.IndexAfter(start);
    if (!index.has_value()) {
      cache = KinesisShardCache{start, {}, "", false, 0};
    }
    return cache;
  }

  /// Reads on into the cache of shard `key` from `position` and moves `position` to the last
  /// record it may include.
  Status ReadAhead(const KinesisShardKey& key, KinesisShardPosition* position, bool respect_limits,
                   const std::optional<std::string>& cap) {
    KinesisShardCache& cache = CacheFrom(key, position->start);
    const size_t first = *cache.IndexAfter(position->start);
    const size_t wanted = respect_limits ? static_cast<size_t>(options_.max_records_per_fetch)
                                         : std::numeric_limits<size_t>::max();
    if (cache.records.size() - first < wanted &&
        !(cap.has_value() && !cache.records.empty() &&
          storage::CompareKinesisSequenceNumbers(cache.records.back().sequence_number, *cap) >=
              0)) {
      TRIBUTARY_RETURN_NOT_OK(Fetch(key, &cache, wanted - (cache.records.size() - first), cap));
    }
    size_t last = first;
    while (last < cache.records.size() && last - first < wanted &&
           (!cap.has_value() || storage::CompareKinesisSequenceNumbers(
                                    cache.records[last].sequence_number, *cap) <= 0)) {
      ++last;
    }
    if (last > first) {
      position->start = KinesisAfter(cache.records[last - 1].sequence_number);
    }
    return Status::OK();
  }

  /// GetRecords on from the cache's end until the shard is caught up (or ended), `budget` new
  /// records were fetched, or a record at or past `until` arrived.
  Status Fetch(const KinesisShardKey& key, KinesisShardCache* cache, size_t budget,
               const std::optional<std::string>& until) {
    size_t fetched = 0;
    while (!cache->ended && fetched < budget) {
      if (cache->next_iterator.empty()) {
        TRIBUTARY_ASSIGN_OR_RAISE(
            cache->next_iterator,
            client_->GetShardIterator(key.first, key.second,
                                      cache->records.empty()
                                          ? cache->from
                                          : KinesisAfter(cache->records.back().sequence_number)));
      }
      const int64_t limit =
          std::min<int64_t>(options_.max_records_per_fetch,
                            static_cast<int64_t>(std::min<size_t>(budget - fetched, 10000)));
      bool expired = false;
      Result<storage::KinesisRecordsPage> page =
          client_->GetRecords(key.first, key.second, cache->next_iterator, limit, &expired);
      if (!page.ok() && expired) {
        cache->next_iterator.clear();  // iterators live 5 minutes: get a new one
        continue;
      }
      TRIBUTARY_RETURN_NOT_OK(page.status());
      const size_t received = page->records.size();
      fetched += received;
      cache->millis_behind_latest = page->millis_behind_latest;
      for (KinesisRecord& record : page->records) {
        cache->records.push_back(std::move(record));
      }
      cache->next_iterator = std::move(page->next_iterator);
      if (cache->next_iterator.empty()) {
        cache->ended = true;
      }
      if (until.has_value() && !cache->records.empty() &&
          storage::CompareKinesisSequenceNumbers(cache->records.back().sequence_number, *until) >=
              0) {
        break;
      }
      // Caught up: nothing behind, and a page shorter than asked for.
      if (page->millis_behind_latest == 0 && static_cast<int64_t>(received) < limit) {
        break;
      }
    }
    return Status::OK();
  }

  /// The records of shard `key` after `first` up to and including sequence number `last`.
  Result<std::vector<KinesisRecord>> RecordsBetween(const KinesisShardKey& key,
                                                    const KinesisIteratorStart& first,
                                                    const std::string& last) {
    KinesisShardCache& cache = CacheFrom(key, first);
    const size_t index = *cache.IndexAfter(first);
    const auto reached = [&] {
      return !cache.records.empty() && storage::CompareKinesisSequenceNumbers(
                                           cache.records.back().sequence_number, last) >= 0;
    };
    if (!reached()) {
      TRIBUTARY_RETURN_NOT_OK(Fetch(key, &cache, std::numeric_limits<size_t>::max(), last));
    }
    std::vector<KinesisRecord> records;
    for (size_t i = index; i < cache.records.size(); ++i) {
      if (storage::CompareKinesisSequenceNumbers(cache.records[i].sequence_number, last) > 0) {
        break;
      }
      records.push_back(cache.records[i]);
      if (cache.records[i].sequence_number == last) {
        return records;
      }
    }
    return Status::IOError(fmt::format(
        "{} {}: the records after {} up to sequence number {} can no longer be read (past "
        "the stream's retention period?)",
        Description(), ShardName(key), first.ToString(), last));
  }

  Result<columnar::RecordBatchPtr> BuildBatch(
      const std::vector<std::pair<const KinesisShardKey*, const KinesisRecord*>>& rows,
      size_t first, size_t last) const {
    columnar::ColumnBuilder keys(columnar::DataType::String(), pool_);
    columnar::ColumnBuilder data(columnar::DataType::Binary(), pool_);
    columnar::ColumnBuilder streams(columnar::DataType::String(), pool_);
    columnar::ColumnBuilder shard_ids(columnar::DataType::String(), pool_);
    columnar::ColumnBuilder sequence_numbers(columnar::DataType::String(), pool_);
    columnar::ColumnBuilder arrivals(columnar::DataType::Timestamp(), pool_);
    arrivals.Reserve(static_cast<int64_t>(last - first));
    for (size_t i = first; i < last; ++i) {
      const KinesisRecord& record = *rows[i].second;
      keys.AppendBytes(record.partition_key);
      data.AppendBytes(record.data);
      streams.AppendBytes(rows[i].first->first);
      shard_ids.AppendBytes(rows[i].first->second);
      sequence_numbers.AppendBytes(record.sequence_number);
      arrivals.AppendInt(record.approximate_arrival_micros);
    }
    std::vector<columnar::ColumnPtr> columns;
    for (columnar::ColumnBuilder* builder :
         {&keys, &data, &streams, &shard_ids, &sequence_numbers, &arrivals}) {
      TRIBUTARY_ASSIGN_OR_RAISE(columnar::ColumnPtr column, builder->Finish());
      columns.push_back(std::move(column));
    }
    return columnar::RecordBatch::Make(schema_, static_cast<int64_t>(last - first),
                                       std::move(columns));
  }

  const KinesisSourceOptions options_;
  const std::shared_ptr<storage::KinesisClient> client_;
  const columnar::SchemaPtr schema_;
  storage::FileSystem* const fs_;
  const std::string metadata_dir_;
  columnar::MemoryPool* const pool_;
  std::optional<KinesisPositions> initial_;
  std::map<KinesisShardKey, KinesisShardCache> caches_;
  bool available_now_pending_ = false;
  std::optional<KinesisPositions> available_now_end_;
};

Result<int64_t> KinesisAtTimestampMs(const std::string& text) {
  const auto invalid = [&](std::string_view why) {
    return Status::InvalidArgument(fmt::format(
        "Invalid value '{}' of option 'initialPosition': {} (expected latest, trim_horizon, "
        "earliest or {{\"at_timestamp\": \"<time>\", \"format\": \"<pattern>\"}})",
        text, why));
  };
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || !doc.value("at_timestamp", Json()).is_string()) {
    return invalid("no at_timestamp");
  }
  const std::string time = doc["at_timestamp"].get<std::string>();
  int64_t micros = 0;
  bool parsed = false;
  if (doc.contains("format")) {
    if (!doc["format"].is_string()) {
      return invalid("format is not a string");
    }
    TRIBUTARY_ASSIGN_OR_RAISE(expr::DateTimePattern pattern,
                              expr::DateTimePattern::Compile(doc["format"].get<std::string>()));
    parsed = pattern.ParseTimestamp(time, expr::TimeZone(), /*ntz=*/false, &micros);
  } else {
    parsed = expr::ParseTimestamp(time, expr::TimeZone(), /*ntz=*/false, &micros);
  }
  if (!parsed) {
    return invalid(fmt::format("'{}' is not a timestamp", time));
  }
  return micros / 1000;
}

}  // namespace

SourceOptionKeys KinesisSourceOptionKeys() {
  return {{"streamName", "region", "endpoint", "initialPosition", "maxRecordsPerFetch",
           "awsAccessKey", "awsSecretKey", "awsSessionToken"},
          {"streamARN", "serviceCredential", "roleArn", "roleExternalId", "roleSessionName",
           "stsEndpoint", "maxFetchRate", "minFetchPeriod", "maxFetchDuration", "fetchBufferSize",
           "shardsPerTask", "shardFetchInterval", "coalesceThresholdBlockSize", "coalesceBinSize",
           "consumerMode", "consumerName", "requireConsumerDeregistration"},
          /*allow_cloud_files_prefix=*/false};
}

Result<KinesisSourceOptions> KinesisSourceOptions::FromMap(
    const std::map<std::string, std::string>& options) {
  TRIBUTARY_RETURN_NOT_OK(
      ValidateSourceOptions(options, "the Kinesis source", KinesisSourceOptionKeys()));
  KinesisSourceOptions out;
  const std::string* stream = formats::FindOption(options, "streamName");
  if (stream == nullptr) {
    return Status::InvalidArgument("the Kinesis source needs the option 'streamName'");
  }
  // A comma-separated list of one or more streams, as Databricks reads it; each read once.
  for (std::string& name : SplitCommaList(*stream)) {
    if (std::find(out.stream_names.begin(), out.stream_names.end(), name) ==
        out.stream_names.end()) {
      out.stream_names.push_back(std::move(name));
    }
  }
  if (out.stream_names.empty()) {
    return Status::InvalidArgument(
        fmt::format("option 'streamName' = '{}': no stream name in it", *stream));
  }
  if (const std::string* region = formats::FindOption(options, "region")) {
    out.region = *region;
  }
  if (const std::string* endpoint = formats::FindOption(options, "endpoint")) {
    out.endpoint = *endpoint;
  }
  if (const std::string* position = formats::FindOption(options, "initialPosition")) {
    const std::string lower = AsciiLower(*position);
    if (lower == "latest" || lower == "trim_horizon") {
      out.initial_position = lower;
    } else if (lower == "earliest") {
      out.initial_position = "trim_horizon";
    } else {
      TRIBUTARY_ASSIGN_OR_RAISE(out.at_timestamp_ms, KinesisAtTimestampMs(*position));
      out.initial_position = "at_timestamp";
    }
  }
  if (const std::string* fetch = formats::FindOption(options, "maxRecordsPerFetch")) {
    int64_t value = 0;
    const auto [stop, error] = std::from_chars(fetch->data(), fetch->data() + fetch->size(), value);
    if (error != std::errc() || stop != fetch->data() + fetch->size() || value < 1 ||
        value > 10000) {
      return Status::InvalidArgument(fmt::format(
          "Invalid value '{}'. The option 'maxRecordsPerFetch' must be an integer in 1..10000",
          *fetch));
    }
    out.max_records_per_fetch = value;
  }
  for (const char* key : {"awsAccessKey", "awsSecretKey", "awsSessionToken"}) {
    if (const std::string* value = formats::FindOption(options, key)) {
      out.credentials[key] = *value;
    }
  }
  if (out.credentials.contains("awsAccessKey") != out.credentials.contains("awsSecretKey")) {
    return Status::InvalidArgument(
        "the Kinesis source needs 'awsAccessKey' and 'awsSecretKey' together");
  }
  return out;
}

columnar::SchemaPtr KinesisSchema() {
  return std::make_shared<const columnar::Schema>(std::vector<columnar::Field>{
      columnar::Field("partitionKey", columnar::DataType::String()),
      columnar::Field("data", columnar::DataType::Binary()),
      columnar::Field("stream", columnar::DataType::String()),
      columnar::Field("shardId", columnar::DataType::String()),
      columnar::Field("sequenceNumber", columnar::DataType::String()),
      columnar::Field("approximateArrivalTimestamp", columnar::DataType::Timestamp())});
}

KinesisSourceDefinition::KinesisSourceDefinition(KinesisSourceOptions options,
                                                 std::map<std::string, std::string> session_config)
    : options_(std::move(options)),
      session_config_(std::move(session_config)),
      schema_(KinesisSchema()) {}

Result<std::shared_ptr<const KinesisSourceDefinition>> KinesisSourceDefinition::Make(
    const std::map<std::string, std::string>& options,
    const std::map<std::string, std::string>& session_config) {
  TRIBUTARY_ASSIGN_OR_RAISE(KinesisSourceOptions parsed, KinesisSourceOptions::FromMap(options));
  return std::shared_ptr<const KinesisSourceDefinition>(
      new KinesisSourceDefinition(std::move(parsed), session_config));
}

std::string KinesisSourceDefinition::Description() const {
  return fmt::format("KinesisSource[{}]", fmt::join(options_.stream_names, ","));
}

std::string KinesisSourceDefinition::Identity() const {
  return fmt::format("kinesis:{}", fmt::join(options_.stream_names, ","));
}

Result<std::unique_ptr<Source>> KinesisSourceDefinition::Open(const SourceContext& context) const {
  if (context.fs == nullptr) {
    return Status::InvalidArgument(fmt::format("{}: no file system to open it on", Description()));
  }
  Result<storage::S3Config> resolved = storage::ResolveS3Config(session_config_);
  if (!resolved.ok()) {
    return resolved.status().WithContext(Description());
  }
  storage::S3Config config = std::move(*resolved);
  if (options_.region.has_value()) {
    config.region = *options_.region;
  }
  if (options_.endpoint.has_value()) {
    config.endpoint = *options_.endpoint;
  } else if (std::optional<std::string> kinesis =
                 storage::ProcessGetEnv("AWS_ENDPOINT_URL_KINESIS");
             kinesis.has_value() && !kinesis->empty()) {
    config.endpoint = *kinesis;
  }
  if (const auto key = options_.credentials.find("awsAccessKey");
      key != options_.credentials.end()) {
    config.credentials.access_key_id = key->second;
    config.credentials.secret_access_key = options_.credentials.at("awsSecretKey");
    const auto token = options_.credentials.find("awsSessionToken");
    config.credentials.session_token =
        token != options_.credentials.end() ? token->second : std::string();
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto client, storage::KinesisClient::Make(std::move(config)));
  return std::unique_ptr<Source>(std::make_unique<KinesisSource>(
      options_, std::move(client), schema_, context.fs, context.metadata_dir, context.eval.pool));
}

}  // namespace tributary::streaming
