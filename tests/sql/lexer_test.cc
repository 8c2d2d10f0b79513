#include "sql/lexer.h"

#include <gtest/gtest.h>

#include "support/status_matchers.h"

namespace tributary::sql {
namespace {

std::vector<Token> Lex(std::string_view text) {
  auto tokens = Tokenize(text);
  EXPECT_TRUE(tokens.ok()) << tokens.status().ToString();
  return tokens.ok() ? *tokens : std::vector<Token>{};
}

// "kind:text" per token, end token excluded, for compact expectations.
std::vector<std::string> Kinds(std::string_view text) {
  std::vector<std::string> out;
  for (const Token& token : Lex(text)) {
    static const char* const kNames[] = {"word",   "quoted", "string", "binary",
                                         "number", "op",     "end"};
    if (token.kind != TokenKind::kEnd) {
      out.push_back(std::string(kNames[static_cast<int>(token.kind)]) + ":" + token.text);
    }
  }
  return out;
}

std::string ErrorOf(std::string_view text) {
  auto tokens = Tokenize(text);
  EXPECT_FALSE(tokens.ok());
  return tokens.ok() ? "" : tokens.status().Message();
}

TEST(LexerTest, WordsQuotedWordsAndOperators) {
  EXPECT_EQ(Kinds("SELECT a.b, `x``y`.`c d` FROM t"),
            (std::vector<std::string>{"word:SELECT", "word:a", "op:.", "word:b", "op:,",
                                      "quoted:x`y", "op:.", "quoted:c d", "word:FROM", "word:t"}));
  EXPECT_EQ(Kinds("a<=>b<=c>=d<>e!=f==g=>h||i::j->k"),
            (std::vector<std::string>{
                "word:a", "op:<=>", "word:b", "op:<=",  "word:c", "op:>=",  "word:d",
                "op:<>",  "word:e", "op:!=",  "word:f", "op:==",  "word:g", "op:=>",
                "word:h", "op:||",  "word:i", "op:::",  "word:j", "op:->",  "word:k"}));
  EXPECT_EQ(Kinds("+-*/%&|^~!=<>[]();:"),
            (std::vector<std::string>{"op:+", "op:-", "op:*", "op:/", "op:%", "op:&", "op:|",
                                      "op:^", "op:~", "op:!=", "op:<>", "op:[", "op:]", "op:(",
                                      "op:)", "op:;", "op::"}));
}

TEST(LexerTest, KeywordsMatchIgnoringCaseButQuotedWordsAreNeverKeywords) {
  const std::vector<Token> tokens = Lex("select `select` SeLeCt");
  EXPECT_TRUE(tokens[0].IsKeyword("SELECT"));
  EXPECT_FALSE(tokens[1].IsKeyword("SELECT"));
  EXPECT_TRUE(tokens[2].IsKeyword("select"));
}

TEST(LexerTest, StringsUnescapeAsSpark) {
  EXPECT_EQ(Kinds(R"('it\'s' "dq \"x\"" 'a\tb\nc' '\\' '\%\_' '\u00e9\101' 'semi;colon')"),
            (std::vector<std::string>{"string:it's", "string:dq \"x\"", "string:a\tb\nc",
                                      "string:\\", "string:\\%\\_",
                                      "string:\xC3\xA9"
                                      "A",
                                      "string:semi;colon"}));
  EXPECT_EQ(Lex(R"('\0')")[0].text, std::string(1, '\0'));
  EXPECT_EQ(Lex(R"('\q')")[0].text, "q");
}

TEST(LexerTest, NumbersByKind) {
  const std::vector<Token> tokens = Lex("42 1.5 .5 5. 1e3 1.5E-2 10L 7s 3Y 2.5D 1f 1.50BD 2e2bd");
  const std::vector<NumberKind> kinds = {
      NumberKind::kInteger,   NumberKind::kDecimal,  NumberKind::kDecimal, NumberKind::kDecimal,
      NumberKind::kExponent,  NumberKind::kExponent, NumberKind::kBigint,  NumberKind::kSmallint,
      NumberKind::kTinyint,   NumberKind::kDouble,   NumberKind::kFloat,   NumberKind::kBigDecimal,
      NumberKind::kBigDecimal};
  ASSERT_EQ(tokens.size(), kinds.size() + 1);
  for (size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(tokens[i].kind, TokenKind::kNumber) << tokens[i].text;
    EXPECT_EQ(tokens[i].number_kind, kinds[i]) << tokens[i].text;
  }
  EXPECT_EQ(tokens[6].text, "10L");
}

TEST(LexerTest, DigitLedWordsAreIdentifiersAsInSpark) {
  EXPECT_EQ(Kinds("1a 2nd_col 3"),
            (std::vector<std::string>{"word:1a", "word:2nd_col", "number:3"}));
  EXPECT_EQ(ErrorOf("SELECT 1.5x"),
            "invalid number literal '1.5x' at line 1, column 8:\nSELECT 1.5x\n       ^");
}

TEST(LexerTest, HexBinaryLiterals) {
  EXPECT_EQ(Kinds("X'0a0B' x'' X"), (std::vector<std::string>{"binary:0a0B", "binary:", "word:X"}));
  EXPECT_EQ(ErrorOf("SELECT X'0g'"),
            "binary literal X'0g' has a non-hex digit 'g' at line 1, column 8:\n"
            "SELECT X'0g'\n"
            "       ^");
}

TEST(LexerTest, CommentsAreSkippedAndBracketedOnesNest) {
  EXPECT_EQ(Kinds("a -- one ; two\nb /* x /* y; */ z */ c /*+ hint */ d"),
            (std::vector<std::string>{"word:a", "word:b", "word:c", "word:d"}));
  EXPECT_EQ(Kinds("a-b"), (std::vector<std::string>{"word:a", "op:-", "word:b"}));
}

TEST(LexerTest, PositionsCountLinesCharactersAndBytes) {
  const std::vector<Token> tokens = Lex("SELECT\n  'é', x\r\n\tFROM");
  ASSERT_EQ(tokens.size(), 6u);
  EXPECT_EQ(tokens[0].position, (SourcePosition{1, 1, 0}));
  EXPECT_EQ(tokens[1].position, (SourcePosition{2, 3, 9}));
  EXPECT_EQ(tokens[1].length, 4u);
  EXPECT_EQ(tokens[2].position, (SourcePosition{2, 6, 13}));  // 'é' is 3 characters, 4 bytes
  EXPECT_EQ(tokens[3].position, (SourcePosition{2, 8, 15}));
  EXPECT_EQ(tokens[4].position, (SourcePosition{3, 2, 19}));
  EXPECT_EQ(tokens[5].kind, TokenKind::kEnd);
  EXPECT_EQ(tokens[5].position, (SourcePosition{3, 6, 23}));
}

TEST(LexerTest, UnterminatedTokensNameWhereTheyStart) {
  EXPECT_EQ(ErrorOf("SELECT 'abc\nFROM t"),
            "unterminated string literal at line 1, column 8:\nSELECT 'abc\n       ^");
  EXPECT_EQ(ErrorOf("SELECT 'a\\'"),
            "unterminated string literal at line 1, column 8:\nSELECT 'a\\'\n       ^");
  EXPECT_EQ(ErrorOf("SELECT 1\n  /* outer /* inner */ still open"),
            "unterminated /* comment at line 2, column 3:\n  /* outer /* inner */ still open\n"
            "  ^");
  EXPECT_EQ(ErrorOf("SELECT `a"),
            "unterminated `quoted` identifier at line 1, column 8:\nSELECT `a\n       ^");
  EXPECT_EQ(ErrorOf("SELECT a # b"),
            "unexpected character '#' at line 1, column 10:\nSELECT a # b\n         ^");
}

TEST(LexerTest, CaretKeepsTabsAndCountsCharacters) {
  EXPECT_EQ(ErrorOf("\t'é' #"), "unexpected character '#' at line 1, column 6:\n\t'é' #\n\t    ^");
}

TEST(LexerTest, ALongLineIsShownAsAWindowAroundThePosition) {
  // 100 "é" (two bytes each) before the error and 100 after: the message shows at most 60 bytes
  // on each side, cut between characters, with the caret under the error.
  std::string before;
  std::string after;
  for (int i = 0; i < 100; ++i) {
    before += "\xC3\xA9";
    after += "\xC3\xA9";
  }
  const std::string text = "SELECT '" + before + "' # '" + after + "'";
  const std::string error = ErrorOf(text);
  std::string window_before;
  std::string window_after;
  for (int i = 0; i < 29; ++i) {
    window_before += "\xC3\xA9";
  }
  for (int i = 0; i < 28; ++i) {
    window_after += "\xC3\xA9";
  }
  EXPECT_EQ(error, "unexpected character '#' at line 1, column 111:\n..." + window_before +
                       "' # '" + window_after + "...\n" + std::string(3 + 29 + 2, ' ') + "^");
}

TEST(LexerTest, SplitStatementsAtSemicolonsOutsideLiteralsAndComments) {
  ASSERT_OK_AND_ASSIGN(
      std::vector<StatementText> statements,
      SplitStatements("SELECT ';' AS a; -- ; comment\n;\nSELECT `;`/* ; */ FROM t ;  \n  "));
  ASSERT_EQ(statements.size(), 2u);
  EXPECT_EQ(statements[0].text, "SELECT ';' AS a");
  EXPECT_EQ(statements[0].position, (SourcePosition{1, 1, 0}));
  EXPECT_EQ(statements[1].text, "SELECT `;`/* ; */ FROM t");
  EXPECT_EQ(statements[1].position, (SourcePosition{3, 1, 32}));
  ASSERT_OK_AND_ASSIGN(statements, SplitStatements("  -- only a comment\n ; ;"));
  EXPECT_TRUE(statements.empty());
  ASSERT_RAISES(InvalidArgument, SplitStatements("SELECT 'a; SELECT 2"));
}

}  // namespace
}  // namespace tributary::sql
