// Libdevice.cpp - the table of libdevice functions (Libdevice.h). Each entry
// is written compactly: "F1" / "F2" / "F3" / "F4" stand for the usual pair
// of float overloads (f32 -> __nv_NAMEf, f64 -> __nv_NAME, all arguments of
// the one type); otherwise overloads are "ARGS>RET:symbol" separated by ';',
// with one letter a type: f f32, d f64, i i32, u u32, l i64, L u64.
#include "ir/Libdevice.h"

#include "support/Diagnostics.h"

#include <map>
#include <sstream>

namespace tile::ir {

namespace {

struct Entry {
  const char *name;
  const char *spec;
  bool toBool = false;
};

// Triton 3.6's third_party/nvidia/language/cuda/libdevice.py, function by
// function (types and symbols as Triton declares them, e.g. double2uint_rn
// returns int32 there).
const Entry kEntries[] = {
    {"clz", "i>i:__nv_clz;l>i:__nv_clzll"},
    {"popc", "i>i:__nv_popc;l>i:__nv_popcll"},
    {"byte_perm", "iii>i:__nv_byte_perm"},
    {"mulhi", "ii>i:__nv_mulhi;uu>u:__nv_umulhi;ll>l:__nv_mul64hi;LL>L:__nv_umul64hi"},
    {"mul24", "ii>i:__nv_mul24;uu>u:__nv_umul24"},
    {"brev", "i>i:__nv_brev;l>l:__nv_brevll"},
    {"sad", "iiu>i:__nv_sad;uuu>u:__nv_usad"},
    {"abs", "i>i:__nv_abs;l>l:__nv_llabs;f>f:__nv_fabsf;d>d:__nv_fabs"},
    {"floor", "F1"},
    {"rcp64h", "d>d:__nv_rcp64h"},
    {"rsqrt", "F1"},
    {"ceil", "F1"},
    {"trunc", "F1"},
    {"exp2", "F1"},
    {"saturatef", "f>f:__nv_saturatef"},
    {"fma_rn", "fff>f:__nv_fmaf_rn;ddd>d:__nv_fma_rn"},
    {"fma_rz", "fff>f:__nv_fmaf_rz;ddd>d:__nv_fma_rz"},
    {"fma_rd", "fff>f:__nv_fmaf_rd;ddd>d:__nv_fma_rd"},
    {"fma_ru", "fff>f:__nv_fmaf_ru;ddd>d:__nv_fma_ru"},
    {"fast_dividef", "ff>f:__nv_fast_fdividef"},
    {"div_rn", "ff>f:__nv_fdiv_rn;dd>d:__nv_ddiv_rn"},
    {"div_rz", "ff>f:__nv_fdiv_rz;dd>d:__nv_ddiv_rz"},
    {"div_rd", "ff>f:__nv_fdiv_rd;dd>d:__nv_ddiv_rd"},
    {"div_ru", "ff>f:__nv_fdiv_ru;dd>d:__nv_ddiv_ru"},
    {"rcp_rn", "f>f:__nv_frcp_rn;d>d:__nv_drcp_rn"},
    {"rcp_rz", "f>f:__nv_frcp_rz;d>d:__nv_drcp_rz"},
    {"rcp_rd", "f>f:__nv_frcp_rd;d>d:__nv_drcp_rd"},
    {"rcp_ru", "f>f:__nv_frcp_ru;d>d:__nv_drcp_ru"},
    {"sqrt_rn", "f>f:__nv_fsqrt_rn;d>d:__nv_dsqrt_rn"},
    {"sqrt_rz", "f>f:__nv_fsqrt_rz;d>d:__nv_dsqrt_rz"},
    {"sqrt_rd", "f>f:__nv_fsqrt_rd;d>d:__nv_dsqrt_rd"},
    {"sqrt_ru", "f>f:__nv_fsqrt_ru;d>d:__nv_dsqrt_ru"},
    {"sqrt", "F1"},
    {"add_rn", "dd>d:__nv_dadd_rn;ff>f:__nv_fadd_rn"},
    {"add_rz", "dd>d:__nv_dadd_rz;ff>f:__nv_fadd_rz"},
    {"add_rd", "dd>d:__nv_dadd_rd;ff>f:__nv_fadd_rd"},
    {"add_ru", "dd>d:__nv_dadd_ru;ff>f:__nv_fadd_ru"},
    {"mul_rn", "dd>d:__nv_dmul_rn;ff>f:__nv_fmul_rn"},
    {"mul_rz", "dd>d:__nv_dmul_rz;ff>f:__nv_fmul_rz"},
    {"mul_rd", "dd>d:__nv_dmul_rd;ff>f:__nv_fmul_rd"},
    {"mul_ru", "dd>d:__nv_dmul_ru;ff>f:__nv_fmul_ru"},
    {"sub_rn", "ff>f:__nv_fsub_rn;dd>d:__nv_dsub_rn"},
    {"sub_rz", "ff>f:__nv_fsub_rz;dd>d:__nv_dsub_rz"},
    {"sub_rd", "ff>f:__nv_fsub_rd;dd>d:__nv_dsub_rd"},
    {"sub_ru", "ff>f:__nv_fsub_ru;dd>d:__nv_dsub_ru"},
    {"double2float_rn", "d>f:__nv_double2float_rn"},
    {"double2float_rz", "d>f:__nv_double2float_rz"},
    {"double2float_rd", "d>f:__nv_double2float_rd"},
    {"double2float_ru", "d>f:__nv_double2float_ru"},
    {"double2int_rn", "d>i:__nv_double2int_rn"},
    {"double2int_rz", "d>i:__nv_double2int_rz"},
    {"double2int_rd", "d>i:__nv_double2int_rd"},
    {"double2int_ru", "d>i:__nv_double2int_ru"},
    {"double2uint_rn", "d>i:__nv_double2uint_rn"},
    {"double2uint_rz", "d>i:__nv_double2uint_rz"},
    {"double2uint_rd", "d>i:__nv_double2uint_rd"},
    {"double2uint_ru", "d>i:__nv_double2uint_ru"},
    {"int2double_rn", "i>d:__nv_int2double_rn"},
    {"uint2double_rn", "u>d:__nv_uint2double_rn"},
    {"float2int_rn", "f>i:__nv_float2int_rn"},
    {"float2int_rz", "f>i:__nv_float2int_rz"},
    {"float2int_rd", "f>i:__nv_float2int_rd"},
    {"float2int_ru", "f>i:__nv_float2int_ru"},
    {"float2uint_rn", "f>i:__nv_float2uint_rn"},
    {"float2uint_rz", "f>i:__nv_float2uint_rz"},
    {"float2uint_rd", "f>i:__nv_float2uint_rd"},
    {"float2uint_ru", "f>i:__nv_float2uint_ru"},
    {"int2float_rn", "i>f:__nv_int2float_rn"},
    {"int2float_rz", "i>f:__nv_int2float_rz"},
    {"int2float_rd", "i>f:__nv_int2float_rd"},
    {"int2float_ru", "i>f:__nv_int2float_ru"},
    {"uint2float_rn", "u>f:__nv_uint2float_rn"},
    {"uint2float_rz", "u>f:__nv_uint2float_rz"},
    {"uint2float_rd", "u>f:__nv_uint2float_rd"},
    {"uint2float_ru", "u>f:__nv_uint2float_ru"},
    {"hiloint2double", "ii>d:__nv_hiloint2double"},
    {"double2loint", "d>i:__nv_double2loint"},
    {"double2hiint", "d>i:__nv_double2hiint"},
    {"float2ll_rn", "f>l:__nv_float2ll_rn"},
    {"float2ll_rz", "f>l:__nv_float2ll_rz"},
    {"float2ll_rd", "f>l:__nv_float2ll_rd"},
    {"float2ll_ru", "f>l:__nv_float2ll_ru"},
    {"float2ull_rn", "f>l:__nv_float2ull_rn"},
    {"float2ull_rz", "f>l:__nv_float2ull_rz"},
    {"float2ull_rd", "f>l:__nv_float2ull_rd"},
    {"float2ull_ru", "f>l:__nv_float2ull_ru"},
    {"double2ll_rn", "d>l:__nv_double2ll_rn"},
    {"double2ll_rz", "d>l:__nv_double2ll_rz"},
    {"double2ll_rd", "d>l:__nv_double2ll_rd"},
    {"double2ll_ru", "d>l:__nv_double2ll_ru"},
    {"double2ull_rn", "d>l:__nv_double2ull_rn"},
    {"double2ull_rz", "d>l:__nv_double2ull_rz"},
    {"double2ull_rd", "d>l:__nv_double2ull_rd"},
    {"double2ull_ru", "d>l:__nv_double2ull_ru"},
    {"ll2float_rn", "l>f:__nv_ll2float_rn"},
    {"ll2float_rz", "l>f:__nv_ll2float_rz"},
    {"ll2float_rd", "l>f:__nv_ll2float_rd"},
    {"ll2float_ru", "l>f:__nv_ll2float_ru"},
    {"ull2float_rn", "L>f:__nv_ull2float_rn"},
    {"ull2float_rz", "L>f:__nv_ull2float_rz"},
    {"ull2float_rd", "L>f:__nv_ull2float_rd"},
    {"ull2float_ru", "L>f:__nv_ull2float_ru"},
    {"ll2double_rn", "l>d:__nv_ll2double_rn"},
    {"ll2double_rz", "l>d:__nv_ll2double_rz"},
    {"ll2double_rd", "l>d:__nv_ll2double_rd"},
    {"ll2double_ru", "l>d:__nv_ll2double_ru"},
    {"ull2double_rn", "L>d:__nv_ull2double_rn"},
    {"ull2double_rz", "L>d:__nv_ull2double_rz"},
    {"ull2double_rd", "L>d:__nv_ull2double_rd"},
    {"ull2double_ru", "L>d:__nv_ull2double_ru"},
    {"int_as_float", "i>f:__nv_int_as_float"},
    {"float_as_int", "f>i:__nv_float_as_int"},
    {"uint_as_float", "u>f:__nv_uint_as_float"},
    {"float_as_uint", "f>i:__nv_float_as_uint"},
    {"longlong_as_double", "l>d:__nv_longlong_as_double"},
    {"double_as_longlong", "d>l:__nv_double_as_longlong"},
    {"fast_sinf", "f>f:__nv_fast_sinf"},
    {"fast_cosf", "f>f:__nv_fast_cosf"},
    {"fast_log2f", "f>f:__nv_fast_log2f"},
    {"fast_logf", "f>f:__nv_fast_logf"},
    {"fast_expf", "f>f:__nv_fast_expf"},
    {"fast_tanf", "f>f:__nv_fast_tanf"},
    {"fast_exp10f", "f>f:__nv_fast_exp10f"},
    {"fast_log10f", "f>f:__nv_fast_log10f"},
    {"fast_powf", "ff>f:__nv_fast_powf"},
    {"hadd", "ii>i:__nv_hadd;uu>u:__nv_uhadd"},
    {"rhadd", "ii>i:__nv_rhadd;uu>u:__nv_urhadd"},
    {"rsqrt_rn", "f>f:__nv_frsqrt_rn"},
    {"ffs", "i>i:__nv_ffs;l>i:__nv_ffsll"},
    {"rint", "F1"},
    {"llrint", "f>l:__nv_llrintf;d>l:__nv_llrint"},
    {"nearbyint", "F1"},
    {"isnan", "f>i:__nv_isnanf;d>i:__nv_isnand", true},
    {"signbit", "f>i:__nv_signbitf;d>i:__nv_signbitd"},
    {"copysign", "F2"},
    {"finitef", "f>i:__nv_finitef", true},
    {"isinf", "f>i:__nv_isinff;d>i:__nv_isinfd", true},
    {"nextafter", "F2"},
    {"sin", "F1"},
    {"cos", "F1"},
    {"sinpi", "F1"},
    {"cospi", "F1"},
    {"tan", "F1"},
    {"log2", "F1"},
    {"exp", "F1"},
    {"exp10", "F1"},
    {"cosh", "F1"},
    {"sinh", "F1"},
    {"tanh", "F1"},
    {"atan2", "F2"},
    {"atan", "F1"},
    {"asin", "F1"},
    {"acos", "F1"},
    {"log", "F1"},
    {"log10", "F1"},
    {"log1p", "F1"},
    {"acosh", "F1"},
    {"asinh", "F1"},
    {"atanh", "F1"},
    {"expm1", "F1"},
    {"hypot", "F2"},
    {"rhypot", "F2"},
    {"norm3d", "F3"},
    {"rnorm3d", "F3"},
    {"norm4d", "F4"},
    {"rnorm4d", "F4"},
    {"cbrt", "F1"},
    {"rcbrt", "F1"},
    {"j0", "F1"},
    {"j1", "F1"},
    {"y0", "F1"},
    {"y1", "F1"},
    {"yn", "if>f:__nv_ynf;id>d:__nv_yn"},
    {"jn", "if>f:__nv_jnf;id>d:__nv_jn"},
    {"cyl_bessel_i0", "F1"},
    {"cyl_bessel_i1", "F1"},
    {"erf", "F1"},
    {"erfinv", "F1"},
    {"erfc", "F1"},
    {"erfcx", "F1"},
    {"erfcinv", "F1"},
    {"normcdfinv", "F1"},
    {"normcdf", "F1"},
    {"lgamma", "F1"},
    {"ldexp", "fi>f:__nv_ldexpf;di>d:__nv_ldexp"},
    {"scalbn", "fi>f:__nv_scalbnf;di>d:__nv_scalbn"},
    {"fmod", "F2"},
    {"remainder", "F2"},
    {"fma", "F3"},
    {"pow", "fi>f:__nv_powif;di>d:__nv_powi;ff>f:__nv_powf;dd>d:__nv_pow"},
    {"tgamma", "F1"},
    {"round", "F1"},
    {"llround", "f>l:__nv_llroundf;d>l:__nv_llround"},
    {"fdim", "F2"},
    {"ilogb", "f>i:__nv_ilogbf;d>i:__nv_ilogb"},
    {"logb", "F1"},
    {"isfinited", "d>i:__nv_isfinited", true},
};

Scalar typeOfLetter(char c) {
  switch (c) {
  case 'f': return Scalar::F32;
  case 'd': return Scalar::F64;
  case 'i': return Scalar::I32;
  case 'u': return Scalar::U32;
  case 'l': return Scalar::I64;
  case 'L': return Scalar::U64;
  default: TILE_ASSERT(false, "bad libdevice type letter"); return Scalar::F32;
  }
}

std::vector<ExternOverload> parseSpec(const std::string &name, const std::string &spec) {
  if (spec.size() == 2 && spec[0] == 'F') {
    size_t n = spec[1] - '0';
    return {{std::vector<Scalar>(n, Scalar::F32), Scalar::F32, "__nv_" + name + "f"},
            {std::vector<Scalar>(n, Scalar::F64), Scalar::F64, "__nv_" + name}};
  }
  std::vector<ExternOverload> out;
  std::stringstream ss(spec);
  std::string item;
  while (std::getline(ss, item, ';')) {
    size_t gt = item.find('>'), colon = item.find(':');
    TILE_ASSERT(gt != std::string::npos && colon == gt + 2, "bad libdevice spec");
    ExternOverload o;
    for (size_t i = 0; i < gt; ++i) o.args.push_back(typeOfLetter(item[i]));
    o.ret = typeOfLetter(item[gt + 1]);
    o.symbol = item.substr(colon + 1);
    out.push_back(std::move(o));
  }
  return out;
}

} // namespace

const std::vector<LibdeviceFn> &libdeviceFns() {
  static const std::vector<LibdeviceFn> fns = [] {
    std::vector<LibdeviceFn> v;
    for (const Entry &e : kEntries) v.push_back({e.name, parseSpec(e.name, e.spec), e.toBool});
    return v;
  }();
  return fns;
}

const LibdeviceFn *findLibdeviceFn(std::string_view name) {
  static const std::map<std::string, const LibdeviceFn *, std::less<>> byName = [] {
    std::map<std::string, const LibdeviceFn *, std::less<>> m;
    for (const LibdeviceFn &f : libdeviceFns()) m[f.name] = &f;
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

const ExternOverload *findLibdeviceSymbol(std::string_view symbol) {
  static const std::map<std::string, const ExternOverload *, std::less<>> bySymbol = [] {
    std::map<std::string, const ExternOverload *, std::less<>> m;
    for (const LibdeviceFn &f : libdeviceFns())
      for (const ExternOverload &o : f.overloads) m[o.symbol] = &o;
    return m;
  }();
  auto it = bySymbol.find(symbol);
  return it == bySymbol.end() ? nullptr : it->second;
}

} // namespace tile::ir
