#!/usr/bin/env python3
"""Random language bundles with known ground truth for AIM017-AIM026.

  runtime_contract.py AIMODEL OUT_DIR SEED [BUNDLES]

Writes BUNDLES coreai-models bundle folders under OUT_DIR, each drawn at
random the way real exports differ: the kind, which `language` keys are
there, vocab_size against the logits width, the context, language.states,
the source model's name, the tokenizer folder (its class, eos token, the
chat template in any of its three places, added tokens above the head, a
vocabulary as a map or a Unigram list), and the main asset's entry graph
(input_ids' shape, 0-5 state handles of static or dynamic length, a logits
output or none), written as MLIR text by mlir-opt-22's own bytecode writer;
sometimes the folder names the asset under another role, so the language
rules must not judge it. Then it audits the tree (JSON, a random -j) and
checks every bundle's findings of AIM017-AIM026 and its rules_run against
what this file, written from the rules' documentation and not from the
code, says they must be. Prints "ok N bundles" or the differences (exit 1).
"""
import json
import os
import random
import re
import subprocess
import sys

KNOWN = {"BertTokenizer", "CodeGenTokenizer", "CodeLlamaTokenizer",
         "CohereTokenizer", "DistilbertTokenizer", "DistilBertTokenizer",
         "FalconTokenizer", "GemmaTokenizer", "GPT2Tokenizer", "LlamaTokenizer",
         "RobertaTokenizer", "T5Tokenizer", "TokenizersBackend",
         "PreTrainedTokenizer", "Qwen2Tokenizer", "WhisperTokenizer",
         "XLMRobertaTokenizer", "Xlm-RobertaTokenizer"}
CLASSES = ["LlamaTokenizerFast", "GPT2Tokenizer", "Qwen2TokenizerFast",
           "DebertaV2TokenizerFast", "NllbTokenizer", "FastLlamaTokenizer",
           "XLMRobertaTokenizerFast", "CLIPTokenizer"]
SOURCES = ["org/tiny-7b-it", "org/Tiny-Instruct", "org/tiny-chat",
           "org/tiny-chat-v2", "org/tiny-base", "org/whisper-tiny",
           "org/itsy-bitsy", "org/tiny-it-v2", None]
LANGUAGE_KEYS = ["tokenizer", "vocab_size", "max_context_length",
                 "function_map"]
CONTRACT = ["AIM0%d" % n for n in range(17, 27)]


def instruct(model_id):
    text = model_id.lower()
    return bool(re.search(r"(-it\b|-it-|instruct|-chat\b|chat-)", text))


def uses_eos_variable(template):
    """Jinja's own view: code is inside {{ }} and {% %}; strings there may
    hold a closer; {# #} is a comment; the rest is literal text."""
    code, i = [], 0
    while i < len(template):
        if template.startswith("{#", i):
            end = template.find("#}", i + 2)
            i = len(template) if end < 0 else end + 2
        elif template.startswith(("{{", "{%"), i):
            closer = "}}" if template[i + 1] == "{" else "%}"
            i += 2
            while i < len(template) and not template.startswith(closer, i):
                if template[i] in "'\"":
                    quote, i = template[i], i + 1
                    while i < len(template) and template[i] != quote:
                        i += 2 if template[i] == "\\" else 1
                    code.append(" ")
                else:
                    code.append(template[i])
                i += 1
            code.append(" ")
            i += 2
        else:
            i += 1
    return re.search(r"(?<![A-Za-z0-9_])eos_token(?![A-Za-z0-9_])",
                     "".join(code)) is not None


def graph_text(ids, states, dynamic, logits):
    args, types, names = [], [], []
    if ids is not None:
        t = "tensor<%sxi32>" % "x".join("?" if d is None else str(d)
                                        for d in ids)
        args.append("%%ids: %s" % t)
        types.append(t)
        names.append('{coreai.name = "input_ids"}')
    state = "!coreai.handle<tensor<1x2x%sx4xf16>>" % ("?" if dynamic else "8")
    for i in range(states):
        args.append("%%s%d: %s" % (i, state))
        types.append(state)
        names.append('{coreai.name = "cache_%d"}' % i)
    out = "tensor<1x1x%sxf16>" % ("?" if logits == "dynamic" else
                                  (logits or 4))
    result_name = "logits" if logits else "hidden"
    value = ('"coreai.constant"() {value = dense<0.0> : %s} : () -> %s' %
             (out, out) if logits != "dynamic" else
             '"coreai.make"() : () -> %s' % out)
    return ('"builtin.module"() ({\n  "coreai.graph"() ({\n  ^bb0(%s):\n'
            '    %%l = %s\n    "coreai.output"(%%l) : (%s) -> ()\n'
            '  }) {sym_name = "main", function_type = (%s) -> %s, '
            'arg_attrs = [%s], res_attrs = [{coreai.name = "%s"}]} : '
            '() -> ()\n}) : () -> ()\n' %
            (", ".join(args), value, out, ", ".join(types), out,
             ", ".join(names), result_name))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def make_bundle(rng, root, index):
    folder = os.path.join(root, "b%03d" % index)
    want = {"folder": set(), "asset": set(), "folder_ran": set(),
            "asset_ran": set()}
    kind = rng.choice(["llm"] * 6 + ["vlm"] * 2 + ["segmenter", None])
    language_kind = kind in ("llm", "vlm")
    width = rng.choice([8, 16, 32])
    logits = rng.choice([width] * 6 + [None, "dynamic"])
    ids = rng.choice([[1, 1], [1, None], [2, 1], [1, 16], None])
    states = rng.choice([0, 0, 1, 2, 2, 3, 4, 5])
    dynamic = rng.random() < 0.5
    asset_name = rng.choice(["model.aimodel", "sub/model.aimodel"])
    role = "main" if rng.random() < 0.85 else "aux"
    metadata = {"metadata_version": "0.2", "name": "b%d" % index,
                "assets": {role: asset_name}}
    if role != "main" and rng.random() < 0.5:
        metadata["assets"]["main"] = "other.aimodel"  # absent: AIM004
    if kind:
        metadata["kind"] = kind
    language = None
    if rng.random() < 0.85:
        language = {}
        for key in LANGUAGE_KEYS:
            if rng.random() < 0.9:
                language[key] = {
                    "tokenizer": "org/x",
                    "vocab_size": rng.choice([width, width, width + 3]),
                    "max_context_length": rng.choice([512, 2047, 2048,
                                                      8192]),
                    "function_map": {"main": ["main"]}}[key]
        if rng.random() < 0.3:
            language["states"] = {
                "s%d" % i: rng.choice(["kv_cache", "sliding_cache", "fixed"])
                for i in range(rng.choice([1, 2, 3]))}
        if rng.random() < 0.1:
            language["embedded_tokenizer"] = False
        metadata["language"] = language
    source = rng.choice(SOURCES)
    if source:
        metadata["source"] = {"hf_model_id": source}
    write(os.path.join(folder, "metadata.json"), json.dumps(metadata))

    # The tokenizer folder.
    tokenizer = rng.random() < 0.85
    highest = None
    template = None
    config = None
    if tokenizer:
        tok = os.path.join(folder, "tokenizer")
        os.makedirs(tok)
        added = {}
        for _ in range(rng.choice([0, 1, 2, 3])):
            added[rng.randrange(0, width + 4)] = "<t%d>" % rng.randrange(99)
        eos = rng.choice(["</s>", "<eos>", "<|im_end|>", None])
        if rng.random() < 0.9:
            config = {}
            cls = rng.choice(CLASSES + [None])
            if cls:
                config["tokenizer_class"] = cls
            if eos:
                config["eos_token"] = (eos if rng.random() < 0.5 else
                                       {"content": eos, "special": True})
            config["added_tokens_decoder"] = {
                str(i): {"content": t} for i, t in added.items()}
        body = rng.choice([
            "{% for m in messages %}{{ m.content }}{% endfor %}",
            "{% for m in messages %}{{ m.content }}{{ eos_token }}{% endfor %}",
            "{% for m in messages %}{{ m.content + eos_token }}{% endfor %}",
            "{% for m in messages %}{{ m.content }}</s>{% endfor %}",
            "{{ 'eos_token' }}<end_of_turn>",
            "{{ '}}' + eos_token }}",
            "{# eos_token #}{{ '{{' }}<end_of_turn>",
            "eos_token outside tags{{ m }}<|im_end|>"])
        where = rng.choice(["jinja", "json", "config", "list", None])
        if where == "jinja":
            write(os.path.join(tok, "chat_template.jinja"), body)
        elif where == "json":
            write(os.path.join(tok, "chat_template.json"),
                  json.dumps({"chat_template": body}))
        elif where in ("config", "list") and config is not None:
            config["chat_template"] = (body if where == "config" else
                                       [{"name": "default",
                                         "template": body}])
        if where in ("jinja", "json") or (where in ("config", "list") and
                                          config is not None):
            template = body + ("\n" if where == "list" else "")
        if config is not None:
            write(os.path.join(tok, "tokenizer_config.json"),
                  json.dumps(config))
            highest = max(added) if added else None
        vocab_size = rng.choice([width - 2, width, width + 1])
        if rng.random() < 0.8:
            listed = rng.random() < 0.3
            vocab = ([["p%d" % i, -1.0] for i in range(vocab_size)] if listed
                     else {"p%d" % i: i for i in range(vocab_size)})
            write(os.path.join(tok, "tokenizer.json"), json.dumps({
                "added_tokens": [{"id": i, "content": t}
                                 for i, t in added.items()],
                "model": {"vocab": vocab}}))
            top = vocab_size - 1
            if added:
                top = max(top, max(added))
            highest = top if highest is None else max(highest, top)
    # The asset.
    ir = graph_text(ids, states, dynamic, logits)
    asset = os.path.join(folder, asset_name)
    os.makedirs(asset)
    mlirb = subprocess.run(["mlir-opt-22", "--allow-unregistered-dialect",
                            "--emit-bytecode", "-"], input=ir.encode(),
                           capture_output=True, check=True).stdout
    with open(os.path.join(asset, "main.mlirb"), "wb") as f:
        f.write(mlirb)
    import hashlib
    with open(os.path.join(asset, "main.hash"), "wb") as f:
        f.write(hashlib.sha256(mlirb).digest())
    write(os.path.join(asset, "metadata.json"),
          json.dumps({"producer": "coreai-core 1.0.0b2",
                      "assetVersion": "2.0"}))

    # Ground truth: the folder's own rules.
    if kind == "llm":
        want["folder_ran"].add("AIM022")
        missing = ("main" not in metadata["assets"] or language is None or
                   any(k not in language for k in LANGUAGE_KEYS) or
                   (not tokenizer and
                    (language or {}).get("embedded_tokenizer", True)))
        if missing:
            want["folder"].add("AIM022")
    if language_kind and tokenizer:
        want["folder_ran"] |= {"AIM026"}
        if config is None:
            want["folder"].add("AIM026")
        else:
            cls = config.get("tokenizer_class")
            if cls is None or cls.replace("Fast", "") not in KNOWN:
                want["folder"].add("AIM026")
        want["folder_ran"] |= {"AIM023", "AIM024"}
        if template is None:
            want["folder"].add("AIM023" if source and instruct(source)
                               else "AIM024")
        elif config is not None and config.get("eos_token"):
            want["folder_ran"].add("AIM025")
            e = config["eos_token"]
            e = e["content"] if isinstance(e, dict) else e
            if e not in template and not uses_eos_variable(template):
                want["folder"].add("AIM025")
    # The asset's.
    want["asset_ran"] |= {"AIM017", "AIM018"}
    if states not in (0, 2):
        want["asset"].add("AIM017")
    if ids is not None and None not in ids and ids[-1] == 1:
        want["asset"].add("AIM018")
    main = role == "main" and language_kind
    meta_states = (language or {}).get("states") if main else None
    if main and states == 0 and meta_states:
        if len(meta_states) != 2:
            want["asset"].add("AIM017")
    if main and language is not None:
        ctx = language.get("max_context_length")
        if ctx is not None and (states or meta_states):
            want["asset_ran"].add("AIM021")
            dyn = (states and dynamic) or (
                not states and "kv_cache" in meta_states.values())
            if dyn and ctx >= 2048:
                want["asset"].add("AIM021")
    static_logits = logits not in (None, "dynamic")
    if main and language is not None and static_logits and \
            "vocab_size" in language:
        want["asset_ran"].add("AIM019")
        if language["vocab_size"] != logits:
            want["asset"].add("AIM019")
    if main and static_logits and tokenizer and highest is not None:
        want["asset_ran"].add("AIM020")
        if highest >= logits:
            want["asset"].add("AIM020")
    return folder, asset, want


def main():
    aimodel, out, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    rng = random.Random(seed)
    os.makedirs(out)
    expected = {}
    for i in range(count):
        folder, asset, want = make_bundle(rng, out, i)
        expected[folder] = (want["folder"], want["folder_ran"])
        expected[asset] = (want["asset"], want["asset_ran"])
    jobs = str(rng.choice([1, 2, 8]))
    run = subprocess.run([aimodel, "audit", "--format", "json", "--fail-on",
                          "never", "-j", jobs, out], capture_output=True)
    if run.returncode != 0:
        print("audit failed:", run.stderr.decode())
        return 1
    report = json.loads(run.stdout)
    problems = []
    seen = set()
    for bundle in report["bundles"]:
        path = bundle["path"]
        if path not in expected:
            continue
        seen.add(path)
        fired = {f["rule"] for f in bundle["findings"]} & set(CONTRACT)
        ran = set(bundle.get("rules_run", [])) & set(CONTRACT)
        want, want_ran = expected[path]
        if fired != want:
            problems.append("%s: fired %s, expected %s" %
                            (path, sorted(fired), sorted(want)))
        if ran != want_ran:
            problems.append("%s: ran %s, expected %s" %
                            (path, sorted(ran), sorted(want_ran)))
    for path in set(expected) - seen:
        problems.append("%s: not in the report" % path)
    for p in problems:
        print(p)
    if problems:
        return 1
    print("ok %d bundles" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
