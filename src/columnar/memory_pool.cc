#include "columnar/memory_pool.h"

#include <malloc.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

namespace tributary::columnar {
namespace {

int64_t PaddedSize(int64_t size) {
  return (std::max<int64_t>(size, 1) + kBufferAlignment - 1) / kBufferAlignment * kBufferAlignment;
}

class SystemMemoryPool final : public MemoryPool {
 public:
  Result<uint8_t*> Allocate(int64_t size) override {
    if (size < 0) {
      return Status::InvalidArgument(fmt::format("negative allocation of {} bytes", size));
    }
    void* data = std::aligned_alloc(kBufferAlignment, static_cast<size_t>(PaddedSize(size)));
    if (data == nullptr) {
      return Status::IOError(fmt::format("out of memory allocating {} bytes", size));
    }
    Count(size);
    return static_cast<uint8_t*>(data);
  }

  Result<uint8_t*> Reallocate(uint8_t* data, int64_t old_size, int64_t new_size) override {
    TRIBUTARY_ASSIGN_OR_RAISE(uint8_t * fresh, Allocate(new_size));
    if (data != nullptr) {
      std::memcpy(fresh, data, static_cast<size_t>(std::min(old_size, new_size)));
      Free(data, old_size);
    }
    return fresh;
  }

  void Free(uint8_t* data, int64_t size) override {
    std::free(data);
    bytes_.fetch_sub(size, std::memory_order_relaxed);
  }

  int64_t BytesAllocated() const override { return bytes_.load(std::memory_order_relaxed); }
  int64_t PeakBytesAllocated() const override { return peak_.load(std::memory_order_relaxed); }

 private:
  void Count(int64_t size) {
    int64_t now = bytes_.fetch_add(size, std::memory_order_relaxed) + size;
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
  }

  std::atomic<int64_t> bytes_{0};
  std::atomic<int64_t> peak_{0};
};

}  // namespace

MemoryPool* DefaultMemoryPool() {
  static auto* pool = [] {
    // Column buffers are large and short-lived; glibc would mmap and unmap each one, paying
    // page faults on every batch. Keep them in the heap for reuse instead.
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    return new SystemMemoryPool();  // Never destroyed: buffers may outlive main().
  }();
  return pool;
}

TrackingMemoryPool::TrackingMemoryPool(std::string name, MemoryPool* parent, int64_t limit_bytes)
    : name_(std::move(name)), parent_(parent), limit_bytes_(limit_bytes) {}

Status TrackingMemoryPool::Reserve(int64_t delta) {
  int64_t current = bytes_.load(std::memory_order_relaxed);
  do {
    if (current + delta > limit_bytes_) {
      return Status::IOError(fmt::format(
          "memory limit of pool '{}' exceeded: {} bytes held, {} more requested, limit {}", name_,
          current, delta, limit_bytes_));
    }
  } while (!bytes_.compare_exchange_weak(current, current + delta, std::memory_order_relaxed));
  int64_t now = current + delta;
  int64_t peak = peak_.load(std::memory_order_relaxed);
  while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
  return Status::OK();
}

void TrackingMemoryPool::Release(int64_t delta) {
  bytes_.fetch_sub(delta, std::memory_order_relaxed);
}

Result<uint8_t*> TrackingMemoryPool::Allocate(int64_t size) {
  TRIBUTARY_RETURN_NOT_OK(Reserve(size));
  auto data = parent_->Allocate(size);
  if (!data.ok()) {
    Release(size);
  }
  return data;
}

Result<uint8_t*> TrackingMemoryPool::Reallocate(uint8_t* data, int64_t old_size, int64_t new_size) {
  const int64_t delta = new_size - old_size;
  if (delta > 0) {
    TRIBUTARY_RETURN_NOT_OK(Reserve(delta));
  }
  auto fresh = parent_->Reallocate(data, old_size, new_size);
  if (!fresh.ok()) {
    if (delta > 0) {
      Release(delta);
    }
  } else if (delta < 0) {
    Release(-delta);
  }
  return fresh;
}

void TrackingMemoryPool::Free(uint8_t* data, int64_t size) {
  parent_->Free(data, size);
  Release(size);
}

Result<std::unique_ptr<Buffer>> Buffer::Allocate(int64_t size, MemoryPool* pool) {
  if (size < 0) {
    return Status::InvalidArgument(fmt::format("negative buffer size {}", size));
  }
  const int64_t capacity = PaddedSize(size);
  TRIBUTARY_ASSIGN_OR_RAISE(uint8_t * data, pool->Allocate(capacity));
  std::memset(data, 0, static_cast<size_t>(capacity));
  return std::unique_ptr<Buffer>(new Buffer(pool, data, size, capacity));
}

Result<std::unique_ptr<Buffer>> Buffer::AllocateUninitialized(int64_t size, MemoryPool* pool) {
  if (size < 0) {
    return Status::InvalidArgument(fmt::format("negative buffer size {}", size));
  }
  const int64_t capacity = PaddedSize(size);
  TRIBUTARY_ASSIGN_OR_RAISE(uint8_t * data, pool->Allocate(capacity));
  std::memset(data + size, 0, static_cast<size_t>(capacity - size));
  return std::unique_ptr<Buffer>(new Buffer(pool, data, size, capacity));
}

Result<std::unique_ptr<Buffer>> Buffer::CopyOf(std::string_view bytes, MemoryPool* pool) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto buffer,
                            AllocateUninitialized(static_cast<int64_t>(bytes.size()), pool));
  if (!bytes.empty()) {
    std::memcpy(buffer->mutable_data(), bytes.data(), bytes.size());
  }
  return buffer;
}

Buffer::~Buffer() {
  pool_->Free(data_, capacity_);
}

Status Buffer::Resize(int64_t new_size) {
  const int64_t old_capacity = capacity_;
  TRIBUTARY_RETURN_NOT_OK(ResizeUninitialized(new_size));
  // Bytes between the old size and the old capacity are already zero (the invariant below);
  // only those a reallocation added below the new size are not.
  if (new_size > old_capacity) {
    std::memset(data_ + old_capacity, 0, static_cast<size_t>(new_size - old_capacity));
  }
  return Status::OK();
}

Status Buffer::ResizeUninitialized(int64_t new_size) {
  if (new_size < 0) {
    return Status::InvalidArgument(fmt::format("negative buffer size {}", new_size));
  }
  if (new_size > capacity_) {
    const int64_t new_capacity = PaddedSize(std::max(new_size, capacity_ * 2));
    TRIBUTARY_ASSIGN_OR_RAISE(data_, pool_->Reallocate(data_, capacity_, new_capacity));
    // Bytes past the size stay zero (Resize relies on it); those below it are the caller's.
    std::memset(data_ + new_size, 0, static_cast<size_t>(new_capacity - new_size));
    capacity_ = new_capacity;
  } else if (new_size < size_) {
    std::memset(data_ + new_size, 0, static_cast<size_t>(size_ - new_size));
  }
  size_ = new_size;
  return Status::OK();
}

}  // namespace tributary::columnar
