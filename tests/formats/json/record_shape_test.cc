// RecordShape and RecordShapeCache: what a learned or merged shape matches, and the values it
// hands out (the readers' tests check that reading through them equals the DOM's reading).

#include "formats/json/record_shape.h"

#include <simdjson.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace tributary::json {
namespace {

// Parses `text` (one JSON object) with a parser that outlives the returned object.
simdjson::dom::object Parse(simdjson::dom::parser& parser, const std::string& text) {
  return parser.parse(text).get_object().value();
}

// The kinds of the values `shape` matches `line` with, one letter each (n null, b bool, i int,
// d double, s string, o object, a array, - absent), or "no match".
std::string Kinds(const RecordShape& shape, std::string line) {
  line.append(simdjson::SIMDJSON_PADDING, ' ');
  std::vector<ShapeValue> values;
  if (!shape.Match(std::string_view(line.data(), line.size() - simdjson::SIMDJSON_PADDING),
                   /*parse_doubles=*/true, &values)) {
    return "no match";
  }
  std::string kinds;
  for (const ShapeValue& value : values) {
    kinds.push_back("nbidsoa-"[static_cast<int>(value.kind)]);
  }
  return kinds;
}

TEST(RecordShapeTest, ALearnedShapeMatchesItsKeysInOrderWithAnyValuesOrNulls) {
  simdjson::dom::parser parser;
  RecordShape shape;
  ASSERT_TRUE(shape.Learn(Parse(parser, R"({"a":1,"o":{"x":"s","y":[1,2]},"t":["p"]})")));
  EXPECT_EQ(Kinds(shape, R"({"a":2,"o":{"x":"t","y":[]},"t":["p","q"]})"), "oiosaass");
  EXPECT_EQ(Kinds(shape, R"({"a":null,"o":null,"t":null})"), "onnn");
  EXPECT_EQ(Kinds(shape, R"({"a":1.5,"o":{"x":true,"y":[null]},"t":[]})"), "odobana");
  EXPECT_EQ(Kinds(shape, R"({"o":{"x":"s","y":[]},"a":1,"t":[]})"), "no match");
  EXPECT_EQ(Kinds(shape, R"({"a":1,"o":{"x":"s"},"t":[]})"), "no match");
  EXPECT_EQ(Kinds(shape, R"({"a":1,"o":{"x":"s","y":[{}]},"t":[]})"), "no match");
  EXPECT_EQ(Kinds(shape, R"({"a":1,"o":{"x":"s","y":[]},"t":[],"u":1})"), "no match");
}

TEST(RecordShapeTest, AMergedShapeHasTheMembersOfEitherInOrderTheOthersOptional) {
  simdjson::dom::parser parser;
  RecordShape old_shape;
  ASSERT_TRUE(old_shape.Learn(Parse(parser, R"({"a":1,"b":{"x":1},"n":null,"e":[]})")));
  RecordShape merged;
  ASSERT_TRUE(merged.MergeFrom(
      old_shape, Parse(parser, R"({"a":1,"c":"s","b":{"x":1,"z":2},"n":{"k":1},"e":[{"v":1}]})")));
  // a, c?, b{x, z?}, n{k} (null before: any shape merges in), e[{v}] (empty before).
  EXPECT_EQ(Kinds(merged, R"({"a":1,"b":{"x":1},"n":null,"e":[]})"), "oi-oi-na");
  EXPECT_EQ(Kinds(merged, R"({"a":1,"c":"s","b":{"x":1,"z":2},"n":{"k":1},"e":[{"v":2}]})"),
            "oisoiioiaoi");
  EXPECT_EQ(Kinds(merged, R"({"c":"s","a":1,"b":{"x":1},"n":null,"e":[]})"), "no match");
  EXPECT_EQ(Kinds(merged, R"({"a":1,"c":"s","n":null,"e":[]})"), "no match");
  // Keys in another order, or an object where a scalar was: no merged shape.
  RecordShape none;
  EXPECT_FALSE(none.MergeFrom(old_shape, Parse(parser, R"({"b":{"x":1},"a":1,"n":1,"e":[]})")));
  EXPECT_FALSE(none.MergeFrom(old_shape, Parse(parser, R"({"a":{"y":1},"b":{"x":1}})")));
}

// An array of objects with optional keys: the element shape is the elements' shapes merged.
TEST(RecordShapeTest, ArrayElementsOfOtherKeysMergeIntoOneElementShape) {
  simdjson::dom::parser parser;
  RecordShape shape;
  ASSERT_TRUE(shape.Learn(Parse(parser, R"({"l":[{"k":"a"},{"k":"b","v":1},null,{"v":2}]})")));
  // l[{k?, v?}]: k is in the first element and not the last, v in the last and not the first.
  EXPECT_EQ(Kinds(shape, R"({"l":[{"k":"x","v":1.5},{"v":1},{}]})"), "oaosdo-io--");
  EXPECT_EQ(Kinds(shape, R"({"l":[{"v":1,"k":"x"}]})"), "no match");
  EXPECT_FALSE(shape.Learn(Parse(parser, R"({"l":[{"k":"a","v":1},{"v":2,"k":"b"}]})")));
  EXPECT_FALSE(shape.Learn(Parse(parser, R"({"l":[{"k":"a"},{"k":{"deep":1}}]})")));
}

// Records whose keys are data (a new key in each) would grow one shape record by record: a
// shape merges kMaxMerges times, then no more.
TEST(RecordShapeTest, AShapeMergesABoundedNumberOfTimes) {
  simdjson::dom::parser parser;
  RecordShape shape;
  ASSERT_TRUE(shape.Learn(Parse(parser, R"({"k0":1})")));
  for (int i = 1; i <= RecordShape::kMaxMerges + 1; ++i) {
    RecordShape merged;
    const bool ok = merged.MergeFrom(shape, Parse(parser, "{\"k" + std::to_string(i) + "\":1}"));
    ASSERT_EQ(ok, i <= RecordShape::kMaxMerges) << i;
    if (ok) {
      shape = merged;
      EXPECT_EQ(shape.NumMembers(0), static_cast<uint32_t>(i + 1));
    }
  }
}

TEST(RecordShapeCacheTest, KeepsShapesThatDoNotMergeAndUndoesAMerge) {
  simdjson::dom::parser parser;
  RecordShapeCache cache;
  std::vector<ShapeValue> values;
  const std::string first = std::string(R"({"a":1,"b":2})") + std::string(64, ' ');
  const std::string other = std::string(R"({"b":2,"a":1})") + std::string(64, ' ');
  const auto line = [](const std::string& padded) {
    return std::string_view(padded.data(), padded.size() - 64);
  };
  ASSERT_EQ(cache.Learn(Parse(parser, R"({"a":1,"b":2})")), 0);
  EXPECT_EQ(cache.MergeIntoLast(Parse(parser, R"({"b":2,"a":1})")), -1);
  ASSERT_EQ(cache.Learn(Parse(parser, R"({"b":2,"a":1})")), 1);
  EXPECT_EQ(cache.Match(line(first), true, &values), 0);
  EXPECT_EQ(cache.Match(line(other), true, &values), 1);
  // Merged into the last one matched (1), then undone: it matches what it did before only.
  const std::string extra = std::string(R"({"b":2,"c":3,"a":1})") + std::string(64, ' ');
  EXPECT_EQ(cache.MergeIntoLast(Parse(parser, R"({"b":2,"c":3,"a":1})")), 1);
  EXPECT_EQ(cache.Match(line(extra), true, &values), 1);
  cache.UndoMerge();
  EXPECT_EQ(cache.Match(line(extra), true, &values), -1);
  EXPECT_EQ(cache.Match(line(other), true, &values), 1);
}

}  // namespace
}  // namespace tributary::json
