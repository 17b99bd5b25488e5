//===- NamesTest.cpp - the one check of names (Names.h) -------------------===//

#include "kgen/runtime/Names.h"

#include <gtest/gtest.h>

#include <string>

using namespace kgen::rt;

namespace {

TEST(NamesTest, IdentifiersAreCIdentifiers) {
  for (const char *name : {"A", "bias", "tma_a", "_x", "kgen_gemm_bf16_m4096",
                           "x1", "Int", "mainly", "thread_idx"})
    EXPECT_EQ(identifierProblem(name), "") << name;
  EXPECT_TRUE(isIdentifier("D"));
  EXPECT_TRUE(isIdentifier(std::string(kMaxIdentifierLength, 'a')));
}

TEST(NamesTest, IdentifierProblemsSayWhy) {
  const std::pair<std::string, const char *> cases[] = {
      {"", "is empty"},
      {std::string(kMaxIdentifierLength + 1, 'a'), "is longer than 128 characters"},
      {"1x", "does not start with a letter or '_'"},
      {"a b", "has a character other than letters, digits and '_'"},
      {"a-b", "has a character other than"},
      {"evil\n#include </etc/passwd>\nint x;", "has a character other than"},
      {"x*/", "has a character other than"},
      {"f(int", "has a character other than"},
      {"na\xc3\xafve", "has a character other than"},
      {std::string("a\0b", 3), "has a character other than"},
      {"__LINE__", "is reserved to the C++ implementation"},
      {"__x", "is reserved"},
      {"_Pragma", "is reserved"},
      {"int", "is a C++ or CUDA keyword or built-in"},
      {"template", "is a C++ or CUDA keyword"},
      {"threadIdx", "is a C++ or CUDA keyword or built-in"},
      {"blockDim", "is a C++ or CUDA keyword or built-in"},
      {"main", "is a C++ or CUDA keyword or built-in"},
      {"defined", "is a C++ or CUDA keyword or built-in"},
      {"NULL", "is a C++ or CUDA keyword or built-in"},
  };
  for (const auto &[name, why] : cases) {
    const std::string problem = identifierProblem(name);
    EXPECT_EQ(problem.rfind(why, 0), 0u) << escapeForTerminal(name) << ": " << problem;
    EXPECT_FALSE(isIdentifier(name));
  }
}

TEST(NamesTest, FileNamesArePlainComponents) {
  for (const char *name : {"kernel.cu", "manifest.json", "gemm_128x256-v2.cu",
                           "a", "x..y"})
    EXPECT_EQ(fileNameProblem(name), "") << name;
  EXPECT_EQ(fileNameProblem(std::string(200, 'f')), "");
  const std::pair<std::string, const char *> cases[] = {
      {"", "is empty"},
      {std::string(201, 'f'), "is longer than 200 characters"},
      {".", "starts with '-' or '.'"},
      {"..", "starts with '-' or '.'"},
      {".hidden", "starts with '-' or '.'"},
      {"-o", "starts with '-' or '.'"},
      {"a/b", "has a character other than"},
      {"../x", "starts with"},
      {"/etc/passwd", "has a character other than"},
      {"a b.cu", "has a character other than"},
      {"k\n.cu", "has a character other than"},
      {std::string("k\0.cu", 5), "has a character other than"},
      {"x\\y", "has a character other than"},
  };
  for (const auto &[name, why] : cases)
    EXPECT_EQ(fileNameProblem(name).rfind(why, 0), 0u)
        << escapeForTerminal(name) << ": " << fileNameProblem(name);
}

TEST(NamesTest, EscapeForTerminalKeepsOneLineOfPrintableAscii) {
  EXPECT_EQ(escapeForTerminal("gemm_128 ok: 1.5 ms (x)"), "gemm_128 ok: 1.5 ms (x)");
  EXPECT_EQ(escapeForTerminal("a\nb"), "a\\x0ab");
  EXPECT_EQ(escapeForTerminal("\x1b[2J\x1b]0;title\x07"),
            "\\x1b[2J\\x1b]0;title\\x07");
  EXPECT_EQ(escapeForTerminal("\r\t"), "\\x0d\\x09");
  EXPECT_EQ(escapeForTerminal(std::string("\0", 1)), "\\x00");
  EXPECT_EQ(escapeForTerminal("\x7f"), "\\x7f");
  // UTF-8 C1 controls (U+009B is a CSI on some terminals) and any other
  // byte past ASCII.
  EXPECT_EQ(escapeForTerminal("\xc2\x9b" "2J"), "\\xc2\\x9b2J");
  // A backslash is escaped too, so the result reads back unambiguously.
  EXPECT_EQ(escapeForTerminal("a\\x0ab"), "a\\\\x0ab");
  // Every byte: the result is printable ASCII on one line.
  std::string all;
  for (int c = 0; c < 256; ++c)
    all += static_cast<char>(c);
  for (char c : escapeForTerminal(all))
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << int(c);
}

} // namespace
