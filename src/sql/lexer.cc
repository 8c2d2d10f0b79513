#include "sql/lexer.h"

#include <cctype>

#include <fmt/format.h>

#include "common/ascii.h"
#include "common/utf8.h"

namespace tributary::sql {
namespace {

bool IsWordChar(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '_' || u >= 0x80;
}

// Longest operators first, so "<=>" wins over "<=" and "<".
constexpr std::string_view kOperators[] = {
    "<=>", "<=", ">=", "<>", "!=", "==", "=>", "||", "::", "->", "=", "<", ">", "+", "-", "*", "/",
    "%",   "&",  "|",  "^",  "~",  "!",  ".",  ",",  ";",  ":",  "(", ")", "[", "]", "{", "}",
};

// Spark's unescapeSQLString over the body of a literal (between the quotes).
std::string Unescape(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out.push_back(body[i]);
      continue;
    }
    const char c = body[++i];
    if (c == 'u' && i + 4 < body.size() + 0 && HexDigitValue(body[i + 1]) >= 0 &&
        HexDigitValue(body[i + 2]) >= 0 && HexDigitValue(body[i + 3]) >= 0 &&
        HexDigitValue(body[i + 4]) >= 0) {
      uint32_t code_point = 0;
      for (size_t k = 1; k <= 4; ++k) {
        code_point = code_point * 16 + static_cast<uint32_t>(HexDigitValue(body[i + k]));
      }
      AppendUtf8(code_point, &out);
      i += 4;
      continue;
    }
    if (c >= '0' && c <= '3' && i + 2 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7' &&
        body[i + 2] >= '0' && body[i + 2] <= '7') {
      out.push_back(
          static_cast<char>((c - '0') * 64 + (body[i + 1] - '0') * 8 + (body[i + 2] - '0')));
      i += 2;
      continue;
    }
    switch (c) {
      case '0':
        out.push_back('\0');
        break;
      case 'b':
        out.push_back('\b');
        break;
      case 'n':
        out.push_back('\n');
        break;
      case 'r':
        out.push_back('\r');
        break;
      case 't':
        out.push_back('\t');
        break;
      case 'Z':
        out.push_back('\x1A');
        break;
      case '%':
      case '_':
        out.push_back('\\');
        out.push_back(c);
        break;
      default:
        out.push_back(c);
        break;
    }
  }
  return out;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Result<std::vector<Token>> Run() {
    std::vector<Token> tokens;
    while (true) {
      TRIBUTARY_RETURN_NOT_OK(SkipSpaceAndComments());
      Token token;
      token.position = position_;
      if (pos_ >= text_.size()) {
        tokens.push_back(std::move(token));
        return tokens;
      }
      const size_t start = pos_;
      TRIBUTARY_RETURN_NOT_OK(Next(&token));
      token.length = pos_ - start;
      tokens.push_back(std::move(token));
    }
  }

 private:
  char Peek(size_t ahead = 0) const {
    return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0';
  }

  // Moves `count` bytes forward, keeping line and column (columns count characters: UTF-8
  // continuation bytes do not advance them).
  void Advance(size_t count = 1) {
    for (size_t i = 0; i < count && pos_ < text_.size(); ++i) {
      const char c = text_[pos_++];
      if (c == '\n') {
        ++position_.line;
        position_.column = 1;
      } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
        ++position_.column;
      }
      position_.offset = pos_;
    }
  }

  Status SkipSpaceAndComments() {
    while (pos_ < text_.size()) {
      const char c = Peek();
      if (std::isspace(static_cast<unsigned char>(c))) {
        Advance();
      } else if (c == '-' && Peek(1) == '-') {
        while (pos_ < text_.size() && Peek() != '\n') {
          Advance();
        }
      } else if (c == '/' && Peek(1) == '*') {
        const SourcePosition start = position_;
        int depth = 0;
        do {
          if (pos_ >= text_.size()) {
            return SyntaxError(text_, start, "unterminated /* comment");
          }
          if (Peek() == '/' && Peek(1) == '*') {
            ++depth;
            Advance(2);
          } else if (Peek() == '*' && Peek(1) == '/') {
            --depth;
            Advance(2);
          } else {
            Advance();
          }
        } while (depth > 0);
      } else {
        return Status::OK();
      }
    }
    return Status::OK();
  }

  Status Next(Token* token) {
    const char c = Peek();
    if ((c == 'X' || c == 'x') && Peek(1) == '\'') {
      return Binary(token);
    }
    if (c == '\'' || c == '"') {
      return String(token);
    }
    if (c == '`') {
      return QuotedWord(token);
    }
    if (IsAsciiDigit(c) || (c == '.' && IsAsciiDigit(Peek(1)))) {
      return NumberOrWord(token);
    }
    if (IsWordChar(c)) {
      token->kind = TokenKind::kWord;
      const size_t start = pos_;
      while (pos_ < text_.size() && IsWordChar(Peek())) {
        Advance();
      }
      token->text = std::string(text_.substr(start, pos_ - start));
      return Status::OK();
    }
    for (std::string_view op : kOperators) {
      if (text_.substr(pos_, op.size()) == op) {
        // Spark's lexer reads a lone '!' as NOT everywhere NOT goes: `1 ! IN (2)`, `x IS !
        // NULL`, `! true`.
        const bool bang = op == "!";
        token->kind = bang ? TokenKind::kWord : TokenKind::kOperator;
        token->text = bang ? std::string("NOT") : std::string(op);
        Advance(op.size());
        return Status::OK();
      }
    }
    return SyntaxError(text_, position_, fmt::format("unexpected character '{}'", c));
  }

  // The body between `quote`s with backslash escapes; pos_ is on the opening quote.
  Result<std::string_view> QuotedBody(char quote, std::string_view what) {
    const SourcePosition start = position_;
    Advance();
    const size_t body_start = pos_;
    while (true) {
      if (pos_ >= text_.size()) {
        return SyntaxError(text_, start, fmt::format("unterminated {}", what));
      }
      if (Peek() == '\\' && quote != '`') {
        Advance(2);
      } else if (Peek() == quote) {
        const std::string_view body = text_.substr(body_start, pos_ - body_start);
        Advance();
        return body;
      } else {
        Advance();
      }
    }
  }

  Status String(Token* token) {
    token->kind = TokenKind::kString;
    TRIBUTARY_ASSIGN_OR_RAISE(std::string_view body, QuotedBody(Peek(), "string literal"));
    token->text = Unescape(body);
    return Status::OK();
  }

  Status Binary(Token* token) {
    token->kind = TokenKind::kBinary;
    const SourcePosition start = position_;
    Advance();
    TRIBUTARY_ASSIGN_OR_RAISE(std::string_view body, QuotedBody('\'', "binary literal"));
    for (char digit : body) {
      if (HexDigitValue(digit) < 0) {
        return SyntaxError(
            text_, start,
            fmt::format("binary literal X'{}' has a non-hex digit '{}'", body, digit));
      }
    }
    token->text = std::string(body);
    return Status::OK();
  }

  Status QuotedWord(Token* token) {
    token->kind = TokenKind::kQuotedWord;
    const SourcePosition start = position_;
    Advance();
    while (true) {
      if (pos_ >= text_.size()) {
        return SyntaxError(text_, start, "unterminated `quoted` identifier");
      }
      if (Peek() == '`') {
        if (Peek(1) != '`') {
          Advance();
          return Status::OK();
        }
        Advance();
      }
      token->text.push_back(Peek());
      Advance();
    }
  }

  // Digits [. digits] [exponent] [suffix], as long as no word character follows; otherwise a
  // run of word characters that starts with digits is an identifier, as in Spark ("1a").
  Status NumberOrWord(Token* token) {
    const size_t start = pos_;
    const SourcePosition start_position = position_;
    size_t end = pos_;
    auto digits = [&] {
      const size_t from = end;
      while (end < text_.size() && IsAsciiDigit(text_[end])) {
        ++end;
      }
      return end - from;
    };
    const size_t integer_digits = digits();
    bool has_point = false;
    bool has_exponent = false;
    if (end < text_.size() && text_[end] == '.') {
      ++end;
      has_point = true;
      digits();
    }
    if (end < text_.size() && (text_[end] == 'e' || text_[end] == 'E')) {
      size_t probe = end + 1;
      if (probe < text_.size() && (text_[probe] == '+' || text_[probe] == '-')) {
        ++probe;
      }
      if (probe < text_.size() && IsAsciiDigit(text_[probe])) {
        end = probe;
        digits();
        has_exponent = true;
      }
    }
    size_t suffix_end = end;
    while (suffix_end < text_.size() && IsWordChar(text_[suffix_end])) {
      ++suffix_end;
    }
    const std::string_view suffix = text_.substr(end, suffix_end - end);
    auto is_suffix = [&](std::string_view s) {
      return EqualsIgnoreAsciiCase(suffix, s);
    };
    NumberKind kind = has_exponent ? NumberKind::kExponent
                      : has_point  ? NumberKind::kDecimal
                                   : NumberKind::kInteger;
    bool valid = true;
    if (suffix.empty()) {
    } else if (is_suffix("bd")) {
      kind = NumberKind::kBigDecimal;
    } else if (is_suffix("d")) {
      kind = NumberKind::kDouble;
    } else if (is_suffix("f")) {
      kind = NumberKind::kFloat;
    } else if (!has_point && !has_exponent && is_suffix("l")) {
      kind = NumberKind::kBigint;
    } else if (!has_point && !has_exponent && is_suffix("s")) {
      kind = NumberKind::kSmallint;
    } else if (!has_point && !has_exponent && is_suffix("y")) {
      kind = NumberKind::kTinyint;
    } else {
      valid = false;
    }
    if (!valid) {
      if (has_point || integer_digits == 0) {
        return SyntaxError(
            text_, start_position,
            fmt::format("invalid number literal '{}'", text_.substr(start, suffix_end - start)));
      }
      // A word such as 1a or 2nd_column (has_exponent aside, 1e3x is a word too).
      token->kind = TokenKind::kWord;
      Advance(suffix_end - start);
      token->text = std::string(text_.substr(start, suffix_end - start));
      return Status::OK();
    }
    token->kind = TokenKind::kNumber;
    token->number_kind = kind;
    Advance(suffix_end - start);
    token->text = std::string(text_.substr(start, suffix_end - start));
    return Status::OK();
  }

  std::string_view text_;
  size_t pos_ = 0;
  SourcePosition position_;
};

}  // namespace

bool Token::IsKeyword(std::string_view keyword) const {
  return kind == TokenKind::kWord && EqualsIgnoreAsciiCase(text, keyword);
}

bool Token::IsOperator(std::string_view op) const {
  return kind == TokenKind::kOperator && text == op;
}

std::string Token::Describe() const {
  switch (kind) {
    case TokenKind::kEnd:
      return "end of input";
    case TokenKind::kQuotedWord:
      return fmt::format("`{}`", text);
    case TokenKind::kString:
      return fmt::format("string '{}'", text);
    case TokenKind::kBinary:
      return fmt::format("X'{}'", text);
    default:
      return fmt::format("'{}'", text);
  }
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  return Lexer(text).Run();
}

Result<std::vector<StatementText>> SplitStatements(std::string_view text) {
  TRIBUTARY_ASSIGN_OR_RAISE(std::vector<Token> tokens, Tokenize(text));
  std::vector<StatementText> statements;
  const Token* first = nullptr;
  for (const Token& token : tokens) {
    if (token.kind == TokenKind::kEnd || token.IsOperator(";")) {
      if (first != nullptr) {
        const size_t begin = first->position.offset;
        statements.push_back({text.substr(begin, token.position.offset - begin), first->position});
        // Trailing white space and comments belong to no statement.
        std::string_view& body = statements.back().text;
        const Token* last = &token - 1;
        body = body.substr(0, last->position.offset + last->length - begin);
      }
      first = nullptr;
    } else if (first == nullptr) {
      first = &token;
    }
  }
  return statements;
}

Status SyntaxError(std::string_view text, const SourcePosition& position, std::string_view what) {
  size_t line_start = std::min(position.offset, text.size());
  while (line_start > 0 && text[line_start - 1] != '\n') {
    --line_start;
  }
  size_t line_end = text.find('\n', line_start);
  if (line_end == std::string_view::npos) {
    line_end = text.size();
  }
  if (line_end > line_start && text[line_end - 1] == '\r') {
    --line_end;
  }
  // A long line (a generated statement of 20,000 terms) is shown as a window around the
  // position, cut at character boundaries, so the message stays readable.
  constexpr size_t kContextBytes = 60;
  const size_t offset = std::min(position.offset, line_end);
  size_t from = line_start;
  size_t to = line_end;
  if (offset - from > kContextBytes) {
    from = offset - kContextBytes;
    while (from < offset && (static_cast<unsigned char>(text[from]) & 0xC0) == 0x80) {
      ++from;
    }
  }
  if (to - offset > kContextBytes) {
    to = offset + kContextBytes;
    while (to > offset && (static_cast<unsigned char>(text[to]) & 0xC0) == 0x80) {
      --to;
    }
  }
  const std::string_view prefix = from > line_start ? "..." : "";
  const std::string_view suffix = to < line_end ? "..." : "";
  const std::string line = fmt::format("{}{}{}", prefix, text.substr(from, to - from), suffix);
  // Tabs are kept in the caret line so the caret lines up however tabs are shown.
  std::string caret(prefix.size(), ' ');
  for (size_t i = from; i < offset; ++i) {
    if (text[i] == '\t') {
      caret.push_back('\t');
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      caret.push_back(' ');
    }
  }
  caret.push_back('^');
  return Status::InvalidArgument(fmt::format("{} at line {}, column {}:\n{}\n{}", what,
                                             position.line, position.column, line, caret));
}

}  // namespace tributary::sql
