// Deletion vector files whose declared sizes lie: the size header and the log's sizeInBytes beyond
// the file, and a bitmap of more rows than the log's cardinality. Each must be a Corruption naming
// the DV file and offset, found before anything of the declared size is allocated.

#include "delta/deletion_vector.h"

#include <zlib.h>

#include <cstdint>
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

}  // namespace
}  // namespace tributary::delta
