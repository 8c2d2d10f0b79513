// Regular expressions and pattern predicates with Spark's semantics: like, rlike/regexp/
// regexp_like, regexp_extract[_all], regexp_replace, regexp_count, regexp_substr, regexp_instr,
// split. Patterns are Java's syntax as far as RE2 implements it. Where Java's java.util.regex and
// RE2 differ: backreferences, lookaround and possessive quantifiers are errors at bind time; \w,
// \d, \s and \b are ASCII-only in both, but RE2's '.' and classes match whole code points where
// Java matches UTF-16 units (the same for text in the Basic Multilingual Plane); Java's embedded
// flags (?i) (?s) (?m) work, (?x) and (?u) do not; named groups are (?P<name>...) or
// (?<name>...).

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>
#include <re2/re2.h>

#include "columnar/column_builder.h"
#include "common/utf8.h"
#include "expr/coercion.h"
#include "expr/function_kernels.h"
#include "expr/function_registry.h"
#include "expr/kernels.h"
#include "expr/string_helpers.h"

namespace tributary::expr {

using columnar::ColumnBuilder;
using columnar::TypeId;

namespace {

// ---- regular expressions -------------------------------------------------------------------

Result<std::shared_ptr<const RE2>> CompileRegex(std::string_view pattern, std::string_view what) {
  RE2::Options options;
  options.set_log_errors(false);
  auto regex =
      std::make_shared<const RE2>(re2::StringPiece(pattern.data(), pattern.size()), options);
  if (!regex->ok()) {
    return Status::InvalidArgument(
        fmt::format("invalid {} '{}': {}", what, pattern, regex->error()));
  }
  return regex;
}

// A regex argument: compiled once when it is a literal, else per distinct value of a batch.
class RegexArgument {
 public:
  static Result<RegexArgument> Make(const BoundExpression& arg, std::string_view what) {
    RegexArgument result;
    result.what_ = std::string(what);
    if (arg.GetOp() == Op::kLiteral && !arg.Literal().IsNull()) {
      TRIBUTARY_ASSIGN_OR_RAISE(result.constant_, CompileRegex(arg.Literal().BytesValue(), what));
    }
    return result;
  }

  // The regex of row `row` of `patterns`; `cache` holds per-batch compilations.
  Result<const RE2*> At(
      const Column& patterns, int64_t row,
      std::map<std::string, std::shared_ptr<const RE2>, std::less<>>* cache) const {
    if (constant_) {
      return constant_.get();
    }
    const std::string_view text = patterns.BytesAt(row);
    auto it = cache->find(text);
    if (it == cache->end()) {
      TRIBUTARY_ASSIGN_OR_RAISE(auto regex, CompileRegex(text, what_));
      it = cache->emplace(std::string(text), std::move(regex)).first;
    }
    return it->second.get();
  }

 private:
  std::shared_ptr<const RE2> constant_;
  std::string what_;
};

using RegexCache = std::map<std::string, std::shared_ptr<const RE2>, std::less<>>;

re2::StringPiece Piece(std::string_view s) {
  return {s.data(), s.size()};
}

// BuildBytes for a function whose args[1] is `regex`: `row(i, regex_of_row_i, out, status)`
// makes row i's string; it returns false with `*status` set to fail the call.
template <typename Row>
Result<ColumnPtr> BuildBytesWithRegex(const RegexArgument& regex, const BoundExpression& call,
                                      const std::vector<ColumnPtr>& args,
                                      const EvalContext& context, Row row) {
  RegexCache cache;
  Status status;
  auto result = BuildBytes(call.Type(), args, context.pool, [&](int64_t i, std::string* out) {
    auto compiled = regex.At(*args[1], i, &cache);
    if (!compiled.ok()) {
      status = compiled.status();
      return false;
    }
    return row(i, **compiled, out, &status);
  });
  TRIBUTARY_RETURN_NOT_OK(status);
  return result;
}

// Binds a `Function` whose args[1] is a regular expression: `call` takes from `min_args` to
// arg_types.size() arguments, coerced to `arg_types`.
template <typename Function>
Result<BoundExprPtr> BindRegexCall(const Expression& call, std::vector<BoundExprPtr> args,
                                   size_t min_args, const std::vector<DataTypePtr>& arg_types,
                                   DataTypePtr result_type) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, min_args, arg_types.size()));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, arg_types));
  TRIBUTARY_ASSIGN_OR_RAISE(auto regex, RegexArgument::Make(*args[1], "regular expression"));
  return MakeFunctionCall(call.Name(), std::move(result_type), std::move(args),
                          std::make_shared<const Function>(std::move(regex)));
}

class RlikeFunction final : public EagerFunction {
 public:
  explicit RlikeFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<uint8_t>(call.Type(), args, context.pool, [&](int64_t i) -> uint8_t {
      auto regex = regex_.At(*args[1], i, &cache);
      if (!regex.ok()) {
        status = regex.status();
        return 0;
      }
      return static_cast<uint8_t>(RE2::PartialMatch(Piece(args[0]->BytesAt(i)), **regex));
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRlike(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RlikeFunction>(call, std::move(args), 2, Strings(2), DataType::Boolean());
}

// LIKE pattern -> an anchored RE2 pattern: '_' one character, '%' any run, `escape` makes the
// next character literal (only '_', '%' or the escape itself may follow it, as Spark checks).
Result<std::string> LikeToRegex(std::string_view pattern, char escape) {
  std::string out = "(?s)";
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == escape) {
      if (i + 1 == pattern.size()) {
        return Status::InvalidArgument(
            fmt::format("the LIKE pattern '{}' ends with the escape character", pattern));
      }
      const char next = pattern[++i];
      if (next != '_' && next != '%' && next != escape) {
        return Status::InvalidArgument(fmt::format(
            "the escape character is not allowed to precede '{}' in the LIKE pattern '{}' "
            "(offset {})",
            next, pattern, i));
      }
      out += RE2::QuoteMeta(std::string(1, next));
    } else if (c == '%') {
      out += ".*";
    } else if (c == '_') {
      out += ".";
    } else {
      // Quote a whole UTF-8 character at once.
      const size_t w = std::min(static_cast<size_t>(Utf8Width(static_cast<unsigned char>(c))),
                                pattern.size() - i);
      out += RE2::QuoteMeta(Piece(pattern.substr(i, w)));
      i += w - 1;
    }
  }
  return out;
}

class LikeFunction final : public EagerFunction {
 public:
  LikeFunction(std::shared_ptr<const RE2> constant, char escape)
      : constant_(std::move(constant)), escape_(escape) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<uint8_t>(call.Type(), args, context.pool, [&](int64_t i) -> uint8_t {
      const RE2* regex = constant_.get();
      if (regex == nullptr) {
        const std::string_view pattern = args[1]->BytesAt(i);
        auto it = cache.find(pattern);
        if (it == cache.end()) {
          auto translated = LikeToRegex(pattern, escape_);
          if (!translated.ok()) {
            status = translated.status();
            return 0;
          }
          auto compiled = CompileRegex(*translated, "LIKE pattern");
          if (!compiled.ok()) {
            status = compiled.status();
            return 0;
          }
          it = cache.emplace(std::string(pattern), *compiled).first;
        }
        regex = it->second.get();
      }
      return static_cast<uint8_t>(RE2::FullMatch(Piece(args[0]->BytesAt(i)), *regex));
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  std::shared_ptr<const RE2> constant_;
  char escape_;
};

Result<BoundExprPtr> BindLike(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  char escape = '\\';
  if (args.size() == 3) {
    const BoundExpression& e = *args[2];
    if (e.GetOp() != Op::kLiteral || e.Literal().IsNull() || e.Type()->Id() != TypeId::kString ||
        e.Literal().BytesValue().size() != 1) {
      return CallError(call, "the escape must be a one-character string literal");
    }
    escape = e.Literal().BytesValue()[0];
    args.pop_back();
  }
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, Strings(2)));
  std::shared_ptr<const RE2> constant;
  if (args[1]->GetOp() == Op::kLiteral && !args[1]->Literal().IsNull()) {
    TRIBUTARY_ASSIGN_OR_RAISE(auto translated,
                              LikeToRegex(args[1]->Literal().BytesValue(), escape));
    TRIBUTARY_ASSIGN_OR_RAISE(constant, CompileRegex(translated, "LIKE pattern"));
  }
  return MakeFunctionCall(call.Name(), DataType::Boolean(), std::move(args),
                          std::make_shared<const LikeFunction>(std::move(constant), escape));
}

// regexp_extract(str, regex[, group = 1]): "" when nothing matches or the group did not take
// part; a group past the regex's count is an error.
class RegexpExtractFunction final : public EagerFunction {
 public:
  explicit RegexpExtractFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return BuildBytesWithRegex(
        regex_, call, args, context,
        [&](int64_t i, const RE2& regex, std::string* out, Status* status) {
          // As Spark, the group index is checked only once something matched.
          const int64_t group = args.size() > 2 ? IntAt(*args[2], i) : 1;
          const int groups = regex.NumberOfCapturingGroups();
          std::vector<re2::StringPiece> matches(static_cast<size_t>(groups) + 1);
          const std::string_view s = args[0]->BytesAt(i);
          if (!regex.Match(Piece(s), 0, s.size(), RE2::UNANCHORED, matches.data(), groups + 1)) {
            return true;
          }
          if (group < 0 || group > groups) {
            *status = Status::InvalidArgument(fmt::format(
                "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in "
                "`regexp_extract` is invalid: Expects group index between 0 and {}, but got {}.",
                groups, group));
            return false;
          }
          const re2::StringPiece& m = matches[static_cast<size_t>(group)];
          if (m.data() != nullptr) {
            out->assign(m.data(), m.size());
          }
          return true;
        });
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpExtract(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpExtractFunction>(
      call, std::move(args), 2, {DataType::String(), DataType::String(), DataType::Int32()},
      DataType::String());
}

// Java's replacement syntax ($1, ${name} not supported, \$ literal) -> RE2's (\1).
std::string JavaReplacementToRe2(std::string_view replacement) {
  std::string out;
  for (size_t i = 0; i < replacement.size(); ++i) {
    const char c = replacement[i];
    if (c == '\\' && i + 1 < replacement.size()) {
      const char next = replacement[++i];
      if (next == '\\') {
        out += "\\\\";
      } else {
        out.push_back(next);
      }
    } else if (c == '$' && i + 1 < replacement.size() && replacement[i + 1] >= '0' &&
               replacement[i + 1] <= '9') {
      out.push_back('\\');
      out.push_back(replacement[++i]);
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// regexp_replace(str, regex, replacement[, position = 1]): every match from `position` on.
class RegexpReplaceFunction final : public EagerFunction {
 public:
  explicit RegexpReplaceFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return BuildBytesWithRegex(
        regex_, call, args, context,
        [&](int64_t i, const RE2& regex, std::string* out, Status* status) {
          const std::string_view s = args[0]->BytesAt(i);
          const int64_t position = args.size() > 3 ? IntAt(*args[3], i) : 1;
          if (position < 1) {
            *status = Status::InvalidArgument(fmt::format(
                "row {}: regexp_replace position must be at least 1, got {}", i, position));
            return false;
          }
          if (position > 1 && position - 1 >= NumChars(s)) {
            // Spark leaves the string alone when the search would start past its end.
            out->assign(s);
            return true;
          }
          const size_t from = ByteOffsetOfChar(s, position - 1);
          std::string tail(s.substr(from));
          RE2::GlobalReplace(&tail, regex, JavaReplacementToRe2(args[2]->BytesAt(i)));
          out->assign(s.substr(0, from));
          out->append(tail);
          return true;
        });
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpReplace(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpReplaceFunction>(
      call, std::move(args), 3,
      {DataType::String(), DataType::String(), DataType::String(), DataType::Int32()},
      DataType::String());
}

// split(str, regex[, limit = -1]) as Java's String.split with that limit: trailing empty
// strings are kept, a zero-width match at the start yields no leading empty string, limit > 0
// caps the number of parts (the last one holds the rest).
class SplitFunction final : public EagerFunction {
 public:
  explicit SplitFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    const int64_t n = args[0]->Length();
    ColumnBuilder builder(call.Type(), context.pool);
    ColumnBuilder& parts = builder.Child(0);
    for (int64_t i = 0; i < n; ++i) {
      bool any_null = false;
      for (const ColumnPtr& arg : args) {
        any_null = any_null || arg->IsNull(i);
      }
      if (any_null) {
        builder.AppendNull();
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(const RE2* regex, regex_.At(*args[1], i, &cache));
      const int64_t limit = args.size() > 2 ? IntAt(*args[2], i) : -1;
      const std::string_view s = args[0]->BytesAt(i);
      size_t start = 0;
      size_t search = 0;
      int64_t count = 0;
      re2::StringPiece match;
      while (search <= s.size() && (limit <= 0 || count < limit - 1) &&
             regex->Match(Piece(s), search, s.size(), RE2::UNANCHORED, &match, 1)) {
        const auto at = static_cast<size_t>(match.data() - s.data());
        const size_t end = at + match.size();
        if (match.empty()) {
          if (at >= s.size()) {
            break;
          }
          if (at == 0) {
            search = static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[0])));
            continue;
          }
        }
        parts.AppendBytes(s.substr(start, at - start));
        ++count;
        start = end;
        search = match.empty()
                     ? end + static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[end])))
                     : end;
      }
      parts.AppendBytes(s.substr(start));
      builder.AppendArray();
    }
    return builder.Finish();
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindSplit(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<SplitFunction>(call, std::move(args), 2,
                                      {DataType::String(), DataType::String(), DataType::Int32()},
                                      DataType::Array(DataType::String(), false));
}

// Calls `on_match(groups)` for each match of `regex` in `s` in the order of Java's
// Matcher.find loop: after an empty match the search goes on one character later.
template <typename OnMatch>
void ForEachMatch(const RE2& regex, std::string_view s, int groups, OnMatch on_match) {
  std::vector<re2::StringPiece> m(static_cast<size_t>(groups) + 1);
  size_t search = 0;
  while (search <= s.size() &&
         regex.Match(Piece(s), search, s.size(), RE2::UNANCHORED, m.data(), groups + 1)) {
    if (!on_match(m)) {
      return;
    }
    const size_t end = static_cast<size_t>(m[0].data() - s.data()) + m[0].size();
    if (!m[0].empty()) {
      search = end;
    } else if (end >= s.size()) {
      return;
    } else {
      search = end + static_cast<size_t>(Utf8Width(static_cast<unsigned char>(s[end])));
    }
  }
}

Status CheckGroupIndex(const RE2& regex, int64_t group, std::string_view function) {
  const int groups = regex.NumberOfCapturingGroups();
  if (group < 0 || group > groups) {
    return Status::InvalidArgument(fmt::format(
        "[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX] The value of parameter(s) `idx` in `{}` is "
        "invalid: Expects group index between 0 and {}, but got {}.",
        function, groups, group));
  }
  return Status::OK();
}

// regexp_extract_all(str, regex[, group = 1]): the group of every match ("" where it did not
// take part).
class RegexpExtractAllFunction final : public EagerFunction {
 public:
  explicit RegexpExtractAllFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    const int64_t n = args[0]->Length();
    ColumnBuilder builder(call.Type(), context.pool);
    ColumnBuilder& parts = builder.Child(0);
    for (int64_t i = 0; i < n; ++i) {
      if (std::any_of(args.begin(), args.end(),
                      [i](const ColumnPtr& arg) { return arg->IsNull(i); })) {
        builder.AppendNull();
        continue;
      }
      TRIBUTARY_ASSIGN_OR_RAISE(const RE2* regex, regex_.At(*args[1], i, &cache));
      const int64_t group = args.size() > 2 ? IntAt(*args[2], i) : 1;
      // As Spark, the group index is checked only once something matched.
      Status status;
      ForEachMatch(*regex, args[0]->BytesAt(i), regex->NumberOfCapturingGroups(),
                   [&](const std::vector<re2::StringPiece>& m) {
                     status = CheckGroupIndex(*regex, group, "regexp_extract_all");
                     if (!status.ok()) {
                       return false;
                     }
                     const re2::StringPiece& g = m[static_cast<size_t>(group)];
                     parts.AppendBytes(std::string_view(g.data() == nullptr ? "" : g.data(),
                                                        g.data() == nullptr ? 0 : g.size()));
                     return true;
                   });
      TRIBUTARY_RETURN_NOT_OK(status);
      builder.AppendArray();
    }
    return builder.Finish();
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpExtractAll(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpExtractAllFunction>(
      call, std::move(args), 2, {DataType::String(), DataType::String(), DataType::Int32()},
      DataType::Array(DataType::String(), false));
}

// regexp_count(str, regex): the number of matches, empty ones included.
class RegexpCountFunction final : public EagerFunction {
 public:
  explicit RegexpCountFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<int32_t>(call.Type(), args, context.pool, [&](int64_t i) {
      auto regex = regex_.At(*args[1], i, &cache);
      if (!regex.ok()) {
        status = regex.status();
        return 0;
      }
      int32_t count = 0;
      ForEachMatch(**regex, args[0]->BytesAt(i), 0, [&](const std::vector<re2::StringPiece>&) {
        ++count;
        return true;
      });
      return count;
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpCount(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpCountFunction>(call, std::move(args), 2, Strings(2),
                                            DataType::Int32());
}

// regexp_substr(str, regex): the first match, null when there is none or it is empty.
class RegexpSubstrFunction final : public EagerFunction {
 public:
  explicit RegexpSubstrFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    return BuildBytesWithRegex(
        regex_, call, args, context, [&](int64_t i, const RE2& regex, std::string* out, Status*) {
          re2::StringPiece match;
          const std::string_view s = args[0]->BytesAt(i);
          if (!regex.Match(Piece(s), 0, s.size(), RE2::UNANCHORED, &match, 1) || match.empty()) {
            return false;
          }
          out->assign(match.data(), match.size());
          return true;
        });
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpSubstr(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpSubstrFunction>(call, std::move(args), 2, Strings(2),
                                             DataType::String());
}

// regexp_instr(str, regex[, idx]): the 1-based character position where the first match
// starts, 0 when nothing matches. Spark accepts idx but ignores it (RegExpInStr always reports
// the start of the whole match); a null idx still makes the row null.
class RegexpInstrFunction final : public EagerFunction {
 public:
  explicit RegexpInstrFunction(RegexArgument regex) : regex_(std::move(regex)) {}
  Result<ColumnPtr> Compute(const BoundExpression& call, const std::vector<ColumnPtr>& args,
                            const EvalContext& context) const override {
    RegexCache cache;
    Status status;
    auto result = BuildFixed<int32_t>(call.Type(), args, context.pool, [&](int64_t i) {
      auto regex = regex_.At(*args[1], i, &cache);
      if (!regex.ok()) {
        status = regex.status();
        return 0;
      }
      const std::string_view s = args[0]->BytesAt(i);
      re2::StringPiece match;
      if (!(*regex)->Match(Piece(s), 0, s.size(), RE2::UNANCHORED, &match, 1)) {
        return 0;
      }
      const auto at = static_cast<size_t>(match.data() - s.data());
      return static_cast<int32_t>(NumChars(s.substr(0, at)) + 1);
    });
    TRIBUTARY_RETURN_NOT_OK(status);
    return result;
  }

 private:
  RegexArgument regex_;
};

Result<BoundExprPtr> BindRegexpInstr(const Expression& call, std::vector<BoundExprPtr> args) {
  return BindRegexCall<RegexpInstrFunction>(
      call, std::move(args), 2, {DataType::String(), DataType::String(), DataType::Int32()},
      DataType::Int32());
}

}  // namespace

void AddRegexpFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"rlike", BindRlike},
                               {"regexp", BindRlike},
                               {"regexp_like", BindRlike},
                               {"like", BindLike},
                               {"regexp_extract", BindRegexpExtract},
                               {"regexp_replace", BindRegexpReplace},
                               {"split", BindSplit},
                               {"regexp_extract_all", BindRegexpExtractAll},
                               {"regexp_count", BindRegexpCount},
                               {"regexp_substr", BindRegexpSubstr},
                               {"regexp_instr", BindRegexpInstr}});
}

}  // namespace tributary::expr
