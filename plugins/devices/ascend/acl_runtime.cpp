#include "acl_runtime.h"

#include "aoe/sdk/error.h"

namespace aoe::ascend {

AclRuntime::AclRuntime(const std::filesystem::path& library, int32_t device_id)
    : library_(library), device_id_(device_id) {
  const AclApi& acl = api();
  try {
    const aclError init = acl.aclInit(nullptr);
    // Another part of this process may have initialised AscendCL already.
    if (init != ACL_SUCCESS && init != ACL_ERROR_REPEAT_INITIALIZE) check(init, "aclInit");
    initialised_ = init == ACL_SUCCESS;
    check(acl.aclrtGetDeviceCount(&device_count_), "aclrtGetDeviceCount");
    if (device_id < 0 || static_cast<uint32_t>(device_id) >= device_count_)
      throw AclFailure("device_id " + std::to_string(device_id) + " names no device: the driver reports " +
                       std::to_string(device_count_) + " (0 .. " + std::to_string(static_cast<int64_t>(device_count_) - 1) + ")");
    open_device();
    const char* soc = acl.aclrtGetSocName();
    if (!soc || !*soc) throw AclFailure("aclrtGetSocName returned no SoC name");
    soc_name_ = soc;
  } catch (const AclFailure& e) {
    close_device();
    if (initialised_) acl.aclFinalize();
    throw sdk::Error(sdk::StatusCode::not_found, std::string("cannot open the NPU through ") + library.string() + ": " + e.what());
  }
}

AclRuntime::~AclRuntime() {
  close_device();
  if (initialised_) api().aclFinalize();
}

void AclRuntime::open_device() {
  const AclApi& acl = api();
  check(acl.aclrtSetDevice(device_id_), "aclrtSetDevice");
  device_set_ = true;
  check(acl.aclrtGetCurrentContext(&context_), "aclrtGetCurrentContext");
  check(acl.aclrtCreateStream(&stream_), "aclrtCreateStream");
  check(acl.aclrtCreateEvent(&start_), "aclrtCreateEvent");
  check(acl.aclrtCreateEvent(&end_), "aclrtCreateEvent");
}

void AclRuntime::close_device() {
  const AclApi& acl = api();
  if (end_) acl.aclrtDestroyEvent(end_);
  if (start_) acl.aclrtDestroyEvent(start_);
  if (stream_) acl.aclrtDestroyStream(stream_);
  if (device_set_) acl.aclrtResetDevice(device_id_);
  end_ = start_ = stream_ = context_ = nullptr;
  device_set_ = false;
}

void AclRuntime::bind_thread() const {
  if (context_) check(api().aclrtSetCurrentContext(context_), "aclrtSetCurrentContext");
}

std::string AclRuntime::failure(const char* call, aclError code) const {
  const char* message = api().aclGetRecentErrMsg();
  return std::string(call) + " failed with ACL error " + std::to_string(code) +
         (message && *message ? std::string(": ") + message : std::string());
}

void AclRuntime::check(aclError code, const char* call) const {
  if (code != ACL_SUCCESS) throw AclFailure(failure(call, code));
}

bool AclRuntime::reset() {
  if (lost()) return false;
  close_device();
  try {
    open_device();
    return true;
  } catch (const AclFailure& e) {
    close_device();
    lost_reason_ = "device " + std::to_string(device_id_) + " did not come back after a reset: " + e.what();
    return false;
  }
}

}  // namespace aoe::ascend
