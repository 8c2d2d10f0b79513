// Columns reachable only through their qualifier, as Spark's qualified-access-only metadata
// attributes: after `a JOIN b USING (k)` (or a NATURAL join) the output has one `k`, yet `a.k`
// and `b.k` still name each side's own key, and `a.*` / `b.*` expand to each side's columns
// including the key. The join keeps both sides' keys as extra output columns whose qualifier
// carries a marker: an unqualified name or `*` never matches them, `a.k` and `a.*` do.
//
// The marker lives in the qualifier string (LogicalPlan::Qualifiers) so that every node that
// passes its input's qualifiers through (filters, sorts, joins, windows) keeps the columns
// reachable without knowing about them; a projection that selects one makes it a normal column.

#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace tributary::plan {

/// The first character of a qualified-access-only qualifier. A control character, which no
/// table name or alias contains.
inline constexpr char kQualifiedAccessMarker = '\x1f';

/// `qualifier` marked as reachable by qualified access only.
inline std::string QualifiedAccessOnly(std::string_view qualifier) {
  return fmt::format("{}{}", kQualifiedAccessMarker, qualifier);
}

/// Whether a column with `qualifier` is reachable by qualified access only.
inline bool IsQualifiedAccessOnly(std::string_view qualifier) {
  return !qualifier.empty() && qualifier.front() == kQualifiedAccessMarker;
}

/// The table name or alias of `qualifier`, without the marker.
inline std::string_view QualifierName(std::string_view qualifier) {
  return IsQualifiedAccessOnly(qualifier) ? qualifier.substr(1) : qualifier;
}

}  // namespace tributary::plan
