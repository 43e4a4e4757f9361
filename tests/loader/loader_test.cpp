// The plugin loader against real libraries, valid and broken.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "aoe/abi/aoe.h"
#include "aoe/sdk/error.h"
#include "aoe/sdk/host.h"
#include "aoe/sdk/searcher_client.h"
#include "plugin_loader.h"

namespace aoe::host {
namespace {

namespace fs = std::filesystem;
using aoe::sdk::Error;
using aoe::sdk::StatusCode;

const fs::path kPlugins = AOE_TEST_PLUGIN_DIR;

fs::path library(const std::string& dir, const std::string& name) { return kPlugins / dir / ("libaoe_" + name + ".so"); }
fs::path library(const std::string& name) { return library(name, name); }

std::string sdk(unsigned major, unsigned minor) { return std::to_string(major) + "." + std::to_string(minor); }
const std::string kHostSdk = sdk(AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR);

// A host services table that keeps what plugins do with it: log lines in a
// vector, statuses as heap objects it counts.
class TestServices {
 public:
  TestServices() {
    table_.struct_size = sizeof(aoe_host_services);
    table_.ctx = this;
    table_.log = [](void* ctx, int32_t, const char* message) { self(ctx).logs.emplace_back(message); };
    table_.progress = [](void*, const char*, uint64_t, uint64_t, const char*) {};
    table_.cancelled = [](void*) -> int32_t { return 0; };
    table_.status_create = [](void* ctx, int32_t code, const char* message) {
      ++self(ctx).live_statuses;
      return reinterpret_cast<aoe_status*>(new Status{code, message, &self(ctx)});
    };
    table_.status_code = [](const aoe_status* s) { return as_status(s).code; };
    table_.status_message = [](const aoe_status* s) { return as_status(s).message.c_str(); };
    table_.status_destroy = [](aoe_status* s) {
      auto* status = reinterpret_cast<Status*>(s);
      --status->owner->live_statuses;
      delete status;
    };
    table_.bank_lookup = [](void* ctx, const char*, aoe_sink*, int32_t*) {
      return table_of(ctx).status_create(ctx, AOE_STATUS_UNSUPPORTED, "no bank in this test");
    };
    table_.bank_record = [](void* ctx, const char*, int32_t*) {
      return table_of(ctx).status_create(ctx, AOE_STATUS_UNSUPPORTED, "no bank in this test");
    };
  }
  TestServices(const TestServices&) = delete;
  TestServices& operator=(const TestServices&) = delete;

  PluginRegistry::ServicesFor services_for() {
    return [this](const std::string& plugin) {
      asked_for.push_back(plugin);
      return &table_;
    };
  }

  std::vector<std::string> logs;
  std::vector<std::string> asked_for;  // which plugins got a table, i.e. reached init
  int live_statuses = 0;

 private:
  struct Status {
    int32_t code;
    std::string message;
    TestServices* owner;
  };
  static TestServices& self(void* ctx) { return *static_cast<TestServices*>(ctx); }
  static const aoe_host_services& table_of(void* ctx) { return self(ctx).table_; }
  static const Status& as_status(const aoe_status* s) { return *reinterpret_cast<const Status*>(s); }

  aoe_host_services table_{};
};

// Whether the process still has that library mapped.
bool is_loaded(const fs::path& file) {
  void* handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (handle) dlclose(handle);
  return handle != nullptr;
}

class LoaderTest : public ::testing::Test {
 protected:
  TestServices services;
  PluginRegistry registry{services.services_for()};

  // The only refusal there is, for a library expected to be refused.
  std::string refusal_of(const fs::path& file) {
    EXPECT_FALSE(registry.load_file(file));
    EXPECT_TRUE(registry.plugins().empty());
    if (registry.refusals().size() != 1) {
      ADD_FAILURE() << "expected one refusal, got " << registry.refusals().size();
      return {};
    }
    EXPECT_EQ(registry.refusals()[0].path, file);
    EXPECT_TRUE(services.asked_for.empty()) << "a refused library reached init";
    EXPECT_FALSE(is_loaded(file)) << "a refused library stayed loaded";
    return registry.refusals()[0].reason;
  }
};

TEST_F(LoaderTest, ListsTheComponentOfAGoodPlugin) {
  registry.load_directory(kPlugins / "good");

  ASSERT_TRUE(registry.refusals().empty()) << registry.refusals()[0].message();
  ASSERT_EQ(registry.plugins().size(), 1u);
  const LoadedPlugin& plugin = *registry.plugins()[0];
  EXPECT_EQ(plugin.path, library("good"));
  EXPECT_EQ(plugin.name, "good");
  EXPECT_EQ(plugin.version, "1.2.3");
  EXPECT_EQ(plugin.summary, "test plugin good");
  EXPECT_EQ(plugin.sdk_major, AOE_SDK_VERSION_MAJOR);
  EXPECT_EQ(plugin.sdk_minor, AOE_SDK_VERSION_MINOR);
  ASSERT_EQ(plugin.components.size(), 1u);
  const Component& sweep = plugin.components[0];
  EXPECT_EQ(sweep.kind, AOE_KIND_SEARCHER);
  EXPECT_STREQ(kind_name(sweep.kind), "searcher");
  EXPECT_EQ(sweep.name, "sweep");
  EXPECT_EQ(sweep.summary, "walks the space in order");
  EXPECT_EQ(sweep.plugin, &plugin);
  EXPECT_EQ(&registry.find(AOE_KIND_SEARCHER, "sweep"), &sweep);
  EXPECT_EQ(registry.names(AOE_KIND_SEARCHER), std::vector<std::string>{"sweep"});
  EXPECT_TRUE(registry.names(AOE_KIND_DEVICE).empty());
  EXPECT_EQ(services.asked_for, std::vector<std::string>{"good"});
  EXPECT_TRUE(is_loaded(plugin.path));
}

TEST_F(LoaderTest, RefusesAnotherSdkMajorNamingBothVersions) {
  const std::string reason = refusal_of(library("wrong_major"));
  EXPECT_EQ(reason, "built against aoe SDK " + sdk(AOE_SDK_VERSION_MAJOR + 1, 0) + ", this host has SDK " + kHostSdk +
                        ": rebuild the plugin against SDK " + std::to_string(AOE_SDK_VERSION_MAJOR) + ".x");
  EXPECT_TRUE(services.logs.empty()) << "plugin code ran: " << services.logs[0];
}

TEST_F(LoaderTest, RefusesANewerSdkMinorNamingBothVersions) {
  const std::string reason = refusal_of(library("newer_minor"));
  EXPECT_EQ(reason, "built against aoe SDK " + sdk(AOE_SDK_VERSION_MAJOR, AOE_SDK_VERSION_MINOR + 1) +
                        ", newer than this host's " + kHostSdk + ": upgrade aoe-host");
  EXPECT_TRUE(services.logs.empty()) << "plugin code ran: " << services.logs[0];
}

TEST_F(LoaderTest, RefusesAMissingEntryPoint) {
  EXPECT_EQ(refusal_of(library("missing_entry")), "missing entry point aoe_plugin_create; was it built with the aoe SDK?");
  EXPECT_TRUE(services.logs.empty()) << "plugin code ran: " << services.logs[0];
}

TEST_F(LoaderTest, RefusesAFailedInitWithItsMessage) {
  EXPECT_FALSE(registry.load_file(library("throws_in_init")));
  ASSERT_EQ(registry.refusals().size(), 1u);
  EXPECT_EQ(registry.refusals()[0].path, library("throws_in_init"));
  EXPECT_EQ(registry.refusals()[0].reason,
            "init failed: licence server licence.example:27000 did not answer; set AOE_LICENCE_SERVER");
  EXPECT_EQ(services.asked_for, std::vector<std::string>{"throws_in_init"});
  EXPECT_EQ(services.live_statuses, 0) << "the init status was not destroyed";
  EXPECT_TRUE(registry.plugins().empty());
  EXPECT_FALSE(is_loaded(library("throws_in_init")));
}

TEST_F(LoaderTest, RefusesAFileThatIsNotALibrary) {
  const fs::path file = library("not_a_library");
  const std::string reason = refusal_of(file);
  EXPECT_EQ(reason.rfind("not a loadable shared library: ", 0), 0u) << reason;
  EXPECT_NE(reason.find(file.string()), std::string::npos) << "the loader's own text is missing: " << reason;
}

// Code others may change runs as whoever loads it: refused unless allowed.
TEST_F(LoaderTest, RefusesAPluginOthersMayWriteUnlessAllowed) {
  const fs::path dir = fs::temp_directory_path() / ("aoe_loader_insecure_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path copy = dir / "libaoe_good.so";
  fs::copy_file(library("good"), copy);
  for (const auto& [path, perms] : {std::pair{dir, fs::perms::others_write}, std::pair{copy, fs::perms::others_write}}) {
    fs::permissions(path, perms, fs::perm_options::add);
    PluginRegistry strict{services.services_for()};
    EXPECT_FALSE(strict.load_file(copy));
    ASSERT_EQ(strict.refusals().size(), 1u);
    EXPECT_NE(strict.refusals()[0].reason.find(path.string() + " is writable by every user"), std::string::npos)
        << strict.refusals()[0].reason;
    EXPECT_NE(strict.refusals()[0].reason.find("--allow_insecure_plugins"), std::string::npos);
    EXPECT_TRUE(strict.plugins().empty());
    PluginRegistry allowed{services.services_for()};
    allowed.allow_insecure(true);
    EXPECT_TRUE(allowed.load_file(copy)) << (allowed.refusals().empty() ? "" : allowed.refusals()[0].reason);
    fs::permissions(path, perms, fs::perm_options::remove);
  }
  fs::remove_all(dir);
}

TEST_F(LoaderTest, SkipsAMissingDirectory) {
  registry.load_directory(kPlugins / "no_such_directory");
  EXPECT_TRUE(registry.plugins().empty());
  EXPECT_TRUE(registry.refusals().empty());
}

TEST_F(LoaderTest, LoadsTheGoodLibraryAmongBadOnes) {
  registry.load_directory(kPlugins / "mixed");

  ASSERT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(registry.plugins()[0]->path, library("mixed", "good"));
  EXPECT_EQ(registry.names(AOE_KIND_SEARCHER), std::vector<std::string>{"sweep"});
  std::vector<fs::path> refused;
  for (const auto& r : registry.refusals()) refused.push_back(r.path);
  // Name order, each with its own reason.
  EXPECT_EQ(refused, (std::vector<fs::path>{library("mixed", "missing_entry"), library("mixed", "newer_minor"),
                                            library("mixed", "not_a_library"), library("mixed", "throws_in_init"),
                                            library("mixed", "wrong_major")}));
  ASSERT_EQ(registry.refusals().size(), 5u);
  EXPECT_EQ(registry.refusals()[0].reason.rfind("missing entry point", 0), 0u);
  EXPECT_EQ(registry.refusals()[1].reason.rfind("built against aoe SDK", 0), 0u);
  EXPECT_EQ(registry.refusals()[2].reason.rfind("not a loadable shared library", 0), 0u);
  EXPECT_EQ(registry.refusals()[3].reason.rfind("init failed", 0), 0u);
  EXPECT_EQ(registry.refusals()[4].reason.rfind("built against aoe SDK", 0), 0u);
  EXPECT_EQ(registry.refusals()[2].message(),
            library("mixed", "not_a_library").string() + ": " + registry.refusals()[2].reason);
}

TEST_F(LoaderTest, ADuplicateNameKeepsBothAndNamesBothPaths) {
  registry.load_directory(kPlugins / "duplicate_a");
  registry.load_directory(kPlugins / "duplicate_b");

  EXPECT_TRUE(registry.refusals().empty());
  EXPECT_EQ(registry.plugins().size(), 2u);
  EXPECT_EQ(registry.names(AOE_KIND_SEARCHER), std::vector<std::string>{"twin"});
  try {
    registry.find(AOE_KIND_SEARCHER, "twin");
    FAIL() << "find() chose one of two plugins";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::invalid_argument);
    EXPECT_EQ(std::string(e.what()), "searcher 'twin' is provided by two plugins: " + library("duplicate_a").string() +
                                         " and " + library("duplicate_b").string() +
                                         "; remove one or pass --plugin-dir to choose");
  }
}

TEST_F(LoaderTest, AnUnknownNameListsWhatThereIs) {
  registry.load_directory(kPlugins / "duplicate_a");
  registry.load_directory(kPlugins / "good");
  try {
    registry.find(AOE_KIND_SEARCHER, "annealing");
    FAIL() << "found a searcher no plugin offers";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::not_found);
    EXPECT_EQ(std::string(e.what()), "no searcher named 'annealing'; available searchers: sweep, twin");
  }
  // The kind is part of the name.
  EXPECT_THROW(registry.find(AOE_KIND_DEVICE, "sweep"), Error);
}

TEST_F(LoaderTest, LoadingALibraryTwiceInitialisesItOnce) {
  EXPECT_TRUE(registry.load_file(library("good")));
  EXPECT_TRUE(registry.load_file(library("good")));
  EXPECT_EQ(registry.plugins().size(), 1u);
  EXPECT_EQ(services.asked_for, std::vector<std::string>{"good"});
}

TEST_F(LoaderTest, CreatesAWorkingSearcher) {
  registry.load_directory(kPlugins / "good");
  const Component& sweep = registry.find(AOE_KIND_SEARCHER, "sweep");
  const aoe::sdk::Host host(sweep.plugin->services);
  aoe::sdk::SearcherClient searcher(
      {sizeof(aoe_searcher_ref), registry.create(sweep, "{}"), static_cast<const aoe_searcher_vtable*>(sweep.vtable)},
      host);

  aoe::sdk::TuningSpace space;
  space.knobs = {aoe::sdk::Knob::power_of_two("tile", aoe::sdk::KnobTag::schedule, 16, 64),
                 aoe::sdk::Knob::categorical("layout", aoe::sdk::KnobTag::format, {"ND", "NZ"})};
  space.default_config = {16, 0};
  searcher.start(space, {7, 100});
  const auto first = searcher.propose(4);
  EXPECT_EQ(first, (std::vector<aoe::sdk::Config>{{16, 0}, {16, 1}, {32, 0}, {32, 1}}));
  for (const auto& c : first) searcher.observe(c, aoe::sdk::Measurement::timed(10.0));
  EXPECT_EQ(searcher.propose(4), (std::vector<aoe::sdk::Config>{{64, 0}, {64, 1}}));
  EXPECT_TRUE(searcher.propose(4).empty()) << "the space is exhausted";
}

TEST_F(LoaderTest, CreateThrowsThePluginsStatus) {
  registry.load_directory(kPlugins / "good");
  Component ghost = registry.find(AOE_KIND_SEARCHER, "sweep");
  ghost.name = "ghost";
  try {
    registry.create(ghost, {});
    FAIL() << "created a component the plugin does not have";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::not_found);
    EXPECT_EQ(std::string(e.what()), "cannot create searcher 'ghost' from " + library("good").string() +
                                         ": no component named 'ghost'");
  }
  // The options reach the plugin, which reports bad JSON as a status, not a crash.
  try {
    registry.create(registry.find(AOE_KIND_SEARCHER, "sweep"), "{not json");
    FAIL() << "created a searcher from options that are not JSON";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), StatusCode::internal);
  }
  EXPECT_EQ(services.live_statuses, 0) << "a status was not destroyed";
}

TEST(LoaderLifetime, DestroyingTheRegistryUnloadsEveryLibrary) {
  TestServices services;
  {
    PluginRegistry registry(services.services_for());
    registry.load_directory(kPlugins / "good");
    registry.load_directory(kPlugins / "duplicate_a");
    ASSERT_EQ(registry.plugins().size(), 2u);
    EXPECT_TRUE(is_loaded(library("good")));
  }
  EXPECT_FALSE(is_loaded(library("good")));
  EXPECT_FALSE(is_loaded(library("duplicate_a")));
}

}  // namespace
}  // namespace aoe::host
