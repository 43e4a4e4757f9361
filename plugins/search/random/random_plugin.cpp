// The random plugin's component. Registration lives apart from the searcher
// so that other plugins can compile the class in without offering "random" themselves.
#include "aoe/sdk/plugin.h"
#include "random_searcher.h"

AOE_REGISTER_SEARCHER(aoe::search::RandomSearcher, "random", "uniform random sampling without repeats");
