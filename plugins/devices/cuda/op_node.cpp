#include "op_node.h"

namespace aoe::cuda {

const sdk::TensorDesc& OpNode::input(size_t i) const {
  if (!has_input(i)) invalid("input " + std::to_string(i) + " is not given");
  const auto& t = graph_.tensor(node_.inputs[i]);
  if (!t.fully_known()) unsupported("input '" + t.name + "' has a shape not known before the run: " + cuda::to_string(t.shape));
  return t;
}

const sdk::TensorDesc& OpNode::output(size_t i) const {
  if (i >= node_.outputs.size() || node_.outputs[i].empty()) invalid("output " + std::to_string(i) + " is not given");
  const auto& t = graph_.tensor(node_.outputs[i]);
  if (!t.fully_known()) unsupported("output '" + t.name + "' has a shape not known before the run: " + cuda::to_string(t.shape));
  return t;
}

int64_t OpNode::int_attr(const char* key, int64_t fallback) const {
  if (!has_attr(key)) return fallback;
  const auto& v = node_.attrs.at(key);
  if (!v.is_number()) invalid(std::string("attribute '") + key + "' must be a number, not " + v.dump());
  return v.get<int64_t>();
}

double OpNode::float_attr(const char* key, double fallback) const {
  if (!has_attr(key)) return fallback;
  const auto& v = node_.attrs.at(key);
  if (!v.is_number()) invalid(std::string("attribute '") + key + "' must be a number, not " + v.dump());
  return v.get<double>();
}

std::vector<int64_t> OpNode::ints_attr(const char* key, std::vector<int64_t> fallback) const {
  if (!has_attr(key)) return fallback;
  const auto& v = node_.attrs.at(key);
  if (v.is_number_integer()) return {v.get<int64_t>()};
  std::vector<int64_t> out;
  if (v.is_array())
    for (const auto& e : v) {
      if (!e.is_number_integer()) invalid(std::string("attribute '") + key + "' must list integers, not " + v.dump());
      out.push_back(e.get<int64_t>());
    }
  else
    invalid(std::string("attribute '") + key + "' must list integers, not " + v.dump());
  return out;
}

std::vector<double> OpNode::floats_attr(const char* key, std::vector<double> fallback) const {
  if (!has_attr(key)) return fallback;
  const auto& v = node_.attrs.at(key);
  std::vector<double> out;
  if (v.is_array())
    for (const auto& e : v) {
      if (!e.is_number()) invalid(std::string("attribute '") + key + "' must list numbers, not " + v.dump());
      out.push_back(e.get<double>());
    }
  else
    invalid(std::string("attribute '") + key + "' must list numbers, not " + v.dump());
  return out;
}

std::string OpNode::string_attr(const char* key, const std::string& fallback) const {
  if (!has_attr(key)) return fallback;
  const auto& v = node_.attrs.at(key);
  if (!v.is_string()) invalid(std::string("attribute '") + key + "' must be a string, not " + v.dump());
  return v.get<std::string>();
}

int64_t OpNode::axis_attr(const char* key, int64_t fallback, int64_t rank) const {
  const int64_t axis = int_attr(key, fallback);
  if (axis < -rank || axis >= rank)
    invalid(std::string("attribute '") + key + "' " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return axis < 0 ? axis + rank : axis;
}

void OpNode::unsupported(const std::string& why) const {
  throw sdk::Error(sdk::StatusCode::unsupported, "cuda device: " + node_.op_type + " '" + node_.name + "': " + why);
}

void OpNode::invalid(const std::string& why) const {
  throw sdk::Error(sdk::StatusCode::invalid_argument, "cuda device: " + node_.op_type + " '" + node_.name + "': " + why);
}

int64_t element_count(const Dims& dims) {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

Dims strides_of(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t d = dims.size(); d-- > 1;) s[d - 1] = s[d] * dims[d];
  return s;
}

std::string to_string(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

}  // namespace aoe::cuda
