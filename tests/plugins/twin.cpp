// Built twice, as two libraries: both offer a searcher named "twin".
#include <aoe/sdk/plugin.h>

namespace {

class Twin : public aoe::sdk::Searcher {
 public:
  void start(const aoe::sdk::TuningSpace&, const aoe::sdk::SearchOptions&) override {}
  std::vector<aoe::sdk::Config> propose(size_t) override { return {}; }
  void observe(const aoe::sdk::Config&, const aoe::sdk::Measurement&) override {}
};

}  // namespace

AOE_REGISTER_SEARCHER(Twin, "twin", "a name another library also uses");
