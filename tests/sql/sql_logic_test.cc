// The data-driven SQL tests: every tests/sql/cases/**/*.test file runs as one test, in a fresh
// warehouse, statement by statement through Session::Sql.
//
// Dialect (a sqllogictest variant whose results are canonical JSON rows, the format of
// ../shared/testdata/MANIFEST.md, so types need no letter codes):
//
//   # a comment line                          blank lines separate records
//   statement ok                              the SQL on the following lines must succeed
//   <sql>
//
//   statement error <text>                    it must fail, and the error message must
//   <sql>                                     contain <text>
//
//   query [nosort|rowsort]                    the rows, one canonical JSON object per line,
//   <sql>                                     after "----"; rowsort (the default when the
//   ----                                      query has no ORDER BY) compares them sorted,
//   {"a":1}                                   nosort in the order the query returns them
//
// In SQL text, ${WORK} is the test's temporary directory and ${TESTDATA} the Delta corpus.
// With TRIBUTARY_SQLLOGIC_REWRITE=1 the runner rewrites each file with the actual results (to
// write new tests; review every rewritten line before committing it).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "support/duckdb_oracle.h"
#include "support/temp_dir.h"
#include "tributary/session.h"

namespace tributary {
namespace {

struct Record {
  enum class Kind { kStatementOk, kStatementError, kQuery } kind = Kind::kStatementOk;
  std::string error_text;
  bool sort_rows = true;
  std::string sql;
  std::vector<std::string> expected;
  int line = 0;
};

std::string Trim(const std::string& text) {
  const size_t begin = text.find_first_not_of(" \t\r");
  if (begin == std::string::npos) {
    return "";
  }
  return text.substr(begin, text.find_last_not_of(" \t\r") - begin + 1);
}

std::vector<Record> ParseFile(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
  }
  std::vector<Record> records;
  size_t i = 0;
  while (i < lines.size()) {
    const std::string header = Trim(lines[i]);
    if (header.empty() || header[0] == '#') {
      ++i;
      continue;
    }
    Record record;
    record.line = static_cast<int>(i + 1);
    if (header == "statement ok") {
      record.kind = Record::Kind::kStatementOk;
    } else if (header.rfind("statement error", 0) == 0) {
      record.kind = Record::Kind::kStatementError;
      record.error_text = Trim(header.substr(15));
    } else if (header.rfind("query", 0) == 0) {
      record.kind = Record::Kind::kQuery;
      const std::string mode = Trim(header.substr(5));
      record.sort_rows = mode != "nosort";
    } else {
      ADD_FAILURE() << path << ":" << i + 1 << ": unknown record '" << header << "'";
      return records;
    }
    ++i;
    while (i < lines.size() && !Trim(lines[i]).empty() && Trim(lines[i]) != "----") {
      record.sql += (record.sql.empty() ? "" : "\n") + lines[i];
      ++i;
    }
    if (record.kind == Record::Kind::kQuery && i < lines.size() && Trim(lines[i]) == "----") {
      ++i;
      while (i < lines.size() && !Trim(lines[i]).empty()) {
        record.expected.push_back(lines[i]);
        ++i;
      }
    }
    records.push_back(std::move(record));
  }
  return records;
}

std::string Substitute(std::string sql, const std::string& key, const std::string& value) {
  for (size_t at = sql.find(key); at != std::string::npos; at = sql.find(key, at + value.size())) {
    sql.replace(at, key.size(), value);
  }
  return sql;
}

std::vector<std::string> TestFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(TRIBUTARY_SQL_CASES_DIR)) {
    if (entry.is_regular_file() && entry.path().extension() == ".test") {
      files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

class SqlLogicTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlLogicTest, Runs) {
  const std::string path = GetParam();
  std::vector<Record> records = ParseFile(path);
  ASSERT_FALSE(records.empty()) << path << " has no records";
  testing::TempDir work;
  auto session = Session::Builder().Warehouse(work.Path() + "/warehouse").TimeZone("UTC").Build();
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  const bool rewrite = std::getenv("TRIBUTARY_SQLLOGIC_REWRITE") != nullptr;
  for (Record& record : records) {
    const std::string sql = Substitute(Substitute(record.sql, "${WORK}", work.Path()),
                                       "${TESTDATA}", testing::TestdataDir());
    const std::string where = path + ":" + std::to_string(record.line);
    DataFrame frame = (*session)->Sql(sql);
    auto rows = frame.Collect();
    switch (record.kind) {
      case Record::Kind::kStatementOk:
        EXPECT_TRUE(rows.ok()) << where << ": " << rows.status().ToString();
        break;
      case Record::Kind::kStatementError:
        if (rows.ok()) {
          ADD_FAILURE() << where << ": succeeded, expected an error containing '"
                        << record.error_text << "'";
        } else {
          EXPECT_NE(rows.status().ToString().find(record.error_text), std::string::npos)
              << where << ": the error\n"
              << rows.status().ToString() << "\ndoes not contain '" << record.error_text << "'";
        }
        if (rewrite && !rows.ok() && record.error_text.empty()) {
          const std::string& message = rows.status().Message();
          record.error_text = message.substr(0, message.find('\n'));
        }
        break;
      case Record::Kind::kQuery: {
        if (!rows.ok()) {
          ADD_FAILURE() << where << ": " << rows.status().ToString();
          break;
        }
        std::vector<std::string> actual;
        for (const Row& row : *rows) {
          actual.push_back(row.ToJson());
        }
        std::vector<std::string> expected = record.expected;
        if (record.sort_rows) {
          std::sort(actual.begin(), actual.end());
          std::sort(expected.begin(), expected.end());
        }
        if (rewrite) {
          record.expected = actual;
        } else {
          EXPECT_EQ(actual, expected) << where << ":\n" << sql;
        }
        break;
      }
    }
  }
  if (rewrite) {
    // Keep the file's comments: rewrite only the results of each query record in place.
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) {
      lines.push_back(line);
    }
    std::ostringstream out;
    size_t next = 0;
    for (const Record& record : records) {
      const size_t start = static_cast<size_t>(record.line - 1);
      for (; next < start; ++next) {
        out << lines[next] << '\n';
      }
      size_t end = start + 1;
      while (end < lines.size() && !Trim(lines[end]).empty() && Trim(lines[end]) != "----") {
        ++end;
      }
      std::string header = lines[start];
      if (record.kind == Record::Kind::kStatementError) {
        header = "statement error " + record.error_text;
      }
      out << header << '\n';
      for (size_t k = start + 1; k < end; ++k) {
        out << lines[k] << '\n';
      }
      if (record.kind == Record::Kind::kQuery) {
        out << "----\n";
        for (const std::string& row : record.expected) {
          out << row << '\n';
        }
        if (end < lines.size() && Trim(lines[end]) == "----") {
          ++end;
          while (end < lines.size() && !Trim(lines[end]).empty()) {
            ++end;
          }
        }
      }
      next = end;
    }
    for (; next < lines.size(); ++next) {
      out << lines[next] << '\n';
    }
    std::ofstream(path) << out.str();
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, SqlLogicTest, ::testing::ValuesIn(TestFiles()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = std::filesystem::path(param.param).stem().string();
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
                               '_');
                           return name;
                         });

}  // namespace
}  // namespace tributary
