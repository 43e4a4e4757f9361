// The one atomic write: the old content or the new, never half, never a
// temporary left behind, and a write a signal interrupts carries on.
#include "aoe/sdk/atomic_file.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <fstream>
#include <iterator>
#include <thread>

namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& f) {
  std::ifstream in(f);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path scratch(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("aoe_atomic_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(AtomicFile, ReplacesTheContentAndLeavesNoTemporary) {
  const auto dir = scratch("replace");
  aoe::sdk::write_atomically(dir / "f.json", "old\n");
  aoe::sdk::write_atomically(dir / "f.json", "new\n");
  EXPECT_EQ(read(dir / "f.json"), "new\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
  fs::remove_all(dir);
}

TEST(AtomicFile, AFailedWriteKeepsTheOldContentAndNamesTheFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into a read-only directory: not checked as root";
  const auto dir = scratch("readonly");
  aoe::sdk::write_atomically(dir / "f.json", "old\n");
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
  try {
    aoe::sdk::write_atomically(dir / "f.json", "new\n");
    ADD_FAILURE() << "a write into a read-only directory succeeded";
  } catch (const aoe::sdk::Error& e) {
    EXPECT_NE(std::string(e.what()).find("f.json"), std::string::npos) << e.what();
  }
  fs::permissions(dir, fs::perms::owner_all);
  EXPECT_EQ(read(dir / "f.json"), "old\n");
  fs::remove_all(dir);
}

// A pipe read slowly while a timer interrupts the writer every 200 us, with
// no SA_RESTART: write(2) returns EINTR or short counts, and write_all carries on.
TEST(AtomicFile, WriteAllCarriesOnWhenASignalInterrupts) {
  struct sigaction action {}, old {};
  action.sa_handler = [](int) {};
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;
  ASSERT_EQ(::sigaction(SIGALRM, &action, &old), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::string content(4 << 20, '\0');
  for (size_t i = 0; i < content.size(); ++i) content[i] = static_cast<char>('a' + i % 26);
  std::string received;
  std::thread reader([&] {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) != 0) {
      if (n > 0) received.append(buf, static_cast<size_t>(n));
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  });
  struct itimerval timer {};
  timer.it_interval.tv_usec = timer.it_value.tv_usec = 200;
  ::setitimer(ITIMER_REAL, &timer, nullptr);
  const bool ok = aoe::sdk::write_all(fds[1], content);
  timer = {};
  ::setitimer(ITIMER_REAL, &timer, nullptr);
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  ::sigaction(SIGALRM, &old, nullptr);
  EXPECT_TRUE(ok);
  EXPECT_TRUE(received == content) << received.size() << " of " << content.size() << " bytes arrived intact";
}

}  // namespace
