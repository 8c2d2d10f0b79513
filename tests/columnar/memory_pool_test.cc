#include "columnar/memory_pool.h"

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::columnar {
namespace {

TEST(MemoryPoolTest, ChildPoolsCountIntoTheirParent) {
  TrackingMemoryPool query("query");
  TrackingMemoryPool scan("scan", &query);
  TrackingMemoryPool agg("aggregate", &query);
  {
    ASSERT_OK_AND_ASSIGN(auto a, Buffer::Allocate(100, &scan));
    ASSERT_OK_AND_ASSIGN(auto b, Buffer::Allocate(1000, &agg));
    EXPECT_EQ(scan.BytesAllocated(), a->Capacity());
    EXPECT_EQ(agg.BytesAllocated(), b->Capacity());
    EXPECT_EQ(query.BytesAllocated(), a->Capacity() + b->Capacity());
    EXPECT_EQ(a->Capacity() % kBufferAlignment, 0);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data()) % kBufferAlignment, 0u);
  }
  EXPECT_EQ(query.BytesAllocated(), 0);
  EXPECT_GE(query.PeakBytesAllocated(), 1100);
}

TEST(MemoryPoolTest, LimitRefusesAndNamesThePool) {
  TrackingMemoryPool query("query 7", DefaultMemoryPool(), 1024);
  ASSERT_OK_AND_ASSIGN(auto fits, Buffer::Allocate(512, &query));
  auto refused = Buffer::Allocate(1024, &query);
  ASSERT_RAISES(IOError, refused);
  EXPECT_NE(refused.status().Message().find("query 7"), std::string::npos);
  EXPECT_EQ(query.BytesAllocated(), fits->Capacity());
}

TEST(MemoryPoolTest, ParentLimitAppliesToChildren) {
  TrackingMemoryPool query("query", DefaultMemoryPool(), 1024);
  TrackingMemoryPool op("operator", &query);
  auto refused = Buffer::Allocate(4096, &op);
  ASSERT_RAISES(IOError, refused);
  EXPECT_EQ(op.BytesAllocated(), 0);
  EXPECT_EQ(query.BytesAllocated(), 0);
}

TEST(BufferTest, ResizeGrowsZeroFilledAndKeepsContent) {
  TrackingMemoryPool pool("p");
  ASSERT_OK_AND_ASSIGN(auto buffer, Buffer::CopyOf("abc", &pool));
  ASSERT_OK(buffer->Resize(1000));
  EXPECT_EQ(buffer->size(), 1000);
  EXPECT_EQ(buffer->View().substr(0, 3), "abc");
  EXPECT_EQ(buffer->data()[999], 0);
  EXPECT_EQ(pool.BytesAllocated(), buffer->Capacity());
  ASSERT_RAISES(InvalidArgument, buffer->Resize(-1));
}

TEST(BufferTest, ResizeUninitializedKeepsContentAndZeroesPastTheSize) {
  TrackingMemoryPool pool("p");
  ASSERT_OK_AND_ASSIGN(auto buffer, Buffer::CopyOf("abc", &pool));
  ASSERT_OK(buffer->ResizeUninitialized(1000));
  EXPECT_EQ(buffer->size(), 1000);
  EXPECT_GE(buffer->Capacity(), 1000);
  EXPECT_EQ(buffer->View().substr(0, 3), "abc");
  std::memset(buffer->mutable_data(), 'x', 1000);
  // Shrinking clears what was written past the new size, so a later Resize grows zero-filled.
  ASSERT_OK(buffer->ResizeUninitialized(2));
  EXPECT_EQ(buffer->View(), "xx");
  ASSERT_OK(buffer->Resize(10));
  EXPECT_EQ(buffer->View(), std::string("xx") + std::string(8, '\0'));
  for (int64_t i = 10; i < buffer->Capacity(); ++i) {
    ASSERT_EQ(buffer->data()[i], 0) << i;
  }
  EXPECT_EQ(pool.BytesAllocated(), buffer->Capacity());
  ASSERT_RAISES(InvalidArgument, buffer->ResizeUninitialized(-1));
}

}  // namespace
}  // namespace tributary::columnar
