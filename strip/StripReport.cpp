//===- StripReport.cpp - Text and JSON renderings of a strip --------------===//

#include "strip/StripReport.h"

#include "support/PathText.h"

#include "llvm/Support/FormatVariadic.h"

using namespace aimodel;
using namespace aimodel::strip;
using support::printablePath;

llvm::StringRef aimodel::strip::locationModeName(LocationMode mode) {
  return mode == LocationMode::OpId ? "op-id" : "unknown";
}

namespace {

std::string plural(uint64_t n, llvm::StringRef word,
                   llvm::StringRef many = "") {
  if (n == 1)
    return llvm::formatv("{0} {1}", n, word);
  if (!many.empty())
    return llvm::formatv("{0} {1}", n, many);
  return llvm::formatv("{0} {1}s", n, word);
}

struct Totals {
  uint64_t stripped = 0, skippedAssets = 0, verified = 0, rehashed = 0;
  uint64_t looseStripped = 0; ///< IR files of a tree outside any asset
  uint64_t needRehash = 0;    ///< skipped for their main.hash alone
  uint64_t bytesBefore = 0, bytesAfter = 0, ops = 0, blockArguments = 0;
  uint64_t stringsKept = 0;
};

Totals totalsOf(const StripReport &report) {
  Totals t;
  for (const AssetOutcome &a : report.assets) {
    if (a.skipped) {
      ++t.skippedAssets;
      t.needRehash += a.needsRehash;
      continue;
    }
    // A tree's loose IR files are counted apart: they are not assets.
    if (report.mode == StripReport::Mode::Tree && a.kind == "file") {
      ++t.looseStripped;
    } else {
      ++t.stripped;
      t.verified += a.result.verified;
    }
    t.bytesBefore += a.result.bytesBefore;
    t.bytesAfter += a.result.bytesAfter;
    t.ops += a.result.opLocations;
    t.blockArguments += a.result.blockArgumentLocations;
    t.stringsKept += a.result.kept.count;
    t.rehashed += a.rehashed.has_value();
  }
  return t;
}

/// The run again with --rehash: it strips what only a wrong main.hash
/// held back (--force, as DST then exists). Runs as given in a shell.
std::string rehashCommand(const StripReport &report) {
  std::string command = "aimodel strip --rehash";
  if (report.inPlace)
    return command +
           (report.locations == LocationMode::OpId ? " --locations op-id"
                                                   : "") +
           " --in-place " + support::shellArgument(report.input);
  if (report.written)
    command += " --force";
  if (report.locations == LocationMode::OpId)
    command += " --locations op-id";
  return command + " " + support::shellArgument(report.input) + " -o " +
         support::shellArgument(report.output);
}

/// "2 assets skipped only because their main.hash does not verify: ...".
void writeRehashHint(llvm::raw_ostream &os, const StripReport &report,
                     uint64_t count) {
  if (!count)
    return;
  os << plural(count, "asset") << " skipped only because "
     << (count == 1 ? "its" : "their")
     << " main.hash does not verify; to strip " << (count == 1 ? "it" : "them")
     << " and write new hashes: " << rehashCommand(report) << "\n";
}

/// "12 op and 3 block-argument locations rewritten (12 given op ids,
/// unverified)".
std::string locationsText(const StripReport &report, const FileStripResult &r) {
  if (r.opLocations + r.blockArgumentLocations == 0)
    return "no location to rewrite";
  std::string text =
      llvm::formatv("{0} op and {1} block-argument location{2} rewritten",
                    r.opLocations, r.blockArgumentLocations,
                    r.opLocations + r.blockArgumentLocations == 1 ? "" : "s");
  if (report.locations == LocationMode::OpId)
    text += llvm::formatv(" ({0} given op ids, unverified)", r.opIdLocations);
  return text;
}

void writeInPlaceSummary(llvm::raw_ostream &os, const StripReport &report,
                         const Totals &t) {
  size_t unchanged = size_t(llvm::count_if(
      report.assets, [](const AssetOutcome &a) { return a.unchanged; }));
  os << (report.dryRun ? "dry run: " : "") << printablePath(report.input)
     << ": " << plural(t.stripped - unchanged, "asset")
     << (report.dryRun ? " to replace" : " replaced in place and verified")
     << ", " << plural(unchanged, "asset") << " with nothing to strip";
  if (t.skippedAssets)
    os << ", " << plural(t.skippedAssets, "asset")
       << (report.dryRun ? " to skip" : " skipped");
  if (!report.skipped.empty())
    os << ", " << plural(report.skipped.size(), "other entry", "other entries")
       << (report.dryRun ? " to skip" : " skipped");
  if (t.stringsKept)
    os << "; " << plural(t.stringsKept, "string") << " of debug payload "
       << (report.dryRun ? "would stay" : "kept");
  os << (report.dryRun ? "; nothing written\n" : "\n");
  writeRehashHint(os, report, t.needRehash);
}

void writeAsset(llvm::raw_ostream &os, const StripReport &report,
                const AssetOutcome &a) {
  std::string in = printablePath(a.input);
  if (a.skipped) {
    os << (report.dryRun ? "would skip " : "skipped ") << in << ": "
       << *a.skipped << "\n";
    return;
  }
  const FileStripResult &r = a.result;
  if (a.unchanged) {
    os << (report.dryRun ? "would leave " : "unchanged ") << in
       << ": nothing to strip\n";
    return;
  }
  if (report.inPlace)
    os << (report.dryRun ? "would replace " : "replaced ") << in << ": "
       << locationsText(report, r);
  else
    os << (report.dryRun ? "would strip " : "stripped ") << in << " -> "
       << printablePath(a.output) << ": " << locationsText(report, r);
  if (r.entriesRemoved || r.stringsRemoved)
    os << ", " << plural(r.entriesRemoved, "entry", "entries") << " and "
       << plural(r.stringsRemoved, "string") << " removed";
  if (r.possiblyUsedLocations)
    os << " ("
       << plural(r.possiblyUsedLocations, "location entry", "location entries")
       << " that private bytes may refer to made loc(unknown) in place)";
  os << ", " << r.bytesBefore << " -> " << r.bytesAfter << " bytes";
  if (a.membersCopied)
    os << ", " << plural(a.membersCopied, "other file") << " copied";
  if (!report.dryRun)
    os << (r.verified ? ", verified" : ", NOT verified");
  os << "\n";
  if (a.rehashed)
    os << "  " << *a.rehashed << ": a new main.hash is written (--rehash)\n";
  if (a.backup)
    os << "  original kept at " << printablePath(*a.backup) << "\n";
  if (r.kept.count) {
    os << "  kept " << plural(r.kept.count, "string")
       << " with debug payload, because " << printablePath(r.kept.reason);
    for (size_t i = 0; i < r.kept.examples.size(); ++i)
      os << (i ? ", " : " (e.g. ") << "\"" << printablePath(r.kept.examples[i])
         << "\"";
    if (!r.kept.examples.empty())
      os << ")";
    os << "\n";
  }
}

nlohmann::ordered_json pathJson(nlohmann::ordered_json &object,
                                const std::string &key,
                                const std::string &path) {
  support::JsonPath p = support::jsonPath(path);
  object[key] = p.text;
  if (p.bytesHex)
    object[key + "_bytes"] = *p.bytesHex;
  return object;
}

nlohmann::ordered_json optionalText(const std::string &text) {
  return text.empty() ? nlohmann::ordered_json(nullptr)
                      : nlohmann::ordered_json(text);
}

} // namespace

void aimodel::strip::writeStripText(llvm::raw_ostream &os,
                                    const StripReport &report) {
  // Assets, copies and skips, merged in path order.
  size_t a = 0, c = 0, s = 0;
  while (a < report.assets.size() || c < report.copied.size() ||
         s < report.skipped.size()) {
    const std::string *next[3] = {
        a < report.assets.size() ? &report.assets[a].input : nullptr,
        c < report.copied.size() ? &report.copied[c].input : nullptr,
        s < report.skipped.size() ? &report.skipped[s].input : nullptr};
    int pick = -1;
    for (int i = 0; i < 3; ++i)
      if (next[i] && (pick < 0 || *next[i] < *next[pick]))
        pick = i;
    if (pick == 0) {
      writeAsset(os, report, report.assets[a++]);
    } else if (pick == 1) {
      const CopiedFile &f = report.copied[c++];
      if (report.dryRun)
        os << "would copy " << printablePath(f.input) << " -> "
           << printablePath(f.output) << " (" << plural(f.bytes, "byte")
           << ")\n";
    } else {
      const SkippedEntry &e = report.skipped[s++];
      os << (report.dryRun ? "would skip " : "skipped ")
         << printablePath(e.input) << ": " << e.reason << "\n";
    }
  }

  Totals t = totalsOf(report);
  if (report.inPlace) {
    writeInPlaceSummary(os, report, t);
    return;
  }
  using Mode = StripReport::Mode;
  llvm::StringRef unit = report.mode == Mode::File ? "file" : "asset";
  if (report.dryRun) {
    os << "dry run: " << plural(t.stripped, unit) << " to strip";
    if (t.looseStripped)
      os << ", " << plural(t.looseStripped, "IR file") << " outside assets "
         << "to strip";
    if (t.skippedAssets)
      os << ", " << plural(t.skippedAssets, unit) << " to skip";
    if (report.mode == Mode::Tree)
      os << ", " << plural(report.copied.size(), "other file") << " to copy";
    if (!report.skipped.empty())
      os << ", "
         << plural(report.skipped.size(), "other entry", "other entries")
         << " to skip";
    if (t.stripped + t.looseStripped)
      os << "; " << t.bytesBefore << " -> " << t.bytesAfter << " bytes";
    if (t.stringsKept)
      os << "; " << plural(t.stringsKept, "string") << " of debug payload "
         << "would stay";
    os << "; nothing written\n";
    writeRehashHint(os, report, t.needRehash);
    return;
  }
  os << plural(t.stripped, unit) << " stripped and verified";
  if (t.looseStripped)
    os << ", " << plural(t.looseStripped, "IR file") << " outside assets "
       << "stripped and verified";
  if (t.skippedAssets)
    os << ", " << plural(t.skippedAssets, unit) << " skipped";
  if (report.mode == Mode::Tree)
    os << ", " << plural(report.copied.size(), "other file") << " copied";
  if (!report.skipped.empty())
    os << ", " << plural(report.skipped.size(), "other entry", "other entries")
       << " skipped";
  if (t.stripped + t.looseStripped)
    os << "; " << t.bytesBefore << " -> " << t.bytesAfter << " bytes";
  if (t.stringsKept)
    os << "; " << plural(t.stringsKept, "string") << " of debug payload kept";
  if (report.written)
    os << "; written to " << printablePath(report.output) << "\n";
  else
    os << "; nothing written\n";
  writeRehashHint(os, report, t.needRehash);
}

nlohmann::ordered_json aimodel::strip::toJson(const StripReport &report,
                                              llvm::StringRef toolVersion) {
  using json = nlohmann::ordered_json;
  json doc = {{"schema", "aimodel-strip/1"},
              {"tool", {{"name", "aimodel"}, {"version", toolVersion.str()}}}};
  pathJson(doc, "input", report.input);
  pathJson(doc, "output", report.output);
  doc["mode"] = report.mode == StripReport::Mode::File    ? "file"
                : report.mode == StripReport::Mode::Asset ? "asset"
                                                          : "tree";
  doc["dry_run"] = report.dryRun;
  doc["in_place"] = report.inPlace;
  doc["written"] = report.written;
  doc["locations"] = locationModeName(report.locations).str();
  // op-id locations are not known to load in current compilers.
  doc["locations_verified_to_load"] = report.locations == LocationMode::Unknown;

  json assets = json::array();
  for (const AssetOutcome &a : report.assets) {
    json one = json::object();
    pathJson(one, "input", a.input);
    if (a.skipped) {
      one["kind"] = a.kind;
      one["skipped"] = *a.skipped;
      assets.push_back(std::move(one));
      continue;
    }
    const FileStripResult &r = a.result;
    pathJson(one, "output", a.output);
    one["kind"] = a.kind;
    one["file"] = optionalText(a.irFile);
    one["input_sha256"] = optionalText(r.inputSha256);
    one["output_sha256"] = optionalText(r.outputSha256);
    one["locations_rewritten"] = {{"ops", r.opLocations},
                                  {"block_arguments", r.blockArgumentLocations},
                                  {"op_ids", r.opIdLocations}};
    one["bytes_before"] = r.bytesBefore;
    one["bytes_after"] = r.bytesAfter;
    one["entries_removed"] = r.entriesRemoved;
    one["strings_removed"] = r.stringsRemoved;
    one["locations_cleared_in_place"] = r.possiblyUsedLocations;
    json examples = json::array();
    for (const std::string &e : r.kept.examples)
      examples.push_back(support::jsonPath(e).text);
    one["strings_kept"] = {
        {"count", r.kept.count},
        {"reason", optionalText(support::jsonPath(r.kept.reason).text)},
        {"examples", std::move(examples)}};
    one["rehashed"] = a.rehashed ? json(*a.rehashed) : json(nullptr);
    one["record_written"] = a.recorded;
    if (report.inPlace) {
      one["replaced"] = !a.unchanged && !report.dryRun;
      one["backup"] =
          a.backup ? json(support::jsonPath(*a.backup).text) : json(nullptr);
    }
    if (report.mode != StripReport::Mode::File)
      one["members_copied"] = a.membersCopied;
    one["verified"] = report.dryRun ? json(nullptr) : json(bool(r.verified));
    assets.push_back(std::move(one));
  }
  doc["assets"] = std::move(assets);

  json copied = json::array();
  for (const CopiedFile &f : report.copied) {
    json one = json::object();
    pathJson(one, "input", f.input);
    pathJson(one, "output", f.output);
    one["bytes"] = f.bytes;
    copied.push_back(std::move(one));
  }
  doc["copied"] = std::move(copied);
  json skipped = json::array();
  for (const SkippedEntry &e : report.skipped) {
    json one = json::object();
    pathJson(one, "input", e.input);
    one["reason"] = e.reason;
    skipped.push_back(std::move(one));
  }
  doc["skipped"] = std::move(skipped);

  Totals t = totalsOf(report);
  doc["summary"] = {{"assets", report.assets.size() - t.looseStripped},
                    {"stripped", t.stripped},
                    {"ir_files_stripped", t.looseStripped},
                    {"verified", t.verified},
                    {"skipped_assets", t.skippedAssets},
                    {"files_copied", report.copied.size()},
                    {"skipped_entries", report.skipped.size()},
                    {"bytes_before", t.bytesBefore},
                    {"bytes_after", t.bytesAfter},
                    {"strings_kept", t.stringsKept},
                    {"rehashed", t.rehashed},
                    {"need_rehash", t.needRehash},
                    {"rehash_command", t.needRehash
                                           ? json(rehashCommand(report))
                                           : json(nullptr)},
                    {"locations_rewritten",
                     {{"ops", t.ops}, {"block_arguments", t.blockArguments}}}};
  return doc;
}
