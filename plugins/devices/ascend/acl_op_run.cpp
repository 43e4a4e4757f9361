#include "acl_op_run.h"

namespace aoe::ascend {
namespace {

// Every value of a call: its inputs, then its output.
std::vector<size_t> call_values(const AclCall& call) {
  std::vector<size_t> values = call.inputs;
  values.push_back(call.output);
  return values;
}

}  // namespace

AclCallArgs::AclCallArgs(const AclRuntime& runtime, const OpPlan& plan, const sdk::Config& config)
    : runtime_(runtime), plan_(plan), impl_mode_(plan.impl_mode(config)) {
  const AclApi& acl = runtime.api();
  const auto formats = plan.value_formats(config);
  try {
    for (size_t v = 0; v < plan.shapes.size(); ++v) {
      const auto& shape = plan.shapes[v];
      // The origin format: what the model's layout is to CANN.
      const StorageFormat origin = shape.size() == 4 && formats[v] != StorageFormat::nd ? StorageFormat::nchw : StorageFormat::nd;
      aclTensorDesc* desc = acl.aclCreateTensorDesc(ACL_FLOAT, static_cast<int>(shape.size()), shape.data(), acl_format(origin));
      if (!desc) throw AclFailure(runtime.failure("aclCreateTensorDesc", -1));
      descs_.push_back(desc);
      if (formats[v] != origin) {
        const auto stored = storage_shape(formats[v], shape);
        runtime.check(acl.aclSetTensorStorageFormat(desc, acl_format(formats[v])), "aclSetTensorStorageFormat");
        runtime.check(acl.aclSetTensorStorageShape(desc, static_cast<int>(stored.size()), stored.data()),
                      "aclSetTensorStorageShape");
      }
    }
    for (const auto& call : plan.calls) {
      aclopAttr* attr = acl.aclopCreateAttr();
      if (!attr) throw AclFailure(runtime.failure("aclopCreateAttr", -1));
      attrs_.push_back(attr);
      for (const auto& a : call.attrs) {
        switch (a.kind) {
          case AclAttr::Kind::boolean:
            runtime.check(acl.aclopSetAttrBool(attr, a.name.c_str(), a.value ? 1 : 0), "aclopSetAttrBool");
            break;
          case AclAttr::Kind::integer: runtime.check(acl.aclopSetAttrInt(attr, a.name.c_str(), a.value), "aclopSetAttrInt"); break;
          case AclAttr::Kind::text:
            runtime.check(acl.aclopSetAttrString(attr, a.name.c_str(), a.text.c_str()), "aclopSetAttrString");
            break;
          case AclAttr::Kind::ints:
            runtime.check(acl.aclopSetAttrListInt(attr, a.name.c_str(), static_cast<int>(a.values.size()), a.values.data()),
                          "aclopSetAttrListInt");
            break;
        }
      }
    }
  } catch (...) {
    release();
    throw;
  }
}

AclCallArgs::~AclCallArgs() { release(); }

void AclCallArgs::release() {
  const AclApi& acl = runtime_.api();
  for (auto* attr : attrs_) acl.aclopDestroyAttr(attr);
  for (auto* desc : descs_) acl.aclDestroyTensorDesc(desc);
  attrs_.clear();
  descs_.clear();
}

void AclCallArgs::compile() const {
  const AclApi& acl = runtime_.api();
  runtime_.check(acl.aclSetCompileopt(ACL_OP_SELECT_IMPL_MODE, impl_mode_.c_str()), "aclSetCompileopt");
  for (size_t c = 0; c < plan_.calls.size(); ++c) {
    const AclCall& call = plan_.calls[c];
    std::vector<const aclTensorDesc*> in;
    for (size_t v : call.inputs) in.push_back(descs_[v]);
    const aclTensorDesc* out[] = {descs_[call.output]};
    runtime_.check(acl.aclopCompile(call.op_type.c_str(), static_cast<int>(in.size()), in.data(), 1, out, attrs_[c],
                                    ACL_ENGINE_SYS, ACL_COMPILE_SYS, nullptr),
                   "aclopCompile");
  }
}

AclOpRun::AclOpRun(const AclRuntime& runtime, const OpPlan& plan, const sdk::Config& config,
                   const std::vector<std::vector<float>>& inputs)
    : runtime_(runtime), plan_(plan), formats_(plan.value_formats(config)), args_(runtime, plan, config) {
  const AclApi& acl = runtime.api();
  try {
    for (size_t v = 0; v < plan.shapes.size(); ++v) {
      const size_t bytes = static_cast<size_t>(element_count(storage_shape(formats_[v], plan.shapes[v]))) * sizeof(float);
      void* memory = nullptr;
      runtime.check(acl.aclrtMalloc(&memory, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
      memory_.push_back(memory);
      bytes_.push_back(bytes);
      aclDataBuffer* buffer = acl.aclCreateDataBuffer(memory, bytes);
      if (!buffer) throw AclFailure(runtime.failure("aclCreateDataBuffer", -1));
      buffers_.push_back(buffer);
      if (v < inputs.size()) {
        const auto stored = to_storage(formats_[v], plan.shapes[v], inputs[v].data());
        runtime.check(acl.aclrtMemcpy(memory, bytes, stored.data(), bytes, ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy");
      }
    }
  } catch (...) {
    release();
    throw;
  }
}

AclOpRun::~AclOpRun() { release(); }

void AclOpRun::release() {
  const AclApi& acl = runtime_.api();
  for (auto* buffer : buffers_) acl.aclDestroyDataBuffer(buffer);
  for (void* memory : memory_) acl.aclrtFree(memory);
  buffers_.clear();
  memory_.clear();
}

void AclOpRun::enqueue() const {
  const AclApi& acl = runtime_.api();
  for (size_t c = 0; c < plan_.calls.size(); ++c) {
    const AclCall& call = plan_.calls[c];
    std::vector<const aclTensorDesc*> in_descs;
    std::vector<const aclDataBuffer*> in_buffers;
    for (size_t v : call.inputs) {
      in_descs.push_back(args_.desc(v));
      in_buffers.push_back(buffers_[v]);
    }
    const aclTensorDesc* out_desc[] = {args_.desc(call.output)};
    aclDataBuffer* out_buffer[] = {buffers_[call.output]};
    runtime_.check(acl.aclopCompileAndExecute(call.op_type.c_str(), static_cast<int>(in_descs.size()), in_descs.data(),
                                              in_buffers.data(), 1, out_desc, out_buffer, args_.attr(c), ACL_ENGINE_SYS,
                                              ACL_COMPILE_SYS, nullptr, runtime_.stream()),
                   "aclopCompileAndExecute");
  }
}

std::vector<float> AclOpRun::output() const {
  const size_t v = plan_.output();
  std::vector<float> stored(bytes_[v] / sizeof(float));
  runtime_.check(runtime_.api().aclrtMemcpy(stored.data(), bytes_[v], memory_[v], bytes_[v], ACL_MEMCPY_DEVICE_TO_HOST),
                 "aclrtMemcpy");
  std::vector<float> out(static_cast<size_t>(element_count(plan_.shapes[v])));
  from_storage(formats_[v], plan_.shapes[v], stored.data(), out.data());
  return out;
}

}  // namespace aoe::ascend
