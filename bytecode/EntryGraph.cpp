//===- EntryGraph.cpp - Textual entries, reference cycles and depth -------===//
//
// Checks over the attribute/type table as a whole, done once at open:
//
//  * Textual (asm) entries: the importer hands their text to MLIR's parser,
//    which this decoder cannot replicate; what it can see cheaply it refuses
//    the same way: a NUL inside the text (MLIR's lexer stops there) and
//    bracket nesting deeper than the importer lets reach the parser.
//  * References: entries refer to each other by index, and the importer (like
//    any consumer that recurses) materialises a referent before its referrer.
//    A cycle, or a chain longer than kMaxEntryDepth, is refused. A depth-first
//    walk with an explicit stack computes, for every entry, the longest chain
//    it starts; it needs two bytes per entry while it runs and nothing after.
//
//===----------------------------------------------------------------------===//

#include "bytecode/BytecodeDecoder.h"

#include <cstring>

using namespace aimodel::bytecode;
using llvm::Error;

/// The importer refuses text nesting deeper than this before MLIR's parser,
/// which recurses per level, sees it.
static constexpr unsigned kMaxTextBrackets = 1000;

/// The importer's scan (ir/IRLoad.cpp findDeepNesting), byte for byte:
/// brackets outside strings and `//` comments; the '>' of "->" and ">=" is
/// no bracket.
static bool nestsTooDeep(llvm::StringRef text) {
  unsigned depth = 0;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '"') {
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i < e && text[i] != '\n')
        ++i;
      --i;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxTextBrackets)
        return true;
    } else if (c == '>' && i > 0 && text[i - 1] == '-') {
      continue;
    } else if (c == '>' && i + 1 < e && text[i + 1] == '=') {
      continue;
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
  }
  return false;
}

Error Decoder::checkTextualEntries() {
  for (const std::vector<AttrTypeEntry> *table :
       {&file.attributes_, &file.types_})
    for (const AttrTypeEntry &entry : *table) {
      if (entry.hasCustomEncoding)
        continue;
      // Without its terminating NUL (checked when the table was read).
      llvm::StringRef text =
          file.bytesOf(Span{entry.encoding.offset, entry.encoding.size - 1});
      if (const void *nul = std::memchr(text.data(), 0, text.size()))
        return errorAt(
            entry.encoding.offset +
                uint64_t(static_cast<const char *>(nul) - text.data()),
            "NUL byte inside a textual attribute/type entry");
      if (nestsTooDeep(text))
        return errorAt(entry.encoding.offset,
                       "textual entry nests deeper than " +
                           llvm::Twine(kMaxTextBrackets) + " brackets");
    }
  return Error::success();
}

namespace {

/// Kinds whose entries refer to nothing: no need to decode them.
bool isLeaf(AttrKind kind) {
  switch (kind) {
  case AttrKind::String:
  case AttrKind::Unit:
  case AttrKind::UnknownLoc:
  case AttrKind::Asm:
  case AttrKind::DialectOpaque:
  case AttrKind::OtherBuiltin:
    return true;
  default:
    return false;
  }
}

bool isLeaf(TypeCode code) {
  switch (code) {
  case TypeCode::Complex:
  case TypeCode::Function:
  case TypeCode::MemRef:
  case TypeCode::MemRefWithMemSpace:
  case TypeCode::RankedTensor:
  case TypeCode::RankedTensorWithEncoding:
  case TypeCode::Tuple:
  case TypeCode::UnrankedMemRef:
  case TypeCode::UnrankedMemRefWithMemSpace:
  case TypeCode::UnrankedTensor:
  case TypeCode::Vector:
  case TypeCode::VectorWithScalableDims:
    return false;
  default:
    return true;
  }
}

struct Frame {
  uint64_t node;
  size_t next = 0;      ///< next reference to visit
  uint16_t deepest = 0; ///< longest chain among the references visited
};

} // namespace

Error Decoder::checkEntryGraph() {
  const uint64_t numAttrs = file.attributes_.size();
  const uint64_t total = numAttrs + file.types_.size();
  constexpr uint16_t kOnPath = 0xFFFF;
  static_assert(kMaxEntryDepth < kOnPath, "depths must fit below kOnPath");
  // Per node: 0 = not visited, kOnPath, else its longest chain (>= 1).
  std::vector<uint16_t> depth(total, 0);
  std::vector<Frame> path;
  std::vector<std::vector<uint64_t>> refsAt; // per path level, reused
  DecodedAttr attr;
  BuiltinTypeInfo type;

  auto describe = [&](uint64_t node, const llvm::Twine &what) {
    bool isAttr = node < numAttrs;
    const AttrTypeEntry &entry =
        isAttr ? file.attributes_[node] : file.types_[node - numAttrs];
    return errorAt(entry.encoding.offset,
                   llvm::Twine(isAttr ? "attribute " : "type ") +
                       llvm::Twine(isAttr ? node : node - numAttrs) + " " +
                       what);
  };
  auto push = [&](uint64_t node) -> Error {
    if (path.size() == kMaxEntryDepth)
      return describe(path.front().node,
                      "starts a chain of references deeper than " +
                          llvm::Twine(kMaxEntryDepth) + " entries");
    size_t level = path.size();
    if (refsAt.size() <= level)
      refsAt.emplace_back();
    std::vector<uint64_t> &refs = refsAt[level];
    refs.clear();
    depth[node] = kOnPath;
    path.push_back(Frame{node});
    if (node < numAttrs) {
      if (isLeaf(file.attrKinds_[node]))
        return Error::success();
      // As decodeBuiltinAttributes found them, when it ran; else decoded.
      if (attrRefsBegin.size() == numAttrs + 1) {
        refs.assign(attrRefs.begin() + attrRefsBegin[node],
                    attrRefs.begin() + attrRefsBegin[node + 1]);
        return Error::success();
      }
      attr.elements.clear();
      attr.namedAttrs.clear();
      attr.nameAttr = attr.childLoc = attr.callerLoc = attr.metadata = kNone;
      attr.typeIndex = kNone;
      if (auto err = decodeBuiltinAttrEntry(file, node, attr))
        return err;
      appendAttrReferences(file, attr, refs);
      return Error::success();
    }
    uint64_t typeIndex = node - numAttrs;
    if (isLeaf(TypeCode(file.typeCodes_[typeIndex])))
      return Error::success();
    return decodeBuiltinTypeEntry(file, typeIndex, type, &refs);
  };

  for (uint64_t root = 0; root < total; ++root) {
    if (depth[root])
      continue;
    if (auto err = push(root))
      return err;
    while (!path.empty()) {
      Frame &frame = path.back();
      const std::vector<uint64_t> &refs = refsAt[path.size() - 1];
      if (frame.next < refs.size()) {
        uint64_t ref = refs[frame.next++];
        if (depth[ref] == kOnPath)
          return describe(ref, "refers to itself through its references");
        if (depth[ref] == 0) {
          if (auto err = push(ref))
            return err;
          continue;
        }
        frame.deepest = std::max(frame.deepest, depth[ref]);
        continue;
      }
      if (frame.deepest >= kMaxEntryDepth)
        return describe(frame.node,
                        "starts a chain of references deeper than " +
                            llvm::Twine(kMaxEntryDepth) + " entries");
      uint16_t done = uint16_t(frame.deepest + 1);
      depth[frame.node] = done;
      path.pop_back();
      if (!path.empty())
        path.back().deepest = std::max(path.back().deepest, done);
    }
  }
  attrRefs = {};
  attrRefsBegin = {};
  return Error::success();
}
