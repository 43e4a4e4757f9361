# aoe_searcher_test(<plugin> WITH <plugins>...): the test <plugin>_searcher_test.cpp
# with the plugin's sources compiled in, so its class is called directly,
# and those of the WITH plugins (their registrations left out): the GA and
# random search, for the rules every searcher follows and to compare with.
function(aoe_searcher_test plugin)
  cmake_parse_arguments(ARG "" "" "WITH" ${ARGN})
  set(sources)
  set(includes ${CMAKE_CURRENT_FUNCTION_LIST_DIR})
  foreach(each ${plugin} ${ARG_WITH})
    get_target_property(dir ${each} SOURCE_DIR)
    get_target_property(each_sources ${each} SOURCES)
    if(NOT each STREQUAL plugin)
      list(FILTER each_sources EXCLUDE REGEX "_plugin\\.cpp$")
    endif()
    list(TRANSFORM each_sources PREPEND ${dir}/)
    list(APPEND sources ${each_sources})
    list(APPEND includes ${dir})
  endforeach()
  add_executable(${plugin}_searcher_test ${plugin}_searcher_test.cpp ${sources})
  target_include_directories(${plugin}_searcher_test PRIVATE ${includes})
  target_link_libraries(${plugin}_searcher_test PRIVATE aoe::sdk GTest::gtest_main)
  gtest_discover_tests(${plugin}_searcher_test DISCOVERY_MODE PRE_TEST)
endfunction()
