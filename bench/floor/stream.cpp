// stream.cpp - memory bandwidth of this machine, STREAM-triad style.
//
//   stream THREADS [MiB_PER_ARRAY]     prints one number: GB/s (1e9 bytes/s)
//
// a[i] = b[i] + s * c[i] over three double arrays of MiB_PER_ARRAY each
// (default 256, far above any last-level cache), THREADS OpenMP threads,
// static schedule, arrays first touched by the threads that use them. Bytes
// per pass are counted as STREAM does: 3 * n * 8 (two reads, one write; the
// write-allocate read of `a` is not counted). Best of 10 passes after one
// warm-up. Details go to stderr, the number alone to stdout.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s THREADS [MiB_PER_ARRAY]\n", argv[0]);
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const long mib = argc > 2 ? std::atol(argv[2]) : 256;
  if (threads < 1 || mib < 1) {
    std::fprintf(stderr, "stream: THREADS and MiB_PER_ARRAY must be positive\n");
    return 2;
  }
  omp_set_num_threads(threads);
  const long n = mib * 1024 * 1024 / long(sizeof(double));
  // Uninitialized storage, so that the parallel loop below is the first touch.
  std::unique_ptr<double[]> a(new double[n]), b(new double[n]), c(new double[n]);
  double *pa = a.get(), *pb = b.get(), *pc = c.get();
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    pa[i] = 0.0;
    pb[i] = 1.0;
    pc[i] = 2.0;
  }

  const double s = 3.0;
  const int passes = 10;
  double best = 1e30;
  for (int pass = 0; pass <= passes; ++pass) { // pass 0 is the warm-up
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i)
      pa[i] = pb[i] + s * pc[i];
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (pass > 0)
      best = std::min(best, sec);
  }
  // Keep the result observable so the loop cannot be dropped.
  double check = pa[0] + pa[n / 2] + pa[n - 1];
  if (check != 3 * (1.0 + s * 2.0)) {
    std::fprintf(stderr, "stream: wrong result %g\n", check);
    return 1;
  }
  const double gbs = 3.0 * double(n) * sizeof(double) / best / 1e9;
  std::fprintf(stderr, "stream: triad, %d threads, 3 x %ld MiB, best of %d: %.4f s\n",
               threads, mib, passes, best);
  std::printf("%.2f\n", gbs);
  return 0;
}
