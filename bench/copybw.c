/* STREAM-style copy bandwidth with OpenMP, measured in the same process as the kernels. */
#include <omp.h>
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
