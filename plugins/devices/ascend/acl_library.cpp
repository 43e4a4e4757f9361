#include "acl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <sstream>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::ascend {
namespace {

constexpr const char* kLibraryName = "libascendcl.so";

std::vector<std::filesystem::path> search_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* home = std::getenv("ASCEND_HOME_PATH"); home && *home) dirs.emplace_back(std::filesystem::path(home) / "lib64");
  if (const char* paths = std::getenv("LD_LIBRARY_PATH"); paths) {
    std::stringstream list(paths);
    for (std::string dir; std::getline(list, dir, ':');)
      if (!dir.empty()) dirs.emplace_back(dir);
  }
  dirs.emplace_back("/usr/local/Ascend/ascend-toolkit/latest/lib64");
  return dirs;
}

}  // namespace

std::filesystem::path find_acl_library(const std::string& explicit_path) {
  if (!explicit_path.empty()) return explicit_path;
  std::error_code ec;
  for (const auto& dir : search_dirs())
    if (std::filesystem::is_regular_file(dir / kLibraryName, ec)) return dir / kLibraryName;
  return {};
}

AclLibrary::AclLibrary(const std::filesystem::path& file) : path_(file) {
  std::error_code ec;
  if (!std::filesystem::exists(file, ec))
    throw sdk::Error(sdk::StatusCode::not_found, "acl_library " + file.string() + " does not exist");
  handle_ = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle_) {
    const char* why = ::dlerror();
    throw sdk::Error(sdk::StatusCode::not_found,
                     "cannot load " + file.string() + ": " + (why ? why : "dlopen failed"));
  }
  std::vector<std::string> missing;
#define AOE_ACL_RESOLVE(name, ret, params)                                  \
  api_.name = reinterpret_cast<ret(*) params>(::dlsym(handle_, #name));     \
  if (!api_.name) missing.emplace_back(#name);
  AOE_ACL_ENTRY_POINTS(AOE_ACL_RESOLVE)
#undef AOE_ACL_RESOLVE
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    ::dlclose(handle_);
    handle_ = nullptr;
    throw sdk::Error(sdk::StatusCode::not_found,
                     file.string() + " lacks AscendCL entry points the device calls: " + names +
                         " (CANN too old, or not libascendcl.so?)");
  }
}

AclLibrary::~AclLibrary() {
  if (handle_) ::dlclose(handle_);
}

}  // namespace aoe::ascend
