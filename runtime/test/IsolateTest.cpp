//===- IsolateTest.cpp - Tests of running work in a child process ---------===//

#include "kgen/runtime/Isolate.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include <sys/wait.h>
#include <unistd.h>

using namespace kgen::rt;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// True when this process has no child left, running or zombie.
bool noChildrenLeft() {
  int status;
  return ::waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;
}

TEST(IsolateTest, CollectsOutputAndExitCode) {
  const ChildOutcome ok = runIsolated(
      [](int fd) { return writeAll(fd, "result: 42\n") ? 0 : 1; }, 10);
  EXPECT_TRUE(ok.ok()) << ok.error;
  EXPECT_EQ(ok.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(ok.exitCode, 0);
  EXPECT_EQ(ok.output, "result: 42\n");
  EXPECT_EQ(ok.error, "exited with code 0");

  const ChildOutcome three = runIsolated(
      [](int fd) {
        writeAll(fd, "partial");
        return 3;
      },
      10);
  EXPECT_FALSE(three.ok());
  EXPECT_EQ(three.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(three.exitCode, 3);
  EXPECT_EQ(three.output, "partial");
  EXPECT_EQ(three.error, "exited with code 3");
  EXPECT_TRUE(noChildrenLeft());
}

TEST(IsolateTest, ReportsSignals) {
  const ChildOutcome segv = runIsolated(
      [](int fd) {
        writeAll(fd, "before the fault");
        std::raise(SIGSEGV);
        return 0;
      },
      10);
  EXPECT_EQ(segv.kind, ChildOutcome::Kind::Signaled);
  EXPECT_EQ(segv.signal, SIGSEGV);
  EXPECT_EQ(segv.output, "before the fault");
  EXPECT_NE(segv.error.find("signal 11"), std::string::npos) << segv.error;

  const ChildOutcome aborted = runIsolated(
      [](int) {
        std::abort();
        return 0;
      },
      10);
  EXPECT_EQ(aborted.kind, ChildOutcome::Kind::Signaled);
  EXPECT_EQ(aborted.signal, SIGABRT);
  EXPECT_FALSE(aborted.ok());

  // A real invalid access, not just a raised signal.
  const ChildOutcome nullWrite = runIsolated(
      [](int) {
        volatile int *volatile nowhere = nullptr;
        *nowhere = 1;
        return 0;
      },
      10);
  EXPECT_EQ(nullWrite.kind, ChildOutcome::Kind::Signaled);
  EXPECT_EQ(nullWrite.signal, SIGSEGV);
  EXPECT_TRUE(noChildrenLeft());
}

TEST(IsolateTest, KillsAChildThatRunsPastTheTimeout) {
  const Clock::time_point start = Clock::now();
  const ChildOutcome slow = runIsolated(
      [](int fd) {
        writeAll(fd, "started");
        ::sleep(30);
        return 0;
      },
      0.3);
  const double elapsed = secondsSince(start);
  EXPECT_EQ(slow.kind, ChildOutcome::Kind::TimedOut);
  EXPECT_EQ(slow.output, "started");
  EXPECT_NE(slow.error.find("timed out after 0.3 s"), std::string::npos)
      << slow.error;
  EXPECT_GE(elapsed, 0.29);
  EXPECT_LT(elapsed, 5.0);
  EXPECT_TRUE(noChildrenLeft());
}

// A child working through a list reports each item: with a limit counted
// from its last report it may run far longer than the limit, and is killed
// only when an item takes longer.
TEST(IsolateTest, ALimitSinceTheLastOutputRestartsOnEachReport) {
  const auto steady = [](int fd) {
    for (int i = 0; i < 6; ++i) {
      ::usleep(150 * 1000);
      writeAll(fd, std::to_string(i));
    }
    return 0;
  };
  const ChildOutcome reporting = runIsolated(steady, 0.5, Deadline::SinceOutput);
  EXPECT_TRUE(reporting.ok()) << reporting.error;
  EXPECT_EQ(reporting.output, "012345");
  const ChildOutcome total = runIsolated(steady, 0.5, Deadline::Total);
  EXPECT_EQ(total.kind, ChildOutcome::Kind::TimedOut);

  const ChildOutcome stuck = runIsolated(
      [](int fd) {
        writeAll(fd, "a");
        ::usleep(100 * 1000);
        writeAll(fd, "b");
        ::sleep(30);
        return 0;
      },
      0.4, Deadline::SinceOutput);
  EXPECT_EQ(stuck.kind, ChildOutcome::Kind::TimedOut);
  EXPECT_EQ(stuck.output, "ab");
  EXPECT_NE(stuck.error.find("reported nothing for 0.4 s"), std::string::npos)
      << stuck.error;
  EXPECT_TRUE(noChildrenLeft());
}

TEST(IsolateTest, ClosedPipeDoesNotEndTheWait) {
  // The child closes its result fd, then keeps running: still a timeout.
  const ChildOutcome outcome = runIsolated(
      [](int fd) {
        ::close(fd);
        ::sleep(30);
        return 0;
      },
      0.3);
  EXPECT_EQ(outcome.kind, ChildOutcome::Kind::TimedOut);
  EXPECT_TRUE(noChildrenLeft());
}

TEST(IsolateTest, ReadsLargeOutputWhileTheChildWrites) {
  // More than a pipe buffer holds: the parent must read as the child writes.
  const std::string megabyte(1 << 20, 'x');
  const ChildOutcome big = runIsolated(
      [&](int fd) { return writeAll(fd, megabyte + "end") ? 0 : 1; }, 30);
  EXPECT_TRUE(big.ok()) << big.error;
  EXPECT_EQ(big.output.size(), megabyte.size() + 3);
  EXPECT_EQ(big.output, megabyte + "end");
}

TEST(IsolateTest, AGrandchildHoldingThePipeDoesNotBlock) {
  const Clock::time_point start = Clock::now();
  const ChildOutcome outcome = runIsolated(
      [](int fd) {
        writeAll(fd, "parent done");
        if (::fork() == 0) { // keeps the pipe's write end open
          ::sleep(2);
          ::_exit(0);
        }
        return 0;
      },
      10);
  EXPECT_TRUE(outcome.ok()) << outcome.error;
  EXPECT_EQ(outcome.output, "parent done");
  EXPECT_LT(secondsSince(start), 1.5);
}

TEST(IsolateTest, OddBodiesAndArguments) {
  const ChildOutcome threw = runIsolated(
      [](int) -> int { throw std::runtime_error("boom"); }, 10);
  EXPECT_EQ(threw.kind, ChildOutcome::Kind::Exited);
  EXPECT_EQ(threw.exitCode, 70);

  // 256 would read as success after truncation to 8 bits.
  const ChildOutcome wide = runIsolated([](int) { return 256; }, 10);
  EXPECT_EQ(wide.exitCode, 255);

  const ChildOutcome empty = runIsolated({}, 10);
  EXPECT_EQ(empty.kind, ChildOutcome::Kind::SpawnFailed);
  EXPECT_FALSE(empty.error.empty());

  for (double bad : {0.0, -1.0, std::nan("")}) {
    const ChildOutcome outcome = runIsolated([](int) { return 0; }, bad);
    EXPECT_EQ(outcome.kind, ChildOutcome::Kind::SpawnFailed) << bad;
    EXPECT_NE(outcome.error.find("timeout"), std::string::npos);
  }
  EXPECT_TRUE(noChildrenLeft());
}

TEST(IsolateTest, TheParentIsUnaffected) {
  // The child's changes to memory stay in the child.
  int counter = 1;
  const ChildOutcome outcome = runIsolated(
      [&](int) {
        counter = 99;
        return 0;
      },
      10);
  EXPECT_TRUE(outcome.ok());
  EXPECT_EQ(counter, 1);

  // Many runs leak no descriptors and leave no zombies.
  const int before = ::dup(0);
  ::close(before);
  for (int i = 0; i < 50; ++i)
    EXPECT_EQ(runIsolated([i](int) { return i % 7; }, 10).exitCode, i % 7);
  const int after = ::dup(0);
  ::close(after);
  EXPECT_EQ(before, after);
  EXPECT_TRUE(noChildrenLeft());
}

TEST(IsolateTest, WriteAllToABadDescriptorFails) {
  EXPECT_FALSE(writeAll(-1, "x"));
  EXPECT_TRUE(writeAll(-1, ""));
}

} // namespace
