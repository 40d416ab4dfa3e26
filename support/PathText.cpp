//===- PathText.cpp - Printable form of arbitrary file names --------------===//

#include "support/PathText.h"

#include "llvm/Support/ConvertUTF.h"

static const char kHexDigits[] = "0123456789abcdef";

static std::string printable(llvm::StringRef bytes, bool escapeBackslash) {
  std::string out;
  out.reserve(bytes.size());
  auto escapeByte = [&](unsigned char b) {
    out += "\\x";
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 15]);
  };
  const auto *p = reinterpret_cast<const llvm::UTF8 *>(bytes.data());
  const auto *end = p + bytes.size();
  while (p < end) {
    unsigned char b = *p;
    if (b < 0x80) {
      if (b == '\\' && escapeBackslash)
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
      // Characters that reorder or break the text around them (bidi
      // controls, C1 controls, line separators) are written as bytes: a
      // name must not display as another.
      const llvm::UTF8 *at = p;
      llvm::UTF32 c = 0;
      llvm::convertUTF8Sequence(&at, p + length, &c, llvm::strictConversion);
      bool hidden = (c >= 0x80 && c <= 0x9F) || c == 0x61C || c == 0x200E ||
                    c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
                    (c >= 0x2066 && c <= 0x2069);
      for (unsigned i = 0; i < length; ++i)
        if (hidden)
          escapeByte(p[i]);
        else
          out.push_back(static_cast<char>(p[i]));
      p += length;
    } else {
      escapeByte(b);
      ++p;
    }
  }
  return out;
}

std::string aimodel::support::printablePath(llvm::StringRef bytes) {
  return printable(bytes, /*escapeBackslash=*/true);
}

std::string aimodel::support::printableText(llvm::StringRef bytes) {
  return printable(bytes, /*escapeBackslash=*/false);
}

bool aimodel::support::isValidUtf8(llvm::StringRef bytes) {
  const auto *p = reinterpret_cast<const llvm::UTF8 *>(bytes.data());
  return llvm::isLegalUTF8String(&p, p + bytes.size());
}

std::string aimodel::support::hexBytes(llvm::StringRef bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 15]);
  }
  return out;
}

aimodel::support::JsonPath aimodel::support::jsonPath(llvm::StringRef bytes) {
  if (isValidUtf8(bytes))
    return {bytes.str(), std::nullopt};
  return {printablePath(bytes), hexBytes(bytes)};
}

std::string aimodel::support::shellArgument(llvm::StringRef path) {
  std::string arg = path.starts_with("-") ? "./" + path.str() : path.str();
  if (printableText(arg) == arg) {
    std::string out = "'";
    for (char c : arg)
      out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out = "$'";
  for (unsigned char b : arg) {
    if (b >= 0x20 && b < 0x7f && b != '\'' && b != '\\') {
      out.push_back(char(b));
    } else {
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 15]);
    }
  }
  return out + "'";
}
