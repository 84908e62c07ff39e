// AotSignature.cpp - Triton's AOT signature text ("*fp32:16,*fp16,i32:1,fp32")
// as the stand-in launch arguments that bind to the specialization it names
// (tilec compile -s, Kernel::compileFor).
#include "sema/Lower.h"

#include <stdexcept>

namespace tile::sema {

std::vector<ArgValue> parseAotSignature(const std::string &sig) {
  // Stand-ins whose divisibility is what the signature says: pointers at
  // 0x1000 (":16") or 0x1008; ints 16 (":16"), 8 (":8", tile's
  // divisible-by-8 class), 1 (":1") or 3; i64 beyond i32's range.
  std::vector<ArgValue> out;
  size_t pos = 0;
  while (pos <= sig.size() && !sig.empty()) {
    size_t comma = sig.find(',', pos);
    std::string item = sig.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    pos = comma == std::string::npos ? sig.size() + 1 : comma + 1;
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    bool div16 = item.find(":16") != std::string::npos;
    bool one = !div16 && item.size() >= 2 && item.compare(item.size() - 2, 2, ":1") == 0;
    bool div8 = item.size() >= 2 && item.compare(item.size() - 2, 2, ":8") == 0;
    if (size_t colon = item.find(':'); colon != std::string::npos) item = item.substr(0, colon);
    ArgValue a;
    bool ptr = !item.empty() && item[0] == '*';
    std::string ty = ptr ? item.substr(1) : item;
    auto s = parseTritonDTypeName(ty);
    if (!s) throw std::invalid_argument("unknown type '" + ty + "' in '" + sig + "'");
    if (ptr) {
      a.isPointer = true;
      a.elem = *s;
      a.address = div16 ? 0x1000 : 0x1008;
    } else if (isFloat(*s)) {
      a.value = 0.0;
    } else if (*s == Scalar::I1) {
      a.value = false;
    } else {
      int64_t v = div16 ? 16 : div8 ? 8 : one ? 1 : 3;
      a.value = bitWidth(*s) == 64 ? (int64_t(1) << 40) + v : v;   // i64: out of i32 range
    }
    out.push_back(a);
  }
  return out;
}

} // namespace tile::sema
