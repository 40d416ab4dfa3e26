//===- MLIRAudit.cpp - The IR rule passes in the aimodel-mlir module ------===//

#include "tools/aimodel/MLIRAudit.h"

#include "bytecode/BytecodeReader.h"
#include "mlir-passes/RuleRunner.h"
#include "support/SafeFile.h"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>

using namespace aimodel;

static char *copyOut(const std::string &text) {
  char *out = static_cast<char *>(std::malloc(text.size() + 1));
  if (out)
    std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

extern "C" __attribute__((visibility("default"))) int
aimodelRunIRRules(const AIModelIRRulesRequest *request, char **result) {
  auto fail = [&](llvm::Error error) {
    *result = copyOut(llvm::toString(std::move(error)));
    return 2;
  };
  // The caller opened the file without following anything; map that very
  // file, through a descriptor of our own.
  struct stat st;
  if (::fstat(request->fd, &st) != 0)
    return fail(llvm::createStringError("cannot stat the file"));
  support::RegularFile opened{
      support::UniqueFd(::fcntl(request->fd, F_DUPFD_CLOEXEC, 0)),
      support::stateFrom(st)};
  if (!opened.fd)
    return fail(llvm::createStringError("cannot duplicate its descriptor"));
  auto buffer = support::mapRegularFile(std::move(opened), request->name);
  if (!buffer)
    return fail(buffer.takeError());
  auto file = bytecode::BytecodeFile::fromBuffer(std::move(*buffer));
  if (!file)
    return fail(file.takeError());
  unsigned rules = request->rules;
  auto findings = rules ? passes::runIRRules(**file, rules)
                        : std::vector<passes::IRFinding>();
  if (!findings)
    return fail(findings.takeError());
  nlohmann::json out = nlohmann::json::array();
  for (const passes::IRFinding &finding : *findings)
    out.push_back({{"rule", finding.ruleId},
                   {"message", finding.message},
                   {"ops", finding.ops},
                   {"block_arguments", finding.blockArguments},
                   {"examples", finding.examples}});
  // Strings from the IR need not be UTF-8: replace what is not, rather than
  // throw.
  *result = copyOut(
      out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  return 0;
}
