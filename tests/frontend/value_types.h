// Typed values for the models the frontend tests build with the protobuf API.
#pragma once

#include <onnx/onnx_pb.h>

#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

namespace aoe::host::test {

// `value` named `name`, a tensor of `elem_type` whose dims are numbers or, where not, names.
inline void set_dims(onnx::ValueInfoProto* value, const std::string& name, int32_t elem_type,
                     const std::vector<std::string>& dims) {
  value->set_name(name);
  auto* type = value->mutable_type()->mutable_tensor_type();
  type->set_elem_type(elem_type);
  auto* shape = type->mutable_shape();
  for (const auto& d : dims) {
    if (std::isdigit(static_cast<unsigned char>(d[0]))) shape->add_dim()->set_dim_value(std::stoll(d));
    else shape->add_dim()->set_dim_param(d);
  }
}

}  // namespace aoe::host::test
