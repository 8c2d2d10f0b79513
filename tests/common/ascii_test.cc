// The ASCII and UTF-8 helpers every layer shares answer for ASCII bytes only (whatever the C
// locale says) and accept exactly the well-formed UTF-8 sequences.

#include "common/ascii.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/utf8.h"

namespace tributary {
namespace {

TEST(AsciiTest, CharacterClasses) {
  static_assert(IsAsciiDigit('0') && IsAsciiDigit('9') && !IsAsciiDigit('a'));
  static_assert(IsAsciiLetter('a') && IsAsciiLetter('Z') && !IsAsciiLetter('_'));
  EXPECT_FALSE(IsAsciiDigit('/'));
  EXPECT_FALSE(IsAsciiDigit(':'));
  EXPECT_FALSE(IsAsciiLetter('@'));
  EXPECT_FALSE(IsAsciiLetter('['));
  EXPECT_FALSE(IsAsciiLetter('\xE9'));  // Latin-1 é: not ASCII
  EXPECT_TRUE(IsAsciiDigits("2024"));
  EXPECT_FALSE(IsAsciiDigits(""));
  EXPECT_FALSE(IsAsciiDigits("12a"));
}

TEST(AsciiTest, CaseFoldingAndHexDigits) {
  EXPECT_EQ(AsciiLower("MiXeD_1\xC3\x89"), "mixed_1\xC3\x89");
  EXPECT_EQ(AsciiUpper("MiXeD_1"), "MIXED_1");
  EXPECT_TRUE(EqualsIgnoreAsciiCase("PERMISSIVE", "permissive"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase("true", "tru"));
  EXPECT_FALSE(EqualsIgnoreAsciiCase(std::string("a\0b", 3), std::string("a\0c", 3)));
  static_assert(HexDigitValue('f') == 15 && HexDigitValue('A') == 10 && HexDigitValue('7') == 7);
  EXPECT_EQ(HexDigitValue('g'), -1);
}

TEST(AsciiTest, CommaListsAreTrimmedWithoutEmptyItems) {
  EXPECT_EQ(TrimBlanks(" \t a b\t "), "a b");
  EXPECT_EQ(TrimBlanks(" \t "), "");
  EXPECT_EQ(SplitCommaList(" a, b ,,\tc ,"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(SplitCommaList("only"), (std::vector<std::string>{"only"}));
  EXPECT_TRUE(SplitCommaList(" , ,").empty());
  EXPECT_TRUE(SplitCommaList("").empty());
}

TEST(Utf8Test, AppendUtf8EncodesEachLength) {
  std::string out;
  AppendUtf8(0x41, &out);     // A
  AppendUtf8(0xE9, &out);     // é
  AppendUtf8(0x20AC, &out);   // €
  AppendUtf8(0x1F600, &out);  // 😀
  EXPECT_EQ(out, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(Utf8Test, SequenceLengthAcceptsOnlyWellFormedSequences) {
  EXPECT_EQ(Utf8SequenceLength("A rest"), 1u);
  EXPECT_EQ(Utf8SequenceLength("\xC3\xA9"), 2u);
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82\xAC"), 3u);
  EXPECT_EQ(Utf8SequenceLength("\xF0\x9F\x98\x80"), 4u);
  EXPECT_EQ(Utf8SequenceLength(""), 0u);
  EXPECT_EQ(Utf8SequenceLength("\xE2\x82"), 0u);          // cut short
  EXPECT_EQ(Utf8SequenceLength("\xC0\x80"), 0u);          // overlong NUL
  EXPECT_EQ(Utf8SequenceLength("\xED\xA0\x80"), 0u);      // surrogate U+D800
  EXPECT_EQ(Utf8SequenceLength("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\x80"), 0u);              // a lone continuation byte
  EXPECT_EQ(Utf8SequenceLength("\xC3("), 0u);             // a bad continuation byte
}

}  // namespace
}  // namespace tributary
