//===- TokenIds.cpp - The highest id a tokenizer.json names ---------------===//

#include "bundle/TokenIds.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/Endian.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace aimodel::bundle;

namespace {

/// Bytes that continue a string's plain run: printable ASCII but the quote
/// and the backslash (one load and branch per byte in the hot loop).
struct PlainBytes {
  bool table[256] = {};
  constexpr PlainBytes() {
    for (int c = 0x20; c < 0x80; ++c)
      table[c] = c != '"' && c != '\\';
  }
};
constexpr PlainBytes kPlain;

/// Where the scan is, for the ids it keeps. The root object is level 1.
enum class Place : uint8_t {
  Other,
  Root,        ///< the document's object
  AddedTokens, ///< root.added_tokens (an array)
  AddedToken,  ///< one of its objects
  Model,       ///< root.model
  VocabMap,    ///< root.model.vocab as an object: token -> id
  VocabList,   ///< root.model.vocab as an array: [piece, score] per id
};

struct Level {
  bool object;
  Place place;
  /// An object's current key, when it matters to the places above.
  Place keyPlace = Place::Other;
  bool keyIsId = false;
  uint64_t elements = 0; ///< VocabList: elements seen
};

class Scanner {
public:
  Scanner(llvm::StringRef text, unsigned maxDepth)
      : p(text.bytes_begin()), begin(text.bytes_begin()), end(text.bytes_end()),
        maxDepth(maxDepth) {}

  TokenIdScan run() {
    skipSpace();
    if (!value(Place::Root) || !finish())
      return std::move(result);
    skipSpace();
    if (p != end)
      fail("bytes after the JSON document");
    return std::move(result);
  }

private:
  const unsigned char *p, *begin, *end;
  unsigned maxDepth;
  llvm::SmallVector<Level, 8> stack;
  TokenIdScan result;

  bool fail(const char *why) {
    if (result.error.empty()) {
      result.error = why;
      result.errorOffset = size_t(p - begin);
    }
    p = end;
    return false;
  }

  void note(uint64_t id) {
    result.highest = std::max(result.highest.value_or(0), id);
  }

  void skipSpace() {
    const unsigned char *q = p;
    while (q != end && (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t'))
      ++q;
    p = q;
  }

  /// One well-formed UTF-8 sequence at p (its lead byte >= 0x80).
  bool utf8() {
    unsigned char lead = *p;
    size_t length;
    unsigned char low = 0x80, high = 0xBF; // the second byte's range
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      if (lead == 0xE0)
        low = 0xA0; // no overlong forms
      else if (lead == 0xED)
        high = 0x9F; // no surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      if (lead == 0xF0)
        low = 0x90;
      else if (lead == 0xF4)
        high = 0x8F; // nothing past U+10FFFF
    } else {
      return fail("ill-formed UTF-8");
    }
    if (size_t(end - p) < length || p[1] < low || p[1] > high)
      return fail("ill-formed UTF-8");
    for (size_t i = 2; i < length; ++i)
      if ((p[i] & 0xC0) != 0x80)
        return fail("ill-formed UTF-8");
    p += length;
    return true;
  }

  /// The end of the plain run from q: eight bytes at a time (a word's
  /// special bytes found by bit arithmetic, the first one by counting
  /// trailing zeros), then byte by byte. Tokens are short: what this saves
  /// is mostly the mispredicted branch at the end of each.
  const unsigned char *plainRun(const unsigned char *q) const {
    constexpr uint64_t ones = 0x0101010101010101ULL;
    constexpr uint64_t highs = 0x8080808080808080ULL;
    auto zeroBytes = [&](uint64_t v) { return (v - ones) & ~v & highs; };
    while (end - q >= 8) {
      uint64_t w = llvm::support::endian::read64le(q);
      uint64_t special = zeroBytes(w ^ (ones * '"')) |
                         zeroBytes(w ^ (ones * '\\')) |
                         ((w - ones * 0x20) & ~w & highs) | (w & highs);
      if (special)
        return q + llvm::countr_zero(special) / 8;
      q += 8;
    }
    while (q != end && kPlain.table[*q])
      ++q;
    return q;
  }

  /// The four hex digits at q as a number, if they are four hex digits.
  std::optional<unsigned> hex4(const unsigned char *q) const {
    if (end - q < 4)
      return std::nullopt;
    unsigned value = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned digit = llvm::hexDigitValue(q[i]);
      if (digit == ~0U)
        return std::nullopt;
      value = value * 16 + digit;
    }
    return value;
  }

  /// A string at p (its opening quote); `text` gets its bytes as written
  /// when given (escapes left in: the keys that matter have none).
  bool string(llvm::StringRef *text = nullptr) {
    const unsigned char *start = ++p;
    bool escaped = false;
    while (true) {
      // The plain run: bytes that are neither special nor multi-byte.
      p = plainRun(p);
      if (p == end)
        return fail("a string is not closed");
      unsigned char c = *p;
      if (c == '"')
        break;
      if (c < 0x20)
        return fail("a control character in a string");
      if (c >= 0x80) {
        if (!utf8())
          return false;
        continue;
      }
      // A backslash.
      escaped = true;
      if (++p == end)
        return fail("a string is not closed");
      switch (*p) {
      case '"':
      case '\\':
      case '/':
      case 'b':
      case 'f':
      case 'n':
      case 'r':
      case 't':
        ++p;
        break;
      case 'u': {
        // A surrogate must come in a pair, high then low.
        std::optional<unsigned> unit = hex4(p + 1);
        if (!unit)
          return fail("a bad \\u escape");
        p += 5;
        if (*unit >= 0xDC00 && *unit <= 0xDFFF)
          return fail("a lone low surrogate");
        if (*unit >= 0xD800 && *unit <= 0xDBFF) {
          std::optional<unsigned> low =
              end - p >= 6 && p[0] == '\\' && p[1] == 'u' ? hex4(p + 2)
                                                          : std::nullopt;
          if (!low || *low < 0xDC00 || *low > 0xDFFF)
            return fail("a high surrogate without its low one");
          p += 6;
        }
        break;
      }
      default:
        return fail("a bad escape");
      }
    }
    if (text)
      *text = escaped ? llvm::StringRef()
                      : llvm::StringRef(reinterpret_cast<const char *>(start),
                                        size_t(p - start));
    ++p;
    return true;
  }

  /// A number at p; `integer` gets its value when it is a non-negative
  /// integer that fits.
  bool number(std::optional<uint64_t> *integer) {
    const unsigned char *start = p;
    bool negative = *p == '-';
    if (negative)
      ++p;
    if (p == end || !llvm::isDigit(*p))
      return fail("a bad number");
    uint64_t value = 0;
    bool fits = true;
    if (*p == '0') {
      ++p;
    } else {
      for (; p != end && llvm::isDigit(*p); ++p) {
        unsigned digit = *p - '0';
        if (value > (UINT64_MAX - digit) / 10)
          fits = false;
        value = value * 10 + digit;
      }
    }
    bool whole = true;
    if (p != end && *p == '.') {
      whole = false;
      if (++p == end || !llvm::isDigit(*p))
        return fail("a bad number");
      while (p != end && llvm::isDigit(*p))
        ++p;
    }
    if (p != end && (*p == 'e' || *p == 'E')) {
      whole = false;
      ++p;
      if (p != end && (*p == '+' || *p == '-'))
        ++p;
      if (p == end || !llvm::isDigit(*p))
        return fail("a bad number");
      while (p != end && llvm::isDigit(*p))
        ++p;
    }
    if (integer && whole && fits && !negative)
      *integer = value;
    // What does not fit a 64-bit integer is read as a double, as the
    // document parser reads it, which refuses one out of range.
    if (!whole || !fits) {
      std::string copy(start, p);
      if (std::isinf(std::strtod(copy.c_str(), nullptr))) {
        p = start;
        return fail("a number out of range");
      }
    }
    return true;
  }

  bool literal(const char *word) {
    size_t length = strlen(word);
    if (size_t(end - p) < length || memcmp(p, word, length) != 0)
      return fail("an unexpected character");
    p += length;
    return true;
  }

  /// What a value found under the current key of the innermost level (or
  /// as an element of it) is, for the places that keep ids.
  Place placeOfChild(bool object) const {
    if (stack.empty())
      return Place::Root;
    const Level &top = stack.back();
    if (top.object)
      switch (top.keyPlace) {
      case Place::AddedTokens:
        return object ? Place::Other : Place::AddedTokens;
      case Place::Model:
        return object ? Place::Model : Place::Other;
      case Place::VocabMap:
        return object ? Place::VocabMap : Place::VocabList;
      default:
        return Place::Other;
      }
    return top.place == Place::AddedTokens && object ? Place::AddedToken
                                                     : Place::Other;
  }

  /// The place a key names in the object `level`.
  static Place placeOfKey(const Level &level, llvm::StringRef key) {
    if (level.place == Place::Root) {
      if (key == "added_tokens")
        return Place::AddedTokens;
      if (key == "model")
        return Place::Model;
    } else if (level.place == Place::Model && key == "vocab") {
      return Place::VocabMap; // or VocabList, by what follows
    }
    return Place::Other;
  }

  /// A scalar just read under the innermost level.
  void scalar(std::optional<uint64_t> integer) {
    if (stack.empty())
      return;
    Level &top = stack.back();
    if (top.place == Place::VocabList)
      ++top.elements;
    else if (integer && ((top.place == Place::VocabMap) ||
                         (top.place == Place::AddedToken && top.keyIsId)))
      note(*integer);
  }

  /// Values iteratively: containers push a level, scalars are consumed.
  bool value(Place) {
    while (true) {
      if (p == end)
        return fail("the document ends early");
      unsigned char c = *p;
      if (c == '{' || c == '[') {
        bool object = c == '{';
        if (!stack.empty() && stack.back().place == Place::VocabList)
          ++stack.back().elements;
        if (stack.size() >= maxDepth)
          return fail("nests too deep");
        Place place = placeOfChild(object);
        stack.push_back({object, place});
        ++p;
        skipSpace();
        if (p != end && *p == (object ? '}' : ']')) {
          ++p;
          if (!close())
            return false;
        } else if (object) {
          if (!key())
            return false;
          continue;
        } else {
          continue; // the first element
        }
      } else if (c == '"') {
        if (!string())
          return false;
        scalar(std::nullopt);
      } else if (c == '-' || llvm::isDigit(c)) {
        std::optional<uint64_t> integer;
        if (!number(&integer))
          return false;
        scalar(integer);
      } else if (c == 't') {
        if (!literal("true"))
          return false;
        scalar(std::nullopt);
      } else if (c == 'f') {
        if (!literal("false"))
          return false;
        scalar(std::nullopt);
      } else if (c == 'n') {
        if (!literal("null"))
          return false;
        scalar(std::nullopt);
      } else {
        return fail("an unexpected character");
      }
      // After a value: a comma and the next, or the end of its container.
      while (true) {
        if (stack.empty())
          return true;
        skipSpace();
        if (p == end)
          return fail("the document ends early");
        Level &top = stack.back();
        if (*p == ',') {
          ++p;
          skipSpace();
          if (top.object && !key())
            return false;
          break; // the next value
        }
        if (*p != (top.object ? '}' : ']'))
          return fail("a missing comma or closing bracket");
        ++p;
        if (!close())
          return false;
      }
    }
  }

  /// An object's "key": before its value.
  bool key() {
    if (p == end || *p != '"')
      return fail("a missing key");
    llvm::StringRef text;
    if (!string(&text))
      return false;
    Level &top = stack.back();
    top.keyPlace = placeOfKey(top, text);
    top.keyIsId = top.place == Place::AddedToken && text == "id";
    skipSpace();
    if (p == end || *p != ':')
      return fail("a missing colon");
    ++p;
    skipSpace();
    return true;
  }

  /// The innermost container just ended.
  bool close() {
    Level done = stack.pop_back_val();
    if (done.place == Place::VocabList && done.elements)
      note(done.elements - 1);
    return true;
  }

  bool finish() { return result.error.empty(); }
};

} // namespace

TokenIdScan aimodel::bundle::scanTokenIds(llvm::StringRef text,
                                          unsigned maxDepth) {
  return Scanner(text, maxDepth).run();
}
