// The exhaustive plugin's component. Registration lives apart from the
// searcher so that its tests link the class without offering "exhaustive".
#include "aoe/sdk/plugin.h"
#include "exhaustive_searcher.h"

namespace aoe::search {
AOE_REGISTER_SEARCHER(ExhaustiveSearcher, "exhaustive", "every config in turn, the device's default first");
}  // namespace aoe::search
