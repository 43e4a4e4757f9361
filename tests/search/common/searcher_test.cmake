# aoe_searcher_test(<plugin> WITH <plugins>...): the test <plugin>_searcher_test.cpp
# linked with the plugin's code, so its class is called directly, and with
# that of the WITH plugins: the GA and random search, for the rules every
# searcher follows and to compare with. Its C table is the built plugin's.
function(aoe_searcher_test plugin)
  cmake_parse_arguments(ARG "" "" "WITH" ${ARGN})
  list(TRANSFORM ARG_WITH PREPEND aoe_ OUTPUT_VARIABLE with_code)
  add_executable(${plugin}_searcher_test ${plugin}_searcher_test.cpp)
  target_include_directories(${plugin}_searcher_test PRIVATE ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  target_link_libraries(${plugin}_searcher_test PRIVATE aoe_${plugin} ${with_code} GTest::gtest_main ${CMAKE_DL_LIBS})
  target_compile_definitions(${plugin}_searcher_test PRIVATE AOE_PLUGIN_FILE="$<TARGET_FILE:${plugin}>")
  add_dependencies(${plugin}_searcher_test ${plugin})
  gtest_discover_tests(${plugin}_searcher_test DISCOVERY_MODE PRE_TEST)
endfunction()
