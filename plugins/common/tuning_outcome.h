// How a tuned task ended, in AOE's bank vocabulary: one list for every mode,
// with the words its logs and its result file use.
#pragma once

#include <string>
#include <utility>

#include "aoe/sdk/host.h"

namespace aoe::modes {

enum class Outcome { added, updated, reserved, unsatisfied, failed, unsupported, interrupted };

// As a log line says it: "added", "updated", ...
inline const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::added: return "added";
    case Outcome::updated: return "updated";
    case Outcome::reserved: return "reserved";
    case Outcome::unsatisfied: return "unsatisfied";
    case Outcome::failed: return "failed";
    case Outcome::unsupported: return "unsupported";
    case Outcome::interrupted: return "interrupted";
  }
  return "failed";
}

// The word back to the outcome, for an outcome sent between ranks; an
// unknown word is a failure.
inline Outcome outcome_from_string(const std::string& word) {
  for (Outcome o : {Outcome::added, Outcome::updated, Outcome::reserved, Outcome::unsatisfied, Outcome::failed,
                    Outcome::unsupported, Outcome::interrupted})
    if (word == to_string(o)) return o;
  return Outcome::failed;
}

// As AOE's result file says it: "add", "update", ...
inline const char* repo_word(Outcome outcome) {
  switch (outcome) {
    case Outcome::added: return "add";
    case Outcome::updated: return "update";
    default: return to_string(outcome);
  }
}

// A mode's result (a TaskResult, a SubgraphResult) that ends before a
// search: why, and how it counts.
template <class Result>
Result ended(std::string reason, Outcome outcome = Outcome::failed) {
  Result r;
  r.outcome = outcome;
  r.reason = std::move(reason);
  return r;
}

// What the bank did with a record. It decides: another process may have
// stored a faster entry meanwhile.
inline Outcome stored_as(aoe::sdk::BankOutcome stored) {
  return stored == aoe::sdk::BankOutcome::added     ? Outcome::added
         : stored == aoe::sdk::BankOutcome::updated ? Outcome::updated
                                                    : Outcome::reserved;
}

}  // namespace aoe::modes
