//===- IRPrintBudget.cpp - What printing an op tree would cost ------------===//
//
// Attributes, types and locations are uniqued DAGs: `[#a, #a]` shares #a,
// and 30 such levels are a few hundred bytes of bytecode (or text with
// aliases) that print as gigabytes. MLIR's printer (and the structure dump)
// write each use in full and recurse once per level, so the cost is
// estimated first, bottom-up and memoised: linear in distinct objects.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImporter.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

using namespace aimodel;
using namespace mlir;

namespace {
/// Printed size (a rough lower bound) and nesting depth of one object when
/// written out in full.
struct Cost {
  uint64_t bytes = 0;
  unsigned depth = 0;
};

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/// Elements printed in full; larger ones are elided (see MLIRCommands.cpp,
/// elideLargeElementsAttrs).
constexpr int64_t kPrintedElements = 16;

class CostModel {
public:
  Cost of(Attribute attr) { return of({attr.getAsOpaquePointer(), true}); }
  Cost of(Type type) { return of({type.getAsOpaquePointer(), false}); }

private:
  struct Node {
    const void *ptr;
    bool isAttr;
  };

  template <typename Fn> static void forEachChild(Node node, Fn fn) {
    auto onAttr = [&](Attribute a) { fn(Node{a.getAsOpaquePointer(), true}); };
    auto onType = [&](Type t) { fn(Node{t.getAsOpaquePointer(), false}); };
    if (node.isAttr)
      Attribute::getFromOpaquePointer(node.ptr).walkImmediateSubElements(
          onAttr, onType);
    else
      Type::getFromOpaquePointer(node.ptr).walkImmediateSubElements(onAttr,
                                                                    onType);
  }

  /// What the object prints besides its sub-elements.
  static uint64_t ownBytes(Node node) {
    if (!node.isAttr) {
      if (auto opaque =
              dyn_cast<OpaqueType>(Type::getFromOpaquePointer(node.ptr)))
        return opaque.getTypeData().size() + 8;
      return 8;
    }
    Attribute attr = Attribute::getFromOpaquePointer(node.ptr);
    if (auto str = dyn_cast<StringAttr>(attr))
      return str.size() + 2;
    if (auto opaque = dyn_cast<OpaqueAttr>(attr))
      return opaque.getAttrData().size() + 8;
    if (auto array = dyn_cast<DenseArrayAttr>(attr))
      return array.getRawData().size() * 2 + 16;
    if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr))
      return resource.getRawHandle().getKey().size() + 24;
    if (auto strings = dyn_cast<DenseStringElementsAttr>(attr)) {
      if (strings.getNumElements() > kPrintedElements)
        return 32;
      uint64_t bytes = 16;
      for (StringRef s : strings.getRawStringData())
        bytes = saturatingAdd(bytes, s.size() + 4);
      return bytes;
    }
    if (auto elements = dyn_cast<DenseElementsAttr>(attr))
      return elements.getNumElements() > kPrintedElements
                 ? 32
                 : 16 + 8 * uint64_t(elements.getNumElements());
    return 8;
  }

  Cost of(Node root) {
    if (auto it = done.find(root.ptr); it != done.end())
      return it->second;
    // Post-order with an explicit stack: nesting may be deep.
    struct Frame {
      Node node;
      bool expanded;
    };
    llvm::SmallVector<Frame> stack{{root, false}};
    while (!stack.empty()) {
      Frame &frame = stack.back();
      Node node = frame.node;
      if (done.count(node.ptr)) {
        stack.pop_back();
        continue;
      }
      if (!frame.expanded) {
        frame.expanded = true;
        onPath.insert(node.ptr);
        // Mutable (recursive) types could refer back up the path: skipped.
        forEachChild(node, [&](Node child) {
          if (!done.count(child.ptr) && !onPath.count(child.ptr))
            stack.push_back({child, false});
        });
        continue;
      }
      stack.pop_back();
      onPath.erase(node.ptr);
      Cost cost{ownBytes(node), 0};
      forEachChild(node, [&](Node child) {
        auto it = done.find(child.ptr);
        if (it == done.end())
          return;
        cost.bytes = saturatingAdd(cost.bytes, it->second.bytes);
        cost.depth = std::max(cost.depth, it->second.depth);
      });
      ++cost.depth;
      done[node.ptr] = cost;
    }
    return done.lookup(root.ptr);
  }

  llvm::DenseMap<const void *, Cost> done;
  llvm::DenseSet<const void *> onPath;
};

/// Sums what each use prints, stopping at the first excess.
class PrintBudget {
public:
  explicit PrintBudget(uint64_t maxBytes) : maxBytes(maxBytes) {}

  bool add(Attribute attr) { return !attr || add(model.of(attr)); }
  bool add(Type type) { return !type || add(model.of(type)); }
  bool add(Cost cost) {
    if (cost.depth > ir::kMaxPrintDepth) {
      tooDeep = true;
      return false;
    }
    total = saturatingAdd(total, cost.bytes);
    return total <= maxBytes;
  }

  llvm::Error error() const {
    if (tooDeep)
      return llvm::createStringError(llvm::formatv(
          "attributes, types or locations nest deeper than {0} levels, more "
          "than MLIR's printer can take; not printed",
          ir::kMaxPrintDepth));
    return llvm::createStringError(llvm::formatv(
        "would print more than {0} MiB of text: attributes, types or "
        "locations it shares are written out at every use; not printed",
        maxBytes >> 20));
  }

private:
  CostModel model;
  uint64_t maxBytes;
  uint64_t total = 0;
  bool tooDeep = false;
};
} // namespace

llvm::Error aimodel::ir::checkPrintable(Operation *root, bool withLocations,
                                        uint64_t maxBytes) {
  PrintBudget budget(maxBytes);
  WalkResult walked = root->walk<WalkOrder::PreOrder>([&](Operation *op) {
    bool ok = budget.add(Cost{64, 0}) && budget.add(op->getAttrDictionary()) &&
              budget.add(op->getPropertiesAsAttribute()) &&
              (!withLocations || budget.add(LocationAttr(op->getLoc())));
    for (Type type : op->getOperandTypes())
      ok = ok && budget.add(type);
    for (Type type : op->getResultTypes())
      ok = ok && budget.add(type);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          ok = ok && budget.add(arg.getType()) &&
               (!withLocations || budget.add(LocationAttr(arg.getLoc())));
    return ok ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (walked.wasInterrupted())
    return budget.error();
  return llvm::Error::success();
}

static StringRef kindName(Attribute attr) {
  return attr.getAbstractAttribute().getName();
}
static StringRef kindName(Type type) {
  return type.getAbstractType().getName();
}

template <typename T> static std::string boundedTextOf(T object, uint64_t max) {
  Cost cost = CostModel().of(object);
  std::string text;
  llvm::raw_string_ostream os(text);
  if (cost.bytes <= max && cost.depth <= ir::kMaxPrintDepth)
    object.print(os);
  else
    os << "<" << kindName(object) << " of over " << max << " bytes>";
  return text;
}

std::string aimodel::ir::detail::boundedText(Attribute attr,
                                             uint64_t maxBytes) {
  return boundedTextOf(attr, maxBytes);
}

std::string aimodel::ir::detail::boundedText(Type type, uint64_t maxBytes) {
  return boundedTextOf(type, maxBytes);
}
