//===- Npy.cpp - NumPy .npy files -----------------------------------------===//
//
// Format reference: numpy/lib/format.py. A file is the magic "\x93NUMPY", a
// major and minor version byte, the header length (uint16 LE for 1.0, uint32
// LE for 2.0), the header (a Python dict literal with keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n'), then the
// raw element data.
//
//===----------------------------------------------------------------------===//

#include "kgen/runtime/Npy.h"

#include "kgen/runtime/FileUtil.h"
#include "kgen/runtime/Float.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <limits>
#include <string_view>

// Raw .npy data is little-endian and is copied as is.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "kgen runtime assumes a little-endian host");

namespace kgen::rt {
namespace {

constexpr std::string_view kMagic{"\x93NUMPY", 6};
constexpr size_t kAlign = 64;
/// Largest header accepted when reading, in bytes (NumPy itself refuses
/// headers above 10000 bytes by default).
constexpr uint32_t kMaxHeaderBytes = 1u << 20;

struct Dtype {
  const char *descr;
  ElemType type;
};

/// The dtypes read, and written for the element types listed.
constexpr std::array<Dtype, 8> kDtypes{{
    {"<f4", ElemType::F32},
    {"<f2", ElemType::F16},
    {"<f8", ElemType::F64},
    {"<i8", ElemType::I64},
    {"<i4", ElemType::I32},
    {"<i2", ElemType::I16},
    {"|i1", ElemType::I8},
    {"|b1", ElemType::I1},
}};

/// `text` in single quotes for a one-line message: bytes outside printable
/// ASCII as \xNN, and at most 40 bytes of it.
std::string quoted(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  std::string out = "'";
  for (unsigned char c : text.substr(0, kMaxShown)) {
    if (c >= 0x20 && c < 0x7F) {
      out += static_cast<char>(c);
    } else {
      const char *digits = "0123456789abcdef";
      out += {'\\', 'x', digits[c >> 4], digits[c & 15]};
    }
  }
  return out + (text.size() > kMaxShown ? "'..." : "'");
}

//===----------------------------------------------------------------------===//
// Header parsing
//===----------------------------------------------------------------------===//

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

/// Parses the header dict, e.g.
///   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
/// Accepts either quote character, any spacing, a trailing comma, and requires
/// exactly the three keys. Strings have no escape sequences.
class HeaderParser {
public:
  explicit HeaderParser(std::string_view text) : text(text) {}

  /// On failure `err` says what was wrong and at which byte of the header.
  bool parse(NpyHeader &header, std::string &err) {
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!expect('{', "the header is not a dict literal: expected '{'"))
      return fail(err);
    while (!peekIs('}')) {
      std::string key;
      if (!parseString(key) || !expect(':', "expected ':' after a key"))
        return fail(err);
      bool ok;
      if (key == "descr")
        ok = markSeen(seenDescr, key) && parseString(header.descr);
      else if (key == "fortran_order")
        ok = markSeen(seenOrder, key) && parseBool(header.fortranOrder);
      else if (key == "shape")
        ok = markSeen(seenShape, key) && parseShape(header.shape);
      else
        ok = setError("unexpected key " + quoted(key));
      if (!ok)
        return fail(err);
      if (!peekIs('}') && !expect(',', "expected ',' or '}' after a value"))
        return fail(err);
    }
    ++pos; // '}'
    skipSpace();
    if (pos != text.size()) {
      setError("unexpected text after the dict");
      return fail(err);
    }
    if (!seenDescr || !seenOrder || !seenShape) {
      err = std::string("the header has no '") +
            (!seenDescr ? "descr" : !seenOrder ? "fortran_order" : "shape") +
            "' key";
      return false;
    }
    return true;
  }

private:
  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' ||
            text[pos] == '\r'))
      ++pos;
  }

  /// Skips spaces; true if the next character is `c` (not consumed).
  bool peekIs(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }

  /// Consumes `c` after optional spaces, or records `what` as the error.
  bool expect(char c, const char *what) {
    if (!peekIs(c))
      return setError(what);
    ++pos;
    return true;
  }

  /// Always returns false, for use in `return setError(...)`.
  bool setError(std::string what) {
    message = std::move(what);
    return false;
  }

  bool fail(std::string &err) const {
    err = "malformed header: " + message + " at byte " + std::to_string(pos);
    return false;
  }

  bool markSeen(bool &seen, const std::string &key) {
    if (seen)
      return setError("duplicate key " + quoted(key));
    seen = true;
    return true;
  }

  bool parseString(std::string &out) {
    skipSpace();
    if (pos >= text.size() || (text[pos] != '\'' && text[pos] != '"'))
      return setError("expected a quoted string");
    const char quote = text[pos];
    const size_t end = text.find(quote, pos + 1);
    if (end == std::string_view::npos)
      return setError("unterminated string");
    out = std::string(text.substr(pos + 1, end - pos - 1));
    pos = end + 1;
    return true;
  }

  bool parseBool(bool &out) {
    skipSpace();
    if (consumeWord("True"))
      out = true;
    else if (consumeWord("False"))
      out = false;
    else
      return setError("expected True or False");
    return true;
  }

  bool consumeWord(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return false;
    pos += word.size();
    return true;
  }

  /// A tuple of integers: "()", "(5,)", "(2, 3)", "(2, 3,)".
  bool parseShape(std::vector<int64_t> &out) {
    out.clear();
    if (!expect('(', "expected '(' to start the shape"))
      return false;
    while (!peekIs(')')) {
      int64_t dim;
      if (!parseInt(dim))
        return false;
      out.push_back(dim);
      if (!peekIs(')') && !expect(',', "expected ',' or ')' in the shape"))
        return false;
    }
    ++pos; // ')'
    return true;
  }

  /// A decimal integer with an optional '-', which must fit int64.
  bool parseInt(int64_t &out) {
    skipSpace();
    const bool negative = pos < text.size() && text[pos] == '-';
    if (negative)
      ++pos;
    if (pos >= text.size() || text[pos] < '0' || text[pos] > '9')
      return setError("expected an integer in the shape");
    // Accumulate the magnitude as a negative number: its range is larger.
    int64_t value = 0;
    constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      const int digit = text[pos] - '0';
      if (value < (kMin + digit) / 10)
        return setError("shape dimension does not fit in 64 bits");
      value = value * 10 - digit;
      ++pos;
    }
    if (!negative && value == kMin)
      return setError("shape dimension does not fit in 64 bits");
    out = negative ? value : -value;
    return true;
  }

  std::string_view text;
  size_t pos = 0;
  std::string message;
};

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Reads the magic, version and header of an open file of `fileSize` bytes,
/// leaving the descriptor at the first data byte. `dataOffset` receives that
/// position.
bool readHeader(int fd, int64_t fileSize, NpyHeader &header,
                int64_t &dataOffset, std::string &err) {
  char preamble[8];
  if (fileSize < 6 || !readFully(fd, preamble, 6) ||
      std::string_view(preamble, 6) != kMagic) {
    err = "not a .npy file (bad magic)";
    return false;
  }
  if (fileSize < 8 || !readFully(fd, preamble + 6, 2)) {
    err = "truncated .npy preamble";
    return false;
  }
  const int major = static_cast<unsigned char>(preamble[6]);
  const int minor = static_cast<unsigned char>(preamble[7]);
  if ((major != 1 && major != 2) || minor != 0) {
    err = "unsupported .npy format version " + std::to_string(major) + "." +
          std::to_string(minor) + " (1.0 and 2.0 are supported)";
    return false;
  }
  const int lengthBytes = major == 1 ? 2 : 4;
  unsigned char lengthLE[4] = {0, 0, 0, 0};
  if (fileSize < 8 + lengthBytes || !readFully(fd, lengthLE, lengthBytes)) {
    err = "truncated .npy preamble";
    return false;
  }
  const uint32_t headerBytes = lengthLE[0] | lengthLE[1] << 8 |
                               lengthLE[2] << 16 |
                               static_cast<uint32_t>(lengthLE[3]) << 24;
  dataOffset = 8 + lengthBytes + static_cast<int64_t>(headerBytes);
  const std::string truncated = "truncated header (" +
                                std::to_string(headerBytes) +
                                " bytes declared, " +
                                std::to_string(fileSize - 8 - lengthBytes) +
                                " present)";
  if (dataOffset > fileSize) {
    err = truncated;
    return false;
  }
  if (headerBytes > kMaxHeaderBytes) {
    err = "header of " + std::to_string(headerBytes) +
          " bytes is larger than the limit of " +
          std::to_string(kMaxHeaderBytes);
    return false;
  }
  std::string text(headerBytes, '\0');
  if (!readFully(fd, text.data(), headerBytes)) {
    err = truncated; // the file shrank after fstat
    return false;
  }
  return HeaderParser(text).parse(header, err);
}

/// Checks the header's dtype, order and shape against the data size present,
/// giving a zero-filled tensor to read into.
bool planTensor(const NpyHeader &header, int64_t dataBytes,
                int64_t maxElements, HostTensor &t, std::string &err) {
  const Dtype *dtype = nullptr;
  for (const Dtype &d : kDtypes)
    if (header.descr == d.descr)
      dtype = &d;
  if (!dtype) {
    err = "unsupported dtype " + quoted(header.descr) +
          " (supported: <f4 <f2 <f8 <i8 <i4 <i2 |i1 |b1)";
    return false;
  }
  if (header.fortranOrder) {
    err = "fortran_order True is not supported (C order only)";
    return false;
  }
  int64_t n;
  if (!checkedNumElements(header.shape, maxElements, n, err))
    return false;
  const int64_t elemBytes = static_cast<int64_t>(elemTypeBytes(dtype->type));
  if (n > std::numeric_limits<int64_t>::max() / elemBytes ||
      n * elemBytes != dataBytes) {
    err = "data is " + std::to_string(dataBytes) + " bytes but shape " +
          formatShape(header.shape) + " of " + header.descr + " needs " +
          std::to_string(n) + " x " + std::to_string(elemBytes) + " bytes";
    return false;
  }
  t = makeZeros(dtype->type, header.shape);
  return true;
}

/// The body of readNpy; its messages do not name the file yet.
bool readNpyUnprefixed(const std::string &path, HostTensor &out,
                       std::string &err, int64_t maxElements) {
  UniqueFd fd;
  int64_t fileSize = 0;
  if (!openRegularFile(path, fd, fileSize, err))
    return false;
  NpyHeader header;
  int64_t dataOffset;
  if (!readHeader(fd.get(), fileSize, header, dataOffset, err))
    return false;
  HostTensor t;
  if (!planTensor(header, fileSize - dataOffset, maxElements, t, err))
    return false;
  if (!readFully(fd.get(), t.data.data(), t.data.size())) {
    err = "cannot read the data: " +
          (errno ? errnoText() : std::string("the file shrank while reading"));
    return false;
  }
  if (t.type == ElemType::I1)
    for (uint8_t &b : t.data)
      b = b != 0;
  out = std::move(t);
  return true;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

const char *descrFor(ElemType type) {
  if (type == ElemType::BF16 || type == ElemType::F8E4M3FN)
    return "<f4";
  for (const Dtype &d : kDtypes)
    if (d.type == type)
      return d.descr;
  return nullptr; // not reached: kDtypes covers every other ElemType
}

/// "()", "(5,)" or "(2, 3)", as Python prints a tuple.
std::string pythonTuple(const std::vector<int64_t> &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + (shape.size() == 1 ? ",)" : ")");
}

/// Magic, version, length and header, padded with spaces and ended by '\n'
/// so that the data starts at a multiple of kAlign (numpy's _wrap_header:
/// between 1 and kAlign padding bytes). Uses version 2.0 only when the
/// header length does not fit 16 bits.
std::string encodePreambleAndHeader(const HostTensor &t) {
  const std::string dict = std::string("{'descr': '") + descrFor(t.type) +
                           "', 'fortran_order': False, 'shape': " +
                           pythonTuple(t.shape) + ", }";
  auto paddedLength = [&](size_t prefixBytes) {
    const size_t withNewline = dict.size() + 1;
    return withNewline + kAlign - (prefixBytes + withNewline) % kAlign;
  };
  const bool v1 = paddedLength(10) <= 0xFFFF;
  const size_t headerBytes = paddedLength(v1 ? 10 : 12);
  std::string out(kMagic);
  out += static_cast<char>(v1 ? 1 : 2);
  out += '\0';
  for (int i = 0; i < (v1 ? 2 : 4); ++i)
    out += static_cast<char>((headerBytes >> (8 * i)) & 0xFF);
  out += dict;
  out.append(headerBytes - dict.size() - 1, ' ');
  out += '\n';
  return out;
}

/// The data bytes to write: `t.data` itself, or `scratch` filled with float32
/// values for BF16/F8E4M3FN and with canonical 0/1 bytes for I1.
const std::vector<uint8_t> &encodeData(const HostTensor &t,
                                       std::vector<uint8_t> &scratch) {
  if (t.type == ElemType::I1) {
    scratch.resize(t.data.size());
    for (size_t i = 0; i < t.data.size(); ++i)
      scratch[i] = t.data[i] != 0;
    return scratch;
  }
  if (t.type != ElemType::BF16 && t.type != ElemType::F8E4M3FN)
    return t.data;
  const int64_t n = t.numElements();
  scratch.resize(static_cast<size_t>(n) * sizeof(float));
  for (int64_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(t.getAsDouble(i)); // exact
    std::memcpy(scratch.data() + i * sizeof(float), &v, sizeof v);
  }
  return scratch;
}

/// Checks the HostTensor invariant without overflowing.
bool checkInvariant(const HostTensor &t, std::string &err) {
  int64_t n;
  if (!checkedNumElements(t.shape, std::numeric_limits<int64_t>::max(), n,
                          err))
    return false;
  const size_t elemBytes = elemTypeBytes(t.type);
  if (t.data.size() % elemBytes != 0 ||
      t.data.size() / elemBytes != static_cast<uint64_t>(n)) {
    err = "tensor data is " + std::to_string(t.data.size()) +
          " bytes, not the " + std::to_string(n) + " x " +
          std::to_string(elemBytes) + " bytes that shape " +
          formatShape(t.shape) + " of " + elemTypeName(t.type) + " needs";
    return false;
  }
  return true;
}

bool writeNpyUnprefixed(const std::string &path, const HostTensor &t,
                        std::string &err) {
  if (!checkInvariant(t, err))
    return false;
  std::vector<uint8_t> scratch;
  const std::vector<uint8_t> &data = encodeData(t, scratch);
  const std::string header = encodePreambleAndHeader(t);
  return writeFileAtomic(
      path,
      {header, std::string_view(reinterpret_cast<const char *>(data.data()),
                                data.size())},
      err);
}

} // namespace

bool readNpy(const std::string &path, HostTensor &out, std::string &err,
             int64_t maxElements) {
  if (readNpyUnprefixed(path, out, err, maxElements))
    return true;
  err = path + ": " + err;
  return false;
}

bool writeNpy(const std::string &path, const HostTensor &t, std::string &err) {
  if (writeNpyUnprefixed(path, t, err))
    return true;
  err = path + ": " + err;
  return false;
}

} // namespace kgen::rt
