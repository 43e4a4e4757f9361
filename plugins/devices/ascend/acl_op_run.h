// A candidate on the device: its tensors in device memory in the formats
// its config chose, the descriptors and attributes of each ACL call, and
// the calls themselves. Everything it creates it destroys, before any reset.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "acl_op_plan.h"
#include "acl_runtime.h"

namespace aoe::ascend {

// The descriptors and attributes of a plan's calls under one config: all a
// compile needs, no device memory.
class AclCallArgs {
 public:
  AclCallArgs(const AclRuntime& runtime, const OpPlan& plan, const sdk::Config& config);
  ~AclCallArgs();
  AclCallArgs(const AclCallArgs&) = delete;
  AclCallArgs& operator=(const AclCallArgs&) = delete;

  const aclTensorDesc* desc(size_t value) const { return descs_[value]; }
  const aclopAttr* attr(size_t call) const { return attrs_[call]; }
  // Sets the config's implementation mode, then compiles every call; throws AclFailure.
  void compile() const;

 private:
  void release();

  const AclRuntime& runtime_;
  const OpPlan& plan_;
  std::string impl_mode_;
  std::vector<aclTensorDesc*> descs_;  // one per value
  std::vector<aclopAttr*> attrs_;      // one per call
};

class AclOpRun {
 public:
  // Allocates every value on the device and copies the inputs there, laid
  // out in their storage formats. Throws AclFailure.
  AclOpRun(const AclRuntime& runtime, const OpPlan& plan, const sdk::Config& config,
           const std::vector<std::vector<float>>& inputs);
  ~AclOpRun();
  AclOpRun(const AclOpRun&) = delete;
  AclOpRun& operator=(const AclOpRun&) = delete;

  // Queues every call on the stream. Throws AclFailure.
  void enqueue() const;
  // The output, back in the model's layout (after the stream is synchronised).
  std::vector<float> output() const;

 private:
  void release();

  const AclRuntime& runtime_;
  const OpPlan& plan_;
  std::vector<StorageFormat> formats_;
  AclCallArgs args_;
  std::vector<void*> memory_;            // one per value
  std::vector<size_t> bytes_;            // of each value, as stored
  std::vector<aclDataBuffer*> buffers_;  // one per value
};

}  // namespace aoe::ascend
