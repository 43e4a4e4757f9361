#include "searcher_factory.h"

#include <algorithm>
#include <sstream>

#include "aoe/sdk/boundary.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/op_class.h"
#include "plugin_loader.h"

namespace aoe::host {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

// The extra-trees surrogate for every op. On bench/searcher_scores it and rl
// lead with the same mean (0.64 and 0.63 on seeds 1..25, 0.61 and 0.61 on
// 101..125); the surrogate leads on the vector ops and the recorded A100
// convolution, rl on the MatMuls and the depthwise conv, two or three spaces
// each: too few to split the choice by op type.
std::string default_searcher_for(const std::string&) { return "surrogate"; }

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

[[noreturn]] void unreadable(const std::string& text, const std::string& why) {
  throw Error(StatusCode::invalid_argument,
              "--searcher '" + text + "': " + why +
                  "; pass one searcher for every task, cube=NAME,vector=NAME, or AOE's RL,GA");
}

void assign(std::string& slot, const std::string& name, const std::string& cls, const std::string& text) {
  if (name.empty()) unreadable(text, "no searcher named for " + cls + " ops");
  if (!slot.empty()) unreadable(text, cls + " ops are given two searchers");
  slot = name;
}

}  // namespace

SearcherChoice parse_searcher_choice(const std::string& text) {
  SearcherChoice out;
  if (text.find(',') == std::string::npos && text.find('=') == std::string::npos) return {text, text};
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) {
      const std::string cls = lower(item.substr(0, eq));
      if (cls != "cube" && cls != "vector") unreadable(text, "'" + cls + "' is not an op class (cube or vector)");
      assign(cls == "cube" ? out.cube : out.vector, item.substr(eq + 1), cls, text);
    } else if (lower(item) == "ga") {
      assign(out.cube, item, "cube", text);
    } else if (lower(item) == "rl") {
      assign(out.vector, item, "vector", text);
    } else {
      unreadable(text, "'" + item + "' in a list says no op class: write cube=" + item + " or vector=" + item);
    }
  }
  return out;
}

SearcherFactory::SearcherFactory(const PluginRegistry& registry, aoe::sdk::Host host, const std::string& user_choice)
    : registry_(registry), host_(host), choice_(parse_searcher_choice(user_choice)) {
  // The user's names must exist before any tuning; a missing default fails
  // only where a task asks for it.
  for (auto* name : {&choice_.cube, &choice_.vector})
    *name = name->empty() ? default_searcher_for("") : registry_.find(AOE_KIND_SEARCHER, *name).name;
  table_.struct_size = sizeof(aoe_searcher_factory);
  table_.ctx = this;
  table_.create = [](void* ctx, const char* name, const char* op_type, aoe_searcher_ref* out) {
    auto& self = *static_cast<SearcherFactory*>(ctx);
    return aoe::sdk::guarded(self.host_, [&] { *out = self.create(name, op_type); });
  };
}

aoe_searcher_ref SearcherFactory::create(const char* name, const char* op_type) const {
  const bool cube = std::string(aoe::sdk::op_class(op_type ? op_type : "")) == "cube";
  const std::string chosen = name && *name ? name : cube ? choice_.cube : choice_.vector;
  const Component& c = registry_.find(AOE_KIND_SEARCHER, chosen);
  return {sizeof(aoe_searcher_ref), registry_.create(c, "{}"), static_cast<const aoe_searcher_vtable*>(c.vtable)};
}

}  // namespace aoe::host
