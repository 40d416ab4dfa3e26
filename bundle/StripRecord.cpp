//===- StripRecord.cpp - What a stripped copy says about itself -----------===//

#include "bundle/StripRecord.h"

#include "llvm/ADT/StringExtras.h"

#include <cctype>
#include <cstdlib>
#include <ctime>

using namespace aimodel;
using namespace aimodel::bundle;

namespace {

std::string whatWasDone(const StripRecord &record) {
  return "debug payload removed: every location carrying call stacks or "
         "source paths replaced by " +
         (record.locations == "op-id" ? std::string("its op's op-id location")
                                      : std::string("loc(unknown)")) +
         "; ops, attributes and weights kept byte for byte";
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

std::optional<RecordedFile> recordedFile(const nlohmann::json &record,
                                         const char *key) {
  auto it = record.find(key);
  if (it == record.end() || !it->is_object())
    return std::nullopt;
  auto bytes = it->find("bytes");
  auto sha = it->find("sha256");
  if (bytes == it->end() || !bytes->is_number_unsigned() || sha == it->end() ||
      !sha->is_string())
    return std::nullopt;
  std::string hex = sha->get<std::string>();
  if (hex.size() != 64 ||
      !llvm::all_of(hex, [](char c) { return llvm::isHexDigit(c); }))
    return std::nullopt;
  return RecordedFile{bytes->get<uint64_t>(), llvm::StringRef(hex).lower()};
}

std::string stringAt(const nlohmann::json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

uint64_t countAt(const nlohmann::json &object, const char *key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number_unsigned() ? it->get<uint64_t>()
                                                        : 0;
}

//===----------------------------------------------------------------------===//
// Writing: the text of a JSON object, edited in place
//===----------------------------------------------------------------------===//

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

size_t skipSpace(llvm::StringRef text, size_t at) {
  while (at < text.size() && isSpace(text[at]))
    ++at;
  return at;
}

/// End of the string starting at the quote `at`.
size_t skipString(llvm::StringRef text, size_t at) {
  for (++at; at < text.size(); ++at) {
    if (text[at] == '\\')
      ++at;
    else if (text[at] == '"')
      return at + 1;
  }
  return llvm::StringRef::npos;
}

/// End of the value starting at `at` (already validated JSON).
size_t skipValue(llvm::StringRef text, size_t at) {
  if (at >= text.size())
    return llvm::StringRef::npos;
  if (text[at] == '"')
    return skipString(text, at);
  if (text[at] == '{' || text[at] == '[') {
    unsigned depth = 0;
    while (at < text.size()) {
      char c = text[at];
      if (c == '"') {
        at = skipString(text, at);
        if (at == llvm::StringRef::npos)
          return at;
        continue;
      }
      if (c == '{' || c == '[')
        ++depth;
      else if ((c == '}' || c == ']') && --depth == 0)
        return at + 1;
      ++at;
    }
    return llvm::StringRef::npos;
  }
  while (at < text.size() && !isSpace(text[at]) && text[at] != ',' &&
         text[at] != '}' && text[at] != ']')
    ++at;
  return at;
}

struct Member {
  size_t keyBegin, valueBegin, valueEnd;
  std::string key; ///< decoded
};

/// The file's way of writing members: indentation of a top-level key (""
/// for one line), the text between a key and its value.
struct Style {
  std::string indent = "  ";
  std::string separator = " : ";
  bool multiLine = true;
};

std::string jsonString(llvm::StringRef s) {
  return nlohmann::json(s.str()).dump();
}

/// Renders {key: value, ...} with `depth` levels of the file's indentation
/// before its closing brace.
class ObjectWriter {
public:
  ObjectWriter(const Style &style, unsigned depth)
      : style(style), depth(depth) {}
  ObjectWriter &add(llvm::StringRef key, const std::string &valueText) {
    members.push_back(jsonString(key) + style.separator + valueText);
    return *this;
  }
  ObjectWriter &add(llvm::StringRef key, uint64_t value) {
    return add(key, std::to_string(value));
  }
  std::string str() const {
    std::string inner, closing;
    if (style.multiLine)
      for (unsigned i = 0; i < depth; ++i)
        closing += style.indent;
    std::string memberIndent = closing + style.indent;
    std::string out = "{";
    for (size_t i = 0; i < members.size(); ++i) {
      out += i ? "," : "";
      out += style.multiLine ? "\n" + memberIndent : "";
      out += members[i];
    }
    out += style.multiLine ? "\n" + closing + "}" : "}";
    return out;
  }

private:
  const Style &style;
  unsigned depth;
  std::vector<std::string> members;
};

std::string renderRecord(const StripRecord &record, const Style &style) {
  auto file = [&](const RecordedFile &f) {
    return ObjectWriter(style, 2)
        .add("bytes", f.bytes)
        .add("sha256", jsonString(f.sha256))
        .str();
  };
  ObjectWriter writer(style, 1);
  writer.add("what", jsonString(whatWasDone(record)))
      .add("tool", jsonString(record.tool))
      .add("versions", ObjectWriter(style, 2)
                           .add("aimodel", jsonString(record.version))
                           .str())
      .add("date", jsonString(record.date))
      .add("from_main_mlirb", file(record.from))
      .add("main_mlirb", file(record.to))
      .add("removed",
           ObjectWriter(style, 2)
               .add("op_locations", record.opLocations)
               .add("block_argument_locations", record.blockArgumentLocations)
               .add("entries", record.entries)
               .add("strings", record.strings)
               .str());
  if (record.rehashed)
    writer.add("rehashed", jsonString(*record.rehashed));
  return writer.str();
}

llvm::Error notAnObject(size_t at) {
  return llvm::createStringError("byte " + std::to_string(at) +
                                 ": not a JSON object as expected");
}

} // namespace

ReadRecord aimodel::bundle::readStripRecord(const nlohmann::json &metadata) {
  ReadRecord read;
  auto it = metadata.find(kStripRecordKey);
  if (it == metadata.end())
    return read;
  if (!it->is_object()) {
    read.problem = "its \"strip\" record is not an object";
    return read;
  }
  std::optional<RecordedFile> from = recordedFile(*it, "from_main_mlirb");
  std::optional<RecordedFile> to = recordedFile(*it, "main_mlirb");
  if (!from || !to) {
    read.problem = "its \"strip\" record does not name the IR before and "
                   "after (from_main_mlirb, main_mlirb: bytes and sha256)";
    return read;
  }
  StripRecord record;
  record.tool = stringAt(*it, "tool");
  if (auto versions = it->find("versions");
      versions != it->end() && versions->is_object())
    record.version = stringAt(*versions, "aimodel");
  record.date = stringAt(*it, "date");
  record.from = *from;
  record.to = *to;
  if (auto removed = it->find("removed");
      removed != it->end() && removed->is_object()) {
    record.opLocations = countAt(*removed, "op_locations");
    record.blockArgumentLocations =
        countAt(*removed, "block_argument_locations");
    record.entries = countAt(*removed, "entries");
    record.strings = countAt(*removed, "strings");
  }
  if (std::string why = stringAt(*it, "rehashed"); !why.empty())
    record.rehashed = why;
  read.record = std::move(record);
  return read;
}

llvm::Expected<std::string>
aimodel::bundle::withStripRecord(llvm::StringRef text,
                                 const StripRecord &record) {
  size_t at = skipSpace(text, 0);
  if (at >= text.size() || text[at] != '{')
    return notAnObject(at);
  size_t open = at;
  std::vector<Member> members;
  at = skipSpace(text, at + 1);
  while (at < text.size() && text[at] != '}') {
    if (text[at] != '"')
      return notAnObject(at);
    Member m;
    m.keyBegin = at;
    size_t keyEnd = skipString(text, at);
    if (keyEnd == llvm::StringRef::npos)
      return notAnObject(at);
    m.key = nlohmann::json::parse(text.slice(at, keyEnd).str(), nullptr, false)
                .get<std::string>();
    at = skipSpace(text, keyEnd);
    if (at >= text.size() || text[at] != ':')
      return notAnObject(at);
    m.valueBegin = skipSpace(text, at + 1);
    m.valueEnd = skipValue(text, m.valueBegin);
    if (m.valueEnd == llvm::StringRef::npos)
      return notAnObject(m.valueBegin);
    members.push_back(std::move(m));
    at = skipSpace(text, members.back().valueEnd);
    if (at < text.size() && text[at] == ',')
      at = skipSpace(text, at + 1);
  }
  if (at >= text.size())
    return notAnObject(at);

  Style style;
  if (!members.empty()) {
    const Member &first = members.front();
    size_t lineStart = text.rfind('\n', first.keyBegin);
    style.multiLine = lineStart != llvm::StringRef::npos && lineStart > open;
    style.indent = style.multiLine
                       ? text.slice(lineStart + 1, first.keyBegin).str()
                       : std::string();
    size_t keyEnd = skipString(text, first.keyBegin);
    style.separator = text.slice(keyEnd, first.valueBegin).str();
    if (style.multiLine && style.indent.empty())
      style.indent = "  ";
  }
  std::string value = renderRecord(record, style);
  for (const Member &m : members)
    if (m.key == kStripRecordKey)
      return (text.take_front(m.valueBegin) + value +
              text.drop_front(m.valueEnd))
          .str();
  std::string member = jsonString(kStripRecordKey) + style.separator + value;
  if (members.empty())
    return (text.take_front(open + 1) + "\n" + style.indent + member + "\n" +
            text.drop_front(open + 1))
        .str();
  size_t after = members.back().valueEnd;
  std::string lead = style.multiLine ? ",\n" + style.indent : std::string(",");
  return (text.take_front(after) + lead + member + text.drop_front(after))
      .str();
}

std::string aimodel::bundle::recordDateNow() {
  std::time_t now = std::time(nullptr);
  if (const char *epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    char *end = nullptr;
    long long value = std::strtoll(epoch, &end, 10);
    if (end && *end == '\0' && end != epoch && value >= 0)
      now = std::time_t(value);
  }
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y%m%dT%H%M%SZ", &utc);
  return buffer;
}
