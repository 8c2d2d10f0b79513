// tributary quickstart: the DataFrame API from raw JSON to a Delta table and back.
//
//   quickstart [WORK_DIR]
//
// Writes a few JSON event files under WORK_DIR (default: a new directory in /tmp), reads them
// with schema inference, aggregates per country, saves the result as the Delta table
// `events_by_country` in WORK_DIR/warehouse, and queries it back, with time travel.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "tributary/dataframe.h"
#include "tributary/delta_table.h"
#include "tributary/session.h"

using tributary::Col;
using tributary::Count;
using tributary::DataFrame;
using tributary::Lit;
using tributary::Sum;

namespace {

int Fail(const tributary::Status& status) {
  std::cerr << "quickstart: " << status.ToString() << "\n";
  return 1;
}

void WriteSampleEvents(const std::string& dir) {
  std::filesystem::create_directories(dir);
  const char* countries[] = {"DE", "FR", "US"};
  for (int file = 0; file < 3; ++file) {
    std::ofstream out(dir + "/events-" + std::to_string(file) + ".json");
    for (int i = 0; i < 10; ++i) {
      const int id = file * 10 + i;
      out << R"({"id":)" << id << R"(,"country":")" << countries[id % 3] << R"(","status":")"
          << (id % 4 == 0 ? "error" : "ok") << R"(","bytes":)" << id * 100 << "}\n";
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string work = argc > 1 ? argv[1] : "";
  if (work.empty()) {
    char pattern[] = "/tmp/tributary-quickstart-XXXXXX";
    const char* made = mkdtemp(pattern);
    if (made == nullptr) {
      std::cerr << "quickstart: cannot create a work directory\n";
      return 1;
    }
    work = made;
  }
  WriteSampleEvents(work + "/raw");

  auto session = tributary::Session::Builder().Warehouse(work + "/warehouse").Build();
  if (!session.ok()) {
    return Fail(session.status());
  }
  // Read raw JSON (schema inferred as Spark does), keep successful events, aggregate.
  DataFrame events = (*session)->Read().Format("json").Load(work + "/raw");
  DataFrame by_country = events.Filter(Col("status") == Lit("ok"))
                             .GroupBy({Col("country")})
                             .Agg({Count().Alias("events"), Sum(Col("bytes")).Alias("bytes")})
                             .OrderBy({Col("country")});
  if (auto status =
          by_country.Write().Format("delta").Mode("overwrite").SaveAsTable("events_by_country");
      !status.ok()) {
    return Fail(status);
  }
  // Append the error counts too: a second version of the table.
  DataFrame errors = events.Filter(Col("status") == Lit("error"))
                         .GroupBy({Col("country")})
                         .Agg({Count().Alias("events"), Sum(Col("bytes")).Alias("bytes")});
  if (auto status = errors.Write().Mode("append").SaveAsTable("events_by_country"); !status.ok()) {
    return Fail(status);
  }

  DataFrame table = (*session)->Table("events_by_country");
  std::cout << "events_by_country, latest version:\n";
  if (auto status = table.OrderBy({Col("country"), Col("events")}).Show(); !status.ok()) {
    return Fail(status);
  }
  std::cout << "version 0 (time travel):\n";
  if (auto status = (*session)->Read().Option("versionAsOf", "0").Table("events_by_country").Show();
      !status.ok()) {
    return Fail(status);
  }
  auto delta_table = tributary::DeltaTable::ForName(**session, "events_by_country");
  if (!delta_table.ok()) {
    return Fail(delta_table.status());
  }
  std::cout << "history:\n";
  if (auto status = delta_table->History().Select({"version", "operation"}).Show(); !status.ok()) {
    return Fail(status);
  }
  return 0;
}
