// Extern.cpp - the interpreter's extern_elementwise: a C++ implementation
// of every libdevice symbol in ir/Libdevice.h. Float functions compute in
// double (long double for the norms) from <cmath> and round once to the
// result type, so they agree with libdevice within its documented ulp
// bounds, not bit for bit; the explicitly rounded ones (add_rz, sqrt_ru,
// double2float_rd, int2float_ru, ...) run the operation in the operands' own
// type under that IEEE rounding mode (<cfenv>) and are exact; integer and
// bit functions (clz, popc, brev, byte_perm, mulhi, sad, ...) and
// conversions follow the PTX instructions (saturating float -> int, NaN ->
// 0). fast_* functions are computed exactly here; the GPU's are approximate
// (ex2.approx and friends). rcp64h (an approximate PTX reciprocal) is the one
// symbol the interpreter does not run.
#include "interp/Machine.h"

#include "ir/Libdevice.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>

namespace tile::interp::detail {

namespace {

/// One scalar operand or result: the float value (floats) or the integer
/// bits, sign-extended (integers).
struct Num {
  double f = 0;
  int64_t i = 0;
};
Num fl(double v) { Num n; n.f = v; return n; }
Num in(int64_t v) { Num n; n.i = v; return n; }

using Impl = std::function<Num(const Num *)>;

// ---- rounding modes: the operation runs between fesetround calls on
// volatile values, so the compiler cannot move it out of the window.
template <typename F> auto rounded(int mode, F f) {
  int old = std::fegetround();
  std::fesetround(mode);
  auto r = f();
  std::fesetround(old);
  return r;
}

int modeOf(char m) {
  switch (m) {
  case 'z': return FE_TOWARDZERO;
  case 'd': return FE_DOWNWARD;
  case 'u': return FE_UPWARD;
  default: return FE_TONEAREST;
  }
}

/// Float -> integer as PTX cvt.rXi: rounded by `round`, saturated to
/// [lo, hi], NaN -> 0.
int64_t toIntSat(double v, double (*round)(double), double lo, double hi) {
  if (std::isnan(v)) return 0;
  double r = round(v);
  if (r <= lo) return static_cast<int64_t>(lo);
  if (r >= hi) {
    if (hi >= 1.8e19) return int64_t(-1);                          // u64 max
    if (hi >= 9.2e18) return std::numeric_limits<int64_t>::max();   // i64 max
    return static_cast<int64_t>(hi);
  }
  if (r >= 9.2233720368547758e18) return static_cast<int64_t>(static_cast<uint64_t>(r));
  return static_cast<int64_t>(r);
}
double rintNearest(double v) { return std::nearbyint(v); }
double (*roundOf(char m))(double) {
  switch (m) {
  case 'z': return static_cast<double (*)(double)>(std::trunc);
  case 'd': return static_cast<double (*)(double)>(std::floor);
  case 'u': return static_cast<double (*)(double)>(std::ceil);
  default: return rintNearest;
  }
}

uint64_t u64(int64_t v) { return static_cast<uint64_t>(v); }
uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }
float f32(double v) { return static_cast<float>(v); }

double sinpiD(double x) {
  if (!std::isfinite(x)) return std::numeric_limits<double>::quiet_NaN();
  double r = std::fmod(x, 2.0);            // exact
  double n = std::nearbyint(r * 2);        // quarter turns
  double f = r - n / 2;                    // exact, in [-0.25, 0.25]
  int q = static_cast<int>(std::fmod(n + 8, 4));
  double s = std::sin(M_PI * f), c = std::cos(M_PI * f);
  return q == 0 ? s : q == 1 ? c : q == 2 ? -s : -c;
}
/// erfc^-1 by Newton's method on log(erfc(x)) - log(z), which is concave
/// and decreasing: from x = 0 it converges monotonically.
double erfcinvD(double z) {
  if (std::isnan(z) || z < 0 || z > 2) return std::numeric_limits<double>::quiet_NaN();
  if (z == 0) return std::numeric_limits<double>::infinity();
  if (z == 2) return -std::numeric_limits<double>::infinity();
  if (z > 1) return -erfcinvD(2 - z);
  double x = 0, lz = std::log(z);
  for (int k = 0; k < 200; ++k) {
    double e = std::erfc(x);
    double g = std::log(e) - lz, dg = -2 / std::sqrt(M_PI) * std::exp(-x * x) / e;
    double dx = g / dg;
    x -= dx;
    if (std::fabs(dx) <= 1e-17 * std::fabs(x)) break;
  }
  return x;
}
double erfinvD(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y >= 0.5) return erfcinvD(1 - y);
  if (y <= -0.5) return -erfcinvD(1 + y);
  double x = y * std::sqrt(M_PI) / 2;
  for (int k = 0; k < 100; ++k) {
    double dx = (std::erf(x) - y) / (2 / std::sqrt(M_PI) * std::exp(-x * x));
    x -= dx;
    if (std::fabs(dx) <= 1e-17 * std::fabs(x)) break;
  }
  return x;
}
/// exp(x^2) erfc(x): x^2 split exactly into hi + lo (fma) below 25, the
/// asymptotic series above.
double erfcxD(double x) {
  if (std::isnan(x)) return x;
  if (x < 25) {
    double hi = x * x, lo = std::fma(x, x, -hi);
    return std::exp(hi) * std::exp(lo) * std::erfc(x);
  }
  double inv2 = 1 / (2 * x * x), term = 1, sum = 1;
  for (int n = 1; n <= 12; ++n) sum += (term *= -(2 * n - 1) * inv2);
  return sum / (x * std::sqrt(M_PI));
}
double lgammaD(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}
double besselI0(double x) { return std::cyl_bessel_i(0.0, std::fabs(x)); }
double besselI1(double x) { return std::copysign(std::cyl_bessel_i(1.0, std::fabs(x)), x); }

/// The float functions with an f32 and an f64 symbol: one double
/// implementation; the f32 symbol gets float operands and its result is
/// rounded by the caller.
struct FloatFn {
  const char *name;
  int arity;
  std::function<double(double, double, double, double)> f;
};

std::vector<FloatFn> floatFns() {
  using D = double;
  return {
      {"floor", 1, [](D a, D, D, D) { return std::floor(a); }},
      {"rsqrt", 1, [](D a, D, D, D) { return 1 / std::sqrt(a); }},
      {"ceil", 1, [](D a, D, D, D) { return std::ceil(a); }},
      {"trunc", 1, [](D a, D, D, D) { return std::trunc(a); }},
      {"exp2", 1, [](D a, D, D, D) { return std::exp2(a); }},
      {"sqrt", 1, [](D a, D, D, D) { return std::sqrt(a); }},
      {"rint", 1, [](D a, D, D, D) { return std::nearbyint(a); }},
      {"nearbyint", 1, [](D a, D, D, D) { return std::nearbyint(a); }},
      {"sin", 1, [](D a, D, D, D) { return std::sin(a); }},
      {"cos", 1, [](D a, D, D, D) { return std::cos(a); }},
      {"sinpi", 1, [](D a, D, D, D) { return sinpiD(a); }},
      {"cospi", 1, [](D a, D, D, D) { return sinpiD(std::fabs(a) + 0.5); }},
      {"tan", 1, [](D a, D, D, D) { return std::tan(a); }},
      {"log2", 1, [](D a, D, D, D) { return std::log2(a); }},
      {"exp", 1, [](D a, D, D, D) { return std::exp(a); }},
      {"exp10", 1, [](D a, D, D, D) { return std::pow(10.0, a); }},
      {"cosh", 1, [](D a, D, D, D) { return std::cosh(a); }},
      {"sinh", 1, [](D a, D, D, D) { return std::sinh(a); }},
      {"tanh", 1, [](D a, D, D, D) { return std::tanh(a); }},
      {"atan", 1, [](D a, D, D, D) { return std::atan(a); }},
      {"asin", 1, [](D a, D, D, D) { return std::asin(a); }},
      {"acos", 1, [](D a, D, D, D) { return std::acos(a); }},
      {"log", 1, [](D a, D, D, D) { return std::log(a); }},
      {"log10", 1, [](D a, D, D, D) { return std::log10(a); }},
      {"log1p", 1, [](D a, D, D, D) { return std::log1p(a); }},
      {"acosh", 1, [](D a, D, D, D) { return std::acosh(a); }},
      {"asinh", 1, [](D a, D, D, D) { return std::asinh(a); }},
      {"atanh", 1, [](D a, D, D, D) { return std::atanh(a); }},
      {"expm1", 1, [](D a, D, D, D) { return std::expm1(a); }},
      {"cbrt", 1, [](D a, D, D, D) { return std::cbrt(a); }},
      {"rcbrt", 1, [](D a, D, D, D) { return 1 / std::cbrt(a); }},
      {"j0", 1, [](D a, D, D, D) { return ::j0(a); }},
      {"j1", 1, [](D a, D, D, D) { return ::j1(a); }},
      {"y0", 1, [](D a, D, D, D) { return ::y0(a); }},
      {"y1", 1, [](D a, D, D, D) { return ::y1(a); }},
      {"cyl_bessel_i0", 1, [](D a, D, D, D) { return besselI0(a); }},
      {"cyl_bessel_i1", 1, [](D a, D, D, D) { return besselI1(a); }},
      {"erf", 1, [](D a, D, D, D) { return std::erf(a); }},
      {"erfinv", 1, [](D a, D, D, D) { return erfinvD(a); }},
      {"erfc", 1, [](D a, D, D, D) { return std::erfc(a); }},
      {"erfcx", 1, [](D a, D, D, D) { return erfcxD(a); }},
      {"erfcinv", 1, [](D a, D, D, D) { return erfcinvD(a); }},
      {"normcdfinv", 1, [](D a, D, D, D) { return -M_SQRT2 * erfcinvD(2 * a); }},
      {"normcdf", 1, [](D a, D, D, D) { return 0.5 * std::erfc(-a / M_SQRT2); }},
      {"lgamma", 1, [](D a, D, D, D) { return lgammaD(a); }},
      {"tgamma", 1, [](D a, D, D, D) { return std::tgamma(a); }},
      {"round", 1, [](D a, D, D, D) { return std::round(a); }},
      {"logb", 1, [](D a, D, D, D) { return std::logb(a); }},
      {"copysign", 2, [](D a, D b, D, D) { return std::copysign(a, b); }},
      {"atan2", 2, [](D a, D b, D, D) { return std::atan2(a, b); }},
      {"hypot", 2, [](D a, D b, D, D) { return std::hypot(a, b); }},
      {"rhypot", 2, [](D a, D b, D, D) { return 1 / std::hypot(a, b); }},
      {"fmod", 2, [](D a, D b, D, D) { return std::fmod(a, b); }},
      {"remainder", 2, [](D a, D b, D, D) { return std::remainder(a, b); }},
      {"pow", 2, [](D a, D b, D, D) { return std::pow(a, b); }},
      {"fdim", 2, [](D a, D b, D, D) { return std::fdim(a, b); }},
      {"norm3d", 3, [](D a, D b, D c, D) {
         long double x = a, y = b, z = c;
         return double(std::sqrt(x * x + y * y + z * z));
       }},
      {"rnorm3d", 3, [](D a, D b, D c, D) {
         long double x = a, y = b, z = c;
         return double(1 / std::sqrt(x * x + y * y + z * z));
       }},
      {"norm4d", 4, [](D a, D b, D c, D d) {
         long double x = a, y = b, z = c, w = d;
         return double(std::sqrt(x * x + y * y + z * z + w * w));
       }},
      {"rnorm4d", 4, [](D a, D b, D c, D d) {
         long double x = a, y = b, z = c, w = d;
         return double(1 / std::sqrt(x * x + y * y + z * z + w * w));
       }},
  };
}

void addFloatPairs(std::map<std::string, Impl> &m) {
  for (const FloatFn &fn : floatFns()) {
    auto f = fn.f;
    int n = fn.arity;
    auto call = [f, n](const Num *a) {
      return fl(f(a[0].f, n > 1 ? a[1].f : 0, n > 2 ? a[2].f : 0, n > 3 ? a[3].f : 0));
    };
    m[std::string("__nv_") + fn.name + "f"] = call;
    m[std::string("__nv_") + fn.name] = call;
  }
  // Exact in f32: computed on floats, not doubles.
  m["__nv_nextafterf"] = [](const Num *a) { return fl(std::nextafter(f32(a[0].f), f32(a[1].f))); };
  m["__nv_nextafter"] = [](const Num *a) { return fl(std::nextafter(a[0].f, a[1].f)); };
  m["__nv_fmaf"] = [](const Num *a) { return fl(std::fma(f32(a[0].f), f32(a[1].f), f32(a[2].f))); };
  m["__nv_fma"] = [](const Num *a) { return fl(std::fma(a[0].f, a[1].f, a[2].f)); };
  m["__nv_fabsf"] = m["__nv_fabs"] = [](const Num *a) { return fl(std::fabs(a[0].f)); };
  m["__nv_saturatef"] = [](const Num *a) { return fl(std::isnan(a[0].f) ? 0.0 : std::min(1.0, std::max(0.0, a[0].f))); };
  m["__nv_powif"] = m["__nv_powi"] = [](const Num *a) { return fl(std::pow(a[0].f, double(a[1].i))); };
  m["__nv_ldexpf"] = m["__nv_ldexp"] = m["__nv_scalbnf"] = m["__nv_scalbn"] = [](const Num *a) {
    return fl(std::ldexp(a[0].f, int(std::clamp<int64_t>(a[1].i, -100000, 100000))));
  };
  m["__nv_jnf"] = m["__nv_jn"] = [](const Num *a) { return fl(::jn(int(a[0].i), a[1].f)); };
  m["__nv_ynf"] = m["__nv_yn"] = [](const Num *a) { return fl(::yn(int(a[0].i), a[1].f)); };
  m["__nv_frsqrt_rn"] = [](const Num *a) { return fl(1 / std::sqrt(a[0].f)); };
  for (const char *fast : {"sin", "cos", "log2", "log", "exp", "tan", "exp10", "log10"})
    m[fmt::format("__nv_fast_{}f", fast)] = m[fmt::format("__nv_{}f", fast)];
  m["__nv_fast_powf"] = m["__nv_powf"];
  m["__nv_fast_fdividef"] = [](const Num *a) { return fl(f32(a[0].f) / f32(a[1].f)); };
  // predicates and exponents (int results)
  m["__nv_isnanf"] = m["__nv_isnand"] = [](const Num *a) { return in(std::isnan(a[0].f)); };
  m["__nv_isinff"] = m["__nv_isinfd"] = [](const Num *a) { return in(std::isinf(a[0].f)); };
  m["__nv_finitef"] = m["__nv_isfinited"] = [](const Num *a) { return in(std::isfinite(a[0].f)); };
  m["__nv_signbitf"] = m["__nv_signbitd"] = [](const Num *a) { return in(std::signbit(a[0].f)); };
  m["__nv_ilogbf"] = m["__nv_ilogb"] = [](const Num *a) { return in(std::ilogb(a[0].f)); };
  m["__nv_llrintf"] = m["__nv_llrint"] = [](const Num *a) {
    return in(toIntSat(a[0].f, rintNearest, -9.2233720368547758e18, 9.2233720368547758e18));
  };
  m["__nv_llroundf"] = m["__nv_llround"] = [](const Num *a) {
    return in(toIntSat(a[0].f, static_cast<double (*)(double)>(std::round), -9.2233720368547758e18,
                       9.2233720368547758e18));
  };
}

/// add/sub/mul/div/rcp/sqrt/fma with an explicit rounding mode, in f32
/// (prefix f) and f64 (prefix d).
void addRounded(std::map<std::string, Impl> &m) {
  for (char r : {'n', 'z', 'd', 'u'}) {
    int mode = modeOf(r);
    auto sfx = fmt::format("_r{}", r);
    m["__nv_fadd" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile float x = f32(a[0].f), y = f32(a[1].f); volatile float z = x + y; return z; }));
    };
    m["__nv_dadd" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f, y = a[1].f; volatile double z = x + y; return z; }));
    };
    m["__nv_fsub" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile float x = f32(a[0].f), y = f32(a[1].f); volatile float z = x - y; return z; }));
    };
    m["__nv_dsub" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f, y = a[1].f; volatile double z = x - y; return z; }));
    };
    m["__nv_fmul" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile float x = f32(a[0].f), y = f32(a[1].f); volatile float z = x * y; return z; }));
    };
    m["__nv_dmul" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f, y = a[1].f; volatile double z = x * y; return z; }));
    };
    m["__nv_fdiv" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile float x = f32(a[0].f), y = f32(a[1].f); volatile float z = x / y; return z; }));
    };
    m["__nv_ddiv" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f, y = a[1].f; volatile double z = x / y; return z; }));
    };
    m["__nv_frcp" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile float x = f32(a[0].f); volatile float z = 1.0f / x; return z; }));
    };
    m["__nv_drcp" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f; volatile double z = 1.0 / x; return z; }));
    };
    m["__nv_fsqrt" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile float x = f32(a[0].f); volatile float z = std::sqrt(float(x)); return z; }));
    };
    m["__nv_dsqrt" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f; volatile double z = std::sqrt(double(x)); return z; }));
    };
    m["__nv_fmaf" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] {
        volatile float x = f32(a[0].f), y = f32(a[1].f), c = f32(a[2].f);
        volatile float z = std::fma(float(x), float(y), float(c));
        return z;
      }));
    };
    m["__nv_fma" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] {
        volatile double x = a[0].f, y = a[1].f, c = a[2].f;
        volatile double z = std::fma(double(x), double(y), double(c));
        return z;
      }));
    };
    // conversions that round
    m["__nv_double2float" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile double x = a[0].f; volatile float z = float(double(x)); return z; }));
    };
    m["__nv_int2float" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile int32_t x = int32_t(a[0].i); volatile float z = float(int32_t(x)); return z; }));
    };
    m["__nv_uint2float" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile uint32_t x = u32(a[0].i); volatile float z = float(uint32_t(x)); return z; }));
    };
    m["__nv_ll2float" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile int64_t x = a[0].i; volatile float z = float(int64_t(x)); return z; }));
    };
    m["__nv_ull2float" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile uint64_t x = u64(a[0].i); volatile float z = float(uint64_t(x)); return z; }));
    };
    m["__nv_ll2double" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile int64_t x = a[0].i; volatile double z = double(int64_t(x)); return z; }));
    };
    m["__nv_ull2double" + sfx] = [mode](const Num *a) {
      return fl(rounded(mode, [&] { volatile uint64_t x = u64(a[0].i); volatile double z = double(uint64_t(x)); return z; }));
    };
    auto rnd = roundOf(r);
    m["__nv_float2int" + sfx] = m["__nv_double2int" + sfx] = [rnd](const Num *a) {
      return in(toIntSat(a[0].f, rnd, -2147483648.0, 2147483647.0));
    };
    m["__nv_float2uint" + sfx] = m["__nv_double2uint" + sfx] = [rnd](const Num *a) {
      return in(toIntSat(a[0].f, rnd, 0.0, 4294967295.0));
    };
    m["__nv_float2ll" + sfx] = m["__nv_double2ll" + sfx] = [rnd](const Num *a) {
      if (std::isnan(a[0].f)) return in(std::numeric_limits<int64_t>::min());
      return in(toIntSat(a[0].f, rnd, -9.2233720368547758e18, 9.2233720368547758e18));
    };
    m["__nv_float2ull" + sfx] = m["__nv_double2ull" + sfx] = [rnd](const Num *a) {
      if (std::isnan(a[0].f)) return in(std::numeric_limits<int64_t>::min());
      return in(toIntSat(a[0].f, rnd, 0.0, 1.8446744073709552e19));
    };
  }
  m["__nv_int2double_rn"] = [](const Num *a) { return fl(double(int32_t(a[0].i))); };
  m["__nv_uint2double_rn"] = [](const Num *a) { return fl(double(u32(a[0].i))); };
}

/// Bit reinterpretations and the integer functions.
void addBits(std::map<std::string, Impl> &m) {
  m["__nv_int_as_float"] = m["__nv_uint_as_float"] = [](const Num *a) {
    return fl(std::bit_cast<float>(u32(a[0].i)));
  };
  m["__nv_float_as_int"] = m["__nv_float_as_uint"] = [](const Num *a) {
    return in(std::bit_cast<int32_t>(f32(a[0].f)));
  };
  m["__nv_longlong_as_double"] = [](const Num *a) { return fl(std::bit_cast<double>(a[0].i)); };
  m["__nv_double_as_longlong"] = [](const Num *a) { return in(std::bit_cast<int64_t>(a[0].f)); };
  m["__nv_hiloint2double"] = [](const Num *a) {
    return fl(std::bit_cast<double>((uint64_t(u32(a[0].i)) << 32) | u32(a[1].i)));
  };
  m["__nv_double2loint"] = [](const Num *a) { return in(int32_t(u32(std::bit_cast<uint64_t>(a[0].f)))); };
  m["__nv_double2hiint"] = [](const Num *a) { return in(int32_t(u32(std::bit_cast<uint64_t>(a[0].f) >> 32))); };
  m["__nv_clz"] = [](const Num *a) { return in(std::countl_zero(u32(a[0].i))); };
  m["__nv_clzll"] = [](const Num *a) { return in(std::countl_zero(u64(a[0].i))); };
  m["__nv_popc"] = [](const Num *a) { return in(std::popcount(u32(a[0].i))); };
  m["__nv_popcll"] = [](const Num *a) { return in(std::popcount(u64(a[0].i))); };
  m["__nv_ffs"] = [](const Num *a) { return in(u32(a[0].i) ? std::countr_zero(u32(a[0].i)) + 1 : 0); };
  m["__nv_ffsll"] = [](const Num *a) { return in(u64(a[0].i) ? std::countr_zero(u64(a[0].i)) + 1 : 0); };
  m["__nv_brev"] = [](const Num *a) {
    uint32_t x = u32(a[0].i), r = 0;
    for (int k = 0; k < 32; ++k) r |= ((x >> k) & 1u) << (31 - k);
    return in(int32_t(r));
  };
  m["__nv_brevll"] = [](const Num *a) {
    uint64_t x = u64(a[0].i), r = 0;
    for (int k = 0; k < 64; ++k) r |= ((x >> k) & 1u) << (63 - k);
    return in(int64_t(r));
  };
  m["__nv_byte_perm"] = [](const Num *a) {
    uint64_t bytes = (uint64_t(u32(a[1].i)) << 32) | u32(a[0].i);
    uint32_t s = u32(a[2].i), r = 0;
    for (int n = 0; n < 4; ++n) r |= uint32_t((bytes >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return in(int32_t(r));
  };
  m["__nv_mulhi"] = [](const Num *a) { return in((int64_t(int32_t(a[0].i)) * int32_t(a[1].i)) >> 32); };
  m["__nv_umulhi"] = [](const Num *a) { return in(int64_t((uint64_t(u32(a[0].i)) * u32(a[1].i)) >> 32)); };
  m["__nv_mul64hi"] = [](const Num *a) { return in(int64_t((__int128(a[0].i) * a[1].i) >> 64)); };
  m["__nv_umul64hi"] = [](const Num *a) {
    return in(int64_t((static_cast<unsigned __int128>(u64(a[0].i)) * u64(a[1].i)) >> 64));
  };
  m["__nv_mul24"] = [](const Num *a) {
    int64_t x = int32_t(u32(a[0].i) << 8) >> 8, y = int32_t(u32(a[1].i) << 8) >> 8;
    return in(int32_t(u32(x * y)));
  };
  m["__nv_umul24"] = [](const Num *a) {
    return in(int32_t(u32(uint64_t(u32(a[0].i) & 0xffffffu) * (u32(a[1].i) & 0xffffffu))));
  };
  m["__nv_hadd"] = [](const Num *a) { return in((int64_t(int32_t(a[0].i)) + int32_t(a[1].i)) >> 1); };
  m["__nv_rhadd"] = [](const Num *a) { return in((int64_t(int32_t(a[0].i)) + int32_t(a[1].i) + 1) >> 1); };
  m["__nv_uhadd"] = [](const Num *a) { return in(int64_t((uint64_t(u32(a[0].i)) + u32(a[1].i)) >> 1)); };
  m["__nv_urhadd"] = [](const Num *a) { return in(int64_t((uint64_t(u32(a[0].i)) + u32(a[1].i) + 1) >> 1)); };
  m["__nv_sad"] = [](const Num *a) {
    int64_t d = int64_t(int32_t(a[0].i)) - int32_t(a[1].i);
    return in(int32_t(u32(uint64_t(d < 0 ? -d : d) + u32(a[2].i))));
  };
  m["__nv_usad"] = [](const Num *a) {
    int64_t d = int64_t(u32(a[0].i)) - int64_t(u32(a[1].i));
    return in(int32_t(u32(uint64_t(d < 0 ? -d : d) + u32(a[2].i))));
  };
  m["__nv_abs"] = [](const Num *a) { return in(int32_t(u32(int32_t(a[0].i) < 0 ? 0u - u32(a[0].i) : u32(a[0].i)))); };
  m["__nv_llabs"] = [](const Num *a) { return in(a[0].i < 0 ? int64_t(0 - u64(a[0].i)) : a[0].i); };
}

const std::map<std::string, Impl> &impls() {
  static const std::map<std::string, Impl> m = [] {
    std::map<std::string, Impl> t;
    addFloatPairs(t);
    addRounded(t);
    addBits(t);
    return t;
  }();
  return m;
}

} // namespace

void evalExternElementwise(Machine &m, ExecOp &e) {
  const std::string &symbol = e.op->strAttr("symbol");
  auto it = impls().find(symbol);
  if (it == impls().end())
    m.error(*e.op, fmt::format("not supported on the interpreter: libdevice {} (an approximate GPU instruction with "
                               "no exact definition)", symbol));
  const SlotInfo &out = m.outInfo(e);
  size_t nargs = e.op->operands.size();
  std::vector<int64_t> stride(nargs);
  for (size_t k = 0; k < nargs; ++k) stride[k] = m.inInfo(e, int(k)).n == 1 ? 0 : 1;
  Slot &r = m.out(e);
  Num args[4];
  for (int64_t j = 0; j < out.n; ++j) {
    for (size_t k = 0; k < nargs; ++k) {
      const Slot &s = m.in(e, int(k));
      if (m.inInfo(e, int(k)).isFloat()) args[k].f = s.f[j * stride[k]];
      else args[k].i = s.i[j * stride[k]];
    }
    Num v = it->second(args);
    if (out.isFloat()) r.f[j] = roundToFloatType(v.f, out.elem.scalar);
    else r.i[j] = wrapToIntType(v.i, out.elem.scalar);
  }
}

} // namespace tile::interp::detail
