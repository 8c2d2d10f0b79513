// Lines for the tests of the record-shape fast path (formats/json/record_shape.h): after a
// first record of one shape (a flat one, and one with nested objects and arrays), lines of that
// shape with values of every kind and edge, and lines that break the shape, the grammar or the
// encoding in every way the matcher checks.

#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace tributary::json {

/// The record that teaches the shape: keys s, i, d, b, n.
inline const std::string kFlatShapeFirstRecord = R"({"s":"x","i":1,"d":1.5,"b":true,"n":null})";

/// A record of that shape with the JSON texts `s`, `i` and `d` as its first three values.
inline std::string FlatShapeRecordWith(std::string_view s, std::string_view i, std::string_view d) {
  return "{\"s\":" + std::string(s) + ",\"i\":" + std::string(i) + ",\"d\":" + std::string(d) +
         ",\"b\":false,\"n\":null}";
}

/// Lines to read or infer after kFlatShapeFirstRecord.
inline std::vector<std::string> FlatShapeVariantLines() {
  const auto with = FlatShapeRecordWith;
  return {
      with("\"y\"", "2", "2.5"),
      with("\"y\"", "-128", "-0.0"),
      with("\"y\"", "128", "3"),
      with("\"y\"", "123456789012345678", "0.1234567890123456789"),
      with("\"y\"", "1234567890123456789", "1.7976931348623157e308"),
      with("\"y\"", "12345678901234567890", "1.5"),
      with("\"y\"", "123456789012345678901", "1.5"),
      with("\"y\"", "-0", "2.2250738585072014e-308"),
      with("\"y\"", "01", "1.5"),
      with("\"y\"", "1", "1e5"),
      with("\"y\"", "1", "-1.25E+200"),
      with("\"y\"", "1", "1e400"),
      with("\"y\"", "-9223372036854775809", "1.5"),
      with("\"y\"", "1234567890123456789012", "-1e400"),
      with("\"y\"", "99999999999999999999999999999999999999999", "1e309"),
      with("\"y\"", "1", "1e400e1"),
      with("\"y\"", "1", "1e-400"),
      with("\"y\"", "1", "1."),
      with("\"y\"", "1", "0.12345678901234567890123"),
      with("\"y\"", "true", "null"),
      with("null", "null", "\"NaN\""),
      with("1", "\"1\"", "\"1.5\""),
      with("\"a\\\"b\"", "1", "1.5"),
      with("\"\\u00e9\"", "1", "1.5"),
      with("\"\xC3\xA9t\xC3\xA9 \xE2\x82\xAC\"", "1", "1.5"),
      with("\"\xFF\"", "1", "1.5"),
      with("\"\xC3\"", "1", "1.5"),
      with("\"a\x01\"", "1", "1.5"),
      with("\"a\\qb\"", "1", "1.5"),
      with("'single'", "1", "1.5"),
      with("\"2024-01-02T03:04:05Z\"", "1700000000", "1.5"),
      with("\"y\"", "{\"x\":1}", "[1,2]"),
      with("\"y\"", "NaN", "Infinity"),
      with("\"y\"", "tru", "1.5"),
      with("\"y\"", "nulll", "1.5"),
      with("\"0123456789abcdefghijklmnopqrstuvwxyz\"", "1", "1.5"),
      // Strings the DOM path parses as the column's type (timestamps, doubles, decimals, dates
      // in the typed set-up), valid and not.
      R"({"s":"2024-01-02 03:04:05","i":"NaN","d":"12.34","b":true,"n":"2024-02-29"})",
      R"({"s":"2024-01-02T03:04:05.123456+01:00","i":"-Infinity","d":"-1","b":true,"n":"2024-1-2"})",
      R"({"s":"2024-13-02T03:04:05Z","i":"Infinity","d":"123456.7","b":true,"n":"2024-02-30"})",
      R"({"s":"2024-01-02T03:04:05Z","i":"1.5","d":"1e1","b":true,"n":"x"})",
      R"({"s":"y","s":1,"i":1,"d":1.5,"b":false,"n":null})",
      R"({"s":"y","i":1,"d":1.5,"b":false})",
      R"({"s":"y","i":1,"d":1.5,"b":false,"n":null,"e":"extra"})",
      R"({"i":1,"s":"y","d":1.5,"b":false,"n":null})",
      R"({"S":"y","i":1,"d":1.5,"b":false,"n":null})",
      R"({"\u0073":"y","i":1,"d":1.5,"b":false,"n":null})",
      "\t{ \"s\" : \"y\" , \"i\" : 1 , \"d\" : 1.5 , \"b\" : false , \"n\" : null }\r ",
      R"({"s":"y","i":1,"d":1.5,"b":false,"n":null} x)",
      R"({"s":"y","i":1,"d":1.5,"b":false,"n":null}})",
      R"({"s":"y","i":1,"d":1.5,"b":false,"n":null,})",
      R"({"s":"y","i":1,"d":1.5,"b":false,"n":null)",
      R"({"s":"y","i":1,"d":1.5,"b":false,"n")",
      R"({"s":"y,"i":1,"d":1.5,"b":false,"n":null})",
      R"([{"s":"y","i":1,"d":1.5,"b":false,"n":null}])",
      "",
      "7",
      with("\"y\"", "1", ".5"),
      with("\"y\"", "[]", "{}"),
      "   ",
  };
}

/// The record that teaches a nested shape: an array of strings, an object, an array of
/// objects, an array learned from no element and a null.
inline const std::string kNestedShapeFirstRecord =
    R"({"s":"x","a":["p","q"],"o":{"x":1,"y":"z"},"l":[{"k":"a","v":1.5},{"k":"b","v":null}],"e":[],"n":null})";

/// Lines to read or infer after kNestedShapeFirstRecord.
inline std::vector<std::string> NestedShapeVariantLines() {
  return {
      R"({"s":"y","a":[],"o":{"x":2,"y":"w"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":null,"l":null,"e":null,"n":null})",
      R"({"s":"y","a":[null,"q",null],"o":{"x":null,"y":null},"l":[null,{"k":"c","v":2}],"e":[1,"two",3.5,true,null],"n":null})",
      R"({"s":"y","a":[1,2.5,true],"o":{"x":"str","y":5},"l":[{"k":1,"v":"x"}],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1.5,"y":"z"},"l":[{"k":"a","v":"NaN"}],"e":[],"n":null})",
      R"({"s":"y","a":[["nested"]],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":[{"in":"object"}],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[{"k":"a"},{"k":"b"}],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[[1],[2,3]],"n":null})",
      R"({"s":"y","a":["p"],"o":{"y":"z","x":1},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z","extra":3},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"x":2},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[{"k":"a"}],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[{"k":"a","v":1,"w":2}],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[{"v":1,"k":"a"}],"e":[],"n":null})",
      R"({"s":"y","a":[],"o":{"x":1,"y":"z"},"l":[{"k":"a"},{"k":"b","v":1},null,{"v":2}],"e":[],"n":null})",
      R"({"s":"y","a":[],"o":{"x":1,"y":"z"},"l":[{"k":"a","v":1},{"v":2,"k":"b"}],"e":[],"n":null})",
      R"({"s":"y","a":[],"o":{"x":1,"y":"z"},"l":[{"k":"a"},{"k":{"deep":1}}],"e":[],"n":null})",
      R"({"s":"y","a":"notarray","o":[1],"l":{"k":"a"},"e":{},"n":{"deep":{"er":[1]}}})",
      R"({"s":"y","a":["p"],"o":{},"l":[{}],"e":[],"n":null})",
      R"({"s":"y","a":[],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":[[1,2],[3]]})",
      std::string(R"( { "s" : "y" , "a" : [ "p" , "q" ] , "o" : { "x" : 1 , "y" : "z" } , )") +
          R"("l" : [ { "k" : "a" , "v" : 1.5 } , null ] , "e" : [ ] , "n" : null } )",
      "{\"s\":\"y\",\"a\":[\t\"p\"\r],\"o\":{\"x\":1,\"y\":\"z\"\n},\"l\":[],\"e\":[],\"n\":null}",
      R"({"s":"y","a":["p",],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":[,"p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p" "q"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p","o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z","l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"}},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null}})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[{"k":"a","v":1.5}],"e":[]})",
      R"({"s":"y","a":["p\"q"],"o":{"x":1,"y":"\u00e9"},"l":[],"e":[],"n":null})",
      std::string(R"({"s":"y","a":[")") + "\xFF" + R"("],"o":{"x":1,"y":")" + "\xC3\xA9" +
          R"("},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":[],"o":{"x":12345678901234567890,"y":"z"},"l":[{"k":"a","v":1e400}],"e":[],"n":null})",
      R"({"s":"y","a":[],"o":{"x":-9223372036854775809,"y":"z"},"l":[{"k":"a","v":0.12345678901234567890123}],"e":[],"n":null})",
      R"({"s":"y","a":["2024-01-02T03:04:05Z"],"o":{"x":1,"y":"2024-01-02 03:04:05"},"l":[{"k":"2024-02-29","v":"12.5"}],"e":[],"n":null})",
      R"({"s":"y","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null,"extra":[1]})",
      R"({"s":"y","a":["p"],"o":{"x":tru,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y","a":[nul],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
  };
}

/// `n` lines of records of more shapes than the fast path keeps at once (record_shape.h's
/// RecordShapeCache), in a seeded random order: optional nested objects, absent fields, a
/// nested field of the wrong type, a flat record, and now and then a variant line.
inline std::vector<std::string> MixedShapeLines(uint64_t seed, int n) {
  const std::vector<std::string> pool = {
      kNestedShapeFirstRecord,
      R"({"s":"y#","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null,"error":{"code":"E1","retry":true}})",
      R"({"s":"y#","user":{"id":7,"plan":"pro"},"a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y#","a":["p"],"o":{"x":1,"y":"z","w":[1,2]},"l":[{"k":"a","v":2}],"e":[],"n":null})",
      R"({"s":"y#","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null,"error":null})",
      R"({"s":"y#","o":{"x":1,"y":"z"},"l":[],"e":[],"n":null})",
      R"({"s":"y#","a":["p"],"o":{"x":1,"y":"z"},"l":[],"e":[],"n":null,"error":{"code":5}})",
      R"({"s":"y#","i":1})",
      R"({"s":"y#","a":["p"],"o":{"x":1,"y":"z"},"l":[{"k":"a"},{"k":"b","v":2,"w":true}],"e":[],"n":null})",
  };
  const std::vector<std::string> variants = NestedShapeVariantLines();
  std::mt19937_64 random(seed);
  std::vector<std::string> lines;
  lines.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    std::string line =
        random() % 10 == 0 ? variants[random() % variants.size()] : pool[random() % pool.size()];
    if (const size_t mark = line.find('#'); mark != std::string::npos) {
      line.replace(mark, 1, std::to_string(i));
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace tributary::json
