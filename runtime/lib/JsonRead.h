//===- JsonRead.h - typed, non-throwing reads of JSON fields ----*- C++ -*-===//
//
// Private to the runtime library (manifests and results). Every reader
// checks the JSON type before converting, so nothing throws, and reports a
// problem as one line "<field path>: <what was expected>, got <what>";
// callers prefix the file name. Field paths look like "launch.grid[0]".
//
//===----------------------------------------------------------------------===//
#ifndef KGEN_RUNTIME_LIB_JSONREAD_H
#define KGEN_RUNTIME_LIB_JSONREAD_H

#include "kgen/runtime/JsonLimits.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kgen::rt::jsonread {

using nlohmann::json;

/// `key` under `path`: "launch" + "grid" -> "launch.grid".
inline std::string fieldPath(const std::string &path, const std::string &key) {
  return path.empty() ? key : path + "." + key;
}

/// Element `i` of the array at `path`: "params[2]".
inline std::string indexPath(const std::string &path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

/// Serialises `j` on one line; invalid UTF-8 in strings is replaced rather
/// than thrown about.
inline std::string dumpOneLine(const json &j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// What a message says was found: a number's text, a short string quoted
/// (as JSON with only ASCII: control characters, escape sequences and
/// non-ASCII bytes come out as \uXXXX, safe on a terminal), otherwise the
/// JSON type ("an object", "null").
inline std::string describe(const json &j) {
  constexpr size_t kMaxShown = 40;
  if (j.is_number() || j.is_boolean())
    return dumpOneLine(j);
  if (j.is_string()) {
    const std::string text =
        j.dump(-1, ' ', /*ensure_ascii=*/true, json::error_handler_t::replace);
    return text.size() <= kMaxShown ? text : "a long string";
  }
  if (j.is_null())
    return "null";
  return j.is_object() ? "an object" : "an array";
}

/// Records "<path>: <message>" in `err`; always returns false.
inline bool fieldError(const std::string &path, const std::string &message,
                       std::string &err) {
  err = path + ": " + message;
  return false;
}

inline bool typeError(const std::string &path, const char *expected,
                      const json &got, std::string &err) {
  return fieldError(path, std::string("expected ") + expected + ", got " +
                              describe(got),
                    err);
}

/// The member `key` of `obj`, or nullptr when `obj` has none.
inline const json *member(const json &obj, const char *key) {
  const auto it = obj.find(key); // end() also for a non-object
  return it == obj.end() ? nullptr : &*it;
}

/// True when `key` is missing from `obj` or null: how optional fields are
/// left out.
inline bool isAbsent(const json &obj, const char *key) {
  const json *value = member(obj, key);
  return !value || value->is_null();
}

/// The member `key` of `obj`, which must be present; `path` names `obj`.
inline const json *require(const json &obj, const std::string &path,
                           const char *key, std::string &err) {
  const json *value = member(obj, key);
  if (!value)
    fieldError(fieldPath(path, key), "missing", err);
  return value;
}

inline bool readString(const json &j, const std::string &path,
                       std::string &out, std::string &err) {
  if (!j.is_string())
    return typeError(path, "a string", j, err);
  out = j.get<std::string>();
  return true;
}

inline bool readBool(const json &j, const std::string &path, bool &out,
                     std::string &err) {
  if (!j.is_boolean())
    return typeError(path, "true or false", j, err);
  out = j.get<bool>();
  return true;
}

/// A JSON number (integer or not); parsed JSON numbers are always finite.
inline bool readNumber(const json &j, const std::string &path, double &out,
                       std::string &err) {
  if (!j.is_number())
    return typeError(path, "a number", j, err);
  out = j.get<double>();
  return true;
}

/// An integer number in [lo, hi]. Precondition: lo <= hi.
inline bool readInt(const json &j, const std::string &path, int64_t lo,
                    int64_t hi, int64_t &out, std::string &err) {
  const std::string expected = "an integer in [" + std::to_string(lo) + ", " +
                               std::to_string(hi) + "]";
  if (!j.is_number_integer())
    return typeError(path, expected.c_str(), j, err);
  if (j.is_number_unsigned()) { // a non-negative value, possibly > int64
    const uint64_t u = j.get<uint64_t>();
    if (hi < 0 || u > static_cast<uint64_t>(hi) ||
        (lo > 0 && u < static_cast<uint64_t>(lo)))
      return typeError(path, expected.c_str(), j, err);
    out = static_cast<int64_t>(u);
    return true;
  }
  const int64_t v = j.get<int64_t>();
  if (v < lo || v > hi)
    return typeError(path, expected.c_str(), j, err);
  out = v;
  return true;
}

/// readInt into a narrower integer type. Precondition: [lo, hi] fits T.
template <typename T>
bool readIntAs(const json &j, const std::string &path, int64_t lo, int64_t hi,
               T &out, std::string &err) {
  int64_t v;
  if (!readInt(j, path, lo, hi, v, err))
    return false;
  out = static_cast<T>(v);
  return true;
}

/// An array of [minSize, maxSize] integers, each in [lo, hi].
inline bool readIntArray(const json &j, const std::string &path,
                         size_t minSize, size_t maxSize, int64_t lo,
                         int64_t hi, std::vector<int64_t> &out,
                         std::string &err) {
  if (!j.is_array())
    return typeError(path, "an array of integers", j, err);
  if (j.size() < minSize || j.size() > maxSize)
    return fieldError(path,
                      "expected " + std::to_string(minSize) + " to " +
                          std::to_string(maxSize) + " elements, got " +
                          std::to_string(j.size()),
                      err);
  std::vector<int64_t> values(j.size());
  for (size_t i = 0; i < j.size(); ++i)
    if (!readInt(j[i], indexPath(path, i), lo, hi, values[i], err))
      return false;
  out = std::move(values);
  return true;
}

/// Builds the JSON value like json::parse, but keeps the parser's message
/// (with line and column) instead of throwing it, and stops at arrays and
/// objects nested deeper than `maxDepth` (nlohmann's parser itself is
/// iterative; what a deep value breaks is the recursion of everything
/// that walks it later).
class MessageKeepingParser
    : public nlohmann::detail::json_sax_dom_parser<json> {
  using Base = nlohmann::detail::json_sax_dom_parser<json>;

public:
  MessageKeepingParser(json &result, int maxDepth)
      : json_sax_dom_parser(result, /*allow_exceptions=*/false),
        maxDepth(maxDepth) {}

  // sax_parse calls these through the derived type: they hide the base's.
  bool start_object(size_t elements) {
    return enter() && Base::start_object(elements);
  }
  bool start_array(size_t elements) {
    return enter() && Base::start_array(elements);
  }
  bool end_object() {
    --depth;
    return Base::end_object();
  }
  bool end_array() {
    --depth;
    return Base::end_array();
  }

  /// Called by sax_parse on a syntax error; false stops parsing.
  bool parse_error(size_t, const std::string &,
                   const nlohmann::detail::exception &ex) {
    message = ex.what();
    const size_t bracket = message.find("] ");
    if (message.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos)
      message.erase(0, bracket + 2);
    return false;
  }

  std::string message;
  bool tooDeep = false; // message is about the nesting

private:
  bool enter() {
    if (++depth <= maxDepth)
      return true;
    tooDeep = true;
    message = "arrays and objects nested deeper than " +
              std::to_string(maxDepth) + " levels (the limit)";
    return false;
  }

  int maxDepth;
  int depth = 0;
};

/// Parses `text` (a whole file) as JSON without throwing; false with a
/// one-line message ("empty", nesting deeper than `maxDepth`, or the parse
/// error with line and column).
inline bool parseJsonText(const std::string &text, json &out,
                          std::string &err, int maxDepth = kMaxJsonDepth) {
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    err = "empty file, expected JSON";
    return false;
  }
  json parsed;
  MessageKeepingParser parser(parsed, maxDepth);
  if (!json::sax_parse(text, &parser) || !parser.message.empty()) {
    err = parser.tooDeep ? parser.message
                         : "not valid JSON (corrupt or truncated): " +
                               parser.message;
    return false;
  }
  out = std::move(parsed);
  return true;
}

} // namespace kgen::rt::jsonread

#endif // KGEN_RUNTIME_LIB_JSONREAD_H
