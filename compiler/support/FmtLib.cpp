// FmtLib.cpp - fmt's compiled part, built once here instead of in every
// translation unit. Debian ships fmt as headers plus a shared libfmt.so only;
// the GPU machine has no libfmt, and FMT_HEADER_ONLY recompiled format-inl.h
// in each of ~160 translation units (15.4 s -> 8.8 s for sema/Builtins.cpp
// at -O3, 53.6 s -> 34.2 s under ASan + UBSan). Every tile library links
// tile_support, so this TU reaches every binary.
//
// The explicit instantiations are the ones fmt's headers declare `extern
// template` (fmt/format.h) or declare without a definition (the dragonbox
// conversions and locale_ref's members) when FMT_HEADER_ONLY is not set.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template FMT_API locale_ref::locale_ref(const std::locale &loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
} // namespace detail
FMT_END_NAMESPACE
