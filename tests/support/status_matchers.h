// GoogleTest assertions for Status and Result (STYLE.md, "Tests").

#pragma once

#include <gtest/gtest.h>

#include "tributary/result.h"
#include "tributary/status.h"

#define ASSERT_OK(expr)                                                       \
  do {                                                                        \
    ::tributary::Status _st = ::tributary::internal::GenericToStatus((expr)); \
    ASSERT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString();          \
  } while (false)

#define EXPECT_OK(expr)                                                       \
  do {                                                                        \
    ::tributary::Status _st = ::tributary::internal::GenericToStatus((expr)); \
    EXPECT_TRUE(_st.ok()) << #expr << " failed: " << _st.ToString();          \
  } while (false)

// `result_name` is a fresh identifier and `lhs` may be a declaration (`auto x`): neither can
// be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define TRIBUTARY_TEST_ASSIGN_IMPL(result_name, lhs, rexpr)                       \
  auto&& result_name = (rexpr);                                                   \
  ASSERT_TRUE(result_name.ok()) << #rexpr << " failed: " << result_name.status(); \
  lhs = std::move(result_name).MoveValueUnsafe();
// NOLINTEND(bugprone-macro-parentheses)

/// Asserts that `rexpr` (a Result) holds a value and assigns it to `lhs`.
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  TRIBUTARY_TEST_ASSIGN_IMPL(TRIBUTARY_CONCAT(_test_result_, __COUNTER__), lhs, rexpr)

/// Asserts that `expr` (a Status or Result) failed with StatusCode::k<code>.
#define ASSERT_RAISES(code, expr)                                             \
  do {                                                                        \
    ::tributary::Status _st = ::tributary::internal::GenericToStatus((expr)); \
    ASSERT_EQ(_st.Code(), ::tributary::StatusCode::k##code)                   \
        << #expr << " returned " << _st.ToString();                           \
  } while (false)
