#include <gtest/gtest.h>

#include "columnar/memory_pool.h"
#include "expr/expression_fixture.h"
#include "support/memory_limit.h"
#include "support/status_matchers.h"

namespace tributary::expr {
namespace {

using columnar::Field;
using testing::BatchFromJson;
using testing::MakeSchema;

class StringFunctionsTest : public BatchExpressionTest {
 protected:
  void SetUp() override {
    auto schema = MakeSchema({Field("s", DataType::String()), Field("n", DataType::Int32())});
    batch_ = BatchFromJson(schema, R"([["Hello World", 1], ["ÄbÇ δ", -2], [null, 3], ["", 0]])")
                 .ValueOrDie();
  }
  Strings Call1(const std::string& name, std::vector<ExprPtr> args) {
    return Eval(Function(name, std::move(args)));
  }
};

TEST_F(StringFunctionsTest, CaseAndLengthCountCharacters) {
  EXPECT_EQ(Call1("upper", {Col("s")}), (Strings{"\"HELLO WORLD\"", "\"ÄBÇ Δ\"", "null", "\"\""}));
  EXPECT_EQ(Call1("lower", {Col("s")}), (Strings{"\"hello world\"", "\"äbç δ\"", "null", "\"\""}));
  EXPECT_EQ(Call1("length", {Col("s")}), (Strings{"11", "5", "null", "0"}));
  EXPECT_EQ(Call1("initcap", {StrLit("hELLO wORLD")})[0], "\"Hello World\"");
  EXPECT_EQ(Call1("reverse", {Col("s")})[1], "\"δ ÇbÄ\"");
}

TEST_F(StringFunctionsTest, SubstringIsOneBasedAndCountsNegativeFromTheEnd) {
  EXPECT_EQ(Call1("substring", {Col("s"), IntLit(1), IntLit(5)})[0], "\"Hello\"");
  EXPECT_EQ(Call1("substr", {Col("s"), IntLit(-5)})[0], "\"World\"");
  EXPECT_EQ(Call1("substr", {Col("s"), IntLit(0), IntLit(2)})[0], "\"He\"");
  EXPECT_EQ(Call1("substr", {Col("s"), IntLit(2), IntLit(2)})[1], "\"bÇ\"");
  EXPECT_EQ(Call1("substr", {Col("s"), IntLit(-20), IntLit(12)})[0], "\"Hel\"");
  EXPECT_EQ(Call1("substr", {Col("s"), IntLit(3), IntLit(-1)})[0], "\"\"");
  EXPECT_EQ(Call1("substr", {Col("s"), Col("n")}),
            (Strings{"\"Hello World\"", "\" δ\"", "null", "\"\""}));
}

TEST_F(StringFunctionsTest, ConcatIsNullWithAnyNullButConcatWsSkipsNulls) {
  EXPECT_EQ(Call1("concat", {Col("s"), StrLit("!"), Col("n")}),
            (Strings{"\"Hello World!1\"", "\"ÄbÇ δ!-2\"", "null", "\"!0\""}));
  EXPECT_EQ(Call1("concat_ws", {StrLit("-"), Col("s"), StrLit("x"), Col("n")}),
            (Strings{"\"Hello World-x-1\"", "\"ÄbÇ δ-x--2\"", "\"x-3\"", "\"-x-0\""}));
  EXPECT_EQ(Call1("concat_ws",
                  {StrLit(","), Function("split", {StrLit("a b c"), StrLit(" ")}), StrLit("d")})[0],
            "\"a,b,c,d\"");
}

TEST_F(StringFunctionsTest, TrimPadReplaceAndSearch) {
  EXPECT_EQ(Call1("trim", {StrLit("  a b \t ")})[0], "\"a b \\t\"");
  EXPECT_EQ(Call1("ltrim", {StrLit("  a  ")})[0], "\"a  \"");
  EXPECT_EQ(Call1("rtrim", {StrLit("  a  ")})[0], "\"  a\"");
  EXPECT_EQ(Call1("trim", {StrLit("xy"), StrLit("xxayxy")})[0], "\"a\"");
  EXPECT_EQ(Call1("lpad", {StrLit("hi"), IntLit(5), StrLit("ab")})[0], "\"abahi\"");
  EXPECT_EQ(Call1("rpad", {StrLit("hi"), IntLit(5)})[0], "\"hi   \"");
  EXPECT_EQ(Call1("lpad", {StrLit("hello"), IntLit(2)})[0], "\"he\"");
  EXPECT_EQ(Call1("replace", {Col("s"), StrLit("o"), StrLit("0")})[0], "\"Hell0 W0rld\"");
  EXPECT_EQ(Call1("replace", {Col("s"), StrLit("l")})[0], "\"Heo Word\"");
  EXPECT_EQ(Call1("instr", {Col("s"), StrLit("δ")}), (Strings{"0", "5", "null", "0"}));
  EXPECT_EQ(Call1("starts_with", {Col("s"), StrLit("Hell")}),
            (Strings{"true", "false", "null", "false"}));
  EXPECT_EQ(Call1("endswith", {Col("s"), StrLit("")}), (Strings{"true", "true", "null", "true"}));
  EXPECT_EQ(Call1("contains", {Col("s"), StrLit("o W")})[0], "true");
}

TEST_F(StringFunctionsTest, LikeWithWildcardsAndEscapes) {
  EXPECT_EQ(Call1("like", {Col("s"), StrLit("H%o_W%")}),
            (Strings{"true", "false", "null", "false"}));
  EXPECT_EQ(Call1("like", {Col("s"), StrLit("_b%")})[1], "true");
  EXPECT_EQ(Call1("like", {StrLit("50%"), StrLit("50\\%")})[0], "true");
  EXPECT_EQ(Call1("like", {StrLit("50x"), StrLit("50\\%")})[0], "false");
  EXPECT_EQ(Call1("like", {StrLit("a.c"), StrLit("a.c")})[0], "true");
  EXPECT_EQ(Call1("like", {StrLit("abc"), StrLit("a.c")})[0], "false");
  EXPECT_EQ(Call1("like", {StrLit("a_c"), StrLit("a#_c"), StrLit("#")})[0], "true");
  auto bad = Bind(*Function("like", {Col("s"), StrLit("a\\")}), *batch_->Schema());
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("ends with the escape character"), std::string::npos);
  // A pattern column is compiled per distinct value.
  EXPECT_EQ(Call1("like", {StrLit("Hello World"), Col("s")}),
            (Strings{"true", "false", "null", "false"}));
}

TEST_F(StringFunctionsTest, RegularExpressions) {
  EXPECT_EQ(Call1("rlike", {Col("s"), StrLit("o\\s+W")}),
            (Strings{"true", "false", "null", "false"}));
  EXPECT_EQ(Call1("regexp", {Col("s"), StrLit("^$")})[3], "true");
  EXPECT_EQ(Call1("regexp_extract", {StrLit("100-200"), StrLit("(\\d+)-(\\d+)"), IntLit(2)})[0],
            "\"200\"");
  EXPECT_EQ(Call1("regexp_extract", {StrLit("abc"), StrLit("(\\d+)")})[0], "\"\"");
  EXPECT_EQ(Call1("regexp_replace", {StrLit("100-200"), StrLit("(\\d+)"), StrLit("<$1>")})[0],
            "\"<100>-<200>\"");
  EXPECT_EQ(Call1("split", {StrLit("oneAtwoBthreeC"), StrLit("[ABC]")})[0],
            R"(["one","two","three",""])");
  EXPECT_EQ(Call1("split", {StrLit("a,b,c"), StrLit(","), IntLit(2)})[0], R"(["a","b,c"])");
  EXPECT_EQ(Call1("split", {StrLit("abc"), StrLit("")})[0], R"(["a","b","c"])");
  auto group = EvalError(Function("regexp_extract", {Col("s"), StrLit("(o)"), IntLit(2)}));
  ASSERT_RAISES(InvalidArgument, group);
  EXPECT_NE(group.Message().find("[INVALID_PARAMETER_VALUE.REGEX_GROUP_INDEX]"), std::string::npos)
      << group;
  EXPECT_NE(group.Message().find("between 0 and 1, but got 2"), std::string::npos) << group;
  auto bad = Bind(*Function("rlike", {Col("s"), StrLit("(a")}), *batch_->Schema());
  ASSERT_RAISES(InvalidArgument, bad);
  EXPECT_NE(bad.status().Message().find("invalid regular expression '(a'"), std::string::npos);
  ASSERT_RAISES(InvalidArgument,
                Bind(*Function("upper", {Function("array", {Col("s")})}), *batch_->Schema()));
}

// Spark's bound on a string: its ByteArrayMethods.MAX_ROUNDED_ARRAY_LENGTH bytes. A pad or
// replace past it fails before anything of its size is allocated (the child process has no
// memory for it); they used to build the 2 GiB value, and copy it.
TEST_F(StringFunctionsTest, ResultsPastSparksStringSizeAreErrorsBeforeTheyAreBuilt) {
  const std::vector<ExprPtr> calls = {
      Function("lpad", {StrLit("a"), IntLit(2147483647), StrLit("x")}),
      Function("rpad", {StrLit("ab"), IntLit(2147483647)}),
      Function("replace", {Function("lpad", {StrLit(""), IntLit(60000), StrLit("a")}), StrLit("a"),
                           Function("lpad", {StrLit(""), IntLit(40000), StrLit("b")})})};
  for (const ExprPtr& call : calls) {
    const int code = testing::RunUnderMemoryLimit(int64_t{256} << 20, [&] {
      const Status error = EvalError(call);
      return error.IsInvalidArgument() &&
                     error.Message().find("more than the 2147483632 bytes a string can hold") !=
                         std::string::npos
                 ? 0
                 : 1;
    });
    EXPECT_EQ(code, 0) << call->ToString();
  }
  EXPECT_EQ(Call1("length", {Function("lpad", {StrLit("a"), IntLit(100000), StrLit("xy")})})[0],
            "100000");
  EXPECT_EQ(Call1("substr", {Function("rpad", {StrLit("a"), IntLit(100000), StrLit("xy")}),
                             IntLit(99998)})[0],
            "\"xyx\"");
}

// A long pad is written into the evaluation's pool, so a pool with a limit (a query's) refuses
// it before it is allocated, with an error naming the pool.
TEST_F(StringFunctionsTest, APadPastThePoolsLimitIsAnErrorBeforeItIsBuilt) {
  const int code = testing::RunUnderMemoryLimit(int64_t{256} << 20, [&] {
    columnar::TrackingMemoryPool pool("query", columnar::DefaultMemoryPool(), 64 << 20);
    EvalContext context;
    context.pool = &pool;
    const Status error =
        EvalError(Function("lpad", {StrLit("a"), IntLit(200000000), StrLit("x")}), context);
    return error.IsIOError() && error.Message().find("memory limit of pool 'query' exceeded") !=
                                    std::string::npos
               ? 0
               : 1;
  });
  EXPECT_EQ(code, 0);
}

TEST_F(StringFunctionsTest, SparkFunctionsOverColumnsKeepNullsPerRow) {
  EXPECT_EQ(Call1("split_part", {Col("s"), StrLit(" "), IntLit(2)}),
            (Strings{"\"World\"", "\"δ\"", "null", "\"\""}));
  EXPECT_EQ(Call1("levenshtein", {Col("s"), StrLit("Hello")}), (Strings{"6", "5", "null", "5"}));
  EXPECT_EQ(Call1("mask", {Col("s")}), (Strings{"\"Xxxxx Xxxxx\"", "\"XxX x\"", "null", "\"\""}));
  EXPECT_EQ(Call1("locate", {StrLit("o"), Col("s"), Col("n")}), (Strings{"5", "0", "null", "0"}));
  EXPECT_EQ(Call1("format_string", {StrLit("%s|%d"), Col("s"), Col("n")}),
            (Strings{"\"Hello World|1\"", "\"ÄbÇ δ|-2\"", "\"null|3\"", "\"|0\""}));
  EXPECT_EQ(Call1("regexp_count", {Col("s"), StrLit("l")}), (Strings{"3", "0", "null", "0"}));
  EXPECT_EQ(Call1("regexp_extract_all", {Col("s"), StrLit("(\\w)o"), IntLit(1)}),
            (Strings{R"(["l","W"])", "[]", "null", "[]"}));
  EXPECT_EQ(Call1("translate", {Col("s"), StrLit("lo"), StrLit("01")}),
            (Strings{"\"He001 W1r0d\"", "\"ÄbÇ δ\"", "null", "\"\""}));
  EXPECT_EQ(Call1("url_encode", {Col("s")}),
            (Strings{"\"Hello+World\"", "\"%C3%84b%C3%87+%CE%B4\"", "null", "\"\""}));
  EXPECT_EQ(Call1("try_to_number", {Function("repeat", {StrLit("7"), Col("n")}), StrLit("999")}),
            (Strings{"\"7\"", "null", "\"777\"", "null"}));
}

}  // namespace
}  // namespace tributary::expr
