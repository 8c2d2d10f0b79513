// Repetition and definition levels of a data page (apache/parquet-format README.md "Nested
// Encoding"; Encodings.md "Run Length Encoding / Bit-Packing Hybrid", "Bit-packed
// (Deprecated)"):
//
//   data page v1 levels = uint32le(byte length) rle-hybrid     (encoding RLE)
//                       | bit-packed MSB first, no length        (encoding BIT_PACKED, legacy)
//   data page v2 levels = rle-hybrid; the byte lengths are in the page header
//
// The bit width is that of the leaf's maximum level; a level is never above it.

#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/parquet/metadata.h"
#include "formats/parquet/page_reader.h"
#include "tributary/status.h"

namespace tributary::parquet {

/// Appends the `count` levels of the RLE/bit-packed hybrid `data` (no length prefix) to `out`.
/// Corruption, naming file byte `offset` (where `data` starts) and `location`, when `data`
/// holds fewer levels or one is above `max_level`.
[[nodiscard]] Status DecodeHybridLevels(std::string_view data, int16_t max_level, int64_t count,
                                        int64_t offset, const ChunkLocation& location,
                                        std::vector<int16_t>* out);

/// Appends the `count` levels at byte `*pos` of a data page v1 body `data`, encoded as
/// `encoding` (RLE with its length prefix, or legacy BIT_PACKED), to `out` and moves `*pos`
/// past them. Nothing is read when `max_level` is 0 (the levels are absent). `offset` is the
/// file byte where `data` starts. Corruption when the levels run past the page, `encoding` is
/// not a level encoding, or the levels are malformed.
[[nodiscard]] Status DecodeDataPageV1Levels(std::string_view data, size_t* pos, Encoding encoding,
                                            int16_t max_level, int64_t count, int64_t offset,
                                            const ChunkLocation& location,
                                            std::vector<int16_t>* out);

}  // namespace tributary::parquet
