/* STREAM-style copy bandwidth with OpenMP, measured in the same process as the kernels. */
#include <omp.h>
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
