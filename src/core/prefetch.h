// SPDX-License-Identifier: Apache-2.0
// Fetching the next block of input into L2 while the current one is computed, and the other
// cache-size rules of the kernels.
#pragma once

#include <algorithm>
#include <cstdint>

namespace poolgrad {

// Prefetches the cache lines of [p, p + bytes): Locality 3 is prefetcht0 (into L1), 2 is
// prefetcht1 (into L2).
template <int Locality>
inline void prefetch_bytes(const char *p, int64_t bytes) {
  for (int64_t off = 0; off < bytes; off += 64) __builtin_prefetch(p + off, 0, Locality);
}

// The lines of `bytes` bytes at `base`, spread over `steps` steps of the current block's work:
// step(k) fetches the k-th share. A kernel that reads a plane or volume at once and then computes
// on it otherwise waits on memory for every line at the start of each block. The hint is L2: the
// block being scanned keeps L1 (an L1 hint made vgg-pool1's forward slower).
// Kernels whose inputs are smaller than this (an L3 of a current server core complex) find them
// in cache when called repeatedly, and prefetching them only adds instructions.
constexpr int64_t kPrefetchMinBytes = int64_t(32) << 20;
// Backward calls touching at most this many bytes (gradOutput, indices and a float32 gradInput)
// find gradInput in cache from one call to the next: they scatter into it in place instead of
// into a scratch accumulator written out with streaming stores. Past it, zeroing gradInput in
// place first reads its lines from memory, unless gradInput alone is at most half of it (a
// quarter of the L3): gradOutput and the indices then stream past it and it stays.
// (Measurements: docs/profiles.md, "Lab notes moved from the code".)
constexpr int64_t kInPlaceMaxBytes = kPrefetchMinBytes / 2;

// Whether a backward uses its gradInput as its accumulator: a dense float32 one (the accumulator's
// own layout and dtype) that does not overlap itself, in a call whose `items` planes or volumes of
// `in_elems` float32 inputs and `out_elems` outputs (gradOutput + index bytes `out_bytes` each)
// stay within kInPlaceMaxBytes, or whose gradInput alone is at most half of that. One rule for the
// 2-D and 3-D backwards, in phase 1 (no scratch accumulator is reserved) and in the kernel.
inline bool scatter_in_place(bool dense_float32, bool serial, int64_t items, int64_t in_elems,
                             int64_t out_elems, int64_t out_bytes) {
  const int64_t gx = items * in_elems * 4;
  return dense_float32 && !serial &&
         (gx + items * out_elems * out_bytes <= kInPlaceMaxBytes || gx <= kInPlaceMaxBytes / 2);
}

class SpreadPrefetch {
 public:
  SpreadPrefetch() = default;
  SpreadPrefetch(const char *base, int64_t bytes, int64_t steps)
      : base_(base),
        lines_((bytes + 63) / 64),
        per_step_(steps > 0 ? (lines_ + steps - 1) / steps : 0) {}
  void step(int64_t k) const {
    for (int64_t l = k * per_step_; l < std::min(lines_, (k + 1) * per_step_); ++l)
      __builtin_prefetch(base_ + l * 64, 0, 2);
  }

 private:
  const char *base_ = nullptr;
  int64_t lines_ = 0, per_step_ = 0;
};

}  // namespace poolgrad
