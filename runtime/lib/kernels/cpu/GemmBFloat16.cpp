//===- GemmBFloat16.cpp - GEMM with bf16 inputs, fp32 accumulation --------===//
//
// `precision = bf16` (issue 32) on the CPU's matrix products: op(A) and
// op(B) are rounded to bfloat16 (support/BFloat16.h, ties to even) and
// multiplied with fp32 accumulation. Where the CPU has AVX512-BF16, the
// product is this file's kernel: VDPBF16PS multiplies two bf16 pairs and
// adds both products to an fp32 lane, at twice the FMA's products per
// instruction and half the bytes of A and B. Operands are packed once into
// the instruction's layout: op(B) in panels of 32 columns, each K pair of a
// column one 32-bit word (the even k in the low half); op(A) per block of
// rows, each K pair of a row one word, broadcast to every lane. Elsewhere
// the rounded operands go through SGEMM (the same precision, not the same
// bits). The blocking follows gemm's (Gemm.cpp), so the result does not
// depend on the thread count either.
//
//===----------------------------------------------------------------------===//

#include "gnnrt/kernels/Gemm.h"
#include "gnnrt/kernels/GatherStorage.h"

#include "Common.h"

#include <cblas.h>
#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

namespace gnnrt::kernels {

using namespace detail;

namespace {

/// Columns of a packed op(B) panel: two 16-lane vectors.
constexpr int64_t kPanel = 32;
/// Rows of op(A) a kernel call keeps in registers (2 x 8 accumulators).
constexpr int64_t kRows = 8;

uint32_t pairOf(float even, float odd) {
  return uint32_t(toBFloat16(even).bits) |
         (uint32_t(toBFloat16(odd).bits) << 16);
}

/// op(X) for X row-major: element (r, k) is x[r * ld + k], or x[k * ld + r]
/// when transposed; `depth` values of k (K is padded to pairs with 0).
struct Operand {
  const float *x;
  bool trans;
  int64_t ld, depth;
  /// The same operand from k0 on.
  Operand from(int64_t k0, int64_t k1) const {
    return {trans ? x + k0 * ld : x + k0, trans, ld, k1 - k0};
  }
  /// op(X)^T: element (k, r).
  Operand transposed() const { return {x, !trans, ld, depth}; }
};

// Packing and the kernel run only where the CPU has AVX512-BF16: compiled
// for it (the packing loops' rounding vectorizes, 16 lanes).
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512bf16")

/// The K pairs of op(X)'s rows [r0, r1) as words (the even k in the low
/// half, 0 past the depth): pair p of row r at out[at(p, r)].
template <typename At>
void packPairs(const Operand &x, int64_t r0, int64_t r1, uint32_t *out,
               At at) {
  const int64_t pairs = (x.depth + 1) / 2;
  if (x.trans) {
    // op(X)'s column k is X's row k: two contiguous rows per pair.
    for (int64_t p = 0; p < pairs; ++p) {
      const float *even = x.x + 2 * p * x.ld;
      const float *odd = 2 * p + 1 < x.depth ? even + x.ld : nullptr;
      for (int64_t r = r0; r < r1; ++r)
        out[at(p, r)] = pairOf(even[r], odd ? odd[r] : 0.0f);
    }
    return;
  }
  for (int64_t r = r0; r < r1; ++r) {
    const float *row = x.x + r * x.ld;
    for (int64_t p = 0; p < pairs; ++p)
      out[at(p, r)] =
          pairOf(row[2 * p], 2 * p + 1 < x.depth ? row[2 * p + 1] : 0.0f);
  }
}

/// op(A) rows [r0, r1) over every K pair, pair-major: word (p, r) at
/// p * (r1 - r0) + (r - r0), the broadcast a kernel step reads per row.
void packRowPairs(const Operand &a, int64_t r0, int64_t r1,
                  std::vector<uint32_t> &out) {
  const int64_t rows = r1 - r0;
  out.resize(size_t(rows * ((a.depth + 1) / 2)));
  packPairs(a, r0, r1, out.data(),
            [&](int64_t p, int64_t r) { return size_t(p * rows + r - r0); });
}

/// op(B) [K, N] as panels of kPanel columns: panel j's word (p, c) at
/// (j * pairs + p) * kPanel + c, columns beyond N zero. `bt` is op(B)^T
/// (element (n, k)).
void packColumnPanels(const Operand &bt, int64_t N,
                      std::vector<uint32_t> &out) {
  const int64_t pairs = (bt.depth + 1) / 2;
  const int64_t panels = (N + kPanel - 1) / kPanel;
  out.assign(size_t(panels * pairs * kPanel), 0u);
  packPairs(bt, 0, N, out.data(), [&](int64_t p, int64_t n) {
    return size_t(((n / kPanel) * pairs + p) * kPanel + n % kPanel);
  });
}

/// C rows [0, R) x panel columns [0, cols) (+)= R packed rows of A (word
/// (p, r) at a[p * aStride + r]) times one packed panel, over `pairs` K
/// pairs.
template <int R>
void panelKernel(const uint32_t *a, int64_t aStride, int64_t pairs,
                 const uint32_t *panel, float *c, int64_t ldc, int64_t cols,
                 bool accumulate) {
  const __mmask16 lo = cols >= 16 ? __mmask16(0xffff)
                                  : __mmask16((1u << cols) - 1u);
  const __mmask16 hi = cols >= 32   ? __mmask16(0xffff)
                       : cols <= 16 ? __mmask16(0)
                                    : __mmask16((1u << (cols - 16)) - 1u);
  __m512 acc[R][2];
  for (int r = 0; r < R; ++r) {
    acc[r][0] = accumulate ? _mm512_maskz_loadu_ps(lo, c + r * ldc)
                           : _mm512_setzero_ps();
    acc[r][1] = accumulate ? _mm512_maskz_loadu_ps(hi, c + r * ldc + 16)
                           : _mm512_setzero_ps();
  }
  for (int64_t p = 0; p < pairs; ++p) {
    const __m512i b0 = _mm512_loadu_si512(panel + p * kPanel);
    const __m512i b1 = _mm512_loadu_si512(panel + p * kPanel + 16);
    for (int r = 0; r < R; ++r) {
      const __m512i w = _mm512_set1_epi32(int(a[p * aStride + r]));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], (__m512bh)w, (__m512bh)b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], (__m512bh)w, (__m512bh)b1);
    }
  }
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, lo, acc[r][0]);
    _mm512_mask_storeu_ps(c + r * ldc + 16, hi, acc[r][1]);
  }
}
#pragma GCC pop_options

/// K pairs per pass over C: a panel's block (32 KiB) stays in L1 while
/// every row group of A reads it. C holds the sum between blocks (an fp32
/// value stored and reloaded exactly), so blocking does not change it.
constexpr int64_t kPairBlock = 256;

/// C [rows, N] (ldc) (+)= the packed rows (packRowPairs) times every packed
/// panel, over `pairs` K pairs.
void packedProduct(const std::vector<uint32_t> &a, int64_t rows,
                   const std::vector<uint32_t> &panels, int64_t N,
                   int64_t pairs, float *c, int64_t ldc, bool accumulate) {
  for (int64_t p0 = 0; p0 < std::max<int64_t>(pairs, 1); p0 += kPairBlock) {
    const int64_t count = std::min(kPairBlock, pairs - p0);
    const bool sum = accumulate || p0 > 0;
    for (int64_t j = 0; j * kPanel < N; ++j) {
      const uint32_t *panel = panels.data() + (j * pairs + p0) * kPanel;
      const int64_t cols = std::min(kPanel, N - j * kPanel);
      float *cj = c + j * kPanel;
      const uint32_t *ap = a.data() + p0 * rows;
      int64_t r = 0;
      for (; r + kRows <= rows; r += kRows)
        panelKernel<kRows>(ap + r, rows, count, panel, cj + r * ldc, ldc,
                           cols, sum);
      const uint32_t *ar = ap + r;
      float *cr = cj + r * ldc;
      switch (rows - r) {
      case 7: panelKernel<7>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      case 6: panelKernel<6>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      case 5: panelKernel<5>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      case 4: panelKernel<4>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      case 3: panelKernel<3>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      case 2: panelKernel<2>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      case 1: panelKernel<1>(ar, rows, count, panel, cr, ldc, cols, sum); break;
      default: break;
      }
    }
  }
}

/// op(X)'s rows [r0, r1) over its depth, rounded to bf16 and widened back
/// ([r1 - r0, depth] row-major): the fallback's operand.
void roundedRows(const Operand &x, int64_t r0, int64_t r1,
                 std::vector<float> &out) {
  out.resize(size_t((r1 - r0) * x.depth));
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t k = 0; k < x.depth; ++k)
      out[size_t((r - r0) * x.depth + k)] = toFloat(toBFloat16(
          x.trans ? x.x[k * x.ld + r] : x.x[r * x.ld + k]));
}

/// C [rows, N] (+)= op(A) rows [r0, r1) x op(B), both over K [k0, k1), in
/// bf16: the native kernel on `panels` (op(B) packed), or the rounded rows
/// through SGEMM with `roundedB` (op(B) rounded, [k1 - k0, N]).
void blockProduct(bool native, const Operand &a, int64_t r0, int64_t r1,
                  int64_t k0, int64_t k1, const std::vector<uint32_t> &panels,
                  const std::vector<float> &roundedB, int64_t N, float *c,
                  bool accumulate) {
  const Operand slice = a.from(k0, k1);
  if (native) {
    thread_local std::vector<uint32_t> rows;
    packRowPairs(slice, r0, r1, rows);
    packedProduct(rows, r1 - r0, panels, N, (k1 - k0 + 1) / 2, c, N,
                  accumulate);
    return;
  }
  thread_local std::vector<float> rows;
  roundedRows(slice, r0, r1, rows);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(r1 - r0),
              blasint(N), blasint(k1 - k0), 1.0f, rows.data(),
              blasint(k1 - k0), roundedB.data(), blasint(N),
              accumulate ? 1.0f : 0.0f, c, blasint(N));
}

/// op(B) over K [k0, k1), packed (native) or rounded as [k1 - k0, N].
void prepareB(bool native, const Operand &b, int64_t N, int64_t k0,
              int64_t k1, std::vector<uint32_t> &panels,
              std::vector<float> &rounded) {
  if (native) {
    packColumnPanels(b.transposed().from(k0, k1), N, panels);
    return;
  }
  // op(B)'s rows [k0, k1), each N long: SGEMM's [k1 - k0, N].
  roundedRows(Operand{b.x, b.trans, b.ld, N}, k0, k1, rounded);
}

} // namespace

bool gemmHasNativeBFloat16() {
  static const bool cpuHasIt = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") &&
           __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bf16");
  }();
  return cpuHasIt && useAvx512();
}

void gemmBFloat16(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
                  const float *A, const float *B, float *C, bool accumulate,
                  const GemmEpilogue &epilogue) {
  if (M == 0 || N == 0)
    return;
  const bool native = gemmHasNativeBFloat16();
  const Operand a{A, transA, transA ? M : K, K};
  const Operand b{B, transB, transB ? K : N, K};
  // Row blocks share op(B), prepared once; K chunks prepare their part.
  std::vector<uint32_t> panels;
  std::vector<float> roundedB;
  if (gemmByRowBlocks(M, K))
    prepareB(native, b, N, 0, K, panels, roundedB);
  blockedGemm(
      M, N, K, C, accumulate, epilogue,
      [&](int64_t r0, int64_t r1, float *c) {
        blockProduct(native, a, r0, r1, 0, K, panels, roundedB, N, c,
                     accumulate);
      },
      [&](int64_t k0, int64_t k1, float *out) {
        std::vector<uint32_t> chunkPanels;
        std::vector<float> chunkB;
        prepareB(native, b, N, k0, k1, chunkPanels, chunkB);
        blockProduct(native, a, 0, M, k0, k1, chunkPanels, chunkB, N, out,
                     false);
      });
}

float dotBFloat16Pairs(float acc, uint32_t a, uint32_t b) {
  // VDPBF16PS on one lane: subnormal inputs read as zero, the odd pair's
  // product added first, each sum rounded to nearest and a subnormal
  // result flushed to zero. A product of two bf16 values is exact in fp32.
  auto flush = [](float x) {
    return std::fpclassify(x) == FP_SUBNORMAL ? std::copysign(0.0f, x) : x;
  };
  auto half = [&](uint32_t w, int which) {
    return flush(toFloat(BFloat16{uint16_t(w >> (16 * which))}));
  };
  acc = flush(acc);
  acc = flush(acc + half(a, 1) * half(b, 1));
  acc = flush(acc + half(a, 0) * half(b, 0));
  return acc;
}

} // namespace gnnrt::kernels
