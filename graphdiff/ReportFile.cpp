//===- ReportFile.cpp - Writing `--output FILE` atomically ----------------===//

#include "graphdiff/DiffReport.h"

#include "support/PathText.h"
#include "support/SafeFile.h"

#include <atomic>
#include <cerrno>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel;

static llvm::Error fail(const std::string &path, const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 support::printablePath(path) + ": " + what);
}

llvm::Error aimodel::graphdiff::writeFileAtomically(const std::string &path,
                                                    llvm::StringRef content) {
  size_t slash = path.rfind('/');
  std::string folder = slash == std::string::npos ? "."
                       : slash == 0               ? "/"
                                                  : path.substr(0, slash);
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  if (name.empty() || name == "." || name == "..")
    return fail(path, "is not a file name");
  llvm::Expected<support::UniqueFd> dir =
      support::openDirectory(folder, support::Symlinks::Follow);
  if (!dir)
    return fail(path, "cannot write into its folder: " +
                          llvm::toString(dir.takeError()));

  // Decided on the name itself, never on what a symlink points to. A
  // symlink put there after this check is replaced by the rename, not
  // written through.
  struct stat st;
  bool replacing = false;
  if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    replacing = true;
    if (S_ISLNK(st.st_mode))
      return fail(path, "is a symlink; not written through");
    if (!S_ISREG(st.st_mode))
      return fail(path, S_ISDIR(st.st_mode) ? "is a directory"
                                            : "is not a regular file");
  } else if (errno != ENOENT) {
    return fail(path, "cannot write: " + support::errnoReason(errno));
  }

  static std::atomic<unsigned> counter{0};
  std::string temp = "." + name + ".aimodel-diff-" +
                     std::to_string(::getpid()) + "-" +
                     std::to_string(counter++);
  support::UniqueFd out(
      ::openat(dir->get(), temp.c_str(),
               O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666));
  if (!out)
    return fail(path, "cannot create a temporary file beside it: " +
                          support::errnoReason(errno));
  auto discard = [&](const llvm::Twine &what) {
    int saved = errno;
    out.reset();
    ::unlinkat(dir->get(), temp.c_str(), 0);
    return fail(path, what + ": " + support::errnoReason(saved));
  };
  // A replaced report keeps its permissions.
  if (replacing && ::fchmod(out.get(), st.st_mode & 07777) != 0)
    return discard("cannot set permissions");
  for (size_t done = 0; done < content.size();) {
    ssize_t n =
        ::write(out.get(), content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return discard("cannot write");
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(out.get()) != 0)
    return discard("cannot write");
  if (::close(out.release()) != 0)
    return discard("cannot write");
  if (::renameat(dir->get(), temp.c_str(), dir->get(), name.c_str()) != 0)
    return discard("cannot replace");
  ::fsync(dir->get());
  return llvm::Error::success();
}
