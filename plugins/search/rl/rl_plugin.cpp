// The rl plugin's component. Registration lives apart from the searcher so
// that its tests link the class without offering "rl" themselves.
#include "aoe/sdk/plugin.h"
#include "rl_searcher.h"

namespace aoe::search {
AOE_REGISTER_SEARCHER(RlSearcher, "rl", "policy-gradient reinforcement learning over knob choices");
}  // namespace aoe::search
