#include "journal.h"

#include <nlohmann/json.hpp>

#include "aoe/sdk/error.h"

namespace aoe::sgat {

using aoe::sdk::Measurement;
using aoe::sdk::ResultStatus;
using nlohmann::json;

Journal::Journal(std::filesystem::path file, bool reload, JournalContext context)
    : file_(std::move(file)), context_(std::move(context)) {
  std::filesystem::create_directories(file_.parent_path());
  if (reload) {
    std::ifstream in(file_);
    std::string line;
    size_t number = 0;
    while (std::getline(in, line)) {
      ++number;
      json j;
      try {
        j = json::parse(line);
        // Lines from before the journal was keyed hold no model: another context too.
        if (j.value("model", "") != context_.model || j.value("device", "") != context_.device ||
            j.value("soc_version", "") != context_.soc_version) {
          ++foreign_;
          continue;
        }
        Measurement m;
        m.status = static_cast<ResultStatus>(j.at("status").get<int>());
        m.time_us = j.value("time_us", 0.0);
        m.message = j.value("message", "");
        known_[{j.at("repo_key").get<std::string>(), j.at("space_version").get<std::string>(),
                j.at("config").get<aoe::sdk::Config>()}] = {m, true};
        ++loaded_;
      } catch (const json::exception&) {
        // A line cut short by the interruption: what follows was never written.
        if (in.peek() != EOF)
          throw aoe::sdk::Error(aoe::sdk::StatusCode::io, "journal " + file_.string() + " line " +
                                                              std::to_string(number) + " is corrupt");
      }
    }
  }
  out_.open(file_, reload ? std::ios::app : std::ios::trunc);
  if (!out_) throw aoe::sdk::Error(aoe::sdk::StatusCode::io, "cannot write the journal " + file_.string());
}

std::optional<Journal::Known> Journal::find(const std::string& repo_key, const std::string& space_version,
                                            const aoe::sdk::Config& config) const {
  auto it = known_.find({repo_key, space_version, config});
  if (it == known_.end()) return std::nullopt;
  return it->second;
}

void Journal::record(const std::string& repo_key, const std::string& space_version, const aoe::sdk::Config& config,
                     const Measurement& result) {
  known_[{repo_key, space_version, config}] = {result, false};
  json line = {{"model", context_.model},        {"device", context_.device},
               {"soc_version", context_.soc_version}, {"repo_key", repo_key},
               {"space_version", space_version}, {"config", config},
               {"status", static_cast<int>(result.status)}};
  if (result.ok()) line["time_us"] = result.time_us;
  if (!result.message.empty()) line["message"] = result.message;
  out_ << line.dump() << '\n' << std::flush;
}

}  // namespace aoe::sgat
