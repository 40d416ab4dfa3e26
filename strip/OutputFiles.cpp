//===- OutputFiles.cpp - The files and folders strip creates --------------===//
//
// Every file and folder of an output is created new (O_EXCL, never through a
// symlink) with the source's permission bits, setuid and setgid dropped
// (OutputTree.h).
//
//===----------------------------------------------------------------------===//

#include "strip/OutputTree.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace aimodel;
using namespace aimodel::strip;
using support::UniqueFd;

llvm::Expected<UniqueFd> aimodel::strip::makeFolder(int dirFd,
                                                    llvm::StringRef name) {
  std::string text = name.str();
  if (::mkdirat(dirFd, text.c_str(), 0700) != 0)
    return support::ioError("cannot create folder", errno);
  return support::openDirectory(dirFd, name, support::Symlinks::Refuse);
}

llvm::Expected<UniqueFd>
aimodel::strip::createFile(int dirFd, llvm::StringRef name, mode_t mode) {
  std::string text = name.str();
  int fd;
  do
    fd = ::openat(dirFd, text.c_str(),
                  O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  mode & 0777);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return support::ioError("cannot create", errno);
  UniqueFd file(fd);
  // Exactly the source's rwx bits, whatever the umask; never setuid,
  // setgid or sticky.
  if (::fchmod(fd, mode & 0777) != 0)
    return support::ioError("cannot set permissions", errno);
  return file;
}

llvm::Expected<uint64_t> aimodel::strip::copyFile(int sourceDirFd,
                                                  llvm::StringRef name,
                                                  int targetDirFd,
                                                  const std::string &inShown,
                                                  const std::string &outShown) {
  llvm::Expected<support::RegularFile> source =
      support::openRegularFile(sourceDirFd, name, support::Symlinks::Refuse);
  if (!source)
    return unusableInput(inShown, source.takeError());
  return copyOpenFile(*source, name, targetDirFd, inShown, outShown);
}

llvm::Expected<uint64_t> aimodel::strip::copyOpenFile(
    const support::RegularFile &source, llvm::StringRef name, int targetDirFd,
    const std::string &inShown, const std::string &outShown) {
  llvm::Expected<mode_t> mode = permissionsOf(source.fd.get());
  if (!mode)
    return unusableInput(inShown, mode.takeError());
  auto [folder, base] = llvm::StringRef(name).rsplit('/');
  if (base.empty())
    std::swap(folder, base);
  llvm::Expected<UniqueFd> target = support::openDirectory(
      targetDirFd, folder.empty() ? "." : folder, support::Symlinks::Refuse);
  if (!target)
    return fileError(outShown, target.takeError());
  llvm::Expected<UniqueFd> out = createFile(target->get(), base, *mode);
  if (!out)
    return fileError(outShown, out.takeError());
  uint64_t size = source.size();
  support::IOSide side = support::IOSide::Read;
  if (llvm::Error err =
          support::copyRange(source.fd.get(), 0, size, out->get(), &side))
    return side == support::IOSide::Read
               ? unusableInput(inShown, std::move(err))
               : fileError(outShown, std::move(err));
  struct stat st;
  if (::fstat(out->get(), &st) != 0)
    return fileError(outShown, support::ioError("cannot stat the copy", errno));
  if (uint64_t(st.st_size) != size)
    return fileError(
        outShown,
        llvm::createStringError(std::error_code(EIO, std::generic_category()),
                                "the copy holds " + llvm::Twine(st.st_size) +
                                    " bytes, not " + llvm::Twine(size)));
  llvm::Expected<support::FileState> after = support::stateOf(source.fd.get());
  if (!after)
    return fileError(inShown, after.takeError());
  if (*after != source.state)
    return fileError(inShown,
                     llvm::createStringError(
                         std::error_code(EAGAIN, std::generic_category()),
                         "changed while it was copied"));
  return size;
}

llvm::Error aimodel::strip::finishFolder(int targetDirFd, llvm::StringRef name,
                                         mode_t mode) {
  llvm::Expected<UniqueFd> fd = support::openDirectory(
      targetDirFd, name.empty() ? "." : name, support::Symlinks::Refuse);
  if (!fd)
    return fd.takeError();
  if (::fchmod(fd->get(), mode & 01777 & ~mode_t(S_ISUID | S_ISGID)) != 0)
    return support::ioError("cannot set permissions", errno);
  return llvm::Error::success();
}

llvm::Expected<mode_t> aimodel::strip::permissionsOf(int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return support::ioError("cannot stat", errno);
  return mode_t(st.st_mode & 07777);
}
