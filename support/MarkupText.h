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

/// `text` as inline Markdown (CommonMark and GitHub's GFM, table cells
/// included) that renders as that text: every ASCII punctuation character
/// is backslash-escaped (no emphasis, code, link, image, raw HTML, entity,
/// heading, table-cell end or GFM autolink can start; an '@' is followed by
/// an empty HTML comment, as GFM finds e-mail addresses across escapes),
/// line breaks become spaces.
std::string markdownEscape(llvm::StringRef text);

} // namespace aimodel::support

#endif // AIMODEL_SUPPORT_MARKUPTEXT_H
