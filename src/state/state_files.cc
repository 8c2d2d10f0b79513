// State files, format version 1. Integers little-endian.
//
//   file     = header body trailer
//   header   = magic (4 bytes: "TSCL" changelog | "TSSN" snapshot)
//              format_version:u8 (1)  codec:u8 (0 none | 1 zstd)
//              version:i64  num_keys:i64                       22 bytes
//   body     = records as they are (codec 0), or one zstd stream of them (codec 1)
//   records  = record*
//   record   = 0x01 key_length:u32 key value_length:u32 value    put: key now holds value
//            | 0x02 key_length:u32 key                           delete (changelogs only)
//   trailer  = num_records:u64  crc32:u32                        12 bytes
//
// `version` is the state version the file makes (a changelog: the writes of the batch that
// turned version-1 into version) or holds (a snapshot: every key of that version, in key
// order); `num_keys` is the number of keys of that version, so replaying a changelog needs no
// reads to keep the count. crc32 is zlib's CRC-32 of the header and the body as stored.
// Changelogs are small (one batch's writes) and stored as they are; snapshots are compressed.
// A reader refuses a file whose magic, format version, version, checksum or record count do
// not match (Corruption naming the file); a newer format version is refused, not guessed at.

#include "state/state_files.h"

#include <zlib.h>
#include <zstd.h>

#include <charconv>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "storage/path.h"

namespace tributary::state {

namespace {

constexpr std::string_view kChangelogMagic = "TSCL";
constexpr std::string_view kSnapshotMagic = "TSSN";
constexpr uint8_t kFormatVersion = 1;
constexpr uint8_t kCodecNone = 0;
constexpr uint8_t kCodecZstd = 1;
constexpr size_t kHeaderSize = 22;
constexpr size_t kTrailerSize = 12;
constexpr uint8_t kPutTag = 1;
constexpr uint8_t kDeleteTag = 2;
/// Bytes of records buffered before they go to the stream; bytes read from the file at once.
constexpr size_t kChunkBytes = 1 << 20;
constexpr int kZstdLevel = 3;

std::string_view Suffix(StateFileKind kind) {
  return kind == StateFileKind::kChangelog ? ".changelog" : ".snapshot";
}

void AppendFixed(uint64_t value, size_t width, std::string* out) {
  for (size_t i = 0; i < width; ++i) {
    out->push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
  }
}

uint64_t ReadFixed(const char* data, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(static_cast<uint8_t>(data[i])) << (8 * i);
  }
  return value;
}

struct ZstdCompressionFree {
  void operator()(ZSTD_CCtx* context) const { ZSTD_freeCCtx(context); }
};
struct ZstdDecompressionFree {
  void operator()(ZSTD_DCtx* context) const { ZSTD_freeDCtx(context); }
};

uint32_t UpdateCrc(uint32_t crc, std::string_view data) {
  return static_cast<uint32_t>(
      crc32(crc, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
}

}  // namespace

std::string StateFilePath(const std::string& dir, StateFileKind kind, int64_t version) {
  return storage::JoinPath(dir, fmt::format("{}{}", version, Suffix(kind)));
}

std::optional<StateFileHeader> ParseStateFileName(std::string_view name) {
  StateFileHeader header;
  const size_t dot = name.find('.');
  if (dot == std::string_view::npos || dot == 0) {
    return std::nullopt;
  }
  const std::string_view suffix = name.substr(dot);
  if (suffix == Suffix(StateFileKind::kChangelog)) {
    header.kind = StateFileKind::kChangelog;
  } else if (suffix == Suffix(StateFileKind::kSnapshot)) {
    header.kind = StateFileKind::kSnapshot;
  } else {
    return std::nullopt;
  }
  const auto [end, error] = std::from_chars(name.data(), name.data() + dot, header.version);
  if (error != std::errc() || end != name.data() + dot || header.version < 0) {
    return std::nullopt;
  }
  return header;
}

// ---------------------------------------------------------------------------------------------

class StateFileWriter::Impl {
 public:
  Status Init(storage::FileSystem* fs, const std::string& path, const StateFileHeader& header) {
    TRIBUTARY_ASSIGN_OR_RAISE(stream_, fs->OpenOutputStream(path, storage::WriteMode::kReplace));
    const bool compress = header.kind == StateFileKind::kSnapshot;
    if (compress) {
      zstd_.reset(ZSTD_createCCtx());
      if (zstd_ == nullptr) {
        return Status::Internal("zstd: cannot create a compression context");
      }
      ZSTD_CCtx_setParameter(zstd_.get(), ZSTD_c_compressionLevel, kZstdLevel);
    }
    std::string bytes(header.kind == StateFileKind::kChangelog ? kChangelogMagic : kSnapshotMagic);
    bytes.push_back(static_cast<char>(kFormatVersion));
    bytes.push_back(static_cast<char>(compress ? kCodecZstd : kCodecNone));
    AppendFixed(static_cast<uint64_t>(header.version), 8, &bytes);
    AppendFixed(static_cast<uint64_t>(header.num_keys), 8, &bytes);
    return Emit(bytes);
  }

  Status Add(uint8_t tag, std::string_view key, const std::string_view* value) {
    records_.push_back(static_cast<char>(tag));
    AppendFixed(key.size(), 4, &records_);
    records_.append(key);
    if (value != nullptr) {
      AppendFixed(value->size(), 4, &records_);
      records_.append(*value);
    }
    ++num_records_;
    return records_.size() >= kChunkBytes ? Flush(false) : Status::OK();
  }

  Status Finish() {
    TRIBUTARY_RETURN_NOT_OK(Flush(true));
    std::string trailer;
    AppendFixed(num_records_, 8, &trailer);
    AppendFixed(crc_, 4, &trailer);
    TRIBUTARY_RETURN_NOT_OK(stream_->Append(trailer));
    return stream_->Close();
  }

  int64_t BytesWritten() const { return stream_->Position(); }
  uint32_t Checksum() const { return crc_; }

 private:
  /// Moves the buffered records to the stream (compressing them); `end` ends the zstd stream.
  Status Flush(bool end) {
    if (zstd_ == nullptr) {
      TRIBUTARY_RETURN_NOT_OK(Emit(records_));
      records_.clear();
      return Status::OK();
    }
    ZSTD_inBuffer input{records_.data(), records_.size(), 0};
    std::string output(ZSTD_CStreamOutSize(), '\0');
    while (true) {
      ZSTD_outBuffer out{output.data(), output.size(), 0};
      const size_t remaining =
          ZSTD_compressStream2(zstd_.get(), &out, &input, end ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(remaining) != 0) {
        return Status::Internal(fmt::format("zstd: {}", ZSTD_getErrorName(remaining)));
      }
      TRIBUTARY_RETURN_NOT_OK(Emit(std::string_view(output.data(), out.pos)));
      const bool done = end ? remaining == 0 : input.pos == input.size;
      if (done) {
        break;
      }
    }
    records_.clear();
    return Status::OK();
  }

  Status Emit(std::string_view bytes) {
    if (bytes.empty()) {
      return Status::OK();
    }
    crc_ = UpdateCrc(crc_, bytes);
    return stream_->Append(bytes);
  }

  std::unique_ptr<storage::OutputStream> stream_;
  std::unique_ptr<ZSTD_CCtx, ZstdCompressionFree> zstd_;
  std::string records_;
  uint64_t num_records_ = 0;
  uint32_t crc_ = 0;
};

StateFileWriter::StateFileWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateFileWriter::~StateFileWriter() = default;

Result<std::unique_ptr<StateFileWriter>> StateFileWriter::Open(storage::FileSystem* fs,
                                                               const std::string& path,
                                                               const StateFileHeader& header) {
  auto impl = std::make_unique<Impl>();
  TRIBUTARY_RETURN_NOT_OK(impl->Init(fs, path, header));
  return std::unique_ptr<StateFileWriter>(new StateFileWriter(std::move(impl)));
}

Status StateFileWriter::Put(std::string_view key, std::string_view value) {
  return impl_->Add(kPutTag, key, &value);
}
Status StateFileWriter::Delete(std::string_view key) {
  return impl_->Add(kDeleteTag, key, nullptr);
}
Status StateFileWriter::Finish() {
  return impl_->Finish();
}
int64_t StateFileWriter::BytesWritten() const {
  return impl_->BytesWritten();
}
uint32_t StateFileWriter::Checksum() const {
  return impl_->Checksum();
}

// ---------------------------------------------------------------------------------------------

class StateFileReader::Impl {
 public:
  Status Init(storage::FileSystem* fs, const std::string& path, StateFileKind kind,
              int64_t version) {
    path_ = path;
    TRIBUTARY_ASSIGN_OR_RAISE(file_, fs->OpenForRead(path));
    TRIBUTARY_ASSIGN_OR_RAISE(const int64_t size, file_->Size());
    if (size < static_cast<int64_t>(kHeaderSize + kTrailerSize)) {
      return Corrupt(fmt::format("{} bytes is shorter than a header and a trailer", size));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string head, file_->ReadAt(0, kHeaderSize));
    TRIBUTARY_ASSIGN_OR_RAISE(const std::string tail,
                              file_->ReadAt(size - kTrailerSize, kTrailerSize));
    const std::string_view magic =
        kind == StateFileKind::kChangelog ? kChangelogMagic : kSnapshotMagic;
    if (std::string_view(head).substr(0, 4) != magic) {
      return Corrupt(fmt::format("not a state {} file (magic)", Suffix(kind).substr(1)));
    }
    if (static_cast<uint8_t>(head[4]) != kFormatVersion) {
      return Corrupt(
          fmt::format("state file format version {} is not supported (this build "
                      "reads version {})",
                      static_cast<int>(static_cast<uint8_t>(head[4])), kFormatVersion));
    }
    const auto codec = static_cast<uint8_t>(head[5]);
    if (codec != kCodecNone && codec != kCodecZstd) {
      return Corrupt(fmt::format("unknown codec {}", codec));
    }
    header_.kind = kind;
    header_.version = static_cast<int64_t>(ReadFixed(head.data() + 6, 8));
    header_.num_keys = static_cast<int64_t>(ReadFixed(head.data() + 14, 8));
    if (header_.version != version) {
      return Corrupt(fmt::format("holds version {}, expected {}", header_.version, version));
    }
    expected_records_ = ReadFixed(tail.data(), 8);
    expected_crc_ = static_cast<uint32_t>(ReadFixed(tail.data() + 8, 4));
    crc_ = UpdateCrc(0, head);
    offset_ = static_cast<int64_t>(kHeaderSize);
    body_end_ = size - static_cast<int64_t>(kTrailerSize);
    if (codec == kCodecZstd) {
      zstd_.reset(ZSTD_createDCtx());
      if (zstd_ == nullptr) {
        return Status::Internal("zstd: cannot create a decompression context");
      }
      frame_done_ = false;
    }
    return Status::OK();
  }

  Result<bool> Next(StateFileRecord* record) {
    TRIBUTARY_ASSIGN_OR_RAISE(bool more, Ensure(5));
    if (!more) {
      if (pos_ != decoded_.size() || !frame_done_) {
        return Corrupt("truncated record at the end of the body");
      }
      if (crc_ != expected_crc_) {
        return Corrupt(
            fmt::format("checksum mismatch (stored {:08x}, computed {:08x})", expected_crc_, crc_));
      }
      if (records_ != expected_records_) {
        return Corrupt(fmt::format("{} records, the trailer says {}", records_, expected_records_));
      }
      return false;
    }
    const auto tag = static_cast<uint8_t>(decoded_[pos_]);
    if (tag != kPutTag && !(tag == kDeleteTag && header_.kind == StateFileKind::kChangelog)) {
      return Corrupt(fmt::format("unknown record tag {} in record {}", tag, records_));
    }
    const size_t key_length = ReadFixed(decoded_.data() + pos_ + 1, 4);
    size_t length = 5 + key_length;
    size_t value_length = 0;
    if (tag == kPutTag) {
      TRIBUTARY_ASSIGN_OR_RAISE(more, Ensure(length + 4));
      if (!more) {
        return Corrupt(fmt::format("record {} is truncated", records_));
      }
      value_length = ReadFixed(decoded_.data() + pos_ + length, 4);
      length += 4 + value_length;
    }
    TRIBUTARY_ASSIGN_OR_RAISE(more, Ensure(length));
    if (!more) {
      return Corrupt(fmt::format("record {} is truncated", records_));
    }
    record->is_delete = tag == kDeleteTag;
    record->key = std::string_view(decoded_).substr(pos_ + 5, key_length);
    record->value = tag == kPutTag
                        ? std::string_view(decoded_).substr(pos_ + 5 + key_length + 4, value_length)
                        : std::string_view();
    pos_ += length;
    ++records_;
    return true;
  }

  const StateFileHeader& Header() const { return header_; }
  uint32_t Checksum() const { return expected_crc_; }

 private:
  Status Corrupt(const std::string& what) const {
    return Status::Corruption(fmt::format("state file {}: {}", path_, what));
  }

  /// Makes at least `bytes` decoded bytes available at pos_; false when the body ends first.
  Result<bool> Ensure(size_t bytes) {
    while (decoded_.size() - pos_ < bytes) {
      if (pos_ > 0) {
        decoded_.erase(0, pos_);
        pos_ = 0;
      }
      if (raw_pos_ == raw_.size() && !output_pending_) {
        if (offset_ == body_end_) {
          return false;
        }
        const int64_t length = std::min<int64_t>(kChunkBytes, body_end_ - offset_);
        TRIBUTARY_ASSIGN_OR_RAISE(raw_, file_->ReadAt(offset_, length));
        offset_ += length;
        raw_pos_ = 0;
        crc_ = UpdateCrc(crc_, raw_);
      }
      if (zstd_ == nullptr) {
        decoded_.append(raw_, raw_pos_);
        raw_pos_ = raw_.size();
        continue;
      }
      const size_t before = decoded_.size();
      decoded_.resize(before + ZSTD_DStreamOutSize());
      ZSTD_inBuffer input{raw_.data(), raw_.size(), raw_pos_};
      ZSTD_outBuffer output{decoded_.data() + before, ZSTD_DStreamOutSize(), 0};
      const size_t result = ZSTD_decompressStream(zstd_.get(), &output, &input);
      if (ZSTD_isError(result) != 0) {
        return Corrupt(fmt::format("zstd: {}", ZSTD_getErrorName(result)));
      }
      frame_done_ = result == 0;
      // A full output buffer may leave decoded bytes inside zstd: call again before reading on.
      output_pending_ = output.pos == output.size;
      raw_pos_ = input.pos;
      decoded_.resize(before + output.pos);
    }
    return true;
  }

  std::string path_;
  std::unique_ptr<storage::RandomAccessFile> file_;
  StateFileHeader header_;
  std::unique_ptr<ZSTD_DCtx, ZstdDecompressionFree> zstd_;
  bool frame_done_ = true;
  bool output_pending_ = false;
  int64_t offset_ = 0;
  int64_t body_end_ = 0;
  std::string raw_;
  size_t raw_pos_ = 0;
  std::string decoded_;
  size_t pos_ = 0;
  uint64_t records_ = 0;
  uint64_t expected_records_ = 0;
  uint32_t crc_ = 0;
  uint32_t expected_crc_ = 0;
};

StateFileReader::StateFileReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
StateFileReader::~StateFileReader() = default;

Result<std::unique_ptr<StateFileReader>> StateFileReader::Open(storage::FileSystem* fs,
                                                               const std::string& path,
                                                               StateFileKind kind,
                                                               int64_t version) {
  auto impl = std::make_unique<Impl>();
  TRIBUTARY_RETURN_NOT_OK(impl->Init(fs, path, kind, version));
  return std::unique_ptr<StateFileReader>(new StateFileReader(std::move(impl)));
}

const StateFileHeader& StateFileReader::Header() const {
  return impl_->Header();
}
Result<bool> StateFileReader::Next(StateFileRecord* record) {
  return impl_->Next(record);
}
uint32_t StateFileReader::Checksum() const {
  return impl_->Checksum();
}

Result<uint32_t> ReadStateFileChecksum(storage::FileSystem* fs, const std::string& path) {
  TRIBUTARY_ASSIGN_OR_RAISE(auto file, fs->OpenForRead(path));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t size, file->Size());
  if (size < static_cast<int64_t>(kHeaderSize + kTrailerSize)) {
    return Status::Corruption(
        fmt::format("state file {}: {} bytes is shorter than a header and a trailer", path, size));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(const std::string crc, file->ReadAt(size - 4, 4));
  return static_cast<uint32_t>(ReadFixed(crc.data(), 4));
}

}  // namespace tributary::state
