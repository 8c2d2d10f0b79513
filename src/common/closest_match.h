// "Did you mean ...?": the candidate closest to a misspelt word, for the SQL parser's
// keywords, the function registry's names and the analyzer's column names.

#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace tributary {

/// Optimal string alignment distance (Levenshtein plus swaps of neighbours), ignoring ASCII
/// case.
size_t EditDistance(std::string_view a, std::string_view b);

/// The closest of `candidates` to `word` when it is a likely typo: at most 1 edit for
/// candidates of up to 4 characters, else at most 2, and fewer edits than either word has
/// characters; empty when none qualifies or `word` equals a candidate (ignoring case).
std::string_view ClosestMatch(std::string_view word,
                              const std::vector<std::string_view>& candidates);

/// Positions in `candidates` ordered by EditDistance to `word`, closest first (ties keep their
/// order), at most `limit` of them: the list of Spark's "Did you mean one of the following?".
std::vector<size_t> OrderedBySimilarity(std::string_view word,
                                        const std::vector<std::string_view>& candidates,
                                        size_t limit);

}  // namespace tributary
