// Type rules shared by the JSON and CSV readers' schema inference (Spark's
// JsonInferSchema.compatibleType and CSVInferSchema, as Auto Loader applies them).

#pragma once

#include "columnar/schema.h"

namespace tributary::text {

/// The narrowest type both `a` and `b` fit in, Spark's rules: equal types stay; void (the type
/// of JSON null) gives way to anything; integers widen to the wider integer, integer + double
/// and decimal + double give double, integer + decimal gives a decimal wide enough for both
/// (double past 38 digits); date + timestamp gives timestamp; structs merge field by field
/// (fields kept sorted by name, as Spark's JSON inference sorts them); arrays merge their
/// elements; maps merge their values; anything else, and anything with string, gives string.
columnar::DataTypePtr WidenInferredTypes(const columnar::DataTypePtr& a,
                                         const columnar::DataTypePtr& b);

/// The final form of an inferred type: void becomes string (null-only columns), empty structs
/// become string (so their text is kept), recursively.
columnar::DataTypePtr FinalizeInferredType(const columnar::DataTypePtr& type);

/// `type` with every leaf turned into string, keeping structs, arrays and maps: what inference
/// yields with `inferColumnTypes` off.
columnar::DataTypePtr LeavesAsString(const columnar::DataTypePtr& type);

/// `schema` with every field, element and map value nullable (file sources never trust
/// non-null declarations; Spark's `asNullable`).
columnar::SchemaPtr AsNullable(const columnar::Schema& schema);

/// The output schema of a text reader: `schema` made nullable, then the corrupt-record and the
/// rescued-data columns (each when named and not already in `schema`). InvalidArgument, naming
/// `reader` ("JSON reader"), when `schema` has one of them as something other than a string.
Result<columnar::SchemaPtr> TextReaderOutputSchema(const columnar::Schema& schema,
                                                   const std::string& corrupt_record_column,
                                                   const std::string& rescued_data_column,
                                                   std::string_view reader);

}  // namespace tributary::text
