#include "kernel_sequence.h"

#include "vector_model.h"

namespace aoe::sim {

sdk::OpTask part_task(const sdk::OpTask& op, const char* op_type, std::vector<sdk::TensorDesc> inputs,
                      sdk::TensorDesc output, nlohmann::json attrs) {
  sdk::OpTask t;
  t.name = op.name;
  t.op_type = op_type;
  t.inputs = std::move(inputs);
  t.outputs = {std::move(output)};
  t.attrs = std::move(attrs);
  return t;
}

KernelSequence::KernelSequence(const Soc& soc, std::vector<Part> parts) : soc_(soc), parts_(std::move(parts)) {
  space_.version = "1";
  for (const auto& part : parts_) {
    first_knob_.push_back(space_.knobs.size());
    const auto& s = part.model->space();
    space_.version += "." + s.version;
    for (auto knob : s.knobs) {
      knob.name = part.prefix + knob.name;
      space_.knobs.push_back(std::move(knob));
    }
    space_.default_config.insert(space_.default_config.end(), s.default_config.begin(), s.default_config.end());
  }
}

sdk::Config KernelSequence::slice(const sdk::Config& config, size_t part) const {
  const size_t begin = first_knob_[part];
  const size_t end = begin + parts_[part].model->space().knobs.size();
  return sdk::Config(config.begin() + static_cast<std::ptrdiff_t>(begin), config.begin() + static_cast<std::ptrdiff_t>(end));
}

sdk::Measurement KernelSequence::check(const sdk::Config& config) const {
  if (config.size() != space_.knobs.size()) return refuse("a config of " + std::to_string(config.size()) + " values for " +
                                                          std::to_string(space_.knobs.size()) + " knobs");
  for (size_t i = 0; i < parts_.size(); ++i) {
    auto verdict = parts_[i].model->check(slice(config, i));
    if (!verdict.ok()) {
      if (!parts_[i].prefix.empty()) verdict.message = parts_[i].prefix + verdict.message;
      return verdict;
    }
  }
  return {};
}

// Each part's time less the launches after the first, its blocks' included:
// the kernel's blocks start once and run every part.
double KernelSequence::time_us(const sdk::Config& config) const {
  double total = 0;
  for (size_t i = 0; i < parts_.size(); ++i) {
    const auto part = slice(config, i);
    total += parts_[i].model->time_us(part);
    if (i == 0) continue;
    int64_t blocks = 0;
    const auto& knobs = parts_[i].model->space().knobs;
    for (size_t k = 0; k < knobs.size(); ++k)
      if (knobs[k].name == "block_dim") blocks = part[k];
    total -= soc_.launch_us_for(blocks);
  }
  return total;
}

double KernelSequence::roofline_us() const {
  double total = 0;
  for (const auto& part : parts_) total += part.model->roofline_us();
  return total;
}

}  // namespace aoe::sim
