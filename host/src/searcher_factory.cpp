#include "searcher_factory.h"

#include "aoe/sdk/boundary.h"
#include "plugin_loader.h"

namespace aoe::host {

// The extra-trees surrogate for every op. On bench/searcher_scores it and rl
// lead with the same mean (0.64 and 0.63 on seeds 1..25, 0.61 and 0.61 on
// 101..125); the surrogate leads on the vector ops and the recorded A100
// convolution, rl on the MatMuls and the depthwise conv, two or three spaces
// each: too few to split the choice by op type.
std::string default_searcher_for(const std::string&) { return "surrogate"; }

SearcherFactory::SearcherFactory(const PluginRegistry& registry, aoe::sdk::Host host, std::string user_choice)
    : registry_(registry), host_(host), user_choice_(std::move(user_choice)) {
  table_.struct_size = sizeof(aoe_searcher_factory);
  table_.ctx = this;
  table_.create = [](void* ctx, const char* name, const char* op_type, aoe_searcher_ref* out) {
    auto& self = *static_cast<SearcherFactory*>(ctx);
    return aoe::sdk::guarded(self.host_, [&] { *out = self.create(name, op_type); });
  };
}

void SearcherFactory::check_user_choice() const {
  if (!user_choice_.empty()) registry_.find(AOE_KIND_SEARCHER, user_choice_);
}

aoe_searcher_ref SearcherFactory::create(const char* name, const char* op_type) const {
  const std::string chosen = name && *name           ? name
                             : !user_choice_.empty() ? user_choice_
                                                     : default_searcher_for(op_type ? op_type : "");
  const Component& c = registry_.find(AOE_KIND_SEARCHER, chosen);
  return {sizeof(aoe_searcher_ref), registry_.create(c, "{}"), static_cast<const aoe_searcher_vtable*>(c.vtable)};
}

}  // namespace aoe::host
