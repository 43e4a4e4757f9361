#include "reference_data.h"

#include "cpu_op.h"
#include "host_cpu.h"

namespace aoe::cuda {

cpu::TaskData reference_data(const sdk::OpTask& task, uint64_t seed, double multiply_adds) {
  static const cpu::HostCpu host = cpu::detect_host_cpu();
  const auto reference = cpu::make_op(task, host);
  if (multiply_adds <= kMostReferenceMacs) return cpu::make_task_data(*reference, seed);
  cpu::TaskData data;
  data.inputs = cpu::make_task_inputs(*reference, seed);
  return data;
}

std::string bytes_of(const std::vector<float>& values) {
  return {reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)};
}

ArgumentData buffer(std::string name, std::string bytes, bool output) {
  ArgumentData a;
  a.name = std::move(name);
  a.bytes = std::move(bytes);
  a.output = output;
  return a;
}

}  // namespace aoe::cuda
