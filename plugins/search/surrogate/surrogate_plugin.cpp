// The surrogate plugin's component. Registration lives apart from the
// searcher so that other plugins can compile the class in without offering
// "surrogate" themselves.
#include "aoe/sdk/plugin.h"
#include "surrogate_searcher.h"

AOE_REGISTER_SEARCHER(aoe::search::SurrogateSearcher, "surrogate",
                      "extra-trees cost model with expected improvement, from the default config");
