// The sa plugin's component. Registration lives apart from the searcher so
// that other plugins can compile the class in without offering "sa" themselves.
#include "aoe/sdk/plugin.h"
#include "sa_searcher.h"

AOE_REGISTER_SEARCHER(aoe::search::SaSearcher, "sa",
                      "simulated annealing from the default config, restarting from the best");
