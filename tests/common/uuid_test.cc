// UUIDs name data files, so two writers must never draw the same one, even processes forked
// from one parent that had already drawn some.

#include "common/uuid.h"

#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>

#include <gtest/gtest.h>

namespace tributary {
namespace {

TEST(UuidTest, VersionFourLayoutAndNoRepeats) {
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    const std::string uuid = NewUuid();
    ASSERT_EQ(uuid.size(), 36u);
    EXPECT_EQ(uuid[14], '4') << uuid;
    EXPECT_TRUE(seen.insert(uuid).second) << uuid;
  }
}

TEST(UuidTest, AForkedChildDrawsOtherUuidsThanItsParent) {
  (void)NewUuid();  // the parent's generator is seeded before the fork
  int channel[2];
  ASSERT_EQ(pipe(channel), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const std::string uuid = NewUuid();
    const bool written =
        write(channel[1], uuid.data(), uuid.size()) == static_cast<ssize_t>(uuid.size());
    _exit(written ? 0 : 1);
  }
  close(channel[1]);
  const std::string parent = NewUuid();
  std::string child(36, '\0');
  ASSERT_EQ(read(channel[0], child.data(), child.size()), 36);
  close(channel[0]);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_NE(child, parent);
}

}  // namespace
}  // namespace tributary
