"""Checks an aimodel-diff/1 document's shape: keys exactly and in order."""
import json
import sys

doc = json.load(open(sys.argv[1]))
assert list(doc) == ["schema", "verdict", "graphs"], list(doc)
assert doc["schema"] == "aimodel-diff/1"
assert doc["verdict"] in ("identical", "different")
changes = 0
for g in doc["graphs"]:
    keys = ["file", "source", "target", "status", "ops", "counts",
            "weights_by_shape", "interface", "changes"]
    assert list(g) == [k for k in keys if k in g] and "changes" in g, list(g)
    if "interface" in g:
        assert list(g["interface"]) == ["golden", "new", "changes"]
        for side in ("golden", "new"):
            ports = g["interface"][side]
            assert ports is None or list(ports) == ["inputs", "outputs"]
        for c in g["interface"]["changes"]:
            assert list(c) == ["text", "name_only"], list(c)
    assert g["status"] in ("identical", "different", "added", "removed")
    assert list(g["ops"]) == ["source", "target"]
    assert list(g["counts"]) == ["identical", "modified", "added", "removed"]
    if g["status"] == "identical":
        assert not g["changes"]
    kinds = {"modified": 0, "added": 0, "removed": 0}
    for c in g["changes"]:
        keys = [k for k in ["kind", "op", "source_index", "target_index",
                            "detail", "module", "source_line", "fx_node",
                            "op_id", "read_by", "unused", "ambiguous"]
                if k in c]
        assert "fx_node" in c and "op_id" in c and "ambiguous" in c, list(c)
        assert ("read_by" in c) == ("unused" in c) == (c["kind"] != "modified")
        assert list(c) == keys, list(c)
        assert ("source_index" in c) == (c["kind"] != "added")
        assert ("target_index" in c) == (c["kind"] != "removed")
        kinds[c["kind"]] += 1
    if g["status"] == "different":  # every change listed, whatever the cap
        for kind, n in kinds.items():
            assert g["counts"][kind] == n, (kind, g["counts"][kind], n)
    changes += len(g["changes"])
identical = all(g["status"] == "identical" for g in doc["graphs"])
assert (doc["verdict"] == "identical") == identical
print(f"ok: {doc['verdict']}, {len(doc['graphs'])} graphs, {changes} changes")
