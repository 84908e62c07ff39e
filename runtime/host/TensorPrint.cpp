// TensorPrint.cpp - NumPy-compatible str() of host tensors and Python /
// NumPy scalar reprs.
//
// Mirrors numpy.core.arrayprint with default options (precision 8,
// floatmode 'maxprec', linewidth 75, threshold 1000, edgeitems 3,
// separator ' '): FloatingFormat picks positional or scientific notation
// from the shown values, pads them to a common width, and _formatArray
// wraps rows at 75 columns and summarizes long axes with "...".
#include "host/Tensor.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <functional>

namespace tile::host {

namespace {
constexpr int kPrecision = 8;
constexpr int kLineWidth = 75;
constexpr int64_t kThreshold = 1000;
constexpr int64_t kEdgeItems = 3;

/// Shortest decimal digits that round-trip at the precision of dtype:
/// v = d1.d2d3... * 10^exp. digits has no sign.
struct Digits {
  std::string digits;
  int exp = 0;
};

Digits parseScientific(const std::string &s) {
  Digits d;
  size_t e = s.find('e');
  for (size_t i = 0; i < e; ++i)
    if (std::isdigit(static_cast<unsigned char>(s[i])))
      d.digits += s[i];
  d.exp = std::atoi(s.c_str() + e + 1);
  while (d.digits.size() > 1 && d.digits.back() == '0')
    d.digits.pop_back();
  return d;
}

Digits shortestDigits(double v, Scalar dtype) {
  char buf[64];
  v = std::fabs(v);
  if (dtype == Scalar::F64) {
    auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    return parseScientific(std::string(buf, r.ptr));
  }
  if (dtype == Scalar::F32) {
    auto r = std::to_chars(buf, buf + sizeof buf, float(v), std::chars_format::scientific);
    return parseScientific(std::string(buf, r.ptr));
  }
  // f16/bf16 (and ints printed as floats): the fewest digits that round-trip.
  for (int p = 0; p < 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p, v);
    if (roundToFloatType(std::strtod(buf, nullptr), dtype) == v)
      return parseScientific(buf);
  }
  std::snprintf(buf, sizeof buf, "%.16e", v);
  return parseScientific(buf);
}

void trimZeros(std::string &s) {
  if (s.find('.') == std::string::npos)
    return;
  while (s.back() == '0')
    s.pop_back();
}

/// dragon4_positional(unique, precision 8, trim '.'): "1.", "0.25", "-3.5"
std::string positional(double v, Scalar dtype) {
  Digits d = shortestDigits(v, dtype);
  int frac = std::clamp(int(d.digits.size()) - 1 - d.exp, 0, kPrecision);
  std::string s = fmt::format("{:.{}f}", v, frac);
  trimZeros(s);
  if (s.find('.') == std::string::npos)
    s += '.';
  return s;
}

/// dragon4_scientific(unique, precision 8): mantissa digits and exponent.
struct SciParts {
  std::string intPart, frac;
  int exp = 0;
};

SciParts scientific(double v, Scalar dtype) {
  Digits d = shortestDigits(v, dtype);
  if (int(d.digits.size()) - 1 > kPrecision) {
    std::string s = fmt::format("{:.{}e}", std::fabs(v), kPrecision);
    d = parseScientific(s);
  }
  SciParts p;
  p.intPart = std::string(std::signbit(v) ? "-" : "") + d.digits[0];
  p.frac = d.digits.substr(1);
  p.exp = d.exp;
  return p;
}

/// numpy's FloatingFormat for one array (computed on the shown values).
class FloatFormat {
public:
  FloatFormat(const std::vector<double> &values, Scalar dtype) : dtype_(dtype) {
    std::vector<double> finite;
    for (double v : values)
      if (std::isfinite(v))
        finite.push_back(v);
    chooseNotation(finite);
    if (expFormat_)
      fillScientific(finite);
    else
      fillPositional(finite);
    bool nonFinite = finite.size() != values.size();
    if (nonFinite) {
      bool negInf = false;
      for (double v : values)
        negInf |= std::isinf(v) && v < 0;
      int offset = padRight_ + 1;
      padLeft_ = std::max({padLeft_, 3 - offset, 3 + int(negInf) - offset});
    }
  }

  std::string operator()(double v) const {
    if (!std::isfinite(v)) {
      std::string s = std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
      int width = padLeft_ + padRight_ + 1;
      return std::string(size_t(std::max(0, width - int(s.size()))), ' ') + s;
    }
    if (expFormat_)
      return formatScientific(v);
    std::string s = positional(v, dtype_);
    size_t dot = s.find('.');
    std::string left(size_t(std::max(0, padLeft_ - int(dot))), ' ');
    std::string right(size_t(std::max(0, padRight_ - int(s.size() - dot - 1))), ' ');
    return left + s + right;
  }

private:
  void chooseNotation(const std::vector<double> &finite) {
    double maxVal = 0, minVal = INFINITY;
    bool any = false;
    for (double v : finite) {
      if (v == 0)
        continue;
      any = true;
      maxVal = std::max(maxVal, std::fabs(v));
      minVal = std::min(minVal, std::fabs(v));
    }
    expFormat_ = any && (maxVal >= 1e8 || minVal < 0.0001 || maxVal / minVal > 1000.0);
  }

  void fillPositional(const std::vector<double> &finite) {
    for (double v : finite) {
      std::string s = positional(v, dtype_);
      size_t dot = s.find('.');
      padLeft_ = std::max(padLeft_, int(dot));
      padRight_ = std::max(padRight_, int(s.size() - dot - 1));
    }
  }

  void fillScientific(const std::vector<double> &finite) {
    for (double v : finite) {
      SciParts p = scientific(v, dtype_);
      precision_ = std::max(precision_, int(p.frac.size()));
      padLeft_ = std::max(padLeft_, int(p.intPart.size()));
      expSize_ = std::max(expSize_, int(std::to_string(std::abs(p.exp)).size()));
    }
    expSize_ = std::max(expSize_, 2);
    padRight_ = expSize_ + 2 + precision_;
  }

  std::string formatScientific(double v) const {
    SciParts p = scientific(v, dtype_);
    std::string frac = p.frac + std::string(size_t(precision_ - int(p.frac.size())), '0');
    std::string exp = std::to_string(std::abs(p.exp));
    exp = std::string(size_t(std::max(0, expSize_ - int(exp.size()))), '0') + exp;
    std::string left(size_t(std::max(0, padLeft_ - int(p.intPart.size()))), ' ');
    return fmt::format("{}{}.{}e{}{}", left, p.intPart, frac, p.exp < 0 ? '-' : '+', exp);
  }

  Scalar dtype_;
  bool expFormat_ = false;
  int padLeft_ = 0, padRight_ = 0, precision_ = 0, expSize_ = 0;
};

/// The elements _formatArray shows, with numpy's summarization.
class ArrayPrinter {
public:
  explicit ArrayPrinter(const Tensor &t) : t_(t), strides_(contiguousStrides(t.shape())) {
    summarize_ = t.numel() > kThreshold;
  }

  std::string print() {
    Shape index;
    std::vector<double> shown;
    std::vector<int64_t> shownInts;
    collect(index, shown, shownInts);
    makeFormatter(shown, shownInts);
    Shape idx;
    return recurse(idx, " ", kLineWidth);
  }

private:
  bool summarizeAxis(int axis) const {
    return summarize_ && 2 * kEdgeItems < t_.shape()[size_t(axis)];
  }

  /// Shown indices along axis, -1 standing for the "..." marker.
  std::vector<int64_t> shownIndices(int axis) const {
    int64_t n = t_.shape()[size_t(axis)];
    std::vector<int64_t> idx;
    if (!summarizeAxis(axis)) {
      for (int64_t i = 0; i < n; ++i)
        idx.push_back(i);
      return idx;
    }
    for (int64_t i = 0; i < kEdgeItems; ++i)
      idx.push_back(i);
    idx.push_back(-1);
    for (int64_t i = n - kEdgeItems; i < n; ++i)
      idx.push_back(i);
    return idx;
  }

  int64_t flatOf(const Shape &index) const {
    int64_t f = 0;
    for (size_t i = 0; i < index.size(); ++i)
      f += index[i] * strides_[i];
    return f;
  }

  void collect(Shape &index, std::vector<double> &vals, std::vector<int64_t> &ints) const {
    if (int(index.size()) == t_.ndim()) {
      vals.push_back(t_.getDouble(flatOf(index)));
      ints.push_back(t_.getInt(flatOf(index)));
      return;
    }
    for (int64_t i : shownIndices(int(index.size()))) {
      if (i < 0)
        continue;
      index.push_back(i);
      collect(index, vals, ints);
      index.pop_back();
    }
  }

  void makeFormatter(const std::vector<double> &vals, const std::vector<int64_t> &ints) {
    Scalar dt = t_.dtype();
    if (isFloat(dt)) {
      FloatFormat ff(vals, dt);
      format_ = [ff](int64_t flat, const Tensor &t) { return ff(t.getDouble(flat)); };
      return;
    }
    if (dt == Scalar::I1) {
      format_ = [](int64_t flat, const Tensor &t) {
        return std::string(t.getInt(flat) ? " True" : "False");
      };
      return;
    }
    bool isU64 = dt == Scalar::U64;
    auto str = [isU64](int64_t v) { return isU64 ? std::to_string(uint64_t(v)) : std::to_string(v); };
    size_t width = 0;
    for (int64_t v : ints)
      width = std::max(width, str(v).size());
    format_ = [str, width](int64_t flat, const Tensor &t) {
      std::string s = str(t.getInt(flat));
      return std::string(width - std::min(width, s.size()), ' ') + s;
    };
  }

  static void extendLine(std::string &s, std::string &line, const std::string &word, int width,
                         const std::string &nextPrefix) {
    bool wrap = int(line.size() + word.size()) > width && line.size() > nextPrefix.size();
    if (wrap) {
      while (!line.empty() && line.back() == ' ')
        line.pop_back();
      s += line + "\n";
      line = nextPrefix;
    }
    line += word;
  }

  std::string recurse(Shape &index, const std::string &hanging, int width) {
    int axis = int(index.size());
    if (axis == t_.ndim())
      return format_(flatOf(index), t_);
    std::string nextHanging = hanging + " ";
    int nextWidth = width - 1;
    std::vector<int64_t> items = shownIndices(axis);
    std::string s;
    if (axis == t_.ndim() - 1) {
      int elemWidth = width - 1;
      std::string line = hanging;
      for (size_t k = 0; k < items.size(); ++k) {
        std::string word = items[k] < 0 ? "..." : child(index, items[k], nextHanging, nextWidth);
        extendLine(s, line, word, elemWidth, hanging);
        if (k + 1 < items.size())
          line += " ";
      }
      s += line;
    } else {
      std::string lineSep(size_t(t_.ndim() - axis - 1), '\n');
      for (size_t k = 0; k < items.size(); ++k) {
        s += hanging + (items[k] < 0 ? "..." : child(index, items[k], nextHanging, nextWidth));
        if (k + 1 < items.size())
          s += lineSep;
      }
    }
    return "[" + s.substr(hanging.size()) + "]";
  }

  std::string child(Shape &index, int64_t i, const std::string &hanging, int width) {
    index.push_back(i);
    std::string r = recurse(index, hanging, width);
    index.pop_back();
    return r;
  }

  const Tensor &t_;
  Shape strides_;
  bool summarize_ = false;
  std::function<std::string(int64_t, const Tensor &)> format_;
};

/// Python's float repr rules given the shortest digits.
std::string reprFromDigits(double v, const Digits &d) {
  std::string sign = std::signbit(v) ? "-" : "";
  if (d.exp < -4 || d.exp >= 16) {
    std::string mant = d.digits.substr(0, 1);
    if (d.digits.size() > 1)
      mant += "." + d.digits.substr(1);
    return fmt::format("{}{}e{}{:02d}", sign, mant, d.exp < 0 ? '-' : '+', std::abs(d.exp));
  }
  std::string intPart, frac;
  int n = int(d.digits.size());
  if (d.exp >= 0) {
    for (int i = 0; i <= d.exp; ++i)
      intPart += i < n ? d.digits[size_t(i)] : '0';
    frac = d.exp + 1 < n ? d.digits.substr(size_t(d.exp + 1)) : "";
  } else {
    intPart = "0";
    frac = std::string(size_t(-d.exp - 1), '0') + d.digits;
  }
  if (frac.empty() || (frac.find_first_not_of('0') == std::string::npos))
    frac = "0";
  return sign + intPart + "." + frac;
}

std::string nonFiniteRepr(double v) {
  if (std::isnan(v))
    return "nan";
  return v < 0 ? "-inf" : "inf";
}
} // namespace

std::string pythonFloatRepr(double v) {
  if (!std::isfinite(v))
    return nonFiniteRepr(v);
  return reprFromDigits(v, shortestDigits(v, Scalar::F64));
}

std::string numpyScalarRepr(double v, Scalar dtype) {
  if (!std::isfinite(v))
    return nonFiniteRepr(v);
  return reprFromDigits(v, shortestDigits(v, dtype));
}

std::string Tensor::str() const {
  if (ndim() == 0) {
    if (isFloat(dtype_))
      return numpyScalarRepr(getDouble(0), dtype_);
    if (dtype_ == Scalar::I1)
      return getInt(0) ? "True" : "False";
    return dtype_ == Scalar::U64 ? std::to_string(uint64_t(getInt(0))) : std::to_string(getInt(0));
  }
  if (numel() == 0)
    return "[]";
  return ArrayPrinter(*this).print();
}

} // namespace tile::host
