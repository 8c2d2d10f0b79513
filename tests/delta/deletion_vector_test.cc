// Deletion vector files whose declared sizes lie: the size header and the log's sizeInBytes beyond
// the file, and a bitmap of more rows than the log's cardinality. Each must be a Corruption naming
// the DV file and offset, found before anything of the declared size is allocated.

#include "delta/deletion_vector.h"

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <roaring/roaring.h>

#include "storage/local_file_system.h"
#include "support/memory_limit.h"
#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::delta {
namespace {

constexpr uint32_t kRoaringMagic = 1681511377;
constexpr int kCorruptionAsExpected = 0;
constexpr int kWrongOutcome = 1;

std::string Be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

std::string Le(uint64_t v, int bytes) {
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    out.push_back(static_cast<char>(v >> (8 * i)));
  }
  return out;
}

// The DV bitmap (magic, one 32-bit bucket) of rows [0, rows), as run containers.
std::string RangeBitmap(uint64_t rows) {
  roaring_bitmap_t* bitmap = roaring_bitmap_create();
  roaring_bitmap_add_range(bitmap, 0, rows);
  roaring_bitmap_run_optimize(bitmap);
  std::string portable(roaring_bitmap_portable_size_in_bytes(bitmap), '\0');
  roaring_bitmap_portable_serialize(bitmap, portable.data());
  roaring_bitmap_free(bitmap);
  std::string out = Le(kRoaringMagic, 4);
  out.append(Le(1, 8));
  out.append(Le(0, 4));
  out.append(portable);
  return out;
}

// A DV file (version byte, then one entry at offset 1) whose size header says `declared`.
std::string DvFile(const std::string& bitmap, uint32_t declared) {
  const auto crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(bitmap.data()), static_cast<uInt>(bitmap.size())));
  std::string file(1, '\x01');
  file.append(Be32(declared));
  file.append(bitmap);
  file.append(Be32(crc));
  return file;
}

class DeletionVectorSizeTest : public ::testing::Test {
 protected:
  DeletionVectorDescriptor Write(const std::string& bytes, int32_t size_in_bytes,
                                 int64_t cardinality) {
    EXPECT_OK(fs_.WriteFile(path_, bytes, storage::WriteMode::kReplace));
    DeletionVectorDescriptor dv;
    dv.storage_type.push_back('p');  // "p": an absolute path (g++ 12 warns on = "p")
    std::string uri = std::string("file://").append(path_);
    dv.path_or_inline_dv.swap(uri);
    dv.offset = 1;
    dv.size_in_bytes = size_in_bytes;
    dv.cardinality = cardinality;
    return dv;
  }

  testing::TempDir dir_;
  storage::LocalFileSystem fs_;
  const std::string path_ = dir_.Join("deletion_vector.bin");
};

TEST_F(DeletionVectorSizeTest, ReadsAnHonestVector) {
  const std::string bitmap = RangeBitmap(3);
  const auto dv = Write(DvFile(bitmap, static_cast<uint32_t>(bitmap.size())),
                        static_cast<int32_t>(bitmap.size()), 3);
  ASSERT_OK_AND_ASSIGN(auto rows, LoadDeletedRows(fs_, dir_.Path(), dv));
  EXPECT_EQ(rows, (std::vector<uint64_t>{0, 1, 2}));
}

// The log and the size header agree on 2^31-1 bytes, the file has a few dozen.
TEST_F(DeletionVectorSizeTest, RejectsSizePastTheEndOfTheFile) {
  constexpr int32_t kHuge = std::numeric_limits<int32_t>::max();
  const auto dv = Write(DvFile(RangeBitmap(3), static_cast<uint32_t>(kHuge)), kHuge, 3);
  auto rows = LoadDeletedRows(fs_, dir_.Path(), dv);
  ASSERT_RAISES(Corruption, rows);
  EXPECT_NE(rows.status().Message().find(path_ + ": deletion vector at byte 1 declares " +
                                         std::to_string(kHuge)),
            std::string::npos)
      << rows.status().Message();
}

// A bitmap of 2^28 rows in a few kilobytes of run containers, under a log that says one row: the
// rows are counted before they are materialized (which would take 3 GiB).
TEST_F(DeletionVectorSizeTest, RejectsBitmapOfMoreRowsThanTheLogSays) {
  const std::string bitmap = RangeBitmap(uint64_t{1} << 28);
  ASSERT_LT(bitmap.size(), 64u * 1024);
  const auto dv = Write(DvFile(bitmap, static_cast<uint32_t>(bitmap.size())),
                        static_cast<int32_t>(bitmap.size()), 1);
  const int code = testing::RunUnderMemoryLimit(int64_t{512} << 20, [&] {
    auto rows = LoadDeletedRows(fs_, dir_.Path(), dv);
    const bool expected =
        rows.status().IsCorruption() &&
        rows.status().Message().find(path_ +
                                     " at byte 1: deletion vector holds more than the 1 "
                                     "rows") != std::string::npos;
    return expected ? kCorruptionAsExpected : kWrongOutcome;
  });
  EXPECT_EQ(code, kCorruptionAsExpected);
}

// Z85 as ZeroMQ's RFC 32 gives it, and PROTOCOL.md's example descriptor: UUID
// d2c639aa-8816-431a-aaf6-d3fe2512ff61 is "^-aqEH.-t@S}K{vb[*k^" after the prefix "ab".
TEST(Z85Test, EncodesAsTheSpecs) {
  const std::string hello = {'\x86', '\x4F', '\xD2', '\x6F', '\xB5', '\x59', '\xF7', '\x5B'};
  EXPECT_EQ(EncodeZ85(hello), "HelloWorld");
  const std::string uuid = {'\xd2', '\xc6', '\x39', '\xaa', '\x88', '\x16', '\x43', '\x1a',
                            '\xaa', '\xf6', '\xd3', '\xfe', '\x25', '\x12', '\xff', '\x61'};
  EXPECT_EQ(EncodeZ85(uuid), "^-aqEH.-t@S}K{vb[*k^");
  ASSERT_OK_AND_ASSIGN(auto decoded, DecodeZ85(EncodeZ85(uuid)));
  EXPECT_EQ(decoded, uuid);
}

// Row sets of one commit in one file: each loads back through the reader's LoadDeletedRows,
// including rows past 2^32 (a second roaring bucket) and a dense run.
class DeletionVectorWriteTest : public ::testing::Test {
 protected:
  static std::vector<std::vector<uint64_t>> RowSets() {
    std::vector<uint64_t> dense;
    for (uint64_t r = 100; r < 70000; ++r) {
      dense.push_back(r);
    }
    return {{0, 9}, dense, {5, (uint64_t{1} << 32) + 7, (uint64_t{3} << 32)}};
  }
  storage::LocalFileSystem fs_;
  testing::TempDir dir_;
};

TEST_F(DeletionVectorWriteTest, WrittenVectorsLoadBack) {
  const auto sets = RowSets();
  ASSERT_OK_AND_ASSIGN(auto dvs, WriteDeletionVectors(fs_, dir_.Path(), sets));
  ASSERT_EQ(dvs.size(), sets.size());
  for (size_t i = 0; i < sets.size(); ++i) {
    EXPECT_EQ(dvs[i].storage_type, "u");
    EXPECT_EQ(dvs[i].path_or_inline_dv.size(), 20u);
    EXPECT_EQ(dvs[i].cardinality, static_cast<int64_t>(sets[i].size()));
    ASSERT_OK_AND_ASSIGN(auto rows, LoadDeletedRows(fs_, dir_.Path(), dvs[i]));
    EXPECT_EQ(rows, sets[i]) << i;
  }
  EXPECT_EQ(dvs[0].offset, 1);
}

// The bytes on disk decoded with CRoaring directly, by the format PROTOCOL.md describes: the
// big-endian size, magic 1681511377, the bucket count, then per bucket the key and a portable
// 32-bit bitmap; a big-endian CRC-32 of the bitmap follows.
TEST_F(DeletionVectorWriteTest, BytesAreRoaringPortableAsTheProtocolSays) {
  const auto sets = RowSets();
  ASSERT_OK_AND_ASSIGN(auto dvs, WriteDeletionVectors(fs_, dir_.Path(), sets));
  ASSERT_OK_AND_ASSIGN(auto entries, fs_.List(dir_.Path(), storage::ListOptions{}));
  ASSERT_EQ(entries.size(), 1u);
  const std::string path = entries[0].path;
  EXPECT_NE(path.find("deletion_vector_"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(std::string file, fs_.ReadFile(path));
  ASSERT_EQ(file[0], '\x01');
  for (size_t i = 0; i < sets.size(); ++i) {
    const size_t at = static_cast<size_t>(*dvs[i].offset);
    const auto byte = [&](size_t k) {
      return static_cast<uint32_t>(static_cast<uint8_t>(file[k]));
    };
    const uint32_t size = byte(at) << 24 | byte(at + 1) << 16 | byte(at + 2) << 8 | byte(at + 3);
    ASSERT_EQ(static_cast<int32_t>(size), dvs[i].size_in_bytes);
    const std::string bitmap = file.substr(at + 4, size);
    const size_t crc_at = at + 4 + size;
    const uint32_t crc =
        byte(crc_at) << 24 | byte(crc_at + 1) << 16 | byte(crc_at + 2) << 8 | byte(crc_at + 3);
    EXPECT_EQ(crc, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(bitmap.data()),
                                               static_cast<uInt>(size))));
    EXPECT_EQ(bitmap.substr(0, 4), Le(kRoaringMagic, 4));
    uint64_t count = 0;
    std::memcpy(&count, bitmap.data() + 4, 8);
    size_t pos = 12;
    std::vector<uint64_t> rows;
    for (uint64_t b = 0; b < count; ++b) {
      uint32_t key = 0;
      std::memcpy(&key, bitmap.data() + pos, 4);
      pos += 4;
      roaring_bitmap_t* decoded =
          roaring_bitmap_portable_deserialize_safe(bitmap.data() + pos, bitmap.size() - pos);
      ASSERT_NE(decoded, nullptr);
      pos += roaring_bitmap_portable_size_in_bytes(decoded);
      roaring_uint32_iterator_t* it = roaring_create_iterator(decoded);
      while (it->has_value) {
        rows.push_back(uint64_t{key} << 32 | it->current_value);
        roaring_advance_uint32_iterator(it);
      }
      roaring_free_uint32_iterator(it);
      roaring_bitmap_free(decoded);
    }
    EXPECT_EQ(pos, bitmap.size());
    EXPECT_EQ(rows, sets[i]) << i;
  }
}

}  // namespace
}  // namespace tributary::delta
