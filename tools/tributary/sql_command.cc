#include "sql_command.h"

#include <iostream>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "sql/lexer.h"
#include "tributary/session.h"

namespace tributary::tools {

namespace {

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) {
    return text;
  }
  std::string out = "\"";
  for (char c : text) {
    out += c;
    if (c == '"') {
      out += '"';
    }
  }
  return out + "\"";
}

Status PrintResult(const DataFrame& frame, const std::string& format, std::ostream& out) {
  const std::vector<std::string> names = frame.Columns();
  if (format == "table") {
    // Spark's show() grid, every row, not truncated (left-aligned); statements without result
    // columns (CREATE, DROP) print nothing.
    TRIBUTARY_RETURN_NOT_OK(frame.Status());
    return names.empty() ? Status::OK()
                         : frame.Show(out, std::numeric_limits<int64_t>::max() - 1,
                                      /*truncate=*/false);
  }
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Row> rows, frame.Collect());
  if (format == "json") {
    for (const Row& row : rows) {
      out << row.ToJson() << '\n';
    }
    return Status::OK();
  }
  if (format == "csv") {
    for (size_t c = 0; c < names.size(); ++c) {
      out << (c > 0 ? "," : "") << CsvField(names[c]);
    }
    out << '\n';
    for (const Row& row : rows) {
      for (int c = 0; c < row.Size(); ++c) {
        out << (c > 0 ? "," : "") << (row.IsNull(c) ? "" : CsvField(row.GetString(c)));
      }
      out << '\n';
    }
    return Status::OK();
  }
  return Status::OK();
}

Result<std::shared_ptr<Session>> MakeSession(const SqlCommandOptions& options) {
  if (options.format != "table" && options.format != "json" && options.format != "csv") {
    return Status::InvalidArgument(
        fmt::format("--format {}: use table, json or csv", options.format));
  }
  Session::Builder builder;
  if (!options.warehouse.empty()) {
    builder.Warehouse(options.warehouse);
  }
  if (!options.time_zone.empty()) {
    builder.TimeZone(options.time_zone);
  }
  return builder.Build();
}

}  // namespace

Status RunSqlScript(const SqlCommandOptions& options, const std::string& script,
                    std::ostream& out) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Session> session, MakeSession(options));
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<sql::StatementText> statements,
                            sql::SplitStatements(script));
  for (const sql::StatementText& statement : statements) {
    TRIBUTARY_RETURN_NOT_OK(
        PrintResult(session->Sql(std::string(statement.text)), options.format, out));
  }
  return Status::OK();
}

Status RunSqlPrompt(const SqlCommandOptions& options, std::istream& in, std::ostream& out,
                    std::ostream& err, bool show_prompt) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::shared_ptr<Session> session, MakeSession(options));
  std::string buffer;
  std::string line;
  const auto run_complete = [&](bool at_end) {
    auto statements = sql::SplitStatements(buffer);
    if (!statements.ok()) {
      // An unterminated string or comment may still be closed by the next line.
      if (at_end) {
        err << statements.status().ToString() << '\n';
        buffer.clear();
      }
      return;
    }
    // The last piece is complete only when the buffer ends with ';' (or input ended).
    const bool terminated = buffer.find_last_not_of(" \t\r\n") != std::string::npos &&
                            buffer[buffer.find_last_not_of(" \t\r\n")] == ';';
    size_t count = statements->size();
    if (!terminated && !at_end) {
      if (count <= 1) {
        return;
      }
      --count;
    }
    for (size_t i = 0; i < count; ++i) {
      Status status =
          PrintResult(session->Sql(std::string((*statements)[i].text)), options.format, out);
      if (!status.ok()) {
        err << status.ToString() << '\n';
      }
    }
    if (count == statements->size()) {
      buffer.clear();
    } else {
      const sql::StatementText& rest = (*statements)[count];
      buffer = buffer.substr(static_cast<size_t>(rest.text.data() - buffer.data()));
    }
  };
  while (true) {
    if (show_prompt) {
      out << (buffer.empty() ? "tributary> " : "       ..> ") << std::flush;
    }
    if (!std::getline(in, line)) {
      break;
    }
    buffer += line;
    buffer += '\n';
    run_complete(false);
  }
  run_complete(true);
  return Status::OK();
}

}  // namespace tributary::tools
