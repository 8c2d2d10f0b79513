#include "common/closest_match.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include "common/ascii.h"

namespace tributary {

size_t EditDistance(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  const size_t m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) {
    d[i][0] = i;
  }
  for (size_t j = 0; j <= m; ++j) {
    d[0][j] = j;
  }
  auto lower = [](char c) {
    return std::tolower(static_cast<unsigned char>(c));
  };
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) &&
          lower(a[i - 2]) == lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[n][m];
}

std::string_view ClosestMatch(std::string_view word,
                              const std::vector<std::string_view>& candidates) {
  std::string_view best;
  size_t best_distance = std::numeric_limits<size_t>::max();
  for (std::string_view candidate : candidates) {
    if (EqualsIgnoreAsciiCase(word, candidate)) {
      return {};
    }
    const size_t limit = candidate.size() <= 4 ? 1 : 2;
    const size_t distance = EditDistance(word, candidate);
    if (distance <= limit && distance < std::min(word.size(), candidate.size()) &&
        distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::vector<size_t> OrderedBySimilarity(std::string_view word,
                                        const std::vector<std::string_view>& candidates,
                                        size_t limit) {
  std::vector<std::pair<size_t, size_t>> ranked;  // (distance, position)
  ranked.reserve(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    ranked.emplace_back(EditDistance(word, candidates[i]), i);
  }
  std::stable_sort(ranked.begin(), ranked.end());
  std::vector<size_t> ordered;
  for (size_t i = 0; i < ranked.size() && i < limit; ++i) {
    ordered.push_back(ranked[i].second);
  }
  return ordered;
}

}  // namespace tributary
