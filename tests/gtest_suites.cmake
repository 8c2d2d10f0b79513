# Run after a test program is built (cmake -P; see tributary_test in tests/CMakeLists.txt):
# lists the program's GoogleTest tests and writes the ctest file that runs them. Each test
# suite is one ctest test, one process running the suite's tests: a sanitizer-built process
# costs about 0.1 s to start and to check for leaks at exit, which was most of the time of the
# thousand tests that take less than half a second. A test named by SLOW or RELEASE is a ctest
# test of its own (the suite's process leaves it out), so it can be labelled, started first or
# left out by label.
#
# Inputs (-D): TEST_EXECUTABLE, CTEST_FILE, WORKING_DIRECTORY, LABELS (comma-separated), SLOW
# and RELEASE (regular expressions over Suite.Test names; empty for none).
cmake_minimum_required(VERSION 3.20)

execute_process(
  COMMAND "${TEST_EXECUTABLE}" --gtest_list_tests
  WORKING_DIRECTORY "${WORKING_DIRECTORY}"
  OUTPUT_VARIABLE listing
  ERROR_VARIABLE listing_errors
  RESULT_VARIABLE listing_result
  TIMEOUT 120)
if(NOT listing_result EQUAL 0)
  message(FATAL_ERROR "${TEST_EXECUTABLE} --gtest_list_tests failed (${listing_result}):\n"
                      "${listing}${listing_errors}")
endif()

string(REPLACE "," ";" labels "${LABELS}")
# `Suite.` lines, each followed by its tests' lines indented by two spaces; either may end with
# a comment naming the type or value parameter. Disabled tests are not run (GoogleTest skips
# them in a suite's run too).
string(REPLACE ";" "\\;" listing "${listing}")
string(REPLACE "\n" ";" lines "${listing}")
set(suites "")
set(suite "")
foreach(line IN LISTS lines)
  if(line MATCHES "^([^ #]+)\\.")
    set(suite "${CMAKE_MATCH_1}")
    list(APPEND suites "${suite}")
    set("tests_of_${suite}" "")
  elseif(line MATCHES "^  ([^ #]+)" AND NOT suite STREQUAL "")
    set(test "${CMAKE_MATCH_1}")
    if(NOT test MATCHES "^DISABLED_" AND NOT suite MATCHES "(^|/)DISABLED_")
      list(APPEND "tests_of_${suite}" "${test}")
    endif()
  endif()
endforeach()

function(bracket out text)
  set(${out} "[==[${text}]==]" PARENT_SCOPE)
endfunction()

set(content "")
bracket(program "${TEST_EXECUTABLE}")
bracket(directory "${WORKING_DIRECTORY}")
foreach(suite IN LISTS suites)
  set(batched "")
  set(alone "")
  foreach(test IN LISTS "tests_of_${suite}")
    set(name "${suite}.${test}")
    set(test_labels ${labels})
    set(cost "")
    if(NOT SLOW STREQUAL "" AND name MATCHES "^(${SLOW})$")
      list(APPEND test_labels slow)
      set(cost 1000)
    endif()
    if(NOT RELEASE STREQUAL "" AND name MATCHES "^(${RELEASE})$")
      list(APPEND test_labels release)
    endif()
    if(test_labels STREQUAL labels)
      list(APPEND batched "${test}")
      continue()
    endif()
    list(APPEND alone "${name}")
    bracket(quoted "${name}")
    bracket(filter "--gtest_filter=${name}")
    string(APPEND content
      "add_test(${quoted} ${program} ${filter})\n"
      "set_tests_properties(${quoted} PROPERTIES WORKING_DIRECTORY ${directory}\n"
      "  LABELS [==[${test_labels}]==] SKIP_REGULAR_EXPRESSION [==[\\[  SKIPPED \\]]==]")
    if(cost)
      string(APPEND content " COST ${cost}")
    endif()
    string(APPEND content ")\n")
  endforeach()
  if(batched STREQUAL "")
    continue()
  endif()
  # The suite's process runs every test of the suite but those run alone. No skip expression:
  # one skipped test must not hide another's failure. The cost (its number of tests) starts
  # the larger suites first when no earlier run's timings are at hand.
  list(LENGTH batched count)
  set(filter "${suite}.*")
  if(alone)
    list(JOIN alone ":" excluded)
    string(APPEND filter "-${excluded}")
  endif()
  bracket(quoted "${suite}.*")
  bracket(filter "--gtest_filter=${filter}")
  string(APPEND content
    "add_test(${quoted} ${program} ${filter})\n"
    "set_tests_properties(${quoted} PROPERTIES WORKING_DIRECTORY ${directory}\n"
    "  LABELS [==[${labels}]==] COST ${count})\n")
endforeach()

file(WRITE "${CTEST_FILE}.new" "${content}")
file(RENAME "${CTEST_FILE}.new" "${CTEST_FILE}")
