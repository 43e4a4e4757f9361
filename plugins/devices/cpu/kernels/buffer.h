// Float storage aligned to a cache line: packed panels, blocked tensors,
// outputs. Owns its memory, or uses memory placed by another (place()).
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
  void resize(int64_t count) { std::memset(allocate(count), 0, round_bytes(count)); }
  // Scratch written before it is read: left unfilled, so the pages no run
  // writes (a packing panel a config never uses) never become resident.
  static Buffer scratch(int64_t count) {
    Buffer b;
    b.allocate(count);
    return b;
  }
  // From now on the same count of floats at `at`, which another owns: its
  // own memory is freed. nullptr: none until placed again.
  void place(float* at) {
    own_.reset();
    data_ = at;
  }
  float* data() { return data_; }
  const float* data() const { return data_; }
  int64_t size() const { return size_; }
  size_t bytes() const { return static_cast<size_t>(size_) * sizeof(float); }

 private:
  static size_t round_bytes(int64_t count) {
    return ((static_cast<size_t>(count > 0 ? count : 1) * sizeof(float) + 63) / 64) * 64;
  }
  float* allocate(int64_t count) {
    float* p = static_cast<float*>(std::aligned_alloc(64, round_bytes(count)));
    if (!p) throw std::bad_alloc();
    own_.reset(p);
    data_ = p;
    size_ = count;
    return p;
  }
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> own_;
  float* data_ = nullptr;
  int64_t size_ = 0;
};

}  // namespace aoe::cpu
