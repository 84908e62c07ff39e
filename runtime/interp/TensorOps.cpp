// TensorOps.cpp - the interpreter's shape ops (splat, broadcast,
// expand_dims, reshape, permute) and tensor compute (dot, reduce).
#include "interp/Machine.h"

#include <fmt/format.h>

#include <limits>

namespace tile::interp::detail {

namespace {

/// r[k] = x[idx(k)] on whichever element vector the type uses.
template <typename F> void gatherCopy(Machine &m, ExecOp &e, F idx) {
  int64_t n = m.outInfo(e).n;
  if (m.outInfo(e).isFloat()) {
    const double *x = m.in(e, 0).f.data();
    double *r = m.out(e).f.data();
    for (int64_t k = 0; k < n; ++k)
      r[k] = x[idx(k)];
    return;
  }
  const int64_t *x = m.in(e, 0).i.data();
  int64_t *r = m.out(e).i.data();
  for (int64_t k = 0; k < n; ++k)
    r[k] = x[idx(k)];
}

/// Shape ops that keep the row-major element order.
void copySameOrder(Machine &m, ExecOp &e) {
  TILE_ASSERT(m.inInfo(e, 0).n == m.outInfo(e).n,
              fmt::format("'{}' changes the element count", ir::opName(e.op->kind)));
  gatherCopy(m, e, [](int64_t k) { return k; });
}

} // namespace

void evalSplat(Machine &m, ExecOp &e) {
  TILE_ASSERT(m.inInfo(e, 0).n == 1, "splat of a tensor");
  gatherCopy(m, e, [](int64_t) { return int64_t(0); });
}

void evalBroadcast(Machine &m, ExecOp &e) {
  const int64_t *g = e.gather.data();
  gatherCopy(m, e, [g](int64_t k) { return g[k]; });
}

void evalPermute(Machine &m, ExecOp &e) {
  const int64_t *g = e.gather.data();
  gatherCopy(m, e, [g](int64_t k) { return g[k]; });
}

void evalExpandDims(Machine &m, ExecOp &e) { copySameOrder(m, e); }
void evalReshape(Machine &m, ExecOp &e) { copySameOrder(m, e); }
/// convert_layout only moves data between GPU threads: the values stay.
void evalConvertLayout(Machine &m, ExecOp &e) { copySameOrder(m, e); }
void evalHint(Machine &m, ExecOp &e) { copySameOrder(m, e); }

// ---- dot

namespace {

struct DotShape {
  int64_t batch = 1, M = 0, N = 0, K = 0;
};

DotShape dotShape(const Machine &m, const ExecOp &e) {
  const std::vector<int64_t> &a = *m.inInfo(e, 0).shape, &b = *m.inInfo(e, 1).shape, &c = *m.outInfo(e).shape;
  int rank = static_cast<int>(a.size());
  bool ok = (rank == 2 || rank == 3) && b.size() == a.size() && c.size() == a.size() &&
            a[rank - 1] == b[rank - 2] && c[rank - 2] == a[rank - 2] && c[rank - 1] == b[rank - 1] &&
            (rank == 2 || (a[0] == b[0] && a[0] == c[0]));
  if (!ok)
    m.error(*e.op, "dot operands must be MxK and KxN (optionally batched) with an MxN accumulator");
  DotShape s;
  s.batch = rank == 3 ? a[0] : 1;
  s.M = a[rank - 2], s.K = a[rank - 1], s.N = b[rank - 1];
  return s;
}

/// Copies a float slot into a float buffer (exact: the elements are
/// f16/bf16/f32 values).
void toFloats(const std::vector<double> &src, std::vector<float> &dst) {
  dst.resize(src.size());
  for (size_t k = 0; k < src.size(); ++k)
    dst[k] = static_cast<float>(src[k]);
}

/// Truncates every element to tf32 (the operands of a "tf32" dot).
void truncateAllToTF32(std::vector<float> &v) {
  for (float &x : v)
    x = truncateToTF32(x);
}

/// One MxN product: r[i, j] = fma chain over k ascending, starting at acc.
/// The j-inner order keeps every (i, j) chain in k order while letting the
/// compiler vectorize over j.
template <bool UseFma>
void dotTile(const float *a, const float *b, float *row, int64_t M, int64_t N, int64_t K) {
  for (int64_t i = 0; i < M; ++i, row += N)
    for (int64_t k = 0; k < K; ++k) {
      float x = a[i * K + k];
      const float *bk = b + k * N;
      for (int64_t j = 0; j < N; ++j)
        row[j] = UseFma ? __builtin_fmaf(x, bk[j], row[j]) : std::fmaf(x, bk[j], row[j]);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// Same arithmetic with the FMA instruction inlined (fmaf is one rounding
// either way; this only avoids a libm call per element).
__attribute__((target("fma"))) void dotTileFma(const float *a, const float *b, float *row, int64_t M, int64_t N,
                                               int64_t K) {
  dotTile<true>(a, b, row, M, N, K);
}
bool hasFma() {
  static const bool has = __builtin_cpu_supports("fma");
  return has;
}
#else
void dotTileFma(const float *a, const float *b, float *row, int64_t M, int64_t N, int64_t K) {
  dotTile<false>(a, b, row, M, N, K);
}
bool hasFma() { return false; }
#endif

// f16/bf16/f32 inputs: for each (m, n), acc starts at acc[m, n] and adds the
// products for k ascending with fmaf (the product is exact, one rounding per
// step). With input_precision "tf32", f32 operands are truncated to tf32
// first, as the GPU's tensor cores read them; "ieee" and "tf32x3" keep them.
void dotF32(Machine &m, ExecOp &e, const DotShape &s) {
  thread_local std::vector<float> a, b, acc;
  toFloats(m.in(e, 0).f, a);
  toFloats(m.in(e, 1).f, b);
  if (e.op->strAttr("input_precision") == "tf32") {
    if (m.inInfo(e, 0).elem.scalar == Scalar::F32)
      truncateAllToTF32(a);
    if (m.inInfo(e, 1).elem.scalar == Scalar::F32)
      truncateAllToTF32(b);
  }
  toFloats(m.in(e, 2).f, acc);
  for (int64_t z = 0; z < s.batch; ++z) {
    const float *az = a.data() + z * s.M * s.K, *bz = b.data() + z * s.K * s.N;
    float *cz = acc.data() + z * s.M * s.N;
    if (hasFma())
      dotTileFma(az, bz, cz, s.M, s.N, s.K);
    else
      dotTile<false>(az, bz, cz, s.M, s.N, s.K);
  }
  Scalar outType = m.outInfo(e).elem.scalar;
  double *r = m.out(e).f.data();
  for (size_t k = 0; k < acc.size(); ++k)
    r[k] = roundFloat(acc[k], outType);
}

/// An f16 accumulator (f16 operands with out_dtype=tl.float16), as Triton
/// and the GPU compute it: every k step is one fma rounded to f16 (the GPU's
/// fma.rn.f16). In double, a*b + acc is exact or rounds to the same f16
/// (f16 products have 22 bits), so one rounding to f16 after it is the fma's.
void dotF16Acc(Machine &m, ExecOp &e, const DotShape &s) {
  const double *a = m.in(e, 0).f.data(), *b = m.in(e, 1).f.data(), *acc = m.in(e, 2).f.data();
  double *r = m.out(e).f.data();
  for (int64_t z = 0; z < s.batch; ++z)
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j) {
        int64_t at = (z * s.M + i) * s.N + j;
        double sum = acc[at];
        for (int64_t k = 0; k < s.K; ++k)
          sum = roundFloat(std::fma(a[(z * s.M + i) * s.K + k], b[(z * s.K + k) * s.N + j], sum), Scalar::F16);
        r[at] = sum;
      }
}

/// f64 inputs accumulate in double with fma.
void dotF64(Machine &m, ExecOp &e, const DotShape &s) {
  const double *a = m.in(e, 0).f.data(), *b = m.in(e, 1).f.data(), *acc = m.in(e, 2).f.data();
  double *r = m.out(e).f.data();
  for (int64_t z = 0; z < s.batch; ++z)
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j) {
        int64_t at = (z * s.M + i) * s.N + j;
        double sum = acc[at];
        for (int64_t k = 0; k < s.K; ++k)
          sum = std::fma(a[(z * s.M + i) * s.K + k], b[(z * s.K + k) * s.N + j], sum);
        r[at] = sum;
      }
}

/// Integer inputs accumulate in i32, wrapping; the result wraps to its type.
void dotInt(Machine &m, ExecOp &e, const DotShape &s) {
  const int64_t *a = m.in(e, 0).i.data(), *b = m.in(e, 1).i.data(), *acc = m.in(e, 2).i.data();
  Scalar outType = m.outInfo(e).elem.scalar;
  int64_t *r = m.out(e).i.data();
  for (int64_t z = 0; z < s.batch; ++z)
    for (int64_t i = 0; i < s.M; ++i)
      for (int64_t j = 0; j < s.N; ++j) {
        int64_t at = (z * s.M + i) * s.N + j;
        uint32_t sum = static_cast<uint32_t>(acc[at]);
        for (int64_t k = 0; k < s.K; ++k)
          sum += static_cast<uint32_t>(a[(z * s.M + i) * s.K + k]) * static_cast<uint32_t>(b[(z * s.K + k) * s.N + j]);
        r[at] = wrapToIntType(static_cast<int32_t>(sum), outType);
      }
}

} // namespace

void evalDot(Machine &m, ExecOp &e) {
  DotShape s = dotShape(m, e);
  ElemType a = m.inInfo(e, 0).elem, b = m.inInfo(e, 1).elem, c = m.outInfo(e).elem;
  if (a.isPtr || b.isPtr || c.isPtr || a.isFloat() != b.isFloat() || a.isFloat() != c.isFloat())
    m.error(*e.op, fmt::format("dot does not support {} x {} -> {}", a.str(), b.str(), c.str()));
  if (!a.isFloat())
    return dotInt(m, e, s);
  if (a.scalar == Scalar::F64 || b.scalar == Scalar::F64)
    return dotF64(m, e, s);
  if (c.scalar == Scalar::F16)
    return dotF16Acc(m, e, s);
  dotF32(m, e, s);
}

// ---- reduce

namespace {

enum class ReduceKind { Sum, Max, Min, ArgMax, ArgMin, Xor };

ReduceKind parseReduceKind(const Machine &m, const ExecOp &e) {
  const std::string &k = e.op->strAttr("kind");
  static constexpr std::pair<const char *, ReduceKind> kKinds[] = {{"sum", ReduceKind::Sum},
                                                                   {"max", ReduceKind::Max},
                                                                   {"min", ReduceKind::Min},
                                                                   {"argmax", ReduceKind::ArgMax},
                                                                   {"argmin", ReduceKind::ArgMin},
                                                                   {"xor", ReduceKind::Xor}};
  for (auto [name, kind] : kKinds)
    if (k == name)
      return kind;
  m.error(*e.op, fmt::format("unknown reduction '{}'", k));
}

/// The input viewed as [outer, len, inner] around the reduced axis.
struct ReduceView {
  int64_t outer = 1, len = 1, inner = 1;
};

/// True when x should replace the current extreme best (strictly better,
/// so the first index wins ties). NaN is ignored, as Triton's default
/// combine functions (maximum/minimum with PropagateNan.NONE) do: it wins
/// only over another NaN... never, so an all-NaN slice keeps its first NaN.
bool floatBetter(double x, double best, bool wantMax) {
  if (std::isnan(x))
    return false;
  if (std::isnan(best))
    return true;
  if (x == best) // -0 vs +0: max prefers +0, min prefers -0 (as min/max ops)
    return wantMax ? (std::signbit(best) && !std::signbit(x)) : (!std::signbit(best) && std::signbit(x));
  return wantMax ? x > best : x < best;
}

bool intBetter(int64_t x, int64_t best, bool wantMax, bool uns) {
  if (uns)
    return wantMax ? uint64_t(x) > uint64_t(best) : uint64_t(x) < uint64_t(best);
  return wantMax ? x > best : x < best;
}

void reduceFloat(Machine &m, ExecOp &e, ReduceKind kind, const ReduceView &v) {
  const double *x = m.in(e, 0).f.data();
  Scalar outType = m.outInfo(e).elem.scalar;
  Slot &r = m.out(e);
  bool wantMax = kind == ReduceKind::Max || kind == ReduceKind::ArgMax;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t in = 0; in < v.inner; ++in) {
      const double *p = x + o * v.len * v.inner + in;
      int64_t at = o * v.inner + in, bestIdx = 0;
      double acc = p[0];
      for (int64_t k = 1; k < v.len; ++k) {
        double y = p[k * v.inner];
        if (kind == ReduceKind::Sum)
          acc = roundFloat(acc + y, outType); // index order, rounding each add
        else if (floatBetter(y, acc, wantMax))
          acc = y, bestIdx = k;
      }
      if (kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin)
        r.i[at] = wrapToIntType(bestIdx, outType);
      else
        r.f[at] = roundFloat(acc, outType);
    }
}

void reduceInt(Machine &m, ExecOp &e, ReduceKind kind, const ReduceView &v) {
  const int64_t *x = m.in(e, 0).i.data();
  Scalar outType = m.outInfo(e).elem.scalar;
  bool uns = isUnsignedLike(m.inInfo(e, 0).elem);
  Slot &r = m.out(e);
  bool wantMax = kind == ReduceKind::Max || kind == ReduceKind::ArgMax;
  for (int64_t o = 0; o < v.outer; ++o)
    for (int64_t in = 0; in < v.inner; ++in) {
      const int64_t *p = x + o * v.len * v.inner + in;
      int64_t at = o * v.inner + in, bestIdx = 0, acc = p[0];
      for (int64_t k = 1; k < v.len; ++k) {
        int64_t y = p[k * v.inner];
        if (kind == ReduceKind::Sum)
          acc = wrapToIntType(static_cast<int64_t>(uint64_t(acc) + uint64_t(y)), outType);
        else if (kind == ReduceKind::Xor)
          acc = wrapToIntType(acc ^ y, outType);
        else if (intBetter(y, acc, wantMax, uns))
          acc = y, bestIdx = k;
      }
      bool arg = kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
      r.i[at] = wrapToIntType(arg ? bestIdx : acc, outType);
    }
}

} // namespace

void evalReduce(Machine &m, ExecOp &e) {
  ReduceKind kind = parseReduceKind(m, e);
  const std::vector<int64_t> &shape = *m.inInfo(e, 0).shape;
  int64_t axis = e.op->intAttr("axis");
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size()))
    m.error(*e.op, fmt::format("reduce axis {} is out of range for a rank-{} tensor", axis, shape.size()));
  ReduceView v;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d)
    (d < axis ? v.outer : d == axis ? v.len : v.inner) *= shape[d];
  bool arg = kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin;
  const SlotInfo &out = m.outInfo(e);
  if (out.elem.isPtr || m.inInfo(e, 0).elem.isPtr || (arg ? out.isFloat() : out.isFloat() != m.inInfo(e, 0).isFloat()))
    m.error(*e.op, fmt::format("reduce '{}' cannot produce {} from {}", e.op->strAttr("kind"), out.elem.str(),
                               m.inInfo(e, 0).elem.str()));
  if (m.inInfo(e, 0).isFloat()) {
    if (kind == ReduceKind::Xor)
      m.error(*e.op, "reduce 'xor' needs integers");
    return reduceFloat(m, e, kind, v);
  }
  reduceInt(m, e, kind, v);
}

} // namespace tile::interp::detail
