//===- Report.cpp - Text and JSON renderings of an audit ------------------===//

#include "audit/Audit.h"
#include "audit/Fixes.h"
#include "audit/PeopleReports.h"
#include "audit/RepairPlan.h"
#include "support/Parallel.h"
#include "support/PathText.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <map>
#include <set>

using namespace aimodel;
using namespace aimodel::audit;

std::optional<Severity> AuditReport::worst() const {
  for (int s = static_cast<int>(Severity::Error); s >= 0; --s)
    if (countBySeverity[s] > 0)
      return static_cast<Severity>(s);
  return std::nullopt;
}

static llvm::StringRef colourOf(Severity severity) {
  switch (severity) {
  case Severity::Error:
    return "\033[1;31m";
  case Severity::Warning:
    return "\033[1;35m";
  case Severity::Info:
    return "\033[1;36m";
  }
  return "";
}

void aimodel::audit::writeTextReport(llvm::raw_ostream &os,
                                     const AuditReport &report, bool colour,
                                     bool verbose) {
  for (const BundleReport &bundle : report.bundles) {
    std::string path = support::printablePath(bundle.path);
    for (const Finding &f : bundle.findings) {
      os << path;
      if (!f.file.empty())
        os << "/" << support::printablePath(f.file);
      os << ": ";
      if (colour)
        os << colourOf(f.severity);
      os << severityName(f.severity);
      if (colour)
        os << "\033[0m";
      // Messages may quote bytes from the bundle (symlink targets, names).
      os << ": " << support::printableText(f.message) << " [" << f.rule->id
         << " " << f.rule->name << "]\n";
    }
  }
  // Provenance: one line per link with --verbose, the count in the summary.
  unsigned compiledBundles = 0, linked = 0;
  for (const BundleReport &bundle : report.bundles)
    if (bundle.kind == bundle::BundleKind::CompiledAsset) {
      ++compiledBundles;
      if (bundle.source) {
        ++linked;
        if (verbose)
          os << "link: " << support::printablePath(bundle.path)
             << " was compiled from "
             << support::printablePath(bundle.source->path) << " (matched by "
             << bundle.source->matchedBy << ")\n";
      }
    }
  std::string links =
      compiledBundles
          ? llvm::formatv("; {0} of {1} linked to a source", linked,
                          plural(compiledBundles, "compiled bundle"))
                .str()
          : "";
  // One line per rule and fix, not per finding: a tree of 10,000 legacy
  // assets needs the one fix once.
  std::map<std::pair<llvm::StringRef, std::string>, unsigned> fixes;
  for (const BundleReport &bundle : report.bundles) {
    std::set<std::pair<llvm::StringRef, std::string>> seen;
    for (const Finding &f : bundle.findings) {
      std::pair<llvm::StringRef, std::string> ruleAndFix{f.rule->id,
                                                         fixFor(f, bundle)};
      if (seen.insert(ruleAndFix).second)
        ++fixes[ruleAndFix];
    }
  }
  for (const auto &[ruleAndFix, bundles] : fixes)
    os << "fix: " << ruleAndFix.first << " (" << plural(bundles, "bundle")
       << "): " << ruleAndFix.second << "\n";
  // The repair, for the whole run (audit/RepairPlan.h).
  RepairPlan plan = planRepair(report);
  if (plan.stripped)
    os << "repair: `" << plan.command << "` " << strippedSentence(plan) << "\n";
  if (plan.rehashed)
    os << "repair: `" << plan.rehashCommand << "` " << rehashSentence(plan)
       << "\n";
  if (!plan.skipped.empty())
    os << "repair: " << skippedSentence(plan) << "\n";
  const auto &n = report.countBySeverity;
  os << llvm::formatv(
      "{0} audited: {1}, {2}, {3}{4}\n",
      plural(report.bundles.size(), "bundle"),
      plural(n[static_cast<int>(Severity::Error)], "error"),
      plural(n[static_cast<int>(Severity::Warning)], "warning"),
      llvm::formatv("{0} info", n[static_cast<int>(Severity::Info)]).str(),
      links);
  if (std::string hidden = baselineSentence(report.run); !hidden.empty())
    os << hidden << "\n";
}

/// Sets `key` to a path, written exactly when it is valid UTF-8 (JSON
/// escapes control characters itself), else escaped and then also given
/// exactly, in hex, as `key`_bytes.
static void setPath(nlohmann::ordered_json &object, const std::string &key,
                    llvm::StringRef bytes) {
  support::JsonPath path = support::jsonPath(bytes);
  object[key] = std::move(path.text);
  if (path.bytesHex)
    object[key + "_bytes"] = std::move(*path.bytesHex);
}

nlohmann::ordered_json aimodel::audit::runJson(const RunRecord &run) {
  nlohmann::ordered_json inputs = nlohmann::ordered_json::array();
  nlohmann::ordered_json inputBytes = nlohmann::ordered_json::array();
  bool anyNotUtf8 = false;
  for (const std::string &input : run.inputs) {
    support::JsonPath path = support::jsonPath(input);
    inputs.push_back(path.text);
    anyNotUtf8 |= bool(path.bytesHex);
    inputBytes.push_back(support::hexBytes(input));
  }
  nlohmann::ordered_json out = {{"inputs", std::move(inputs)}};
  if (anyNotUtf8)
    out["inputs_bytes"] = std::move(inputBytes);
  out["shard"] =
      run.shardCount
          ? nlohmann::ordered_json(
                llvm::formatv("{0}/{1}", run.shardIndex, run.shardCount).str())
          : nlohmann::ordered_json(nullptr);
  out["tree"] = run.tree.empty() ? nlohmann::ordered_json(nullptr)
                                 : nlohmann::ordered_json(run.tree);
  out["run_id"] =
      run.runId.empty()
          ? nlohmann::ordered_json(nullptr)
          : nlohmann::ordered_json(support::printableText(run.runId));
  out["pre_commit"] = run.preCommit;
  if (run.configFile) {
    nlohmann::ordered_json config = nlohmann::ordered_json::object();
    setPath(config, "file", *run.configFile);
    config["sha256"] = run.configDigest;
    config["ignore"] = run.configIgnore;
    config["stale_compiler_floor"] =
        run.configFloor ? nlohmann::ordered_json(*run.configFloor)
                        : nlohmann::ordered_json(nullptr);
    config["severity"] = run.configSeverity;
    config["suppressed"] = run.suppressedByConfig;
    out["config"] = std::move(config);
  } else {
    out["config"] = nullptr;
  }
  if (run.baselineFile) {
    nlohmann::ordered_json baseline = nlohmann::ordered_json::object();
    setPath(baseline, "file", *run.baselineFile);
    out["baseline"] = std::move(baseline);
  } else {
    out["baseline"] = nullptr;
  }
  out["baseline_suppressed"] = run.suppressedByBaseline;
  out["metadata_only"] = run.metadataOnly;
  out["severity_overrides"] = run.severityOverrides;
  return out;
}

Severity aimodel::audit::severityInRun(const Rule &rule, const RunRecord &run) {
  Severity severity = rule.severity;
  for (const std::vector<std::string> *overrides :
       {&run.configSeverity, &run.severityOverrides})
    for (const std::string &item : *overrides) {
      auto [id, level] = llvm::StringRef(item).split('=');
      if (id == rule.id)
        if (std::optional<Severity> parsed = parseSeverity(level))
          severity = *parsed;
    }
  return severity;
}

/// One bundle's entry of the JSON report's "bundles".
static nlohmann::ordered_json bundleJson(const BundleReport &bundle) {
  nlohmann::ordered_json findings = nlohmann::ordered_json::array();
  for (const Finding &f : bundle.findings) {
    nlohmann::ordered_json finding = {
        {"rule", f.rule->id.str()},
        {"severity", severityName(f.severity).str()},
        {"message", support::printableText(f.message)}};
    setPath(finding, "file", f.file);
    finding["fix"] = fixFor(f, bundle);
    if (f.ops || f.blockArguments) {
      finding["ops"] = f.ops;
      finding["block_arguments"] = f.blockArguments;
    }
    if (!f.examples.empty()) {
      nlohmann::ordered_json examples = nlohmann::ordered_json::array();
      for (const std::string &example : f.examples)
        examples.push_back(support::printableText(example));
      finding["examples"] = std::move(examples);
    }
    findings.push_back(std::move(finding));
  }
  nlohmann::ordered_json entry = nlohmann::ordered_json::object();
  setPath(entry, "path", bundle.path);
  entry["kind"] = bundle::bundleKindName(bundle.kind).str();
  entry["producer"] =
      bundle.producer
          ? nlohmann::ordered_json(support::printableText(*bundle.producer))
          : nlohmann::ordered_json(nullptr);
  if (bundle.stripRecord) {
    const bundle::StripRecord &r = *bundle.stripRecord;
    entry["strip_record"] = {{"tool", support::printableText(r.tool)},
                             {"version", support::printableText(r.version)},
                             {"date", support::printableText(r.date)},
                             {"from_sha256", r.from.sha256},
                             {"sha256", r.to.sha256}};
  }
  entry["findings"] = std::move(findings);
  if (!bundle.rulesRun.empty()) {
    nlohmann::ordered_json ran = nlohmann::ordered_json::array();
    for (const Rule *rule : bundle.rulesRun)
      ran.push_back(rule->id.str());
    entry["rules_run"] = std::move(ran);
  }
  // Provenance: a compiled bundle's source, a source's compiled bundles.
  if (bundle.kind == bundle::BundleKind::CompiledAsset) {
    if (bundle.source) {
      nlohmann::ordered_json source = nlohmann::ordered_json::object();
      setPath(source, "path", bundle.source->path);
      source["matched_by"] = bundle.source->matchedBy;
      entry["source"] = std::move(source);
    } else {
      entry["source"] = nullptr;
    }
  } else if (bundle.kind == bundle::BundleKind::Asset) {
    nlohmann::ordered_json compiled = nlohmann::ordered_json::array();
    for (const std::string &path : bundle.compiled) {
      nlohmann::ordered_json one = nlohmann::ordered_json::object();
      setPath(one, "path", path);
      compiled.push_back(std::move(one));
    }
    entry["compiled"] = std::move(compiled);
  }
  return entry;
}

namespace {
/// Writes JSON text as nlohmann's dump(2) does, without making JSON values:
/// two spaces a level after each newline (plus `base`, the depth of what
/// is written in the document), `"key": value`, "[]" and "{}" when empty,
/// strings with '"', '\\', \b \f \n \r \t escaped, other control
/// characters as \u00xx, everything else as it is. nlohmann refuses a
/// string that is not valid UTF-8: ok() says whether every string was.
class DumpWriter {
public:
  DumpWriter(std::string &out, unsigned base) : out(out), base(base) {}
  bool ok() const { return valid; }

  void open(char bracket) {
    out += bracket;
    empty.push_back(true);
  }
  void close(char bracket) {
    bool wasEmpty = empty.back();
    empty.pop_back();
    if (!wasEmpty)
      newline();
    out += bracket;
  }
  /// Before each element of an array.
  void item() {
    out += empty.back() ? "\n" : ",\n";
    empty.back() = false;
    indent();
  }
  void key(llvm::StringRef name) {
    item();
    string(name);
    out += ": ";
  }
  void string(llvm::StringRef text) {
    // Most text is ASCII: only text with a byte >= 0x80 is checked as
    // UTF-8, and runs of bytes that need no escape are copied whole.
    if (llvm::any_of(text, [](char c) { return (unsigned char)c >= 0x80; })) {
      const auto *begin = reinterpret_cast<const llvm::UTF8 *>(text.data());
      if (!llvm::isLegalUTF8String(&begin, begin + text.size()))
        valid = false;
    }
    static const char hex[] = "0123456789abcdef";
    out += '"';
    size_t run = 0;
    for (size_t i = 0; i < text.size(); ++i) {
      char c = text[i];
      if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20)
        continue;
      out.append(text.data() + run, i - run);
      run = i + 1;
      switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += "\\u00";
        out += hex[(c >> 4) & 0xF];
        out += hex[c & 0xF];
      }
    }
    out.append(text.data() + run, text.size() - run);
    out += '"';
  }
  void number(uint64_t value) { out += std::to_string(value); }
  void null() { out += "null"; }
  /// As setPath: `name` and, when the path is not UTF-8, `name`_bytes.
  void path(llvm::StringRef name, llvm::StringRef bytes) {
    support::JsonPath path = support::jsonPath(bytes);
    key(name);
    string(path.text);
    if (path.bytesHex) {
      key((name + "_bytes").str());
      string(*path.bytesHex);
    }
  }

private:
  void newline() {
    out += '\n';
    indent();
  }
  void indent() { out.append(base + 2 * empty.size(), ' '); }

  std::string &out;
  unsigned base;
  llvm::SmallVector<bool, 8> empty; ///< per open level: nothing in it yet
  bool valid = true;
};
} // namespace

/// Appends bundleJson(bundle).dump(2), each of its lines but the first
/// indented by `base` more spaces, written directly (the same fields in the
/// same order: a test holds the two together). False when nlohmann would
/// refuse a string in it (not UTF-8): the caller then dumps through it.
static bool appendBundleJson(std::string &out, const BundleReport &bundle,
                             unsigned base) {
  DumpWriter w(out, base);
  w.open('{');
  w.path("path", bundle.path);
  w.key("kind");
  w.string(bundle::bundleKindName(bundle.kind));
  w.key("producer");
  if (bundle.producer)
    w.string(support::printableText(*bundle.producer));
  else
    w.null();
  if (bundle.stripRecord) {
    const bundle::StripRecord &r = *bundle.stripRecord;
    w.key("strip_record");
    w.open('{');
    w.key("tool");
    w.string(support::printableText(r.tool));
    w.key("version");
    w.string(support::printableText(r.version));
    w.key("date");
    w.string(support::printableText(r.date));
    w.key("from_sha256");
    w.string(r.from.sha256);
    w.key("sha256");
    w.string(r.to.sha256);
    w.close('}');
  }
  w.key("findings");
  w.open('[');
  for (const Finding &f : bundle.findings) {
    w.item();
    w.open('{');
    w.key("rule");
    w.string(f.rule->id);
    w.key("severity");
    w.string(severityName(f.severity));
    w.key("message");
    w.string(support::printableText(f.message));
    w.path("file", f.file);
    w.key("fix");
    w.string(fixFor(f, bundle));
    if (f.ops || f.blockArguments) {
      w.key("ops");
      w.number(f.ops);
      w.key("block_arguments");
      w.number(f.blockArguments);
    }
    if (!f.examples.empty()) {
      w.key("examples");
      w.open('[');
      for (const std::string &example : f.examples) {
        w.item();
        w.string(support::printableText(example));
      }
      w.close(']');
    }
    w.close('}');
  }
  w.close(']');
  if (!bundle.rulesRun.empty()) {
    w.key("rules_run");
    w.open('[');
    for (const Rule *rule : bundle.rulesRun) {
      w.item();
      w.string(rule->id);
    }
    w.close(']');
  }
  if (bundle.kind == bundle::BundleKind::CompiledAsset) {
    w.key("source");
    if (bundle.source) {
      w.open('{');
      w.path("path", bundle.source->path);
      w.key("matched_by");
      w.string(bundle.source->matchedBy);
      w.close('}');
    } else {
      w.null();
    }
  } else if (bundle.kind == bundle::BundleKind::Asset) {
    w.key("compiled");
    w.open('[');
    for (const std::string &path : bundle.compiled) {
      w.item();
      w.open('{');
      w.path("path", path);
      w.close('}');
    }
    w.close(']');
  }
  w.close('}');
  return w.ok();
}

/// The JSON report with `bundles` as its "bundles".
static nlohmann::ordered_json documentJson(const AuditReport &report,
                                           llvm::StringRef toolVersion,
                                           nlohmann::ordered_json bundles) {
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const Rule *rule : allRules())
    rules.push_back({{"id", rule->id.str()},
                     {"name", rule->name.str()},
                     {"severity", severityName(rule->severity).str()},
                     {"help", rule->help.str()},
                     {"evidence", evidenceName(rule->evidence).str()},
                     {"source", rule->source.str()}});
  const auto &n = report.countBySeverity;
  return {{"schema", "aimodel-audit/1"},
          {"tool", {{"name", "aimodel"}, {"version", toolVersion.str()}}},
          {"run", runJson(report.run)},
          {"rules", std::move(rules)},
          {"bundles", std::move(bundles)},
          {"summary",
           {{"bundles", report.bundles.size()},
            {"error", n[static_cast<int>(Severity::Error)]},
            {"warning", n[static_cast<int>(Severity::Warning)]},
            {"info", n[static_cast<int>(Severity::Info)]}}}};
}

nlohmann::ordered_json aimodel::audit::toJson(const AuditReport &report,
                                              llvm::StringRef toolVersion) {
  nlohmann::ordered_json bundles = nlohmann::ordered_json::array();
  for (const BundleReport &bundle : report.bundles)
    bundles.push_back(bundleJson(bundle));
  return documentJson(report, toolVersion, std::move(bundles));
}

void aimodel::audit::writeJsonReport(llvm::raw_ostream &os,
                                     const AuditReport &report,
                                     llvm::StringRef toolVersion,
                                     unsigned jobs) {
  std::string document =
      documentJson(report, toolVersion, nlohmann::ordered_json::array())
          .dump(2);
  // dump(2) indents by depth alone and writes no newline inside a string
  // (they are escaped), so an entry dumped on its own and indented by its
  // depth in the document (4 spaces: "bundles" > [ > entry) is exactly
  // what the whole document's dump writes for it.
  static constexpr llvm::StringLiteral kEmpty = "\n  \"bundles\": [],\n";
  size_t at = document.find(kEmpty.data());
  if (report.bundles.empty() || at == std::string::npos) {
    os << toJson(report, toolVersion).dump(2) << "\n";
    return;
  }
  std::vector<std::string> entries(report.bundles.size());
  support::forEachIndex(report.bundles.size(), jobs, [&](size_t i) {
    std::string &out = entries[i];
    out = "    ";
    if (appendBundleJson(out, report.bundles[i], 4))
      return true;
    // A string nlohmann refuses: dumped through it, which says so.
    out.clear();
    std::string text = bundleJson(report.bundles[i]).dump(2);
    out.reserve(text.size() + text.size() / 4);
    for (llvm::StringRef rest(text);;) {
      auto [line, next] = rest.split('\n');
      out.append("    ").append(line.data(), line.size());
      if (line.size() == rest.size())
        break;
      out += '\n';
      rest = next;
    }
    return true;
  });
  os << llvm::StringRef(document).take_front(at) << "\n  \"bundles\": [\n";
  for (size_t i = 0; i < entries.size(); ++i)
    os << entries[i] << (i + 1 < entries.size() ? ",\n" : "\n");
  os << "  ],\n"
     << llvm::StringRef(document).drop_front(at + kEmpty.size()) << "\n";
}

void aimodel::audit::writePreCommitReport(llvm::raw_ostream &os,
                                          const AuditReport &report,
                                          bool colour) {
  std::vector<const BundleReport *> failing;
  for (const BundleReport &bundle : report.bundles) {
    // Every warning and error, the worst first (a stable order within),
    // as the text report writes them; then each distinct fix once.
    std::vector<const Finding *> shown;
    for (const Finding &f : bundle.findings)
      if (f.severity != Severity::Info)
        shown.push_back(&f);
    if (shown.empty())
      continue;
    failing.push_back(&bundle);
    llvm::stable_sort(shown, [](const Finding *a, const Finding *b) {
      return a->severity > b->severity;
    });
    std::string path = support::printablePath(bundle.path);
    for (const Finding *f : shown) {
      os << path;
      if (!f->file.empty())
        os << "/" << support::printablePath(f->file);
      os << ": ";
      if (colour)
        os << colourOf(f->severity);
      os << severityName(f->severity);
      if (colour)
        os << "\033[0m";
      os << ": " << support::printableText(f->message) << " [" << f->rule->id
         << " " << f->rule->name << "]\n";
    }
    std::vector<std::string> fixes;
    for (const Finding *f : shown) {
      std::string line = (f->rule->id + ": " + fixFor(*f, bundle)).str();
      if (!llvm::is_contained(fixes, line)) {
        os << path << ": fix " << line << "\n";
        fixes.push_back(std::move(line));
      }
    }
  }
  if (failing.empty())
    return;
  // The whole report (info findings, links) of these bundles: the command
  // that gives it, with their own paths, ready to paste.
  os << failing.size()
     << (failing.size() == 1 ? " bundle needs" : " bundles need")
     << " attention; the full report: aimodel audit";
  for (const BundleReport *bundle : failing)
    os << " " << support::shellArgument(bundle->path);
  os << "\n";
}
