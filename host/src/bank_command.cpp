#include "bank_command.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

#include "aoe/sdk/error.h"
#include "aoe/sdk/improvement.h"
#include "aoe/sdk/path_component.h"
#include "bank.h"
#include "bank_index.h"
#include "command_line.h"
#include "exit_error.h"

namespace aoe::host {
namespace {

using nlohmann::json;

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + i;
  return out.empty() ? "nothing" : out;
}

bool is_kind(const std::string& name) {
  return std::find(Bank::kinds().begin(), Bank::kinds().end(), name) != Bank::kinds().end();
}

// What a directory given to show or merge holds, whichever it is: a kind's
// folder (R/op), the folder of the kinds (R, or ASCEND_CACHE_PATH with its
// aoe_data), or a bank of the old layout (R/<soc>/, kinds mixed).
struct Found {
  std::string kind;
  std::string soc;
  Bank::Entry entry;
};

void read_soc_folder(const std::filesystem::path& dir, const std::string& kind, std::vector<Found>& out) {
  for (const auto& file : bank_entry_files(dir)) {
    // In a folder of the old layout, what is named as no entry is no entry.
    if (kind.empty() && !bank_entry_name(file.filename().string())) continue;
    json content = read_bank_entry_file(file);
    const std::string k = kind.empty() ? content["key"].value("kind", "op") : kind;
    out.push_back({k, dir.filename().string(), {file, std::move(content)}});
  }
}

// The folders in dir, by name.
std::vector<std::filesystem::path> subfolders(const std::filesystem::path& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> subs;
  for (const auto& sub : std::filesystem::directory_iterator(dir, ec))
    if (sub.is_directory(ec)) subs.push_back(sub.path());
  std::sort(subs.begin(), subs.end());
  return subs;
}

void read_tree(const std::filesystem::path& dir, std::vector<Found>& out) {
  if (is_kind(dir.filename().string())) {
    for (const auto& soc : Bank(dir).soc_versions()) read_soc_folder(dir / soc, dir.filename().string(), out);
    return;
  }
  for (const auto& sub : subfolders(dir)) {
    const auto name = sub.filename().string();
    if (is_kind(name) || name == "aoe_data")
      read_tree(sub, out);
    else
      read_soc_folder(sub, "", out);  // the old layout: the key says the kind
  }
}

std::vector<Found> read_bank(const std::filesystem::path& dir) {
  std::vector<Found> out;
  try {
    read_tree(dir, out);
  } catch (const aoe::sdk::Error& e) {
    throw ExitError(exit_tuning_failed, e.what());
  }
  return out;
}

// kind -> its soc_versions
std::map<std::string, std::vector<std::string>> socs_by_kind(const std::vector<Found>& found) {
  std::map<std::string, std::set<std::string>> sets;
  for (const auto& f : found) sets[f.kind].insert(f.soc);
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [kind, socs] : sets) out[kind] = {socs.begin(), socs.end()};
  return out;
}

// {"bank": dir, "entries": [{kind, soc_version, op_type, hash, before_us, after_us, improvement, model, config, file}]}
json show_json(const std::filesystem::path& dir, const std::vector<Found>& found) {
  json entries = json::array();
  for (const auto& f : found) {
    const auto& c = f.entry.content;
    const double before = c.value("before_us", 0.0), after = c.value("after_us", 0.0);
    const json key = c.value("key", json::object());
    entries.push_back({{"kind", f.kind},
                       {"soc_version", key.value("soc_version", f.soc)},
                       {"op_type", c.value("op_type", "")},
                       {"hash", key.value("hash", "")},
                       {"before_us", before},
                       {"after_us", after},
                       {"improvement", aoe::sdk::percent(before, after)},
                       {"model", c.value("provenance", json::object()).value("model", "")},
                       {"config", c.value("config", json::object())},
                       {"file", f.entry.file.string()}});
  }
  return {{"bank", dir.string()}, {"entries", entries}};
}

int show(const std::filesystem::path& dir, std::ostream& out, bool as_json) {
  const auto found = read_bank(dir);
  if (as_json) return out << show_json(dir, found).dump(2) << "\n", exit_ok;
  std::set<std::string> socs;
  for (const auto& f : found) socs.insert(f.soc);
  out << "bank " << dir.string() << ": " << found.size() << " entries ("
      << join({socs.begin(), socs.end()}) << ")\n";
  for (const auto& f : found) {
    const auto& c = f.entry.content;
    const double before = c.value("before_us", 0.0), after = c.value("after_us", 0.0);
    char figures[96];
    std::snprintf(figures, sizeof figures, "%10.2f us -> %10.2f us (improved by %s)", before, after,
                  aoe::sdk::percent(before, after).c_str());
    out << f.kind << "  " << c["key"].value("soc_version", "?") << "  " << c.value("op_type", "?") << "  "
        << c["key"].value("hash", "?") << "  " << figures << "  "
        << c.value("provenance", json::object()).value("model", "") << "  " << c.value("config", json::object()).dump()
        << "\n";
  }
  return exit_ok;
}

// What merge takes from a bank: per kind, its entry files as their indexes
// know them (the files are not read: each that changed since indexed is),
// those of the old layout read.
struct Listing {
  std::map<std::string, std::vector<Bank::Stored>> by_kind;
  size_t size = 0;
};

void list_tree(const std::filesystem::path& dir, Listing& out) {
  const auto name = dir.filename().string();
  if (is_kind(name)) {
    for (auto& s : Bank(dir).stored()) {
      out.by_kind[name].push_back(std::move(s));
      ++out.size;
    }
    return;
  }
  for (const auto& sub : subfolders(dir)) {
    const auto sub_name = sub.filename().string();
    if (is_kind(sub_name) || sub_name == "aoe_data") {
      list_tree(sub, out);
      continue;
    }
    std::vector<Found> found;
    read_soc_folder(sub, "", found);
    for (auto& f : found) {
      const auto& key = f.entry.content["key"];
      const auto& after = f.entry.content["after_us"];
      const auto soc = key.contains("soc_version") ? key["soc_version"] : json(f.soc);
      if (!soc.is_string() || !aoe::sdk::safe_path_component(soc.get<std::string>()))
        throw aoe::sdk::Error(aoe::sdk::StatusCode::invalid_argument,
                              "bank entry " + f.entry.file.string() + ": soc_version " + soc.dump().substr(0, 160) +
                                  " cannot name a folder: fix or remove the entry");
      Bank::Stored s{f.entry.file, soc.get<std::string>(), after.is_number() ? after.get<double>() : 0,
                     BankIndex::indexed_fields(key), 0, 0};
      std::error_code e;
      s.size = std::filesystem::file_size(f.entry.file, e);
      out.by_kind[f.kind].push_back(std::move(s));
      ++out.size;
    }
  }
}

Listing list_bank(const std::filesystem::path& dir) {
  Listing out;
  try {
    list_tree(dir, out);
  } catch (const aoe::sdk::Error& e) {
    throw ExitError(exit_tuning_failed, e.what());
  }
  return out;
}

std::vector<std::string> socs_of(const std::vector<Bank::Stored>& entries) {
  std::set<std::string> socs;
  for (const auto& e : entries) socs.insert(e.soc_version);
  return {socs.begin(), socs.end()};
}

int merge(const std::filesystem::path& a, const std::filesystem::path& b, const std::filesystem::path& into,
          std::ostream& out) {
  for (const auto& bank : {a, b})
    if (!std::filesystem::is_directory(bank))
      throw ExitError(exit_usage, "bank merge: " + bank.string() + " is not a bank directory");
  // Both listed before anything is written: a corrupt input stops the merge untouched.
  const auto from_a = list_bank(a);
  const auto from_b = list_bank(b);
  for (const auto& [kind, entries] : from_a.by_kind)
    if (from_b.by_kind.count(kind) && socs_of(from_b.by_kind.at(kind)) != socs_of(entries))
      throw ExitError(exit_usage, "bank merge: " + a.string() + " holds " + kind + " entries of " +
                                      join(socs_of(entries)) + " but " + b.string() + " holds " +
                                      join(socs_of(from_b.by_kind.at(kind))) + ": merge banks of the same soc_version");
  // Each kind in its own folder of OUT; OUT naming a kind's folder stands for its parent.
  const auto root = is_kind(into.filename().string()) ? into.parent_path() : into;
  std::map<std::string, std::vector<const Bank::Stored*>> by_kind;
  for (const auto* listing : {&from_a, &from_b})
    for (const auto& [kind, entries] : listing->by_kind)
      for (const auto& e : entries) by_kind[kind].push_back(&e);
  Bank::MergeCounts total;
  for (const auto& [kind, entries] : by_kind) {
    const auto counts = Bank(root / kind, root, kind).take_all(entries);
    total.added += counts.added;
    total.replaced += counts.replaced;
    total.kept += counts.kept;
  }
  out << "merged " << from_a.size << " entries of " << a.string() << " and " << from_b.size << " of " << b.string()
      << " into " << root.string() << ": " << total.added << " added, " << total.replaced
      << " replaced by a faster config, " << total.kept << " kept (the faster was already there)\n";
  return exit_ok;
}

std::filesystem::path configured_bank(const Settings& settings) {
  const char* home = std::getenv("HOME");
  // ASCEND_CACHE_PATH itself: its aoe_data and any bank of the old layout beside it.
  if (settings.text("bank_path").empty() && !settings.text("cache_path").empty()) return settings.text("cache_path");
  return Bank::default_kinds_root(settings.text("bank_path"), settings.text("cache_path"), home ? home : ".");
}

}  // namespace

int run_bank_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out) {
  const std::string usage = "usage: aoe-host bank show [DIR] | aoe-host bank merge A B -o OUT";
  if (arguments.empty()) throw ExitError(exit_usage, usage);
  if (arguments[0] == "show" && arguments.size() <= 2)
    return show(arguments.size() == 2 ? std::filesystem::path(arguments[1]) : configured_bank(settings), out,
                settings.boolean("json"));
  if (arguments[0] == "merge" && arguments.size() == 3) {
    if (!settings.has("output")) throw ExitError(exit_usage, "bank merge needs -o OUT: " + usage);
    try {
      return merge(arguments[1], arguments[2], settings.text("output"), out);
    } catch (const aoe::sdk::Error& e) {
      throw ExitError(exit_tuning_failed, std::string("bank merge: ") + e.what());
    }
  }
  throw ExitError(exit_usage, usage);
}

}  // namespace aoe::host
