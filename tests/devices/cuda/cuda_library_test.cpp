// Finding libcuda.so.1, libnvrtc.so.* and libnvidia-ml.so.1 where users'
// installs put them, and opening them: the test double, and a library that
// is not the driver.
#include "cuda_library.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "aoe/sdk/error.h"
#include "cuda_test_support.h"

namespace aoe::cuda {
namespace {

namespace fs = std::filesystem;
using test::ScopedEnv;

const fs::path kDoubleLib = fs::path(AOE_CUDA_DOUBLE_HOME) / "lib64";

void touch(const fs::path& file) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << "";
}

// Each test searches from a clean environment, in a folder of its own.
class CudaLibraryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("aoe_cuda_library_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "home");
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  ScopedEnv home_{"HOME", "/nonexistent-aoe-home"};
  ScopedEnv cuda_home_{"CUDA_HOME", nullptr};
  ScopedEnv cuda_path_{"CUDA_PATH", nullptr};
  ScopedEnv ld_path_{"LD_LIBRARY_PATH", nullptr};
  ScopedEnv venv_{"VIRTUAL_ENV", nullptr};
  ScopedEnv conda_{"CONDA_PREFIX", nullptr};
};

TEST_F(CudaLibraryTest, TheOptionsWinWithoutASearch) {
  ScopedEnv home("CUDA_HOME", AOE_CUDA_DOUBLE_HOME);
  const auto p = find_cuda_libraries("/opt/x/libcuda.so.1", "/opt/y/libnvrtc.so.12");
  EXPECT_EQ(p.driver, "/opt/x/libcuda.so.1");
  EXPECT_EQ(p.nvrtc, "/opt/y/libnvrtc.so.12");
  EXPECT_TRUE(p.searched.empty());
}

TEST_F(CudaLibraryTest, CudaHomeFindsAllThree) {
  ScopedEnv home("CUDA_HOME", AOE_CUDA_DOUBLE_HOME);
  const auto p = find_cuda_libraries("", "");
  EXPECT_EQ(p.driver, kDoubleLib / "libcuda.so.1");
  EXPECT_EQ(p.nvrtc, kDoubleLib / "libnvrtc.so.13");
  EXPECT_EQ(p.nvml, kDoubleLib / "libnvidia-ml.so.1");
  ASSERT_FALSE(p.searched.empty());
  EXPECT_EQ(p.searched.front(), kDoubleLib);
}

TEST_F(CudaLibraryTest, CudaPathAndItsTargetsFolderAreSearchedToo) {
  touch(dir_ / "toolkit/targets/x86_64-linux/lib/libnvrtc.so.12");
  ScopedEnv path("CUDA_PATH", (dir_ / "toolkit").c_str());
  EXPECT_EQ(find_cuda_libraries("/x/libcuda.so.1", "").nvrtc, dir_ / "toolkit/targets/x86_64-linux/lib/libnvrtc.so.12");
}

TEST_F(CudaLibraryTest, LdLibraryPathIsSearchedInOrder) {
  touch(dir_ / "b/libcuda.so.1");
  touch(dir_ / "b/libnvrtc.so.12");
  touch(dir_ / "c/libnvrtc.so.13");
  const std::string list = (dir_ / "a").string() + "::" + (dir_ / "b").string() + ":" + (dir_ / "c").string();
  ScopedEnv ld("LD_LIBRARY_PATH", list.c_str());
  const auto p = find_cuda_libraries("", "");
  EXPECT_EQ(p.driver, dir_ / "b/libcuda.so.1");
  EXPECT_EQ(p.nvrtc, dir_ / "b/libnvrtc.so.12");  // the first folder holding one, not the highest anywhere
}

TEST_F(CudaLibraryTest, ReadsTheFoldersOfCudaLibrariesFromTheLoadersCache) {
  const std::string cache = std::string("glibc-ld.so.cache1.1\0\x02\x03\0\0", 25) + "libcuda.so.1" + '\0' +
                            "/opt/a/libcuda.so.1" + '\0' + "libfoo.so" + '\0' + "/opt/b/libfoo.so" + '\0' +
                            "/opt/c/libnvrtc.so.12" + '\0' + "/opt/d/libnvidia-ml.so.1" + '\0';
  std::ofstream(dir_ / "ld.so.cache", std::ios::binary) << cache;
  EXPECT_EQ(loader_cache_dirs(dir_ / "ld.so.cache"), (std::vector<fs::path>{"/opt/a", "/opt/c", "/opt/d"}));
  EXPECT_TRUE(loader_cache_dirs(dir_ / "missing").empty());
}

TEST_F(CudaLibraryTest, PrefersTheDriversLibcudaSo1ToAStubLibcudaSo) {
  touch(dir_ / "toolkit/lib64/stubs/libcuda.so");
  touch(dir_ / "driver/libcuda.so.1");
  const auto p = find_cuda_libraries_in({dir_ / "toolkit/lib64/stubs", dir_ / "driver"}, "", "");
  EXPECT_EQ(p.driver, dir_ / "driver/libcuda.so.1");
  EXPECT_EQ(find_cuda_libraries_in({dir_ / "toolkit/lib64/stubs"}, "", "").driver,
            dir_ / "toolkit/lib64/stubs/libcuda.so");
}

TEST_F(CudaLibraryTest, TakesTheHighestNvrtcMajorOfAFolder) {
  for (const char* name : {"libnvrtc.so", "libnvrtc.so.9", "libnvrtc.so.11", "libnvrtc.so.12", "libnvrtc.so.12.4.127",
                           "libnvrtc-builtins.so.14", "libnvrtc.so.x"})
    touch(dir_ / "lib" / name);
  EXPECT_EQ(nvrtc_in(dir_ / "lib"), dir_ / "lib/libnvrtc.so.12");
  touch(dir_ / "plain/libnvrtc.so");
  EXPECT_EQ(nvrtc_in(dir_ / "plain"), dir_ / "plain/libnvrtc.so");
  EXPECT_EQ(nvrtc_in(dir_ / "none"), fs::path());
}

TEST_F(CudaLibraryTest, SearchesPipsNvidiaFoldersOfPythonEnvironments) {
  touch(dir_ / "venv/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.12");
  touch(dir_ / "conda/lib/python3.10/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12");
  touch(dir_ / "home/.local/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib/libnvrtc.so.13");
  ScopedEnv venv("VIRTUAL_ENV", (dir_ / "venv").c_str());
  ScopedEnv conda("CONDA_PREFIX", (dir_ / "conda").c_str());
  ScopedEnv home("HOME", (dir_ / "home").c_str());
  const auto dirs = cuda_search_dirs();
  auto position = [&](const fs::path& d) { return std::find(dirs.begin(), dirs.end(), d) - dirs.begin(); };
  const auto venv_lib = dir_ / "venv/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib";
  const auto conda_lib = dir_ / "conda/lib/python3.10/site-packages/nvidia/cuda_runtime/lib";
  const auto home_lib = dir_ / "home/.local/lib/python3.11/site-packages/nvidia/cuda_nvrtc/lib";
  ASSERT_LT(position(venv_lib), position(conda_lib));
  ASSERT_LT(position(conda_lib), position(home_lib));
  ASSERT_LT(position(home_lib), static_cast<long>(dirs.size()));
  EXPECT_LT(position("/usr/local/cuda/lib64"), position(venv_lib));  // a toolkit install comes first
  // Alone, the environment's NVRTC is the one found.
  EXPECT_EQ(find_cuda_libraries_in({venv_lib, home_lib}, "", "").nvrtc, venv_lib / "libnvrtc.so.12");
}

TEST_F(CudaLibraryTest, SearchesTheUsualInstallFoldersAfterTheEnvironment) {
  ScopedEnv home("CUDA_HOME", "/opt/cuda-x");
  const auto dirs = cuda_search_dirs();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], "/opt/cuda-x/lib64");
  EXPECT_EQ(dirs[1], "/opt/cuda-x/targets/x86_64-linux/lib");
  for (const char* d : {"/usr/local/nvidia/lib64", "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                        "/usr/lib/x86_64-linux-gnu", "/lib"})
    EXPECT_NE(std::find(dirs.begin(), dirs.end(), d), dirs.end()) << d;
}

TEST_F(CudaLibraryTest, NotFoundSaysWhereItLookedAndWhatToDo) {
  const auto p = find_cuda_libraries_in({dir_ / "empty", "/nonexistent/cuda/lib64"}, "", "");
  EXPECT_TRUE(p.driver.empty());
  EXPECT_TRUE(p.nvrtc.empty());
  try {
    CudaLibraries libs(p);
    FAIL() << "opened nothing";
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::not_found);
    const std::string m = e.what();
    EXPECT_NE(m.find("libcuda.so.1"), std::string::npos) << m;
    EXPECT_NE(m.find((dir_ / "empty").string()), std::string::npos) << m;
    EXPECT_NE(m.find("/nonexistent/cuda/lib64"), std::string::npos) << m;
    EXPECT_NE(m.find("cuda_library="), std::string::npos) << m;
  }
  CudaLibraryPaths no_nvrtc = p;
  no_nvrtc.driver = kDoubleLib / "libcuda.so.1";
  try {
    CudaLibraries libs(no_nvrtc);
    FAIL() << "opened without NVRTC";
  } catch (const sdk::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("pip install nvidia-cuda-nvrtc-cu12"), std::string::npos) << m;
    EXPECT_NE(m.find("nvrtc_library="), std::string::npos) << m;
    EXPECT_NE(m.find("CUDA_HOME"), std::string::npos) << m;
  }
}

TEST_F(CudaLibraryTest, AnOptionNamingNoFileIsRefused) {
  try {
    CudaLibraries libs(find_cuda_libraries((dir_ / "libcuda.so.1").string(), (kDoubleLib / "libnvrtc.so.13").string()));
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("cuda_library " + (dir_ / "libcuda.so.1").string() + " does not exist"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(CudaLibraryTest, OpensTheDoubleWithEveryEntryPointResolved) {
  ScopedEnv home("CUDA_HOME", AOE_CUDA_DOUBLE_HOME);
  CudaLibraries libs(find_cuda_libraries("", ""));
  ASSERT_NE(libs.nvml(), nullptr);
#define AOE_EXPECT_RESOLVED(api, name) EXPECT_NE(reinterpret_cast<void*>(api.name), nullptr) << #name;
#define AOE_DRIVER(name, ret, params) AOE_EXPECT_RESOLVED(libs.driver(), name)
#define AOE_NVRTC(name, ret, params) AOE_EXPECT_RESOLVED(libs.nvrtc(), name)
#define AOE_NVML(name, ret, params) AOE_EXPECT_RESOLVED((*libs.nvml()), name)
  AOE_CUDA_DRIVER_ENTRY_POINTS(AOE_DRIVER)
  AOE_NVRTC_ENTRY_POINTS(AOE_NVRTC)
  AOE_NVML_ENTRY_POINTS(AOE_NVML)
#undef AOE_NVML
#undef AOE_NVRTC
#undef AOE_DRIVER
#undef AOE_EXPECT_RESOLVED
  EXPECT_EQ(libs.paths().nvrtc, kDoubleLib / "libnvrtc.so.13");
  EXPECT_EQ(cuda_error(libs.driver(), CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered");
  EXPECT_EQ(cuda_error(libs.driver(), 12345), "CUDA error 12345");
  EXPECT_EQ(nvrtc_error(libs.nvrtc(), NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
}

TEST_F(CudaLibraryTest, WithoutNvmlTheDeviceStillOpens) {
  fs::create_directories(dir_ / "driver");
  fs::create_symlink(kDoubleLib / "libcuda.so.1", dir_ / "driver/libcuda.so.1");
  CudaLibraries libs(find_cuda_libraries_in({dir_ / "driver"}, "", (kDoubleLib / "libnvrtc.so.13").string()));
  EXPECT_EQ(libs.paths().driver, dir_ / "driver/libcuda.so.1");
  EXPECT_EQ(libs.nvml(), nullptr);
  EXPECT_TRUE(libs.paths().nvml.empty());
}

TEST_F(CudaLibraryTest, RefusesALibraryLackingEntryPointsByName) {
  try {
    CudaLibraries libs(find_cuda_libraries(AOE_CUDA_EMPTY_LIBRARY, (kDoubleLib / "libnvrtc.so.13").string()));
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_EQ(e.code(), sdk::StatusCode::not_found);
    const std::string m = e.what();
    for (const char* part : {AOE_CUDA_EMPTY_LIBRARY, "cuInit", "cuLaunchKernel", "cuEventDestroy_v2"})
      EXPECT_NE(m.find(part), std::string::npos) << part << " in " << m;
  }
  try {
    CudaLibraries libs(find_cuda_libraries((kDoubleLib / "libcuda.so.1").string(), AOE_CUDA_EMPTY_LIBRARY));
    FAIL();
  } catch (const sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nvrtcCompileProgram"), std::string::npos) << e.what();
  }
}

TEST(CudaMissing, TheListingLineSaysUnavailable) { EXPECT_EQ(std::string(kCudaMissing).rfind("unavailable: ", 0), 0u); }

}  // namespace
}  // namespace aoe::cuda
