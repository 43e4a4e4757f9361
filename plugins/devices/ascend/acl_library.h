// Finding libascendcl.so and opening it: the device's only link to CANN.
#pragma once

#include <filesystem>
#include <string>

#include "acl_api.h"

namespace aoe::ascend {

// What a user reads when there is no libascendcl.so to load.
inline constexpr const char* kAclMissing = "unavailable: libascendcl.so not found (set ASCEND_HOME_PATH)";

// The libascendcl.so to load: `explicit_path` (the acl_library option) when
// given, else the first of $ASCEND_HOME_PATH/lib64, the directories of
// LD_LIBRARY_PATH and CANN's default /usr/local/Ascend/ascend-toolkit/latest/lib64
// that holds one. Empty when none does.
std::filesystem::path find_acl_library(const std::string& explicit_path);

// An opened libascendcl.so with every entry point of AOE_ACL_ENTRY_POINTS
// resolved; closed when destroyed.
class AclLibrary {
 public:
  // Throws sdk::Error(not_found) naming the file and what is missing.
  explicit AclLibrary(const std::filesystem::path& file);
  ~AclLibrary();
  AclLibrary(const AclLibrary&) = delete;
  AclLibrary& operator=(const AclLibrary&) = delete;

  const AclApi& api() const { return api_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  void* handle_ = nullptr;
  AclApi api_;
};

}  // namespace aoe::ascend
