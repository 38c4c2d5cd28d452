// SPDX-License-Identifier: Apache-2.0
// MaxUnpool kernels (2-D calls as volumes of depth 1). Each (n, c) plane is one item of
// parallel_for and is done by one thread in input order, so a position written twice (duplicate
// indices from overlapping windows) holds the later input's element whatever the thread count, as
// PyTorch's CPU kernel at one thread does. Every index is read once (load_once) and checked before
// it becomes an address.
#include "unpool_kernels.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <type_traits>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

#include "../core/dtype.h"
#include "../core/parts.h"
#include "../core/prefetch.h"

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

// Runs plane(n, c, &err) over every plane, one thread a plane (core/parts.h: the parts' first
// errors in the workspace, no scratch); the first error of all. Without a workspace: its bytes.
template <class Plane>
int64_t for_planes(const UnpoolParams &p, const Strided5 &grid, void *workspace, const Plane &plane,
                   FirstError *bad) {
  return run_parts(
      p.threads, grid.n * grid.c, workspace, [](Arena &) {},
      [&](int64_t b, int64_t e, Arena, FirstError *err) {
        for (int64_t q = b; q < e; ++q) plane(q / grid.c, q % grid.c, err);
      },
      bad);
}

// ---- the forward: zero-fill, then the scatter in input order ----
// A row of the scatter from consecutive input and index elements into a dense plane: every
// stride the element's size, known here, so the loop has no multiply (out of line, so that its
// bounds stay in registers; docs/profiles.md, the gather's twin).
template <class T, class I>
__attribute__((noinline)) void scatter_row_contiguous(char *plane, const char *xr, const I *ir,
                                                      int64_t width, int64_t plane_size,
                                                      int64_t pos, FirstError *err) {
  for (int64_t w = 0; w < width; ++w) {
    const int64_t v = static_cast<int64_t>(load_once(ir + w));
    if (__builtin_expect(!in_plane(v, plane_size), 0))
      err->note(pos + w, v);
    else
      std::memcpy(plane + v * sizeof(T), xr + w * sizeof(T), sizeof(T));
  }
}

// Rows of the input and the indices are walked with byte strides (or by the loop above where both
// are consecutive); an index addresses the output plane directly where the plane is dense (the
// usual case), through its strides otherwise.
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
  const int64_t xs = x.sw * es, is = idx.sw * static_cast<int64_t>(sizeof(I));
  int64_t pos = (n * x.c + c) * x.d * x.h * x.w;  // the flat (n, c, z, y, x) position
  for (int64_t z = 0; z < x.d; ++z)
    for (int64_t y = 0; y < x.h; ++y, pos += x.w) {
      const char *xr = at(x, es, n, c, z, y, 0), *ir = at(idx, sizeof(I), n, c, z, y, 0);
      if (dense && xs == es && is == static_cast<int64_t>(sizeof(I))) {
        scatter_row_contiguous<T, I>(plane, xr, reinterpret_cast<const I *>(ir), x.w, plane_size,
                                     pos, err);
        continue;
      }
      for (int64_t w = 0; w < x.w; ++w) {
        const int64_t v = static_cast<int64_t>(load_once(reinterpret_cast<const I *>(ir + w * is)));
        if (!in_plane(v, plane_size)) {
          err->note(pos + w, v);
          continue;
        }
        std::memcpy(dense ? plane + v * es : at_flat(out, es, n, c, v), xr + w * xs, sizeof(T));
      }
    }
}

template <class T>
FirstError forward_typed(const UnpoolParams &p, const Strided5 &x, const Strided5 &idx,
                         const Strided5 &out, void *workspace) {
  FirstError bad;
  for_planes(
      p, x, workspace,
      [&](int64_t n, int64_t c, FirstError *err) {
        if (p.index_dtype == ACL_INT32)
          unpool_plane<T, int32_t>(p, x, idx, out, n, c, err);
        else
          unpool_plane<T, int64_t>(p, x, idx, out, n, c, err);
      },
      &bad);
  return bad;
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

#if defined(__x86_64__) || defined(__i386__)
// Prefetching for the AVX2 gather. The indices of a max pool (the usual caller) rise through
// each depth slice of the unpooled plane about in proportion to the output position, skipping
// rows, which the hardware prefetcher does not follow: each gather instruction then waits for its
// slowest lane's miss. Touching where the gather is expected to be kAhead elements on keeps the
// misses overlapped (docs/profiles.md). The guess comes from the shapes alone: it reads no caller
// datum, and a wrong one costs a useless prefetch (which cannot fault), never a wrong address. The
// scalar loop, whose loads overlap by themselves, measured slower with it.
constexpr int64_t kAhead = 512;
struct Ahead {
  const char *plane;
  int64_t es, last;  // element size; the plane's last position
  double at, ratio;  // the run's first output's expected position; plane elements per output
  // Inlined always: GCC 12 finds a function whose only effect is a prefetch pure, and drops the
  // calls to it (no prefetch instruction was emitted at -O1 and above).
  __attribute__((always_inline)) void touch(int64_t k) const {
    const int64_t v = static_cast<int64_t>(at + static_cast<double>(k) * ratio) + kAhead;
    _mm_prefetch(plane + std::min(v, last) * es, _MM_HINT_T0);
  }
};

// A row of the gather of 4-byte elements, dense everywhere, with AVX2: each group of indices is
// loaded once into a register and pinned there (the compiler may not load them again), checked
// as a vector and gathered from the same register; a group with an index outside the plane is
// done lane by lane from the register's copy, the bad lanes noted. Returns the count done (the
// tail is the caller's).
template <class I>
__attribute__((target("avx2"))) int64_t gather_row_avx2(const char *plane, const I *ir, char *orow,
                                                        int64_t n, int64_t plane_size, int64_t pos,
                                                        FirstError *err, const Ahead &ahead) {
  constexpr int kLanes = sizeof(I) == 8 ? 4 : 8;
  const int64_t top = std::min<int64_t>(plane_size - 1, sizeof(I) == 8 ? INT64_MAX : INT32_MAX);
  const __m256i lim =
      sizeof(I) == 8 ? _mm256_set1_epi64x(top) : _mm256_set1_epi32(static_cast<int32_t>(top));
  const __m256i zero = _mm256_setzero_si256();
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    ahead.touch(k);
    __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i *>(ir + k));
    __asm__("" : "+x"(v));  // pinned: the checked and the used values are this register
    const __m256i bad =
        sizeof(I) == 8 ? _mm256_or_si256(_mm256_cmpgt_epi64(zero, v), _mm256_cmpgt_epi64(v, lim))
                       : _mm256_or_si256(_mm256_cmpgt_epi32(zero, v), _mm256_cmpgt_epi32(v, lim));
    if (_mm256_testz_si256(bad, bad)) {
      if constexpr (sizeof(I) == 8)
        _mm_storeu_si128(reinterpret_cast<__m128i *>(orow + 4 * k),
                         _mm256_i64gather_epi32(reinterpret_cast<const int *>(plane), v, 4));
      else
        _mm256_storeu_si256(reinterpret_cast<__m256i *>(orow + 4 * k),
                            _mm256_i32gather_epi32(reinterpret_cast<const int *>(plane), v, 4));
      continue;
    }
    alignas(32) I lanes[kLanes];
    _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), v);
    for (int j = 0; j < kLanes; ++j) {
      const int64_t at_v = static_cast<int64_t>(lanes[j]);
      if (in_plane(at_v, plane_size))
        std::memcpy(orow + 4 * (k + j), plane + 4 * at_v, 4);
      else
        err->note(pos + k + j, at_v);
    }
  }
  return k;
}
#endif

// The same-dtype element move, inlined into the gather (a function pointer would cost a call an
// element).
template <class T>
struct CopyElement {
  void operator()(const char *src, char *dst) const { std::memcpy(dst, src, sizeof(T)); }
};
template <class Move>
struct is_copy : std::false_type {};
template <class T>
struct is_copy<CopyElement<T>> : std::true_type {
  using type = T;
};

// Elements [w, width) of a row of the gather from a dense plane. Every bound and stride is a
// local: the stores go through char pointers, which may alias anything, and with the bounds read
// through the views the compiler kept the loop's pointers on the stack, a store-to-load chain
// each element that made this loop three times slower than the loads it waits for. Not inlined:
// inlined into the plane loop, GCC 12 spilled them to the stack again and reloaded five of them
// every element (segnet-decoder's gather at 1 thread 0.198 -> 0.131 ms out of line).
template <class I, class Move>
__attribute__((noinline)) void gather_row_dense(const char *plane, const char *ir, int64_t is,
                                                char *orow, int64_t os, int64_t w, int64_t width,
                                                int64_t plane_size, int64_t es_in, int64_t pos,
                                                const Move &move, FirstError *err) {
  for (; w < width; ++w) {
    const int64_t v = static_cast<int64_t>(load_once(reinterpret_cast<const I *>(ir + w * is)));
    if (__builtin_expect(!in_plane(v, plane_size), 0))
      err->note(pos + w, v);
    else
      move(plane + v * es_in, orow + w * os);
  }
}

// The same for index and output rows of consecutive elements and an element copied as it is:
// every stride is the element's size, known here, so the loop has no multiply.
template <class I, class T>
__attribute__((noinline)) void gather_row_contiguous(const char *plane, const I *ir, char *orow,
                                                     int64_t w, int64_t width, int64_t plane_size,
                                                     int64_t pos, FirstError *err) {
  const auto one = [&](int64_t k, int64_t v) {  // one element, its index checked
    if (__builtin_expect(!in_plane(v, plane_size), 0))
      err->note(pos + k, v);
    else
      std::memcpy(orow + k * sizeof(T), plane + v * sizeof(T), sizeof(T));
  };
  // Four elements a step with one test of their indices (each read once into a local).
  for (; w + 4 <= width; w += 4) {
    const int64_t v0 = static_cast<int64_t>(load_once(ir + w)),
                  v1 = static_cast<int64_t>(load_once(ir + w + 1)),
                  v2 = static_cast<int64_t>(load_once(ir + w + 2)),
                  v3 = static_cast<int64_t>(load_once(ir + w + 3));
    const unsigned inside = unsigned{in_plane(v0, plane_size)} &
                            unsigned{in_plane(v1, plane_size)} &
                            unsigned{in_plane(v2, plane_size)} & unsigned{in_plane(v3, plane_size)};
    if (__builtin_expect(!inside, 0)) {
      one(w, v0);
      one(w + 1, v1);
      one(w + 2, v2);
      one(w + 3, v3);
      continue;
    }
    std::memcpy(orow + w * sizeof(T), plane + v0 * sizeof(T), sizeof(T));
    std::memcpy(orow + (w + 1) * sizeof(T), plane + v1 * sizeof(T), sizeof(T));
    std::memcpy(orow + (w + 2) * sizeof(T), plane + v2 * sizeof(T), sizeof(T));
    std::memcpy(orow + (w + 3) * sizeof(T), plane + v3 * sizeof(T), sizeof(T));
  }
  for (; w < width; ++w) one(w, static_cast<int64_t>(load_once(ir + w)));
}

// One plane of the gather: `move` copies (or converts) one element. A depth slice whose index
// and output rows follow each other is one run (fewer, longer runs for the AVX2 loop), otherwise
// each row is.
template <class I, class Move>
void gather_plane(const UnpoolParams &p, const Strided5 &gy, const Strided5 &idx,
                  const Strided5 &out, int64_t n, int64_t c, int64_t es_in, int64_t es_out,
                  const Move &move, FirstError *err) {
  const int64_t plane_size = p.out_d * p.out_h * p.out_w, slice_size = p.out_h * p.out_w;
  const bool dense = plane_dense(gy);
  const char *plane = at(gy, es_in, n, c, 0, 0, 0);
  const int64_t os = out.sw * es_out, is = idx.sw * static_cast<int64_t>(sizeof(I));
  const bool slice_runs = (out.h == 1 || (out.sh == out.w * out.sw && idx.sh == out.w * idx.sw));
  const int64_t run = slice_runs ? out.h * out.w : out.w;
  // The AVX2 row (chosen only where unpool_gather_vector held: its applies column). The ratios
  // of the unpooled plane to out are its prefetch guess's.
  const bool vector = has_avx2(p.isa);
  const int64_t rd = p.out_d / std::max<int64_t>(1, out.d);
  const double ratio =
      static_cast<double>(slice_size) / static_cast<double>(std::max<int64_t>(1, out.h * out.w));
  int64_t pos = (n * out.c + c) * out.d * out.h * out.w;
  for (int64_t z = 0; z < out.d; ++z)
    for (int64_t y = 0; y < out.h; y += slice_runs ? out.h : 1, pos += run) {
      char *orow = at(out, es_out, n, c, z, y, 0);
      const char *ir = at(idx, sizeof(I), n, c, z, y, 0);
      int64_t w = 0;
#if defined(__x86_64__) || defined(__i386__)
      if (vector) {
        const Ahead ahead{
            plane, es_in, plane_size - 1,
            static_cast<double>(z * rd * slice_size) + static_cast<double>(y * out.w) * ratio,
            ratio};
        w = gather_row_avx2<I>(plane, reinterpret_cast<const I *>(ir), orow, run, plane_size, pos,
                               err, ahead);
      }
#else
      (void)vector;
      (void)rd;
      (void)ratio;
#endif
      if constexpr (is_copy<Move>::value) {
        using T = typename is_copy<Move>::type;
        if (dense && is == sizeof(I) && os == sizeof(T)) {
          gather_row_contiguous<I, T>(plane, reinterpret_cast<const I *>(ir), orow, w, run,
                                      plane_size, pos, err);
          continue;
        }
      }
      if (dense)
        gather_row_dense<I>(plane, ir, is, orow, os, w, run, plane_size, es_in, pos, move, err);
      else
        for (; w < run; ++w) {
          const int64_t v =
              static_cast<int64_t>(load_once(reinterpret_cast<const I *>(ir + w * is)));
          if (!in_plane(v, plane_size)) {
            err->note(pos + w, v);
            continue;
          }
          move(at_flat(gy, es_in, n, c, v), orow + w * os);
        }
    }
}

template <class Move>
FirstError backward_with(const UnpoolParams &p, const Strided5 &gy, const Strided5 &idx,
                         const Strided5 &out, void *workspace, const Move &move) {
  const int64_t es_in = dtype_size(p.dtype), es_out = dtype_size(p.out_dtype);
  FirstError bad;
  for_planes(
      p, out, workspace,
      [&](int64_t n, int64_t c, FirstError *err) {
        if (p.index_dtype == ACL_INT32)
          gather_plane<int32_t>(p, gy, idx, out, n, c, es_in, es_out, move, err);
        else
          gather_plane<int64_t>(p, gy, idx, out, n, c, es_in, es_out, move, err);
      },
      &bad);
  return bad;
}

}  // namespace

int64_t unpool_workspace(const UnpoolParams &p, const Strided5 &a, const Strided5 &,
                         const Strided5 &) {
  return for_planes(
      p, a, nullptr, [](int64_t, int64_t, FirstError *) {}, nullptr);
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
      return backward_with(p, grad_out, idx, out, workspace, CopyElement<uint8_t>());
    case 2:
      return backward_with(p, grad_out, idx, out, workspace, CopyElement<uint16_t>());
    case 4:
      return backward_with(p, grad_out, idx, out, workspace, CopyElement<uint32_t>());
    default:
      return backward_with(p, grad_out, idx, out, workspace, CopyElement<uint64_t>());
  }
}

bool unpool_gather_vector(const UnpoolParams &p, const Strided5 &grad_out, const Strided5 &idx,
                          const Strided5 &out) {
  // Past the caches only: there the gather instructions and their prefetch keep the misses
  // overlapped (segnet-batch 2.08 -> 1.5 ms at 1 thread); a call whose gradient, indices and
  // output stay in cache from one call to the next is faster as the scalar loop (segnet-decoder
  // 0.157 -> 0.131 ms, overlap-3x3 0.33 -> 0.28 ms). And only where the unpooled volume is less
  // than twice as deep as the output (a pool that did not stride in depth): indices into two
  // depth slices a row made the gathers wait on two streams of misses, and the scalar loop, whose
  // loads overlap by themselves, was faster (video-unpool3d 1.0x -> 1.3x torch; docs/profiles.md).
  const int64_t planes = out.n * out.c, outputs = out.d * out.h * out.w;
  const int64_t bytes = planes * (grad_out.d * grad_out.h * grad_out.w * dtype_size(p.dtype) +
                                  outputs * (dtype_size(p.index_dtype) + dtype_size(p.out_dtype)));
  const bool one_slice = grad_out.d < 2 * std::max<int64_t>(1, out.d);
  return p.dtype == p.out_dtype && dtype_size(p.dtype) == 4 && plane_dense(grad_out) &&
         idx.sw == 1 && out.sw == 1 && one_slice && bytes >= kPrefetchMinBytes;
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
