// The key-value state a stateful streaming operator keeps across micro-batches, as exec sees
// it: one partition of one operator's state at one version. exec's stateful operators read and
// update it during a batch; the `state` layer implements it (RocksDB, versioned, durable in the
// checkpoint) and the streaming layer opens version N-1 before batch N and commits version N
// only together with the batch, so exec never sees versions, files or commits.
//
// Keys and values are opaque bytes to the store. The operators encode them with the grouping
// encoding of exec/row_key.h (decodable, documented there), prefixed by a format version
// byte, so a tool can print what a query remembers.

#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "tributary/result.h"

namespace tributary::exec {

/// One version of one partition of an operator's state, being updated by one batch. Reads see
/// the version loaded plus this batch's own writes. Not thread-safe: one operator task uses one
/// partition's store at a time (partitions run in parallel once the scheduler exists).
class StateStore {
 public:
  virtual ~StateStore() = default;
  /// The value of `key`, or nullopt when absent.
  virtual Result<std::optional<std::string>> Get(std::string_view key) = 0;
  /// Inserts or replaces.
  virtual Status Put(std::string_view key, std::string_view value) = 0;
  /// Removes `key`; removing an absent key is not an error.
  virtual Status Remove(std::string_view key) = 0;
  /// As Put, for a caller that knows whether `key` holds a value in this version (it read it
  /// earlier in this batch): a store may trust `exists` instead of looking the key up to keep
  /// its key count. A wrong `exists` miscounts NumKeys.
  virtual Status PutKnown(std::string_view key, std::string_view value, bool /*exists*/) {
    return Put(key, value);
  }
  /// As Remove, for a key the caller knows holds a value (ForEach is visiting it).
  virtual Status RemoveExisting(std::string_view key) { return Remove(key); }
  /// Calls `visit` on every key and value, in byte order of the keys; stops at the first error
  /// `visit` returns and returns it. Writes made by `visit` are allowed (eviction removes the
  /// key it is visiting) and are not seen by this iteration.
  virtual Status ForEach(
      const std::function<Status(std::string_view key, std::string_view value)>& visit) = 0;
  /// How many keys this version holds.
  virtual int64_t NumKeys() const = 0;
  /// Bytes held in memory for this store (block cache share, memtables), for progress.
  virtual int64_t MemoryUsedBytes() const = 0;
};

}  // namespace tributary::exec
