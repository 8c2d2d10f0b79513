#include "storage/local_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <type_traits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "support/temp_dir.h"

namespace tributary::storage {
namespace {

using ::testing::HasSubstr;

/// The value of `result`, or its error as text so that a comparison shows it.
template <typename T>
std::string Text(const Result<T>& result) {
  if (!result.ok()) {
    return "error: " + result.status().ToString();
  }
  if constexpr (std::is_same_v<T, bool>) {
    return *result ? "true" : "false";
  } else {
    return *result;
  }
}

TEST(LocalPathTest, UriSchemeNeedsLettersColonAndSlash) {
  EXPECT_EQ(UriScheme("s3://bucket/key"), "s3");
  EXPECT_EQ(UriScheme("file:/data"), "file");
  EXPECT_EQ(UriScheme("abfss://c@a.dfs.core.windows.net/x"), "abfss");
  EXPECT_EQ(UriScheme("/data/in"), "");
  EXPECT_EQ(UriScheme("land/a:b"), "");
  EXPECT_EQ(UriScheme("a:b"), "");
  EXPECT_EQ(UriScheme("3s://x"), "");
}

TEST(LocalPathTest, FileUrisMapToTheirPathAndOtherSchemesAreRefused) {
  EXPECT_EQ(Text(LocalPath("file:///data/in")), "/data/in");
  EXPECT_EQ(Text(LocalPath("file:/data/in")), "/data/in");
  EXPECT_EQ(Text(LocalPath("FILE://localhost/data")), "/data");
  EXPECT_EQ(Text(LocalPath("land/in")), "land/in");
  Result<std::string> s3 = LocalPath("s3://bucket/land");
  ASSERT_RAISES(InvalidArgument, s3);
  EXPECT_THAT(s3.status().Message(),
              HasSubstr("unsupported URI scheme 's3' in 's3://bucket/land' for the local file "
                        "system"));
  ASSERT_RAISES(InvalidArgument, LocalPath("file://otherhost/data"));
  Result<std::string> gs = LocalPath("gs://b/k");
  ASSERT_RAISES(InvalidArgument, gs);
  EXPECT_THAT(gs.status().Message(),
              HasSubstr("unsupported URI scheme 'gs' in 'gs://b/k': tributary reads and writes "
                        "local paths, file://, s3:// and s3a:// URIs"));
  ASSERT_RAISES(InvalidArgument, CheckSupportedScheme("gs://b/k"));
  ASSERT_OK(CheckSupportedScheme("/x"));
  ASSERT_OK(CheckSupportedScheme("s3://bucket/x"));
}

TEST(LocalPathTest, StoragePathKeepsObjectStoreUrisNormalizedAndLocalPathsLocal) {
  EXPECT_EQ(Text(StoragePath("file:///data/in")), "/data/in");
  EXPECT_EQ(Text(StoragePath("land/in")), "land/in");
  EXPECT_EQ(Text(StoragePath("s3://my-bucket/raw-logs/")), "s3://my-bucket/raw-logs");
  EXPECT_EQ(Text(StoragePath("S3A://my.bucket//a///b c/")), "s3://my.bucket/a/b c");
  EXPECT_EQ(Text(StoragePath("s3://bucket")), "s3://bucket");
  EXPECT_TRUE(IsObjectStorePath("s3a://b/x"));
  EXPECT_FALSE(IsObjectStorePath("/s3/x"));
  EXPECT_FALSE(IsObjectStorePath("file:///x"));
  for (const std::string bad :
       {"s3:/bucket/x", "s3://", "s3:///key", "s3://Upper/x", "s3://ab/x", "s3://-bucket/x"}) {
    SCOPED_TRACE(bad);
    Result<std::string> refused = StoragePath(bad);
    ASSERT_RAISES(InvalidArgument, refused);
    EXPECT_THAT(refused.status().Message(), HasSubstr(bad));
  }
  Result<std::string> gs = StoragePath("gs://b/k");
  ASSERT_RAISES(InvalidArgument, gs);
  EXPECT_THAT(gs.status().Message(), HasSubstr("unsupported URI scheme 'gs'"));
  // s3:// and s3a:// name one object: compared in one spelling.
  EXPECT_EQ(Text(CanonicalPath("s3a://bucket/a//b/")), "s3://bucket/a/b");
  EXPECT_EQ(Text(AbsolutePath("s3a://bucket/a//b/")), "s3://bucket/a/b");
  EXPECT_EQ(Text(IsSameOrInside("s3a://bucket/land/archive", "s3://bucket/land")), "true");
  EXPECT_EQ(Text(IsSameOrInside("s3://bucket/landing", "s3://bucket/land")), "false");
}

TEST(LocalPathTest, LocalWorkingDirIsStablePerLocation) {
  const std::string a = LocalWorkingDir("/tmp/root", "s3://bucket/cp");
  EXPECT_EQ(a, LocalWorkingDir("/tmp/root", "s3://bucket/cp"));
  EXPECT_NE(a, LocalWorkingDir("/tmp/root", "s3://bucket/cp2"));
  EXPECT_TRUE(a.starts_with("/tmp/root/"));
  EXPECT_EQ(a.size(), std::string("/tmp/root/").size() + 16);
}

TEST(LocalPathTest, FileUriWithoutAPathIsRefusedNotTakenForTheRoot) {
  for (const std::string uri :
       {"file://", "file:///", "file://localhost", "file://localhost/", "FILE:////", "file:/"}) {
    Result<std::string> local = LocalPath(uri);
    SCOPED_TRACE(uri);
    ASSERT_RAISES(InvalidArgument, local);
    EXPECT_THAT(local.status().Message(),
                HasSubstr("file URI '" + uri + "' has no path after the host"));
    ASSERT_RAISES(InvalidArgument, CanonicalPath(uri));
  }
  EXPECT_EQ(Text(LocalPath("/")), "/");
  EXPECT_EQ(Text(LocalPath("file:///x")), "/x");
}

TEST(LocalPathTest, FileUriPathsArePercentDecoded) {
  EXPECT_EQ(Text(LocalPath("file:///a%20b")), "/a b");
  EXPECT_EQ(Text(LocalPath("file://localhost/p=a%3ab/%25")), "/p=a:b/%");
  EXPECT_EQ(Text(LocalPath("file:/caf%C3%A9")), "/caf\xC3\xA9");
  // A path that is not a URI is a file name as written.
  EXPECT_EQ(Text(LocalPath("/a%20b")), "/a%20b");
  for (const std::string uri : {"file:///a%2", "file:///a%", "file:///a%zz/b", "file:///%g0"}) {
    Result<std::string> local = LocalPath(uri);
    SCOPED_TRACE(uri);
    ASSERT_RAISES(InvalidArgument, local);
    EXPECT_THAT(local.status().Message(), HasSubstr("invalid percent-escape"));
    EXPECT_THAT(local.status().Message(), HasSubstr("'" + uri + "'"));
  }
}

TEST(LocalPathTest, CanonicalPathIsOneSpellingOfEachLocation) {
  testing::TempDir dir;
  ASSERT_TRUE(std::filesystem::create_directories(dir.Join("x/land")));
  ASSERT_TRUE(std::filesystem::create_directories(dir.Join("x/other")));
  std::filesystem::create_directory_symlink(dir.Join("x/land"), dir.Join("link"));
  const std::string archive = dir.Join("x/land/archive");
  for (const std::string& spelling :
       {dir.Join("x//land/archive"), dir.Join("x/other/../land/archive"),
        dir.Join("x/./land/archive/"), dir.Join("link/archive"), "file://" + archive}) {
    EXPECT_EQ(Text(CanonicalPath(spelling)), archive) << spelling;
  }
  // A relative spelling, against the working directory.
  const std::string saved = std::filesystem::current_path().string();
  ASSERT_EQ(::chdir(dir.Join("x").c_str()), 0);
  Result<std::string> relative = CanonicalPath("land/archive");
  ASSERT_EQ(::chdir(saved.c_str()), 0);
  EXPECT_EQ(Text(relative), archive);
}

TEST(LocalPathTest, IsSameOrInsideComparesCanonicalPaths) {
  testing::TempDir dir;
  ASSERT_TRUE(std::filesystem::create_directories(dir.Join("x/land")));
  std::filesystem::create_directory_symlink(dir.Join("x/land"), dir.Join("link"));
  EXPECT_EQ(Text(IsSameOrInside(dir.Join("x//land/archive"), dir.Join("x/land"))), "true");
  EXPECT_EQ(Text(IsSameOrInside(dir.Join("link/deep/er"), dir.Join("x/land/"))), "true");
  EXPECT_EQ(Text(IsSameOrInside(dir.Join("x/land"), dir.Join("link"))), "true");
  EXPECT_EQ(Text(IsSameOrInside(dir.Join("x/landing"), dir.Join("x/land"))), "false");
  EXPECT_EQ(Text(IsSameOrInside(dir.Join("x"), dir.Join("x/land"))), "false");
  ASSERT_RAISES(InvalidArgument, IsSameOrInside("gs://b/land/archive", dir.Join("x")));
  EXPECT_EQ(Text(IsSameOrInside("s3://bucket/land/archive", dir.Join("x"))), "false");
}

}  // namespace
}  // namespace tributary::storage
