// What the launcher says about this process: whether mpirun started it, its
// rank and the number of ranks (Open MPI, PMIx, MPICH/PMI, MVAPICH), read
// from the environment, so that code built without MPI can tell too.
#pragma once

#include <cstdlib>
#include <utility>

namespace aoe::modes {

struct Launch {
  bool under_mpirun = false;
  int rank = 0;
  int size = 1;
};

inline Launch launch_from_environment() {
  const auto number = [](const char* name, int fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::atoi(v) : fallback;
  };
  const std::pair<const char*, const char*> vars[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                                      {"PMIX_RANK", "PMIX_SIZE"},
                                                      {"PMI_RANK", "PMI_SIZE"},
                                                      {"MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE"}};
  for (const auto& [rank, size] : vars)
    if (std::getenv(rank)) return {true, number(rank, 0), number(size, 1)};
  return {};
}

}  // namespace aoe::modes
