//===- IRLoad.cpp - Reading a bytecode or text file as an MLIR module -----===//
//
// Picks the reader by name and magic, and keeps MLIR's text parser (and the
// printer after it) away from text it would recurse on without bound.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImporter.h"
#include "support/SafeFile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Parser/Parser.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/SourceMgr.h"

#include <cctype>

using namespace aimodel;
using namespace aimodel::ir::detail;

//===----------------------------------------------------------------------===//
// Nesting of MLIR text
//===----------------------------------------------------------------------===//

static bool isIdChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '-';
}

namespace {
/// One pass over the text. Each top-level alias definition (`#a = ...`,
/// `!t = ...`) is given the depth its value builds: the deepest bracket in
/// it, where a use of an earlier alias adds that alias's depth. Any use
/// anywhere must stay within the bound, so a chain of aliases is refused as
/// the nesting it expands to.
class NestingScanner {
public:
  NestingScanner(llvm::StringRef text, unsigned maxDepth)
      : text(text), maxDepth(maxDepth) {}

  std::optional<std::pair<unsigned, std::string>> run();

private:
  /// At a top-level line break inside a definition: does its value go on?
  /// Only `: type`, `-> type` and `::@nested` continue a value at the top
  /// level, on either side of the break.
  bool valueContinues(size_t next);
  /// `loc(#name)`: the one place an alias may be used before it is defined.
  bool usedAsLocation(size_t hash) const {
    llvm::StringRef before = text.take_front(hash).rtrim();
    return before.consume_back("(") && before.rtrim().ends_with("loc");
  }
  void finishDefinition() {
    if (!defining.empty())
      aliasDepth[defining] = definedDepth;
    defining = llvm::StringRef();
  }
  std::optional<std::pair<unsigned, std::string>>
  aliasTooDeep(llvm::StringRef name, unsigned at, unsigned useLine) const {
    return std::make_pair(
        useLine, llvm::formatv("alias {0} used here nests deeper than {1} "
                               "levels, counting the aliases it refers to",
                               name, maxDepth)
                     .str());
  }

  llvm::StringRef text;
  unsigned maxDepth;
  unsigned depth = 0, line = 1;
  llvm::StringMap<unsigned> aliasDepth;
  /// Location aliases may be used before their definition.
  std::vector<std::tuple<llvm::StringRef, unsigned, unsigned>> forwardUses;
  llvm::StringRef defining;
  unsigned definedDepth = 0;
  bool valueStarted = false;
  /// The last character outside blanks and comments; `->` counts as '-'.
  char last = 0;
  /// A look-ahead already found the value going on up to here.
  size_t continuesUntil = 0;
};
} // namespace

bool NestingScanner::valueContinues(size_t next) {
  if (last == ':' || last == ',' || last == '-' || next < continuesUntil)
    return true;
  size_t i = next, e = text.size();
  while (i < e) {
    if (std::isspace(static_cast<unsigned char>(text[i]))) {
      ++i;
    } else if (text[i] == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i < e && text[i] != '\n')
        ++i;
    } else {
      break;
    }
  }
  if (i < e && (text[i] == ':' || text[i] == '-')) {
    continuesUntil = i;
    return true;
  }
  return false;
}

std::optional<std::pair<unsigned, std::string>> NestingScanner::run() {
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      if (depth == 0 && !defining.empty() && valueStarted &&
          !valueContinues(i + 1))
        finishDefinition();
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)))
      continue;
    if (c == '/' && i + 1 < e && text[i + 1] == '/') {
      while (i + 1 < e && text[i + 1] != '\n')
        ++i;
      continue;
    }
    valueStarted = valueStarted || !defining.empty();
    if (c == '"') {
      for (++i; i < e && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
        else if (text[i] == '\n')
          ++line;
    } else if ((c == '#' || c == '!') && i + 1 < e && isIdChar(text[i + 1])) {
      size_t end = i + 1;
      if (std::isdigit(static_cast<unsigned char>(text[end])))
        while (end < e && std::isdigit(static_cast<unsigned char>(text[end])))
          ++end;
      else
        while (end < e && isIdChar(text[end]))
          ++end;
      llvm::StringRef name = text.slice(i, end);
      size_t k = end;
      while (k < e && (text[k] == ' ' || text[k] == '\t'))
        ++k;
      if (depth == 0 && k < e && text[k] == '=' &&
          !(k + 1 < e && text[k + 1] == '=')) {
        finishDefinition();
        defining = name;
        definedDepth = 0;
        valueStarted = false;
        last = '=';
        i = k;
        continue;
      }
      if (auto it = aliasDepth.find(name); it != aliasDepth.end()) {
        unsigned at = depth + it->second;
        if (at > maxDepth)
          return aliasTooDeep(name, at, line);
        definedDepth = std::max(definedDepth, at);
      } else if (c == '#' && usedAsLocation(i)) {
        forwardUses.emplace_back(name, depth, line);
      }
      i = end - 1;
      c = 'a';
    } else if (c == '>' && i > 0 && text[i - 1] == '-') {
      c = '-'; // an arrow, not a bracket
    } else if (c == '>' && i + 1 < e && text[i + 1] == '=') {
      // `>=` in an integer set, not a bracket
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > maxDepth)
        return std::make_pair(
            line, llvm::formatv("nests deeper than {0} brackets and regions",
                                maxDepth)
                      .str());
      definedDepth = std::max(definedDepth, depth);
    } else if ((c == ')' || c == ']' || c == '}' || c == '>') && depth > 0) {
      --depth;
    }
    last = c;
  }
  finishDefinition();
  for (auto &[name, at, useLine] : forwardUses)
    if (auto it = aliasDepth.find(name);
        it != aliasDepth.end() && at + it->second > maxDepth)
      return aliasTooDeep(name, at + it->second, useLine);
  return std::nullopt;
}

std::optional<std::pair<unsigned, std::string>>
aimodel::ir::detail::findDeepNesting(llvm::StringRef text, unsigned maxDepth) {
  return NestingScanner(text, maxDepth).run();
}

//===----------------------------------------------------------------------===//
// Public entry points
//===----------------------------------------------------------------------===//

std::unique_ptr<mlir::MLIRContext> aimodel::ir::makeImportContext() {
  auto context = std::make_unique<mlir::MLIRContext>(
      mlir::MLIRContext::Threading::DISABLED);
  context->allowUnregisteredDialects();
  context->getOrLoadDialect<mlir::BuiltinDialect>();
  // MLIR text of upstream ops (custom or generic syntax) parses as
  // `mlir-opt` parses it, into the registered ops, whose bytecode is then
  // what `mlir-opt --emit-bytecode` writes: one module, one encoding,
  // whoever wrote it. Loaded only when text names them; bytecode import
  // renames these dialects first (IRImport.h), so they never decode it.
  mlir::DialectRegistry upstream;
  upstream.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect,
                  mlir::math::MathDialect, mlir::cf::ControlFlowDialect>();
  context->appendDialectRegistry(upstream);
  // Diagnostics are collected by the importer; keep MLIR quiet otherwise.
  context->getDiagEngine().registerHandler(
      [](mlir::Diagnostic &) { return success(); });
  return context;
}

/// Parses MLIR text with MLIR's own parser, after the checks that keep it
/// from recursing without bound.
static llvm::Expected<ir::ImportedModule>
parseText(llvm::StringRef path, llvm::StringRef text,
          mlir::MLIRContext &context) {
  if (text.size() > ir::kMaxTextBytes)
    return llvm::createStringError(
        "MLIR text larger than %llu MiB is not read (this file has %llu MiB)",
        static_cast<unsigned long long>(ir::kMaxTextBytes >> 20),
        static_cast<unsigned long long>(text.size() >> 20));
  if (auto excess = findDeepNesting(text, kMaxTextNesting))
    return llvm::createStringError("line %u: %s", excess->first,
                                   excess->second.c_str());
  std::string diagnostic;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    if (!diagnostic.empty() ||
        d.getSeverity() != mlir::DiagnosticSeverity::Error)
      return success();
    diagnostic = d.str();
    if (auto at = llvm::dyn_cast<mlir::FileLineColLoc>(d.getLocation()))
      diagnostic = llvm::formatv("line {0}:{1}: {2}", at.getLine(),
                                 at.getColumn(), diagnostic);
    return success();
  });
  // MLIR's lexer relies on a NUL after the text, which a mapping lacks.
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(text, path),
                               llvm::SMLoc());
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  // As MLIR's tools read text: top-level ops other than a single module go
  // into an implicit one (which is also what their bytecode then holds).
  ir::ImportedModule result;
  result.module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, config);
  if (!result.module)
    return llvm::createStringError("not MLIR bytecode, and not MLIR text: %s",
                                   diagnostic.c_str());
  return result;
}

llvm::Expected<ir::ImportedModule>
aimodel::ir::loadIR(llvm::StringRef path, mlir::MLIRContext &context,
                    std::unique_ptr<BytecodeFile> &file,
                    const ImportOptions &options) {
  // Never blocks on a FIFO or device, never reads one forever.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      support::mapRegularFile(path, options.refuseSymlink
                                        ? support::Symlinks::Refuse
                                        : support::Symlinks::Follow);
  if (!buffer)
    return buffer.takeError();
  // Only a file named as text is text: anything else given to MLIR's parser
  // (a damaged mlirb, gigabytes of zeros) costs memory and time for nothing.
  if (path.ends_with(".mlir") && !looksLikeBytecode((*buffer)->getBuffer()))
    return parseText(path, (*buffer)->getBuffer(), context);
  llvm::Expected<std::unique_ptr<BytecodeFile>> decoded =
      BytecodeFile::fromBuffer(std::move(*buffer));
  if (!decoded)
    return decoded.takeError();
  file = std::move(*decoded);
  return importBytecode(*file, context, options);
}
