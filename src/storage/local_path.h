// Local paths as users give them: plain POSIX paths, file URIs, relative spellings and symbolic
// links. Every place that accepts a path from a user (sources, sinks, checkpoint locations,
// table paths, SQL LOCATION) and every place that compares two of them goes through here, so
// "s3://..." is refused the same way everywhere and "/x//land", "/x/other/../land" and a
// relative "land" are the same directory.

#pragma once

#include <string>
#include <string_view>

#include "tributary/result.h"
#include "tributary/status.h"

namespace tributary::storage {

/// The scheme of `path` when it is a URI ("s3" for "s3://bucket/key", "file" for
/// "file:/data"), else empty. A scheme is a letter followed by letters, digits, '+', '-' or
/// '.', then ':' and '/'.
std::string_view UriScheme(std::string_view path);

/// The local path `path` names: `path` itself when it has no scheme; the path part of a file
/// URI, percent-decoded as java.net.URI and Hadoop's Path decode it ("file:///data/in",
/// "file://localhost/data/in" and "file:/data/in" -> "/data/in"; "file:///a%20b" -> "/a b").
/// InvalidArgument naming the URI for a file URI without a path after the host ("file://",
/// "file:///", "file://localhost": the root is never meant, most likely an empty variable),
/// another host, or an invalid percent-escape; and for any other scheme, saying that only
/// file:// and local paths are supported (object storage is not yet).
Result<std::string> LocalPath(std::string_view path);

/// OK when `path` has no scheme or the file scheme; LocalPath's InvalidArgument otherwise.
Status CheckSupportedScheme(std::string_view path);

/// `path` (after LocalPath) made absolute against the working directory, with ".", ".." and
/// repeated or trailing '/' removed, symbolic links kept: the location as the user named it.
Result<std::string> AbsolutePath(std::string_view path);

/// `path` (after LocalPath) made absolute against the working directory, with symbolic links
/// resolved in the part of it that exists and ".", ".." and repeated '/' removed, without a
/// trailing '/': the one spelling of a location, for comparing paths. The part that does not
/// exist yet (a directory a stream will create) is normalized lexically.
Result<std::string> CanonicalPath(std::string_view path);

/// Whether `path` is `dir` or lies below it, both compared as CanonicalPath spells them.
Result<bool> IsSameOrInside(std::string_view path, std::string_view dir);

}  // namespace tributary::storage
