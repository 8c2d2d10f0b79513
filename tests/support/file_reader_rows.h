// Reads a formats::FileReader to its end the way the reader tests check it: every column of
// every batch validated (offsets, validity, UTF-8), the rows as canonical JSON.

#pragma once

#include <string>
#include <vector>

#include "columnar/canonical_json.h"
#include "formats/file_reader.h"
#include "tributary/result.h"

namespace tributary::testing {

/// Every row `reader` returns, in order, as canonical JSON; `batches`, when given, counts the
/// batches. The first invalid column or reader error is returned instead.
inline Result<std::vector<std::string>> ReadAllRows(formats::FileReader& reader,
                                                    int* batches = nullptr) {
  std::vector<std::string> rows;
  while (true) {
    TRIBUTARY_ASSIGN_OR_RAISE(columnar::RecordBatchPtr batch, reader.Next());
    if (batch == nullptr) {
      return rows;
    }
    if (batches != nullptr) {
      ++*batches;
    }
    for (const auto& column : batch->Columns()) {
      TRIBUTARY_RETURN_NOT_OK(column->ValidateFull());
    }
    for (std::string& row : columnar::CanonicalJsonRows(*batch)) {
      rows.push_back(std::move(row));
    }
  }
}

}  // namespace tributary::testing
