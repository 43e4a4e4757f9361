// Starting MPI from inside a plugin; include only where mpi.h is found.
#pragma once

#include <dlfcn.h>
// The C API only: the deprecated C++ bindings would need libmpi_cxx too.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <string>

namespace aoe::modes {

// Initialises MPI unless something in the process already did. The host
// opens plugins with RTLD_LOCAL; Open MPI's own components then cannot see
// libmpi's symbols unless it is promoted to global first. Only the calling
// thread speaks MPI (FUNNELED). False, with why_not said, when it fails.
inline bool start_mpi(std::string& why_not) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return true;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&MPI_Init_thread), &info) && info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    why_not = "MPI_Init_thread failed";
    return false;
  }
  return true;
}

}  // namespace aoe::modes
