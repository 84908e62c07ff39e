// Npy.h - reading and writing NumPy .npy files (format versions 1.0 to
// 3.0 on load, 1.0 on save; little-endian; C or Fortran order on load).
//
// dtypes: <f2 <f4 <f8 <i1..<i8 <u1..<u8 |b1. bfloat16 has no .npy dtype: it
// is saved as its raw bits in <u2 (saveNpy returns a note saying so) and
// read back as bfloat16 with loadNpy(path, Scalar::BF16).
#pragma once

#include "host/Tensor.h"

#include <optional>
#include <string>

namespace tile::host {

/// Parses .npy bytes; `what` names the source in messages. Malformed input
/// throws HostError ("x.npy: not a .npy file (bad magic)").
Tensor parseNpy(const std::string &bytes, const std::string &what);
/// Serializes a tensor (any strides) as a version 1.0 C-order .npy.
std::string serializeNpy(const Tensor &t);

/// Loads a file. With asType: <u2 data is reinterpreted as bfloat16 bits
/// when asType is BF16; otherwise the loaded tensor is converted to asType.
Tensor loadNpy(const std::string &path, std::optional<Scalar> asType = std::nullopt);
/// Saves a file; returns a note when the dtype had to be stored as another
/// (bfloat16 -> raw <u2 bits), else nullopt.
std::optional<std::string> saveNpy(const std::string &path, const Tensor &t);

/// The .npy descr of a dtype ("<f4"); bfloat16 -> "<u2".
std::string npyDescr(Scalar s);

} // namespace tile::host
