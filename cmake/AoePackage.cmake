# `cpack -G DEB` in a build tree makes two Debian packages: aoe (aoe-host,
# the plugins and their data) and aoe-dev (the SDK headers and the CMake
# package that out-of-tree plugins build against). Configure with
# -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_INSTALL_LIBDIR=lib/<multiarch> for a
# distribution's layout.
set(CPACK_PACKAGE_NAME aoe)
set(CPACK_PACKAGE_VENDOR "aoe")
set(CPACK_PACKAGE_CONTACT "aoe maintainers <aoe@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Open auto-tuning engine for operators, subgraphs and gradient communication")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_COMPONENTS_ALL runtime dev)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME aoe)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION utils)
# The libraries aoe-host and the plugins link, as dpkg-shlibdeps finds them.
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME aoe-dev)
# The SDK's C++ headers use nlohmann/json; its CMake package finds it.
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "aoe (= ${PROJECT_VERSION}), nlohmann-json3-dev (>= 3.10)")
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "aoe-host, its tuning-mode, searcher and device plugins, and their data")
set(CPACK_COMPONENT_DEV_DESCRIPTION "The aoe SDK: headers and CMake package for building plugins out of tree")
include(CPack)
