#include "formats/text/compressed_input.h"

#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#include <memory>
#include <span>

#include <fmt/format.h>

namespace tributary::text {
namespace {

bool EndsWithIgnoreCase(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         strncasecmp(text.data() + text.size() - suffix.size(), suffix.data(), suffix.size()) ==
             0;
}

constexpr size_t kOutputChunk = size_t{1} << 20;

Status Inflate(std::string_view input, std::string_view path, std::string* out) {
  z_stream stream{};
  // 15 + 32: a gzip or zlib header, detected automatically.
  if (inflateInit2(&stream, 15 + 32) != Z_OK) {
    return Status::Internal(fmt::format("cannot initialise zlib to read {}", path));
  }
  std::unique_ptr<z_stream, int (*)(z_stream*)> guard(&stream, &inflateEnd);
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  size_t consumed = 0;
  while (true) {
    const size_t remaining = input.size() - consumed;
    stream.avail_in = static_cast<uInt>(std::min<size_t>(remaining, 1u << 30));
    const size_t start = out->size();
    out->resize(start + kOutputChunk);
    stream.next_out = reinterpret_cast<Bytef*>(out->data() + start);
    stream.avail_out = static_cast<uInt>(kOutputChunk);
    const size_t before_in = stream.avail_in;
    const int rc = inflate(&stream, Z_NO_FLUSH);
    consumed += before_in - stream.avail_in;
    out->resize(start + kOutputChunk - stream.avail_out);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members continue; trailing zero bytes (tar-style padding) end it.
      while (consumed < input.size() && input[consumed] == '\0') {
        ++consumed;
      }
      if (consumed >= input.size()) {
        return Status::OK();
      }
      if (inflateReset(&stream) != Z_OK) {
        return Status::Internal(fmt::format("cannot reset zlib reading {}", path));
      }
      stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data() + consumed));
      continue;
    }
    if (rc == Z_BUF_ERROR && consumed >= input.size() && stream.avail_out != 0) {
      return Status::Corruption(fmt::format(
          "gzip stream of {} is truncated at compressed byte offset {}", path, consumed));
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return Status::Corruption(fmt::format("gzip stream of {} is corrupt near compressed byte "
                                            "offset {}: {}",
                                            path, consumed, stream.msg ? stream.msg : "error"));
    }
  }
}

Status ZstdDecompress(std::string_view input, std::string_view path, std::string* out) {
  std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream*)> stream(ZSTD_createDStream(),
                                                                  &ZSTD_freeDStream);
  if (stream == nullptr) {
    return Status::Internal(fmt::format("cannot create a zstd stream to read {}", path));
  }
  ZSTD_inBuffer in{input.data(), input.size(), 0};
  size_t last = 0;
  while (true) {
    const size_t start = out->size();
    out->resize(start + kOutputChunk);
    ZSTD_outBuffer output{out->data() + start, kOutputChunk, 0};
    last = ZSTD_decompressStream(stream.get(), &output, &in);
    out->resize(start + output.pos);
    if (ZSTD_isError(last)) {
      return Status::Corruption(fmt::format("zstd stream of {} is corrupt near compressed byte "
                                            "offset {}: {}",
                                            path, in.pos, ZSTD_getErrorName(last)));
    }
    if (in.pos >= in.size && output.pos < output.size) {
      break;
    }
  }
  if (last != 0) {
    return Status::Corruption(fmt::format(
        "zstd stream of {} is truncated at compressed byte offset {}", path, in.pos));
  }
  return Status::OK();
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

Status DecompressAll(InputCompression compression, std::string_view input,
                     std::string_view path, std::string* out) {
  switch (compression) {
    case InputCompression::kNone:
      out->append(input);
      return Status::OK();
    case InputCompression::kGzip:
      if (input.empty()) {
        return Status::OK();
      }
      return Inflate(input, path, out);
    case InputCompression::kZstd:
      if (input.empty()) {
        return Status::OK();
      }
      return ZstdDecompress(input, path, out);
  }
  return Status::OK();
}

Result<std::string> ReadTextFile(storage::FileSystem& fs, const std::string& path,
                                 size_t padding) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto file, fs.OpenForRead(path));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t size, file->Size());
  const InputCompression compression = CompressionFromPath(path);
  std::string data;
  if (compression == InputCompression::kNone) {
    data.resize(static_cast<size_t>(size) + padding, ' ');
    TRIBUTARY_RETURN_NOT_OK(
        file->ReadInto(0, std::span<char>(data.data(), static_cast<size_t>(size))));
    return data;
  }
  std::string compressed(static_cast<size_t>(size), '\0');
  TRIBUTARY_RETURN_NOT_OK(file->ReadInto(0, std::span<char>(compressed.data(), compressed.size())));
  TRIBUTARY_RETURN_NOT_OK(DecompressAll(compression, compressed, path, &data));
  data.append(padding, ' ');
  return data;
}

}  // namespace tributary::text
