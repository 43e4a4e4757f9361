// SPDX-License-Identifier: Apache-2.0
// What a tuning-mode plugin author implements, and the job it is given.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "aoe/abi/tuning_mode.h"
#include "aoe/sdk/device_client.h"
#include "aoe/sdk/graph.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/op_class.h"
#include "aoe/sdk/searcher_client.h"

namespace aoe::sdk {

class Job {
 public:
  Job(const aoe_job& job, Host host)
      : job_(job),
        host_(host),
        graph_(nlohmann::json::parse(job.graph_json).get<Graph>()),
        options_(job.options_json ? nlohmann::json::parse(job.options_json) : nlohmann::json::object()),
        device_(*job.device, host) {}

  const Graph& graph() const { return graph_; }
  const nlohmann::json& options() const { return options_; }
  const DeviceClient& device() const { return device_; }
  const Host& host() const { return host_; }

  // A fresh searcher for one task: the user's choice, else the host's default for op_type.
  std::unique_ptr<SearcherClient> searcher(const std::string& op_type, const std::string& name = {}) const {
    aoe_searcher_ref ref{sizeof(aoe_searcher_ref), nullptr, nullptr};
    host_.check(job_.searchers->create(job_.searchers->ctx, name.empty() ? nullptr : name.c_str(),
                                       op_type.c_str(), &ref),
                "searcher for " + op_type);
    return std::make_unique<SearcherClient>(ref, host_);
  }

  // The searcher the host makes for op_type: options["searchers"] maps each
  // op class (cube, vector) to the name the user chose or the host's default.
  // Empty from a host that does not say.
  std::string searcher_name(const std::string& op_type) const {
    const auto it = options_.find("searchers");
    if (it == options_.end() || !it->is_object()) return {};
    return it->value(op_class(op_type), std::string());
  }

  // Hands the report so far to the host, which rewrites the result file.
  void publish(const nlohmann::json& report) const {
    if (job_.publish_report) job_.publish_report(job_.report_ctx, report.dump().c_str());
  }

 private:
  const aoe_job& job_;
  Host host_;
  Graph graph_;
  nlohmann::json options_;
  DeviceClient device_;
};

class TuningMode {
 public:
  virtual ~TuningMode() = default;
  // The finished report; the host writes it as the result file.
  virtual nlohmann::json run(const Job& job) = 0;
};

}  // namespace aoe::sdk
