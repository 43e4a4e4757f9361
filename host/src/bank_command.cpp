#include "bank_command.h"

#include <cstdio>
#include <cstdlib>

#include "aoe/sdk/error.h"
#include "bank.h"
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

std::vector<Bank::Entry> read_entries(const Bank& bank) {
  try {
    return bank.entries();
  } catch (const aoe::sdk::Error& e) {
    throw ExitError(exit_tuning_failed, e.what());
  }
}

int show(const Bank& bank, std::ostream& out) {
  const auto entries = read_entries(bank);
  out << "bank " << bank.root().string() << ": " << entries.size() << " entries (" << join(bank.soc_versions())
      << ")\n";
  for (const auto& e : entries) {
    const auto& c = e.content;
    const double before = c.value("before_us", 0.0), after = c.value("after_us", 0.0);
    char figures[96];
    std::snprintf(figures, sizeof figures, "%10.2f us -> %10.2f us (%+6.1f%%)", before, after,
                  before > 0 ? (after - before) / before * 100 : 0.0);
    out << c["key"].value("soc_version", "?") << "  " << c.value("op_type", "?") << "  "
        << c["key"].value("hash", "?") << "  " << figures << "  "
        << c.value("provenance", json::object()).value("model", "") << "  " << c.value("config", json::object()).dump()
        << "\n";
  }
  return exit_ok;
}

int merge(const Bank& a, const Bank& b, const Bank& into, std::ostream& out) {
  for (const auto* bank : {&a, &b})
    if (!std::filesystem::is_directory(bank->root()))
      throw ExitError(exit_usage, "bank merge: " + bank->root().string() + " is not a bank directory");
  if (a.soc_versions() != b.soc_versions())
    throw ExitError(exit_usage, "bank merge: " + a.root().string() + " holds " + join(a.soc_versions()) + " but " +
                                    b.root().string() + " holds " + join(b.soc_versions()) +
                                    ": merge banks of the same soc_version");
  // Read both before writing anything: a corrupt input stops the merge untouched.
  const auto from_a = read_entries(a);
  const auto from_b = read_entries(b);
  size_t added = 0, replaced = 0, kept = 0;
  for (const auto* entries : {&from_a, &from_b})
    for (const auto& e : *entries) {
      const auto outcome = into.record(e.content);
      added += outcome == aoe::sdk::BankOutcome::added;
      replaced += outcome == aoe::sdk::BankOutcome::updated;
      kept += outcome == aoe::sdk::BankOutcome::kept_existing;
    }
  out << "merged " << from_a.size() << " entries of " << a.root().string() << " and " << from_b.size() << " of "
      << b.root().string() << " into " << into.root().string() << ": " << added << " added, " << replaced
      << " replaced by a faster config, " << kept << " kept (the faster was already there)\n";
  return exit_ok;
}

std::filesystem::path configured_bank(const Settings& settings) {
  const char* home = std::getenv("HOME");
  return Bank::default_root("op", settings.text("bank_path"), settings.text("cache_path"), home ? home : ".");
}

}  // namespace

int run_bank_command(const std::vector<std::string>& arguments, const Settings& settings, std::ostream& out) {
  const std::string usage = "usage: aoe-host bank show [DIR] | aoe-host bank merge A B -o OUT";
  if (arguments.empty()) throw ExitError(exit_usage, usage);
  if (arguments[0] == "show" && arguments.size() <= 2)
    return show(Bank(arguments.size() == 2 ? std::filesystem::path(arguments[1]) : configured_bank(settings)), out);
  if (arguments[0] == "merge" && arguments.size() == 3) {
    if (!settings.has("output")) throw ExitError(exit_usage, "bank merge needs -o OUT: " + usage);
    try {
      return merge(Bank(arguments[1]), Bank(arguments[2]), Bank(settings.text("output")), out);
    } catch (const aoe::sdk::Error& e) {
      throw ExitError(exit_tuning_failed, std::string("bank merge: ") + e.what());
    }
  }
  throw ExitError(exit_usage, usage);
}

}  // namespace aoe::host
