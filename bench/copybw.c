/* SPDX-License-Identifier: Apache-2.0 */
/* STREAM-style copy bandwidth with OpenMP, measured in the same process as the kernels. */
#include <omp.h>
#ifdef __AVX2__
#include <immintrin.h>
#endif
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Best-of-reps copy bandwidth in GB/s (bytes read + bytes written), over arrays of `bytes`. */
double poolgrad_bench_copy_gbs(size_t bytes, int threads, int reps) {
  size_t n = bytes / sizeof(double);
  double *a = (double *)aligned_alloc(64, n * sizeof(double));
  double *b = (double *)aligned_alloc(64, n * sizeof(double));
  if (!a || !b) return 0.0;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = (double)i;
    b[i] = 0.0;
  }
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(threads) schedule(static)
    for (size_t i = 0; i < n; ++i) b[i] = a[i];
    double t = omp_get_wtime() - t0;
    if (t < best) best = t;
  }
  volatile double sink = b[n / 2];
  (void)sink;
  free(a);
  free(b);
  return 2.0 * (double)(n * sizeof(double)) / best / 1e9;
}

/* The read floor of the RoI backward: the time (best of reps, ms) to only read gradOutput (g, esz
   bytes per value) and argmax (a, 4 bytes) of shape (R, C, bins), contiguous, in the order the
   kernel reads them: for each block of cb channels, for each ROI (split over the threads in
   contiguous runs), the block's cb * bins values of both tensors. cb = C is one sequential pass.
   No scatter, no accumulator: what the memory system alone costs for that access order. */
static uint64_t sum_words(const unsigned char *p, size_t bytes) {
  uint64_t s = 0, w;
  size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    memcpy(&w, p + i, 8);
    s += w;
  }
  for (; i < bytes; ++i) s += p[i];
  return s;
}

double poolgrad_bench_roi_read_ms(const void *g, int esz, const void *a, long long R, long long C,
                                  long long bins, long long cb, int threads, int reps) {
  const unsigned char *G = (const unsigned char *)g, *A = (const unsigned char *)a;
  const long long blocks = (C + cb - 1) / cb;
  double best = 1e30;
  uint64_t total = 0;
  for (int rep = 0; rep < reps; ++rep) {
    uint64_t s = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel for num_threads(threads) schedule(static) reduction(+ : s)
    for (long long u = 0; u < blocks * R; ++u) { /* block-major: contiguous runs of blocks */
      const long long blk = u / R, r = u % R;
      const long long c0 = blk * cb, cn = (C - c0 < cb) ? C - c0 : cb;
      const size_t off = (size_t)((r * C + c0) * bins);
      s += sum_words(G + off * esz, (size_t)(cn * bins * esz));
      s += sum_words(A + off * 4, (size_t)(cn * bins * 4));
    }
    double t = omp_get_wtime() - t0;
    if (t < best) best = t;
    total += s;
  }
  volatile uint64_t sink = total;
  (void)sink;
  return best * 1e3;
}

/* The streaming floor of a kernel that works chunk by chunk (planes or images): the time (best of
   reps, ms) to read each chunk of two inputs once and write each chunk of two outputs once with
   streaming stores, the chunks split over the threads in contiguous runs as the kernels split
   their parts. No compute: what the memory system alone costs for the kernel's traffic (the
   max-pool forward reads x and writes out and indices; the backward reads gradOutput and indices
   and writes gradInput). Array k has chunk size bytes_k; a null array is skipped. The outputs are
   written as a counter, not zeros: this machine streams lines of zeros to memory about twice as
   fast as any other data (51 MB at 2 threads: 0.9 ms against 1.9-2.1 ms for a constant or a
   counter), which made floors of zeros unreachable for a kernel's real outputs. */
static void stream_fill(unsigned char *p, size_t bytes) {
  size_t i = 0;
#ifdef __AVX2__
  __m256i v = _mm256_setr_epi64x(1, 2, 3, 4);
  const __m256i step = _mm256_set1_epi64x(4);
  for (; i < bytes && ((uintptr_t)(p + i) & 31) != 0; ++i) p[i] = (unsigned char)(i + 1);
  for (; i + 32 <= bytes; i += 32) {
    _mm256_stream_si256((__m256i *)(p + i), v);
    v = _mm256_add_epi64(v, step);
  }
#endif
  for (; i < bytes; ++i) p[i] = (unsigned char)(i + 1);
}

double poolgrad_bench_chunks_ms(const void *r1, size_t r1_bytes, const void *r2, size_t r2_bytes,
                                void *w1, size_t w1_bytes, void *w2, size_t w2_bytes,
                                long long chunks, int threads, int reps) {
  double best = 1e30;
  uint64_t total = 0;
  for (int rep = 0; rep < reps; ++rep) {
    uint64_t s = 0;
    double t0 = omp_get_wtime();
#pragma omp parallel num_threads(threads) reduction(+ : s)
    {
#pragma omp for schedule(static) nowait
      for (long long u = 0; u < chunks; ++u) {
        if (r1) s += sum_words((const unsigned char *)r1 + u * r1_bytes, r1_bytes);
        if (r2) s += sum_words((const unsigned char *)r2 + u * r2_bytes, r2_bytes);
        if (w1) stream_fill((unsigned char *)w1 + u * w1_bytes, w1_bytes);
        if (w2) stream_fill((unsigned char *)w2 + u * w2_bytes, w2_bytes);
      }
#ifdef __AVX2__
      _mm_sfence(); /* each thread's streaming stores are complete before the clock stops */
#endif
    }
    double t = omp_get_wtime() - t0;
    if (t < best) best = t;
    total += s;
  }
  volatile uint64_t sink = total;
  (void)sink;
  return best * 1e3;
}
