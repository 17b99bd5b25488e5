//===- ProcessTest.cpp - running other programs ----------------------------===//

#include "kgen/runtime/Process.h"

#include <gtest/gtest.h>

using namespace kgen::rt;

namespace {

TEST(ProcessTest, CapturesBothStreamsAndTheExitStatus) {
  const ProcessResult r =
      runProcess({"sh", "-c", "echo out; echo err >&2; exit 3"});
  EXPECT_TRUE(r.started);
  EXPECT_EQ(r.exitCode, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.errText, "err\n");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.describe(), "exit 3");
}

TEST(ProcessTest, ArgumentsReachTheProgramAsTheyAre) {
  // No shell reads them: quotes, spaces and $ stay.
  const ProcessResult r = runProcess({"printf", "%s|", "a b", "$HOME", "'q'"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out, "a b|$HOME|'q'|");
}

TEST(ProcessTest, ASignalAndAMissingProgramAreSaidSo) {
  const ProcessResult killed = runProcess({"sh", "-c", "kill -9 $$"});
  EXPECT_TRUE(killed.started);
  EXPECT_EQ(killed.signal, 9);
  EXPECT_EQ(killed.describe(), "killed by signal 9");
  const ProcessResult missing = runProcess({"/no/such/program"});
  EXPECT_FALSE(missing.started);
  EXPECT_NE(missing.describe().find("cannot run /no/such/program"),
            std::string::npos);
  EXPECT_FALSE(runProcess({"no-such-program-on-path-kgen"}).started);
}

TEST(ProcessTest, LargeOutputOnBothStreamsDoesNotDeadlock) {
  // More than a pipe holds, on both streams at once.
  const ProcessResult r = runProcess(
      {"sh", "-c", "head -c 300000 /dev/zero; head -c 300000 /dev/zero >&2"});
  ASSERT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(r.out.size(), 300000u);
  EXPECT_EQ(r.errText.size(), 300000u);
}

TEST(ProcessTest, SelfExecutableIsThisTest) {
  EXPECT_NE(selfExecutable().find("kgen-runtime-tests"), std::string::npos);
}

} // namespace
