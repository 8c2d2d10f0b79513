// Paths as every FileSystem sees them: '/'-separated strings, local or object-store keys.

#pragma once

#include <string>
#include <string_view>

namespace tributary::storage {

/// `base` and `name` joined by exactly one '/'. An empty `base` yields `name`; trailing '/'s of
/// `base` and leading '/'s of `name` are not doubled.
std::string JoinPath(std::string_view base, std::string_view name);

/// Everything before the last '/' of `path` once trailing '/'s are dropped: "a/b/c" -> "a/b",
/// "/a" -> "/", "a" -> "" (the current directory), "/" -> "/".
std::string_view ParentPath(std::string_view path);

/// The last component of `path` once trailing '/'s are dropped: "a/b/c" -> "c", "a/" -> "a",
/// "/" -> "".
std::string_view BaseName(std::string_view path);

}  // namespace tributary::storage
