//===- MarkupText.cpp - Untrusted text inside HTML and Markdown -----------===//

#include "support/MarkupText.h"

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

std::string aimodel::support::markdownEscape(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size() * 2);
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    // CommonMark: any ASCII punctuation may be backslash-escaped, and then
    // is a literal character (a text node of its own, so GFM's autolinks,
    // which look for "www.", "://" and "@" inside one text node, find
    // none).
    // GFM links an e-mail address across escapes; an (invisible) comment
    // after the '@' splits the text it looks in.
    if (c == '@') {
      out += "\\@<!-- -->";
      continue;
    }
    if ((c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
        (c >= '[' && c <= '`') || (c >= '{' && c <= '~')) {
      out += '\\';
      out += c;
      continue;
    }
    out += c;
  }
  return out;
}
