#include "formats/parquet/page_reader.h"

#include <algorithm>
#include <span>
#include <utility>

#include <fmt/format.h>

namespace tributary::parquet {

Status ChunkLocation::Fault(int64_t offset, std::string_view what) const {
  return Status::Corruption(fmt::format("{}: row group {}, column {}, byte {}: {}", file, row_group,
                                        column, offset, what));
}

PageReader::PageReader(const storage::RandomAccessFile& file, int64_t chunk_offset,
                       int64_t chunk_size, int64_t num_values, CompressionCodec codec,
                       ChunkLocation location)
    : file_(file),
      chunk_offset_(chunk_offset),
      chunk_size_(chunk_size),
      num_values_(num_values),
      codec_(codec),
      location_(std::move(location)) {}

Result<std::string_view> PageReader::Decompress(std::string_view compressed,
                                                int64_t uncompressed_size, int64_t offset) {
  if (codec_ == CompressionCodec::kUncompressed) {
    if (static_cast<int64_t>(compressed.size()) != uncompressed_size) {
      return location_.Fault(offset, fmt::format("uncompressed page of {} bytes claims {} bytes",
                                                 compressed.size(), uncompressed_size));
    }
    return compressed;
  }
  // The declared size is checked against the body before the buffer is sized by it.
  Status st = CheckDecompressedSize(codec_, compressed, uncompressed_size);
  if (!st.ok()) {
    return location_.Fault(offset, st.Message());
  }
  scratch_.resize(static_cast<size_t>(uncompressed_size));
  st = parquet::Decompress(
      codec_, compressed,
      std::span<uint8_t>(reinterpret_cast<uint8_t*>(scratch_.data()), scratch_.size()));
  if (!st.ok()) {
    return location_.Fault(offset, st.Message());
  }
  return std::string_view(scratch_);
}

Status PageReader::ReadDictionaryPage(const PageHeader& header, std::string_view body,
                                      int64_t offset, Page* page) {
  if (has_dictionary_) {
    return location_.Fault(offset, "second dictionary page in one column chunk");
  }
  const DictionaryPageHeader& dict = *header.dictionary_page_header;
  if (dict.num_values < 0) {
    return location_.Fault(offset, fmt::format("dictionary of {} values", dict.num_values));
  }
  TRIBUTARY_ASSIGN_OR_RAISE(page->data, Decompress(body, header.uncompressed_page_size, offset));
  page->num_values = dict.num_values;
  has_dictionary_ = true;
  return Status::OK();
}

Status PageReader::ReadDataPage(const PageHeader& header, std::string_view body, int64_t offset,
                                Page* page) {
  const int64_t values_left = num_values_ - entries_loaded_;
  if (header.type == PageType::kDataPage) {
    const DataPageHeader& data_header = *header.data_page_header;
    const int64_t num_values = data_header.num_values;
    if (num_values < 0 || num_values > values_left) {
      return location_.Fault(offset, fmt::format("data page of {} values where the chunk has {} "
                                                 "left",
                                                 num_values, values_left));
    }
    TRIBUTARY_ASSIGN_OR_RAISE(page->data, Decompress(body, header.uncompressed_page_size, offset));
    page->num_values = num_values;
    page->encoding = data_header.encoding;
    page->rep_level_encoding = data_header.repetition_level_encoding;
    page->def_level_encoding = data_header.definition_level_encoding;
  } else {
    const DataPageHeaderV2& v2 = *header.data_page_header_v2;
    const int64_t num_values = v2.num_values;
    const int64_t rep_length = v2.repetition_levels_byte_length;
    const int64_t def_length = v2.definition_levels_byte_length;
    if (num_values < 0 || num_values > values_left || rep_length < 0 || def_length < 0 ||
        rep_length + def_length > static_cast<int64_t>(body.size()) ||
        rep_length + def_length > header.uncompressed_page_size) {
      return location_.Fault(offset, fmt::format("data page v2 levels ({} + {} bytes) do not fit "
                                                 "the page of {} bytes",
                                                 rep_length, def_length, body.size()));
    }
    page->rep_levels = body.substr(0, static_cast<size_t>(rep_length));
    page->def_levels =
        body.substr(static_cast<size_t>(rep_length), static_cast<size_t>(def_length));
    const std::string_view rest = body.substr(static_cast<size_t>(rep_length + def_length));
    const int64_t uncompressed = header.uncompressed_page_size - rep_length - def_length;
    if (v2.is_compressed) {
      TRIBUTARY_ASSIGN_OR_RAISE(page->data,
                                Decompress(rest, uncompressed, offset + rep_length + def_length));
    } else {
      page->data = rest;
    }
    page->num_values = num_values;
    page->encoding = v2.encoding;
  }
  entries_loaded_ += page->num_values;
  return Status::OK();
}

Status PageReader::Next(Page* page) {
  *page = Page();
  const int64_t page_offset = chunk_offset_ + pos_;
  const int64_t left = chunk_size_ - pos_;
  if (left <= 0) {
    return location_.Fault(page_offset, fmt::format("column chunk ends after {} of {} values",
                                                    entries_loaded_, num_values_));
  }
  // The header's size is unknown until it decodes: read a window that holds most headers (and
  // small pages whole), and a larger one when it does not decode from what was read.
  constexpr int64_t kHeaderWindow = 4096;
  int64_t have = 0;
  int64_t header_size = 0;
  Result<PageHeader> header = Status::Corruption("no page header");
  for (int64_t window = std::min(left, kHeaderWindow);; window = std::min(left, window * 16)) {
    if (static_cast<int64_t>(page_bytes_.size()) < window) {
      page_bytes_.resize(static_cast<size_t>(window));
    }
    TRIBUTARY_RETURN_NOT_OK(file_.ReadInto(
        page_offset + have,
        std::span<char>(page_bytes_.data() + have, static_cast<size_t>(window - have))));
    have = window;
    header = DecodePageHeader(std::string_view(page_bytes_.data(), static_cast<size_t>(have)),
                              &header_size);
    if (header.ok() || have == left) {
      break;
    }
  }
  if (!header.ok()) {
    return location_.Fault(page_offset, header.status().Message());
  }
  const int64_t body_size = header->compressed_page_size;
  if (body_size < 0 || body_size > left - header_size) {
    return location_.Fault(page_offset, fmt::format("page header claims {} bytes but the column "
                                                    "chunk has {} left",
                                                    body_size, left - header_size));
  }
  const int64_t page_size = header_size + body_size;
  if (page_size > have) {
    if (static_cast<int64_t>(page_bytes_.size()) < page_size) {
      page_bytes_.resize(static_cast<size_t>(page_size));
    }
    TRIBUTARY_RETURN_NOT_OK(file_.ReadInto(
        page_offset + have,
        std::span<char>(page_bytes_.data() + have, static_cast<size_t>(page_size - have))));
  }
  const std::string_view body(page_bytes_.data() + header_size, static_cast<size_t>(body_size));
  const int64_t body_offset = page_offset + header_size;
  pos_ += page_size;
  page->type = header->type;
  page->offset = body_offset;
  switch (header->type) {
    case PageType::kDictionaryPage:
      if (!header->dictionary_page_header) {
        return location_.Fault(page_offset, "dictionary page without its header");
      }
      return ReadDictionaryPage(*header, body, body_offset, page);
    case PageType::kDataPage:
      if (!header->data_page_header) {
        return location_.Fault(page_offset, "data page without its header");
      }
      return ReadDataPage(*header, body, body_offset, page);
    case PageType::kDataPageV2:
      if (!header->data_page_header_v2) {
        return location_.Fault(page_offset, "data page v2 without its header");
      }
      return ReadDataPage(*header, body, body_offset, page);
    default:
      return Status::OK();  // index pages carry nothing we read
  }
}

}  // namespace tributary::parquet
