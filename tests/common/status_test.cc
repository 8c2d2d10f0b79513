#include "tributary/status.h"

#include <gtest/gtest.h>

#include "support/status_matchers.h"
#include "tributary/result.h"

namespace tributary {
namespace {

Status FailsWith(StatusCode code) {
  return {code, "boom"};
}

Result<int> ParsePositive(int value) {
  if (value <= 0) {
    return Status::InvalidArgument("value must be positive, got " + std::to_string(value));
  }
  return value;
}

Result<int> DoubledPositive(int value) {
  TRIBUTARY_ASSIGN_OR_RAISE(int parsed, ParsePositive(value));
  return parsed * 2;
}

Status ChainsThrough(StatusCode code) {
  TRIBUTARY_RETURN_NOT_OK(FailsWith(code));
  return Status::Internal("not reached");
}

TEST(StatusTest, OkHasNoMessageAndPrintsOk) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.Code(), StatusCode::kOk);
  EXPECT_EQ(ok.Message(), "");
  EXPECT_EQ(ok.ToString(), "OK");
  EXPECT_FALSE(ok.IsRetryable());
}

TEST(StatusTest, EachFactorySetsItsCode) {
  EXPECT_TRUE(Status::InvalidArgument("x").IsInvalidArgument());
  EXPECT_TRUE(Status::NotFound("x").IsNotFound());
  EXPECT_TRUE(Status::AlreadyExists("x").IsAlreadyExists());
  EXPECT_TRUE(Status::Conflict("x").IsConflict());
  EXPECT_TRUE(Status::Corruption("x").IsCorruption());
  EXPECT_TRUE(Status::IOError("x").IsIOError());
  EXPECT_TRUE(Status::NotImplemented("x").IsNotImplemented());
  EXPECT_EQ(Status::Cancelled("x").Code(), StatusCode::kCancelled);
  EXPECT_EQ(Status::Internal("x").Code(), StatusCode::kInternal);
}

TEST(StatusTest, ContextPrefixesMessageAndKeepsCodeAndRetryableBit) {
  Status st = Status::IOError("connection reset", /*retryable=*/true)
                  .WithContext("reading s3://bucket/_delta_log/00000000000000000003.json");
  EXPECT_TRUE(st.IsIOError());
  EXPECT_TRUE(st.IsRetryable());
  EXPECT_EQ(st.Message(),
            "reading s3://bucket/_delta_log/00000000000000000003.json: "
            "connection reset");
  EXPECT_EQ(st.ToString(),
            "IO error (retryable): reading s3://bucket/_delta_log/00000000000000000003.json: "
            "connection reset");
  EXPECT_TRUE(Status::OK().WithContext("anything").ok());
}

TEST(StatusTest, RetryableBitCanBeClearedAndCopiesAreIndependent) {
  Status retryable = Status::IOError("timeout", true);
  Status copy = retryable;
  Status cleared = retryable.WithRetryable(false);
  EXPECT_TRUE(copy.IsRetryable());
  EXPECT_FALSE(cleared.IsRetryable());
  EXPECT_EQ(cleared.Message(), "timeout");
}

TEST(StatusTest, ReturnNotOkPropagatesTheFirstError) {
  Status st = ChainsThrough(StatusCode::kCorruption);
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_EQ(st.Message(), "boom");
}

TEST(ResultTest, HoldsValueOrError) {
  ASSERT_OK_AND_ASSIGN(int doubled, DoubledPositive(21));
  EXPECT_EQ(doubled, 42);
  Result<int> failed = DoubledPositive(-1);
  ASSERT_RAISES(InvalidArgument, failed);
  EXPECT_EQ(failed.status().Message(), "value must be positive, got -1");
  EXPECT_EQ(failed.ValueOr(7), 7);
}

TEST(ResultTest, OkStatusWithoutValueBecomesInternalError) {
  Result<int> result{Status::OK()};
  ASSERT_RAISES(Internal, result);
}

TEST(ResultTest, MovesOnlyTypes) {
  Result<std::unique_ptr<int>> result = std::make_unique<int>(5);
  ASSERT_TRUE(result.ok());
  std::unique_ptr<int> value = std::move(result).ValueOrDie();
  EXPECT_EQ(*value, 5);
}

}  // namespace
}  // namespace tributary
