# aoe_add_plugin(<target> VERSION <x.y.z> [SUMMARY <text>] SOURCES <files...>)
#
# A plugin library for aoe-host: a MODULE linked to aoe::sdk with hidden
# symbols, stamped with its name and version, installed to lib/aoe/plugins.
function(aoe_add_plugin target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "VERSION;SUMMARY" "SOURCES")
  if(NOT ARG_VERSION)
    set(ARG_VERSION 0.0.0)
  endif()
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE aoe::sdk)
  target_compile_definitions(${target} PRIVATE
    AOE_PLUGIN_NAME="${target}" AOE_PLUGIN_VERSION="${ARG_VERSION}" AOE_PLUGIN_SUMMARY="${ARG_SUMMARY}")
  set_target_properties(${target} PROPERTIES
    PREFIX "libaoe_"
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(NOT DEFINED CMAKE_INSTALL_LIBDIR)
    include(GNUInstallDirs)
  endif()
  if(DEFINED AOE_PLUGIN_OUTPUT_DIR)  # in the aoe source tree
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${AOE_PLUGIN_OUTPUT_DIR})
  endif()
  install(TARGETS ${target} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}/aoe/plugins COMPONENT runtime)
endfunction()
