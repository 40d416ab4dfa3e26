//===- FileTestSupport.h - Unreadable and very deep test trees --*- C++ -*-===//
//
// Root passes every permission check, so "this folder cannot be read" can
// only be tested as another user: runAsNobody runs a body in a forked child
// that, when the test runs as root, first becomes nobody (uid/gid 65534);
// gtest's assertions do not cross the fork, so the body returns what it
// found. Trees past PATH_MAX need removing through descriptors.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_BUNDLE_FILETESTSUPPORT_H
#define AIMODEL_BUNDLE_FILETESTSUPPORT_H

#include "llvm/ADT/StringRef.h"

#include <dirent.h>
#include <fcntl.h>
#include <filesystem>
#include <grp.h>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace aimodel::testing {

/// Opens a scratch tree to other users (scratch folders are created 0770):
/// folders 0755, files 0644, symlinks untouched.
inline void shareWithNobody(const std::string &root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::permissions(root, fs::perms(0755), ec);
  for (auto it = fs::recursive_directory_iterator(root, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_symlink(ec))
      continue;
    fs::permissions(it->path(), fs::perms(it->is_directory(ec) ? 0755 : 0644),
                    ec);
  }
}

/// Runs `body` (returning "" on success, else what went wrong) as an
/// unprivileged user; returns its text, or why it could not run.
template <typename Body> std::string runAsNobody(Body body) {
  int pipeFds[2];
  if (::pipe(pipeFds) != 0)
    return "cannot create a pipe";
  pid_t pid = ::fork();
  if (pid < 0)
    return "cannot fork";
  if (pid == 0) {
    ::close(pipeFds[0]);
    std::string result;
    if (::geteuid() == 0 && (::setgroups(0, nullptr) != 0 ||
                             ::setgid(65534) != 0 || ::setuid(65534) != 0))
      result = "cannot become nobody";
    else
      result = body();
    ssize_t ignored = ::write(pipeFds[1], result.data(), result.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipeFds[1]);
  std::string result;
  char buffer[4096];
  ssize_t n;
  while ((n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0)
    result.append(buffer, static_cast<size_t>(n));
  ::close(pipeFds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "the child failed";
  return result;
}

/// Removes everything below `dirFd` through descriptors: path-based removal
/// (std::filesystem included) fails past PATH_MAX.
inline void removeBelow(int dirFd) {
  DIR *handle = ::fdopendir(::dup(dirFd));
  if (!handle)
    return;
  std::vector<std::string> names;
  while (struct dirent *d = ::readdir(handle))
    if (llvm::StringRef(d->d_name) != "." && llvm::StringRef(d->d_name) != "..")
      names.push_back(d->d_name);
  ::closedir(handle);
  for (const std::string &name : names) {
    int fd = ::openat(dirFd, name.c_str(),
                      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
      removeBelow(fd);
      ::close(fd);
      ::unlinkat(dirFd, name.c_str(), AT_REMOVEDIR);
    } else {
      ::unlinkat(dirFd, name.c_str(), 0);
    }
  }
}

/// Empties a folder through descriptors when it goes out of scope.
struct DeepCleanup {
  std::string root;
  ~DeepCleanup() {
    int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
      removeBelow(fd);
      ::close(fd);
    }
  }
};

} // namespace aimodel::testing

#endif // AIMODEL_BUNDLE_FILETESTSUPPORT_H
