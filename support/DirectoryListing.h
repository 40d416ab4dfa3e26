//===- DirectoryListing.h - Reading a directory's entries -------*- C++ -*-===//
//
// The names in an open directory and what the listing itself says each is
// (d_type), without examining any entry. Linux reads them with getdents64
// on the descriptor itself; macOS and plain POSIX (and Linux built with
// AIMODEL_POSIX_FALLBACKS, so the fallback is tested code) through
// fdopendir of a duplicate, since fdopendir takes the descriptor it is
// given. Plain POSIX has no d_type: every entry is listed as Unknown there.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_DIRECTORYLISTING_H
#define AIMODEL_SUPPORT_DIRECTORYLISTING_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace aimodel::support {

/// What a listing says an entry is. Unknown: the file system does not say
/// (DT_UNKNOWN), so the entry must be examined (lstat) to be typed.
enum class ListedType : uint8_t { Unknown, File, Directory, Symlink, Other };

/// Whether the types the listing gives are used.
enum class ListedTypes {
  FromListing, ///< d_type where the system gives it
  Unknown,     ///< every entry Unknown, as on a file system without d_type
               ///< (how tests exercise the callers' fallback)
};

/// Where the listing starts.
enum class ListFrom {
  Start,           ///< rewound first: the descriptor may have been read
  FreshDescriptor, ///< opened just now and never read: no rewind needed
};

/// Calls `onEntry(name, type)` for every entry of the open directory
/// `dirFd` except "." and "..", in the order the file system gives them.
/// `name` is valid during the call only. Leaves the descriptor's position
/// at the end of the directory. Errors: "cannot read directory: REASON",
/// with the errno as code.
llvm::Error readDirectory(
    int dirFd,
    llvm::function_ref<void(llvm::StringRef name, ListedType type)> onEntry,
    ListFrom from = ListFrom::Start,
    ListedTypes types = ListedTypes::FromListing);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_DIRECTORYLISTING_H
