//===- MarkupText.cpp - Untrusted text inside HTML and Markdown -----------===//

#include "support/MarkupText.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

std::string aimodel::support::htmlEscape(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

namespace {
using Place = aimodel::support::MarkdownPlace;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
         (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}
bool isWordChar(char c) { return llvm::isAlnum(c); }

/// Whether the word is better a code span, where nothing is markup: GFM
/// or GitHub would link it (an e-mail address, a mention, a URL, a "www."
/// host) or typeset it as math (GitHub's `$...$`).
bool needsCodeSpan(llvm::StringRef word) {
  return word.contains('@') || word.contains('$') || word.contains("://") ||
         word.contains_insensitive("www.");
}

/// "&name;", "&#123;" or "&#x1f;" starting at `text[i]`: a character
/// reference CommonMark would decode.
bool startsReference(llvm::StringRef text, size_t i) {
  llvm::StringRef rest = text.substr(i + 1);
  size_t n = 0;
  auto count = [&](auto isDigit, size_t most) {
    size_t first = n;
    while (n < rest.size() && n - first < most && isDigit(rest[n]))
      ++n;
    return n - first;
  };
  if (rest.consume_front("#")) {
    bool hex = rest.consume_front("x") || rest.consume_front("X");
    size_t digits = hex ? count(llvm::isHexDigit, 6)
                        : count([](char c) { return llvm::isDigit(c); }, 7);
    return digits > 0 && n < rest.size() && rest[n] == ';';
  }
  if (rest.empty() || !llvm::isAlpha(rest[0]))
    return false;
  count([](char c) { return llvm::isAlnum(c); }, 32);
  return n < rest.size() && rest[n] == ';';
}

/// The word `text[begin, end)`, none of it white space, escaped as
/// running text (its neighbours in `text` decide emphasis and escapes).
void escapeWord(std::string &out, llvm::StringRef text, size_t begin,
                size_t end) {
  for (size_t i = begin; i < end; ++i) {
    char c = text[i];
    char prev = i > 0 ? text[i - 1] : ' ';
    char next = i + 1 < text.size() ? text[i + 1] : ' ';
    bool spaced = isSpace(prev) && isSpace(next);
    bool escape = false;
    switch (c) {
    case '\\':
      escape = isAsciiPunct(next) || i + 1 == text.size();
      break;
    case '`':
    case '|':
      escape = true;
      break;
    case '*':
    case '~':
      escape = !spaced;
      break;
    case '_':
      escape = !spaced && !(isWordChar(prev) && isWordChar(next));
      break;
    case ']':
      escape = next == '(';
      break;
    case '<':
      if (llvm::isAlpha(next) || next == '/' || next == '!' || next == '?') {
        out += "&lt;";
        continue;
      }
      break;
    case '&':
      if (startsReference(text, i)) {
        out += "&amp;";
        continue;
      }
      break;
    default:
      break;
    }
    if (escape)
      out += '\\';
    out += c;
  }
}

/// At a line's start: the backslash that keeps a block marker text (an
/// ATX heading, a quote, a list item, a thematic break, a code fence, a
/// link reference definition), or the digits of an ordered list's number.
size_t escapeBlockStart(std::string &out, llvm::StringRef word) {
  char first = word.front();
  if (llvm::StringRef("#>-+*_~=[").contains(first)) {
    out += '\\';
    out += first;
    return 1;
  }
  size_t digits = 0;
  while (digits < word.size() && digits < 10 && llvm::isDigit(word[digits]))
    ++digits;
  if (digits > 0 && digits < word.size() &&
      (word[digits] == '.' || word[digits] == ')')) {
    out += word.substr(0, digits);
    out += '\\';
    out += word[digits];
    return digits + 1;
  }
  return 0;
}
} // namespace

std::string aimodel::support::markdownCode(llvm::StringRef text,
                                           MarkdownPlace place) {
  if (text.empty())
    return "";
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  std::string body;
  for (char c : text) {
    if (c == '\n' || c == '\r')
      body += ' ';
    else if (c == '|' && place == MarkdownPlace::TableCell)
      body += "\\|";
    else
      body += c;
  }
  // CommonMark strips one space from each end when both are spaces: a
  // padding space on both sides goes, the text's own stay.
  bool pad = body.front() == '`' || body.back() == '`' ||
             (body.front() == ' ' && body.back() == ' ');
  std::string fence(longest + 1, '`');
  std::string out;
  // Three backticks starting a line open a fenced code block.
  if (place == MarkdownPlace::LineStart && fence.size() >= 3)
    out += "&#32;";
  out += fence;
  if (pad)
    out += ' ';
  out += body;
  if (pad)
    out += ' ';
  out += fence;
  return out;
}

std::string aimodel::support::markdownEscape(llvm::StringRef text,
                                             MarkdownPlace place) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t i = 0;
  bool lineStart = place == MarkdownPlace::LineStart;
  Place inner =
      place == MarkdownPlace::TableCell ? Place::TableCell : Place::Text;
  while (i < text.size()) {
    char c = text[i];
    if (isSpace(c)) {
      // A space starting a paragraph would be dropped (four, a code
      // block): the first as a reference keeps them all.
      if (lineStart && c != '\n' && c != '\r')
        out += "&#32;";
      else
        out += c == '\t' ? '\t' : ' ';
      lineStart = false;
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && !isSpace(text[end]))
      ++end;
    llvm::StringRef word = text.slice(i, end);
    if (needsCodeSpan(word)) {
      out += markdownCode(word, lineStart ? Place::LineStart : inner);
    } else {
      size_t skip = lineStart ? escapeBlockStart(out, word) : 0;
      escapeWord(out, text, i + skip, end);
    }
    lineStart = false;
    i = end;
  }
  return out;
}
