// Option keys of the streaming sources (streaming/source_options.h) through DefineSource: a
// misspelt or invented key is an error naming the closest key, a key Spark or Databricks takes
// that tributary does not implement is refused by name, and the legitimate keys still pass.

#include "streaming/source_options.h"

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/data_sources.h"
#include "streaming/source_factory.h"
#include "streaming/source_fixture.h"

namespace tributary::streaming {
namespace {

using ::testing::HasSubstr;

class SourceOptionsTest : public testing::SourceTest {
 protected:
  void SetUp() override {
    SourceTest::SetUp();
    WriteFile("in/a.json", "{\"id\":1}\n");
  }

  Status Define(const std::string& format, formats::OptionMap options, bool with_schema = true) {
    SourceRequest request;
    request.format = format;
    request.path = format == "rate" ? "" : dir_ + "/in";
    request.options = std::move(options);
    if (with_schema) {
      request.schema = *plan::ParseSchemaDdl("id BIGINT");
    }
    request.fs = &fs_;
    return DefineSource(request).status();
  }
};

TEST_F(SourceOptionsTest, MisspeltAutoLoaderKeysAreErrorsWithTheClosestKey) {
  Status format = Define("cloudFiles", {{"cloudFiles.formatt", "json"}});
  ASSERT_RAISES(InvalidArgument, format);
  EXPECT_THAT(format.Message(), HasSubstr("unknown option 'cloudFiles.formatt'"));
  EXPECT_THAT(format.Message(), HasSubstr("did you mean 'cloudFiles.format'?"));

  Status infer = Define("cloudFiles", {{"cloudFiles.format", "json"}, {"inferColumnTyp", "true"}});
  ASSERT_RAISES(InvalidArgument, infer);
  EXPECT_THAT(infer.Message(), HasSubstr("did you mean 'inferColumnTypes'?"));
  EXPECT_THAT(infer.Message(), HasSubstr("cloudFiles.validateOptions"));

  Status invented = Define("cloudFiles", {{"cloudFiles.format", "json"}, {"colour", "blue"}});
  ASSERT_RAISES(InvalidArgument, invented);
  EXPECT_THAT(invented.Message(), HasSubstr("unknown option 'colour' for the cloudFiles source"));

  // A reader key of another format is unknown to this one.
  Status header = Define("cloudFiles", {{"cloudFiles.format", "json"}, {"header", "true"}});
  ASSERT_RAISES(InvalidArgument, header);
}

TEST_F(SourceOptionsTest, KeysNotImplementedYetAreRefusedByName) {
  for (const char* key : {"cloudFiles.useIncrementalListing", "cloudFiles.roleArn",
                          "cloudFiles.useManagedFileEvents", "encoding"}) {
    Status refused = Define("cloudFiles", {{"cloudFiles.format", "json"}, {key, "x"}});
    ASSERT_RAISES(NotImplemented, refused);
    EXPECT_THAT(refused.Message(), HasSubstr(std::string("option '") + key + "'"));
    EXPECT_THAT(refused.Message(), HasSubstr("not supported yet"));
  }
  // Notification mode on S3 takes a queue URL; a value that is none is refused as such.
  Status queue =
      Define("cloudFiles", {{"cloudFiles.format", "json"}, {"cloudFiles.queueUrl", "x"}});
  ASSERT_RAISES(InvalidArgument, queue);
  EXPECT_THAT(queue.Message(), HasSubstr("an SQS queue URL"));
  Status event_time = Define("delta", {{"withEventTimeOrder", "true"}}, false);
  ASSERT_RAISES(NotImplemented, event_time);
  EXPECT_THAT(event_time.Message(), HasSubstr("'withEventTimeOrder' of the Delta source"));
  Status clean = Define("json", {{"cleanSource", "delete"}});
  ASSERT_RAISES(NotImplemented, clean);
}

TEST_F(SourceOptionsTest, EverySourceChecksItsKeys) {
  Status file = Define("json", {{"maxFilesPerTriger", "1"}});
  ASSERT_RAISES(InvalidArgument, file);
  EXPECT_THAT(file.Message(), HasSubstr("the json file stream source"));
  EXPECT_THAT(file.Message(), HasSubstr("did you mean 'maxFilesPerTrigger'?"));
  Status delta = Define("delta", {{"startingVersoin", "1"}}, false);
  ASSERT_RAISES(InvalidArgument, delta);
  EXPECT_THAT(delta.Message(), HasSubstr("did you mean 'startingVersion'?"));
  // The Delta source takes no "cloudFiles." keys.
  ASSERT_RAISES(InvalidArgument, Define("delta", {{"cloudFiles.maxFilesPerTrigger", "1"}}, false));
  Status rate = Define("rate", {{"rowPerSecond", "5"}}, false);
  ASSERT_RAISES(InvalidArgument, rate);
  EXPECT_THAT(rate.Message(), HasSubstr("did you mean 'rowsPerSecond'?"));
}

TEST_F(SourceOptionsTest, LegitimateKeysPassAndValidateOptionsFalseTurnsTheCheckOff) {
  ASSERT_OK(Define("cloudFiles", {{"cloudFiles.format", "json"},
                                  {"cloudFiles.maxFilesPerTrigger", "2"},
                                  {"CLOUDFILES.INCLUDEEXISTINGFILES", "true"},
                                  {"multiLine", "false"},
                                  {"cloudFiles.allowOverwrites", "false"},
                                  {"pathGlobFilter", "*.json"},
                                  {"ignoreCorruptFiles", "true"}}));
  ASSERT_OK(Define("json", {{"maxFilesPerTrigger", "1"},
                            {"latestFirst", "true"},
                            {"allowComments", "true"},
                            {"mode", "PERMISSIVE"}}));
  ASSERT_OK(Define("csv", {{"header", "true"}, {"sep", ";"}, {"maxFileAge", "1d"}}));
  ASSERT_OK(Define("rate", {{"rowsPerSecond", "5"}, {"numPartitions", "2"}}, false));
  ASSERT_OK(Define("cloudFiles", {{"cloudFiles.format", "json"},
                                  {"cloudFiles.validateOptions", "false"},
                                  {"cloudFiles.formatt", "json"},
                                  {"cloudFiles.useIncrementalListing", "auto"}}));
}

}  // namespace
}  // namespace tributary::streaming
