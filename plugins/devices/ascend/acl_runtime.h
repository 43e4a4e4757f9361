// One NPU through AscendCL: initialised once per device object, its stream
// and the two events that time a run, and the reset after a failure.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "acl_library.h"

namespace aoe::ascend {

// A call into AscendCL that failed; what() names the call and ACL's message.
class AclFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class AclRuntime {
 public:
  // aclInit, then device `device_id` with a stream and two events. Throws
  // sdk::Error naming the call that failed (an absent device among them).
  AclRuntime(const std::filesystem::path& library, int32_t device_id);
  ~AclRuntime();  // events, stream, device, aclFinalize, then the library
  AclRuntime(const AclRuntime&) = delete;
  AclRuntime& operator=(const AclRuntime&) = delete;

  const AclApi& api() const { return library_.api(); }
  const std::filesystem::path& library_path() const { return library_.path(); }
  int32_t device_id() const { return device_id_; }
  uint32_t device_count() const { return device_count_; }
  const std::string& soc_name() const { return soc_name_; }
  aclrtStream stream() const { return stream_; }
  aclrtEvent start_event() const { return start_; }
  aclrtEvent end_event() const { return end_; }

  // Makes the device's context current on the calling thread.
  void bind_thread() const;
  // Throws AclFailure for a code other than ACL_SUCCESS.
  void check(aclError code, const char* call) const;
  // The call, its code and ACL's most recent message.
  std::string failure(const char* call, aclError code) const;

  // After a failed run: drops the stream and events, resets the device and
  // sets it up again. False, with the reason kept in lost_reason(), when the
  // device does not come back; every later run then fails with that reason.
  bool reset();
  bool lost() const { return !lost_reason_.empty(); }
  const std::string& lost_reason() const { return lost_reason_; }

 private:
  void open_device();   // set device, context, stream, events
  void close_device();  // their destroy calls, errors ignored

  AclLibrary library_;
  int32_t device_id_;
  uint32_t device_count_ = 0;
  std::string soc_name_;
  bool initialised_ = false;
  bool device_set_ = false;
  aclrtContext context_ = nullptr;
  aclrtStream stream_ = nullptr;
  aclrtEvent start_ = nullptr, end_ = nullptr;
  std::string lost_reason_;
};

}  // namespace aoe::ascend
