//===- DebugPayload.h - Strings a shipping asset must not carry -*- C++ -*-===//
//
// What the debug-payload rule (AIM007) looks for in a string, written once
// for the pass (strings MLIR sees) and for the audit's pre-check over the
// bytecode string table: absolute source paths, the user names in home
// folders, and SHA-256 hashes of source files (coreai-format.md §4.2: the
// new debuginfo form embeds the absolute directory and the source's SHA-256).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_DEBUGPAYLOAD_H
#define AIMODEL_MLIR_PASSES_DEBUGPAYLOAD_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"

namespace aimodel::passes {

enum class PayloadKind { AbsolutePath = 0, UserName = 1, SourceHash = 2 };
inline constexpr unsigned kNumPayloadKinds = 3;

inline llvm::StringRef payloadKindName(PayloadKind kind) {
  switch (kind) {
  case PayloadKind::AbsolutePath:
    return "absolute source path";
  case PayloadKind::UserName:
    return "home-directory user name";
  case PayloadKind::SourceHash:
    return "source-file hash";
  }
  return "";
}

namespace detail {
inline bool isPathChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '.' || c == '-' || c == '~';
}
/// The folder name after `prefix` (e.g. "/Users/"), if `path` has one.
inline llvm::StringRef homeUser(llvm::StringRef path, llvm::StringRef prefix,
                                char separator) {
  size_t at = path.find(prefix);
  if (at == llvm::StringRef::npos)
    return "";
  llvm::StringRef rest = path.substr(at + prefix.size());
  llvm::StringRef user =
      rest.take_until([&](char c) { return c == separator; });
  // "/Users/Shared" is no one's home; a name must be followed by more path.
  if (user.empty() || user.size() == rest.size() || user == "Shared")
    return "";
  return user;
}
} // namespace detail

/// True for a path that names a place on the machine that wrote the file:
/// "/x/y", "~/x", "C:\x" or "C:/x", "file:///x".
inline bool isAbsolutePath(llvm::StringRef text) {
  if (text.consume_front("file://"))
    return text.starts_with("/");
  if (text.size() >= 3 && llvm::isAlpha(text[0]) && text[1] == ':' &&
      (text[2] == '\\' || text[2] == '/'))
    return true;
  if (text.starts_with("~/"))
    return true;
  // "/" alone or "/x" is too little to be a path (a division sign, a key).
  return text.size() > 2 && text[0] == '/' && detail::isPathChar(text[1]) &&
         text.find('/', 2) != llvm::StringRef::npos;
}

/// True for the 64 hex digits of a SHA-256.
inline bool isSha256Hex(llvm::StringRef text) {
  return text.size() == 64 && llvm::all_of(text, llvm::isHexDigit);
}

/// Calls `found` for each kind of payload `text` carries, with the piece
/// that is it (the whole path, the user name, the hash).
inline void
classifyPayload(llvm::StringRef text,
                llvm::function_ref<void(PayloadKind, llvm::StringRef)> found) {
  if (isAbsolutePath(text)) {
    found(PayloadKind::AbsolutePath, text);
    llvm::StringRef user = detail::homeUser(text, "/Users/", '/');
    if (user.empty())
      user = detail::homeUser(text, "/home/", '/');
    if (user.empty())
      user = detail::homeUser(text, "\\Users\\", '\\');
    if (!user.empty())
      found(PayloadKind::UserName, user);
  } else if (isSha256Hex(text)) {
    found(PayloadKind::SourceHash, text);
  }
}

namespace detail {
/// Characters a path or hash token is made of.
inline bool isTokenChar(char c) {
  return isPathChar(c) || c == '/' || c == '\\' || c == ':';
}
inline bool isPrintable(char c) { return c >= 0x20 && c < 0x7f; }
} // namespace detail

/// Calls `found` for each piece of payload inside `bytes`, text that is not
/// one string but holds some (a longer string, an entry's encoding): every
/// token (a run of path characters) that starts after a character that
/// cannot be in one and is a path or a hash, and every home folder
/// ("/Users/<name>/", "/home/<name>/") wherever it starts.
inline void
classifyBytes(llvm::StringRef bytes,
              llvm::function_ref<void(PayloadKind, llvm::StringRef)> found) {
  for (size_t p = 0, n = bytes.size(); p < n; ++p) {
    char c = bytes[p];
    if (!detail::isTokenChar(c))
      continue;
    llvm::StringRef rest = bytes.substr(p);
    bool starts = p == 0 || !detail::isTokenChar(bytes[p - 1]) ||
                  !detail::isPrintable(bytes[p - 1]);
    bool home = rest.starts_with("/Users/") || rest.starts_with("/home/") ||
                rest.starts_with("\\Users\\");
    if (!starts && !home)
      continue;
    llvm::StringRef token = rest.take_while(detail::isTokenChar);
    bool any = false;
    classifyPayload(token, [&](PayloadKind kind, llvm::StringRef piece) {
      any = true;
      found(kind, piece);
    });
    if (any)
      p += token.size() - 1;
  }
}

/// True when `text` carries any payload (the audit's pre-check).
inline bool hasPayload(llvm::StringRef text) {
  bool any = false;
  classifyPayload(text, [&](PayloadKind, llvm::StringRef) { any = true; });
  return any;
}

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_DEBUGPAYLOAD_H
