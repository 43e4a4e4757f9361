// SPDX-License-Identifier: Apache-2.0
// A searcher behind its C table, as a C++ object that owns it.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

#include "aoe/abi/searcher.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/measurement.h"
#include "aoe/sdk/searcher.h"
#include "aoe/sdk/tuning_space.h"

namespace aoe::sdk {

class SearcherClient {
 public:
  SearcherClient(aoe_searcher_ref searcher, Host host) : s_(searcher), host_(host) {}
  SearcherClient(const SearcherClient&) = delete;
  SearcherClient& operator=(const SearcherClient&) = delete;
  ~SearcherClient() { s_.vtable->destroy(s_.self); }

  void start(const TuningSpace& space, const SearchOptions& options) {
    knob_count_ = space.knobs.size();
    const aoe_searcher_options abi{sizeof(aoe_searcher_options), options.seed, options.budget};
    host_.check(s_.vtable->start(s_.self, nlohmann::json(space).dump().c_str(), &abi), "searcher start");
  }

  std::vector<Config> propose(size_t max_count) {
    std::vector<int64_t> flat(max_count * knob_count_);
    uint32_t count = 0;
    host_.check(s_.vtable->propose(s_.self, static_cast<uint32_t>(max_count), flat.data(), &count),
                "searcher propose");
    std::vector<Config> out;
    for (uint32_t i = 0; i < count && i < max_count; ++i)
      out.emplace_back(flat.begin() + i * knob_count_, flat.begin() + (i + 1) * knob_count_);
    return out;
  }

  void observe(const Config& config, const Measurement& result) {
    const aoe_measurement abi = to_abi(result);
    host_.check(s_.vtable->observe(s_.self, config.data(), &abi), "searcher observe");
  }

 private:
  aoe_searcher_ref s_;
  Host host_;
  size_t knob_count_ = 0;
};

}  // namespace aoe::sdk
