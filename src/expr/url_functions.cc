// URL functions with Spark's semantics: parse_url and try_parse_url read a URL as
// java.net.URI does (RFC 2396), url_encode and url_decode follow java.net.URLEncoder and
// URLDecoder (application/x-www-form-urlencoded, UTF-8).
//
// URI grammar (the subset java.net.URI checks and Spark's parts read):
//   uri        = [scheme ":"] (hier-part | opaque-part) ["#" fragment]
//   scheme     = ALPHA *(ALPHA | DIGIT | "+" | "-" | ".")
//   hier-part  = ["//" authority] path ["?" query]      (starts with "/" or has no scheme)
//   authority  = [userinfo "@"] host [":" port]          (server-based; else registry-based,
//                                                        which has no host, user or port)
// Characters outside ASCII's printable set other than non-ASCII letters, and "%" not followed
// by two hex digits, make the URL invalid.

#include <optional>
#include <string>

#include <fmt/format.h>

#include "expr/function_kernels.h"
#include "expr/utf8_validity.h"

namespace tributary::expr {

namespace {

// The raw components of a URI; nullopt where java.net.URI's getter returns null.
struct UriParts {
  std::optional<std::string_view> scheme;
  std::optional<std::string_view> authority;
  std::optional<std::string_view> user_info;
  std::optional<std::string_view> host;
  std::optional<std::string_view> path;
  std::optional<std::string_view> query;
  std::optional<std::string_view> fragment;
};

bool IsAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsHex(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Whether `text` holds only characters java.net.URI accepts in a component: printable ASCII
// other than the ones RFC 2396 excludes, non-ASCII characters, and well-formed %HH escapes.
bool LegalChars(std::string_view text, bool allow_brackets) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x80) {
      continue;
    }
    if (c <= 0x20 || c == 0x7F ||
        std::string_view("\"<>\\^`{|}#").find(static_cast<char>(c)) != std::string_view::npos) {
      return false;
    }
    if (!allow_brackets && (c == '[' || c == ']')) {
      return false;
    }
    if (c == '%' && (i + 2 >= text.size() || !IsHex(text[i + 1]) || !IsHex(text[i + 2]))) {
      return false;
    }
  }
  return true;
}

// A host java.net.URI takes for a server-based authority: a bracketed IPv6 literal, or labels
// of letters, digits and '-' separated by dots.
bool IsServerHost(std::string_view host) {
  if (host.empty()) {
    return false;
  }
  if (host.front() == '[') {
    return host.back() == ']' && host.size() > 2 &&
           host.substr(1, host.size() - 2).find_first_not_of("0123456789abcdefABCDEF:.") ==
               std::string_view::npos;
  }
  char previous = '.';
  for (const char c : host) {
    if (c == '.') {
      if (previous == '.' || previous == '-') {
        return false;
      }
    } else if (!IsAlpha(c) && !IsDigit(c) && !(c == '-' && previous != '.')) {
      return false;
    }
    previous = c;
  }
  return previous != '-';
}

std::optional<UriParts> ParseUri(std::string_view url) {
  UriParts parts;
  std::string_view rest = url;
  const size_t hash = rest.find('#');
  if (hash != std::string_view::npos) {
    parts.fragment = rest.substr(hash + 1);
    rest = rest.substr(0, hash);
    if (!LegalChars(*parts.fragment, false)) {
      return std::nullopt;
    }
  }
  const size_t colon = rest.find(':');
  if (colon != std::string_view::npos && colon < rest.find_first_of("/?")) {
    const std::string_view scheme = rest.substr(0, colon);
    if (scheme.empty() || !IsAlpha(scheme[0])) {
      return std::nullopt;
    }
    for (const char c : scheme) {
      if (!IsAlpha(c) && !IsDigit(c) && c != '+' && c != '-' && c != '.') {
        return std::nullopt;
      }
    }
    parts.scheme = scheme;
    rest = rest.substr(colon + 1);
    if (rest.empty()) {
      return std::nullopt;  // "Expected scheme-specific part"
    }
    if (rest[0] != '/') {
      // An opaque URI ("mailto:a@b"): no authority, path or query.
      return LegalChars(rest, false) ? std::optional<UriParts>(parts) : std::nullopt;
    }
  } else if (url.empty()) {
    parts.path = url;
    return parts;
  }
  if (rest.starts_with("//")) {
    rest.remove_prefix(2);
    const size_t end = std::min(rest.find_first_of("/?"), rest.size());
    const std::string_view authority = rest.substr(0, end);
    rest = rest.substr(end);
    if (!authority.empty()) {
      if (!LegalChars(authority, true)) {
        return std::nullopt;
      }
      parts.authority = authority;
      std::string_view server = authority;
      const size_t at = server.rfind('@');
      std::optional<std::string_view> user_info;
      if (at != std::string_view::npos) {
        user_info = server.substr(0, at);
        server = server.substr(at + 1);
      }
      std::string_view host = server;
      const size_t port = server.rfind(':');
      bool port_ok = true;
      if (port != std::string_view::npos && server.find(']', port) == std::string_view::npos) {
        host = server.substr(0, port);
        const std::string_view digits = server.substr(port + 1);
        port_ok = digits.find_first_not_of("0123456789") == std::string_view::npos;
      }
      if (port_ok && IsServerHost(host)) {
        parts.user_info = user_info;
        parts.host = host;
      } else if (authority.find_first_of("[]") != std::string_view::npos) {
        return std::nullopt;
      }
    } else if (rest.empty() && !parts.scheme) {
      return std::nullopt;  // "//" alone: "Expected authority"
    }
  }
  const size_t question = rest.find('?');
  parts.path = rest.substr(0, question);
  if (question != std::string_view::npos) {
    parts.query = rest.substr(question + 1);
  }
  if (!LegalChars(*parts.path, false) || (parts.query && !LegalChars(*parts.query, false))) {
    return std::nullopt;
  }
  return parts;
}

// The value of `key` in query string `query`: the text after the first "key=" that starts the
// query or follows '&', up to the next '&'.
std::optional<std::string_view> QueryValue(std::string_view query, std::string_view key) {
  for (size_t start = 0; start <= query.size();) {
    const size_t end = std::min(query.find('&', start), query.size());
    const std::string_view pair = query.substr(start, end - start);
    if (pair.size() > key.size() && pair.starts_with(key) && pair[key.size()] == '=') {
      return pair.substr(key.size() + 1);
    }
    start = end + 1;
  }
  return std::nullopt;
}

// parse_url(url, part[, key]) and try_parse_url: the part HOST, PATH, QUERY, REF, PROTOCOL,
// FILE, AUTHORITY or USERINFO (case-sensitive) of url, null where the URL has none or the part
// is unknown; with a key, the value of that query parameter (QUERY only). An invalid URL is an
// error for parse_url and null for try_parse_url.
Result<BoundExprPtr> BindParseUrl(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 2, 3));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  const bool safe = call.Name() == "try_parse_url";
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          const std::string_view url = a[0]->BytesAt(i);
          const std::string_view part = a[1]->BytesAt(i);
          const std::optional<UriParts> parts = ParseUri(url);
          if (!parts) {
            if (!safe) {
              status = Status::InvalidArgument(
                  fmt::format("[INVALID_URL] The url is invalid: {}. Use `try_parse_url` to "
                              "tolerate invalid URL and return NULL instead.",
                              url));
            }
            return false;
          }
          std::optional<std::string_view> value;
          if (a.size() > 2) {
            if (part == "QUERY" && parts->query) {
              value = QueryValue(*parts->query, a[2]->BytesAt(i));
            }
          } else if (part == "HOST") {
            value = parts->host;
          } else if (part == "PATH") {
            value = parts->path;
          } else if (part == "QUERY") {
            value = parts->query;
          } else if (part == "REF") {
            value = parts->fragment;
          } else if (part == "PROTOCOL") {
            value = parts->scheme;
          } else if (part == "AUTHORITY") {
            value = parts->authority;
          } else if (part == "USERINFO") {
            value = parts->user_info;
          } else if (part == "FILE" && parts->path) {
            out->assign(*parts->path);
            if (parts->query) {
              out->push_back('?');
              out->append(*parts->query);
            }
            return true;
          }
          if (!value) {
            return false;
          }
          out->assign(*value);
          return true;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

// url_encode(str): URLEncoder.encode(str, "UTF-8"): letters, digits and ".-*_" stay, a space
// becomes '+', every other byte %HH (upper-case hex).
Result<BoundExprPtr> BindUrlEncode(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  return PerRowBytes(
      call, DataType::String(), std::move(args),
      [](const std::vector<ColumnPtr>& a, int64_t i, std::string* out) {
        static constexpr char kHex[] = "0123456789ABCDEF";
        std::string valid;
        MakeValidUtf8(a[0]->BytesAt(i), &valid);
        for (const char c : valid) {
          if (IsAlpha(c) || IsDigit(c) || c == '.' || c == '-' || c == '*' || c == '_') {
            out->push_back(c);
          } else if (c == ' ') {
            out->push_back('+');
          } else {
            const auto byte = static_cast<unsigned char>(c);
            out->push_back('%');
            out->push_back(kHex[byte >> 4]);
            out->push_back(kHex[byte & 0xF]);
          }
        }
        return true;
      });
}

int HexDigit(char c) {
  return IsDigit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

// URLDecoder.decode(text, "UTF-8"): '+' is a space, runs of %HH are bytes read as UTF-8 (bad
// sequences as U+FFFD). False on a '%' without two hex digits after it.
bool UrlDecode(std::string_view text, std::string* out) {
  std::string bytes;
  std::string repaired;
  for (size_t i = 0; i < text.size();) {
    if (text[i] == '%') {
      bytes.clear();
      while (i < text.size() && text[i] == '%') {
        if (i + 2 >= text.size() || !IsHex(text[i + 1]) || !IsHex(text[i + 2])) {
          return false;
        }
        bytes.push_back(static_cast<char>(HexDigit(text[i + 1]) * 16 + HexDigit(text[i + 2])));
        i += 3;
      }
      MakeValidUtf8(bytes, &repaired);
      out->append(repaired);
    } else {
      out->push_back(text[i] == '+' ? ' ' : text[i]);
      ++i;
    }
  }
  return true;
}

// url_decode(str): an undecodable str is an error; try_url_decode: null.
Result<BoundExprPtr> BindUrlDecode(const Expression& call, std::vector<BoundExprPtr> args) {
  TRIBUTARY_RETURN_NOT_OK(CheckArity(call, args, 1, 1));
  TRIBUTARY_RETURN_NOT_OK(CoerceArgs(call, &args, {DataType::String()}));
  const bool safe = call.Name() == "try_url_decode";
  return MakeFunctionCall(
      call.Name(), DataType::String(), std::move(args),
      Lambda([safe](const BoundExpression& c, const std::vector<ColumnPtr>& a,
                    MemoryPool* pool) -> Result<ColumnPtr> {
        Status status;
        auto result = BuildBytes(c.Type(), a, pool, [&](int64_t i, std::string* out) {
          if (UrlDecode(a[0]->BytesAt(i), out)) {
            return true;
          }
          if (!safe) {
            status = Status::InvalidArgument(
                fmt::format("[CANNOT_DECODE_URL] The provided URL cannot be decoded: {}. Please "
                            "ensure that the URL is properly formatted and try again.",
                            a[0]->BytesAt(i)));
          }
          return false;
        });
        TRIBUTARY_RETURN_NOT_OK(status);
        return result;
      }));
}

}  // namespace

void AddUrlFunctions(std::vector<FunctionEntry>* table) {
  table->insert(table->end(), {{"parse_url", BindParseUrl},
                               {"try_parse_url", BindParseUrl},
                               {"url_encode", BindUrlEncode},
                               {"url_decode", BindUrlDecode},
                               {"try_url_decode", BindUrlDecode}});
}

}  // namespace tributary::expr
