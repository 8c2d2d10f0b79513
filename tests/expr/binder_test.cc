#include <gtest/gtest.h>

#include "expr/bound_expression.h"
#include "support/batch_from_json.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::MakeSchema;

columnar::SchemaPtr Schema() {
  return MakeSchema({Field("Id", DataType::Int64()), Field("name", DataType::String()),
                     Field("when", DataType::Date()),
                     Field("addr", DataType::Struct({Field("city", DataType::String()),
                                                     Field("a.b", DataType::Int32())}))});
}

TEST(ExpressionBinderTest, ResolvesColumnsIgnoringCaseAndNestedFields) {
  ASSERT_OK_AND_ASSIGN(auto id, Bind(*Col("id"), *Schema()));
  EXPECT_EQ(id->Index(), 0);
  EXPECT_EQ(id->Name(), "Id");
  ASSERT_OK_AND_ASSIGN(auto city, Bind(*Col("addr.City"), *Schema()));
  EXPECT_EQ(city->GetOp(), Op::kGetField);
  EXPECT_EQ(city->Type()->ToString(), "string");
  ASSERT_OK_AND_ASSIGN(auto dotted, Bind(*Col("addr.`a.b`"), *Schema()));
  EXPECT_EQ(dotted->Index(), 1);
}

TEST(ExpressionBinderTest, UnknownColumnNamesWhatExists) {
  auto result = Bind(*Col("nope"), *Schema());
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_EQ(result.status().Message(), "column 'nope' not found; available: Id, name, when, addr");
  ASSERT_RAISES(InvalidArgument, Bind(*Col("addr.zip"), *Schema()));
  ASSERT_RAISES(InvalidArgument, Bind(*Col("name.x"), *Schema()));
}

TEST(ExpressionBinderTest, InsertsImplicitCastsForComparisons) {
  auto expr = Call(Op::kLess, {Col("when"), Lit(Scalar::String("2024-05-01"))});
  ASSERT_OK_AND_ASSIGN(auto bound, Bind(*expr, *Schema()));
  EXPECT_EQ(bound->ToString(), "(when < CAST('2024-05-01' AS date))");
  auto widened = Call(Op::kEqual, {Col("Id"), Lit(Scalar::Decimal(15, 3, 1).ValueOrDie())});
  ASSERT_OK_AND_ASSIGN(bound, Bind(*widened, *Schema()));
  EXPECT_EQ(bound->Child(0).Type()->ToString(), "decimal(21,1)");
}

TEST(ExpressionBinderTest, RejectsMismatchedTypesWithTheExpression) {
  auto result = Bind(*Call(Op::kMultiply, {Col("name"), Col("when")}), *Schema());
  ASSERT_RAISES(InvalidArgument, result);
  EXPECT_NE(result.status().Message().find("(name * when)"), std::string::npos);
  // Spark's ANSI string promotion: a string beside an integer is computed as a bigint.
  ASSERT_OK_AND_ASSIGN(auto promoted, Bind(*Call(Op::kAdd, {Col("name"), Col("Id")}), *Schema()));
  EXPECT_EQ(promoted->Type()->Id(), columnar::TypeId::kInt64);
  ASSERT_RAISES(InvalidArgument, Bind(*And(Col("Id"), Col("name")), *Schema()));
  ASSERT_RAISES(InvalidArgument, Bind(*Cast(Col("when"), DataType::Boolean()), *Schema()));
  // Structs have Spark's ordering; a struct and a number do not compare, nor do maps.
  ASSERT_OK(Bind(*Call(Op::kLess, {Col("addr"), Col("addr")}), *Schema()).status());
  ASSERT_RAISES(InvalidArgument, Bind(*Call(Op::kLess, {Col("addr"), Col("Id")}), *Schema()));
  const ExprPtr map = Function("map", {Col("Id"), Col("name")});
  ASSERT_RAISES(InvalidArgument, Bind(*Call(Op::kEqual, {map, map}), *Schema()));
}

TEST(ExpressionBinderTest, PrintsExpressionsAsSql) {
  auto expr = And(In(Col("name"), {Lit(Scalar::String("it's"))}), Not(IsNull(Col("`we.ird`"))));
  EXPECT_EQ(expr->ToString(), "((name IN ('it''s')) AND (NOT (`we.ird` IS NULL)))");
}

}  // namespace
}  // namespace tributary::expr
