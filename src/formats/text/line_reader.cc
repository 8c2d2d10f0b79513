#include "formats/text/line_reader.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>

namespace tributary::text {

size_t BomLength(std::string_view data) {
  return data.size() >= 3 && data.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
}

namespace {

// The buffer of the last LineReader that ended on this thread, for the next one. A scan reads
// its files one after another on one thread: a fresh buffer per file would come from memory the
// batches built from the previous file have taken meanwhile, so every read() would fault in and
// write cold pages (a tenth of a JSON scan's time), where a reused one stays mapped and cached.
struct SpareLineBuffer {
  std::unique_ptr<char[]> data;
  size_t capacity = 0;
};
thread_local SpareLineBuffer spare_line_buffer;

// A spare is taken when it holds at least this much (or the whole wanted size): smaller only
// means more reads, never a line handed out differently.
constexpr size_t kMinReusedCapacity = size_t{256} << 10;
// Larger buffers (grown for long lines) are freed instead of being kept by the thread.
constexpr size_t kMaxSpareCapacity = size_t{16} << 20;

}  // namespace

LineReader::LineReader(std::unique_ptr<InputStream> input, size_t chunk_size, LineOptions options)
    : input_(std::move(input)),
      options_(options),
      capacity_(std::max<size_t>(
          options.max_length > 0 ? std::min(chunk_size, options.max_length + 1) : chunk_size, 64)) {
  SpareLineBuffer& spare = spare_line_buffer;
  if (spare.data != nullptr && spare.capacity >= std::min(capacity_, kMinReusedCapacity)) {
    buffer_ = std::move(spare.data);
    capacity_ = spare.capacity;
    spare.capacity = 0;
  } else {
    buffer_ = std::make_unique_for_overwrite<char[]>(capacity_ + kLinePadding);
  }
  std::memset(buffer_.get(), ' ', kLinePadding);
}

LineReader::~LineReader() {
  SpareLineBuffer& spare = spare_line_buffer;
  if (buffer_ != nullptr && capacity_ <= kMaxSpareCapacity && capacity_ > spare.capacity) {
    spare.data = std::move(buffer_);
    spare.capacity = capacity_;
  }
}

bool LineReader::Refill() {
  if (begin_ > 0) {
    std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
    base_ += static_cast<int64_t>(begin_);
    end_ -= begin_;
    scan_ -= begin_;
    begin_ = 0;
  }
  if (end_ == capacity_) {
    capacity_ *= 2;
    auto grown = std::make_unique_for_overwrite<char[]>(capacity_ + kLinePadding);
    std::memcpy(grown.get(), buffer_.get(), end_);
    buffer_ = std::move(grown);
  }
  auto n = input_->Read(std::span<char>(buffer_.get() + end_, capacity_ - end_));
  if (!n.ok()) {
    status_ = n.status();
    return false;
  }
  eof_ = *n == 0;
  end_ += *n;
  std::memset(buffer_.get() + end_, ' ', kLinePadding);
  return true;
}

void LineReader::Emit(size_t stop, Line* line) {
  size_t length = stop - begin_;
  if (options_.separator == '\n' && length > 0 && buffer_[begin_ + length - 1] == '\r') {
    --length;
  }
  line->text = std::string_view(buffer_.get() + begin_, length);
  line->offset = Position();
  line->truncated = false;
}

bool LineReader::Next(Line* line) {
  const char separator = options_.separator;
  while (true) {
    if (skipping_) {
      // The rest of an overlong line: dropped as it arrives, never buffered.
      const void* found =
          scan_ < end_ ? std::memchr(buffer_.get() + scan_, separator, end_ - scan_) : nullptr;
      if (found != nullptr) {
        begin_ = scan_ = static_cast<size_t>(static_cast<const char*>(found) - buffer_.get()) + 1;
        skipping_ = false;
      } else {
        begin_ = scan_ = end_;
        if (eof_ || !status_.ok() || !Refill()) {
          return false;
        }
        continue;
      }
    }
    if (scan_ < end_) {
      const void* newline = std::memchr(buffer_.get() + scan_, separator, end_ - scan_);
      if (newline != nullptr) {
        const size_t stop = static_cast<size_t>(static_cast<const char*>(newline) - buffer_.get());
        if (options_.max_length == 0 || stop - begin_ <= options_.max_length) {
          Emit(stop, line);
          begin_ = scan_ = stop + 1;
          break;
        }
      }
      scan_ = end_;
    }
    if (options_.max_length > 0 && end_ - begin_ > options_.max_length) {
      // Too long: hand out its head and skip the rest up to the next separator.
      line->text = std::string_view(buffer_.get() + begin_, options_.max_length);
      line->offset = Position();
      line->truncated = true;
      scan_ = begin_ + options_.max_length;
      skipping_ = true;
      // The head stays in the buffer until the next call; skipping starts after it.
      break;
    }
    if (eof_ || !status_.ok()) {
      if (begin_ == end_ || !status_.ok()) {
        return false;
      }
      Emit(end_, line);
      begin_ = scan_ = end_;
      break;
    }
    if (!Refill()) {
      return false;
    }
  }
  line->number = ++number_;
  if (line->offset == 0) {
    const size_t bom = BomLength(line->text);
    line->text.remove_prefix(bom);
    line->offset = static_cast<int64_t>(bom);
  }
  return true;
}

bool IsBlank(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      return false;
    }
  }
  return true;
}

}  // namespace tributary::text
