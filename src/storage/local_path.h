// Paths as users give them: plain POSIX paths, file URIs, relative spellings and symbolic links,
// and object store URIs (s3://, s3a://). Every place that accepts a path from a user (sources,
// sinks, checkpoint locations, table paths, SQL LOCATION) and every place that compares two of
// them goes through here, so an unknown scheme ("gs://...") is refused the same way everywhere
// and "/x//land", "/x/other/../land" and a relative "land" are the same directory.

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
/// another host, or an invalid percent-escape; and for any other scheme (object store URIs
/// included: they are no local path).
Result<std::string> LocalPath(std::string_view path);

/// Whether `path` is an object store URI: scheme s3 or s3a (any case).
bool IsObjectStorePath(std::string_view path);

/// The path a FileSystem is given for `path` as a user wrote it: LocalPath's for local paths
/// and file URIs; for s3:// and s3a:// URIs an s3:// URI (both schemes name one object), with
/// repeated and trailing '/' of the key dropped ("S3A://b/x//y/" -> "s3://b/x/y"), nothing
/// decoded.
/// InvalidArgument naming the URI for an object store URI without a bucket or with a bucket
/// name S3 does not allow, and for any other scheme, naming the schemes supported.
Result<std::string> StoragePath(std::string_view path);

/// OK when StoragePath accepts `path`; its InvalidArgument otherwise.
Status CheckSupportedScheme(std::string_view path);

/// The local working directory below `root` that stands for `location` (an object store
/// URI, usually) on this machine: "<root>/<16 hex digits of a stable hash of location>". Local
/// caches of what lives in the object store (RocksDB stores, locks) go there; deleting it
/// loses nothing.
std::string LocalWorkingDir(std::string_view root, std::string_view location);

/// The root LocalWorkingDir uses by default: "$TMPDIR/<name>" (TMPDIR unset: "/tmp/<name>").
std::string DefaultLocalRoot(std::string_view name);

/// `path` (after StoragePath) made absolute against the working directory, with ".", ".." and
/// repeated or trailing '/' removed, symbolic links kept: the location as the user named it.
/// Object store URIs: as StoragePath gives them.
Result<std::string> AbsolutePath(std::string_view path);

/// `path` (after StoragePath) made absolute against the working directory, with symbolic links
/// resolved in the part of it that exists and ".", ".." and repeated '/' removed, without a
/// trailing '/': the one spelling of a location, for comparing paths. The part that does not
/// exist yet (a directory a stream will create) is normalized lexically. An object store URI
/// is as StoragePath gives it.
Result<std::string> CanonicalPath(std::string_view path);

/// Whether `path` is `dir` or lies below it, both compared as CanonicalPath spells them.
Result<bool> IsSameOrInside(std::string_view path, std::string_view dir);

}  // namespace tributary::storage
