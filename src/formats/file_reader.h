// FileReader: the one interface a scan reads a data file through, whatever its format. A scan
// (exec::FileScanOperator) opens one reader per file with formats::OpenFileReader
// (formats/file_format.h) and pulls batches from it; which columns are decoded, how a file's
// schema is reconciled with the scan's, what goes to the rescued-data column and which fields
// the schema lacks are the reader's business.
//
// The readers: json::JsonReader, csv::CsvReader, parquet::ReconcilingReader (Parquet files
// whose schema may differ from the scan's), text::TextFileReader and BinaryFileReader (a whole
// file per read).

#pragma once

#include <string>
#include <vector>

#include "columnar/record_batch.h"
#include "tributary/result.h"

namespace tributary::formats {

/// Reads one file into record batches of OutputSchema(), at most the format's batch size each.
///
/// Thread-safety: none; one reader per thread.
class FileReader {
 public:
  virtual ~FileReader() = default;

  /// The schema of the batches Next returns: the selected columns, in the order asked for.
  virtual const columnar::SchemaPtr& OutputSchema() const = 0;

  /// The next batch, or nullptr at the end of the file (and on every call after that). A batch
  /// may have zero rows. Errors name the file (and, where the format has them, the line, row
  /// group or byte offset).
  virtual Result<columnar::RecordBatchPtr> Next() = 0;

  /// The distinct names of the file's top-level fields outside the data schema found so far,
  /// in order of first appearance: JSON and CSV collect them while reading, with their
  /// `report_unknown_fields` option; Parquet has them all from the footer once open. Empty for
  /// formats with a fixed schema.
  virtual const std::vector<std::string>& UnknownFields() const = 0;
};

}  // namespace tributary::formats
