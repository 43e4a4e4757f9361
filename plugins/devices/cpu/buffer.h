// Float storage aligned to a cache line: packed panels, blocked tensors, outputs.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

namespace aoe::cpu {

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(int64_t count) { resize(count); }

  // Zero-filled; the old contents are dropped.
  void resize(int64_t count) {
    const size_t bytes = ((static_cast<size_t>(count > 0 ? count : 1) * sizeof(float) + 63) / 64) * 64;
    float* p = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!p) throw std::bad_alloc();
    std::memset(p, 0, bytes);
    data_.reset(p);
    size_ = count;
  }
  float* data() { return data_.get(); }
  const float* data() const { return data_.get(); }
  int64_t size() const { return size_; }
  size_t bytes() const { return static_cast<size_t>(size_) * sizeof(float); }

 private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
  int64_t size_ = 0;
};

}  // namespace aoe::cpu
