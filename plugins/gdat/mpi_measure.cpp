#include "mpi_measure.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <thread>

#ifdef AOE_GDAT_WITH_MPI
#include "mpi_start.h"
#endif

namespace aoe::gdat {
namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

#ifdef AOE_GDAT_WITH_MPI

bool measurement_built() { return true; }

std::unique_ptr<MpiWorld> MpiWorld::join(std::string& why_not) {
  if (!launch_from_environment().under_mpirun) {
    why_not = "not launched under mpirun";
    return nullptr;
  }
  if (!modes::start_mpi(why_not)) return nullptr;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    MPI_Finalize();
    why_not = "a single rank: nothing to allreduce with (mpirun -np 2 or more)";
    return nullptr;
  }
  return std::unique_ptr<MpiWorld>(new MpiWorld(rank, size));
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::string MpiWorld::broadcast(const std::string& text) const {
  unsigned long long length = text.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  std::string out = rank_ == 0 ? text : std::string(length, '\0');
  MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
  return out;
}

std::vector<TablePoint> MpiWorld::calibrate(const std::vector<double>& sizes, int repeats) const {
  double largest = 0;
  for (double s : sizes) largest = std::max(largest, s);
  std::vector<float> buffer(static_cast<size_t>(largest / sizeof(float)) + 1, 0.0f);
  std::vector<TablePoint> out;
  for (double bytes : sizes) {
    const int count = std::max(1, static_cast<int>(bytes / sizeof(float)));
    std::vector<double> times;
    for (int r = 0; r <= repeats; ++r) {  // the first is a warm-up
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      // The replay's own call: a non-blocking allreduce may take another algorithm than the blocking one.
      MPI_Request request;
      MPI_Iallreduce(MPI_IN_PLACE, buffer.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      double us = (MPI_Wtime() - t0) * 1e6;
      MPI_Allreduce(MPI_IN_PLACE, &us, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r > 0) times.push_back(us);
    }
    out.push_back({static_cast<double>(count) * sizeof(float), median(times)});
  }
  // The interpolated cost must not fall with size; measurement noise may make it.
  for (size_t i = 1; i < out.size(); ++i) out[i].us = std::max(out[i].us, out[i - 1].us);
  return out;
}

ReplayResult MpiWorld::replay(const GradientProfile& profile, const Split& split, int warmup, int steps,
                              const std::function<bool()>& cancelled) const {
  // One buffer, each segment a view of it, as DDP's gradient_as_bucket_view.
  std::vector<int> counts;
  std::vector<size_t> offsets;
  std::vector<double> ready;
  size_t total = 0, first = 0;
  for (size_t end : split) {
    uint64_t bytes = 0;
    for (size_t i = first; i <= end; ++i) bytes += profile.grads[i].bytes;
    counts.push_back(static_cast<int>((bytes + sizeof(float) - 1) / sizeof(float)));
    offsets.push_back(total);
    total += static_cast<size_t>(counts.back());
    ready.push_back(profile.grads[end].ready_us);
    first = end + 1;
  }
  std::vector<float> buffer(total, 0.0f);  // zeros stay zeros, however often summed
  ReplayResult result;
  std::vector<MPI_Request> requests(split.size(), MPI_REQUEST_NULL);
  std::vector<int> finished(split.size());
  for (int step = 0; step < warmup + steps; ++step) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    auto now_us = [&] { return (MPI_Wtime() - t0) * 1e6; };
    double comm_end = 0;
    size_t issued = 0, done = 0;
    // Backward is replayed by the clock: a segment's allreduce is issued once its
    // last gradient is ready. MPI progresses requests only inside its calls, so
    // the wait polls them, as a framework's communication thread does.
    while (done < split.size()) {
      if (issued < split.size() && now_us() >= ready[issued]) {
        MPI_Iallreduce(MPI_IN_PLACE, buffer.data() + offsets[issued], counts[issued], MPI_FLOAT, MPI_SUM,
                       MPI_COMM_WORLD, &requests[issued]);
        ++issued;
        continue;
      }
      if (done < issued) {
        int count = 0;
        MPI_Testsome(static_cast<int>(issued), requests.data(), &count, finished.data(), MPI_STATUSES_IGNORE);
        if (count > 0 && count != MPI_UNDEFINED) {
          done += static_cast<size_t>(count);
          comm_end = now_us();
        }
      } else if (ready[issued] - now_us() > 200) {
        std::this_thread::sleep_for(std::chrono::microseconds(static_cast<int64_t>(ready[issued] - now_us() - 100)));
      }
    }
    double figures[2] = {comm_end, rank_ == 0 && cancelled && cancelled() ? 1.0 : 0.0};
    MPI_Allreduce(MPI_IN_PLACE, figures, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (step >= warmup) result.steps_us.push_back(figures[0]);
    if (figures[1] > 0) {
      result.cancelled = true;
      break;
    }
  }
  result.comm_end_us = median(result.steps_us);
  result.tail_us = std::max(0.0, result.comm_end_us - profile.backward_us);
  return result;
}

#else  // built without MPI

bool measurement_built() { return false; }

std::unique_ptr<MpiWorld> MpiWorld::join(std::string& why_not) {
  why_not = launch_from_environment().under_mpirun
                ? "the gdat plugin was built without MPI (install libopenmpi-dev and rebuild): measurement unavailable"
                : "not launched under mpirun";
  return nullptr;
}

MpiWorld::~MpiWorld() = default;
std::string MpiWorld::broadcast(const std::string& text) const { return text; }
std::vector<TablePoint> MpiWorld::calibrate(const std::vector<double>&, int) const { return {}; }
ReplayResult MpiWorld::replay(const GradientProfile&, const Split&, int, int, const std::function<bool()>&) const {
  return {};
}

#endif

}  // namespace aoe::gdat
