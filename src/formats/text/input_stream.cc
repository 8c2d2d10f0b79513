#include "formats/text/input_stream.h"

#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace tributary::text {
namespace {

bool EndsWithIgnoreCase(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         strncasecmp(text.data() + text.size() - suffix.size(), suffix.data(), suffix.size()) == 0;
}

// Compressed input is read from its source in chunks of this size.
constexpr size_t kCompressedChunk = size_t{1} << 20;

class FileStream final : public InputStream {
 public:
  FileStream(std::unique_ptr<storage::RandomAccessFile> file, int64_t size)
      : file_(std::move(file)), size_(size) {}
  const std::string& Path() const override { return file_->Path(); }
  Result<size_t> Read(std::span<char> out) override {
    const size_t n =
        static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(out.size()), size_ - position_));
    if (n == 0) {
      return size_t{0};
    }
    TRIBUTARY_RETURN_NOT_OK(file_->ReadInto(position_, out.first(n)));
    position_ += static_cast<int64_t>(n);
    return n;
  }

 private:
  std::unique_ptr<storage::RandomAccessFile> file_;
  const int64_t size_;
  int64_t position_ = 0;
};

class BufferStream final : public InputStream {
 public:
  BufferStream(std::string path, std::string_view data) : path_(std::move(path)), data_(data) {}
  BufferStream(std::string path, std::string owned)
      : path_(std::move(path)), owned_(std::move(owned)), data_(owned_) {}
  const std::string& Path() const override { return path_; }
  Result<size_t> Read(std::span<char> out) override {
    const size_t n = std::min(out.size(), data_.size() - position_);
    std::copy_n(data_.data() + position_, n, out.data());
    position_ += n;
    return n;
  }

 private:
  const std::string path_;
  const std::string owned_;
  const std::string_view data_;
  size_t position_ = 0;
};

// Base of the decompressing streams: refills a chunk of compressed input from `source_`.
class DecompressingStream : public InputStream {
 public:
  explicit DecompressingStream(std::unique_ptr<InputStream> source)
      : source_(std::move(source)), chunk_(kCompressedChunk, '\0') {}
  const std::string& Path() const override { return source_->Path(); }

 protected:
  // Makes compressed input available in [in_pos_, in_size_); false at the end of the source.
  Result<bool> Refill() {
    if (in_pos_ < in_size_) {
      return true;
    }
    consumed_ += static_cast<int64_t>(in_size_);
    TRIBUTARY_ASSIGN_OR_RAISE(in_size_, source_->Read(std::span<char>(chunk_)));
    in_pos_ = 0;
    return in_size_ > 0;
  }
  int64_t CompressedOffset() const { return consumed_ + static_cast<int64_t>(in_pos_); }

  std::unique_ptr<InputStream> source_;
  std::string chunk_;
  size_t in_pos_ = 0;
  size_t in_size_ = 0;
  int64_t consumed_ = 0;
};

class GzipStream final : public DecompressingStream {
 public:
  using DecompressingStream::DecompressingStream;
  ~GzipStream() override {
    if (initialised_) {
      inflateEnd(&stream_);
    }
  }
  GzipStream(const GzipStream&) = delete;
  GzipStream& operator=(const GzipStream&) = delete;

  Result<size_t> Read(std::span<char> out) override {
    if (!initialised_) {
      // 15 + 32: a gzip or zlib header, detected automatically.
      if (inflateInit2(&stream_, 15 + 32) != Z_OK) {
        return Status::Internal(fmt::format("cannot initialise zlib to read {}", Path()));
      }
      initialised_ = true;
    }
    size_t produced = 0;
    while (produced < out.size() && !done_) {
      TRIBUTARY_ASSIGN_OR_RAISE(const bool more, Refill());
      if (!more && !in_member_) {
        done_ = true;
        break;
      }
      if (!in_member_) {
        // Between members: trailing zero bytes (tar-style padding) are skipped.
        while (in_pos_ < in_size_ && chunk_[in_pos_] == '\0') {
          ++in_pos_;
        }
        if (in_pos_ == in_size_) {
          continue;
        }
        if (inflateReset(&stream_) != Z_OK) {
          return Status::Internal(fmt::format("cannot reset zlib reading {}", Path()));
        }
        in_member_ = true;
      }
      stream_.next_in = reinterpret_cast<Bytef*>(chunk_.data() + in_pos_);
      stream_.avail_in = static_cast<uInt>(in_size_ - in_pos_);
      stream_.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
      stream_.avail_out = static_cast<uInt>(std::min<size_t>(out.size() - produced, 1u << 30));
      const uInt avail_out = stream_.avail_out;
      const int rc = inflate(&stream_, Z_NO_FLUSH);
      in_pos_ = in_size_ - stream_.avail_in;
      produced += avail_out - stream_.avail_out;
      if (rc == Z_STREAM_END) {
        in_member_ = false;
      } else if (!more && avail_out == stream_.avail_out) {
        // No input left and nothing more came out: the member never ended.
        return Status::Corruption(
            fmt::format("gzip stream of {} is truncated at compressed byte offset {}", Path(),
                        CompressedOffset()));
      } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
        return Status::Corruption(
            fmt::format("gzip stream of {} is corrupt near compressed byte offset {}: {}", Path(),
                        CompressedOffset(), stream_.msg != nullptr ? stream_.msg : "error"));
      }
    }
    return produced;
  }

 private:
  z_stream stream_{};
  bool initialised_ = false;
  bool in_member_ = false;
  bool done_ = false;
};

class ZstdStream final : public DecompressingStream {
 public:
  explicit ZstdStream(std::unique_ptr<InputStream> source)
      : DecompressingStream(std::move(source)), stream_(ZSTD_createDStream()) {}
  ~ZstdStream() override { ZSTD_freeDStream(stream_); }
  ZstdStream(const ZstdStream&) = delete;
  ZstdStream& operator=(const ZstdStream&) = delete;

  Result<size_t> Read(std::span<char> out) override {
    if (stream_ == nullptr) {
      return Status::Internal(fmt::format("cannot create a zstd stream to read {}", Path()));
    }
    ZSTD_outBuffer output{out.data(), out.size(), 0};
    while (output.pos < output.size && !done_) {
      TRIBUTARY_ASSIGN_OR_RAISE(const bool more, Refill());
      if (!more && !in_frame_) {
        done_ = true;
        break;
      }
      const size_t before = output.pos;
      ZSTD_inBuffer input{chunk_.data(), in_size_, in_pos_};
      const size_t rc = ZSTD_decompressStream(stream_, &output, &input);
      in_pos_ = input.pos;
      if (ZSTD_isError(rc)) {
        return Status::Corruption(
            fmt::format("zstd stream of {} is corrupt near compressed byte offset {}: {}", Path(),
                        CompressedOffset(), ZSTD_getErrorName(rc)));
      }
      in_frame_ = rc != 0;
      if (!more && in_frame_ && output.pos == before) {
        return Status::Corruption(
            fmt::format("zstd stream of {} is truncated at compressed byte offset {}", Path(),
                        CompressedOffset()));
      }
    }
    return output.pos;
  }

 private:
  ZSTD_DStream* stream_;
  bool in_frame_ = false;
  bool done_ = false;
};

std::unique_ptr<InputStream> Wrap(std::unique_ptr<InputStream> source,
                                  InputCompression compression) {
  switch (compression) {
    case InputCompression::kGzip:
      return std::make_unique<GzipStream>(std::move(source));
    case InputCompression::kZstd:
      return std::make_unique<ZstdStream>(std::move(source));
    case InputCompression::kNone:
      break;
  }
  return source;
}

}  // namespace

InputCompression CompressionFromPath(std::string_view path) {
  if (EndsWithIgnoreCase(path, ".gz") || EndsWithIgnoreCase(path, ".gzip")) {
    return InputCompression::kGzip;
  }
  if (EndsWithIgnoreCase(path, ".zst") || EndsWithIgnoreCase(path, ".zstd")) {
    return InputCompression::kZstd;
  }
  return InputCompression::kNone;
}

Result<std::unique_ptr<InputStream>> InputStream::Open(storage::FileSystem& fs,
                                                       const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto file, fs.OpenForRead(path));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t size, file->Size());
  return Wrap(std::make_unique<FileStream>(std::move(file), size), CompressionFromPath(path));
}

std::unique_ptr<InputStream> InputStream::FromBuffer(std::string path, std::string_view data,
                                                     InputCompression compression) {
  return Wrap(std::make_unique<BufferStream>(std::move(path), data), compression);
}

std::unique_ptr<InputStream> InputStream::FromString(std::string path, std::string data,
                                                     InputCompression compression) {
  return Wrap(std::make_unique<BufferStream>(std::move(path), std::move(data)), compression);
}

Status InputStream::ReadAll(std::string* out) {
  size_t chunk = size_t{1} << 20;
  while (true) {
    const size_t start = out->size();
    out->resize(start + chunk);
    auto n = Read(std::span<char>(out->data() + start, chunk));
    if (!n.ok()) {
      out->resize(start);
      return n.status();
    }
    out->resize(start + *n);
    if (*n == 0) {
      return Status::OK();
    }
    chunk = std::min(chunk * 2, size_t{64} << 20);
  }
}

Result<SizedInput> OpenSizedInput(storage::FileSystem& fs, const std::string& path) {
  SizedInput input;
  TRIBUTARY_ASSIGN_OR_RAISE(input.stream, InputStream::Open(fs, path));
  if (CompressionFromPath(path) == InputCompression::kNone) {
    TRIBUTARY_ASSIGN_OR_RAISE(const storage::FileInfo info, fs.GetFileInfo(path));
    input.size_hint = info.size;
  }
  return input;
}

}  // namespace tributary::text
