#include "aoe_host_fixture.h"

#include <unistd.h>

#include <fstream>

namespace aoe::test {

void AoeHostTest::SetUp() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  dir_ = std::filesystem::temp_directory_path() /
         ("aoe_it_" + std::string(info->name()) + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  bank_ = dir_ / "bank";
}

void AoeHostTest::TearDown() {
  if (!HasFailure()) std::filesystem::remove_all(dir_);
}

std::filesystem::path AoeHostTest::model(const std::string& name) { return std::filesystem::path(AOE_MODELS_DIR) / name; }

std::unique_ptr<ChildProcess> AoeHostTest::start_aoe_host(const std::vector<std::string>& args,
                                                          std::map<std::string, std::string> env) const {
  std::vector<std::string> argv = {AOE_HOST_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  env.emplace("TUNE_BANK_PATH", bank_.string());
  env.emplace("HOME", dir_.string());
  return std::make_unique<ChildProcess>(argv, dir_, env);
}

ProcessResult AoeHostTest::aoe_host(const std::vector<std::string>& args, std::map<std::string, std::string> env) const {
  return start_aoe_host(args, std::move(env))->wait();
}

std::vector<std::string> AoeHostTest::tune_args(const std::string& name, std::vector<std::string> extra) {
  std::vector<std::string> args = {"--plugin", "opat", "--device", "ascend910", "--model", model(name).string(),
                                   "--budget", "24"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

ProcessResult AoeHostTest::tune(const std::string& name, std::vector<std::string> extra,
                                std::map<std::string, std::string> env) const {
  return aoe_host(tune_args(name, std::move(extra)), std::move(env));
}

std::vector<std::filesystem::path> AoeHostTest::result_files() const {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir_))
    if (e.path().filename().string().rfind("aoe_result_", 0) == 0) out.push_back(e.path());
  return out;
}

nlohmann::json AoeHostTest::only_result_file() const {
  const auto files = result_files();
  EXPECT_EQ(files.size(), 1u);
  if (files.empty()) return nlohmann::json::array();
  std::ifstream in(files.front());
  return nlohmann::json::parse(in);
}

nlohmann::json AoeHostTest::only_result() const { return result_sections(only_result_file()); }

}  // namespace aoe::test
