#include "tune_ops.h"

#include <nlohmann/json.hpp>

#include <fstream>

#include "aoe/sdk/error.h"

namespace aoe::opat {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

std::set<std::string> string_list(const nlohmann::json& doc, const char* key, const std::string& file) {
  if (!doc.contains(key)) return {};
  const auto& list = doc.at(key);
  if (!list.is_array())
    throw Error(StatusCode::invalid_argument, "tune_ops_file " + file + ": '" + key + "' must be a list of strings");
  std::set<std::string> out;
  for (const auto& item : list) {
    if (!item.is_string() || item.get<std::string>().empty())
      throw Error(StatusCode::invalid_argument,
                  "tune_ops_file " + file + ": '" + key + "' holds " + item.dump() + ", not a non-empty string");
    out.insert(item.get<std::string>());
  }
  return out;
}

}  // namespace

TuneOps TuneOps::from_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw Error(StatusCode::invalid_argument, "tune_ops_file " + file.string() + " cannot be read");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error(StatusCode::invalid_argument, "tune_ops_file " + file.string() + " is not JSON: " + e.what());
  }
  if (!doc.is_object())
    throw Error(StatusCode::invalid_argument, "tune_ops_file " + file.string() + " must hold a JSON object");
  for (const auto& [key, value] : doc.items())
    if (key != "tune_ops_name" && key != "tune_ops_type")
      throw Error(StatusCode::invalid_argument,
                  "tune_ops_file " + file.string() + ": unknown key '" + key + "' (use tune_ops_name, tune_ops_type)");
  TuneOps out;
  out.names_ = string_list(doc, "tune_ops_name", file.string());
  out.types_ = string_list(doc, "tune_ops_type", file.string());
  if (out.selects_all())
    throw Error(StatusCode::invalid_argument,
                "tune_ops_file " + file.string() + " lists no op: give tune_ops_name or tune_ops_type");
  return out;
}

bool TuneOps::selects(const FusedOp& op) const {
  if (selects_all()) return true;
  for (const auto& name : op.node_names)
    if (names_.count(name)) return true;
  for (const auto& type : op.op_types)
    if (types_.count(type)) return true;
  return false;
}

}  // namespace aoe::opat
