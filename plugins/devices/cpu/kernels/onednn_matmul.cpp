#include "onednn_matmul.h"

#include <unordered_map>
#include <vector>

#include "aoe/sdk/error.h"

namespace aoe::cpu {

#ifdef AOE_CPU_WITH_ONEDNN

namespace {

using dnnl::memory;

// Blocks of C as wide as oneDNN's micro-kernels.
constexpr int64_t kUnit = 16;

// One thread's block of C: rows [row, row + rows), cols [col, col + cols).
struct Part {
  int64_t row = 0, rows = 0, col = 0, cols = 0;
  dnnl::matmul matmul;
  dnnl::stream stream{onednn_engine()};
  memory a, b, c, scratchpad;  // the scratchpad: its thread's, at run
  size_t scratchpad_bytes = 0;
  memory::desc user_b;  // the part's columns of B as given
  bool shares_b = false;  // the first part's reordered B
  std::unordered_map<int, memory> args;  // made once: run() only points a, b and c
};

memory::desc strided(int64_t rows, int64_t cols, const StridedMatrix& layout) {
  return memory::desc({rows, cols}, memory::data_type::f32, memory::dims{layout.row_step, layout.col_step});
}

}  // namespace

struct OneDnnMatMul::State {
  StridedMatrix a, b;
  int64_t n = 0;
  bool b_constant = false;
  int threads = 1;
  std::vector<Part> parts;
};

OneDnnMatMul::OneDnnMatMul(int64_t m, int64_t n, int64_t k, const StridedMatrix& a, const StridedMatrix& b,
                           bool b_constant, int threads)
    : state_(std::make_unique<State>()) {
  onednn_one_thread();
  State& st = *state_;
  st.a = a;
  st.b = b;
  st.n = n;
  st.b_constant = b_constant;
  st.threads = threads;
  // The longer side of C in parts of whole blocks, one per thread.
  const bool by_rows = m > n;
  const int64_t side = by_rows ? m : n;
  const int parts = block_parts(side, kUnit, threads);
  const auto& e = onednn_engine();
  dnnl::primitive_attr attr;
  // Parts run at once: each takes its thread's scratchpad, not the library's shared one.
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  for (int t = 0; t < parts; ++t) {
    const auto [lo, hi] = block_part(side, kUnit, parts, t);
    Part p;
    p.row = by_rows ? lo : 0;
    p.rows = by_rows ? hi - lo : m;
    p.col = by_rows ? 0 : lo;
    p.cols = by_rows ? n : hi - lo;
    const memory::desc a_md = strided(p.rows, k, a), c_md({p.rows, p.cols}, memory::data_type::f32, memory::dims{n, 1});
    p.user_b = strided(k, p.cols, b);
    const memory::desc b_md = b_constant ? memory::desc({k, p.cols}, memory::data_type::f32, memory::format_tag::any) : p.user_b;
    dnnl::matmul::primitive_desc pd;
    try {
      pd = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a_md, b_md, c_md), attr, e);
    } catch (const dnnl::error& err) {
      throw sdk::Error(sdk::StatusCode::unsupported, std::string("oneDNN has no matmul for this product: ") + err.what());
    }
    if (std::string(pd.impl_info_str()).rfind("ref", 0) == 0)
      throw sdk::Error(sdk::StatusCode::unsupported, "oneDNN has only its reference matmul for this product");
    p.matmul = dnnl::matmul(pd);
    p.a = memory(pd.src_desc(), e, DNNL_MEMORY_NONE);
    p.c = memory(pd.dst_desc(), e, DNNL_MEMORY_NONE);
    p.scratchpad = memory(pd.scratchpad_desc(), e, DNNL_MEMORY_NONE);
    p.scratchpad_bytes = pd.scratchpad_desc().get_size();
    // Row parts read the same B: the first part's reordered copy where laid out alike.
    p.shares_b = b_constant && t > 0 && by_rows && st.parts[0].b.get_desc() == pd.weights_desc();
    if (p.shares_b) p.b = st.parts[0].b;
    else p.b = b_constant ? memory(pd.weights_desc(), e) : memory(pd.weights_desc(), e, DNNL_MEMORY_NONE);
    p.args = {{DNNL_ARG_SRC, p.a}, {DNNL_ARG_WEIGHTS, p.b}, {DNNL_ARG_DST, p.c}, {DNNL_ARG_SCRATCHPAD, p.scratchpad}};
    st.parts.push_back(std::move(p));
  }
}

OneDnnMatMul::~OneDnnMatMul() = default;

void OneDnnMatMul::set_weights(const float* b) {
  State& st = *state_;
  if (!st.b_constant) return;
  onednn_one_thread();
  for (Part& p : st.parts) {
    if (p.shares_b) continue;
    memory user(p.user_b, onednn_engine(), const_cast<float*>(b) + p.col * st.b.col_step);
    dnnl::reorder(user, p.b).execute(p.stream, user, p.b);
    p.stream.wait();
  }
}

void OneDnnMatMul::run(const float* a, const float* b, float* c, ThreadPool& pool, const PartDone& after) {
  State& st = *state_;
  pool.run(static_cast<int64_t>(st.parts.size()), st.threads, [&](int64_t i, int) {
    Part& p = st.parts[static_cast<size_t>(i)];
    p.a.set_data_handle(const_cast<float*>(a) + p.row * st.a.row_step);
    if (!st.b_constant) p.b.set_data_handle(const_cast<float*>(b) + p.col * st.b.col_step);
    p.c.set_data_handle(c + p.row * st.n + p.col);
    onednn_execute_here(p.matmul, p.stream, p.args, p.scratchpad, p.scratchpad_bytes);
    if (after) after(p.row, p.rows, p.col, p.cols);
  });
}

#else

struct OneDnnMatMul::State {};

OneDnnMatMul::OneDnnMatMul(int64_t, int64_t, int64_t, const StridedMatrix&, const StridedMatrix&, bool, int) {
  throw sdk::Error(sdk::StatusCode::unsupported, "this cpu device was built without oneDNN (libdnnl-dev)");
}
OneDnnMatMul::~OneDnnMatMul() = default;
void OneDnnMatMul::set_weights(const float*) {}
void OneDnnMatMul::run(const float*, const float*, float*, ThreadPool&, const PartDone&) {}

#endif

}  // namespace aoe::cpu
