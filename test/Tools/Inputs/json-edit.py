"""Writes a changed copy of a JSON file: the values and nesting the tests of
kgen's readers need them to refuse (a -5 ms time, an incomplete op, a config
no gemm can have, 200k levels of nesting).

usage: json-edit.py IN OUT EDIT...
  /pointer=JSON      set that member or element to the JSON text (-5, "x",
                     {"kind": "gemm"}); a missing last member is added
  /pointer=!delete   remove it
  /pointer=!deep:N   set it to N nested arrays, [[[...]]]
Pointers are RFC 6901 JSON pointers: /entries/0/candidates/1/time/median_ms.
"""
import json
import sys

DEEP = "@@json-edit-deep@@"


def walk(doc, pointer):
    """The container holding `pointer`'s target, and the target's key."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    node = doc
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node[part]
    last = parts[-1]
    return node, int(last) if isinstance(node, list) else last


def main():
    source, out, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
    doc = json.load(open(source))
    deep = {}
    for edit in edits:
        pointer, value = edit.split("=", 1)
        parent, key = walk(doc, pointer)
        if value == "!delete":
            del parent[key]
        elif value.startswith("!deep:"):
            marker = DEEP + str(len(deep))
            deep[marker] = int(value[len("!deep:"):])
            parent[key] = marker
        else:
            parent[key] = json.loads(value)
    text = json.dumps(doc, indent=1)
    for marker, depth in deep.items():
        text = text.replace(json.dumps(marker), "[" * depth + "]" * depth)
    open(out, "w").write(text)


if __name__ == "__main__":
    main()
