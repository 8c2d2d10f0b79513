#include "formats/json/json_error_position.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "common/ascii.h"
#include "common/utf8.h"
#include "formats/json/json_value_text.h"

namespace tributary::json {
namespace {

class Scanner {
 public:
  Scanner(std::string_view text, int max_depth) : text_(text), max_depth_(max_depth) {}

  // The error offset (text.size() when valid or truncated).
  size_t Run() {
    SkipSpace();
    if (!Value()) {
      return pos_;
    }
    SkipSpace();
    return pos_;
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && IsJsonSpace(text_[pos_])) {
      ++pos_;
    }
  }

  bool Expect(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  bool Literal(std::string_view word) {
    for (char c : word) {
      if (pos_ >= text_.size() || text_[pos_] != c) {
        return false;
      }
      ++pos_;
    }
    return true;
  }

  bool String() {
    ++pos_;  // the opening quote
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return false;
      }
      if (c == '\\') {
        if (pos_ + 1 >= text_.size()) {
          pos_ = text_.size();
          return false;
        }
        const char e = text_[pos_ + 1];
        if (e == 'u') {
          for (size_t k = 2; k < 6; ++k) {
            if (pos_ + k >= text_.size()) {
              pos_ = text_.size();
              return false;
            }
            if (!std::strchr("0123456789abcdefABCDEF", text_[pos_ + k])) {
              pos_ += k;
              return false;
            }
          }
          pos_ += 6;
          continue;
        }
        if (!std::strchr("\"\\/bfnrt", e) || e == '\0') {
          ++pos_;
          return false;
        }
        pos_ += 2;
        continue;
      }
      const size_t length = Utf8SequenceLength(text_.substr(pos_));
      if (length == 0) {
        return false;
      }
      pos_ += length;
    }
    return false;
  }

  bool Number() {
    if (text_[pos_] == '-') {
      ++pos_;
    }
    if (pos_ >= text_.size() || !IsAsciiDigit(text_[pos_])) {
      return false;
    }
    if (text_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < text_.size() && IsAsciiDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (pos_ >= text_.size() || !IsAsciiDigit(text_[pos_])) {
        return false;
      }
      while (pos_ < text_.size() && IsAsciiDigit(text_[pos_])) {
        ++pos_;
      }
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      if (pos_ >= text_.size() || !IsAsciiDigit(text_[pos_])) {
        return false;
      }
      while (pos_ < text_.size() && IsAsciiDigit(text_[pos_])) {
        ++pos_;
      }
    }
    return true;
  }

  // One value at pos_ (whitespace skipped before it). Containers are handled with an explicit
  // stack, so deep nesting cannot overflow ours.
  bool Value() {
    std::vector<char> stack;  // '{' or '[' per open container
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size()) {
        return false;
      }
      const char c = text_[pos_];
      bool scalar = true;
      if (c == '{' || c == '[') {
        if (static_cast<int>(stack.size()) >= max_depth_) {
          return false;
        }
        stack.push_back(c);
        ++pos_;
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == (c == '{' ? '}' : ']')) {
          ++pos_;
          stack.pop_back();
        } else if (c == '{') {
          if (pos_ >= text_.size() || text_[pos_] != '"' || !String() || !Expect(':')) {
            return false;
          }
          continue;
        } else {
          continue;
        }
        scalar = false;
      }
      if (scalar) {
        bool ok = false;
        if (c == '"') {
          ok = String();
        } else if (c == '-' || IsAsciiDigit(c)) {
          ok = Number();
        } else if (c == 't') {
          ok = Literal("true");
        } else if (c == 'f') {
          ok = Literal("false");
        } else if (c == 'n') {
          ok = Literal("null");
        }
        if (!ok) {
          return false;
        }
      }
      // After a value: close containers or go on to the next member/element.
      while (true) {
        if (stack.empty()) {
          return true;
        }
        SkipSpace();
        if (pos_ >= text_.size()) {
          return false;
        }
        const char close = stack.back() == '{' ? '}' : ']';
        if (text_[pos_] == close) {
          ++pos_;
          stack.pop_back();
          continue;
        }
        if (text_[pos_] != ',') {
          return false;
        }
        ++pos_;
        if (stack.back() == '{') {
          SkipSpace();
          if (pos_ >= text_.size() || text_[pos_] != '"' || !String() || !Expect(':')) {
            return false;
          }
        }
        break;
      }
    }
  }

  std::string_view text_;
  int max_depth_;
  size_t pos_ = 0;
};

}  // namespace

size_t JsonErrorOffset(std::string_view text, int max_depth) {
  return Scanner(text, max_depth).Run();
}

}  // namespace tributary::json
