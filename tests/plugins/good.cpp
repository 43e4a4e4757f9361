// A small valid plugin: one searcher that walks the space in odometer order.
#include <aoe/sdk/plugin.h>

namespace {

using aoe::sdk::Config;

class Sweep : public aoe::sdk::Searcher {
 public:
  void start(const aoe::sdk::TuningSpace& space, const aoe::sdk::SearchOptions& options) override {
    space_ = space;
    left_ = options.budget;
    index_.assign(space.knobs.size(), 0);
    exhausted_ = false;
  }

  std::vector<Config> propose(size_t max_count) override {
    std::vector<Config> out;
    for (; out.size() < max_count && left_ > 0 && !exhausted_; --left_) {
      Config c;
      for (size_t k = 0; k < index_.size(); ++k) c.push_back(space_.knobs[k].values[index_[k]]);
      out.push_back(std::move(c));
      advance();
    }
    return out;
  }

  void observe(const Config&, const aoe::sdk::Measurement&) override {}

 private:
  // The last knob turns fastest; wrapping the first one means every config was seen.
  void advance() {
    for (size_t k = index_.size(); k-- > 0;) {
      if (++index_[k] < space_.knobs[k].values.size()) return;
      index_[k] = 0;
    }
    exhausted_ = true;
  }

  aoe::sdk::TuningSpace space_;
  uint64_t left_ = 0;
  std::vector<size_t> index_;
  bool exhausted_ = true;
};

}  // namespace

AOE_REGISTER_SEARCHER(Sweep, "sweep", "walks the space in order");
