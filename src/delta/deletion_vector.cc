// Deletion vector storage (PROTOCOL.md "Deletion Vector Format", "Deletion Vector Descriptor
// Schema"):
//
//   dv-file     = version(1 byte = 1) *dv-entry
//   dv-entry    = size(4 bytes BE) bitmap(size bytes) crc32(4 bytes BE, of bitmap)
//   bitmap      = magic(4 bytes LE = 1681511377) roaring64
//   roaring64   = count(8 bytes LE) *( key(4 bytes LE) roaring32-portable )
//                 ; row index = key << 32 | value in the 32-bit bitmap
//   descriptor  'u': pathOrInlineDv = random-prefix z85(uuid, 20 chars)
//                    -> <table>/<prefix>/deletion_vector_<uuid>.bin, entry at `offset`
//               'i': pathOrInlineDv = z85(bitmap);  'p': absolute path of the DV file

#include "delta/deletion_vector.h"

#include <zlib.h>

#include <cstring>

#include <fmt/format.h>
#include <roaring/roaring.h>

#include "common/uuid.h"
#include "storage/path.h"

namespace tributary::delta {
namespace {

constexpr uint32_t kRoaringMagic = 1681511377;

uint32_t LoadBe32(const char* p) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(p[0])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(p[2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(p[3]));
}

void AppendBe32(std::string& out, uint32_t value) {
  out.push_back(static_cast<char>(value >> 24));
  out.push_back(static_cast<char>(value >> 16));
  out.push_back(static_cast<char>(value >> 8));
  out.push_back(static_cast<char>(value));
}

template <typename T>
void AppendLe(std::string& out, T value) {
  for (size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<char>(static_cast<uint64_t>(value) >> (8 * i)));
  }
}

// The 16 bytes of a UUID's text form ("8-4-4-4-12" hex digits).
std::string UuidBytes(std::string_view text) {
  std::string out;
  int high = -1;
  for (const char c : text) {
    int digit;
    if (c >= '0' && c <= '9') {
      digit = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      digit = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      digit = c - 'A' + 10;
    } else {
      continue;
    }
    if (high < 0) {
      high = digit;
    } else {
      out.push_back(static_cast<char>((high << 4) | digit));
      high = -1;
    }
  }
  return out;
}

constexpr char kZ85Alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#";

std::string FormatUuid(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      out.push_back('-');
    }
    out.push_back(kHex[static_cast<uint8_t>(bytes[i]) >> 4]);
    out.push_back(kHex[static_cast<uint8_t>(bytes[i]) & 15]);
  }
  return out;
}

// `expected` is the cardinality the log declares: no more rows than that are materialized.
Result<std::vector<uint64_t>> ParseBitmap(std::string_view bytes, const std::string& where,
                                          int64_t expected) {
  if (bytes.size() < 12) {
    return Status::Corruption(fmt::format("{}: deletion vector of {} bytes", where, bytes.size()));
  }
  uint32_t magic;
  std::memcpy(&magic, bytes.data(), 4);
  if (magic != kRoaringMagic) {
    return Status::Corruption(
        fmt::format("{}: deletion vector magic {} is not {}", where, magic, kRoaringMagic));
  }
  uint64_t count;
  std::memcpy(&count, bytes.data() + 4, 8);
  size_t pos = 12;
  std::vector<uint64_t> rows;
  for (uint64_t b = 0; b < count; ++b) {
    if (bytes.size() - pos < 4) {
      return Status::Corruption(
          fmt::format("{}: deletion vector bucket {} past byte {}", where, b, pos));
    }
    uint32_t key;
    std::memcpy(&key, bytes.data() + pos, 4);
    pos += 4;
    roaring_bitmap_t* bitmap =
        roaring_bitmap_portable_deserialize_safe(bytes.data() + pos, bytes.size() - pos);
    if (bitmap == nullptr) {
      return Status::Corruption(fmt::format("{}: bad roaring bitmap at byte {}", where, pos));
    }
    pos += roaring_bitmap_portable_size_in_bytes(bitmap);
    const uint64_t cardinality = roaring_bitmap_get_cardinality(bitmap);
    // Run containers hold 65536 rows in 4 bytes: count before allocating.
    if (cardinality > static_cast<uint64_t>(expected) - rows.size()) {
      roaring_bitmap_free(bitmap);
      return Status::Corruption(
          fmt::format("{}: deletion vector holds more than the {} rows the log says (bucket {})",
                      where, expected, b));
    }
    std::vector<uint32_t> values(cardinality);
    roaring_bitmap_to_uint32_array(bitmap, values.data());
    roaring_bitmap_free(bitmap);
    for (uint32_t value : values) {
      rows.push_back((static_cast<uint64_t>(key) << 32) | value);
    }
  }
  return rows;
}

}  // namespace

std::string EncodeZ85(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() / 4 * 5);
  for (size_t i = 0; i + 4 <= bytes.size(); i += 4) {
    uint32_t value = LoadBe32(bytes.data() + i);
    char group[5];
    for (int j = 4; j >= 0; --j) {
      group[j] = kZ85Alphabet[value % 85];
      value /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

std::string SerializeDeletedRows(const std::vector<uint64_t>& rows) {
  std::string out;
  AppendLe<uint32_t>(out, kRoaringMagic);
  // One 32-bit bitmap per distinct high half of the row indexes.
  std::vector<std::pair<uint32_t, roaring_bitmap_t*>> buckets;
  for (const uint64_t row : rows) {
    const auto key = static_cast<uint32_t>(row >> 32);
    if (buckets.empty() || buckets.back().first != key) {
      buckets.emplace_back(key, roaring_bitmap_create());
    }
    roaring_bitmap_add(buckets.back().second, static_cast<uint32_t>(row));
  }
  AppendLe<uint64_t>(out, buckets.size());
  for (auto& [key, bitmap] : buckets) {
    roaring_bitmap_run_optimize(bitmap);
    AppendLe<uint32_t>(out, key);
    const size_t at = out.size();
    out.resize(at + roaring_bitmap_portable_size_in_bytes(bitmap));
    roaring_bitmap_portable_serialize(bitmap, out.data() + at);
    roaring_bitmap_free(bitmap);
  }
  return out;
}

Result<std::vector<DeletionVectorDescriptor>> WriteDeletionVectors(
    storage::FileSystem& fs, const std::string& table_root,
    const std::vector<std::vector<uint64_t>>& row_sets) {
  const std::string uuid = NewUuid();
  std::string file(1, '\x01');  // format version 1
  std::vector<DeletionVectorDescriptor> descriptors;
  const std::string path_text = EncodeZ85(UuidBytes(uuid));
  for (const std::vector<uint64_t>& rows : row_sets) {
    const std::string bitmap = SerializeDeletedRows(rows);
    DeletionVectorDescriptor dv;
    dv.storage_type = "u";
    dv.path_or_inline_dv = path_text;
    dv.offset = static_cast<int32_t>(file.size());
    dv.size_in_bytes = static_cast<int32_t>(bitmap.size());
    dv.cardinality = static_cast<int64_t>(rows.size());
    AppendBe32(file, static_cast<uint32_t>(bitmap.size()));
    file += bitmap;
    AppendBe32(file, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bitmap.data()),
                                                 static_cast<uInt>(bitmap.size()))));
    descriptors.push_back(std::move(dv));
  }
  const std::string path = storage::JoinPath(table_root, "deletion_vector_" + uuid + ".bin");
  TRIBUTARY_RETURN_NOT_OK(fs.WriteFile(path, file, storage::WriteMode::kPutIfAbsent));
  return descriptors;
}

Result<std::string> DecodeZ85(std::string_view text) {
  if (text.size() % 5 != 0) {
    return Status::Corruption(fmt::format("z85 text of {} characters", text.size()));
  }
  int8_t decode[256];
  std::memset(decode, -1, sizeof(decode));
  for (int i = 0; i < 85; ++i) {
    decode[static_cast<uint8_t>(kZ85Alphabet[i])] = static_cast<int8_t>(i);
  }
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t value = 0;
    for (size_t j = 0; j < 5; ++j) {
      const int8_t digit = decode[static_cast<uint8_t>(text[i + j])];
      if (digit < 0) {
        return Status::Corruption(fmt::format("z85: bad character at {}", i + j));
      }
      value = value * 85 + static_cast<uint64_t>(digit);
    }
    if (value > 0xFFFFFFFFull) {
      return Status::Corruption(fmt::format("z85: group at {} overflows", i));
    }
    out.push_back(static_cast<char>(value >> 24));
    out.push_back(static_cast<char>(value >> 16));
    out.push_back(static_cast<char>(value >> 8));
    out.push_back(static_cast<char>(value));
  }
  return out;
}

Result<std::vector<uint64_t>> LoadDeletedRows(storage::FileSystem& fs,
                                              const std::string& table_root,
                                              const DeletionVectorDescriptor& dv) {
  if (dv.storage_type == "i") {
    TRIBUTARY_ASSIGN_OR_RAISE(std::string bytes, DecodeZ85(dv.path_or_inline_dv));
    if (dv.size_in_bytes < 0 || dv.cardinality < 0) {
      return Status::Corruption(fmt::format("inline deletion vector of {} bytes and {} rows",
                                            dv.size_in_bytes, dv.cardinality));
    }
    return ParseBitmap(std::string_view(bytes).substr(0, static_cast<size_t>(dv.size_in_bytes)),
                       "inline deletion vector", dv.cardinality);
  }
  std::string path;
  if (dv.storage_type == "u") {
    const std::string& text = dv.path_or_inline_dv;
    if (text.size() < 20) {
      return Status::Corruption(fmt::format("deletion vector path '{}' is too short", text));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(std::string uuid, DecodeZ85(text.substr(text.size() - 20)));
    const std::string prefix = text.substr(0, text.size() - 20);
    const std::string name = "deletion_vector_" + FormatUuid(uuid) + ".bin";
    path = storage::JoinPath(prefix.empty() ? table_root : storage::JoinPath(table_root, prefix),
                             name);
  } else if (dv.storage_type == "p") {
    TRIBUTARY_ASSIGN_OR_RAISE(path, DecodeUriPath(dv.path_or_inline_dv));
    if (path.rfind("file://", 0) == 0) {
      path = path.substr(7);
    } else if (path.rfind("file:", 0) == 0) {
      path = path.substr(5);
    }
  } else {
    return Status::Corruption(fmt::format("deletion vector storage type '{}'", dv.storage_type));
  }
  const int64_t offset = dv.offset.value_or(1);
  if (dv.cardinality < 0) {
    return Status::Corruption(
        fmt::format("{}: deletion vector at byte {} of {} rows", path, offset, dv.cardinality));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(auto file, fs.OpenForRead(path));
  TRIBUTARY_ASSIGN_OR_RAISE(const int64_t file_size, file->Size());
  if (offset < 0 || offset > file_size - 4) {
    return Status::Corruption(fmt::format(
        "{}: deletion vector at byte {} is outside the {}-byte file", path, offset, file_size));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string header, file->ReadAt(offset, 4));
  const uint32_t size = LoadBe32(header.data());
  if (static_cast<int64_t>(size) != dv.size_in_bytes) {
    return Status::Corruption(
        fmt::format("{}: deletion vector at byte {} has {} bytes, the log "
                    "says {}",
                    path, offset, size, dv.size_in_bytes));
  }
  // The sizes are checked against the file before anything of that size is read.
  if (int64_t{size} + 4 > file_size - offset - 4) {
    return Status::Corruption(fmt::format(
        "{}: deletion vector at byte {} declares {} bytes and its checksum, but the file has {} "
        "bytes after its size",
        path, offset, size, file_size - offset - 4));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::string body, file->ReadAt(offset + 4, int64_t{size} + 4));
  const uint32_t expected_crc = LoadBe32(body.data() + size);
  const auto crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(size)));
  if (crc != expected_crc) {
    return Status::Corruption(
        fmt::format("{}: deletion vector at byte {} fails its checksum", path, offset));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(
      auto rows, ParseBitmap(std::string_view(body).substr(0, size),
                             fmt::format("{} at byte {}", path, offset), dv.cardinality));
  if (static_cast<int64_t>(rows.size()) != dv.cardinality) {
    return Status::Corruption(fmt::format("{}: deletion vector holds {} rows, the log says {}",
                                          path, rows.size(), dv.cardinality));
  }
  return rows;
}

}  // namespace tributary::delta
