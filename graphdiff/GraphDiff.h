//===- GraphDiff.h - Which op of one graph became which ---------*- C++ -*-===//
//
// The structural comparison behind `aimodel diff`. Works on decoded bytecode
// files (bytecode/BytecodeReader.h), any dialect: one graph per
// function-like op, functions paired by symbol name with conversion
// uniquifiers normalised (`@rms_norm_k3j9x0qa` ~ `@rms_norm_p0zz81m2`), ops
// matched by what they compute (name, operands in order, result types,
// attributes and properties by structural hash; locations and display names
// excluded; weights per WeightsMode), then every pair verified.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_GRAPHDIFF_GRAPHDIFF_H
#define AIMODEL_GRAPHDIFF_GRAPHDIFF_H

#include "bytecode/BytecodeReader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace aimodel::graphdiff {

enum class WeightsMode {
  Ignore, ///< a weight counts by its type and shape only (a rebuild
          ///< re-initialises weights)
  Digest, ///< also by a hash of its bytes (dense_resource blobs, dense
          ///< elements)
};

struct DiffOptions {
  WeightsMode weights = WeightsMode::Ignore;
  /// Compare only this graph: the one whose full path or symbol name is
  /// this, or, without one, the one whose name without its uniquifier is
  /// this one's. More than one on a side is an error.
  std::optional<std::string> entryPoint;
};

enum class ChangeKind { Modified, Added, Removed };

/// An op reading a value, and in which operand slot.
struct Reader {
  std::string op; ///< "dialect.name"
  uint64_t index = 0;
  uint32_t operand = 0;
};

/// One op that differs. Indices are op indices in the file's pre-order op
/// table (BytecodeFile::operations()).
struct Change {
  ChangeKind kind = ChangeKind::Modified;
  std::string op; ///< "dialect.name"
  std::optional<uint64_t> sourceIndex, targetIndex;
  std::string detail; ///< what differs, for a modified op ("operand 1 ...")
  /// From debug locations where present (the PyTorch module path of the
  /// call stack, "file.py:line", the FX node), else empty.
  std::string module, sourceLine, fxNode;
  /// The op id of the debug location ("coreai"("op_id":N:0)), if any.
  std::optional<uint64_t> opId;
  /// Added or removed: the ops of its own file that read its results; and
  /// whether no output of the graph depends on it (nothing reads it, or
  /// only ops that are themselves unused).
  std::vector<Reader> readers;
  bool unused = false;
  /// The pairing behind this change was a choice the graph's structure did
  /// not decide, among look-alike ops that compute different things.
  bool ambiguous = false;
};

/// One input or output of an entry graph, as reports show it.
struct PortText {
  std::string name; ///< its display name, empty when the IR gives none
  std::string type; ///< "tensor<1x512xi32>"
  bool state = false;
};

struct InterfaceText {
  std::vector<PortText> inputs, outputs;
};

/// "output 0 `logits`: tensor<1x512x32000xf16> → tensor<1x512x32000xf32>".
struct InterfaceChange {
  std::string text;
  /// Only the display name changed (the type and state did not).
  bool nameOnly = false;
};

/// An entry graph's interface (a graph nothing in its file calls), golden
/// against new. Every change, a name-only one included, makes the graph
/// different: an app binds inputs and outputs by name.
struct InterfaceComparison {
  std::optional<InterfaceText> golden, candidate;
  std::vector<InterfaceChange> changes;
};

enum class GraphStatus { Identical, Different, Added, Removed };

struct Counts {
  uint64_t identical = 0, modified = 0, added = 0, removed = 0;
};

/// One compared pair of graphs (or a graph present on one side only).
struct GraphComparison {
  /// The IR file it lives in, relative to its bundle ("main.mlirb",
  /// "main-h18p-delegates/.../original_model_0.mpsgraph"), or the file as
  /// named for a plain file.
  std::string file;
  /// Symbol names without '@' (the full path "outer::main" where the name
  /// alone is not unique in its file); empty if absent.
  std::string source, target;
  GraphStatus status = GraphStatus::Identical;
  uint64_t sourceOps = 0, targetOps = 0;
  Counts counts;
  /// Entry graphs only.
  std::optional<InterfaceComparison> interface;
  /// Paired weights whose bytes were not compared (WeightsMode::Ignore).
  uint64_t weightsByShape = 0;
  /// In source order, then target order. Empty for a graph on one side
  /// only (Added / Removed: counts.added / counts.removed hold its ops).
  std::vector<Change> changes;
};

struct DiffResult {
  std::vector<GraphComparison> graphs; ///< deterministic order
  /// For stderr: what the comparison assumed ("--entry-point x_zz: using
  /// x_ab12cd34").
  std::vector<std::string> notes;
  bool identical() const;
};

/// Compares every graph of `golden` with its counterpart in `candidate`.
/// Errors only for what makes a comparison impossible (an entry point that
/// neither file has, "no graph named X", or that several graphs of one
/// file match, naming them).
llvm::Expected<DiffResult> diffFiles(const bytecode::BytecodeFile &golden,
                                     const bytecode::BytecodeFile &candidate,
                                     const DiffOptions &options);

/// One IR file of a model: its name (relative to the bundle) and its
/// decoded form on each side, null where the side has no such file.
struct ModelFile {
  std::string name;
  const bytecode::BytecodeFile *golden = nullptr, *candidate = nullptr;
};

/// One model's IR files: the main one first (a bundle's mlirb, or a plain
/// file), then its delegates, by name relative to the bundle.
struct ModelFiles {
  std::vector<std::string> names;
  std::vector<const bytecode::BytecodeFile *> files;
};

/// The files of two models, paired: the main files with each other,
/// whatever their names (main.mlirb, main-h18p.mlirb, a plain file), the
/// delegates by their names; a name on one side only stays alone. The
/// pair is named after the golden side's name where it has one.
std::vector<ModelFile> pairModelFiles(const ModelFiles &golden,
                                      const ModelFiles &candidate);

/// Compares two models file by file (a compiled bundle's mlirb and each of
/// its delegate graphs): paired files graph by graph, a file on one side
/// only as all its graphs added or removed. With an entry point, only the
/// file that holds it (on either side); several files holding it is the
/// error a file's several graphs would be.
llvm::Expected<DiffResult> diffModels(llvm::ArrayRef<ModelFile> files,
                                      const DiffOptions &options);

} // namespace aimodel::graphdiff

#endif // AIMODEL_GRAPHDIFF_GRAPHDIFF_H
