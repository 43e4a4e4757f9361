// An NVIDIA GPU as a device: candidates compiled by NVRTC in worker
// processes, checked and timed with CUDA events in the GPU worker, on a
// Kernel Tuner problem (the `problem` option) or on MatMul/Gemm ops through
// aoe's GEMM template. The bank's soc folder is the GPU's name.
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>

#include "aoe/sdk/component.h"
#include "aoe/sdk/device.h"
#include "cachefile.h"
#include "cuda_task.h"
#include "t1_problem.h"

namespace aoe::cuda {

// The text `aoe-host plugins` shows: the GPU and the libraries, or why the
// device is unavailable.
std::string listing_summary();

// The GPU's name as a folder name: "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3".
std::string soc_folder_name(const std::string& gpu_name);

class CudaDevice final : public sdk::Device {
 public:
  // Throws sdk::Error(not_found) naming what is missing: the driver, NVRTC,
  // a GPU, or the worker.
  explicit CudaDevice(const sdk::CreateArgs& args);
  ~CudaDevice() override;

  nlohmann::json describe() const override;
  // A task whose op_type is the problem's kernel, or MatMul/Gemm; any other
  // op is unsupported (OPAT lists it untimed).
  std::unique_ptr<sdk::DeviceTask> prepare(const sdk::OpTask& task) override;
  // The whole model on the GPU (cuda_model_run.h).
  nlohmann::json run_graph(const sdk::GraphRun& run, const std::vector<sdk::TensorView>& inputs,
                           const std::vector<sdk::TensorView>& outputs) override;

  struct Recording;

 private:
  replay::Cachefile cachefile_header() const;

  std::shared_ptr<CudaContext> context_;
  nlohmann::json libraries_;
  std::shared_ptr<const T1Problem> problem_;  // the `problem` option's, read once
  std::shared_ptr<Recording> recording_;
};

}  // namespace aoe::cuda
