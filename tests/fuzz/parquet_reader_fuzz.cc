// libFuzzer harness: arbitrary bytes as a Parquet file. Opening, reading every row group and
// every leaf's statistics may fail with an error but never crash, hang or trip a sanitizer.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "formats/parquet/reader.h"

namespace {

// An in-memory file, so the harness exercises the reader and not the disk.
class MemoryFile final : public tributary::storage::RandomAccessFile {
 public:
  explicit MemoryFile(std::string data) : data_(std::move(data)) {}
  const std::string& Path() const override { return path_; }
  tributary::Result<int64_t> Size() const override { return static_cast<int64_t>(data_.size()); }
  tributary::Status ReadInto(int64_t offset, std::span<char> out) const override {
    if (offset < 0 || offset > static_cast<int64_t>(data_.size()) ||
        static_cast<int64_t>(out.size()) > static_cast<int64_t>(data_.size()) - offset) {
      return tributary::Status::InvalidArgument("read past the end of fuzz.parquet");
    }
    std::memcpy(out.data(), data_.data() + offset, out.size());
    return tributary::Status::OK();
  }

 private:
  std::string path_ = "fuzz.parquet";
  std::string data_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tributary::parquet::ParquetFileReader;
  auto file = std::make_shared<MemoryFile>(std::string(reinterpret_cast<const char*>(data), size));
  auto reader = ParquetFileReader::Open(file);
  if (!reader.ok()) {
    return 0;
  }
  for (int g = 0; g < (*reader)->NumRowGroups(); ++g) {
    auto batch = (*reader)->ReadRowGroup(g);
    if (batch.ok()) {
      // A batch that decoded must be well-formed; a malformed one is a reader bug.
      for (const auto& column : (*batch)->Columns()) {
        if (!column->ValidateFull().ok()) {
          std::abort();
        }
      }
    }
    // The same row group in small batches: pages straddle batches, and every batch that
    // decodes must be well-formed too.
    auto group = (*reader)->OpenRowGroup(g, {}, 7);
    while (group.ok()) {
      auto part = (*group)->Next();
      if (!part.ok() || *part == nullptr) {
        break;
      }
      for (const auto& column : (*part)->Columns()) {
        if (!column->ValidateFull().ok()) {
          std::abort();
        }
      }
    }
    for (const auto* leaf : (*reader)->Tree().leaves) {
      (void)(*reader)->RowGroupStatistics(g, leaf->path);
    }
  }
  return 0;
}
