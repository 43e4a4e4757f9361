# Where aoe's parts go, from GNUInstallDirs, and the relative paths between
# them that the binaries resolve against their own location at run time, so
# an installed tree works wherever it is moved (lib, lib64 or
# lib/x86_64-linux-gnu alike). The build tree mirrors the install tree.
set(AOE_PLUGIN_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/aoe/plugins)
set(AOE_DATA_INSTALL_DIR ${CMAKE_INSTALL_DATADIR}/aoe)

# aoe-host finds the plugins from bin/; a plugin finds its data from its folder.
file(RELATIVE_PATH AOE_BIN_TO_PLUGINS ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_FULL_LIBDIR}/aoe/plugins)
file(RELATIVE_PATH AOE_PLUGINS_TO_DATA ${CMAKE_INSTALL_FULL_LIBDIR}/aoe/plugins ${CMAKE_INSTALL_FULL_DATADIR}/aoe)

set(CMAKE_RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/${CMAKE_INSTALL_BINDIR})
set(AOE_PLUGIN_OUTPUT_DIR ${PROJECT_BINARY_DIR}/${AOE_PLUGIN_INSTALL_DIR})
set(AOE_DATA_OUTPUT_DIR ${PROJECT_BINARY_DIR}/${AOE_DATA_INSTALL_DIR})
foreach(_dir IN ITEMS CMAKE_INSTALL_BINDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_DATADIR)
  if(IS_ABSOLUTE "${${_dir}}")
    message(WARNING "${_dir} is absolute (${${_dir}}): the installed tree cannot be moved")
  endif()
endforeach()

# aoe_plugin_data(<plugin> <subdir> <files...>): data files a plugin reads,
# copied beside it in the build tree and installed to share/aoe/<subdir>; the
# plugin gets AOE_PLUGIN_DATA_DIR, that folder relative to its own.
function(aoe_plugin_data target subdir)
  set(_copies)
  foreach(_file IN LISTS ARGN)
    get_filename_component(_name ${_file} NAME)
    set(_copy ${AOE_DATA_OUTPUT_DIR}/${subdir}/${_name})
    add_custom_command(OUTPUT ${_copy}
      COMMAND ${CMAKE_COMMAND} -E copy_if_different ${_file} ${_copy}
      DEPENDS ${_file})
    list(APPEND _copies ${_copy})
  endforeach()
  add_custom_target(${target}_data DEPENDS ${_copies})
  add_dependencies(${target} ${target}_data)
  install(FILES ${ARGN} DESTINATION ${AOE_DATA_INSTALL_DIR}/${subdir} COMPONENT runtime)
  target_compile_definitions(${target} PRIVATE AOE_PLUGIN_DATA_DIR="${AOE_PLUGINS_TO_DATA}/${subdir}")
endfunction()
