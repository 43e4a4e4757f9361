// MindSpore 1.x's profiler names each tensor's type by a table of its own
// (framework_parser.py's VmDataType: NUMBER_TYPE_BEGIN = 26, ...), which in
// some releases sits one place after the TypeId enum the framework numbered
// the types by: every label is the name of the type before the real one. A
// float16 tensor is written NUMBER_TYPE_FLOAT, a float32 one
// NUMBER_TYPE_FLOAT16, an int32 index NUMBER_TYPE_INT16, a uint8 mask
// NUMBER_TYPE_UINT, a bool NUMBER_TYPE_BEGIN. Such a file gives itself away:
// it names types no tensor has (the enum's BEGIN and its generic INT, UINT
// and FLOAT) or none a training step holds (INT16: its indices and counters
// are int32), and compact profiles converted from it keep those names
// (begin, int, uint, int16). Its labels are then read one type on.
#pragma once

#include <optional>
#include <string>

#include "kernel_profile.h"

namespace aoe::sim {

// The first such name `profile` holds, where it holds one: the evidence
// that its labels come from the shifted table. `float_is_generic` for a
// MindSpore file, where a float32 tensor would be NUMBER_TYPE_FLOAT32 (in a
// compact profile `float` is CANN's float32).
std::optional<std::string> shifted_mindspore_label(const KernelProfile& profile, bool float_is_generic);

// Reads every tensor's label as the type after it in MindSpore's TypeId
// order: float -> float16, float16 -> float32, int16 -> int32, uint -> uint8.
void read_labels_one_type_on(KernelProfile& profile);

}  // namespace aoe::sim
