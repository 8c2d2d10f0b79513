#include "storage/path.h"

#include <gtest/gtest.h>

namespace tributary::storage {
namespace {

TEST(PathTest, JoinPathInsertsExactlyOneSeparator) {
  EXPECT_EQ(JoinPath("a", "b"), "a/b");
  EXPECT_EQ(JoinPath("a/", "b"), "a/b");
  EXPECT_EQ(JoinPath("a//", "/b"), "a/b");
  EXPECT_EQ(JoinPath("/", "b"), "/b");
  EXPECT_EQ(JoinPath("", "b"), "b");
  EXPECT_EQ(JoinPath("a", "b/c"), "a/b/c");
}

TEST(PathTest, ParentPathDropsLastComponent) {
  EXPECT_EQ(ParentPath("a/b/c"), "a/b");
  EXPECT_EQ(ParentPath("a/b/c/"), "a/b");
  EXPECT_EQ(ParentPath("/a"), "/");
  EXPECT_EQ(ParentPath("/"), "/");
  EXPECT_EQ(ParentPath("a"), "");
  EXPECT_EQ(ParentPath("a//b"), "a");
}

TEST(PathTest, BaseNameIsLastComponent) {
  EXPECT_EQ(BaseName("a/b/c"), "c");
  EXPECT_EQ(BaseName("a/b/"), "b");
  EXPECT_EQ(BaseName("c"), "c");
  EXPECT_EQ(BaseName("/"), "");
}

}  // namespace
}  // namespace tributary::storage
