// SPDX-License-Identifier: Apache-2.0
// The checked scatter and the first-error tracker every backward kernel uses.
//
// A stored index k names pixel k of its plane when 0 <= k < H*W; -1 means "the window had no
// input element" and is skipped; any other value is a data error, reported at the first position
// (in the operator's own flat order) where it occurs, while every valid gradient is still added.
#pragma once

#include <cstdint>

#include "aclnn/aclnn_base.h"

namespace poolgrad {

// The first data error of a kernel: each part keeps its own, the smallest position wins, so the
// report does not depend on how the work was split.
// This is the one data-error type of every kernel (src/core/plan.h): `datum` says which checked
// input it is (the plan's DatumText of that number prints it), `pos` is flat in that datum's grid.
struct FirstError {
  int64_t pos = -1;   // flat position of the bad index; -1: none
  int64_t value = 0;  // the value read (a real-valued datum stores its double's bits)
  int datum = 0;
  bool found() const { return pos >= 0; }
  void note(int64_t at, int64_t v) {
    if (pos < 0 || at < pos) {
      pos = at;
      value = v;
    }
  }
  void merge(const FirstError &o) {
    if (o.pos >= 0) note(o.pos, o.value);
  }
};

inline bool in_plane(int64_t k, int64_t hw) {
  return static_cast<uint64_t>(k) < static_cast<uint64_t>(hw);
}

// Read once: every caller datum that decides an address in phase 2 (an index, an argmax, a mask
// word, a RoI's batch index or box) is loaded by this one function, once, and the value it
// returns is both checked and used. A caller that changes its buffer while phase 2 runs can then
// change the numbers, never the addresses. A relaxed atomic load compiles to a plain load, but the
// compiler may not load the value a second time (which it may for a plain read, data races being
// undefined). Vector paths load the indices once into registers, pin them (pin_loaded), build
// the vector they check from them and take the addresses from them.
template <class T>
inline T load_once(const T *p) {
  T v;
  __atomic_load(p, &v, __ATOMIC_RELAXED);
  return v;
}

// A stored index of either dtype (INT32 or INT64) at p, loaded once.
inline int64_t load_index(const char *p, aclDataType idt) {
  return idt == ACL_INT32 ? load_once(reinterpret_cast<const int32_t *>(p))
                          : load_once(reinterpret_cast<const int64_t *>(p));
}
// The bytes of an index of dtype idt (INT32 or INT64).
inline int64_t index_size(aclDataType idt) {
  return idt == ACL_INT32 ? 4 : 8;
}
// v stored at p as an index of dtype idt (INT32 or INT64).
inline void store_index(char *p, aclDataType idt, int64_t v) {
  if (idt == ACL_INT32)
    *reinterpret_cast<int32_t *>(p) = static_cast<int32_t>(v);
  else
    *reinterpret_cast<int64_t *>(p) = v;
}

// Values loaded once (several at a time, for a vector check built from them): opaque to the
// optimiser from here on, so that the values checked and the values used as addresses are these
// registers and the compiler cannot replace them by a second load of the caller's memory.
template <class T>
inline void pin_one(T &v) {
  __asm__("" : "+r"(v));
}
template <class... T>
inline void pin_loaded(T &...v) {
  (pin_one(v), ...);
}

// The one place a loaded index becomes an address: plane[v] += g for v in the plane; -1 skipped;
// any other value noted at position pos. Takes the value, not where it came from.
inline void add_checked(float *plane, float g, int64_t v, int64_t hw, int64_t pos,
                        FirstError *err) {
  if (in_plane(v, hw))
    plane[v] += g;
  else if (v != -1)
    err->note(pos, v);
}

// plane[idx[k * istride]] += g[k] for k < n, in k order; -1 skipped; any other bad index noted at
// position pos0 + k. Each index is loaded once (load_once).
template <class I>
inline void scatter_checked(float *plane, const float *g, const I *idx, int64_t istride, int64_t n,
                            int64_t hw, int64_t pos0, FirstError *err) {
  int64_t k = 0;
  // Four at a time, with one test for four indices in the plane (the common case): a branch a
  // step instead of one an element, which also makes the loop insensitive to code alignment. The
  // adds stay in k order. (Measurements: docs/profiles.md, "Lab notes moved from the code".)
  for (int64_t steps = n / 4; steps > 0; --steps, k += 4) {
    const I *const q = idx + k * istride;
    const int64_t v[4] = {static_cast<int64_t>(load_once(q)),
                          static_cast<int64_t>(load_once(q + istride)),
                          static_cast<int64_t>(load_once(q + 2 * istride)),
                          static_cast<int64_t>(load_once(q + 3 * istride))};
    // (A bitwise and of the four tests, not &&: one branch, not four.)
    const unsigned inside = unsigned{in_plane(v[0], hw)} & unsigned{in_plane(v[1], hw)} &
                            unsigned{in_plane(v[2], hw)} & unsigned{in_plane(v[3], hw)};
    if (inside) {
      plane[v[0]] += g[k];
      plane[v[1]] += g[k + 1];
      plane[v[2]] += g[k + 2];
      plane[v[3]] += g[k + 3];
    } else {
      for (int j = 0; j < 4; ++j) add_checked(plane, g[k + j], v[j], hw, pos0 + k + j, err);
    }
  }
  for (; k < n; ++k)
    add_checked(plane, g[k], static_cast<int64_t>(load_once(idx + k * istride)), hw, pos0 + k, err);
}

}  // namespace poolgrad
