//===- RepairPlan.h - What `aimodel strip --in-place` will do -----*- C++
//-*-===//
//
// Internal to audit/: the repair every report for people suggests (text,
// Markdown, HTML), computed once from an AuditReport, so a report read
// back (--merge) suggests the same one. Each asset falls in one class, the
// way strip itself would treat it: repaired, repaired only with --rehash,
// or skipped for a reason strip cannot fix (with what fixes it instead).
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_REPAIRPLAN_H
#define AIMODEL_AUDIT_REPAIRPLAN_H

#include "audit/Audit.h"

#include <string>
#include <vector>

namespace aimodel::audit {

/// How strip treats one audited bundle.
enum class RepairClass {
  Nothing,    ///< nothing strip changes (clean, or findings it does not fix)
  Strip,      ///< debug locations or payload strip removes
  Rehash,     ///< strippable or not, its main.hash is wrong or missing
  Compiled,   ///< a compiled bundle with debug payload: recompile it
  Broken,     ///< unreadable or incomplete: re-export it
  Symlink,    ///< holds a symlink strip never follows
  LfsPointer, ///< an unfetched git-LFS object: `git lfs pull`
  LooseIR,    ///< IR with payload outside any asset: `strip --file`
};

RepairClass repairClassOf(const BundleReport &bundle);

struct RepairPlan {
  /// Assets `command` replaces with verified stripped copies.
  unsigned stripped = 0;
  /// `aimodel strip --in-place ROOT...`, shell-quoted; empty when nothing
  /// is stripped.
  std::string command;
  /// Assets whose main.hash is wrong or missing: strip repairs them only
  /// with --rehash, which `rehashCommand` names them for, one by one (a
  /// few) or by their roots (many), so no other hash is rewritten.
  unsigned rehashed = 0;
  std::string rehashCommand;
  struct Skip {
    RepairClass why;
    unsigned bundles = 0;
  };
  /// What neither command repairs, by class, in RepairClass order.
  std::vector<Skip> skipped;

  bool empty() const { return !stripped && !rehashed && skipped.empty(); }
};

RepairPlan planRepair(const AuditReport &report);

/// "3 compiled bundles with debug payload" and what fixes them:
/// "recompile from the repaired sources".
std::string skipNoun(const RepairPlan::Skip &skip);
llvm::StringRef skipRemedy(RepairClass why);

/// What each part of the plan does, in words without markup, for every
/// format to render around its commands: "repairs 7 assets: ...".
std::string strippedSentence(const RepairPlan &plan);
std::string rehashSentence(const RepairPlan &plan);
/// "not repaired by strip: 3 compiled bundles ... (recompile ...); ...".
std::string skippedSentence(const RepairPlan &plan);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_REPAIRPLAN_H
