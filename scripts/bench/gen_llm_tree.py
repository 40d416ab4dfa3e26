#!/usr/bin/env python3
"""Writes a tree of coreai-models language bundle folders for bench-audit.

  gen_llm_tree.py OUT --bundles N --weights-mib W --graph SMALL.mlir

Each of the N folders is what an LLM export writes (coreai-models
export/bundle.py): metadata.json with its `language` block, `tokenizer/` as
Hugging Face saves it (tokenizer_config.json with ~100 added tokens and a
chat template, chat_template.jinja, and a tokenizer.json of a 32,000-entry
byte-level BPE vocabulary with its merges, 1.5 MB, the size of Llama 2's),
and the main asset `model.aimodel`. Its main.mlirb is the realistic 87-op
graph of SMALL.mlir (bench/gen_small_ir.py) given a language model's
interface (input_ids, two dynamic-length KV state handles, a 32,000-wide
logits output), plus, with W > 0, a W MiB weight blob of random bytes
(a real LLM's main.mlirb holds its weights: the smallest are hundreds of
MB). Files are hard links to one copy each, so the tree costs one asset of
disk while the audit reads and hashes every bundle's bytes. Deterministic.
"""
import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys

VOCAB = 32000
ADDED = 100


def tokenizer_files(rng):
    alphabet = "abcdefghijklmnopqrstuvwxyz\u0120\u010a"
    vocab = {}
    while len(vocab) < VOCAB:
        token = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 9)))
        vocab.setdefault(token, len(vocab))
    keys = list(vocab)
    merges = [rng.choice(keys) + " " + rng.choice(keys) for _ in range(31743)]
    added = [{"id": VOCAB - ADDED + i, "content": "<|special_%d|>" % i,
              "single_word": False, "lstrip": False, "rstrip": False,
              "normalized": False, "special": True} for i in range(ADDED)]
    tokenizer = {"version": "1.0", "truncation": None, "padding": None,
                 "added_tokens": added, "normalizer": None,
                 "pre_tokenizer": {"type": "ByteLevel"}, "post_processor": None,
                 "decoder": {"type": "ByteLevel"},
                 "model": {"type": "BPE", "dropout": None, "unk_token": None,
                           "vocab": vocab, "merges": merges}}
    template = ("{% for message in messages %}<|{{ message['role'] }}|>\n"
                "{{ message['content'] }}<|special_1|>\n{% endfor %}"
                "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")
    config = {"tokenizer_class": "LlamaTokenizerFast", "bos_token": "<s>",
              "eos_token": "<|special_1|>", "model_max_length": 4096,
              "added_tokens_decoder": {str(t["id"]): {"content": t["content"],
                                                      "special": True}
                                       for t in added},
              "chat_template": template}
    return {"tokenizer.json": json.dumps(tokenizer, ensure_ascii=False,
                                         indent=2),
            "tokenizer_config.json": json.dumps(config, indent=2),
            "chat_template.jinja": template}


def language_graph(small, weights_mib, rng):
    """SMALL.mlir's graph with an LLM's interface and, maybe, weights."""
    act = re.search(r"\^bb0\(%x: (tensor<[^>]*>)", small).group(1)
    handle = "!coreai.handle<tensor<1x8x?x64xf16>>"
    logits = "tensor<1x1x%dxf16>" % VOCAB
    text = small.replace(
        "^bb0(%x: " + act + " loc(unknown)):",
        "^bb0(%x: " + act + " loc(unknown), %ids: tensor<1x?xi32> "
        "loc(unknown), %k: " + handle + " loc(unknown), %v: " + handle +
        " loc(unknown)):")
    weights = ""
    if weights_mib:
        elements = weights_mib << 19  # f16: two bytes each
        weights = ('    %%weights = "coreai.constant"() {value = '
                   'dense_resource<weights> : tensor<%dxf16>} : () -> '
                   'tensor<%dxf16> loc(unknown)\n' % (elements, elements))
    text = re.sub(
        r'    "coreai\.output"\((%\w+)\) : \(([^)]*)\) -> \(\)',
        weights + '    %logits = "coreai.constant"() {value = dense<0.0> : ' +
        logits + '} : () -> ' + logits + ' loc(unknown)\n'
        r'    "coreai.output"(%logits, \1) : (' + logits + r', \2) -> ()',
        text)
    text = text.replace(
        "function_type = (" + act + ") -> " + act + "}",
        "function_type = (" + act + ", tensor<1x?xi32>, " + handle + ", " +
        handle + ") -> (" + logits + ", " + act + "), arg_attrs = "
        '[{coreai.name = "hidden"}, {coreai.name = "input_ids"}, '
        '{coreai.name = "k_cache"}, {coreai.name = "v_cache"}], res_attrs = '
        '[{coreai.name = "logits"}, {coreai.name = "hidden_out"}]}')
    if weights_mib:
        blob = rng.randbytes(weights_mib << 20)
        text += ('{-#\n  dialect_resources: {\n    builtin: {\n      weights: '
                 '"0x02000000' + blob.hex() + '"\n    }\n  }\n#-}\n')
    return text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--bundles", type=int, default=1000)
    parser.add_argument("--weights-mib", type=int, default=0)
    parser.add_argument("--graph", required=True)
    parser.add_argument("--mlir-opt", default="mlir-opt-22")
    args = parser.parse_args()
    rng = random.Random(24)
    os.makedirs(args.out)
    first = os.path.join(args.out, "llm-0000")
    tok = os.path.join(first, "tokenizer")
    os.makedirs(tok)
    for name, text in tokenizer_files(rng).items():
        with open(os.path.join(tok, name), "w", encoding="utf-8") as f:
            f.write(text)
    with open(args.graph) as f:
        small = f.read()
    ir = language_graph(small, args.weights_mib, rng)
    mlirb = subprocess.run([args.mlir_opt, "--allow-unregistered-dialect",
                            "--emit-bytecode", "-"], input=ir.encode(),
                           capture_output=True, check=True).stdout
    asset = os.path.join(first, "model.aimodel")
    os.makedirs(asset)
    members = {"main.mlirb": mlirb,
               "main.hash": hashlib.sha256(mlirb).digest(),
               "metadata.json": json.dumps(
                   {"producer": "coreai-core 1.0.0b2",
                    "assetVersion": "2.0"}).encode()}
    for name, data in members.items():
        with open(os.path.join(asset, name), "wb") as f:
            f.write(data)
    metadata = {"metadata_version": "0.2", "kind": "llm", "name": "tiny",
                "assets": {"main": "model.aimodel"},
                "language": {"tokenizer": "example/tiny-chat",
                             "vocab_size": VOCAB,
                             "max_context_length": 1024,
                             "embedded_tokenizer": True,
                             "function_map": {"main": ["main"]}},
                "source": {"model_definition": "torch",
                           "hf_model_id": "example/tiny-chat"},
                "compression": None,
                "compilation": {"date": "2026-12-04T00:00:00+00:00",
                                "targets": []}}
    with open(os.path.join(first, "metadata.json"), "w") as f:
        json.dump(metadata, f, indent=2)
    for i in range(1, args.bundles):
        folder = os.path.join(args.out, "llm-%04d" % i)
        for sub in ("tokenizer", "model.aimodel"):
            os.makedirs(os.path.join(folder, sub))
        for rel in ["metadata.json"] + [
                os.path.join("tokenizer", n) for n in os.listdir(tok)] + [
                os.path.join("model.aimodel", n) for n in members]:
            os.link(os.path.join(first, rel), os.path.join(folder, rel))
    print("%d bundle folders, main.mlirb %d bytes" % (args.bundles,
                                                      len(mlirb)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
