//===- FileUtilTest.cpp - reads with limits, atomic outputs, temporaries --===//

#include "kgen/runtime/FileUtil.h"

#include "TempDirTest.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kgen::rt;
namespace fs = std::filesystem;

namespace {

class FileUtilTest : public kgen::rt::test::TempDirTest {
protected:
  /// The pid of a process that has ended (until the system reuses it).
  static pid_t deadPid() {
    const pid_t pid = fork();
    if (pid == 0)
      _exit(0);
    waitpid(pid, nullptr, 0);
    return pid;
  }

  static std::string hostName() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    std::string out;
    for (const char *c = name; *c && out.size() < 32; ++c)
      if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '-')
        out += *c;
    return out.empty() ? "host" : out;
  }
};

/// Runs `body` in a child that reports through a pipe once it is ready, then
/// waits; the parent sends `sig` and returns the child's wait status.
template <typename Body> int signalledChild(int sig, Body body) {
  int ready[2];
  if (pipe(ready) != 0)
    return -1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(ready[0]);
    body();
    const char byte = 1;
    (void)!write(ready[1], &byte, 1);
    for (;;)
      pause();
  }
  close(ready[1]);
  char byte = 0;
  const bool gotReady = read(ready[0], &byte, 1) == 1;
  close(ready[0]);
  kill(pid, gotReady ? sig : SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return gotReady ? status : -1;
}

TEST_F(FileUtilTest, ReadWholeFileRefusesWhatIsNotARegularFile) {
  std::string text, err;
  EXPECT_FALSE(readWholeFile(dir, text, err, 100));
  EXPECT_EQ(err, "is a directory, not a file");
  EXPECT_FALSE(readWholeFile("/dev/zero", text, err, 100));
  EXPECT_EQ(err, "is not a regular file");
  const std::string fifo = pathOf("fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(readWholeFile(fifo, text, err, 100)); // does not block
  EXPECT_EQ(err, "is not a regular file");
  EXPECT_FALSE(readWholeFile(writeRaw("big", std::string(101, 'x')), text, err,
                             100));
  EXPECT_EQ(err, "file of 101 bytes is larger than the limit of 100 bytes");
}

TEST_F(FileUtilTest, SymbolicLinksAreFollowedOrRefused) {
  const std::string target = writeRaw("target", "secret");
  fs::create_symlink(target, pathOf("link"));
  std::string text, err;
  ASSERT_TRUE(readWholeFile(pathOf("link"), text, err, 100)) << err;
  EXPECT_EQ(text, "secret");
  text.clear();
  EXPECT_FALSE(readWholeFile(pathOf("link"), text, err, 100, Symlinks::Refuse));
  EXPECT_EQ(err, "is a symbolic link (refused: it may point outside its folder)");
  EXPECT_EQ(text, "");
  // Links in the folders above are followed.
  fs::create_directory(pathOf("real"));
  writeRaw("real/file", "ok");
  fs::create_directory_symlink(pathOf("real"), pathOf("alias"));
  ASSERT_TRUE(readWholeFile(pathOf("alias/file"), text, err, 100,
                            Symlinks::Refuse))
      << err;
  EXPECT_EQ(text, "ok");
}

TEST_F(FileUtilTest, AtomicWritesLeaveOnlyTheFile) {
  std::string err;
  ASSERT_TRUE(writeFileAtomic(pathOf("out.json"), {"{", "}"}, err)) << err;
  ASSERT_TRUE(writeFileAtomic(pathOf("out.json"), {"[]"}, err)) << err;
  EXPECT_EQ(readRaw(pathOf("out.json")), "[]");
  EXPECT_EQ(listDir(), std::vector<std::string>{"out.json"});
}

TEST_F(FileUtilTest, SpecialFilesAreWrittenIntoNotReplaced) {
  // A rename over /dev/null (as root) turns it into a plain file for the
  // whole machine; writing results or IR to /dev/null must discard them.
  std::string err;
  ASSERT_TRUE(writeFileAtomic("/dev/null", {"discarded"}, err)) << err;
  struct stat st;
  ASSERT_EQ(stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(listDir(), std::vector<std::string>{});
  // A symbolic link is replaced, never written through (a link planted in
  // an output folder must not redirect the write).
  const std::string victim = writeRaw("victim", "precious");
  fs::create_symlink(victim, pathOf("out.json"));
  ASSERT_TRUE(writeFileAtomic(pathOf("out.json"), {"{}"}, err)) << err;
  EXPECT_EQ(readRaw(victim), "precious");
  EXPECT_FALSE(fs::is_symlink(pathOf("out.json")));
  EXPECT_EQ(readRaw(pathOf("out.json")), "{}");
}

TEST_F(FileUtilTest, TemporariesAreNamedBesideTheirTargetAndRemoved) {
  const std::string target = pathOf("db.json");
  std::string err;
  {
    Temporary tmp;
    UniqueFd fd;
    ASSERT_TRUE(tmp.createFile(target, fd, err)) << err;
    const std::string prefix =
        target + ".tmp." + std::to_string(getpid()) + ".";
    EXPECT_EQ(tmp.path().rfind(prefix, 0), 0u) << tmp.path();
    EXPECT_EQ(tmp.path().substr(tmp.path().rfind('@')), "@" + hostName());
    EXPECT_TRUE(fs::exists(tmp.path()));
  } // not committed: removed
  EXPECT_EQ(listDir(), std::vector<std::string>{});

  Temporary folder;
  ASSERT_TRUE(folder.createDirectory(pathOf("pkg"), err)) << err;
  std::ofstream(folder.path() + "/a") << "a";
  EXPECT_TRUE(folder.adoptFile(folder.path() + "/a"));
  ASSERT_TRUE(folder.commit(pathOf("pkg"), err)) << err;
  EXPECT_FALSE(folder.active());
  EXPECT_EQ(listDir(), std::vector<std::string>{"pkg"});
  EXPECT_EQ(readRaw(pathOf("pkg/a")), "a");

  // A folder replaces a non-empty folder whole; the old one is gone.
  Temporary again;
  ASSERT_TRUE(again.createDirectory(pathOf("pkg"), err)) << err;
  std::ofstream(again.path() + "/b") << "b";
  ASSERT_TRUE(again.commit(pathOf("pkg"), err)) << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"pkg"});
  EXPECT_FALSE(fs::exists(pathOf("pkg/a")));
  EXPECT_EQ(readRaw(pathOf("pkg/b")), "b");

  // A failed commit removes the temporary and leaves the target.
  writeRaw("file", "x");
  Temporary third;
  ASSERT_TRUE(third.createDirectory(pathOf("file"), err)) << err;
  EXPECT_FALSE(third.commit(pathOf("file"), err));
  EXPECT_EQ(err.rfind("cannot rename ", 0), 0u) << err;
  EXPECT_EQ(listDir(), (std::vector<std::string>{"file", "pkg"}));
  EXPECT_EQ(readRaw(pathOf("file")), "x");
}

TEST_F(FileUtilTest, StaleTemporariesOfDeadProcessesAreRemoved) {
  const std::string dead = std::to_string(deadPid());
  const std::string host = hostName();
  const std::vector<std::string> stale = {
      "db.json.tmp." + dead,                    // as issue 16 found them
      "db.json.tmp." + dead + ".7",             // older versions
      "r.json.tmp." + dead + ".0@" + host,      // this version
      "x.npy.tmp." + dead + ".12@" + host,
  };
  for (const std::string &name : stale)
    writeRaw(name, std::string(1000, 'x'));
  const std::string staleFolder = "pkg.tmp." + dead + ".3@" + host;
  fs::create_directories(pathOf(staleFolder + "/sub"));
  writeRaw(staleFolder + "/sub/kernel.cu", "x");
  const std::vector<std::string> kept = {
      "a.json.tmp." + std::to_string(getppid()) + ".0@" + host, // alive
      "b.json.tmp." + std::to_string(getpid()) + ".0@" + host,  // this process
      "c.json.tmp." + dead + ".0@another-host",  // another machine's pids
      "notes.tmp.txt", "d.tmp.", "e.tmp.12x", ".tmp.5", "f.json",
  };
  for (const std::string &name : kept)
    writeRaw(name, "keep");
  EXPECT_EQ(removeStaleTemporaries(dir), stale.size() + 1);
  std::vector<std::string> expected = kept;
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(listDir(), expected);
  EXPECT_EQ(removeStaleTemporaries(pathOf("no-such-folder")), 0u);
}

TEST_F(FileUtilTest, TheFirstWriteIntoAFolderRemovesStaleTemporaries) {
  // What an interrupted database write left (183 MB in issue 16) goes with
  // the next atomic write beside it.
  const std::string stale = "tuning.json.tmp." + std::to_string(deadPid()) + ".0";
  writeRaw(stale, "partial");
  std::string err;
  ASSERT_TRUE(writeFileAtomic(pathOf("results.json"), {"{}"}, err)) << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"results.json"});
}

TEST_F(FileUtilTest, SignalsRemoveLiveTemporaries) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    const std::string target = pathOf("out" + std::to_string(sig));
    const int status = signalledChild(sig, [&] {
      std::string err;
      // Leaked on purpose: the signal ends the process with these live.
      auto *file = new Temporary;
      auto *fd = new UniqueFd;
      if (!file->createFile(target + ".json", *fd, err))
        _exit(10);
      (void)!write(fd->get(), "partial", 7);
      auto *folder = new Temporary;
      if (!folder->createDirectory(target + ".pkg", err))
        _exit(11);
      const std::string inside = folder->path() + "/kernel.cu";
      std::ofstream(inside) << "partial";
      if (!folder->adoptFile(inside))
        _exit(12);
      // Not adopted, one level down (a package folder's files): the
      // folder goes with everything in it.
      fs::create_directories(folder->path() + "/gemm0/pkg");
      std::ofstream(folder->path() + "/gemm0/pkg/manifest.json") << "partial";
    });
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << sig << " status " << status;
    EXPECT_EQ(WTERMSIG(status), sig); // the default action still happens
    EXPECT_EQ(listDir(), std::vector<std::string>{}) << "signal " << sig;
  }
}

TEST_F(FileUtilTest, ForkedChildrenLeaveTheirParentsTemporaries) {
  // kgen-bench kills children that time out; they inherit the registry but
  // must not remove what their parent is writing.
  Temporary tmp;
  UniqueFd fd;
  std::string err;
  ASSERT_TRUE(tmp.createFile(pathOf("results.json"), fd, err)) << err;
  const int status = signalledChild(SIGTERM, [] {});
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(fs::exists(tmp.path()));
  ASSERT_TRUE(tmp.commit(pathOf("results.json"), err)) << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"results.json"});
}

} // namespace
