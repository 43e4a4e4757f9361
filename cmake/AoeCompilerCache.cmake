# ccache, where it is installed, in front of the compilers: a rebuild, or a
# build of a fresh clone in another folder, compiles only what changed.
# Paths under the source tree are hashed relative to it (base_dir) and the
# working directory is left out of the hash (hash_dir off: debug info then
# names the folder an object was first compiled in), so clones share entries;
# unity batches include their sources by absolute path, so theirs are shared
# by clones in the same folder only.
option(AOE_USE_CCACHE "Compile through ccache where it is installed" ON)
if(AOE_USE_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  find_program(AOE_CCACHE ccache)
  if(AOE_CCACHE)
    set(_aoe_launcher env CCACHE_BASEDIR=${PROJECT_SOURCE_DIR} CCACHE_NOHASHDIR=1 ${AOE_CCACHE})
    set(CMAKE_C_COMPILER_LAUNCHER ${_aoe_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${_aoe_launcher})
    message(STATUS "Compiling through ${AOE_CCACHE}, base_dir ${PROJECT_SOURCE_DIR}")
  else()
    message(STATUS "ccache not found (apt-get install ccache): every build compiles everything")
  endif()
endif()
