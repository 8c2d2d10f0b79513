#include "common/thread_count.h"

#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary {
namespace {

class ThreadCountTest : public ::testing::Test {
 protected:
  void SetUp() override { unsetenv(kThreadsEnvVar); }
  void TearDown() override { unsetenv(kThreadsEnvVar); }
};

TEST_F(ThreadCountTest, FlagWinsOverEnvironment) {
  setenv(kThreadsEnvVar, "3", 1);
  ASSERT_OK_AND_ASSIGN(int threads, ResolveThreadCount(5));
  EXPECT_EQ(threads, 5);
}

TEST_F(ThreadCountTest, EnvironmentAppliesWithoutFlag) {
  setenv(kThreadsEnvVar, "3", 1);
  ASSERT_OK_AND_ASSIGN(int threads, ResolveThreadCount(0));
  EXPECT_EQ(threads, 3);
}

TEST_F(ThreadCountTest, DefaultsToAllCores) {
  ASSERT_OK_AND_ASSIGN(int threads, ResolveThreadCount(0));
  EXPECT_EQ(threads, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())));
}

TEST_F(ThreadCountTest, RejectsBadValues) {
  ASSERT_RAISES(InvalidArgument, ResolveThreadCount(-2));
  for (const char* bad : {"0", "-1", "two", "4x"}) {
    setenv(kThreadsEnvVar, bad, 1);
    auto result = ResolveThreadCount(0);
    ASSERT_RAISES(InvalidArgument, result);
    EXPECT_NE(result.status().Message().find(bad), std::string::npos);
  }
}

TEST_F(ThreadCountTest, TheSessionSettingWinsOverTheEnvironment) {
  setenv(kThreadsEnvVar, "3", 1);
  ASSERT_OK_AND_ASSIGN(int threads, ResolveThreadCount({{"tributary.threads", "2"}}));
  EXPECT_EQ(threads, 2);
  ASSERT_OK_AND_ASSIGN(threads, ResolveThreadCount({{"spark.sql.shuffle.partitions", "8"}}));
  EXPECT_EQ(threads, 3);
  auto bad = ResolveThreadCount({{"tributary.threads", "0"}});
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_EQ(bad.status().Message(), "tributary.threads must be a positive integer, got '0'");
}

}  // namespace
}  // namespace tributary
