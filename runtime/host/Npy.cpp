// Npy.cpp - .npy parsing and serialization (see Npy.h for the format subset).
#include "host/Npy.h"
#include "support/Files.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tile::host {

namespace {
constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

struct DescrEntry {
  const char *descr;
  Scalar scalar;
};
constexpr DescrEntry kDescrs[] = {
    {"<f2", Scalar::F16}, {"<f4", Scalar::F32}, {"<f8", Scalar::F64}, {"|i1", Scalar::I8},
    {"<i2", Scalar::I16}, {"<i4", Scalar::I32}, {"<i8", Scalar::I64}, {"|u1", Scalar::U8},
    {"<u2", Scalar::U16}, {"<u4", Scalar::U32}, {"<u8", Scalar::U64}, {"|b1", Scalar::I1},
};

std::optional<Scalar> scalarOfDescr(std::string d) {
  // numpy writes single-byte types with '|' but accepts '<' and '=' too.
  if (d.size() == 3 && (d[0] == '<' || d[0] == '=') && d[2] == '1')
    d[0] = '|';
  if (d.size() == 3 && d[0] == '=')
    d[0] = '<';
  for (const DescrEntry &e : kDescrs)
    if (d == e.descr)
      return e.scalar;
  return std::nullopt;
}

/// The text after `'key':` in the header dict, or npos.
size_t findKey(const std::string &header, const std::string &key) {
  for (const char *q : {"'", "\""}) {
    size_t p = header.find(q + key + q);
    if (p == std::string::npos)
      continue;
    p = header.find(':', p);
    if (p != std::string::npos)
      return p + 1;
  }
  return std::string::npos;
}

size_t skipSpaces(const std::string &s, size_t p) {
  while (p < s.size() && s[p] == ' ')
    ++p;
  return p;
}

struct Header {
  Scalar dtype = Scalar::F32;
  bool fortran = false;
  Shape shape;
};

Header parseHeader(const std::string &h, const std::string &what) {
  auto bad = [&](const std::string &why) {
    return HostError(fmt::format("{}: malformed .npy header ({}): {}", what, why, h));
  };
  Header out;
  size_t p = findKey(h, "descr");
  if (p == std::string::npos)
    throw bad("no 'descr'");
  p = skipSpaces(h, p);
  if (p >= h.size() || (h[p] != '\'' && h[p] != '"'))
    throw bad("'descr' is not a string");
  size_t end = h.find(h[p], p + 1);
  if (end == std::string::npos)
    throw bad("unterminated 'descr'");
  std::string descr = h.substr(p + 1, end - p - 1);
  if (!descr.empty() && descr[0] == '>')
    throw HostError(fmt::format("{}: big-endian .npy data ('{}') is not supported", what, descr));
  std::optional<Scalar> s = scalarOfDescr(descr);
  if (!s)
    throw HostError(fmt::format("{}: unsupported .npy dtype '{}' (supported: <f2 <f4 <f8 <i1..<i8 "
                                "<u1..<u8 |b1)", what, descr));
  out.dtype = *s;

  p = findKey(h, "fortran_order");
  if (p == std::string::npos)
    throw bad("no 'fortran_order'");
  p = skipSpaces(h, p);
  if (h.compare(p, 4, "True") == 0)
    out.fortran = true;
  else if (h.compare(p, 5, "False") != 0)
    throw bad("'fortran_order' is not True or False");

  p = findKey(h, "shape");
  if (p == std::string::npos)
    throw bad("no 'shape'");
  p = skipSpaces(h, p);
  if (p >= h.size() || h[p] != '(')
    throw bad("'shape' is not a tuple");
  end = h.find(')', p);
  if (end == std::string::npos)
    throw bad("unterminated 'shape'");
  std::stringstream dims(h.substr(p + 1, end - p - 1));
  std::string item;
  while (std::getline(dims, item, ',')) {
    size_t a = item.find_first_not_of(" L"), b = item.find_last_not_of(" L");
    if (a == std::string::npos)
      continue;
    item = item.substr(a, b - a + 1);
    char *stop = nullptr;
    long long d = std::strtoll(item.c_str(), &stop, 10);
    if (*stop != '\0' || d < 0)
      throw bad(fmt::format("bad dimension '{}'", item));
    out.shape.push_back(d);
  }
  return out;
}

uint32_t readLE(const std::string &b, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | uint8_t(b[at + size_t(i)]);
  return v;
}
} // namespace

std::string npyDescr(Scalar s) {
  if (s == Scalar::BF16)
    return "<u2";
  if (isFp8(s))
    return "|u1"; // the raw bytes: .npy has no fp8 type (docs/language.md, "fp8")
  for (const DescrEntry &e : kDescrs)
    if (e.scalar == s)
      return e.descr;
  TILE_ASSERT(false, "npyDescr: unknown scalar");
  return "";
}

Tensor parseNpy(const std::string &bytes, const std::string &what) {
  if (bytes.size() < 10 || bytes.compare(0, kMagicLen, kMagic, kMagicLen) != 0)
    throw HostError(fmt::format("{}: not a .npy file (missing the \\x93NUMPY magic)", what));
  int major = uint8_t(bytes[6]);
  if (major < 1 || major > 3)
    throw HostError(fmt::format("{}: unsupported .npy format version {}.{}", what, major, int(uint8_t(bytes[7]))));
  size_t lenBytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + lenBytes)
    throw HostError(fmt::format("{}: truncated .npy header", what));
  size_t headerLen = readLE(bytes, 8, int(lenBytes));
  size_t dataStart = 8 + lenBytes + headerLen;
  if (bytes.size() < dataStart)
    throw HostError(fmt::format("{}: truncated .npy header (needs {} bytes, file has {})", what, dataStart,
                                bytes.size()));
  Header h = parseHeader(bytes.substr(8 + lenBytes, headerLen), what);
  Shape storedShape = h.shape;
  if (h.fortran)
    std::reverse(storedShape.begin(), storedShape.end());
  // the header's size is checked against the file before anything is allocated
  int64_t numel = 0;
  try {
    numel = shapeNumel(storedShape);
  } catch (const HostError &e) {
    throw HostError(fmt::format("{}: bad .npy header: {}", what, e.what()));
  }
  size_t have = bytes.size() - dataStart;
  int64_t wantBytes = 0;
  if (__builtin_mul_overflow(numel, int64_t(byteSize(h.dtype)), &wantBytes)) wantBytes = -1;
  if (wantBytes < 0 || uint64_t(wantBytes) > have)
    throw HostError(fmt::format("{}: truncated .npy data: header says {}{} ({}) but only {} bytes follow", what,
                                tritonDTypeName(h.dtype), shapeStr(storedShape),
                                wantBytes >= 0 ? fmt::format("{} bytes", wantBytes) : fmt::format("{} elements", numel),
                                have));
  Tensor t = Tensor::zeros(storedShape, h.dtype);
  size_t dataBytes = size_t(numel) * size_t(byteSize(h.dtype));
  std::memcpy(t.data(), bytes.data() + dataStart, dataBytes);
  if (h.dtype == Scalar::I1)
    for (int64_t i = 0, n = t.numel(); i < n; ++i)
      t.setInt(i, t.getInt(i) != 0); // canonical 0/1 bytes
  return h.fortran ? t.transpose() : t;
}

std::string serializeNpy(const Tensor &t) {
  Tensor c = t.contiguous();
  std::string shape = fmt::format("{}", fmt::join(c.shape(), ", "));
  if (c.ndim() == 1)
    shape += ","; // Python's one-element tuple: "(3,)"
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': ({}), }}",
                                 npyDescr(c.dtype()), shape);
  // Pad with spaces so that the data starts on a 64-byte boundary.
  size_t total = kMagicLen + 4 + dict.size() + 1;
  dict += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string out(kMagic, kMagicLen);
  out += '\x01';
  out += '\x00';
  out += char(dict.size() & 0xff);
  out += char((dict.size() >> 8) & 0xff);
  out += dict;
  out.append(static_cast<const char *>(c.data()), size_t(c.numel() * byteSize(c.dtype())));
  return out;
}

Tensor loadNpy(const std::string &path, std::optional<Scalar> asType) {
  FileText f = readWholeFile(path);
  if (!f.ok())
    throw HostError(fmt::format("cannot read '{}': {}", path, f.error));
  Tensor t = parseNpy(f.text, path);
  if (!asType || *asType == t.dtype())
    return t;
  bool fp8 = isFp8(*asType);
  if ((*asType == Scalar::BF16 && t.dtype() == Scalar::U16) || (fp8 && t.dtype() == Scalar::U8)) {
    Tensor c = t.contiguous();
    Tensor r = Tensor::zeros(c.shape(), *asType);
    std::memcpy(r.data(), c.data(), size_t(c.numel() * byteSize(*asType)));
    return r;
  }
  if (fp8)
    throw HostError(fmt::format("'{}' holds {}, not the raw bytes (uint8, |u1) that an {} .npy file is; save() "
                                "writes fp8 tensors that way",
                                path, tritonDTypeName(t.dtype()), tritonDTypeName(*asType)));
  return t.to(*asType);
}

std::optional<std::string> saveNpy(const std::string &path, const Tensor &t) {
  errno = 0;
  std::ofstream out(path, std::ios::binary);
  if (!out)
    throw HostError(fmt::format("cannot open '{}' for writing: {}", path, openFailure(path)));
  std::string bytes = serializeNpy(t);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  out.close();   // the buffered bytes reach the file here: a full disk fails now, not silently
  if (out.fail())
    throw HostError(fmt::format("error writing '{}' ({} bytes): {}", path, bytes.size(),
                                errno ? std::strerror(errno) : "write failed"));
  if (t.dtype() == Scalar::BF16)
    return fmt::format("'{}': bfloat16 has no .npy dtype; saved the raw bits as uint16 (<u2); "
                       "load it with load(path, dtype=bfloat16)", path);
  if (isFp8(t.dtype()))
    return fmt::format("'{}': {} has no .npy dtype; saved the raw bytes as uint8 (|u1); "
                       "load it with load(path, dtype={})", path, tritonDTypeName(t.dtype()),
                       t.dtype() == Scalar::F8E4M3 ? "float8_e4m3fn" : "float8_e5m2");
  return std::nullopt;
}

} // namespace tile::host
