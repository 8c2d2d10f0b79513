# Warning flags shared by every tributary target (STYLE.md, "Build").
function(tributary_warnings target)
  target_compile_options(${target} PRIVATE
    -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual)
  if(TRIBUTARY_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# tributary_layer(NAME SOURCES... DEPS ...): one static library per layer of DESIGN.md.
# Includes are rooted at src/ ("columnar/column.h") and include/ ("tributary/status.h").
function(tributary_layer name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(tributary_${name} STATIC ${ARG_SOURCES})
  target_include_directories(tributary_${name} PUBLIC
    ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(tributary_${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  tributary_warnings(tributary_${name})
  if(TRIBUTARY_UNITY_BUILD)
    # Batch size 0: the whole library in one unit, so a clash does not depend on file order.
    set_target_properties(tributary_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
      # g++ takes the files a unity unit includes for headers and warns when a class declared
      # in a header (a pimpl's Impl) holds a type of the file's anonymous namespace. Its reason,
      # a second definition in another unit, cannot arise: each file is compiled once.
      target_compile_options(tributary_${name} PRIVATE -Wno-subobject-linkage)
    endif()
  endif()
endfunction()
