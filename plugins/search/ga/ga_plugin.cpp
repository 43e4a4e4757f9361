// The ga plugin's component. Registration lives apart from the searcher so
// that other plugins can compile the class in without offering "ga" themselves.
#include "aoe/sdk/plugin.h"
#include "ga_searcher.h"

AOE_REGISTER_SEARCHER(aoe::search::GaSearcher, "ga",
                      "genetic algorithm seeded from the default config, with constraint repair");
