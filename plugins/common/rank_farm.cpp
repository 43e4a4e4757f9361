#include "rank_farm.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include "aoe/sdk/error.h"

#ifdef AOE_RANK_FARM_WITH_MPI
#include "mpi_start.h"
#endif

namespace aoe::modes {
namespace {

using aoe::sdk::Error;
using aoe::sdk::StatusCode;

}  // namespace

#ifdef AOE_RANK_FARM_WITH_MPI

namespace {

enum Tag : int { task_tag = 1, stop_tag = 2, outcome_tag = 3, heartbeat_tag = 4 };

// MPI_ERRORS_RETURN is set on the world: a failed call (a peer gone, say)
// becomes an error naming the call, not an abort of every rank.
void check(int code, const char* call) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(StatusCode::internal, std::string(call) + " failed: " + std::string(text, static_cast<size_t>(length)));
}

TaskOutcome take_outcome(const MPI_Status& status) {
  if (status.MPI_TAG == heartbeat_tag) {
    char none = 0;
    check(MPI_Recv(&none, 0, MPI_CHAR, status.MPI_SOURCE, heartbeat_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
    TaskOutcome alive;
    alive.rank = status.MPI_SOURCE;
    alive.heartbeat = true;
    return alive;
  }
  int bytes = 0;
  MPI_Get_count(&status, MPI_CHAR, &bytes);
  std::string message(static_cast<size_t>(bytes), '\0');
  check(MPI_Recv(message.data(), bytes, MPI_CHAR, status.MPI_SOURCE, outcome_tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  TaskOutcome out;
  out.rank = status.MPI_SOURCE;
  if (message.size() < sizeof out.task)
    throw Error(StatusCode::internal, "rank " + std::to_string(out.rank) + " sent a task outcome without its task number");
  std::memcpy(&out.task, message.data(), sizeof out.task);
  out.outcome = message.substr(sizeof out.task);
  return out;
}

}  // namespace

std::unique_ptr<RankFarm> RankFarm::join(std::string& why_not) {
  const Launch launch = launch_from_environment();
  if (!launch.under_mpirun || launch.size < 2) return nullptr;
  if (!start_mpi(why_not)) return nullptr;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return std::unique_ptr<RankFarm>(new RankFarm(rank, size));
}

RankFarm::~RankFarm() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && !lost_a_rank_) MPI_Finalize();
}

std::vector<std::string> RankFarm::gather(const std::string& text) const {
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(rank_ == 0 ? size_ : 0), offsets(lengths.size());
  check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  int total = 0;
  for (size_t i = 0; i < lengths.size(); ++i) offsets[i] = std::exchange(total, total + lengths[i]);
  std::string all(static_cast<size_t>(total), '\0');
  check(MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0,
                    MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (size_t i = 0; i < lengths.size(); ++i)
    out.push_back(all.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lengths[i])));
  return out;
}

std::string RankFarm::broadcast(const std::string& text) const {
  unsigned long long length = text.size();
  check(MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
  std::string out = rank_ == 0 ? text : std::string(length, '\0');
  check(MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return out;
}

void RankFarm::assign(int rank, int64_t task) const {
  check(MPI_Send(&task, 1, MPI_INT64_T, rank, task_tag, MPI_COMM_WORLD), "MPI_Send");
}

void RankFarm::stop(int rank) const {
  int64_t none = -1;
  check(MPI_Send(&none, 1, MPI_INT64_T, rank, stop_tag, MPI_COMM_WORLD), "MPI_Send");
}

std::optional<TaskOutcome> RankFarm::poll() const {
  int arrived = 0;
  MPI_Status status;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
  if (!arrived) return std::nullopt;
  return take_outcome(status);
}

std::optional<TaskOutcome> RankFarm::receive(double timeout_s) const {
  // Probed, not blocked on: a blocking receive spins a core Open MPI shares
  // with the ranks being measured.
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (;;) {
    if (auto outcome = poll()) return outcome;
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::optional<int64_t> RankFarm::next_task() const {
  MPI_Status status;
  for (;;) {
    int arrived = 0;
    check(MPI_Iprobe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &arrived, &status), "MPI_Iprobe");
    if (arrived) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  int64_t task = -1;
  check(MPI_Recv(&task, 1, MPI_INT64_T, 0, status.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  if (status.MPI_TAG == stop_tag) return std::nullopt;
  return task;
}

void RankFarm::report(int64_t task, const std::string& outcome) const {
  std::string message(sizeof task, '\0');
  std::memcpy(message.data(), &task, sizeof task);
  message += outcome;
  check(MPI_Send(message.data(), static_cast<int>(message.size()), MPI_CHAR, 0, outcome_tag, MPI_COMM_WORLD), "MPI_Send");
}

void RankFarm::heartbeat() const {
  const double now = MPI_Wtime();
  if (now - last_heartbeat_s_ < 1.0) return;
  last_heartbeat_s_ = now;
  char none = 0;
  check(MPI_Send(&none, 0, MPI_CHAR, 0, heartbeat_tag, MPI_COMM_WORLD), "MPI_Send");
}

#else  // built without MPI

std::unique_ptr<RankFarm> RankFarm::join(std::string& why_not) {
  const Launch launch = launch_from_environment();
  if (!launch.under_mpirun || launch.size < 2) return nullptr;
  // Every rank would tune the whole model alone, into the same bank.
  why_not = "launched under mpirun with " + std::to_string(launch.size) +
            " ranks, but built without MPI (install libopenmpi-dev and rebuild), so the ranks cannot share the tasks";
  throw Error(StatusCode::unsupported, why_not);
}

RankFarm::~RankFarm() = default;
std::vector<std::string> RankFarm::gather(const std::string& text) const { return {text}; }
std::string RankFarm::broadcast(const std::string& text) const { return text; }
void RankFarm::assign(int, int64_t) const {}
void RankFarm::stop(int) const {}
std::optional<TaskOutcome> RankFarm::poll() const { return std::nullopt; }
std::optional<TaskOutcome> RankFarm::receive(double) const { return std::nullopt; }
std::optional<int64_t> RankFarm::next_task() const { return std::nullopt; }
void RankFarm::report(int64_t, const std::string&) const {}
void RankFarm::heartbeat() const {}

#endif

}  // namespace aoe::modes
