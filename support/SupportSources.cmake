# The support layer's sources, relative to the project root, in one list read
# by the main build and by the fuzzer's standalone clang build (a file added
# here reaches both, so the fuzzer cannot miss a new dependency).
set(AIMODEL_SUPPORT_SOURCES
  support/DirectoryListing.cpp
  support/FileSystem.cpp
  support/GitLfsPointer.cpp
  support/MarkupText.cpp
  support/PathText.cpp
  support/ReadGuard.cpp
  support/SafeFile.cpp
)
