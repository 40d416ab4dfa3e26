//===- PathText.h - Printable form of arbitrary file names ------*- C++ -*-===//
//
// File names are bytes. Reports (text and JSON) need valid UTF-8 with no
// control characters, or a crafted name could break a terminal or forge a
// report line. Bytes that are not printable UTF-8 become "\xNN"; a backslash
// becomes "\\" so the escaping stays unambiguous.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_PATHTEXT_H
#define AIMODEL_SUPPORT_PATHTEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace aimodel::support {

std::string printablePath(llvm::StringRef bytes);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_PATHTEXT_H
