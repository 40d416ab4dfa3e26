//===- PathText.cpp - Printable form of arbitrary file names --------------===//

#include "support/PathText.h"

#include "llvm/Support/ConvertUTF.h"

std::string aimodel::support::printablePath(llvm::StringRef bytes) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size());
  auto escapeByte = [&](unsigned char b) {
    out += "\\x";
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  };
  const auto *p = reinterpret_cast<const llvm::UTF8 *>(bytes.data());
  const auto *end = p + bytes.size();
  while (p < end) {
    unsigned char b = *p;
    if (b < 0x80) {
      if (b == '\\')
        out += "\\\\";
      else if (b < 0x20 || b == 0x7f)
        escapeByte(b);
      else
        out.push_back(static_cast<char>(b));
      ++p;
      continue;
    }
    unsigned length = llvm::getNumBytesForUTF8(b);
    if (length <= static_cast<unsigned>(end - p) &&
        llvm::isLegalUTF8Sequence(p, p + length)) {
      out.append(reinterpret_cast<const char *>(p), length);
      p += length;
    } else {
      escapeByte(b);
      ++p;
    }
  }
  return out;
}
