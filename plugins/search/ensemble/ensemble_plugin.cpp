// The ensemble plugin's component: its members are compiled in without
// their own registrations, so this library offers "ensemble" alone.
#include "aoe/sdk/plugin.h"
#include "ensemble_searcher.h"

AOE_REGISTER_SEARCHER(aoe::search::EnsembleSearcher, "ensemble",
                      "surrogate, sa, ga and random sharing the budget by an AUC bandit");
