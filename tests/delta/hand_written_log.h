// A Delta log written line by line in a temporary directory: what the log segment, snapshot and
// transaction tests build their tables from, so each test states exactly which files exist.

#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "storage/local_file_system.h"
#include "support/temp_dir.h"

namespace tributary::testing {

class HandWrittenLogTest : public ::testing::Test {
 protected:
  /// A protocol action (reader 1, writer 2 unless given).
  static std::string ProtocolLine(int reader = 1, int writer = 2) {
    return fmt::format(R"({{"protocol":{{"minReaderVersion":{},"minWriterVersion":{}}}}})", reader,
                       writer);
  }

  /// A metaData action for an unpartitioned table of one long column, `column`, with
  /// `configuration` (a JSON object text).
  static std::string MetadataLine(const std::string& column = "id",
                                  const std::string& configuration = "{}") {
    const std::string schema =
        fmt::format(R"({{\"type\":\"struct\",\"fields\":[{{\"name\":\"{}\",\"type\":\"long\",)"
                    R"(\"nullable\":true,\"metadata\":{{}}}}]}})",
                    column);
    return fmt::format(
        R"({{"metaData":{{"id":"00000000-0000-0000-0000-000000000001","format":)"
        R"({{"provider":"parquet","options":{{}}}},"schemaString":"{}","partitionColumns":[],)"
        R"("configuration":{},"createdTime":0}}}})",
        schema, configuration);
  }

  /// An add action for data file `path` (never read: the tests replay the log only).
  static std::string AddLine(const std::string& path) {
    return fmt::format(
        R"({{"add":{{"path":"{}","partitionValues":{{}},"size":1,"modificationTime":0,)"
        R"("dataChange":true}}}})",
        path);
  }

  static std::string RemoveLine(const std::string& path) {
    return fmt::format(R"({{"remove":{{"path":"{}","deletionTimestamp":0,"dataChange":true}}}})",
                       path);
  }

  /// `_delta_log/<version>.json` holding `lines`.
  void WriteCommit(int64_t version, const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& line : lines) {
      text += line + "\n";
    }
    WriteLogFile(fmt::format("{:020}.json", version), text);
  }

  /// Version 0 (protocol, metadata) and versions 1 .. `last` adding `<v>.parquet` each.
  void WriteAppends(int64_t last) {
    WriteCommit(0, {ProtocolLine(), MetadataLine()});
    for (int64_t v = 1; v <= last; ++v) {
      WriteCommit(v, {AddLine(fmt::format("{}.parquet", v))});
    }
  }

  void WriteLogFile(const std::string& name, const std::string& text) {
    std::filesystem::create_directories(LogDir());
    std::ofstream out(LogPath(name), std::ios::binary | std::ios::trunc);
    out << text;
    ASSERT_TRUE(out.good()) << LogPath(name);
  }

  void RemoveLogFile(const std::string& name) {
    ASSERT_TRUE(std::filesystem::remove(LogPath(name))) << LogPath(name);
  }

  static std::string CommitName(int64_t version) { return fmt::format("{:020}.json", version); }

  std::string LogDir() const { return root_ + "/_delta_log"; }
  std::string LogPath(const std::string& name) const { return LogDir() + "/" + name; }

  TempDir dir_;
  std::string root_ = dir_.Join("table");
  storage::LocalFileSystem fs_;
};

}  // namespace tributary::testing
