#include "batch_matmul.h"

#include <utility>

#include "aoe/sdk/error.h"
#include "vector_model.h"

namespace aoe::sim {

sdk::OpTask batch_matmul_as_matmul(const sdk::OpTask& task) {
  auto bad = [&](const std::string& why) { malformed(task, why); };
  if (task.inputs.size() < 2) bad("takes a and b, has " + std::to_string(task.inputs.size()) + " inputs");
  sdk::OpTask t = task;
  t.op_type = "MatMul";
  const char* names[] = {"a", "b"};
  const char* flags[] = {"adj_x1", "adj_x2"};
  for (size_t i = 0; i < 2; ++i) {
    auto& s = t.inputs[i].shape;
    if (s.size() < 2 || !t.inputs[i].fully_known())
      bad(std::string(names[i]) + " must be a known matrix or batch of them, is rank " + std::to_string(s.size()));
    const int64_t adj = attr_int(task.attrs, flags[i], 0);
    if (adj != 0 && adj != 1) bad(std::string(flags[i]) + " must be 0 or 1");
    if (adj) std::swap(s[s.size() - 2], s.back());
    if (adj && i == 0) t.inputs[0].format = "ND";  // K along a's stored rows, not across its column blocks
  }
  const auto& a = t.inputs[0].shape;
  const auto& b = t.inputs[1].shape;
  if (a.back() != b[b.size() - 2])
    bad("op(a) has " + std::to_string(a.back()) + " columns, op(b) " + std::to_string(b[b.size() - 2]) + " rows");
  t.attrs.erase("adj_x1");
  t.attrs.erase("adj_x2");
  return t;
}

}  // namespace aoe::sim
