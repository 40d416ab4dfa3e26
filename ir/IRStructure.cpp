//===- IRStructure.cpp - Dialect-neutral structure dump -------------------===//
//
// Used to check that reading a file without its dialect gives the same IR as
// MLIR's own reader with the dialect: everything a private dialect encodes
// itself prints as a placeholder, everything else exactly.
//
//===----------------------------------------------------------------------===//

#include "ir/IRImport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/Operation.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;

namespace {
class StructurePrinter {
public:
  explicit StructurePrinter(raw_ostream &os) : os(os) {}

  void number(Operation *root) {
    // Pre-number every value: graph regions may use a value before it is
    // defined.
    root->walk<WalkOrder::PreOrder>([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region) {
          blockIds[&block] = blockIds.size();
          for (BlockArgument arg : block.getArguments())
            valueIds[arg] = valueIds.size();
        }
      for (Value result : op->getResults())
        valueIds[result] = valueIds.size();
    });
  }

  void print(Operation *op, unsigned indent) {
    os.indent(indent);
    for (Value result : op->getResults())
      os << "%" << valueIds.lookup(result)
         << (result == op->getResults().back() ? " = " : ", ");
    os << '"' << op->getName().getStringRef() << "\"(";
    llvm::interleaveComma(op->getOperands(), os,
                          [&](Value v) { os << "%" << valueIds.lookup(v); });
    os << ")";
    if (op->getNumSuccessors()) {
      os << "[";
      llvm::interleaveComma(op->getSuccessors(), os, [&](Block *b) {
        os << "^bb" << blockIds.lookup(b);
      });
      os << "]";
    }
    os << " : (";
    llvm::interleaveComma(op->getOperandTypes(), os, [&](Type t) { type(t); });
    os << ") -> (";
    llvm::interleaveComma(op->getResultTypes(), os, [&](Type t) { type(t); });
    os << ")";
    DictionaryAttr attrs = op->getDiscardableAttrDictionary();
    if (!attrs.empty()) {
      os << " {";
      llvm::interleaveComma(attrs, os, [&](NamedAttribute a) {
        os << a.getName().getValue() << " = ";
        attr(a.getValue());
      });
      os << "}";
    }
    os << " ";
    attr(op->getLoc());
    os << "\n";
    for (Region &region : op->getRegions()) {
      os.indent(indent + 2) << "region {\n";
      for (Block &block : region) {
        os.indent(indent + 2) << "^bb" << blockIds.lookup(&block) << "(";
        llvm::interleaveComma(block.getArguments(), os, [&](BlockArgument a) {
          os << "%" << valueIds.lookup(a) << ": ";
          type(a.getType());
          os << " ";
          attr(a.getLoc());
        });
        os << "):\n";
        for (Operation &nested : block)
          print(&nested, indent + 4);
      }
      os.indent(indent + 2) << "}\n";
    }
  }

private:
  static bool isPrivate(Dialect &dialect) {
    return dialect.getNamespace() != "builtin";
  }

  void type(Type t) {
    if (auto opaque = dyn_cast<OpaqueType>(t))
      os << "!" << opaque.getDialectNamespace().getValue() << "<private>";
    else if (isPrivate(t.getDialect()))
      os << "!" << t.getDialect().getNamespace() << "<private>";
    else
      t.print(os);
  }

  void attr(Attribute a) {
    if (auto opaque = dyn_cast<OpaqueAttr>(a)) {
      os << "#" << opaque.getDialectNamespace().getValue() << "<private>";
    } else if (isPrivate(a.getDialect())) {
      os << "#" << a.getDialect().getNamespace() << "<private>";
    } else if (auto array = dyn_cast<ArrayAttr>(a)) {
      os << "[";
      llvm::interleaveComma(array, os, [&](Attribute e) { attr(e); });
      os << "]";
    } else if (auto dict = dyn_cast<DictionaryAttr>(a)) {
      os << "{";
      llvm::interleaveComma(dict, os, [&](NamedAttribute e) {
        os << e.getName().getValue() << " = ";
        attr(e.getValue());
      });
      os << "}";
    } else if (auto type = dyn_cast<TypeAttr>(a)) {
      this->type(type.getValue());
    } else {
      a.print(os);
    }
  }

  raw_ostream &os;
  llvm::DenseMap<Value, unsigned> valueIds;
  llvm::DenseMap<Block *, unsigned> blockIds;
};
} // namespace

void aimodel::ir::printStructure(Operation *root, raw_ostream &os) {
  StructurePrinter printer(os);
  printer.number(root);
  printer.print(root, 0);
}
