// gemm_peak.cpp - single-precision GEMM throughput of OpenBLAS on this machine.
//
//   gemm_peak THREADS [SIZE]     prints one number: GFLOP/s (1e9 FLOP/s)
//
// C = A * B with square row-major float matrices of SIZE (default 2048),
// cblas_sgemm with openblas_set_num_threads(THREADS). 2 * SIZE^3 FLOPs per
// call; best of 5 calls after one warm-up. Details go to stderr, the number
// alone to stdout.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s THREADS [SIZE]\n", argv[0]);
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  const int n = argc > 2 ? std::atoi(argv[2]) : 2048;
  if (threads < 1 || n < 1) {
    std::fprintf(stderr, "gemm_peak: THREADS and SIZE must be positive\n");
    return 2;
  }
  openblas_set_num_threads(threads);

  std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n, 0.0f);
  // Values in [-1, 1) from a small LCG; any finite data would do.
  unsigned state = 12345u;
  auto next = [&state] {
    state = state * 1664525u + 1013904223u;
    return float(state >> 8) / float(1u << 23) - 1.0f;
  };
  for (float &v : a)
    v = next();
  for (float &v : b)
    v = next();

  const int calls = 5;
  double best = 1e30;
  for (int call = 0; call <= calls; ++call) { // call 0 is the warm-up
    auto t0 = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n,
                b.data(), n, 0.0f, c.data(), n);
    double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (call > 0)
      best = std::min(best, sec);
  }
  // Spot check one element against a plain dot product.
  double ref = 0;
  for (int k = 0; k < n; ++k)
    ref += double(a[size_t(n / 3) * n + k]) * b[size_t(k) * n + n / 5];
  double got = c[size_t(n / 3) * n + n / 5];
  if (std::fabs(got - ref) > 1e-3 * std::sqrt(double(n)) + 1e-4 * std::fabs(ref)) {
    std::fprintf(stderr, "gemm_peak: wrong result %g, expected %g\n", got, ref);
    return 1;
  }
  const double gflops = 2.0 * double(n) * n * n / best / 1e9;
  std::fprintf(stderr, "gemm_peak: sgemm %dx%dx%d, %d threads, best of %d: %.4f s\n", n, n,
               n, threads, calls, best);
  std::printf("%.1f\n", gflops);
  return 0;
}
