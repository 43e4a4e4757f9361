// The host's side of the services table: each plugin gets its own context,
// so its logs carry its name; statuses, cancellation and the bank are shared.
#pragma once

#include <spdlog/spdlog.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "aoe/abi/host_services.h"
#include "aoe/sdk/host.h"
#include "progress_printer.h"

struct aoe_status {
  int32_t code;
  std::string message;
};

namespace aoe::host {

class Bank;

class HostServices {
 public:
  using CancelCheck = std::function<bool()>;
  // Told of each progress report too, after the console line (the C API's callback).
  using ProgressListener =
      std::function<void(const std::string& stage, uint64_t done, uint64_t total, const std::string& note)>;

  explicit HostServices(CancelCheck cancelled);
  HostServices(const HostServices&) = delete;
  HostServices& operator=(const HostServices&) = delete;

  // The bank plugins reach through bank_lookup / bank_record; none until set.
  void set_bank(const Bank* bank) { bank_ = bank; }
  // Banks of other kinds ("op", "graph"...), reached by the key's "kind":
  // SGAT reads the operator bank's tilings, OPAT the subgraph bank's strategies.
  void set_bank_of_kind(const std::string& kind, const Bank* bank) { banks_by_kind_[kind] = bank; }

  void set_progress_listener(ProgressListener listener) { progress_listener_ = std::move(listener); }
  // Frees a lent weight a device says it will not read again (release_tensor);
  // none outside a model run.
  using TensorReleaser = std::function<void(const std::string& name)>;
  void set_tensor_releaser(TensorReleaser releaser) { tensor_releaser_ = std::move(releaser); }
  // Lends a device the buffer of a graph output of run-time shape
  // (output_buffer); none outside a model run. Throws sdk::Error naming the output.
  using OutputAllocator = std::function<float*(const std::string& name, const std::vector<int64_t>& dims)>;
  void set_output_allocator(OutputAllocator allocator) { output_allocator_ = std::move(allocator); }
  bool cancelled() const { return cancelled_(); }

  const aoe_host_services* table_for(const std::string& plugin_name);
  // The host's own table, for reading statuses it receives.
  aoe::sdk::Host host() { return aoe::sdk::Host(table_for("aoe-host")); }

 private:
  struct Context {
    HostServices* owner;
    std::shared_ptr<spdlog::logger> logger;
    aoe_host_services table;
  };
  static Context& context(void* ctx) { return *static_cast<Context*>(ctx); }

  CancelCheck cancelled_;
  ProgressPrinter progress_;
  ProgressListener progress_listener_;
  TensorReleaser tensor_releaser_;
  OutputAllocator output_allocator_;
  const Bank* bank_ = nullptr;
  std::map<std::string, const Bank*> banks_by_kind_;
  const Bank* bank_for(const nlohmann::json& key) const;
  // Corrupt entries already warned of: every op of a type lists the same files.
  std::set<std::filesystem::path> reported_corrupt_;
  // Warns of a corrupt entry a query met, once per file, in the plugin's log.
  std::function<void(const std::filesystem::path&, const std::string&)> corrupt_reporter(Context& c);
  std::map<std::string, std::unique_ptr<Context>> contexts_;
};

}  // namespace aoe::host
