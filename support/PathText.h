//===- PathText.h - Printable form of arbitrary file names ------*- C++ -*-===//
//
// File names are bytes. Reports need valid UTF-8, and text reports no
// control characters, or a crafted name could break a terminal or forge a
// report line. In text, bytes that are not printable UTF-8 become "\xNN" and
// a backslash becomes "\\" so the escaping stays unambiguous. JSON escapes
// control characters itself, so there a valid UTF-8 name is written exactly
// (a program can open it); only a name that is not UTF-8 is escaped, and its
// exact bytes travel beside it in hex.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_PATHTEXT_H
#define AIMODEL_SUPPORT_PATHTEXT_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace aimodel::support {

/// The text form: printable UTF-8 kept, anything else "\xNN", '\' as "\\".
/// Not printable: C0 and C1 controls, and characters that reorder or break
/// the text around them (bidi controls U+061C, U+200E-F, U+202A-E,
/// U+2066-9; line and paragraph separators U+2028-9), so no name can
/// display as another.
std::string printablePath(llvm::StringRef bytes);

/// The text form of prose that may quote bytes (messages, producers):
/// printable UTF-8 kept, backslashes too (prose is not parsed back), any
/// other byte "\xNN". Applying it twice gives the same text, so a message
/// read back from a JSON report prints as it did.
std::string printableText(llvm::StringRef bytes);

/// True when `bytes` is well-formed UTF-8 (no overlong forms, surrogates or
/// code points past U+10FFFF), as a JSON writer requires.
bool isValidUtf8(llvm::StringRef bytes);

/// `path` as one argument a shell reads back exactly: single-quoted (a
/// quote as '\''), or, holding bytes that do not print, in bash's $'...'
/// with those as \xNN; "./" first when it would read as an option.
std::string shellArgument(llvm::StringRef path);

/// Lower-case hex of every byte.
std::string hexBytes(llvm::StringRef bytes);

/// How a name is written in JSON: `text` is the name itself when it is valid
/// UTF-8, else its printablePath form, and then `bytesHex` holds the exact
/// bytes (written as "<key>_bytes").
struct JsonPath {
  std::string text;
  std::optional<std::string> bytesHex;
};
JsonPath jsonPath(llvm::StringRef bytes);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_PATHTEXT_H
