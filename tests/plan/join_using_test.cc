// USING and NATURAL joins (plan_builder.h JoinUsing, NaturalJoinColumns): the one output key,
// and each side's own key reachable only through its qualifier (qualified_access.h), as Spark
// resolves `l.k`, `r.k`, `l.*` and `r.*` after such a join.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "plan/plan_builder.h"
#include "plan/plan_rows.h"
#include "plan/qualified_access.h"
#include "storage/local_file_system.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::plan {
namespace {

using columnar::DataType;
using columnar::Field;
using expr::Col;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

class JoinUsingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto left_schema =
        testing::MakeSchema({Field("lv", DataType::Int64()), Field("k", DataType::String())});
    ASSERT_OK_AND_ASSIGN(auto left_batch,
                         testing::BatchFromJson(left_schema, R"([[1, "a"], [2, "b"]])"));
    left_ = testing::ValuesPlan(left_schema, left_batch)->WithAlias("l");
    auto right_schema =
        testing::MakeSchema({Field("K", DataType::String()), Field("rv", DataType::Int64())});
    ASSERT_OK_AND_ASSIGN(auto right_batch,
                         testing::BatchFromJson(right_schema, R"([["a", 10], ["c", 30]])"));
    right_ = testing::ValuesPlan(right_schema, right_batch)->WithAlias("r");
  }

  std::vector<std::string> Run(const LogicalPlan& plan) { return testing::RunPlan(plan, &fs_); }

  static std::vector<std::string> Names(const LogicalPlan& plan) {
    std::vector<std::string> names;
    for (const Field& field : plan.Schema()->Fields()) {
      names.push_back(field.Name());
    }
    return names;
  }

  LogicalPlanPtr left_;
  LogicalPlanPtr right_;
  storage::LocalFileSystem fs_;
};

TEST_F(JoinUsingTest, NaturalJoinColumnsMatchNamesIgnoringCaseInLeftOrder) {
  EXPECT_THAT(NaturalJoinColumns(*left_, *right_), ElementsAre("k"));
  EXPECT_THAT(NaturalJoinColumns(*right_, *left_), ElementsAre("K"));
  EXPECT_THAT(NaturalJoinColumns(*left_, *left_->WithAlias("x")), ElementsAre("lv", "k"));
}

TEST_F(JoinUsingTest, SideKeysAreReachableOnlyThroughTheirQualifier) {
  ASSERT_OK_AND_ASSIGN(auto joined, JoinUsing(left_, right_, exec::JoinType::kFull, {"k"}, true));
  // The coalesced key, the other columns, then each side's own key, hidden.
  EXPECT_THAT(Names(*joined), ElementsAre("k", "lv", "rv", "k", "K"));
  EXPECT_FALSE(IsQualifiedAccessOnly(joined->Qualifiers()[0]));
  EXPECT_TRUE(IsQualifiedAccessOnly(joined->Qualifiers()[3]));
  EXPECT_EQ(QualifierName(joined->Qualifiers()[4]), "r");

  ASSERT_OK_AND_ASSIGN(auto keys,
                       Select(joined, {{Col("k"), "k"}, {Col("l.k"), "lk"}, {Col("r.k"), "rk"}}));
  EXPECT_THAT(Run(*keys), UnorderedElementsAre(R"({"k":"a","lk":"a","rk":"a"})",
                                               R"({"k":"b","lk":"b","rk":null})",
                                               R"({"k":"c","lk":null,"rk":"c"})"));

  // `*` has the key once; `r.*` puts the side's hidden key first, as Spark does.
  ASSERT_OK_AND_ASSIGN(auto star, Select(joined, {{Col("*"), ""}}));
  EXPECT_THAT(Names(*star), ElementsAre("k", "lv", "rv"));
  ASSERT_OK_AND_ASSIGN(auto sides, Select(joined, {{Col("l.*"), ""}, {Col("r.*"), ""}}));
  EXPECT_THAT(Names(*sides), ElementsAre("k", "lv", "K", "rv"));
  // A selected side key is a normal column above the projection.
  for (const std::string& qualifier : sides->Qualifiers()) {
    EXPECT_FALSE(IsQualifiedAccessOnly(qualifier));
  }
}

TEST_F(JoinUsingTest, RightJoinOutputsTheRightKeyUnderItsName) {
  ASSERT_OK_AND_ASSIGN(auto joined, JoinUsing(left_, right_, exec::JoinType::kRight, {"k"}, true));
  EXPECT_EQ(Names(*joined).front(), "K");
  ASSERT_OK_AND_ASSIGN(auto keys, Select(joined, {{Col("k"), "k"}, {Col("l.k"), "lk"}}));
  EXPECT_THAT(Run(*keys), UnorderedElementsAre(R"({"k":"a","lk":"a"})", R"({"k":"c","lk":null})"));
}

TEST_F(JoinUsingTest, WithoutSideKeysTheOutputIsTheKeysAndTheRest) {
  ASSERT_OK_AND_ASSIGN(auto joined, JoinUsing(left_, right_, exec::JoinType::kInner, {"k"}));
  EXPECT_THAT(Names(*joined), ElementsAre("k", "lv", "rv"));
  auto unresolved = Select(joined, {{Col("r.k"), ""}});
  ASSERT_FALSE(unresolved.ok());
  EXPECT_THAT(unresolved.status().ToString(), HasSubstr("UNRESOLVED_COLUMN"));
}

TEST_F(JoinUsingTest, NoCommonColumnMatchesEveryPair) {
  ASSERT_OK_AND_ASSIGN(auto joined, JoinUsing(left_, right_, exec::JoinType::kLeft, {}, true));
  EXPECT_THAT(Names(*joined), ElementsAre("lv", "k", "K", "rv"));
  EXPECT_EQ(Run(*joined).size(), 4U);
}

}  // namespace
}  // namespace tributary::plan
