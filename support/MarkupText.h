//===- MarkupText.h - Untrusted text inside HTML and Markdown --*- C++ -*-===//
//
// Reports for people quote names and messages from the files they read, and
// a crafted name must not become markup: these turn any text into markup
// that renders as exactly that text. Apply them to the printable form
// (PathText.h), so bytes that are not UTF-8 are already `\xNN`.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_SUPPORT_MARKUPTEXT_H
#define AIMODEL_SUPPORT_MARKUPTEXT_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace aimodel::support {

/// `text` with &, <, >, " and ' as character references: HTML character
/// data or a quoted attribute value.
std::string htmlEscape(llvm::StringRef text);

/// Where in a Markdown document untrusted text goes: a GFM table cell, or
/// running text (a paragraph or a list item, after something of the
/// report's own), or the very start of a line, where a block may begin.
enum class MarkdownPlace { TableCell, Text, LineStart };

/// `text` as inline Markdown (CommonMark and GitHub's GFM) that renders as
/// exactly that text, escaped only where it would be markup, so the raw
/// file reads as the text: a backslash before punctuation or at the end,
/// '`', '|', '*' and '~' unless spaced, '_' unless spaced or inside a
/// word, ']' before '(' (an inline link or image), '<' where it would open
/// a tag, comment or autolink and '&' where it would be a character
/// reference (as "&lt;" and "&amp;"). A word GitHub would link, mention or
/// typeset as math (holding '@', '$', "://" or "www.") is a code span
/// instead; line breaks become spaces; at a line's start, what would begin
/// a block (a heading, list, quote, rule, fence or link definition) is
/// escaped.
std::string markdownEscape(llvm::StringRef text, MarkdownPlace place);

/// `text` as a Markdown code span: fenced by one backtick more than its
/// longest run of them, padded with a space where its own first or last
/// character would merge with the fence, '|' as "\|" in a table cell
/// (GFM splits cells before it reads code), line breaks as spaces.
std::string markdownCode(llvm::StringRef text, MarkdownPlace place);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_MARKUPTEXT_H
