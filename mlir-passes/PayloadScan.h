//===- PayloadScan.h - Debug payload anywhere in a file ---------*- C++ -*-===//
//
// AIM007 and `strip` ask one question of a decoded file: which debug
// payload (DebugPayload.h) do its bytes still hold, and where? Every string
// of the string table, used or not, and every entry whose bytes the decoder
// cannot see into (private-dialect attributes and types, textual entries,
// natively encoded properties, dialect versions), searched byte by byte.
// Resource blobs are weights, not strings, and are not searched. Where a
// string lives is how the IR reaches it (bytecode/EntryReferences.h):
// through locations, attributes, properties, only possibly through a
// private entry, or not at all.
//
// No MLIR: the audit runs it in the small executable, strip on its plan.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_MLIR_PASSES_PAYLOADSCAN_H
#define AIMODEL_MLIR_PASSES_PAYLOADSCAN_H

#include "bytecode/EntryReferences.h"
#include "mlir-passes/DebugPayload.h"
#include "mlir-passes/Findings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::passes {

/// Where a piece of payload lives, from the most to the least visible.
enum class PayloadPlace : uint8_t {
  Attribute,    ///< an op attribute or a type uses it
  Property,     ///< an op's properties use it
  Location,     ///< a location uses it
  Container,    ///< a dialect or op name, a resource key
  PrivateEntry, ///< inside a private entry, or only a private entry may use it
  Unreferenced, ///< a string or entry nothing refers to
};
llvm::StringRef payloadPlaceName(PayloadPlace place);

struct PayloadHit {
  PayloadKind kind;
  std::string text; ///< the piece: the path, the user name, the hash
  PayloadPlace place;
  /// PrivateEntry: the entry that holds it or may refer to it ("the
  /// properties of mps.func", "a private 'mps' attribute").
  std::string origin;
};

struct PayloadScan {
  /// Distinct (kind, text, place), in the order met.
  std::vector<PayloadHit> hits;
  /// Distinct strings (or inline pieces) carrying payload.
  std::vector<std::string> pieces;
  /// Ops and block arguments whose locations (as the file holds them)
  /// carry payload.
  uint64_t ops = 0, blockArguments = 0;
};

/// What would remain of `file` once `emptiedStrings` are emptied and
/// `blankedAttributes` blanked (both may be empty: the file as it is),
/// with `reach` computed for that written form.
PayloadScan scanPayload(const bytecode::BytecodeFile &file,
                        const bytecode::Reachability &reach,
                        const std::vector<bool> &emptiedStrings = {},
                        const std::vector<bool> &blankedAttributes = {});

/// The file as it is.
PayloadScan scanPayload(const bytecode::BytecodeFile &file);

/// AIM007 for `file`, from its scan: what and how many of each kind (three
/// examples each), the ops and block arguments whose locations carry it,
/// and where it lives. None when the file holds no payload.
std::optional<IRFinding>
debugPayloadFinding(const bytecode::BytecodeFile &file);

} // namespace aimodel::passes

#endif // AIMODEL_MLIR_PASSES_PAYLOADSCAN_H
