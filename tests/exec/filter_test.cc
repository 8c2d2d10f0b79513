#include <gtest/gtest.h>

#include "exec/operator_io.h"
#include "exec/relational_operators.h"

namespace tributary::exec {
namespace {

using columnar::DataType;
using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

// status = 'active' over three batches: every row passes (handed on as the same batch), some
// pass (copied), none passes or the predicate is null (dropped).
TEST(FilterTest, PassesWholeBatchesOnAsTheyAreAndDropsEmptyOnes) {
  auto schema = MakeSchema({Field("id", DataType::Int64()), Field("status", DataType::String())});
  ASSERT_OK_AND_ASSIGN(auto all, BatchFromJson(schema, R"([{"id":1,"status":"active"},
                                                           {"id":2,"status":"active"}])"));
  ASSERT_OK_AND_ASSIGN(auto some, BatchFromJson(schema, R"([{"id":3,"status":"pending"},
                                                            {"id":4,"status":"active"},
                                                            {"id":5,"status":null}])"));
  ASSERT_OK_AND_ASSIGN(auto none, BatchFromJson(schema, R"([{"id":6,"status":null},
                                                            {"id":7,"status":"inactive"}])"));
  ExecContext context;
  OperatorPtr filter = Instantiate(
      std::make_shared<FilterNode>(
          Source(schema, {all, some, none}),
          BindOrDie(expr::Call(expr::Op::kEqual,
                               {expr::Col("status"), expr::Lit(expr::Scalar::String("active"))}),
                    *schema)),
      context);
  ASSERT_OK_AND_ASSIGN(auto first, filter->Next());
  EXPECT_EQ(first, all);
  ASSERT_OK_AND_ASSIGN(auto second, filter->Next());
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(columnar::CanonicalJsonRows(*second),
            std::vector<std::string>{R"({"id":4,"status":"active"})"});
  ASSERT_OK_AND_ASSIGN(auto end, filter->Next());
  EXPECT_EQ(end, nullptr);
}

}  // namespace
}  // namespace tributary::exec
