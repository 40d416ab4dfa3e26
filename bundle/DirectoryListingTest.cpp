//===- DirectoryListingTest.cpp - support::readDirectory and listings -----===//
//
// The lister (getdents64 on Linux, readdir elsewhere) against readdir and
// lstat, the judges: same names, and a type wherever one is given. Then
// bundle::listDirectory with the types the file system gives, with none
// (DT_UNKNOWN, injected) and with every entry examined: the same entries.
//
//===----------------------------------------------------------------------===//

#include "support/DirectoryListing.h"
#include "bundle/Bundle.h"
#include "bundle/FileTestSupport.h"
#include "support/FileSystem.h"
#include "support/SafeFile.h"
#include "testing/TestFiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <map>
#include <set>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace aimodel;
using aimodel::support::ListedType;
using aimodel::support::ListedTypes;
using aimodel::support::ListFrom;
using aimodel::support::UniqueFd;

namespace {

UniqueFd openFolder(const std::string &path) {
  return UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
}

/// What lstat says `name` below `dir` is.
ListedType lstatType(const std::string &dir, const std::string &name) {
  struct stat st;
  if (::lstat((dir + "/" + name).c_str(), &st) != 0)
    return ListedType::Unknown;
  if (S_ISREG(st.st_mode))
    return ListedType::File;
  if (S_ISDIR(st.st_mode))
    return ListedType::Directory;
  if (S_ISLNK(st.st_mode))
    return ListedType::Symlink;
  return ListedType::Other;
}

/// The names readdir gives, sorted ("." and ".." left out).
std::vector<std::string> readdirNames(const std::string &dir) {
  std::vector<std::string> names;
  DIR *handle = ::opendir(dir.c_str());
  EXPECT_NE(handle, nullptr);
  if (!handle)
    return names;
  while (struct dirent *d = ::readdir(handle))
    if (std::strcmp(d->d_name, ".") && std::strcmp(d->d_name, ".."))
      names.push_back(d->d_name);
  ::closedir(handle);
  std::sort(names.begin(), names.end());
  return names;
}

/// Every (name, type) the lister gives, in its order.
std::vector<std::pair<std::string, ListedType>>
listed(int fd, ListFrom from = ListFrom::Start,
       ListedTypes types = ListedTypes::FromListing) {
  std::vector<std::pair<std::string, ListedType>> entries;
  llvm::Error error = support::readDirectory(
      fd,
      [&](llvm::StringRef name, ListedType type) {
        entries.emplace_back(name.str(), type);
      },
      from, types);
  EXPECT_FALSE(error) << llvm::toString(std::move(error));
  return entries;
}

std::vector<std::string>
sortedNames(const std::vector<std::pair<std::string, ListedType>> &entries) {
  std::vector<std::string> names;
  for (const auto &entry : entries)
    names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  return names;
}

/// One entry of every kind below `dir`: file, folder, symlink, FIFO, socket.
void makeEveryKind(const aimodel::testing::ScratchDir &dir) {
  dir.write("file", "x");
  dir.mkdir("folder");
  ASSERT_EQ(::symlink("file", dir.path("link").c_str()), 0);
  ASSERT_EQ(::symlink("nowhere", dir.path("dangling").c_str()), 0);
  ASSERT_EQ(::mkfifo(dir.path("fifo").c_str(), 0644), 0);
  int sock = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(sock, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::string socketPath = dir.path("socket");
  ASSERT_LT(socketPath.size(), sizeof(address.sun_path));
  std::memcpy(address.sun_path, socketPath.c_str(), socketPath.size() + 1);
  ASSERT_EQ(
      ::bind(sock, reinterpret_cast<sockaddr *>(&address), sizeof(address)), 0);
  ::close(sock);
}

/// The listing's types are the file system's own or Unknown, never wrong.
void expectTypesAgreeWithLstat(
    const std::string &dir,
    const std::vector<std::pair<std::string, ListedType>> &entries) {
  for (const auto &[name, type] : entries) {
    if (type != ListedType::Unknown) {
      EXPECT_EQ(type, lstatType(dir, name)) << name;
    }
  }
}

} // namespace

TEST(DirectoryListing, AgreesWithReaddirOnEveryKindOfEntry) {
  aimodel::testing::ScratchDir dir;
  makeEveryKind(dir);
  UniqueFd fd = openFolder(dir.root);
  ASSERT_TRUE(fd);
  auto entries = listed(fd.get(), ListFrom::FreshDescriptor);
  EXPECT_EQ(sortedNames(entries), readdirNames(dir.root));
  EXPECT_EQ(entries.size(), 6u);
  expectTypesAgreeWithLstat(dir.root, entries);
  if (!support::usesPosixFallbacks()) { // Linux and macOS give d_type
    for (const auto &[name, type] : entries)
      EXPECT_NE(type, ListedType::Unknown) << name;
  }

  // bundle::listDirectory types each as lstat does, however it learns it.
  for (bundle::EntryDetail detail :
       {bundle::EntryDetail::Full, bundle::EntryDetail::Types})
    for (ListedTypes types : {ListedTypes::FromListing, ListedTypes::Unknown}) {
      llvm::Expected<std::vector<bundle::DirEntry>> got =
          bundle::listDirectory(fd.get(), {detail, ListFrom::Start, types});
      ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
      ASSERT_EQ(got->size(), 6u);
      for (const bundle::DirEntry &e : *got) {
        ListedType want = lstatType(dir.root, e.name);
        EXPECT_EQ(int(e.type), want == ListedType::File        ? 0
                               : want == ListedType::Directory ? 1
                               : want == ListedType::Symlink   ? 2
                                                               : 3)
            << e.name;
        if (e.type == bundle::DirEntry::Type::Symlink) {
          EXPECT_EQ(e.symlinkTarget, e.name == "link" ? "file" : "nowhere");
        }
        // Folders and symlinks are always examined (walks need their
        // identity); all are where the types are unknown or asked for.
        bool examined = detail == bundle::EntryDetail::Full ||
                        types == ListedTypes::Unknown ||
                        support::usesPosixFallbacks() ||
                        e.type == bundle::DirEntry::Type::Directory ||
                        e.type == bundle::DirEntry::Type::Symlink;
        if (examined) {
          EXPECT_TRUE(e.examined) << e.name;
        }
        if (e.examined) {
          struct stat st;
          ASSERT_EQ(::lstat(dir.path(e.name).c_str(), &st), 0);
          EXPECT_EQ(e.inode, uint64_t(st.st_ino)) << e.name;
          EXPECT_EQ(e.size, uint64_t(st.st_size)) << e.name;
        }
      }
    }
}

TEST(DirectoryListing, UnknownTypesAreInjectable) {
  aimodel::testing::ScratchDir dir;
  makeEveryKind(dir);
  UniqueFd fd = openFolder(dir.root);
  ASSERT_TRUE(fd);
  auto entries = listed(fd.get(), ListFrom::Start, ListedTypes::Unknown);
  EXPECT_EQ(sortedNames(entries), readdirNames(dir.root));
  for (const auto &[name, type] : entries) {
    EXPECT_EQ(type, ListedType::Unknown) << name;
  }
}

TEST(DirectoryListing, AHugeDirectoryTakesManyReadsAndListsEachNameOnce) {
  aimodel::testing::ScratchDir dir;
  // 3,000 names of 200 bytes: ~700 KiB of records, many 32 KiB reads.
  for (int i = 0; i < 3000; ++i) {
    std::string name = std::to_string(i);
    name += std::string(200 - name.size(), 'n');
    ASSERT_EQ(::mknod(dir.path(name).c_str(), S_IFREG | 0644, 0), 0);
  }
  UniqueFd fd = openFolder(dir.root);
  ASSERT_TRUE(fd);
  auto entries = listed(fd.get(), ListFrom::FreshDescriptor);
  std::vector<std::string> names = sortedNames(entries);
  EXPECT_EQ(names.size(), 3000u);
  EXPECT_EQ(names, readdirNames(dir.root));
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  expectTypesAgreeWithLstat(dir.root, entries);
  // Read to its end, the descriptor lists everything again from the start.
  EXPECT_EQ(sortedNames(listed(fd.get(), ListFrom::Start)), names);
}

TEST(DirectoryListing, NamesHoldEveryByteValue) {
  aimodel::testing::ScratchDir dir;
  // Each byte but NUL and '/' alone after a prefix, and all in one name
  // (in two halves: a name is at most 255 bytes).
  std::string low, high;
  for (int byte = 1; byte < 256; ++byte) {
    if (byte == '/')
      continue;
    char c = char(byte);
    std::string name = std::string("b-") + c;
    dir.write(name, "");
    (byte < 128 ? low : high) += c;
  }
  dir.write(low, "");
  dir.write(high, "");
  UniqueFd fd = openFolder(dir.root);
  ASSERT_TRUE(fd);
  auto entries = listed(fd.get(), ListFrom::FreshDescriptor);
  std::vector<std::string> names = sortedNames(entries);
  EXPECT_EQ(names.size(), 254u + 2u);
  EXPECT_EQ(names, readdirNames(dir.root));
  EXPECT_TRUE(std::binary_search(names.begin(), names.end(), low));
  EXPECT_TRUE(std::binary_search(names.begin(), names.end(), high));
  llvm::Expected<std::vector<bundle::DirEntry>> got =
      bundle::listDirectory(fd.get(), {bundle::EntryDetail::Types});
  ASSERT_TRUE(bool(got)) << llvm::toString(got.takeError());
  std::vector<std::string> gotNames;
  for (const bundle::DirEntry &e : *got) {
    gotNames.push_back(e.name);
    EXPECT_EQ(e.type, bundle::DirEntry::Type::File);
  }
  EXPECT_EQ(gotNames, names); // sorted by bytes, as listDirectory promises
}

TEST(DirectoryListing, ADirectoryChangedWhileListedListsWhatStayedOnce) {
  aimodel::testing::ScratchDir dir;
  constexpr int kFiles = 2000;
  for (int i = 0; i < kFiles; ++i)
    dir.write("keep-" + std::to_string(i), "");
  for (int i = 0; i < 500; ++i)
    dir.write("gone-" + std::to_string(i), "");
  UniqueFd fd = openFolder(dir.root);
  ASSERT_TRUE(fd);
  std::map<std::string, int> seen;
  bool changed = false;
  llvm::Error error = support::readDirectory(
      fd.get(),
      [&](llvm::StringRef name, ListedType) {
        ++seen[name.str()];
        if (changed)
          return;
        // After the first entry: half the folder changes under the listing.
        changed = true;
        for (int i = 0; i < 500; ++i) {
          ::unlink(dir.path("gone-" + std::to_string(i)).c_str());
          dir.write("new-" + std::to_string(i), "");
        }
      },
      ListFrom::FreshDescriptor);
  ASSERT_FALSE(error) << llvm::toString(std::move(error));
  // POSIX: an entry neither added nor removed meanwhile is listed exactly
  // once; the others at most once.
  for (int i = 0; i < kFiles; ++i)
    EXPECT_EQ(seen["keep-" + std::to_string(i)], 1) << i;
  for (const auto &[name, count] : seen) {
    EXPECT_LE(count, 1) << name;
  }
  // And the listing made now shows the folder as it is.
  llvm::Expected<std::vector<bundle::DirEntry>> now =
      bundle::listDirectory(fd.get(), {bundle::EntryDetail::Types});
  ASSERT_TRUE(bool(now)) << llvm::toString(now.takeError());
  EXPECT_EQ(now->size(), size_t(kFiles + 500));
}

TEST(DirectoryListing, NamesWithoutSearchPermissionFailAsBefore) {
  // A folder whose names can be read but not examined (r--) fails to list
  // even with types from the listing and only files in it: one entry is
  // examined to tell, so nothing is typed by guess.
  aimodel::testing::ScratchDir dir;
  dir.write("listonly/a", "x");
  dir.write("listonly/b", "y");
  aimodel::testing::shareWithNobody(dir.root);
  ASSERT_EQ(::chmod(dir.path("listonly").c_str(), 0444), 0);
  EXPECT_EQ(aimodel::testing::runAsNobody([&]() -> std::string {
              UniqueFd fd = openFolder(dir.path("listonly"));
              if (!fd)
                return "cannot open";
              llvm::Expected<std::vector<bundle::DirEntry>> got =
                  bundle::listDirectory(fd.get(), {bundle::EntryDetail::Types});
              if (got)
                return "listed " + std::to_string(got->size());
              std::string message = llvm::toString(got.takeError());
              return message == "cannot read directory: permission denied"
                         ? ""
                         : message;
            }),
            "");
  ASSERT_EQ(::chmod(dir.path("listonly").c_str(), 0755), 0);
}
