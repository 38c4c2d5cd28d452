// SPDX-License-Identifier: Apache-2.0
// MaxUnpool kernels (2-D calls as volumes of depth 1). Each (n, c) plane is one item of
// parallel_for and is done by one thread in input order, so a position written twice (duplicate
// indices from overlapping windows) holds the later input's element whatever the thread count, as
// PyTorch's CPU kernel at one thread does. Every index is read once (load_once) and checked before
// it becomes an address.
#include "unpool_kernels.h"

#include <cstring>
#include <new>
#include <type_traits>

#include "../core/dtype.h"
#include "../core/scratch.h"
#include "../core/threads.h"

namespace poolgrad {

namespace {

// The address of element (n, c, z, y, x) of a view of element size es.
inline char *at(const Strided5 &t, int64_t es, int64_t n, int64_t c, int64_t z, int64_t y,
                int64_t x) {
  return t.base + (n * t.sn + c * t.sc + z * t.sd + y * t.sh + x * t.sw) * es;
}

// The address of flat position v of plane (n, c) (v over the plane's D x H x W, row-major).
inline char *at_flat(const Strided5 &t, int64_t es, int64_t n, int64_t c, int64_t v) {
  return at(t, es, n, c, v / (t.h * t.w), v / t.w % t.h, v % t.w);
}

// Whether each (n, c) plane of t is dense row-major (its flat position is an element offset).
inline bool plane_dense(const Strided5 &t) {
  return t.sw == 1 && (t.h == 1 || t.sh == t.w) && (t.d == 1 || t.sd == t.h * t.w);
}

// A plane's index, read once, as int64.
template <class I>
inline int64_t index_at(const Strided5 &idx, int64_t n, int64_t c, int64_t z, int64_t y,
                        int64_t x) {
  return static_cast<int64_t>(
      load_once(reinterpret_cast<const I *>(at(idx, sizeof(I), n, c, z, y, x))));
}

// The parts' first errors live in the workspace (phase 2 allocates nothing).
struct Errors {
  FirstError *first = nullptr;
  int parts = 0;
};
Errors errors_layout(Arena &a, const UnpoolParams &p, int64_t planes) {
  Errors e;
  e.parts = parts_for(planes, p.threads);
  e.first = a.take<FirstError>(e.parts);
  return e;
}

// Runs plane(n, c, &err) over every plane, one thread a plane; the first error of all.
template <class Plane>
FirstError for_planes(const UnpoolParams &p, const Strided5 &grid, void *workspace,
                      const Plane &plane) {
  const int64_t planes = grid.n * grid.c;
  Arena a(workspace, unpool_workspace(p, grid, grid, grid));
  const Errors e = errors_layout(a, p, planes);
  for (int t = 0; t < e.parts; ++t) new (&e.first[t]) FirstError();
  auto body = [&](int part, int64_t b, int64_t end) {
    for (int64_t q = b; q < end; ++q) plane(q / grid.c, q % grid.c, &e.first[part]);
  };
  parallel_for(planes, body, e.parts);
  FirstError bad;
  for (int t = 0; t < e.parts; ++t) bad.merge(e.first[t]);
  return bad;
}

// ---- the forward: zero-fill, then the scatter in input order ----
template <class T, class I>
void unpool_plane(const UnpoolParams &p, const Strided5 &x, const Strided5 &idx,
                  const Strided5 &out, int64_t n, int64_t c, FirstError *err) {
  const int64_t plane_size = p.out_d * p.out_h * p.out_w, es = sizeof(T);
  const bool dense = plane_dense(out);
  char *plane = at(out, es, n, c, 0, 0, 0);
  if (dense) {
    std::memset(plane, 0, static_cast<size_t>(plane_size * es));
  } else {
    for (int64_t v = 0; v < plane_size; ++v) std::memset(at_flat(out, es, n, c, v), 0, sizeof(T));
  }
  int64_t pos = (n * x.c + c) * x.d * x.h * x.w;  // the flat (n, c, z, y, x) position
  for (int64_t z = 0; z < x.d; ++z)
    for (int64_t y = 0; y < x.h; ++y)
      for (int64_t w = 0; w < x.w; ++w, ++pos) {
        const int64_t v = index_at<I>(idx, n, c, z, y, w);
        if (!in_plane(v, plane_size)) {
          err->note(pos, v);
          continue;
        }
        char *dst = dense ? plane + v * es : at_flat(out, es, n, c, v);
        std::memcpy(dst, at(x, es, n, c, z, y, w), sizeof(T));
      }
}

template <class T>
FirstError forward_typed(const UnpoolParams &p, const Strided5 &x, const Strided5 &idx,
                         const Strided5 &out, void *workspace) {
  return for_planes(p, x, workspace, [&](int64_t n, int64_t c, FirstError *err) {
    if (p.index_dtype == ACL_INT32)
      unpool_plane<T, int32_t>(p, x, idx, out, n, c, err);
    else
      unpool_plane<T, int64_t>(p, x, idx, out, n, c, err);
  });
}

// ---- the backward: a gather, converted to out's dtype where it differs ----
// Element conversions as PyTorch's CPU cast does them: floating values through float, integers
// and BOOL through int64 (an integer narrowed wraps; float16 from an integer rounds once, from
// its float value).
struct Half {
  uint16_t bits;
};
template <class S>
struct Wide {
  using type = int64_t;
};
template <>
struct Wide<float> {
  using type = float;
};
template <>
struct Wide<Half> {
  using type = float;
};

template <class S>
typename Wide<S>::type load_value(const char *p) {
  if constexpr (std::is_same<S, bool>::value) {
    // Read as a byte: a caller's BOOL byte other than 0 or 1 is true, not undefined behaviour.
    uint8_t b;
    std::memcpy(&b, p, 1);
    return b != 0;
  } else {
    S v;
    std::memcpy(&v, p, sizeof(S));
    if constexpr (std::is_same<S, Half>::value)
      return half_to_float(v.bits);
    else
      return static_cast<typename Wide<S>::type>(v);
  }
}

template <class D, class W>
void store_value(char *p, W v) {
  D d;
  if constexpr (std::is_same<D, Half>::value)
    d.bits = float_to_half(static_cast<float>(v));
  else if constexpr (std::is_same<D, bool>::value)
    d = v != 0;
  else
    d = static_cast<D>(v);
  std::memcpy(p, &d, sizeof(D));
}

using Convert = void (*)(const char *src, char *dst);
template <class S, class D>
void convert(const char *src, char *dst) {
  store_value<D>(dst, load_value<S>(src));
}
template <class S>
Convert convert_from(aclDataType to) {
  switch (to) {
    case ACL_FLOAT:
      return convert<S, float>;
    case ACL_FLOAT16:
      return convert<S, Half>;
    case ACL_INT8:
      return convert<S, int8_t>;
    case ACL_UINT8:
      return convert<S, uint8_t>;
    case ACL_INT16:
      return convert<S, int16_t>;
    case ACL_INT32:
      return convert<S, int32_t>;
    case ACL_INT64:
      return convert<S, int64_t>;
    case ACL_BOOL:
      return convert<S, bool>;
    default:
      return nullptr;
  }
}
Convert converter(aclDataType from, aclDataType to) {
  switch (from) {
    case ACL_FLOAT:
      return convert_from<float>(to);
    case ACL_FLOAT16:
      return convert_from<Half>(to);
    case ACL_INT8:
      return convert_from<int8_t>(to);
    case ACL_UINT8:
      return convert_from<uint8_t>(to);
    case ACL_INT16:
      return convert_from<int16_t>(to);
    case ACL_INT32:
      return convert_from<int32_t>(to);
    case ACL_INT64:
      return convert_from<int64_t>(to);
    case ACL_BOOL:
      return convert_from<bool>(to);
    default:
      return nullptr;
  }
}

// One plane of the gather: `move` copies (or converts) one element.
template <class I, class Move>
void gather_plane(const UnpoolParams &p, const Strided5 &gy, const Strided5 &idx,
                  const Strided5 &out, int64_t n, int64_t c, int64_t es_in, int64_t es_out,
                  const Move &move, FirstError *err) {
  const int64_t plane_size = p.out_d * p.out_h * p.out_w;
  const bool dense = plane_dense(gy);
  const char *plane = at(gy, es_in, n, c, 0, 0, 0);
  int64_t pos = (n * out.c + c) * out.d * out.h * out.w;
  for (int64_t z = 0; z < out.d; ++z)
    for (int64_t y = 0; y < out.h; ++y)
      for (int64_t w = 0; w < out.w; ++w, ++pos) {
        const int64_t v = index_at<I>(idx, n, c, z, y, w);
        if (!in_plane(v, plane_size)) {
          err->note(pos, v);
          continue;
        }
        move(dense ? plane + v * es_in : at_flat(gy, es_in, n, c, v),
             at(out, es_out, n, c, z, y, w));
      }
}

template <class Move>
FirstError backward_with(const UnpoolParams &p, const Strided5 &gy, const Strided5 &idx,
                         const Strided5 &out, void *workspace, const Move &move) {
  const int64_t es_in = dtype_size(p.dtype), es_out = dtype_size(p.out_dtype);
  return for_planes(p, out, workspace, [&](int64_t n, int64_t c, FirstError *err) {
    if (p.index_dtype == ACL_INT32)
      gather_plane<int32_t>(p, gy, idx, out, n, c, es_in, es_out, move, err);
    else
      gather_plane<int64_t>(p, gy, idx, out, n, c, es_in, es_out, move, err);
  });
}

template <class T>
void copy_element(const char *src, char *dst) {
  std::memcpy(dst, src, sizeof(T));
}

}  // namespace

int64_t unpool_workspace(const UnpoolParams &p, const Strided5 &a, const Strided5 &,
                         const Strided5 &) {
  Arena arena;
  errors_layout(arena, p, a.n * a.c);
  return arena.used();
}

FirstError unpool_forward(const UnpoolParams &p, const Strided5 &self, const Strided5 &idx,
                          const Strided5 &out, void *workspace) {
  switch (dtype_size(p.dtype)) {  // the element's bits, whatever they mean
    case 1:
      return forward_typed<uint8_t>(p, self, idx, out, workspace);
    case 2:
      return forward_typed<uint16_t>(p, self, idx, out, workspace);
    case 4:
      return forward_typed<uint32_t>(p, self, idx, out, workspace);
    default:
      return forward_typed<uint64_t>(p, self, idx, out, workspace);
  }
}

FirstError unpool_backward(const UnpoolParams &p, const Strided5 &grad_out, const Strided5 &idx,
                           const Strided5 &out, void *workspace) {
  if (p.dtype != p.out_dtype) {
    const Convert cv = converter(p.dtype, p.out_dtype);  // phase 1 checked the pair
    return backward_with(p, grad_out, idx, out, workspace, cv);
  }
  switch (dtype_size(p.dtype)) {
    case 1:
      return backward_with(p, grad_out, idx, out, workspace, copy_element<uint8_t>);
    case 2:
      return backward_with(p, grad_out, idx, out, workspace, copy_element<uint16_t>);
    case 4:
      return backward_with(p, grad_out, idx, out, workspace, copy_element<uint32_t>);
    default:
      return backward_with(p, grad_out, idx, out, workspace, copy_element<uint64_t>);
  }
}

bool unpool_can_cast(aclDataType from, aclDataType to) {
  const auto floating = [](aclDataType t) {
    return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_DOUBLE || t == ACL_BF16;
  };
  if (floating(from) && !floating(to)) return false;
  if (to == ACL_BOOL && from != ACL_BOOL) return false;
  return true;
}

}  // namespace poolgrad
