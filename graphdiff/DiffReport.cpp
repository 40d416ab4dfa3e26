//===- DiffReport.cpp - `aimodel diff` results as text and JSON -----------===//

#include "graphdiff/DiffReport.h"

#include "support/PathText.h"

#include <nlohmann/json.hpp>

#include <map>

using namespace aimodel;
using namespace aimodel::graphdiff;
using support::printablePath;

bool aimodel::graphdiff::allIdentical(const DiffResult &result) {
  for (const GraphComparison &graph : result.graphs)
    if (graph.status != GraphStatus::Identical)
      return false;
  return true;
}

llvm::StringRef aimodel::graphdiff::statusName(GraphStatus status) {
  switch (status) {
  case GraphStatus::Identical:
    return "identical";
  case GraphStatus::Different:
    return "different";
  case GraphStatus::Added:
    return "added";
  case GraphStatus::Removed:
    return "removed";
  }
  return "different";
}

DiffTotals aimodel::graphdiff::totalsOf(const DiffResult &result) {
  DiffTotals totals;
  for (const GraphComparison &graph : result.graphs) {
    ++totals.graphs[static_cast<int>(graph.status)];
    totals.ops.identical += graph.counts.identical;
    totals.ops.modified += graph.counts.modified;
    totals.ops.added += graph.counts.added;
    totals.ops.removed += graph.counts.removed;
    totals.weightsByShape += graph.weightsByShape;
  }
  return totals;
}

std::string aimodel::graphdiff::summaryText(const DiffResult &result) {
  DiffTotals t = totalsOf(result);
  auto count = [&](GraphStatus status) {
    return std::to_string(t.graphs[static_cast<int>(status)]);
  };
  return std::to_string(result.graphs.size()) +
         (result.graphs.size() == 1 ? " graph" : " graphs") +
         " compared: " + count(GraphStatus::Identical) + " identical, " +
         count(GraphStatus::Different) + " different, " +
         count(GraphStatus::Added) + " added, " + count(GraphStatus::Removed) +
         " removed; ops: " + std::to_string(t.ops.modified) + " modified, " +
         std::to_string(t.ops.added) + " added, " +
         std::to_string(t.ops.removed) + " removed" +
         (t.weightsByShape
              ? "; " + std::to_string(t.weightsByShape) +
                    (t.weightsByShape == 1 ? " weight" : " weights") +
                    " compared by type and shape only (--weights digest "
                    "compares bytes)"
              : std::string());
}

std::vector<std::string>
aimodel::graphdiff::interfaceLines(const GraphComparison &graph) {
  std::vector<std::string> lines;
  if (!graph.interface)
    return lines;
  for (const InterfaceChange &change : graph.interface->changes)
    lines.push_back("interface changed: " + printablePath(change.text) +
                    (change.nameOnly ? " (name only)" : ""));
  return lines;
}

llvm::StringRef aimodel::graphdiff::kindName(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::Modified:
    return "modified";
  case ChangeKind::Added:
    return "added";
  case ChangeKind::Removed:
    return "removed";
  }
  return "modified";
}

std::vector<ModuleGroup>
aimodel::graphdiff::groupByModule(llvm::ArrayRef<Change> changes,
                                  uint64_t limit) {
  std::vector<ModuleGroup> groups;
  // Few modules per graph in practice, but a graph can have thousands of
  // changes: index groups by name.
  std::map<llvm::StringRef, size_t> byName;
  ModuleGroup unknown;
  uint64_t listed = 0;
  for (const Change &change : changes) {
    if (listed++ >= limit)
      break;
    if (change.module.empty()) {
      unknown.changes.push_back(&change);
      continue;
    }
    auto [it, inserted] = byName.try_emplace(change.module, groups.size());
    if (inserted)
      groups.push_back(ModuleGroup{change.module, {}});
    groups[it->second].changes.push_back(&change);
  }
  if (!unknown.changes.empty())
    groups.push_back(std::move(unknown));
  return groups;
}

std::vector<ListedChanges>
aimodel::graphdiff::collapseRuns(const ModuleGroup &group) {
  std::vector<ListedChanges> out;
  const auto &changes = group.changes;
  for (size_t i = 0; i < changes.size();) {
    size_t end = i + 1;
    if (changes[i]->kind != ChangeKind::Modified)
      while (end < changes.size() && changes[end]->kind == changes[i]->kind)
        ++end;
    if (end - i < kMinRun)
      end = i + 1;
    ListedChanges listed{changes[i]->kind, {}};
    listed.changes.assign(changes.begin() + i, changes.begin() + end);
    out.push_back(std::move(listed));
    i = end;
  }
  return out;
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

/// Valid UTF-8 as is (JSON escapes control characters itself), anything
/// else in its escaped text form, so the document is always valid.
static std::string jsonText(llvm::StringRef text) {
  return support::isValidUtf8(text) ? text.str() : printablePath(text);
}

static nlohmann::ordered_json jsonName(llvm::StringRef name) {
  if (name.empty())
    return nullptr;
  return jsonText(name);
}

static nlohmann::ordered_json interfaceJson(const InterfaceComparison &in) {
  using Json = nlohmann::ordered_json;
  auto ports = [](const std::vector<PortText> &list) {
    Json out = Json::array();
    for (const PortText &port : list)
      out.push_back({{"name", jsonText(port.name)},
                     {"type", jsonText(port.type)},
                     {"state", port.state}});
    return out;
  };
  auto side = [&](const std::optional<InterfaceText> &text) {
    return text ? Json{{"inputs", ports(text->inputs)},
                       {"outputs", ports(text->outputs)}}
                : Json(nullptr);
  };
  Json changes = Json::array();
  for (const InterfaceChange &change : in.changes)
    changes.push_back(
        {{"text", jsonText(change.text)}, {"name_only", change.nameOnly}});
  return {{"golden", side(in.golden)},
          {"new", side(in.candidate)},
          {"changes", std::move(changes)}};
}

std::string aimodel::graphdiff::jsonReport(const DiffResult &result) {
  using Json = nlohmann::ordered_json;
  Json graphs = Json::array();
  for (const GraphComparison &graph : result.graphs) {
    Json changes = Json::array();
    for (const Change &change : graph.changes) {
      Json item = {{"kind", kindName(change.kind).str()},
                   {"op", jsonText(change.op)}};
      if (change.sourceIndex)
        item["source_index"] = *change.sourceIndex;
      if (change.targetIndex)
        item["target_index"] = *change.targetIndex;
      item["detail"] = jsonText(change.detail);
      item["module"] = jsonText(change.module);
      item["source_line"] = jsonText(change.sourceLine);
      item["fx_node"] = jsonText(change.fxNode);
      item["op_id"] = change.opId ? Json(*change.opId) : Json(nullptr);
      if (change.kind != ChangeKind::Modified) {
        Json readers = Json::array();
        for (const Reader &reader : change.readers)
          readers.push_back({{"op", jsonText(reader.op)},
                             {"index", reader.index},
                             {"operand", reader.operand}});
        item["read_by"] = std::move(readers);
        item["unused"] = change.unused;
      }
      item["ambiguous"] = change.ambiguous;
      changes.push_back(std::move(item));
    }
    graphs.push_back(
        {{"file", jsonName(graph.file)},
         {"source", jsonName(graph.source)},
         {"target", jsonName(graph.target)},
         {"status", statusName(graph.status).str()},
         {"ops", {{"source", graph.sourceOps}, {"target", graph.targetOps}}},
         {"counts",
          {{"identical", graph.counts.identical},
           {"modified", graph.counts.modified},
           {"added", graph.counts.added},
           {"removed", graph.counts.removed}}},
         {"weights_by_shape", graph.weightsByShape}});
    if (graph.interface)
      graphs.back()["interface"] = interfaceJson(*graph.interface);
    graphs.back()["changes"] = std::move(changes);
  }
  Json document = {
      {"schema", "aimodel-diff/1"},
      {"verdict", allIdentical(result) ? "identical" : "different"},
      {"graphs", std::move(graphs)}};
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

namespace {
/// ANSI colours, or nothing.
struct Paint {
  bool on;
  const char *operator()(const char *code) const { return on ? code : ""; }
  const char *reset() const { return on ? "\033[0m" : ""; }
};
constexpr const char *kRed = "\033[31m", *kGreen = "\033[32m",
                     *kYellow = "\033[33m", *kBold = "\033[1m",
                     *kCyan = "\033[36m";

const char *kindMark(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::Added:
    return "+";
  case ChangeKind::Removed:
    return "-";
  case ChangeKind::Modified:
    break;
  }
  return "~";
}

const char *kindColour(ChangeKind kind) {
  switch (kind) {
  case ChangeKind::Added:
    return kGreen;
  case ChangeKind::Removed:
    return kRed;
  case ChangeKind::Modified:
    break;
  }
  return kYellow;
}
} // namespace

std::string aimodel::graphdiff::graphLabel(
    const GraphComparison &graph, llvm::StringRef arrow,
    llvm::function_ref<std::string(llvm::StringRef)> escape) {
  if (graph.source.empty() || graph.target.empty() ||
      graph.source == graph.target)
    return escape(
        printablePath(graph.source.empty() ? graph.target : graph.source));
  return escape(printablePath(graph.source)) + arrow.str() +
         escape(printablePath(graph.target));
}

/// "[12 -> 13]", "[-> 40]", "[41 ->]": op indices in the golden and new
/// files' op tables.
static std::string indexText(const Change &change) {
  std::string text = "[";
  if (change.sourceIndex)
    text += std::to_string(*change.sourceIndex) + " ";
  text += "->";
  if (change.targetIndex)
    text += " " + std::to_string(*change.targetIndex);
  return text + "]";
}

std::string aimodel::graphdiff::sourceText(const Change &change) {
  std::string text;
  auto add = [&](const std::string &part) {
    text += (text.empty() ? "" : ", ") + part;
  };
  if (!change.sourceLine.empty())
    add(printablePath(change.sourceLine));
  if (!change.fxNode.empty())
    add("FX " + printablePath(change.fxNode));
  if (change.opId)
    add("op id " + std::to_string(*change.opId));
  return text;
}

static std::string plural(uint64_t n, llvm::StringRef word) {
  return std::to_string(n) + " " + word.str() + (n == 1 ? "" : "s");
}

bool aimodel::graphdiff::spansFiles(const DiffResult &result) {
  for (const GraphComparison &graph : result.graphs)
    if (graph.file != result.graphs.front().file)
      return true;
  return false;
}

void aimodel::graphdiff::writeTextReport(llvm::raw_ostream &os,
                                         const DiffResult &result,
                                         const ReportOptions &options) {
  Paint paint{options.colour};
  bool manyFiles = spansFiles(result);
  bool identical = allIdentical(result);
  os << printablePath(options.golden) << " -> "
     << printablePath(options.candidate) << ": " << paint(kBold)
     << paint(identical ? kGreen : kRed)
     << (identical ? "identical" : "different") << paint.reset() << "\n";

  for (const GraphComparison &graph : result.graphs) {
    // Identical graphs are only counted: a model has many.
    if (graph.status == GraphStatus::Identical)
      continue;
    os << "graph " << paint(kBold)
       << graphLabel(graph, " -> ", [](llvm::StringRef s) { return s.str(); })
       << paint.reset();
    if (manyFiles)
      os << " in " << printablePath(graph.file);
    os << ": " << statusName(graph.status);
    switch (graph.status) {
    case GraphStatus::Added:
      os << " (" << plural(graph.targetOps, "op") << ")\n";
      continue;
    case GraphStatus::Removed:
      os << " (" << plural(graph.sourceOps, "op") << ")\n";
      continue;
    default:
      break;
    }
    os << " (" << graph.sourceOps << " -> " << plural(graph.targetOps, "op")
       << "): " << graph.counts.modified << " modified, " << graph.counts.added
       << " added, " << graph.counts.removed << " removed, "
       << graph.counts.identical << " identical\n";
    for (const std::string &line : interfaceLines(graph))
      os << "  " << paint(kBold) << line << paint.reset() << "\n";
    for (const ModuleGroup &group :
         groupByModule(graph.changes, options.maxItems)) {
      os << "  " << paint(kCyan)
         << (group.module.empty() ? std::string("(no module)")
                                  : printablePath(group.module))
         << paint.reset() << "\n";
      for (const ListedChanges &listed : collapseRuns(group)) {
        const Change *change = listed.changes.front();
        if (listed.isRun()) {
          // "72 ops removed [100 -> ... 171 ->]": one line for a run.
          const Change *last = listed.changes.back();
          os << "    " << paint(kindColour(listed.kind))
             << kindMark(listed.kind) << " "
             << plural(listed.changes.size(), "op") << " "
             << kindName(listed.kind) << paint.reset() << " "
             << indexText(*change) << " ... " << indexText(*last) << "\n";
          continue;
        }
        os << "    " << paint(kindColour(change->kind))
           << kindMark(change->kind) << " " << printablePath(change->op)
           << paint.reset() << " " << indexText(*change);
        if (!change->detail.empty())
          os << ": " << printablePath(change->detail);
        std::string where = sourceText(*change);
        if (!where.empty())
          os << " (" << where << ")";
        os << "\n";
      }
    }
    if (graph.changes.size() > options.maxItems)
      os << "  ... "
         << plural(graph.changes.size() - options.maxItems, "more change")
         << " not listed (--max-items " << options.maxItems
         << "; --format json lists all)\n";
  }
  os << summaryText(result) << "\n";
}
