//===- Fixes.h - What to do about a finding, for the bundle in hand -*- C++
//-*-===//
//
// A rule's help is generic; a fix must be one the user can follow on the
// bundle that has the finding: a compiled bundle cannot be stripped, and an
// asset a current toolchain wrote cannot be "re-exported with a newer
// coreai-torch". Derived from the report alone (rule, kind, producer), so a
// report read back (--merge) gets the same fixes.
//
//===----------------------------------------------------------------------===//
#ifndef AIMODEL_AUDIT_FIXES_H
#define AIMODEL_AUDIT_FIXES_H

#include "audit/Audit.h"

#include <string>

namespace aimodel::audit {

/// The fix for `finding` of `bundle`.
std::string fixFor(const Finding &finding, const BundleReport &bundle);

/// True when `producer` names a Core AI writer newer than the one that
/// saved coreai-torch 0.4.0's assets (coreai-core 1.0.0b1): a later
/// coreai-core, or coreai-build.
bool isCurrentProducer(llvm::StringRef producer);

} // namespace aimodel::audit

#endif // AIMODEL_AUDIT_FIXES_H
