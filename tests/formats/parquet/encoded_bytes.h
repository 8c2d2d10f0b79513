// What the Parquet encoding tests share: encoded input spelled byte by byte, and a check on an
// error message's text where the error code alone does not say which check failed.

#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "tributary/status.h"

namespace tributary::parquet::testing {

/// The bytes given as ints (0-255), as a string: `Bytes({0x15, 0x00})`.
inline std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (int b : bytes) {
    out.push_back(static_cast<char>(b));
  }
  return out;
}

inline void ExpectMessageHas(const Status& status, std::string_view text) {
  EXPECT_NE(status.Message().find(text), std::string::npos) << status;
}

}  // namespace tributary::parquet::testing
