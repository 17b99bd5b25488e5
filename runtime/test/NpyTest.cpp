//===- NpyTest.cpp - Tests of the .npy reader and writer ------------------===//

#include "kgen/runtime/Npy.h"

#include "TempDirTest.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

#include <sys/stat.h>

using namespace kgen::rt;
namespace fs = std::filesystem;

namespace {

/// A .npy file as bytes: preamble for `major`.0, `dict` plus '\n' as the
/// header (unpadded: readers must not require alignment), then `data`.
std::string npyFile(const std::string &dict, const std::string &data,
                    int major = 1) {
  const std::string header = dict + "\n";
  std::string out = std::string("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string dictFor(const std::string &descr, const std::string &shape) {
  return "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " +
         shape + ", }";
}

class NpyTest : public kgen::rt::test::TempDirTest {
protected:
  /// Reads a file expected to be rejected; checks the message and that the
  /// output tensor is untouched.
  std::string expectRejected(const std::string &path,
                             int64_t maxElements = int64_t{1} << 28) {
    HostTensor out = makeZeros(ElemType::I8, {3});
    std::string err;
    EXPECT_FALSE(readNpy(path, out, err, maxElements)) << path;
    EXPECT_EQ(err.rfind(path + ": ", 0), 0u) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    EXPECT_EQ(out.type, ElemType::I8);
    EXPECT_EQ(out.data.size(), 3u);
    return err;
  }

};

/// What a tensor of `type` reads back as after writeNpy.
ElemType readBackType(ElemType type) {
  return type == ElemType::BF16 || type == ElemType::F8E4M3FN ? ElemType::F32
                                                              : type;
}

TEST_F(NpyTest, RoundTripsEveryType) {
  for (ElemType type :
       {ElemType::F32, ElemType::F16, ElemType::BF16, ElemType::F8E4M3FN,
        ElemType::F64, ElemType::I64, ElemType::I32, ElemType::I16,
        ElemType::I8, ElemType::I1}) {
    SCOPED_TRACE(elemTypeName(type));
    const HostTensor t = makeRandom(type, {3, 5}, 11, -100, 100);
    const std::string path = pathOf(std::string(elemTypeName(type)) + ".npy");
    std::string err;
    ASSERT_TRUE(writeNpy(path, t, err)) << err;

    const std::string bytes = readRaw(path);
    const size_t headerBytes = static_cast<unsigned char>(bytes[8]) |
                               static_cast<unsigned char>(bytes[9]) << 8;
    EXPECT_EQ((10 + headerBytes) % 64, 0u);
    EXPECT_EQ(bytes[10 + headerBytes - 1], '\n');

    HostTensor back;
    ASSERT_TRUE(readNpy(path, back, err)) << err;
    EXPECT_EQ(back.type, readBackType(type));
    EXPECT_EQ(back.shape, t.shape);
    if (back.type == t.type) {
      EXPECT_EQ(back.data, t.data);
    }
    for (int64_t i = 0; i < t.numElements(); ++i)
      ASSERT_EQ(back.getAsDouble(i), t.getAsDouble(i)) << i;
  }
}

TEST_F(NpyTest, RoundTripsScalarsAndEmptyTensors) {
  for (const std::vector<int64_t> &shape :
       {std::vector<int64_t>{}, {0}, {4, 0, 2}, {1}, {2, 1, 3, 1}}) {
    SCOPED_TRACE(formatShape(shape));
    const HostTensor t = makeRandom(ElemType::F64, shape, 5);
    std::string err;
    HostTensor back;
    ASSERT_TRUE(writeNpy(pathOf("t.npy"), t, err)) << err;
    ASSERT_TRUE(readNpy(pathOf("t.npy"), back, err)) << err;
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data);
  }
}

TEST_F(NpyTest, WritesNumPyLayout) {
  HostTensor t = makeZeros(ElemType::F32, {2, 3});
  t.setFromDouble(5, 1.5);
  std::string err;
  ASSERT_TRUE(writeNpy(pathOf("a.npy"), t, err)) << err;
  const std::string bytes = readRaw(pathOf("a.npy"));
  const std::string dict =
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(bytes.size(), 128u + 24u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(bytes.substr(8, 2), std::string("\x76\x00", 2)); // 118
  EXPECT_EQ(bytes.substr(10, dict.size()), dict);
  EXPECT_EQ(bytes.substr(10 + dict.size(), 127 - 10 - dict.size()),
            std::string(127 - 10 - dict.size(), ' '));
  EXPECT_EQ(bytes[127], '\n');
  EXPECT_EQ(bytes.substr(148), std::string("\x00\x00\xc0\x3f", 4)); // 1.5f

  // A one-dimensional shape is written as a Python 1-tuple, a scalar as ().
  ASSERT_TRUE(writeNpy(pathOf("b.npy"), makeZeros(ElemType::I1, {4}), err));
  EXPECT_NE(readRaw(pathOf("b.npy")).find("'descr': '|b1'"), std::string::npos);
  EXPECT_NE(readRaw(pathOf("b.npy")).find("'shape': (4,), }"),
            std::string::npos);
  ASSERT_TRUE(writeNpy(pathOf("c.npy"), makeZeros(ElemType::I8, {}), err));
  EXPECT_NE(readRaw(pathOf("c.npy")).find("'shape': (), }"), std::string::npos);
}

// A header too long for a 16-bit length needs format 2.0.
TEST_F(NpyTest, WritesVersion2ForLongHeaders) {
  const HostTensor t = makeRandom(ElemType::I32, std::vector<int64_t>(30000, 1),
                                  9, -50, 50);
  std::string err;
  ASSERT_TRUE(writeNpy(pathOf("long.npy"), t, err)) << err;
  const std::string bytes = readRaw(pathOf("long.npy"));
  ASSERT_GT(bytes.size(), 65536u);
  EXPECT_EQ(bytes[6], 2);
  uint32_t headerBytes = 0;
  for (int i = 0; i < 4; ++i)
    headerBytes |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[8 + i]))
                   << (8 * i);
  EXPECT_EQ((12 + headerBytes) % 64, 0u);
  EXPECT_EQ(bytes.size(), 12 + headerBytes + 4);
  HostTensor back;
  ASSERT_TRUE(readNpy(pathOf("long.npy"), back, err)) << err;
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.data, t.data);
}

TEST_F(NpyTest, ReadsOtherHeaderSpellings) {
  std::string err;
  HostTensor t;
  // Double quotes, other key order, no trailing comma, version 2.0.
  const std::string i2 = npyFile(
      "{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<i2\"}",
      std::string("\x01\x00\xff\xff\x00\x80", 6), 2);
  ASSERT_TRUE(readNpy(writeRaw("i2.npy", i2), t, err)) << err;
  EXPECT_EQ(t.type, ElemType::I16);
  EXPECT_EQ(t.shape, std::vector<int64_t>{3});
  EXPECT_EQ(t.getAsDouble(0), 1);
  EXPECT_EQ(t.getAsDouble(1), -1);
  EXPECT_EQ(t.getAsDouble(2), -32768);

  // Bools: any nonzero byte is read as 1.
  const std::string b1 =
      npyFile(dictFor("|b1", "(2, 2)"), std::string("\x00\x01\x02\x00", 4));
  ASSERT_TRUE(readNpy(writeRaw("b1.npy", b1), t, err)) << err;
  EXPECT_EQ(t.type, ElemType::I1);
  EXPECT_EQ(t.data, (std::vector<uint8_t>{0, 1, 1, 0}));

  const std::string f2 =
      npyFile(dictFor("<f2", "()"), std::string("\x00\x3c", 2));
  ASSERT_TRUE(readNpy(writeRaw("f2.npy", f2), t, err)) << err;
  EXPECT_EQ(t.type, ElemType::F16);
  EXPECT_TRUE(t.shape.empty());
  EXPECT_EQ(t.getAsDouble(0), 1.0);
}

TEST_F(NpyTest, RejectsMissingFilesAndDirectories) {
  EXPECT_NE(expectRejected(pathOf("absent.npy")).find("No such file"),
            std::string::npos);
  EXPECT_NE(expectRejected(dir).find("directory"), std::string::npos);
  const std::string fifo = pathOf("fifo.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_NE(expectRejected(fifo).find("not a regular file"), std::string::npos);
}

TEST_F(NpyTest, RejectsBadPreambles) {
  const std::string good = npyFile(dictFor("<f4", "(1,)"), std::string(4, 0));
  EXPECT_NE(expectRejected(writeRaw("empty.npy", "")).find("bad magic"),
            std::string::npos);
  std::string badMagic = good;
  badMagic[5] = 'X';
  EXPECT_NE(expectRejected(writeRaw("magic.npy", badMagic)).find("bad magic"),
            std::string::npos);
  EXPECT_NE(expectRejected(writeRaw("short.npy", good.substr(0, 9)))
                .find("truncated"),
            std::string::npos);
  std::string v3 = good;
  v3[6] = 3;
  EXPECT_NE(expectRejected(writeRaw("v3.npy", v3)).find("version 3.0"),
            std::string::npos);
}

TEST_F(NpyTest, RejectsTruncatedHeaders) {
  const std::string good = npyFile(dictFor("<f4", "(1,)"), "");
  EXPECT_NE(expectRejected(writeRaw("cut.npy", good.substr(0, 30)))
                .find("truncated header"),
            std::string::npos);
  // A 4 GiB header length in a version 2.0 file of a few bytes.
  std::string huge = npyFile("{}", "", 2);
  huge[8] = huge[9] = huge[10] = huge[11] = '\xff';
  EXPECT_NE(expectRejected(writeRaw("huge.npy", huge)).find("truncated header"),
            std::string::npos);
  // A header over the 1 MiB limit that the file really holds.
  const std::string big =
      npyFile(dictFor("<f4", "(0,)") + std::string(2 << 20, ' '), "", 2);
  EXPECT_NE(expectRejected(writeRaw("big.npy", big)).find("limit"),
            std::string::npos);
}

TEST_F(NpyTest, RejectsMalformedHeaders) {
  const std::pair<const char *, const char *> cases[] = {
      {"[1, 2]", "not a dict"},
      {"{'descr': '<f4', 'fortran_order': False}", "no 'shape' key"},
      {"{'fortran_order': False, 'shape': (1,)}", "no 'descr' key"},
      {"{'descr': '<f4', 'shape': (1,)}", "no 'fortran_order' key"},
      {"{'descr': '<f4', 'descr': '<f4'}", "duplicate key 'descr'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}",
       "unexpected key 'x'"},
      {"{'descr: '<f4'}", "expected ':'"},
      {"{'descr': '<f4", "unterminated string"},
      {"{'descr': [('a', '<f4')]}", "expected a quoted string"},
      {"{'fortran_order': Maybe}", "expected True or False"},
      {"{'shape': 5}", "expected '('"},
      {"{'shape': (1, x)}", "expected an integer"},
      {"{'shape': (1 2)}", "expected ',' or ')'"},
      {"{'shape': (99999999999999999999,)}", "does not fit in 64 bits"},
      {"{'shape': (9223372036854775808,)}", "does not fit in 64 bits"},
      {"{'descr': '<f4' 'x'}", "expected ',' or '}'"},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (1,), } x",
       "unexpected text"},
      {"", "not a dict"},
      {"{'a\nb': 1}", "unexpected key 'a\\x0ab'"},
  };
  int i = 0;
  for (const auto &[dict, expected] : cases) {
    const std::string path =
        writeRaw("h" + std::to_string(i++) + ".npy",
                 npyFile(dict, std::string(4, 0)));
    const std::string err = expectRejected(path);
    EXPECT_NE(err.find(expected), std::string::npos)
        << dict << " gave " << err;
  }
}

TEST_F(NpyTest, RejectsUnsupportedDtypesAndOrder) {
  for (const char *descr : {"<u2", "|u1", ">f4", "<c8", "<f16", "f4"}) {
    const std::string path =
        writeRaw("d.npy", npyFile(dictFor(descr, "(1,)"), std::string(8, 0)));
    EXPECT_NE(expectRejected(path).find(std::string("unsupported dtype '") +
                                        descr + "'"),
              std::string::npos);
  }
  const std::string fortran =
      npyFile("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }",
              std::string(16, 0));
  EXPECT_NE(expectRejected(writeRaw("f.npy", fortran)).find("fortran_order"),
            std::string::npos);
}

TEST_F(NpyTest, RejectsBadShapesBeforeAllocating) {
  EXPECT_NE(expectRejected(writeRaw("neg.npy", npyFile(dictFor("<f4", "(-1,)"),
                                                       "")))
                .find("negative dimension -1"),
            std::string::npos);
  EXPECT_NE(
      expectRejected(writeRaw("ovf.npy", npyFile(dictFor("<f4",
                                                         "(4611686018427387904,"
                                                         " 4611686018427387904)"),
                                                 "")))
          .find("more than the limit"),
      std::string::npos);
  EXPECT_NE(expectRejected(writeRaw("lim.npy",
                                    npyFile(dictFor("<f4",
                                                    "(100000, 100000, 100000)"),
                                            "")))
                .find("tensor of shape 100000x100000x100000 has more than the "
                      "limit of 268435456 elements"),
            std::string::npos);
  // 2^40 doubles (8 TiB) under an unlimited element count: the size check
  // against the 0-byte data must come before any allocation.
  const std::string path = writeRaw(
      "big.npy", npyFile(dictFor("<f8", "(1099511627776,)"), ""));
  EXPECT_NE(expectRejected(path, std::numeric_limits<int64_t>::max())
                .find("data is 0 bytes"),
            std::string::npos);
  // The element count times the element size overflows int64.
  const std::string wrap = writeRaw(
      "wrap.npy", npyFile(dictFor("<f8", "(2305843009213693952,)"), ""));
  EXPECT_NE(expectRejected(wrap, std::numeric_limits<int64_t>::max())
                .find("data is 0 bytes"),
            std::string::npos);
}

TEST_F(NpyTest, EmptyTensorsWithHugeOtherDimensions) {
  // Found by the npy fuzzer: a 0 among dimensions whose product overflows
  // int64 is an empty tensor (0 elements, 0 bytes of data), not an
  // overflow in numElements.
  const std::string path = writeRaw(
      "empty.npy",
      npyFile(dictFor("<i2", "(1, 40000000000, 35078037097, 3019661, 0)"), ""));
  HostTensor out;
  std::string err;
  ASSERT_TRUE(readNpy(path, out, err)) << err;
  EXPECT_EQ(out.numElements(), 0);
  EXPECT_EQ(out.data.size(), 0u);
  EXPECT_EQ(out.shape,
            (std::vector<int64_t>{1, 40000000000, 35078037097, 3019661, 0}));
}

TEST_F(NpyTest, RejectsDataOfTheWrongSize) {
  EXPECT_NE(expectRejected(writeRaw("short.npy",
                                    npyFile(dictFor("<f4", "(4,)"),
                                            std::string(12, 0))))
                .find("data is 12 bytes but shape 4 of <f4 needs 4 x 4 bytes"),
            std::string::npos);
  EXPECT_NE(expectRejected(writeRaw("long.npy",
                                    npyFile(dictFor("<f4", "(2,)"),
                                            std::string(12, 0))))
                .find("data is 12 bytes"),
            std::string::npos);
}

TEST_F(NpyTest, WriteIsAtomicAndLeavesNoTemporaryFile) {
  const std::string path = pathOf("out.npy");
  const HostTensor first = makeRandom(ElemType::F32, {4}, 1);
  const HostTensor second = makeRandom(ElemType::I32, {2, 2}, 2);
  std::string err;
  ASSERT_TRUE(writeNpy(path, first, err)) << err;
  ASSERT_TRUE(writeNpy(path, second, err)) << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"out.npy"});
  HostTensor back;
  ASSERT_TRUE(readNpy(path, back, err)) << err;
  EXPECT_EQ(back.data, second.data);

  // A tensor breaking its invariant is refused and the old file stays.
  HostTensor broken = first;
  broken.data.pop_back();
  EXPECT_FALSE(writeNpy(path, broken, err));
  EXPECT_EQ(err.rfind(path + ": tensor data is 15 bytes", 0), 0u) << err;
  ASSERT_TRUE(readNpy(path, back, err)) << err;
  EXPECT_EQ(back.data, second.data);
  EXPECT_EQ(listDir(), std::vector<std::string>{"out.npy"});
}

TEST_F(NpyTest, WriteFailuresCleanUp) {
  const HostTensor t = makeRandom(ElemType::F16, {8}, 3);
  std::string err;
  // The directory does not exist.
  const std::string missing = pathOf("no-such-dir/out.npy");
  EXPECT_FALSE(writeNpy(missing, t, err));
  EXPECT_EQ(err.rfind(missing + ": cannot create temporary file", 0), 0u)
      << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{});

  // The target is a non-empty directory: the rename fails after the
  // temporary file was written, which must then be removed.
  const std::string target = pathOf("occupied");
  std::error_code ec;
  ASSERT_TRUE(fs::create_directory(target, ec)) << ec.message();
  writeRaw("occupied/keep", "x");
  EXPECT_FALSE(writeNpy(target, t, err));
  EXPECT_EQ(err.rfind(target + ": cannot rename", 0), 0u) << err;
  EXPECT_EQ(listDir(), std::vector<std::string>{"occupied"});
  EXPECT_EQ(readRaw(pathOf("occupied/keep")), "x");
}

} // namespace
