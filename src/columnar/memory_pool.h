// Memory for column data: pools that count bytes, and the buffers they hand out.
//
// Every buffer of column data is allocated from a MemoryPool so that a query, and each
// operator within it, knows how much memory it holds; a pool with a limit refuses allocations
// past it, which is where spilling and memory errors start.

#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "tributary/result.h"

namespace tributary::columnar {

/// Allocation alignment of every pool, and the padding added to every buffer, in bytes: wide
/// enough for AVX-512 loads past the last value.
inline constexpr int64_t kBufferAlignment = 64;

/// Hands out aligned memory and counts it.
///
/// Thread-safety: all methods may be called concurrently.
class MemoryPool {
 public:
  virtual ~MemoryPool() = default;

  /// `size` bytes aligned to kBufferAlignment, uninitialised; an error when the pool's limit or
  /// the system refuses.
  virtual Result<uint8_t*> Allocate(int64_t size) = 0;
  /// Grows or shrinks an allocation, keeping its first min(old_size, new_size) bytes. On error
  /// the old allocation is unchanged.
  virtual Result<uint8_t*> Reallocate(uint8_t* data, int64_t old_size, int64_t new_size) = 0;
  /// Returns memory from Allocate/Reallocate of this pool; `size` is its current size.
  virtual void Free(uint8_t* data, int64_t size) = 0;

  /// Bytes currently allocated through this pool.
  virtual int64_t BytesAllocated() const = 0;
  /// Highest BytesAllocated() seen.
  virtual int64_t PeakBytesAllocated() const = 0;
};

/// The process-wide pool, without limit. Never destroyed.
MemoryPool* DefaultMemoryPool();

/// A pool that counts its own bytes, refuses to exceed `limit_bytes`, and forwards to a parent
/// pool (which counts them too), so a query pool can have one child per operator.
class TrackingMemoryPool final : public MemoryPool {
 public:
  /// `name` appears in limit errors ("query 7 / hash aggregate"). The parent must outlive this
  /// pool. Default limit: none.
  explicit TrackingMemoryPool(std::string name, MemoryPool* parent = DefaultMemoryPool(),
                              int64_t limit_bytes = INT64_MAX);
  ~TrackingMemoryPool() override = default;
  TrackingMemoryPool(const TrackingMemoryPool&) = delete;
  TrackingMemoryPool& operator=(const TrackingMemoryPool&) = delete;

  Result<uint8_t*> Allocate(int64_t size) override;
  Result<uint8_t*> Reallocate(uint8_t* data, int64_t old_size, int64_t new_size) override;
  void Free(uint8_t* data, int64_t size) override;
  int64_t BytesAllocated() const override { return bytes_.load(std::memory_order_relaxed); }
  int64_t PeakBytesAllocated() const override { return peak_.load(std::memory_order_relaxed); }

 private:
  Status Reserve(int64_t delta);
  void Release(int64_t delta);

  const std::string name_;
  MemoryPool* const parent_;
  const int64_t limit_bytes_;
  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> peak_{0};
};

/// A contiguous, pool-allocated byte range with spare padding after `size()`; owns its memory.
/// Immutable once shared between columns (`std::shared_ptr<const Buffer>`).
///
/// Thread-safety: const methods may be called concurrently; mutation needs exclusive access.
class Buffer {
 public:
  /// A buffer of `size` zeroed bytes. The pool must outlive the buffer.
  static Result<std::unique_ptr<Buffer>> Allocate(int64_t size,
                                                  MemoryPool* pool = DefaultMemoryPool());
  /// A buffer of `size` bytes whose contents are unspecified (only the padding past `size` is
  /// zeroed), for callers that overwrite every byte: saves a pass over memory.
  static Result<std::unique_ptr<Buffer>> AllocateUninitialized(
      int64_t size, MemoryPool* pool = DefaultMemoryPool());
  /// A buffer holding a copy of `bytes`.
  static Result<std::unique_ptr<Buffer>> CopyOf(std::string_view bytes,
                                                MemoryPool* pool = DefaultMemoryPool());
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  /// Changes size() to `new_size`; grows capacity geometrically, zeroing new bytes.
  Status Resize(int64_t new_size);
  /// Like Resize, but bytes between the old and the new size are unspecified, for callers that
  /// write them next: growing touches no memory the caller does not write.
  Status ResizeUninitialized(int64_t new_size);

  const uint8_t* data() const { return data_; }
  uint8_t* mutable_data() { return data_; }
  int64_t size() const { return size_; }
  int64_t Capacity() const { return capacity_; }

  template <typename T>
  const T* DataAs() const {
    return reinterpret_cast<const T*>(data_);
  }
  template <typename T>
  T* MutableDataAs() {
    return reinterpret_cast<T*>(data_);
  }
  std::string_view View() const {
    return {reinterpret_cast<const char*>(data_), static_cast<size_t>(size_)};
  }

 private:
  Buffer(MemoryPool* pool, uint8_t* data, int64_t size, int64_t capacity)
      : pool_(pool), data_(data), size_(size), capacity_(capacity) {}

  MemoryPool* pool_;
  uint8_t* data_;
  int64_t size_;
  int64_t capacity_;
};

using BufferPtr = std::shared_ptr<const Buffer>;

}  // namespace tributary::columnar
